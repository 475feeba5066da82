"""The neural rankers' training losses, on padded batches (PyTorch).

Every loss takes ``scores`` and ``labels`` of shape ``[B, L]`` and a boolean ``mask`` (True for real items).
Padded entries never contribute, whatever values they hold: they are masked (``-inf`` inside a softmax or
log-sum-exp), never offset from the real scores (an offset rounds away in float32 near 10^11). Pointwise losses
average over the real items of the batch; pairwise and listwise losses average a per-group loss over the
*informative* groups, those with at least two real items of different grades (a group of one item, or whose items
all share one grade, has no order to learn and counts as absent; a batch without any gives a loss of 0 with zero
gradients). Gains are ``2^l - 1`` and discounts ``1 / log2(1 + rank)``, as in LightGBM.

No loss reads a value back to the host (no device synchronisation), so a training step stays on the device.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import RankwiseError
from ..wording import install_hint

try:
    import torch
except ImportError:  # the optional extra is not installed; require_torch() says so
    torch = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from torch import Tensor


def require_torch() -> Any:
    """The ``torch`` module, or a :class:`RankwiseError` saying how to install it."""
    if torch is None:
        raise RankwiseError(f"PyTorch is not installed: {install_hint('torch')}")
    return torch


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
    keyed = _padding_at_minus_infinity(scores.detach(), mask)  # no host scalar copied to the device
    order = keyed.argsort(dim=1, descending=True, stable=True)
    # the inverse permutation by a second sort, not a scatter (whose deterministic CUDA path is a sorting index_put)
    return (order.argsort(dim=1) + 1).to(scores.dtype)


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
