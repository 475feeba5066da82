"""Kernels of the user-model measures on the :class:`~rankwise.engine.aligned.Aligned` arrays: rank-biased precision
(RBP, RBPResidual), the cascade measures ERR and nERR, the C/W/L measures of cwl_eval (INST, INSQ, BPM, NERR8–NERR11,
SDCG, and RBP's normalised form) and Compat.

**RBP** (Moffat & Zobel, ACM TOIS 2008) and **ERR** (Chapelle et al., CIKM 2009): a user reads rank i + 1 with
probability p after rank i (RBP), or stops at rank i with probability r_i set by its grade (ERR, :func:`_cascade`).

**C/W/L** (Moffat et al., ACM TOIS 2017; Azzopardi, Thomas & Moffat, cwl_eval, SIGIR 2019). A user reads rank 1,
and after rank i goes on to rank i + 1 with probability C_i. Rank i is reached with probability
P_i = Π_{j<i} C_j, its weight is W_i = P_i / Σ_{j=1..N} P_j, and the measure is the expected utility per document

    EU = Σ_{i=1..N} W_i g_i,

g_i ∈ [0, 1] the gain at rank i (0 past the ranking's end), N the horizon (cwl_eval's ``--max_depth``, 1000). Each
measure is its continuation C_i on the ranked rows, plus the sum of P over the ranks past the ranking's end (where
every gain is 0) in closed form, so no padding rows are made. Running sums and products within a query are taken in
rank order, one addition or multiplication at a time as cwl_eval's ``numpy.cumsum`` takes them
(:func:`rankwise.kernels.common.within_query_accumulate`), so thresholds (BPM's "gain so far < T") compare the same
numbers.

**Compat** (Clarke, Vtyurina & Smucker, ACM TOIS 2021): the rank-biased overlap of the ranking with the ideal
ranking closest to it, from the depth at which each relevant retrieved document enters both (:func:`compat`).

The formulas are documented in :mod:`rankwise.measures.user_model`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine.aligned import UNJUDGED, Aligned
from ..errors import MeasureError
from ..measures.spec import Measure
from .common import Kernel, choice, divide, in_cutoff, within_query_accumulate

# ----------------------------------------------------------------------------------------------------------------
# The C/W/L machinery


@dataclass(frozen=True)
class Ranked:
    """The rows a C/W/L measure reads, ranks 1..N of each query (rows past the horizon N are left out), with their
    gains; and per query what the ranks past the ranking's end start from."""

    qidx: np.ndarray
    rank: np.ndarray
    """1-based rank per row, float64."""
    gain: np.ndarray
    """g per row, in [0, 1]."""
    num_queries: int
    horizon: int
    first: np.ndarray
    """Per row: whether it is its query's first row."""
    last_row: np.ndarray
    """Per query: the index of its last row, −1 for a query without rows."""
    next_rank: np.ndarray
    """Per query: a = (rows kept) + 1, the first rank past the ranking, float64."""

    def per_query_sum(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.qidx, weights=values, minlength=self.num_queries).astype(np.float64)

    def running(self, ufunc: np.ufunc, values: np.ndarray) -> np.ndarray:
        """Inclusive running ``ufunc`` within each query (:func:`within_query_accumulate`)."""
        return within_query_accumulate(ufunc, values, self.qidx, self.num_queries)

    def at_last(self, per_row: np.ndarray, empty: float) -> np.ndarray:
        """Per query: the value of ``per_row`` at its last row, ``empty`` for a query without rows."""
        out = np.full(self.num_queries, empty, dtype=np.float64)
        has = self.last_row >= 0
        out[has] = per_row[self.last_row[has]]
        return out

    def tail_length(self, limit: np.ndarray | float) -> np.ndarray:
        """Per query: how many ranks a..min(limit, N) there are past the ranking (0 when none)."""
        return np.maximum(np.minimum(limit, float(self.horizon)) - self.next_rank + 1.0, 0.0)


def scaled_gains(grades: np.ndarray, m: Measure) -> np.ndarray:
    """g = (clip(max(grade, 0), lo, hi) − lo) / (hi − lo) for judged rows, 0 for unjudged ones, {lo,hi} = ``scale``
    (as ir_measures maps grades for cwl_eval: negative grades count 0, grades beyond the scale are clipped)."""
    scale = m.get("scale")
    if not isinstance(scale, tuple) or len(scale) != 2 or not scale[0] < scale[1]:  # type: ignore[operator]
        raise MeasureError(f"{m}: scale must be two grades {{min,max}} with min < max, e.g. scale={{0,3}}")
    low, high = float(scale[0]), float(scale[1])  # type: ignore[arg-type]
    clipped = np.clip(np.maximum(grades.astype(np.float64), 0.0), low, high)
    return np.where(grades == UNJUDGED, 0.0, (clipped - low) / (high - low))


def ranked(a: Aligned, m: Measure) -> Ranked:
    """The rows of ranks 1..N (N = ``horizon``) with their gains (:func:`scaled_gains`)."""
    horizon = int(m.get("horizon"))  # type: ignore[arg-type]  # an int parameter
    keep = np.flatnonzero(a.rank <= horizon)
    qidx = a.qidx[keep]
    first = np.ones(len(keep), dtype=bool)
    first[1:] = qidx[1:] != qidx[:-1]
    counts = np.bincount(qidx, minlength=a.num_queries)
    return Ranked(
        qidx=qidx,
        rank=a.rank[keep].astype(np.float64),
        gain=scaled_gains(a.grade[keep], m),
        num_queries=a.num_queries,
        horizon=horizon,
        first=first,
        last_row=np.where(counts > 0, np.cumsum(counts) - 1, -1),
        next_rank=counts + 1.0,
    )


def expected_utility(r: Ranked, continuation: np.ndarray, tail: np.ndarray) -> np.ndarray:
    """EU = Σ_rows P_i g_i / (Σ_rows P_i + P_a · tail), P_i = Π_{j<i} C_j within the query, P_a the product over
    all of the query's rows (the chance of reading past the ranking), ``tail`` per query Σ_{i=a..N} Π_{a≤j<i} C_j
    over the ranks past the ranking (gain 0). The denominator is at least P_1 = 1."""
    through = r.running(np.multiply, continuation)  # Π_{j≤i} C_j
    before = np.ones_like(through)
    before[1:] = through[:-1]
    before[r.first] = 1.0
    mass = r.per_query_sum(before) + r.at_last(through, 1.0) * tail
    return r.per_query_sum(before * r.gain) / mass


def _persistence_tail(r: Ranked, p: float) -> np.ndarray:
    """Σ_{n=0..N−a} p^n: the ranks past the ranking when C = p there (RBP, NERR10)."""
    n = r.tail_length(float(r.horizon))
    return n if p == 1.0 else (1.0 - np.power(p, n)) / (1.0 - p)


def _insq_tail(r: Ranked, alpha: np.ndarray | float) -> np.ndarray:
    """Σ_{i=a..N} Π_{a≤j<i} ((j + α − 1)/(j + α))² = (a + α − 1)² Σ_{i=a..N} 1/(i − 1 + α)², the product telescoping;
    the sum is ψ1(a − 1 + α) − ψ1(N + α) (ψ1 the trigamma function). C of INSQ and NERR11 (α = 2T) and INST
    (α = 2T − the gain collected) where the gain is 0."""
    start = r.next_rank - 1.0 + alpha
    return start * start * (trigamma(start) - trigamma(r.horizon + alpha + np.zeros_like(start)))


ASYMPTOTIC_FROM = 16.0
"""trigamma sums 1/(x + m)² directly until x + m ≥ this, then uses the asymptotic series."""


def trigamma(x: np.ndarray) -> np.ndarray:
    """ψ1(x) = Σ_{m≥0} 1/(x + m)² for x > 0: the first terms summed while x + m < 16, then the asymptotic series
    1/y + 1/(2y²) + Σ_k B_2k / y^(2k+1) at y ≥ 16 (to B_14: relative error below 1e-17)."""
    x = np.asarray(x, dtype=np.float64)
    total = np.zeros_like(x)
    y = x.copy()
    for _ in range(int(ASYMPTOTIC_FROM)):
        small = y < ASYMPTOTIC_FROM
        if not small.any():
            break
        total[small] += 1.0 / (y[small] * y[small])
        y[small] += 1.0
    inverse = 1.0 / y
    square = inverse * inverse
    series = np.full_like(y, 7.0 / 6.0)
    for coefficient in (-691.0 / 2730.0, 5.0 / 66.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 1.0 / 6.0):
        series = coefficient + square * series
    return total + inverse + square / 2.0 + inverse * square * series


def _goal(m: Measure) -> float:
    return float(m.get("T"))  # type: ignore[arg-type]  # a float parameter


def _insq_continuation(rank: np.ndarray, alpha: np.ndarray | float) -> np.ndarray:
    """((i + α − 1)/(i + α))², the continuation of INSQ (α = 2T), NERR11 and INST, computed as cwl_eval does."""
    return ((rank + alpha - 1.0) / (rank + alpha)) ** 2.0


def inst(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """INST: C_i = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − Σ_{j≤i} g_j (Moffat et al. 2015; cwl_eval
    INSTCWLMetric); past the ranking α = 2T − (the gain collected) in :func:`_insq_tail`."""
    r, goal = ranked(a, m), _goal(m)
    collected = r.running(np.add, r.gain)
    still_wanted = goal - collected
    continuation = (((r.rank + goal) + still_wanted - 1.0) / ((r.rank + goal) + still_wanted)) ** 2.0
    return expected_utility(r, continuation, _insq_tail(r, 2.0 * goal - r.at_last(collected, 0.0)))


def insq(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """INSQ: C_i = ((i + 2T − 1)/(i + 2T))² (Moffat, Scholer & Thomas 2012; cwl_eval INSQCWLMetric)."""
    r, goal = ranked(a, m), _goal(m)
    return expected_utility(r, _insq_continuation(r.rank, 2.0 * goal), _insq_tail(r, 2.0 * goal))


def _within_cutoff(r: Ranked, m: Measure) -> tuple[np.ndarray, float]:
    """Rows at ranks i < k (where C may be above 0) and k, for the measures C/W/L truncates at k."""
    k = float(m.cutoff)  # type: ignore[arg-type]  # cutoff_required
    return r.rank < k, k


def nerr8(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """NERR8@k: C_i = 1 − g_i for i < k, 0 from k (Azzopardi, Mackenzie & Moffat, ICTIR 2021, Eq. 8)."""
    r = ranked(a, m)
    before_k, k = _within_cutoff(r, m)
    return expected_utility(r, np.where(before_k, 1.0 - r.gain, 0.0), r.tail_length(k))


def nerr9(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """NERR9@k: C_i = (i/(i + 1))(1 − g_i) for i < k, 0 from k (Azzopardi, Mackenzie & Moffat, ICTIR 2021, Eq. 9).
    Past the ranking P_i / P_a = a / i: the tail is a (H_min(k,N) − H_(a−1)), H the harmonic numbers."""
    r = ranked(a, m)
    before_k, k = _within_cutoff(r, m)
    continuation = np.where(before_k, (1.0 * r.rank / (r.rank + 1.0)) * (1.0 - r.gain), 0.0)
    last = int(min(k, r.horizon))
    harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, last + 1))))
    start = np.minimum(r.next_rank, last + 1.0).astype(np.int64)
    tail = r.next_rank * (harmonic[last] - harmonic[start - 1])
    return expected_utility(r, continuation, tail)


def nerr10(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """NERR10: C_i = p (1 − g_i) (Azzopardi, Mackenzie & Moffat, ICTIR 2021, Eq. 10: RBP's patience)."""
    r, p = ranked(a, m), float(m.get("p"))  # type: ignore[arg-type]
    return expected_utility(r, p * (1.0 - r.gain), _persistence_tail(r, p))


def nerr11(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """NERR11: C_i = ((i + 2T − 1)/(i + 2T))² (1 − g_i) (Azzopardi, Mackenzie & Moffat, ICTIR 2021, Eq. 11: INST's
    goal)."""
    r, goal = ranked(a, m), _goal(m)
    continuation = _insq_continuation(r.rank, 2.0 * goal) * (1.0 - r.gain)
    return expected_utility(r, continuation, _insq_tail(r, 2.0 * goal))


def sdcg(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """SDCG@k: C_i = log(i + 1)/log(i + 2) for i < k, 0 from k (cwl_eval NDCGCWLMetric): W_i ∝ 1/log2(i + 1) on
    ranks 1..k, so SDCG@k = DCG@k / Σ_{i≤k} 1/log2(i + 1). Past the ranking P_i / P_a = log2(a + 1)/log2(i + 1)."""
    r = ranked(a, m)
    before_k, k = _within_cutoff(r, m)
    continuation = np.where(before_k, np.log2(r.rank + 1.0) / np.log2(r.rank + 2.0), 0.0)
    last = int(min(k, r.horizon))
    discounts = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, last + 2)))))
    start = np.minimum(r.next_rank, last + 1.0).astype(np.int64)
    tail = np.log2(r.next_rank + 1.0) * (discounts[last] - discounts[start - 1])
    return expected_utility(r, continuation, tail)


def _successes(budget: np.ndarray, step: float) -> np.ndarray:
    """How many n = 0, 1, ... in a row satisfy n · step < budget: 0 when budget ≤ 0, unbounded (inf) when
    step ≤ 0, else ceil(budget / step)."""
    out = np.where(budget > 0, np.inf, 0.0)
    if step > 0:
        out = np.where(budget > 0, np.ceil(budget / step), 0.0)
    return out


def bpm(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """BPM@K (Zhang et al., SIGIR 2017; cwl_eval BPMCWLMetric and BPMDCWLMetric): C_i = 1 while, at every rank
    l ≤ i, the gain so far G_l = Σ_{j≤l} g_j is below the goal T_l and l < K_l, else 0 (the user stops at the first
    rank where either fails); T_l = T + hb Σ_{j<l} (g_j − med), K_l = K + hc Σ_{j<l} (g_j − med). Past the ranking
    (gain 0) T and K fall by hb·med and hc·med per rank, so the ranks read there are counted in closed form."""
    r = ranked(a, m)
    goal, hb, hc, med = (float(m.get(name)) for name in ("T", "hb", "hc", "med"))  # type: ignore[arg-type]
    patience = float(m.cutoff)  # type: ignore[arg-type]  # cutoff_required
    collected = r.running(np.add, r.gain)
    goal_after, patience_after = (  # T_{l+1}, K_{l+1}: the start value plus each step, added one at a time
        r.running(np.add, np.where(r.first, start, 0.0) + step * (r.gain - med))
        for start, step in ((goal, hb), (patience, hc))
    )
    goal_at, patience_at = (np.where(r.first, start, np.roll(after, 1))
                            for start, after in ((goal, goal_after), (patience, patience_after)))  # fmt: skip
    reading = r.running(np.multiply, ((collected < goal_at) & (r.rank < patience_at)).astype(np.float64))
    budget_gain = r.at_last(goal_after, goal) - r.at_last(collected, 0.0)
    budget_cost = r.at_last(patience_after, patience) - r.next_rank
    more = np.minimum(_successes(budget_gain, hb * med), _successes(budget_cost, 1.0 + hc * med))
    tail = np.where(r.next_rank <= r.horizon, np.minimum(more, r.horizon - r.next_rank) + 1.0, 0.0)
    return expected_utility(r, reading, tail)


def cwl_rank_biased_precision(a: Aligned, m: Measure, gains: np.ndarray) -> np.ndarray:
    """RBP over the horizon N: Σ_{i≤N} g_i p^(i−1) / Σ_{i≤N} p^(i−1) (cwl_eval RBPCWLMetric), ``gains`` per row of
    ``a``."""
    horizon = int(m.get("horizon"))  # type: ignore[arg-type]
    p = float(m.get("p"))  # type: ignore[arg-type]
    keep = a.rank <= horizon
    weight = np.power(p, (a.rank[keep] - 1).astype(np.float64))
    total = float(horizon) if p == 1.0 else (1.0 - p**horizon) / (1.0 - p)
    return np.bincount(a.qidx[keep], weights=weight * gains[keep], minlength=a.num_queries) / total


# ----------------------------------------------------------------------------------------------------------------
# Rank-biased precision


def _persistence_weights(a: Aligned, m: Measure) -> tuple[float, np.ndarray]:
    """p and p^(rank − 1) per row."""
    p = float(m.get("p"))  # type: ignore[arg-type]
    return p, np.power(p, (a.rank - 1).astype(np.float64))


def rank_biased_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """RBP = (1 − p) Σ_i gain_i p^(i−1); gain = grade / (largest grade of the query's qrels) when that exceeds 1,
    else the grade; unjudged and negative grades gain 0 (trec_eval m_rbp.c). ``gain=binary``: 1 for grades
    >= rel; ``horizon`` = N: normalised over ranks 1..N as cwl_eval does."""
    if choice(m, "gain", ("scaled", "binary")) == "binary":
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
    """p^|L| + (1 − p) Σ_{unjudged rows} p^(i−1), 0 when no row is unjudged (trec_eval m_rbp_resid.c).

    Computed in trec_eval's order, so that the last digit agrees: p^(i−1) as a running product (1, 1·p, 1·p·p, ...:
    ``cur_p = cur_p * p``, not ``pow``), the unjudged weights summed in rank order, p^|L| one more product."""
    p = float(m.get("p"))  # type: ignore[arg-type]
    starts = np.r_[True, a.qidx[1:] != a.qidx[:-1]] if len(a.qidx) else np.zeros(0, dtype=bool)
    weight = within_query_accumulate(np.multiply, np.where(starts, 1.0, p), a.qidx, a.num_queries)
    unjudged = (a.grade == UNJUDGED) | (a.grade < 0)
    last = np.flatnonzero(np.r_[starts[1:], True]) if len(a.qidx) else np.zeros(0, dtype=np.int64)
    tail = np.ones(a.num_queries)
    tail[a.qidx[last]] = weight[last] * p
    out = tail + (1.0 - p) * a.per_query_sum(weight, unjudged)
    out[a.per_query_sum(unjudged.astype(np.float64)) == 0] = 0.0
    return out


# ----------------------------------------------------------------------------------------------------------------
# The cascade: ERR


def _stop_probability(grades: np.ndarray, a: Aligned, m: Measure) -> np.ndarray:
    """ERR's r = (2^g − 1) / 2^max_grade per grade g > 0, 0 for unjudged documents and grades ≤ 0; a judged grade
    of the evaluated queries above max_grade is refused (r would exceed 1), naming the largest and its query. From
    max_grade = 1024, where 2^max_grade passes float64, r is computed as 2^(g − max_grade) − 2^(−max_grade)."""
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
    if max_grade >= 1024:  # 2^max_grade (and 2^g) past float64: r = 2^(g − max_grade) − 2^(−max_grade), in range
        return np.where(positive, np.exp2(exponent - max_grade) - np.exp2(-max_grade), 0.0)
    return np.where(positive, np.expm1(exponent * np.log(2.0)) / np.exp2(max_grade), 0.0)


def _cascade(q: np.ndarray, rank: np.ndarray, stop: np.ndarray, num_queries: int) -> np.ndarray:
    """Σ_i (stop_i / i) Π_{j<i} (1 − stop_j) per query, rows grouped by query (``q`` ascending) in rank order; the
    product is exp of a running sum of log(1 − stop) within the query; a row with stop = 1 (r rounds to 1 from
    max_grade ≥ 54) makes the product 0 below it, counted apart so that no log(0) is taken."""
    certain = stop >= 1.0
    total = np.concatenate(([0.0], np.cumsum(np.log1p(-np.where(certain, 0.0, stop)))))
    stops = np.concatenate(([0], np.cumsum(certain)))
    first = np.searchsorted(q, q, side="left")
    reach = np.where(stops[:-1] > stops[first], 0.0, np.exp(total[:-1] - total[first]))
    return np.bincount(q, weights=stop / rank * reach, minlength=num_queries).astype(np.float64)


def expected_reciprocal_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """ERR@k = Σ_{i≤k} (r_i / i) Π_{j<i} (1 − r_j), r = (2^g − 1) / 2^max_grade (Chapelle et al. 2009; gdeval)."""
    stop = _stop_probability(a.grade, a, m)
    cut = in_cutoff(a, m)
    rows = slice(None) if cut is None else cut
    return _cascade(a.qidx[rows], a.rank[rows].astype(np.float64), stop[rows], a.num_queries)


def normalised_err(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """nERR@k = ERR@k / ERR@k of every judged document sorted by grade descending; 0 when that is 0 (Chapelle et
    al. 2009, normalised by the ideal ranking as ndeval's nERR-IA is with one subtopic)."""
    order = np.lexsort((-a.qrel_grade, a.qrel_qidx))
    q = a.qrel_qidx[order]
    stop = _stop_probability(a.qrel_grade[order], a, m)
    rank = (np.arange(len(q)) - np.searchsorted(q, q, side="left") + 1).astype(np.float64)
    if m.cutoff is not None:
        keep = rank <= m.cutoff
        q, rank, stop = q[keep], rank[keep], stop[keep]
    return divide(expected_reciprocal_rank(a, m, rel), _cascade(q, rank, stop, a.num_queries))


# ----------------------------------------------------------------------------------------------------------------
# Compat


def compat(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Compat = RBO(L, I) / RBO(I, I) (``normalise=yes``) or RBO(L, I), with
    RBO(X, Y) = Σ_{d≤D} p^(d−1) |X[:d] ∩ Y[:d]| / d ÷ Σ_{d≤D} p^(d−1), D = max(|L|, |I|), and I the ideal ranking
    closest to L: every judged document with grade > 0, by grade descending, equal grades in L's order, unretrieved
    ones after them (Clarke, Vtyurina & Smucker 2021).

    A relevant retrieved document x enters both prefixes at depth m_x = max(rank in L, rank in I), so
    Σ_d p^(d−1) |L[:d] ∩ I[:d]| / d = Σ_x (T(D) − T(m_x − 1)), T(n) = Σ_{d≤n} p^(d−1)/d; and RBO(I, I) has
    |I[:d] ∩ I[:d]| = min(d, |I|). 0 when I is empty."""
    p = float(m.get("p"))  # type: ignore[arg-type]
    ideal_size = np.bincount(a.qrel_qidx[a.qrel_grade > 0], minlength=a.num_queries)
    depth = np.maximum(a.num_retrieved().astype(np.int64), ideal_size)
    longest = int(depth.max(initial=0))
    weight = np.concatenate(([1.0], np.cumprod(np.full(max(longest - 1, 0), p))))  # p^(d−1), multiplied as RBO does
    reach = np.concatenate(([0.0], np.cumsum(weight)))  # Σ_{d≤n} p^(d−1)
    harmonic = np.concatenate(([0.0], np.cumsum(weight / np.arange(1, longest + 1))))  # T(n)
    rows = np.flatnonzero(a.grade > 0)
    q = a.qidx[rows]
    enters = np.maximum(a.rank[rows], _ideal_rank(a, rows))
    overlap = np.bincount(q, weights=harmonic[depth[q]] - harmonic[enters - 1], minlength=a.num_queries)
    normalise = choice(m, "normalise", ("yes", "no"))
    if normalise == "yes":
        best = reach[ideal_size] + ideal_size * (harmonic[depth] - harmonic[ideal_size])
    else:
        best = reach[depth]
    out = np.zeros(a.num_queries)
    np.divide(overlap, best, out=out, where=best > 0)
    return out


def _ideal_rank(a: Aligned, rows: np.ndarray) -> np.ndarray:
    """The rank in the ideal ranking of each retrieved row in ``rows`` (all with grade > 0): 1 + the judged
    documents of its query with a higher grade + the rows of ``rows`` with its grade ranked above it."""
    judged = a.qrel_grade > 0
    grades = np.concatenate((a.qrel_grade[judged], a.grade[rows])).astype(np.float64)
    codes = np.unique(grades, return_inverse=True)[1].astype(np.int64)  # higher grade, higher code
    levels = int(codes.max(initial=0)) + 1
    judged_key = np.sort(a.qrel_qidx[judged] * levels + codes[: judged.sum()])
    row_key = a.qidx[rows] * levels + codes[judged.sum() :]
    query_end = (a.qidx[rows] + 1) * levels
    higher = np.searchsorted(judged_key, query_end, side="left") - np.searchsorted(judged_key, row_key, side="right")
    order = np.argsort(row_key, kind="stable")  # rows of one (query, grade) stay in rank order
    group_start = np.searchsorted(row_key[order], row_key[order], side="left")
    same_above = np.empty(len(rows), dtype=np.int64)
    same_above[order] = np.arange(len(rows)) - group_start
    return 1 + higher + same_above


USER_MODEL_KERNELS: dict[str, Kernel] = {
    "RBP": rank_biased_precision,
    "RBPResidual": rank_biased_precision_residual,
    "ERR": expected_reciprocal_rank,
    "nERR": normalised_err,
    "INST": inst,
    "INSQ": insq,
    "BPM": bpm,
    "NERR8": nerr8,
    "NERR9": nerr9,
    "NERR10": nerr10,
    "NERR11": nerr11,
    "SDCG": sdcg,
    "Compat": compat,
}
"""The user-model families and their kernels (registered in :data:`rankwise.kernels.KERNELS`)."""
