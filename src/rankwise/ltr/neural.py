"""Neural learning to rank in PyTorch: linear and MLP scorers trained with pointwise, pairwise or listwise losses.

Inputs are plain arrays, independent of any file format:

- ``features``: float32 ``[rows, num_features]``
- ``labels``: non-negative integer grades ``[rows]``
- ``offsets``: int64 ``[groups + 1]`` in CSR style: group ``g`` is rows ``offsets[g]:offsets[g + 1]``.

Every loss takes a padded batch: ``scores`` and ``labels`` of shape ``[B, L]`` and a boolean ``mask`` (True for
real items). Padded entries never contribute, whatever values they hold: they are masked (``-inf`` inside a
softmax or log-sum-exp), never offset from the real scores (an offset rounds away in float32 near 10^11).
Pointwise losses average over the real items of the batch; pairwise and listwise losses average a per-group loss
over the *informative* groups, those with at least two real items of different grades (a group of one item, or
whose items all share one grade, has no order to learn and counts as absent; a batch without any gives a loss of
0 with zero gradients). Gains are ``2^l - 1`` and discounts ``1 / log2(1 + rank)``, as in LightGBM.

Validation nDCG@k (for early stopping) is computed by :func:`rankwise.evaluate` with the ``lightgbm`` dialect,
so this module holds no metric definitions of its own.

PyTorch is an optional dependency (``pip install '.[torch]'`` in a checkout); nothing else in rankwise imports this
module at import time.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import RankwiseError
from ..wording import install_hint
from .limits import check_memory

try:
    import torch
except ImportError:  # the optional extra is not installed; require_torch() says so
    torch = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from torch import Tensor

FORMAT = "rankwise.neural/1"
MODELS = ("linear", "mlp")
EpochCallback = Callable[[int, float, "float | None"], None]


def require_torch() -> Any:
    """The ``torch`` module, or a :class:`RankwiseError` saying how to install it."""
    if torch is None:
        raise RankwiseError(f"PyTorch is not installed: {install_hint('torch')}")
    return torch


# ----------------------------------------------------------------------------------------------- losses
def _prepare(scores: Tensor, labels: Tensor, mask: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Scores and labels (in the scores' dtype) with padding set to 0, so padding never reaches a gradient."""
    require_torch()
    if scores.dim() != 2 or labels.shape != scores.shape or mask.shape != scores.shape:
        raise RankwiseError(
            f"a loss needs scores, labels and mask of one shape [groups, items], not {tuple(scores.shape)}, "
            f"{tuple(labels.shape)} and {tuple(mask.shape)}"
        )
    mask = mask.to(torch.bool)
    zero = torch.zeros((), dtype=scores.dtype, device=scores.device)
    return torch.where(mask, scores, zero), torch.where(mask, labels.to(scores.dtype), zero), mask


def _informative(labels: Tensor, mask: Tensor) -> Tensor:
    """``[B]``: the group has two real items with different grades."""
    big = torch.finfo(labels.dtype).max
    highest = torch.where(mask, labels, -big).amax(dim=1)
    lowest = torch.where(mask, labels, big).amin(dim=1)
    return mask.any(dim=1) & (highest > lowest)


def _group_mean(per_group: Tensor, valid: Tensor) -> Tensor:
    """Mean of ``per_group`` over the ``valid`` groups (0, with zero gradients, when none is)."""
    total = torch.where(valid, per_group, torch.zeros_like(per_group)).sum()
    return total / valid.sum().clamp(min=1).to(per_group.dtype)


def _gains(labels: Tensor) -> Tensor:
    return torch.pow(2.0, labels) - 1.0


def _discounts(ranks: Tensor) -> Tensor:
    return 1.0 / torch.log2(1.0 + ranks)


def _ideal_dcg(gains: Tensor) -> Tensor:
    """``[B]``: DCG of the gains sorted best first (padding has gain 0)."""
    ordered = gains.sort(dim=1, descending=True).values
    positions = torch.arange(1, gains.shape[1] + 1, dtype=gains.dtype, device=gains.device)
    return (ordered * _discounts(positions)).sum(dim=1)


def _ranks(scores: Tensor, mask: Tensor) -> Tensor:
    """``[B, L]`` 1-based ranks by score, highest first; ties keep row order; padding ranks last."""
    keyed = torch.where(mask, scores.detach(), torch.tensor(-math.inf, dtype=scores.dtype, device=scores.device))
    order = keyed.argsort(dim=1, descending=True, stable=True)
    positions = torch.arange(1, scores.shape[1] + 1, dtype=scores.dtype, device=scores.device)
    return torch.empty_like(keyed).scatter_(1, order, positions.expand_as(keyed).contiguous())


def pointwise_mse(scores: Tensor, labels: Tensor, mask: Tensor) -> Tensor:
    """Mean squared error between score and grade over the N real items of the batch.

    ``L = (1/N) Σ_i (s_i - y_i)^2``
    """
    s, y, mask = _prepare(scores, labels, mask)
    count = mask.sum().clamp(min=1).to(s.dtype)
    return torch.where(mask, (s - y) ** 2, torch.zeros_like(s)).sum() / count


def _sigmoid_ce(s: Tensor, target: Tensor, mask: Tensor) -> Tensor:
    # softplus(s) - t·s = -t·log σ(s) - (1 - t)·log(1 - σ(s)), stable for any s
    losses = torch.nn.functional.softplus(s) - target * s
    return torch.where(mask, losses, torch.zeros_like(s)).sum() / mask.sum().clamp(min=1).to(s.dtype)


def sigmoid_cross_entropy(scores: Tensor, labels: Tensor, mask: Tensor) -> Tensor:
    """Sigmoid cross-entropy on binarised grades (relevant = grade > 0), mean over the N real items.

    ``t_i = [y_i > 0]``, ``L = -(1/N) Σ_i [t_i log σ(s_i) + (1 - t_i) log(1 - σ(s_i))]``
    """
    s, y, mask = _prepare(scores, labels, mask)
    return _sigmoid_ce(s, (y > 0).to(s.dtype), mask)


def sigmoid_cross_entropy_graded(
    scores: Tensor, labels: Tensor, mask: Tensor, *, label_max: float | None = None
) -> Tensor:
    """Sigmoid cross-entropy on grades scaled to [0, 1], mean over the N real items.

    ``t_i = min(y_i / y_max, 1)``, ``L = -(1/N) Σ_i [t_i log σ(s_i) + (1 - t_i) log(1 - σ(s_i))]``, where
    ``y_max`` is ``label_max`` (training uses the training set's highest grade), else the batch's highest grade
    (1 when all grades are 0).
    """
    s, y, mask = _prepare(scores, labels, mask)
    if label_max is None:
        label_max = float(y.max()) if y.numel() else 0.0
    target = (y / (float(label_max) if label_max > 0 else 1.0)).clamp(0.0, 1.0)
    return _sigmoid_ce(s, target, mask)


def ranknet(scores: Tensor, labels: Tensor, mask: Tensor) -> Tensor:
    """RankNet (Burges et al. 2005): logistic loss on every pair with different grades.

    For a group with pairs ``P = {(i, j): y_i > y_j}``: ``L_g = (1/|P|) Σ_(i,j)∈P log(1 + exp(-(s_i - s_j)))``;
    the loss is the mean of ``L_g`` over informative groups.
    """
    s, y, mask = _prepare(scores, labels, mask)
    pairs = mask[:, :, None] & mask[:, None, :] & (y[:, :, None] > y[:, None, :])
    diff = s[:, :, None] - s[:, None, :]
    losses = torch.where(pairs, torch.nn.functional.softplus(-diff), torch.zeros_like(diff)).sum(dim=(1, 2))
    count = pairs.sum(dim=(1, 2))
    return _group_mean(losses / count.clamp(min=1).to(s.dtype), count > 0)


def _padding_at_minus_infinity(values: Tensor, mask: Tensor) -> Tensor:
    """``values`` with padding set to ``-inf`` (``exp`` of it is exactly 0 at any magnitude of the real values), so
    a softmax or log-sum-exp over the row is the one over its real items. Whatever the padding held never reaches
    the forward value of a real item, and its gradient there is 0 (``masked_fill`` passes none back)."""
    return values.masked_fill(~mask, -math.inf)


def _masked_log_softmax(values: Tensor, mask: Tensor) -> Tensor:
    """``log softmax`` over each row's real items; 0 at padding (and in rows without a real item)."""
    logs = torch.log_softmax(_padding_at_minus_infinity(values, mask), dim=1)
    return torch.where(mask, logs, torch.zeros_like(values))


def listnet(scores: Tensor, labels: Tensor, mask: Tensor) -> Tensor:
    """ListNet (Cao et al. 2007), top-one probabilities: cross-entropy between the softmax of the grades and the
    softmax of the scores over the group's real items.

    ``L_g = -Σ_i softmax(y)_i · log softmax(s)_i``; the loss is the mean of ``L_g`` over informative groups.
    """
    s, y, mask = _prepare(scores, labels, mask)
    target = torch.exp(_masked_log_softmax(y, mask)) * mask
    per_group = -(target * _masked_log_softmax(s, mask)).sum(dim=1)
    return _group_mean(per_group, _informative(y, mask))


def listmle(scores: Tensor, labels: Tensor, mask: Tensor) -> Tensor:
    """ListMLE (Xia et al. 2008): negative Plackett-Luce log-likelihood of the permutation π that sorts the
    group's real items by grade, highest first.

    ``L_g = Σ_{i=1..n} [log Σ_{j=i..n} exp(s_π(j)) - s_π(i)]``; the loss is the mean of ``L_g`` over informative
    groups. Items of equal grade are ordered by the current score, highest first (ties in score by row order),
    i.e. π is the most likely permutation consistent with the grades, so the loss does not depend on row order.
    The choice of π is not differentiated. The loss still separates tied items: the one π puts first is pushed up
    and the other down (grades (1, 0, 0), scores (0, 0.3, 0.1): π = (0, 1, 2), gradient (-0.711, -0.059, +0.770),
    which widens the gap between the two tied items 1 and 2).
    """
    s, y, mask = _prepare(scores, labels, mask)
    by_score = torch.where(mask, s.detach(), -math.inf).argsort(dim=1, descending=True, stable=True)
    grade_key = torch.where(mask, y, -math.inf).gather(1, by_score)
    order = by_score.gather(1, grade_key.argsort(dim=1, descending=True, stable=True))
    sorted_mask = mask.gather(1, order)  # padding sits at the end of each sorted row
    sorted_s = s.gather(1, order)
    tail = _padding_at_minus_infinity(sorted_s, sorted_mask).flip(1)
    tail_lse = torch.logcumsumexp(tail, dim=1).flip(1)  # log Σ_{j ≥ i} exp(s_π(j)) over real items only
    per_item = torch.where(sorted_mask, tail_lse - sorted_s, torch.zeros_like(sorted_s))
    return _group_mean(per_item.sum(dim=1), _informative(y, mask))


def lambdarank(scores: Tensor, labels: Tensor, mask: Tensor) -> Tensor:
    """LambdaRank (Burges et al. 2006) as a loss: pairwise logistic loss weighted by |ΔnDCG| of swapping the pair.

    With gains ``G_i = 2^y_i - 1``, ranks ``r_i`` by the current scores (ties by row order), discounts
    ``D_i = 1 / log2(1 + r_i)`` and ideal DCG ``IDCG`` (full list):

    ``|ΔnDCG_ij| = |G_i - G_j| · |D_i - D_j| / IDCG``,
    ``L_g = Σ_{y_i > y_j} |ΔnDCG_ij| · log(1 + exp(-(s_i - s_j)))``;

    the loss is the mean of ``L_g`` over informative groups. The weights are constants (not differentiated), so
    the gradient is LambdaRank's lambda: ``∂L_g/∂s_i = -Σ_j |ΔnDCG_ij| σ(-(s_i - s_j))`` over pairs above ``j``.
    """
    s, y, mask = _prepare(scores, labels, mask)
    valid = _informative(y, mask)
    gains = torch.where(mask, _gains(y), torch.zeros_like(y))
    discounts = torch.where(mask, _discounts(_ranks(s, mask)), torch.zeros_like(y))
    ideal = _ideal_dcg(gains)
    ideal = torch.where(ideal > 0, ideal, torch.ones_like(ideal))
    weights = (gains[:, :, None] - gains[:, None, :]).abs() * (discounts[:, :, None] - discounts[:, None, :]).abs()
    weights = (weights / ideal[:, None, None]).detach()
    pairs = mask[:, :, None] & mask[:, None, :] & (y[:, :, None] > y[:, None, :])
    diff = s[:, :, None] - s[:, None, :]
    losses = torch.where(pairs, weights * torch.nn.functional.softplus(-diff), torch.zeros_like(diff))
    return _group_mean(losses.sum(dim=(1, 2)), valid)


def approx_ndcg(scores: Tensor, labels: Tensor, mask: Tensor, *, temperature: float = 0.1) -> Tensor:
    """ApproxNDCG (Qin, Liu and Li 2010): 1 - nDCG computed with smooth ranks.

    ``π̂_i = 1 + Σ_{j≠i} σ((s_j - s_i) / T)`` (the paper's α is ``1/T``),
    ``L_g = 1 - (1/IDCG) Σ_i (2^y_i - 1) / log2(1 + π̂_i)``;

    the loss is the mean of ``L_g`` over informative groups (all of which have IDCG > 0). As ``T → 0`` with
    distinct scores, ``π̂`` becomes the exact rank and ``1 - L_g`` the exact nDCG.
    """
    if not temperature > 0:
        raise RankwiseError(f"approx_ndcg: temperature must be > 0, not {temperature}")
    s, y, mask = _prepare(scores, labels, mask)
    valid = _informative(y, mask)
    others = mask[:, None, :] & mask[:, :, None]
    others = others & ~torch.eye(s.shape[1], dtype=torch.bool, device=s.device)
    above = torch.sigmoid((s[:, None, :] - s[:, :, None]) / temperature)  # [b, i, j] = σ((s_j - s_i) / T)
    approx_ranks = 1.0 + torch.where(others, above, torch.zeros_like(above)).sum(dim=2)
    gains = torch.where(mask, _gains(y), torch.zeros_like(y))
    ideal = _ideal_dcg(gains)
    ideal = torch.where(ideal > 0, ideal, torch.ones_like(ideal))
    approx = (gains * _discounts(approx_ranks)).sum(dim=1) / ideal
    return _group_mean(1.0 - approx, valid)


LOSSES: dict[str, Callable[..., Any]] = {
    "mse": pointwise_mse,
    "sigmoid_ce": sigmoid_cross_entropy,
    "sigmoid_ce_graded": sigmoid_cross_entropy_graded,
    "ranknet": ranknet,
    "listnet": listnet,
    "listmle": listmle,
    "lambdarank": lambdarank,
    "approxndcg": approx_ndcg,
}


# ----------------------------------------------------------------------------------------------- config
@dataclass
class NeuralConfig:
    """How to build and train a neural ranker.

    ``model``: ``"linear"`` or ``"mlp"`` (``hidden`` layer widths, ReLU, ``dropout``); ``loss``: a key of
    :data:`LOSSES`; ``batch_groups``: groups per optimiser step (Adam with ``learning_rate`` and L2
    ``weight_decay``); early stopping after ``patience`` epochs without a better validation nDCG@``eval_k``;
    ``temperature``: ApproxNDCG's T; ``standardize``: scale features by the training mean and std (stored in the
    model); ``device``: ``"auto"`` (CUDA when available), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
    """

    model: str = "mlp"
    loss: str = "lambdarank"
    hidden: tuple[int, ...] = (64, 32)
    dropout: float = 0.0
    epochs: int = 50
    learning_rate: float = 1e-3
    weight_decay: float = 0.0
    batch_groups: int = 32
    patience: int = 5
    eval_k: int = 10
    seed: int = 0
    device: str = "auto"
    temperature: float = 0.1
    standardize: bool = True

    def __post_init__(self) -> None:
        self.hidden = _widths(self.hidden)
        for name in ("epochs", "batch_groups", "patience", "eval_k", "seed"):
            setattr(self, name, _whole(name, getattr(self, name)))
        for name in ("dropout", "learning_rate", "weight_decay", "temperature"):
            setattr(self, name, _real(name, getattr(self, name)))
        if not isinstance(self.standardize, bool) or not isinstance(self.device, str):
            raise RankwiseError(f"standardize must be True or False and device a name, not {self.standardize!r} "
                                f"and {self.device!r}")  # fmt: skip
        if self.model not in MODELS:
            raise RankwiseError(f"unknown model {self.model!r}; models are {', '.join(MODELS)}")
        if self.loss not in LOSSES:
            raise RankwiseError(f"unknown loss {self.loss!r}; losses are {', '.join(LOSSES)}")
        if self.model == "mlp" and (not self.hidden or min(self.hidden) < 1):
            shown = ",".join(map(str, self.hidden)) or "(none)"
            raise RankwiseError(f"an mlp needs hidden layers of width >= 1 (e.g. hidden=64,32), not hidden={shown}")
        for name in ("epochs", "batch_groups", "patience", "eval_k"):
            if getattr(self, name) < 1:
                raise RankwiseError(f"{name} must be >= 1, not {getattr(self, name)}")
        if not 0.0 <= self.dropout < 1.0:
            raise RankwiseError(f"dropout must be in [0, 1), not {self.dropout}")
        if not self.learning_rate > 0 or not self.weight_decay >= 0 or not self.temperature > 0:
            raise RankwiseError(
                f"learning_rate and temperature must be > 0 and weight_decay >= 0, not {self.learning_rate}, "
                f"{self.temperature} and {self.weight_decay}"
            )


def _widths(hidden: Any) -> tuple[int, ...]:
    """Hidden layer widths as a tuple of ints (one int is one layer); anything else is a RankwiseError."""
    layers = (hidden,) if not isinstance(hidden, (str, bytes)) and np.ndim(hidden) == 0 else hidden
    try:
        return tuple(_whole("hidden", width) for width in layers)
    except (RankwiseError, TypeError):
        raise RankwiseError(f"hidden must be layer widths (integers such as 64,32), not {hidden!r}") from None


def _whole(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise RankwiseError(f"{name} must be an integer, not {value!r}")
    return int(value)


def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise RankwiseError(f"{name} must be a number, not {value!r}")
    return float(value)


def resolve_device(name: str) -> Any:
    """``"auto"`` → CUDA when available, else CPU; anything else as given (CUDA must then be available)."""
    torch = require_torch()
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise RankwiseError(f"unknown device {name!r}; use 'auto', 'cpu', 'cuda' or 'cuda:N'") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise RankwiseError(f"device {name!r}: CUDA is not available")
    return device


# ----------------------------------------------------------------------------------------------- inputs
def _check_inputs(
    features: Any, labels: Any, offsets: Any, what: str, num_features: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.asarray(features)
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise RankwiseError(
            f"{what}: features must be a 2-d array [rows, features] with at least one of each, not shape {x.shape}"
        )
    if not np.issubdtype(x.dtype, np.number):
        raise RankwiseError(f"{what}: features must be numeric, not {x.dtype}")
    x = np.ascontiguousarray(x, dtype=np.float32)
    if not np.isfinite(x).all():
        row = int(np.flatnonzero(~np.isfinite(x).all(axis=1))[0])
        raise RankwiseError(f"{what}: features of row {row} are not all finite")
    if num_features is not None and x.shape[1] != num_features:
        raise RankwiseError(f"{what}: {x.shape[1]} features, but the model was trained on {num_features}")
    y = np.asarray(labels)
    if y.shape != (x.shape[0],):
        raise RankwiseError(f"{what}: labels must have shape ({x.shape[0]},) like the feature rows, not {y.shape}")
    if not (np.issubdtype(y.dtype, np.integer) or (np.issubdtype(y.dtype, np.floating) and np.all(y == np.round(y)))):
        raise RankwiseError(f"{what}: labels must be integer grades")
    if (y < 0).any():
        raise RankwiseError(f"{what}: label of row {int(np.flatnonzero(y < 0)[0])} is negative ({y[y < 0][0]})")
    y = y.astype(np.int64)
    o = np.asarray(offsets)
    if o.ndim != 1 or o.shape[0] < 2 or not np.issubdtype(o.dtype, np.integer):
        raise RankwiseError(f"{what}: offsets must be a 1-d integer array [groups + 1], not {o.dtype} {o.shape}")
    o = o.astype(np.int64)
    if o[0] != 0 or o[-1] != x.shape[0] or (np.diff(o) < 0).any():
        raise RankwiseError(
            f"{what}: offsets must rise from 0 to the number of rows ({x.shape[0]}); got {o[0]} … {o[-1]}"
        )
    return x, y, o


def evaluate_scores(
    scores: np.ndarray, labels: np.ndarray, offsets: np.ndarray, measures: Sequence[str], *, dialect: str = "lightgbm"
) -> dict[str, float]:
    """Aggregate ``measures`` of ``scores`` against ``labels`` per group, computed by :func:`rankwise.evaluate`.

    Group ``g`` becomes query ``str(g)``, its rows documents ``"0"``, ``"1"``, … in row order (the order in which
    the ``lightgbm`` dialect breaks score ties). Empty groups are left out.
    """
    import polars as pl

    from ..pipeline.evaluate import evaluate

    offsets = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(offsets)
    query = np.repeat(np.arange(sizes.shape[0]), sizes).astype(str)
    doc = (np.arange(offsets[-1]) - np.repeat(offsets[:-1], sizes)).astype(str)
    qrels = pl.DataFrame({"query_id": query, "doc_id": doc, "grade": np.asarray(labels, dtype=np.int64)})
    run = pl.DataFrame({"query_id": query, "doc_id": doc, "score": np.asarray(scores, dtype=np.float64)})
    return dict(evaluate(qrels, run, list(measures), dialect=dialect).aggregate)


# ----------------------------------------------------------------------------------------------- model
def _linear_layers(config: NeuralConfig, num_features: int) -> dict[int, tuple[int, int]]:
    """The scorer's linear layers, as position in the ``nn.Sequential`` → (inputs, outputs): each hidden layer is
    followed by a ReLU (and a Dropout when ``dropout > 0``), the last layer gives one score."""
    layers: dict[int, tuple[int, int]] = {}
    position, width = 0, num_features
    for hidden in config.hidden if config.model == "mlp" else ():
        layers[position] = (width, hidden)
        position += 3 if config.dropout > 0 else 2
        width = hidden
    layers[position] = (width, 1)
    return layers


def _state_shapes(config: NeuralConfig, num_features: int) -> dict[str, tuple[int, ...]]:
    """The shape of every tensor in the scorer's ``state_dict``, computed without building it."""
    shapes: dict[str, tuple[int, ...]] = {"mean": (num_features,), "scale": (num_features,)}
    for position, (inputs, outputs) in _linear_layers(config, num_features).items():
        shapes[f"{position}.weight"], shapes[f"{position}.bias"] = (outputs, inputs), (outputs,)
    return shapes


def _check_network_fits(config: NeuralConfig, num_features: int) -> None:
    """Refuse, before building it, a network whose training would not fit in memory: float32 weights, their
    gradients, Adam's two moments and the best epoch's copy (5 numbers per parameter)."""
    parameters = sum(math.prod(shape) for shape in _state_shapes(config, num_features).values())
    shape = f"hidden={','.join(map(str, config.hidden))} on {num_features}" if config.model == "mlp" else num_features
    check_memory(5 * 4 * parameters, f"training the {config.model} model ({shape} features)")


def _build_module(config: NeuralConfig, num_features: int) -> Any:
    """An ``nn.Sequential`` scorer with buffers ``mean`` and ``scale`` (feature standardisation)."""
    torch = require_torch()
    nn = torch.nn
    layers: list[Any] = []
    for inputs, outputs in _linear_layers(config, num_features).values():
        if layers:
            layers.append(nn.ReLU())
            if config.dropout > 0:
                layers.append(nn.Dropout(config.dropout))
        layers.append(nn.Linear(inputs, outputs))
    module = nn.Sequential(*layers)
    module.register_buffer("mean", torch.zeros(num_features))
    module.register_buffer("scale", torch.ones(num_features))
    return module


def _score(module: Any, x: Tensor) -> Tensor:
    return module((x - module.mean) / module.scale).squeeze(-1)


class NeuralRanker:
    """A trained scorer: ``predict(features)`` gives one float64 score per row (higher ranks first).

    ``best_epoch`` is the (1-based) epoch whose weights were kept; ``history`` has one
    ``{"epoch", "train_loss", "valid_ndcg"}`` dict per epoch run.
    """

    def __init__(
        self,
        module: Any,
        config: NeuralConfig,
        num_features: int,
        best_epoch: int,
        history: list[dict[str, Any]],
    ) -> None:
        self.module = module
        self.config = config
        self.num_features = num_features
        self.best_epoch = best_epoch
        self.history = history

    @property
    def device(self) -> Any:
        return self.module.mean.device

    def predict(self, features: Any, *, batch_rows: int = 65536) -> np.ndarray:
        """Scores for ``features`` ``[rows, num_features]``, float64 ``[rows]``."""
        torch = require_torch()
        x = np.asarray(features)
        if x.ndim != 2 or x.shape[1] != self.num_features:
            raise RankwiseError(f"predict: features must have shape [rows, {self.num_features}], not {x.shape}")
        x = np.ascontiguousarray(x, dtype=np.float32)
        was_training = self.module.training
        self.module.eval()
        out = np.empty(x.shape[0], dtype=np.float64)
        try:
            with torch.inference_mode():
                for start in range(0, x.shape[0], batch_rows):
                    chunk = torch.from_numpy(x[start : start + batch_rows]).to(self.device)
                    out[start : start + chunk.shape[0]] = _score(self.module, chunk).double().cpu().numpy()
        finally:
            self.module.train(was_training)
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write weights, standardisation statistics, config and history with ``torch.save`` (plain containers
        and tensors only, so :meth:`load` can use ``weights_only=True``)."""
        torch = require_torch()
        state = {k: v.detach().cpu() for k, v in self.module.state_dict().items()}
        payload = {
            "format": FORMAT,
            "config": dataclasses.asdict(self.config),
            "num_features": self.num_features,
            "state_dict": state,
            "best_epoch": self.best_epoch,
            "history": [dict(h) for h in self.history],
        }
        torch.save(payload, Path(path))

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, device: str = "auto") -> NeuralRanker:
        """Read a model written by :meth:`save` onto ``device``."""
        torch = require_torch()
        try:
            payload = torch.load(Path(path), map_location="cpu", weights_only=True)
        except FileNotFoundError:
            raise RankwiseError(f"{path}: no such file") from None
        except Exception as exc:
            raise RankwiseError(f"{path}: cannot read a rankwise neural model ({type(exc).__name__})") from None
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise RankwiseError(f"{path}: not a rankwise neural model (format {FORMAT})")
        config = NeuralConfig(**{**payload["config"], "device": device})
        num_features = _whole("num_features", payload["num_features"])
        _check_weights(path, config, num_features, payload["state_dict"])  # before anything is allocated
        module = _build_module(config, num_features)
        module.load_state_dict(payload["state_dict"])
        module.to(resolve_device(device)).eval()
        return cls(module, config, num_features, _whole("best_epoch", payload["best_epoch"]), payload["history"])


def _check_weights(path: str | os.PathLike[str], config: NeuralConfig, num_features: int, state: Any) -> None:
    """The saved tensors must be exactly those the config builds, shape for shape, so a config that claims a
    larger network than the file holds is refused before that network is made."""
    expected = _state_shapes(config, num_features)
    state = state if isinstance(state, dict) else {}
    found = {name: tuple(value.shape) if isinstance(value, torch.Tensor) else "not a tensor"
             for name, value in state.items()}  # fmt: skip
    if found == expected:
        return
    name = min((n for n in {*expected, *found} if found.get(n) != expected.get(n)), key=str)
    raise RankwiseError(
        f"{path}: the saved weights do not match the model's config ({name}: {found.get(name, 'missing')} in the "
        f"file, {expected.get(name, 'none')} for model={config.model}, hidden={','.join(map(str, config.hidden))} "
        f"and {num_features} features)"
    )


# ----------------------------------------------------------------------------------------------- training
@dataclass
class _Data:
    features: Any  # float32 tensor [rows, F] on the device
    labels: Any  # float32 tensor [rows] on the device
    offsets: np.ndarray
    sizes: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.sizes = np.diff(self.offsets)

    def batch(self, groups: np.ndarray) -> tuple[Tensor, Tensor, Tensor]:
        """Row indices of the real items (row-major), their ``[B, L]`` mask, and the padded labels."""
        torch = require_torch()
        sizes = self.sizes[groups]
        width = max(int(sizes.max()), 1)
        positions = np.arange(width)
        mask = positions[None, :] < sizes[:, None]
        rows = (self.offsets[groups][:, None] + positions[None, :])[mask]
        device = self.features.device
        rows_t = torch.from_numpy(rows).to(device)
        mask_t = torch.from_numpy(mask).to(device)
        return rows_t, mask_t, _padded(self.labels[rows_t], mask_t)


def _padded(values: Tensor, mask: Tensor) -> Tensor:
    """``[B, L]`` with ``values`` (one per real item, row-major) at the mask's True places and 0 elsewhere."""
    return torch.zeros(mask.shape, dtype=values.dtype, device=values.device).masked_scatter(mask, values)


def _loss_function(config: NeuralConfig, labels: np.ndarray) -> Callable[..., Any]:
    function = LOSSES[config.loss]
    if config.loss == "approxndcg":
        return partial(function, temperature=config.temperature)
    if config.loss == "sigmoid_ce_graded":
        return partial(function, label_max=float(max(int(labels.max()), 1)))
    return function


def train_neural(
    features: Any,
    labels: Any,
    offsets: Any,
    *,
    valid: tuple[Any, Any, Any] | None = None,
    config: NeuralConfig | None = None,
    on_epoch: EpochCallback | None = None,
) -> NeuralRanker:
    """Train a :class:`NeuralRanker` on groups of rows (see the module docstring for the array layout).

    Each epoch visits the groups in an order shuffled by a generator seeded with ``config.seed``, ``batch_groups``
    at a time. With ``valid = (features, labels, offsets)``, validation nDCG@``eval_k`` (LightGBM's definition,
    computed by :func:`rankwise.evaluate`) is measured after every epoch; training stops after ``patience``
    epochs without improvement and the best epoch's weights are kept. ``on_epoch(epoch, train_loss,
    valid_ndcg)`` is called after each epoch (``valid_ndcg`` None without ``valid``).

    Runs are reproducible for one seed: weights and dropout use ``torch.manual_seed(seed)``, and deterministic
    algorithms are switched on for the call (on CUDA, ``CUBLAS_WORKSPACE_CONFIG`` is set to ``:4096:8`` unless
    already set).
    """
    torch = require_torch()
    config = config or NeuralConfig()
    x, y, o = _check_inputs(features, labels, offsets, "train")
    if valid is not None:
        vx, vy, vo = _check_inputs(*valid, "valid", num_features=x.shape[1])
    device = resolve_device(config.device)
    if device.type == "cuda":
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    previous = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        torch.manual_seed(config.seed)
        generator = torch.Generator().manual_seed(config.seed)
        _check_network_fits(config, x.shape[1])
        module = _build_module(config, x.shape[1])
        if config.standardize:
            mean = x.mean(axis=0, dtype=np.float64)
            std = x.std(axis=0, dtype=np.float64)
            module.mean.copy_(torch.from_numpy(mean.astype(np.float32)))
            module.scale.copy_(torch.from_numpy(np.where(std > 1e-12, std, 1.0).astype(np.float32)))
        module.to(device)
        data = _Data(torch.from_numpy(x).to(device), torch.from_numpy(y.astype(np.float32)).to(device), o)
        loss_fn = _loss_function(config, y)
        optimizer = torch.optim.Adam(module.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
        groups = np.flatnonzero(data.sizes > 0)
        ranker = NeuralRanker(module, config, x.shape[1], best_epoch=0, history=[])
        best_ndcg, best_state, waited = -math.inf, None, 0
        measure = f"nDCG@{config.eval_k}"
        for epoch in range(1, config.epochs + 1):
            module.train()
            order = groups[torch.randperm(groups.shape[0], generator=generator).numpy()]
            total, weight = 0.0, 0
            for start in range(0, order.shape[0], config.batch_groups):
                batch = order[start : start + config.batch_groups]
                rows, mask, batch_labels = data.batch(batch)
                scores = _padded(_score(module, data.features[rows]), mask)
                loss = loss_fn(scores, batch_labels, mask)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                total += float(loss.detach()) * batch.shape[0]
                weight += batch.shape[0]
            train_loss = total / max(weight, 1)
            valid_ndcg = None
            if valid is not None:
                valid_ndcg = evaluate_scores(ranker.predict(vx), vy, vo, [measure])[measure]
            ranker.history.append({"epoch": epoch, "train_loss": train_loss, "valid_ndcg": valid_ndcg})
            if on_epoch is not None:
                on_epoch(epoch, train_loss, valid_ndcg)
            if valid_ndcg is None:
                ranker.best_epoch = epoch
                continue
            if valid_ndcg > best_ndcg:
                best_ndcg, waited, ranker.best_epoch = valid_ndcg, 0, epoch
                best_state = copy.deepcopy(module.state_dict())
            else:
                waited += 1
                if waited >= config.patience:
                    break
        if best_state is not None:
            module.load_state_dict(best_state)
        module.eval()
        return ranker
    finally:
        torch.use_deterministic_algorithms(previous[0], warn_only=previous[1])
