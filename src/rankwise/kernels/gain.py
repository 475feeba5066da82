"""Kernels of the gain measures: DCG, nDCG and IDCG with their gain, discount and ideal-ranking variants, binG, and
trec_eval's experimental gain measures G, nDCGRel, RnDCG and YAAP.

A row's gain comes from its grade (:func:`_gains`), its discount from its rank (:func:`_discounted`); the ideal
ranking sorts a query's positive gains descending (:func:`_ideal_order`). The formulas are documented in
:mod:`rankwise.measures.gain`; comments here name the trec_eval behaviour each line reproduces.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..engine.aligned import Aligned
from ..errors import MeasureError
from ..limits import MAX_SUMMED_CUTOFF, at_most
from ..measures.spec import Measure
from .common import Kernel, choice, divide, in_cutoff, scored_rank, within_query_accumulate


def _gains(grades: np.ndarray, m: Measure, rel: int, shift: np.ndarray | None = None) -> np.ndarray:
    """Gain per grade: g, 2^g − 1, 1 or 2^(g − rel + 1) − 1; 0 below rel. A grade map gives its value to the
    grades it names and the linear gain (the grade itself) to the others, as trec_eval's ``ndcg.1=3,2=9`` does.

    With ``shift`` (an integer per grade, :func:`_gain_shift`) each gain is divided by 2^shift without ever being
    formed unscaled: 2^(e − s) − 2^(−s) for the exponential gains, an exact power-of-two scaling (``ldexp``) of the
    others; so gains past float64's range (2^1025 − 1) are computed scaled."""
    gain = m.get("gain")
    if not isinstance(gain, tuple):
        choice(m, "gain", ("linear", "exp2", "binary", "exp2_rel"))
    counts = grades >= rel
    if gain == "binary":
        out = counts.astype(np.float64)
    elif gain in ("exp2", "exp2_rel"):
        exponent = np.where(counts, grades - (rel - 1 if gain == "exp2_rel" else 0), 0).astype(np.float64)
        if shift is not None:
            return np.where(counts, np.exp2(exponent - shift) - np.exp2(-shift.astype(np.float64)), 0.0)
        with np.errstate(over="ignore"):  # 2^g past float64: +inf, which the kernels then compute scaled
            out = np.where(counts, np.exp2(exponent) - 1.0, 0.0)
    else:
        out = np.where(counts, grades, 0).astype(np.float64)
    if isinstance(gain, tuple):
        for grade, value in gain:  # type: ignore[misc]  # a grade map: gain is never a list of numbers
            if grade >= rel:
                out[grades == grade] = value
    return out if shift is None else np.ldexp(out, -shift)


def _gain_shift(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Per query, the integer s with 2^s about its largest judged gain (the exponent e of 2^e − 1 for the
    exponential gains, else the binary exponent of the gain), 0 for a query without a positive gain: dividing
    the query's gains by 2^s keeps them and their sums within float64, and a ratio of two sums of the same gains
    (nDCG = DCG / IDCG) does not change."""
    gain = m.get("gain")
    counts = a.qrel_grade >= rel
    if gain in ("exp2", "exp2_rel"):
        logs = np.where(counts, a.qrel_grade - (rel - 1 if gain == "exp2_rel" else 0), 0).astype(np.float64)
    else:
        logs = np.frexp(np.abs(_gains(a.qrel_grade, m, rel)))[1].astype(np.float64)
    shift = np.zeros(a.num_queries)
    np.maximum.at(shift, a.qrel_qidx, np.where(counts, logs, 0.0))
    return np.floor(shift).astype(np.int64)


def _scale_invariant(m: Measure) -> bool:
    """Whether nDCG's ideal is made of the same gains as its DCG (so the ratio does not change when every gain of
    a query is divided by one number): not with ``ideal=k_ones`` or ``none``."""
    return m.get("ideal") not in ("k_ones", "none")


def _overflowed(*arrays: np.ndarray) -> bool:
    return not all(np.isfinite(x).all() for x in arrays)


def _discounted(rank: np.ndarray, gains: np.ndarray, m: Measure) -> np.ndarray:
    """gain / log2(i+1), or per ``discount``: gain / ln(i+1), gain / log2(max(i, 2)); with ``log_base`` = b,
    gain / log_b(i+1) (scikit-learn dcg_score)."""
    discount = choice(m, "discount", ("log2", "ln", "log2_max2"))
    base = int(m.option("log_base") or 2)  # type: ignore[arg-type]  # an int parameter
    if base != 2 and discount != "log2":
        raise MeasureError(f"{m}: log_base={base} sets the base of discount=log2, not of discount={discount}")
    if discount == "ln":
        return gains / _per_rank(rank, lambda i: np.log(i + 1.0))
    if discount == "log2_max2":
        return gains / _per_rank(rank, lambda i: np.log2(np.maximum(i, 2.0)))
    if base != 2:
        return gains / _per_rank(rank, lambda i: np.log(i + 1.0) / np.log(base))
    return gains / _per_rank(rank, lambda i: np.log2(i + 1.0))


def _per_rank(rank: np.ndarray, f: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``f`` of each rank (as float64): for integer ranks, ``f`` once per rank 0..max(rank) and looked up (a run of
    a million rows has a few hundred distinct ranks; ``f`` elementwise, so the values are the same)."""
    if rank.dtype.kind not in "iu" or not len(rank):
        return f(rank.astype(np.float64))
    return f(np.arange(int(rank.max()) + 1, dtype=np.float64))[rank]


def dcg(a: Aligned, m: Measure, rel: int, shift: np.ndarray | None = None) -> np.ndarray:
    """DCG@k = Σ_{i≤k} gain(g(L_i)) · discount(i), discount 1/log2(i + 1) by default; i per ``rank`` (Järvelin &
    Kekäläinen, ACM TOIS 2002; trec_eval m_ndcg.c). With ``shift`` (per query), each query's gains divided by
    2^shift (:func:`_gains`)."""
    rank = scored_rank(a, m, rel)
    gains = _gains(a.grade, m, rel, None if shift is None else shift[a.qidx])
    with np.errstate(over="ignore", invalid="ignore"):  # a sum past float64 is +inf: refused, or computed scaled
        return a.per_query_sum(_discounted(rank, a.tie_mean(gains), m), in_cutoff(a, m, rank))


def _ideal_order(q: np.ndarray, gains: np.ndarray, num_queries: int) -> tuple[np.ndarray, ...]:
    """The ideal rankings: the positive ``gains`` of each query (``q`` per gain) sorted descending, as
    (query, gain, 1-based ideal rank, start of each query's rows) arrays."""
    positive = gains > 0
    q, g = q[positive], gains[positive]
    order = np.lexsort((-g, q))
    q, g = q[order], g[order]
    starts = np.searchsorted(q, np.arange(num_queries))
    return q, g, np.arange(len(q), dtype=np.int64) - starts[q] + 1, starts


def ideal_dcg(a: Aligned, m: Measure, rel: int, shift: np.ndarray | None = None) -> np.ndarray:
    """IDCG@k per ``ideal``: the positive gains sorted descending, cut at k (``sorted``) or not (``uncut``),
    of all judged documents (trec_eval m_ndcg.c) or with ``universe=retrieved`` of the ranked ones
    (scikit-learn, torchmetrics, LightGBM); ``hits``: of the relevant documents in the top k; ``k_ones``:
    k documents of gain 1; ``none``: 1. With ``shift`` (per query), the gains divided by 2^shift as in :func:`dcg`."""
    ideal = choice(m, "ideal", ("sorted", "uncut", "k_ones", "hits", "none"))
    if ideal == "none":
        return np.ones(a.num_queries)
    if ideal == "k_ones":
        if m.cutoff is not None:
            at_most(m.cutoff, MAX_SUMMED_CUTOFF, f"{m}: the cutoff of ideal=k_ones (k discounts summed)")
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
    q, g, rank, _ = _ideal_order(q, _gains(grades, m, rel, None if shift is None else shift[q]), a.num_queries)
    values = _discounted(rank, g, m)
    if m.cutoff is not None and ideal != "uncut":
        keep = rank <= m.cutoff
        q, values = q[keep], values[keep]
    with np.errstate(over="ignore", invalid="ignore"):
        return np.bincount(q, weights=values, minlength=a.num_queries).astype(np.float64)


def ndcg(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """nDCG@k = DCG@k / IDCG@k, 0 when IDCG@k = 0 (trec_eval m_ndcg.c, m_ndcg_cut.c).

    Where a query's gains or their sums pass float64's range (grade 1025 with ``gain=exp2``, a grade map of
    1e308s), both sums are computed with the query's gains divided by 2^s (:func:`_gain_shift`), which leaves the
    ratio as it is; with ``ideal=k_ones`` or ``none`` the ideal is not made of the same gains, so an overflowing
    DCG is refused (the value is beyond float64)."""
    top, ideal = dcg(a, m, rel), ideal_dcg(a, m, rel)
    if _overflowed(top, ideal) and _scale_invariant(m):
        shift = _gain_shift(a, m, rel)
        top, ideal = dcg(a, m, rel, shift), ideal_dcg(a, m, rel, shift)
    with np.errstate(invalid="ignore"):  # inf / inf (an ideal of k ones under an overflowing DCG): refused later
        return np.where(np.isinf(top), top, divide(top, ideal))


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


def _gain_walk(a: Aligned, m: Measure, floor: int, scaled: bool = False) -> _GainWalk:
    """The :class:`_GainWalk` of ``a`` with gains per ``gain`` for grades >= ``floor``; ``scaled``: each query's
    gains divided by 2^s (:func:`_gain_shift`), for the ratios of the walk's sums when they pass float64."""
    shift = _gain_shift(a, m, floor) if scaled else None
    gain = _gains(a.grade, m, floor, None if shift is None else shift[a.qidx])
    ideal_gains = _gains(a.qrel_grade, m, floor, None if shift is None else shift[a.qrel_qidx])
    ideal_q, ideal_gain, ideal_rank, ideal_start = _ideal_order(a.qrel_qidx, ideal_gains, a.num_queries)
    with np.errstate(over="ignore", invalid="ignore"):  # sums past float64: +inf, computed scaled instead
        return _GainWalk(
            gain=gain,
            dcg=within_query_accumulate(np.add, _discounted(a.rank, gain, m), a.qidx, a.num_queries),
            ideal_q=ideal_q,
            ideal_gain=ideal_gain,
            ideal_dcg=within_query_accumulate(np.add, _discounted(ideal_rank, ideal_gain, m), ideal_q, a.num_queries),
            ideal_start=ideal_start,
            num_ideal=np.bincount(ideal_q, minlength=a.num_queries),
        )


def _scaled_walk(a: Aligned, m: Measure, floor: int) -> _GainWalk:
    """The walk unscaled, or scaled (:func:`_gain_walk`) where its gains or sums pass float64."""
    walk = _gain_walk(a, m, floor)
    return _gain_walk(a, m, floor, scaled=True) if _overflowed(walk.dcg, walk.ideal_dcg) else walk


def _whole_dcg(a: Aligned, walk: _GainWalk) -> tuple[np.ndarray, np.ndarray]:
    """Per query: DCG over its whole ranking and IDCG over its whole ideal ranking."""
    queries = np.arange(a.num_queries)
    lengths = np.diff(a.offsets)
    return (walk.at(walk.dcg, a.offsets[:-1], lengths, queries, lengths),
            walk.ideal_at(walk.ideal_dcg, queries, walk.num_ideal))  # fmt: skip


def normalised_gain(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """G = Σ_{i: gain_i ≠ 0} gain_i / log2(2 + C_i − S_i) / Σ_j I_j, S_i the gain collected by rank i, C_i =
    Σ_{j≤i} max(I_j, 1) (trec_eval m_G.c, whose cost never steps by less than 1).

    G is not a ratio of sums of the same gains (the 2 and the least cost 1 do not scale), so it cannot be computed
    scaled: where the sums reach 2^52, float64 can no longer hold 2 + C_i − S_i (a perfect ranking would score 0),
    and G is refused, naming the query."""
    walk = _gain_walk(a, m, rel)
    cost = np.maximum(walk.ideal_at(walk.ideal_gain, a.qidx, a.rank), 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        spent = within_query_accumulate(np.add, cost, a.qidx, a.num_queries)
        gained = within_query_accumulate(np.add, walk.gain, a.qidx, a.num_queries)
    lost = ~(np.abs(spent) < 2.0**52) | ~(np.abs(gained) < 2.0**52)
    if lost.any():
        raise MeasureError(
            f"{m}: the gains of query {a.query_ids[a.qidx[np.argmax(lost)]]!r} sum past 2^52, where "
            "float64 cannot hold G's 2 + C_i − S_i (nor can trec_eval): use nDCG, or smaller gains"
        )
    lag = (2.0 + spent) - gained
    scored = walk.gain != 0
    total = np.bincount(walk.ideal_q, weights=walk.ideal_gain, minlength=a.num_queries)
    return divide(a.per_query_sum(walk.gain / np.log2(lag), scored), total)


def ndcg_over_relevant(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """nDCGRel = (Σ_{ranked i: gain_i > 0} DCG@i / IDCG@min(i, R⁺) + (R⁺ − H⁺) · DCG / IDCG) / R⁺, 0 unless the
    sum is positive (trec_eval m_ndcg_rel.c: a relevant document not retrieved scores the whole ranking's nDCG).
    Computed with scaled gains where the sums pass float64, as :func:`ndcg` is."""
    walk = _scaled_walk(a, m, rel)
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
    undefined when R > 0 but no gain is positive (trec_eval's 0/0). Computed with scaled gains where the sums pass
    float64, as :func:`ndcg` is."""
    gain = m.get("gain")
    floor = 0 if isinstance(gain, tuple) and any(grade == 0 for grade, _ in gain) else 1  # type: ignore[misc]
    walk = _scaled_walk(a, m, floor)
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
