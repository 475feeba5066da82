"""A context-aware scorer: self-attention over the documents of a query's slate (allRank's transformer).

Each document of a slate is scored in the context of the others: with ``x_i`` the standardised features of
document ``i`` of a slate of ``n`` real documents (padding to ``L``),

- input projection: ``h_i = Dropout(W_p x_i + b_p)`` (``d_model`` wide);
- ``blocks`` encoder blocks, each (pre-norm residual connections)
  ``h = h + Dropout(MultiHead(LN(h)))`` then ``h = h + Dropout(W_2 Dropout(ReLU(W_1 LN(h) + b_1)) + b_2)``
  (``ff`` wide);
- scaled dot-product attention per head (``heads`` heads of ``d_k = d_model / heads``), with
  ``Q, K, V = LN(h) W_q, LN(h) W_k, LN(h) W_v`` split into heads:
  ``Attention(Q, K, V)_i = Σ_j softmax_j(q_i · k_j / √d_k + m_j) v_j``, ``m_j = 0`` for a real document and
  ``-∞`` for padding, so a padded document receives weight exactly 0 and never changes a real one's score;
  ``MultiHead = concat(heads) W_o + b_o``; attention weights take ``Dropout`` in training;
- a final ``LN``, then the output layer ``s_i = w_s · h_i + b_s``.

``LN`` is allRank's layer normalisation (the Annotated Transformer's): ``LN(h) = a (h - mean(h)) / (std(h) + ε) + b``
with the *unbiased* standard deviation (``torch.std``) and ``ε = 1e-6`` added to it, not under the square root:
not ``torch.nn.LayerNorm``. Weight matrices start Glorot-uniform (``xavier_uniform_``, as allRank's ``make_model``).
Without a positional encoding the scores are permutation-equivariant over the slate: reordering the documents
reorders their scores (``tests/ltr/test_transformer.py``).

Reference: P. Pobrotyn, T. Bartczak, M. Synowiec, R. Białobrzeski, J. Bojar, "Context-Aware Learning to Rank with
Self-Attention", SIGIR eCom 2020 (arXiv:2005.10084); allegro/allRank 1.4.3: allrank/models/model.py:12-44
(``FCModel``), :95-128 (``OutputLayer``), :131-151 (``make_model``: Glorot init) and allrank/models/transformer.py:
28-56 (``Encoder``: blocks, final norm), :59-81 (``LayerNorm``, ε at :63), :84-106 (``SublayerConnection``:
pre-norm residual), :109-134 (``EncoderLayer``), :137-156 (``attention``: ``masked_fill(mask == 1, -inf)`` at :151),
:159-203 (``MultiHeadedAttention``), :206-227 (``PositionwiseFeedForward``). With the same weights allRank's
``LTRModel.score`` gives the same scores (``tests/ltr/test_transformer.py``, allRank's own code from a checkout).

Not reproduced from allRank (each an option there): a positional encoding (``positional_encoding``: the slate is a
set here, in no given order), ``input_norm`` (rankwise standardises features by the training mean and std instead),
more than one input layer or an activation after it (``fc_model.sizes``, ``activation``: here one linear
projection, allRank's ``activation: null``), an output activation (``post_model.output_activation``, e.g. Sigmoid:
monotone, so it does not change a ranking, only what the losses see) and ``d_output > 1``. Attention is computed by
``torch.nn.functional.scaled_dot_product_attention`` (fused kernels where the device has them; a CUDA training step
uses its math backend, whose backward pass repeats bit for bit), equal to allRank's explicit softmax up to rounding.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .losses import require_torch

if TYPE_CHECKING:
    from torch import Tensor

EPSILON = 1e-6
"""allRank's LayerNorm ε, added to the standard deviation (allrank/models/transformer.py:63)."""


def transformer_state_shapes(num_features: int, d_model: int, blocks: int, ff: int) -> dict[str, tuple[int, ...]]:
    """The shape of every weight of :func:`build_transformer`'s module, by its ``state_dict`` name (without the
    standardisation buffers)."""
    shapes: dict[str, tuple[int, ...]] = {"project.weight": (d_model, num_features), "project.bias": (d_model,)}
    for block in range(blocks):
        prefix = f"blocks.{block}."
        for name, (outputs, inputs) in {"qkv": (3 * d_model, d_model), "out": (d_model, d_model),
                                        "ff_in": (ff, d_model), "ff_out": (d_model, ff)}.items():  # fmt: skip
            shapes[f"{prefix}{name}.weight"], shapes[f"{prefix}{name}.bias"] = (outputs, inputs), (outputs,)
        for norm in ("attention_norm", "ff_norm"):
            shapes[f"{prefix}{norm}.gain"], shapes[f"{prefix}{norm}.bias"] = (d_model,), (d_model,)
    shapes["norm.gain"], shapes["norm.bias"] = (d_model,), (d_model,)
    shapes["output.weight"], shapes["output.bias"] = (1, d_model), (1,)
    return shapes


def attention_bytes(groups: int, longest: int, heads: int, d_model: int, blocks: int, ff: int) -> int:
    """An estimate of the float32 activations one training step of ``groups`` slates of ``longest`` documents keeps
    for the backward pass: per block, the attention weights and their softmax (``2 · heads · L²`` per slate) and
    about ``8 · d_model + 2 · ff`` numbers per document."""
    per_slate = blocks * (2 * heads * longest * longest + longest * (8 * d_model + 2 * ff)) + longest * d_model
    return 4 * groups * per_slate


@functools.cache
def _scorer_class() -> Any:
    """The ``nn.Module`` class, defined on first use (PyTorch is optional)."""
    torch = require_torch()
    nn, functional = torch.nn, torch.nn.functional

    class LayerNorm(nn.Module):  # type: ignore[misc, name-defined]
        """allRank's ``LayerNorm``: ``gain · (h − mean) / (std + ε) + bias``, std unbiased."""

        def __init__(self, width: int) -> None:
            super().__init__()
            self.gain = nn.Parameter(torch.ones(width))
            self.bias = nn.Parameter(torch.zeros(width))

        def forward(self, h: Tensor) -> Tensor:
            mean = h.mean(-1, keepdim=True)
            return self.gain * (h - mean) / (h.std(-1, keepdim=True) + EPSILON) + self.bias

    class Block(nn.Module):  # type: ignore[misc, name-defined]
        """One encoder block: masked multi-head self-attention and a feed-forward layer, each behind a pre-norm
        residual connection."""

        def __init__(self, d_model: int, heads: int, ff: int, dropout: float) -> None:
            super().__init__()
            self.heads, self.p = heads, dropout
            self.attention_norm, self.ff_norm = LayerNorm(d_model), LayerNorm(d_model)
            self.qkv, self.out = nn.Linear(d_model, 3 * d_model), nn.Linear(d_model, d_model)
            self.ff_in, self.ff_out = nn.Linear(d_model, ff), nn.Linear(ff, d_model)
            self.dropout = nn.Dropout(dropout)

        def forward(self, h: Tensor, keep: Tensor) -> Tensor:
            slates, length, width = h.shape
            q, k, v = self.qkv(self.attention_norm(h)).view(slates, length, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
            attended = functional.scaled_dot_product_attention(
                q, k, v, attn_mask=keep, dropout_p=self.p if self.training else 0.0
            )
            h = h + self.dropout(self.out(attended.transpose(1, 2).reshape(slates, length, width)))
            return h + self.dropout(self.ff_out(self.dropout(functional.relu(self.ff_in(self.ff_norm(h))))))

    class ContextScorer(nn.Module):  # type: ignore[misc, name-defined]
        """``forward(x [B, L, features], mask [B, L] (True: a real document)) → scores [B, L]``; padded places get
        a score that nothing should read."""

        def __init__(self, num_features: int, d_model: int, heads: int, blocks: int, ff: int, dropout: float) -> None:
            super().__init__()
            self.project = nn.Linear(num_features, d_model)
            self.dropout = nn.Dropout(dropout)
            self.blocks = nn.ModuleList([Block(d_model, heads, ff, dropout) for _ in range(blocks)])
            self.norm = LayerNorm(d_model)
            self.output = nn.Linear(d_model, 1)
            for parameter in self.parameters():
                if parameter.dim() > 1:
                    nn.init.xavier_uniform_(parameter)

        def forward(self, x: Tensor, mask: Tensor) -> Tensor:
            keep = mask[:, None, None, :]  # [B, 1 (heads), 1 (queries), L (keys)]
            h = self.dropout(self.project(x))
            for block in self.blocks:
                h = block(h, keep)
            return self.output(self.norm(h)).squeeze(-1)

    return ContextScorer


def build_transformer(num_features: int, d_model: int, heads: int, blocks: int, ff: int, dropout: float) -> Any:
    """The context-aware scorer (see the module docstring): ``module(x, mask)`` scores ``[B, L]`` slates."""
    return _scorer_class()(num_features, d_model, heads, blocks, ff, dropout)


def reproducible_attention(device: Any) -> Any:
    """A context for training steps on ``device``: on CUDA, ``scaled_dot_product_attention`` on its math backend
    (explicit matmul and softmax, as allRank): the fused backends' backward passes accumulate with atomics, so they
    are not bit-reproducible (PyTorch warns so under deterministic algorithms); elsewhere nothing changes (the CPU's
    fused kernel repeats bit for bit)."""
    torch = require_torch()
    if device.type != "cuda":
        return contextlib.nullcontext()
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:  # torch 2.2
        return torch.backends.cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False, enable_math=True)
    return sdpa_kernel(SDPBackend.MATH)


def slate_chunks(offsets: np.ndarray, budget: int) -> list[tuple[np.ndarray, int]]:
    """The non-empty groups of ``offsets`` in chunks for scoring: groups ordered by size (stable), each chunk
    ``(groups, width)`` with ``len(groups) · width <= budget`` cells (at least one group), ``width`` its longest
    group: little padding, bounded memory."""
    sizes = np.diff(offsets)
    order = np.flatnonzero(sizes > 0)
    order = order[np.argsort(sizes[order], kind="stable")]
    chunks: list[tuple[np.ndarray, int]] = []
    start = 0
    while start < order.shape[0]:
        cells = np.arange(1, order.shape[0] - start + 1) * sizes[order[start:]]
        end = start + max(int(np.searchsorted(cells, budget, side="right")), 1)
        chunks.append((order[start:end], int(sizes[order[end - 1]])))
        start = end
    return chunks


def score_slates(score: Callable[[Tensor, Tensor], Tensor], x: np.ndarray, offsets: np.ndarray, device: Any,
                 budget: int) -> np.ndarray:  # fmt: skip
    """float64 scores of the rows of ``x`` ``[rows, features]``, each group of ``offsets`` scored as one slate by
    ``score(features [B, L, F], mask [B, L]) → [B, L]``, in the chunks of :func:`slate_chunks` (padding is 0)."""
    torch = require_torch()
    out = np.zeros(x.shape[0], dtype=np.float64)
    sizes = np.diff(offsets)
    for groups, width in slate_chunks(offsets, budget):
        positions = np.arange(width)
        mask = positions[None, :] < sizes[groups][:, None]
        rows = offsets[groups][:, None] + np.where(mask, positions[None, :], 0)
        features = torch.from_numpy(np.where(mask[..., None], x[rows], np.float32(0))).to(device)
        mask_t = torch.from_numpy(mask).to(device)
        out[rows[mask]] = score(features, mask_t)[mask_t].double().cpu().numpy()
    return out


def describe(d_model: int, heads: int, blocks: int, ff: int) -> str:
    """``d_model=64, heads=2, blocks=2, ff=128`` (for messages)."""
    return f"d_model={d_model}, heads={heads}, blocks={blocks}, ff={ff}"


def check_shape(d_model: int, heads: int, blocks: int, ff: int) -> str | None:
    """Why these sizes make no transformer (one line), or None."""
    if min(d_model, heads, blocks, ff) < 1 or d_model < 2:
        shown = describe(d_model, heads, blocks, ff)
        return f"a transformer needs d_model >= 2 and heads, blocks, ff >= 1, not {shown}"
    if d_model % heads:
        return f"d_model ({d_model}) must be a multiple of heads ({heads}): each head attends over d_model / heads"
    return None


__all__ = ["attention_bytes", "build_transformer", "check_shape", "score_slates", "slate_chunks",
           "transformer_state_shapes"]
