"""Compute kernels: one vectorised numpy function per measure family, on the :class:`Aligned` arrays.

Each kernel takes the aligned data, the measure and the resolved relevance threshold and returns one float64
per evaluated query (NaN where the measure is undefined for that query). The formulas are documented in
:mod:`rankwise.measures.catalog`; comments here name the trec_eval behaviour each line reproduces.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .aligned import Aligned
from .measures.spec import Measure

Kernel = Callable[[Aligned, Measure, int], np.ndarray]
MIN_GEO_MEAN = 1e-5
"""trec_eval's floor for values entering a geometric mean."""


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _in_cutoff(a: Aligned, m: Measure) -> np.ndarray | None:
    return None if m.cutoff is None else a.rank <= m.cutoff


def _found(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Rows that count as relevant hits: grade >= rel, and with ``gate=positive_score`` score > 0 too."""
    relevant = a.relevant(rel)
    return relevant & (a.score > 0) if m.option("gate") == "positive_score" else relevant


def _hits(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """H_k per query: relevant documents in the top k (or in the whole ranking)."""
    found = a.tie_mean(_found(a, m, rel).astype(np.float64))
    return a.per_query_sum(found, _in_cutoff(a, m))


def relevant_count(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """R per query: judged documents with grade >= rel, or with ``universe=retrieved`` only those ranked."""
    if m.option("universe") == "retrieved":
        return a.per_query_sum(a.relevant(rel).astype(np.float64))
    return a.num_relevant(rel)


def apply_empty_policy(a: Aligned, m: Measure, rel: int, values: np.ndarray) -> np.ndarray:
    """Per ``empty``: a query without relevant documents (R = 0) scores 0 (as computed), 1, or is skipped (NaN)."""
    policy = m.option("empty")
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


def precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """P@k = H_k / k (trec_eval P_k divides by k even for shorter rankings); with ``denom=retrieved``
    H_k / min(k, |L|), undefined (NaN) for an empty ranking."""
    hits = _hits(a, m, rel)
    if m.get("denom") == "retrieved":
        shown = np.minimum(float(m.cutoff), a.num_retrieved())
        out = np.full(a.num_queries, np.nan)
        np.divide(hits, shown, out=out, where=shown > 0)
        return out
    return hits / float(m.cutoff)


def recall(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """R@k = H_k / R, 0 when R = 0."""
    return _divide(_hits(a, m, rel), relevant_count(a, m, rel))


def hit_rate(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """HitRate@k = [H_k > 0]; with ``count=hits`` H_k itself."""
    hits = _hits(a, m, rel)
    return hits if m.get("count") == "hits" else (hits > 0).astype(np.float64)


def f1(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """F1@k = 2PR / (P + R), 0 when P + R = 0; without a cutoff P = H / |L|."""
    hits = _hits(a, m, rel)
    p = hits / float(m.cutoff) if m.cutoff is not None else _divide(hits, a.num_retrieved())
    r = _divide(hits, relevant_count(a, m, rel))
    return _divide(2.0 * p * r, p + r)


def reciprocal_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """RR@k = 1 / rank of the first relevant document in the top k (0 when none); with ``hits=all``
    Σ_{i≤k} h_i / i."""
    if m.get("hits") == "all":
        return a.per_query_sum(a.relevant(rel) / a.rank, _in_cutoff(a, m))
    return _divide(np.ones(a.num_queries), _first_hit_rank(a, m, rel))


def mean_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Rank of the first relevant document; NaN (undefined) when none is in the top k."""
    first = _first_hit_rank(a, m, rel)
    first[first == 0] = np.nan
    return first


def _precision_sum(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Σ_{i≤k, h_i=1} P@i per query, summed in rank order as trec_eval does."""
    relevant = _found(a, m, rel)
    mask = relevant if m.cutoff is None else relevant & (a.rank <= m.cutoff)
    precision_at = a.cumulative_within_query(relevant) / a.rank
    return a.per_query_sum(precision_at, mask)


def average_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """AP@k = Σ_{i≤k, h_i=1} P@i / D with D per ``denom``: R, min(k, R), k, or H_k; 0 when D = 0."""
    total = _precision_sum(a, m, rel)
    denom = m.get("denom")
    k = float(m.cutoff) if m.cutoff is not None else a.num_retrieved()
    if denom == "R":
        d = relevant_count(a, m, rel)
    elif denom == "min_k_R":  # without a cutoff k is unbounded: D = R
        d = relevant_count(a, m, rel) if m.cutoff is None else np.minimum(k, relevant_count(a, m, rel))
    elif denom == "k":
        d = np.broadcast_to(k, (a.num_queries,)).astype(np.float64)
    else:
        d = _hits(a, m, rel)
    return _divide(total, d)


def _gains(grades: np.ndarray, m: Measure, rel: int) -> np.ndarray:
    """Gain per grade; 0 below rel. A grade map gives its value to the grades it names and the linear gain
    (the grade itself) to the others, as trec_eval's ``ndcg.1=3,2=9`` does."""
    gain = m.get("gain")
    counts = grades >= rel
    if gain == "binary":
        out = counts.astype(np.float64)
    elif gain == "exp2":
        out = np.where(counts, np.exp2(np.where(counts, grades, 0).astype(np.float64)) - 1.0, 0.0)
    else:
        out = np.where(counts, grades, 0).astype(np.float64)
    if isinstance(gain, tuple):
        for grade, value in gain:
            if grade >= rel:
                out[grades == grade] = value
    return out


def _discounted(rank: np.ndarray, gains: np.ndarray, m: Measure) -> np.ndarray:
    """gain / log2(i+1), or per ``discount``: gain / ln(i+1), gain / log2(max(i, 2))."""
    discount = m.get("discount")
    if discount == "ln":
        return gains / np.log(rank + 1.0)
    if discount == "log2_max2":
        return gains / np.log2(np.maximum(rank, 2.0))
    return gains / np.log2(rank + 1.0)


def dcg(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """DCG@k = Σ_{i≤k} gain(g(L_i)) · discount(i), discount 1/log2(i + 1) by default."""
    return a.per_query_sum(_discounted(a.rank, a.tie_mean(_gains(a.grade, m, rel)), m), _in_cutoff(a, m))


def ideal_dcg(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """IDCG@k per ``ideal``: the positive gains sorted descending, cut at k (``sorted``) or not (``uncut``),
    of all judged documents (trec_eval m_ndcg.c) or with ``universe=retrieved`` of the ranked ones
    (scikit-learn, torchmetrics, LightGBM); ``hits``: of the relevant documents in the top k; ``k_ones``:
    k documents of gain 1; ``none``: 1."""
    ideal = m.get("ideal")
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
    elif m.option("universe") == "retrieved":
        q, grades = a.qidx, a.grade
    else:
        q, grades = a.qrel_qidx, a.qrel_grade
    gains = _gains(grades, m, rel)
    positive = gains > 0
    q, g = q[positive], gains[positive]
    order = np.lexsort((-g, q))
    q, g = q[order], g[order]
    starts = np.searchsorted(q, np.arange(a.num_queries))
    rank = np.arange(len(q), dtype=np.int64) - starts[q] + 1
    values = _discounted(rank, g, m)
    if m.cutoff is not None and ideal != "uncut":
        keep = rank <= m.cutoff
        q, values = q[keep], values[keep]
    return np.bincount(q, weights=values, minlength=a.num_queries).astype(np.float64)


def ndcg(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """nDCG@k = DCG@k / IDCG@k, 0 when IDCG@k = 0."""
    return _divide(dcg(a, m, rel), ideal_dcg(a, m, rel))


def r_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Rprec = H_R / R (0 when R = 0)."""
    big_r = relevant_count(a, m, rel)
    within_r = a.rank <= big_r[a.qidx]
    return _divide(a.per_query_sum(a.relevant(rel).astype(np.float64), within_r), big_r)


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
    if m.get("no_nonrel") == "undefined":  # ranx has no special case: with N = 0 it divides 0 by 0
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
    relevant = a.relevant(rel)
    out = np.zeros(a.num_queries, dtype=np.float64)
    rows = np.flatnonzero(relevant)
    if not len(rows):
        return out
    q = a.qidx[rows]
    nth = a.cumulative_within_query(relevant)[rows]
    best_after = _suffix_max_within(nth / a.rank[rows], q, int(nth.max()))
    bias = 0.9 if m.get("round") == "v9" else 0.5
    needed = np.maximum(np.floor(float(m.cutoff) * a.num_relevant(rel) + bias), 1.0)
    at = nth == needed[q]
    out[q[at]] = best_after[at]
    return out


def kendall_tau(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Kendall's tau-b between scores and grades over each query's retrieved judged documents.

    Pairs are enumerated within queries in bounded batches; NaN when undefined (fewer than two documents,
    or all scores or all grades equal), as scipy.stats.kendalltau returns.
    """
    judged = np.flatnonzero(a.grade != np.iinfo(np.int64).min)
    q = a.qidx[judged]
    x, y = a.score[judged], a.grade[judged].astype(np.float64)
    n = np.bincount(q, minlength=a.num_queries).astype(np.int64)
    starts = np.zeros(a.num_queries + 1, dtype=np.int64)
    np.cumsum(n, out=starts[1:])
    concordance = np.zeros(a.num_queries)
    tied_x = np.zeros(a.num_queries)
    tied_y = np.zeros(a.num_queries)
    partners = starts[1:][q] - np.arange(len(q)) - 1  # later documents of the same query
    batch_rows = _pair_batches(partners, limit=4_000_000)
    for lo, hi in batch_rows:
        counts = partners[lo:hi]
        left = np.repeat(np.arange(lo, hi), counts)
        offset = np.arange(len(left)) - np.repeat(np.cumsum(counts) - counts, counts)
        right = left + offset + 1
        sx = np.sign(x[left] - x[right])
        sy = np.sign(y[left] - y[right])
        pq = q[left]
        concordance += np.bincount(pq, weights=sx * sy, minlength=a.num_queries)
        tied_x += np.bincount(pq, weights=(sx == 0), minlength=a.num_queries)
        tied_y += np.bincount(pq, weights=(sy == 0), minlength=a.num_queries)
    pairs = n * (n - 1) / 2.0
    denominator = np.sqrt((pairs - tied_x) * (pairs - tied_y))
    out = np.full(a.num_queries, np.nan)
    ok = denominator > 0
    out[ok] = concordance[ok] / denominator[ok]
    return out


def _pair_batches(partners: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """Split rows into consecutive batches whose pair counts stay under ``limit`` (at least one row each)."""
    if not len(partners):
        return []
    total = np.cumsum(partners)
    batches, lo = [], 0
    while lo < len(partners):
        base = total[lo - 1] if lo else 0
        hi = int(np.searchsorted(total, base + limit, side="right"))
        hi = max(hi, lo + 1)
        batches.append((lo, hi))
        lo = hi
    return batches


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
    "Rprec": r_precision,
    "bpref": bpref,
    "IPrec": interpolated_precision,
    "MeanRank": mean_rank,
    "KendallTau": kendall_tau,
    "NumQ": num_q,
    "NumRet": num_ret,
    "NumRel": num_rel,
    "NumRelRet": num_rel_ret,
}


def aggregate(values: np.ndarray, how: str) -> float:
    """Combine per-query values: ``mean`` (NaN left out), ``sum``, or ``gmean`` (floor 1e-5, trec_eval)."""
    defined = values[~np.isnan(values)]
    if how == "sum":
        return float(defined.sum())
    if not len(defined):
        return float("nan")
    if how == "gmean":
        return float(np.exp(np.mean(np.log(np.maximum(defined, MIN_GEO_MEAN)))))
    return float(defined.mean())
