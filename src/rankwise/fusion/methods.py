"""The fusion methods on the pool's (candidates × runs) arrays: each is a few whole-array numpy expressions over every
query at once (Condorcet alone compares documents pairwise, query by query). The formulas, references and defaults are
:data:`rankwise.fusion.catalog.METHODS`'; ranx's ``ranx/fusion/*.py`` and trectools' ``trectools/fusion.py`` define
the same values, read, not copied (where they differ, the catalog's ``note`` says how)."""

from __future__ import annotations

from enum import Enum

import numpy as np

from ..errors import RankwiseError
from ..policies import parse_enum
from .catalog import Method
from .normalisations import Scored, per_query
from .pool import Pool
from .training import MIN_LOG_ODDS, SEGFUSE_BOUNDS, Trained


class MissingPolicy(str, Enum):
    """What a run that did not retrieve a document contributes to a score-based method (CombSUM, CombMIN, ...,
    weighted sum)."""

    DEFAULT = "default"
    """The method's own definition (ranx's): 0 in the sums CombSUM and weighted sum; nothing in the others (min, max,
    median and the MNZ family run over the runs that retrieved the document)."""
    ZERO = "zero"
    """A normalised score of 0 (PyTerrier's ``+``), in every method."""
    RUN_MIN = "run_min"
    """The smallest normalised score of the run's list for the query (ranx issue #32's "default-minimum"); 0 where
    the run holds no document of the query."""


def fuse_scores(
    pool: Pool, scored: Scored, method: Method, weights: np.ndarray, params: dict[str, float],
    missing: MissingPolicy | str = MissingPolicy.DEFAULT, trained: Trained | None = None,
) -> np.ndarray:  # fmt: skip
    """The fused score of every candidate under ``method`` (see :data:`~.catalog.METHODS` for each formula).

    ``weights``: one per run (all methods receive them; only weighted ones use them); ``params``: the method's
    parameters, checked; ``missing``: :class:`MissingPolicy` (score-based methods only); ``trained``: the
    estimates of a method that needs training judgments.
    """
    policy: MissingPolicy = parse_enum(MissingPolicy, missing, "missing-document policy")  # type: ignore[assignment]
    if policy is not MissingPolicy.DEFAULT and method.inputs != "scores":
        raise RankwiseError(f"{method.name}: missing={policy.value} applies to score-based methods only; "
                            f"{method.name} scores a missed document by its definition: {method.missing}")  # fmt: skip
    present = scored.present
    count = present.sum(axis=1).astype(np.float64)
    name = method.name
    if method.inputs == "scores":
        return _score_based(pool, scored, name, weights, params, policy, count)
    position = np.maximum(scored.position, 0).astype(np.float64)  # a missed document's terms are masked out
    if name in ("isr", "log_isr", "logn_isr"):
        total = np.where(present, 1.0 / (position + 1.0) ** 2, 0.0).sum(axis=1)
        factor = {"isr": count, "log_isr": np.log(count), "logn_isr": np.log(count + params.get("sigma", 0.0))}[name]
        return total * factor
    if name == "rrf":
        return np.where(present, 1.0 / (params["k"] + position + 1.0), 0.0).sum(axis=1)
    if name == "rbc":
        phi = params["phi"]
        return np.where(present, (1.0 - phi) * phi**position, 0.0).sum(axis=1)
    if name in ("bordafuse", "w_bordafuse"):
        size = pool.candidates_per_query()[:, None].astype(np.float64)
        points = np.where(present, size - scored.position, (size - scored.length[pool.query] + 1.0) / 2.0)
        return points @ (weights if name == "w_bordafuse" else np.ones(pool.num_runs))
    if name in ("condorcet", "w_condorcet"):
        return condorcet(pool, scored, weights if name == "w_condorcet" else np.ones(pool.num_runs))
    if trained is None:
        raise RankwiseError(f"{name} needs training judgments: give qrels (the queries it learns from)")
    return _trained(pool, scored, name, params, trained)


def _score_based(
    pool: Pool, scored: Scored, name: str, weights: np.ndarray, params: dict[str, float], missing: MissingPolicy,
    count: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """CombMIN/MAX/MED/SUM/ANZ/MNZ/GMNZ, WMNZ, Mixed and the weighted sum on the normalised scores."""
    value, present = scored.value, scored.present
    if missing is MissingPolicy.DEFAULT:
        filled = value
        used = present
    else:
        fill = 0.0 if missing is MissingPolicy.ZERO else per_query(pool, np.where(present, value, np.nan), "min")
        if not np.isscalar(fill):
            fill = np.where(np.isfinite(fill), fill, 0.0)[pool.query]
        filled = np.where(present, value, fill)
        used = np.ones_like(present)
    if name == "min":
        return np.where(used, filled, np.inf).min(axis=1)
    if name == "max":
        return np.where(used, filled, -np.inf).max(axis=1)
    if name == "med":
        return _median(filled, used)
    total = np.where(used, filled, 0.0).sum(axis=1)
    if name == "sum":
        return total
    if name == "anz":
        return total / count
    if name == "mnz":
        return total * count
    if name == "gmnz":
        return total * count ** params["gamma"]
    if name == "wmnz":
        return total * (present * weights).sum(axis=1)
    weighted = np.where(used, filled, 0.0) @ weights
    return weighted * np.sqrt(count) if name == "mixed" else weighted  # mixed, wsum


def _median(values: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Per row, the median of ``values`` where ``used`` (the mean of the two middle ones for an even count, as
    ``np.median``): each row sorted once, the unused pushed to the end."""
    ordered = np.sort(np.where(used, values, np.inf), axis=1)
    n = used.sum(axis=1)
    rows = np.arange(len(values))
    return (ordered[rows, (n - 1) // 2] + ordered[rows, n // 2]) / 2.0


def condorcet(pool: Pool, scored: Scored, weights: np.ndarray) -> np.ndarray:
    """(Weighted) Condorcet by Copeland's count (Montague & Aslam, CIKM 2002; ranx/fusion/condorcet.py,
    weighted_condorcet.py): V(d, e) = Σ of the weights of the runs that rank d above e, a run that missed e and
    retrieved d ranking d above, one that missed both abstaining; d's count is Σ_{e≠d} [V(d,e) > V(e,d)] +
    ½ [V(d,e) = V(e,d)]. Documents are placed by count (then the tie policy) and scored N − place, as ranx scores
    its Condorcet order. O(N² · R) per query: one (N × N) comparison per run, query by query."""
    count = np.zeros(len(pool.query))
    big = np.iinfo(np.int64).max
    position = np.where(scored.present, scored.position, big)
    for q in range(pool.num_queries):
        lo, hi = pool.offsets[q], pool.offsets[q + 1]
        p = position[lo:hi]
        votes = np.zeros((hi - lo, hi - lo))
        for r in range(pool.num_runs):
            votes += weights[r] * (p[:, r][:, None] < p[:, r][None, :])
        count[lo:hi] = (votes > votes.T).sum(axis=1) + 0.5 * ((votes == votes.T).sum(axis=1) - 1)
    order, offsets = pool.order(count)
    place = np.empty(len(order), dtype=np.int64)
    place[order] = np.arange(len(order), dtype=np.int64) - offsets[pool.query[order]]
    return (pool.candidates_per_query() - place).astype(np.float64)


def _trained(pool: Pool, scored: Scored, name: str, params: dict[str, float], trained: Trained) -> np.ndarray:
    """BayesFuse, MAPFuse, PosFuse, ProbFuse, SegFuse and SlideFuse from the estimates in ``trained``."""
    present, position = scored.present, np.maximum(scored.position, 0)
    total = np.zeros(len(pool.query))
    for r in range(pool.num_runs):  # per run (a handful): each is vectorised over every candidate
        p, here = position[:, r], present[:, r]
        if name == "bayesfuse":
            odds = trained.log_odds[r]
            inside = here & (p < len(odds))
            total += np.where(inside, odds[np.minimum(p, len(odds) - 1)], MIN_LOG_ODDS)
            continue
        if name == "mapfuse":
            part = trained.map[r] / (p + 1.0)
        elif name == "posfuse":
            probs = trained.position_probs[r]
            part = np.where(p < len(probs), probs[np.minimum(p, max(len(probs) - 1, 0))] if len(probs) else 0.0, 0.0)
        elif name == "probfuse":
            probs = trained.segment_probs(r, int(params["n_segments"]))
            size = np.ceil(scored.length[pool.query, r] / len(probs)).astype(np.int64)
            k = np.minimum(p // np.maximum(size, 1), len(probs) - 1)
            part = probs[k] / (k + 1.0)
        elif name == "segfuse":
            probs = trained.segfuse_probs[r]
            k = np.searchsorted(SEGFUSE_BOUNDS, p, side="right") - 1
            inside = k < len(probs)
            part = np.where(inside, probs[np.minimum(k, len(probs) - 1)], 0.0) * (scored.value[:, r] + 1.0)
        else:  # slidefuse
            part = _slide(trained.position_probs[r], p, scored.length[pool.query, r], int(params["w"]))
        total += np.where(here, part, 0.0)
    return total


def _slide(probs: np.ndarray, p: np.ndarray, length: np.ndarray, w: int) -> np.ndarray:
    """SlideFuse's window mean: Σ P(a..b) / (b − a + 1), a = max(p − w, 0), b = min(p + w, |r| − 1), P 0 past its
    end (ranx's slice stops there while its divisor counts the whole window)."""
    a = np.maximum(p - w, 0)
    b = np.minimum(p + w, np.maximum(length - 1, 0))
    cumulative = np.concatenate(([0.0], np.cumsum(probs)))
    top = len(probs)
    window = cumulative[np.minimum(b + 1, top)] - cumulative[np.minimum(a, top)]
    return window / (b - a + 1.0)


__all__ = ["MissingPolicy", "condorcet", "fuse_scores"]
