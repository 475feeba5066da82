r"""Sampled evaluation, guarded: when each user's held-out item is ranked among m sampled negatives instead of the
whole catalogue (RecBole's ``uni100``, the "1 positive + 100 negatives" protocol), metrics computed on the sampled
ranking are not consistent with full-ranking metrics: they can even order two models differently (Krichene &
Rendle, *On Sampled Metrics for Item Recommendation*, KDD 2020). This module says so whenever it sees sampled lists
and gives their corrected estimates instead of a silent number.

Model (Krichene & Rendle §3): with n items and the held-out item at full rank R ∈ {1..n}, each of the m negatives
(drawn uniformly with replacement) ranks above it with probability (R − 1)/(n − 1), so the sampled rank r = 1 + the
number above is 1 + Binomial(m, (R − 1)/(n − 1)). A corrected metric is a value c_r for each sampled rank r,
chosen so that its expectation over the sampling matches the full-ranking metric M(R) (§5, uniform prior on R):

.. math:: \min_c \sum_{R=1}^{n} \big(E[c_r \mid R] - M(R)\big)^2 + \gamma\, \mathrm{Var}[c_r \mid R]

γ = 0 is their minimal-bias estimator (MES), γ > 0 the bias-variance one (BV). The closed form:
c = ((1 − γ) AᵀA + γ diag(Aᵀ1))⁻¹ AᵀM with A[R, r] = P(r | R) (least squares when γ = 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

#: Full-ranking metrics of one held-out item at rank R that the correction supports, by rankwise name.
METRICS = ("HitRate", "R", "P", "nDCG", "RR", "AP")


def metric_at_rank(name: str, k: int | None, ranks: np.ndarray) -> np.ndarray:
    """M(R) for one relevant item at rank(s) R: HitRate@k = R@k = [R ≤ k], P@k = [R ≤ k] / k, nDCG@k =
    [R ≤ k] / log2(R + 1), RR@k = AP@k = [R ≤ k] / R (no cutoff: k = ∞)."""
    ranks = np.asarray(ranks, dtype=np.float64)
    inside = ranks <= (k if k is not None else np.inf)
    if name in ("HitRate", "R"):
        return inside.astype(np.float64)
    if name == "P":
        if k is None:
            raise InputError("P needs a cutoff (P@k)")
        return inside / k
    if name == "nDCG":
        return inside / np.log2(ranks + 1)
    if name in ("RR", "AP"):
        return inside / ranks
    raise InputError(f"sampled correction: unknown metric {name!r}; one of {', '.join(METRICS)}")


def sampled_rank_probabilities(n_items: int, n_negatives: int) -> np.ndarray:
    """A[R − 1, r − 1] = P(sampled rank r | full rank R): r − 1 ~ Binomial(m, (R − 1)/(n − 1)), (n × (m + 1))."""
    if n_items < 2 or n_negatives < 1:
        raise InputError(f"sampled evaluation needs at least 2 items and 1 negative (n={n_items}, m={n_negatives})")
    p = (np.arange(1, n_items + 1) - 1) / (n_items - 1)
    j = np.arange(n_negatives + 1)
    log_choose = (math.lgamma(n_negatives + 1) - np.array([math.lgamma(x + 1) for x in j])
                  - np.array([math.lgamma(n_negatives - x + 1) for x in j]))  # fmt: skip
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = np.where(j[None, :] > 0, j[None, :] * np.log(p[:, None]), 0.0)
        log_q = np.where(n_negatives - j[None, :] > 0, (n_negatives - j[None, :]) * np.log1p(-p[:, None]), 0.0)
    return np.exp(log_choose[None, :] + log_p + log_q)


def corrected_values(name: str, k: int | None, n_items: int, n_negatives: int, gamma: float = 0.01) -> np.ndarray:
    """c_r for r = 1..m+1 (see the module docstring): the corrected value of each sampled rank."""
    if not 0 <= gamma <= 1:
        raise InputError(f"gamma must be in [0, 1], not {gamma!r}")
    a = sampled_rank_probabilities(n_items, n_negatives)
    target = metric_at_rank(name, k, np.arange(1, n_items + 1))
    if gamma == 0:
        return np.linalg.lstsq(a, target, rcond=None)[0]
    lhs = (1 - gamma) * (a.T @ a) + gamma * np.diag(a.sum(axis=0))
    return np.linalg.solve(lhs, a.T @ target)


@dataclass(frozen=True)
class SampledEstimate:
    """A metric over users each ranked among sampled negatives: the naive sampled mean (not comparable with
    full-ranking values), the corrected estimate of the full-ranking mean, and a note saying so."""

    metric: str
    sampled: float
    corrected: float
    method: str
    note: str


def sampled_metric(sampled_ranks: np.ndarray, metric: str, k: int | None, *, n_items: int, n_negatives: int,
                   gamma: float = 0.01) -> SampledEstimate:  # fmt: skip
    """Naive and corrected means of ``metric`` (a name of :data:`METRICS`) for held-out items at 1-based
    ``sampled_ranks`` among ``n_negatives`` sampled negatives from ``n_items`` items."""
    ranks = np.asarray(sampled_ranks)
    if ranks.size == 0:
        raise InputError("sampled_metric: no ranks")
    if not np.issubdtype(ranks.dtype, np.integer) or ranks.min() < 1 or ranks.max() > n_negatives + 1:
        raise InputError(f"sampled ranks must be integers in 1..{n_negatives + 1} (1 positive + {n_negatives} "
                         "negatives)")  # fmt: skip
    values = corrected_values(metric, k, n_items, n_negatives, gamma)
    label = f"{metric}@{k}" if k is not None else metric
    method = "MES (γ = 0)" if gamma == 0 else f"BV (γ = {gamma:g})"
    sampled = float(metric_at_rank(metric, k, ranks).mean())
    corrected = float(values[ranks - 1].mean())
    note = (f"{label} was computed among {n_negatives} sampled negatives of {n_items} items: sampled metrics are not "
            f"consistent with full-ranking ones (Krichene & Rendle, KDD 2020); sampled {sampled:.4f}, corrected "
            f"estimate of the full-ranking value {corrected:.4f} ({method})")  # fmt: skip
    return SampledEstimate(label, sampled, corrected, method, note)


def looks_sampled(list_lengths: np.ndarray, n_items: int) -> str | None:
    """A warning when every user's scored candidates number the same m + 1 ≤ n_items / 2 (1 positive + m sampled
    negatives, e.g. 101 for RecBole's uni100), else None."""
    lengths = np.asarray(list_lengths)
    if lengths.size == 0 or lengths.min() != lengths.max() or 2 * lengths[0] > n_items:
        return None
    return (f"every user has exactly {int(lengths[0])} scored candidates out of {n_items} items: if they are "
            f"1 positive + {int(lengths[0]) - 1} sampled negatives, the metrics are sampled metrics, not consistent "
            "with full-ranking ones (Krichene & Rendle, KDD 2020): use rankwise.recsys.sampled.sampled_metric for "
            "the corrected estimate")  # fmt: skip
