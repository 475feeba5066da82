"""Kernels of the gain measures: DCG, nDCG and IDCG with their gain, discount and ideal-ranking variants, binG, and
trec_eval's experimental gain measures G, nDCGRel, RnDCG and YAAP.

A row's gain comes from its grade (:func:`_gains`), its discount from its rank (:func:`_discounted`); the ideal
ranking sorts a query's positive gains descending (:func:`_ideal_order`). The formulas are documented in
:mod:`rankwise.measures.gain`; comments here name the trec_eval behaviour each line reproduces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine.aligned import Aligned
from ..errors import MeasureError
from ..measures.spec import Measure
from .common import Kernel, choice, divide, in_cutoff, scored_rank, within_query_accumulate


def _gains(grades: np.ndarray, m: Measure, rel: int) -> np.ndarray:
    """Gain per grade: g, 2^g − 1, 1 or 2^(g − rel + 1) − 1; 0 below rel. A grade map gives its value to the
    grades it names and the linear gain (the grade itself) to the others, as trec_eval's ``ndcg.1=3,2=9`` does."""
    gain = m.get("gain")
    if not isinstance(gain, tuple):
        choice(m, "gain", ("linear", "exp2", "binary", "exp2_rel"))
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
    discount = choice(m, "discount", ("log2", "ln", "log2_max2"))
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
    """DCG@k = Σ_{i≤k} gain(g(L_i)) · discount(i), discount 1/log2(i + 1) by default; i per ``rank`` (Järvelin &
    Kekäläinen, ACM TOIS 2002; trec_eval m_ndcg.c)."""
    rank = scored_rank(a, m, rel)
    return a.per_query_sum(_discounted(rank, a.tie_mean(_gains(a.grade, m, rel)), m), in_cutoff(a, m, rank))


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
    ideal = choice(m, "ideal", ("sorted", "uncut", "k_ones", "hits", "none"))
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
    elif choice(m, "universe", ("judged", "retrieved")) == "retrieved":
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
    """nDCG@k = DCG@k / IDCG@k, 0 when IDCG@k = 0 (trec_eval m_ndcg.c, m_ndcg_cut.c)."""
    return divide(dcg(a, m, rel), ideal_dcg(a, m, rel))


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
    return divide(a.per_query_sum(walk.gain / np.log2(lag), scored), total)


def ndcg_over_relevant(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """nDCGRel = (Σ_{ranked i: gain_i > 0} DCG@i / IDCG@min(i, R⁺) + (R⁺ − H⁺) · DCG / IDCG) / R⁺, 0 unless the
    sum is positive (trec_eval m_ndcg_rel.c: a relevant document not retrieved scores the whole ranking's nDCG)."""
    walk = _gain_walk(a, m, rel)
    positive = walk.gain > 0
    ideal = walk.ideal_at(walk.ideal_dcg, a.qidx, np.minimum(a.rank, walk.num_ideal[a.qidx]))
    at_rows = a.per_query_sum(divide(walk.dcg, ideal), positive)
    whole, whole_ideal = _whole_dcg(a, walk)
    missed = (walk.num_ideal - a.per_query_sum(positive.astype(np.float64))) * whole
    total = at_rows + divide(missed, whole_ideal)
    return np.where(total > 0, divide(total, walk.num_ideal.astype(np.float64)), 0.0)


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


def binary_g(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """binG = (1/R) Σ_{relevant rows} 1 / log2(2 + n), n = rows above that are not relevant (m_binG.c)."""
    relevant = a.relevant(rel)
    not_relevant_above = (a.rank - a.cumulative_within_query(relevant)).astype(np.float64)
    return divide(a.per_query_sum(1.0 / np.log2(2.0 + not_relevant_above), relevant), a.num_relevant(rel))


GAIN_KERNELS: dict[str, Kernel] = {
    "DCG": dcg,
    "nDCG": ndcg,
    "binG": binary_g,
    "G": normalised_gain,
    "IDCG": ideal_dcg,
    "nDCGRel": ndcg_over_relevant,
    "RnDCG": ndcg_at_gain_levels,
    "YAAP": yet_another_average_precision,
}
"""The gain families and their kernels (registered in :data:`rankwise.kernels.KERNELS`)."""
