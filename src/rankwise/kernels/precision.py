"""Kernels of the set and precision/recall measures: P, R, HitRate, F1, RR, AP and GMAP, Rprec, bpref and GMbpref,
IPrec and IPrecAvg, MeanRank, SetP, RelP, SetMAP, infAP, Utility, the counts (NumQ, NumRet, NumRel, NumRelRet,
NumNonRelJudgedRet), Judged, Unjudged, FallOut and RecallAtPrecision.

Notation: H_k is the number of relevant documents in the top k (:func:`_hits`), R the number of relevant documents
(:func:`rankwise.kernels.common.relevant_count`), |L| the ranking's length. The formulas are documented in
:mod:`rankwise.measures.precision`; comments here name the trec_eval behaviour each line reproduces.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..engine.aligned import UNJUDGED, Aligned
from ..limits import MAX_SUMMED_CUTOFF, at_most
from ..measures.spec import Measure
from .common import (
    Kernel,
    choice,
    divide,
    in_cutoff,
    list_length,
    relevant_count,
    scored_rank,
    tie_group_ends,
)


def _found(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Rows that count as relevant hits: grade >= rel, and with ``gate=positive_score`` score > 0 too."""
    relevant = a.relevant(rel)
    return relevant & (a.score > 0) if choice(m, "gate", ("none", "positive_score")) == "positive_score" else relevant


def _hits(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """H_k per query: relevant documents in the top k (or in the whole ranking), ranked per ``rank``."""
    found = a.tie_mean(_found(a, m, rel).astype(np.float64))
    return a.per_query_sum(found, in_cutoff(a, m, scored_rank(a, m, rel)))


def _first_hit_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Rank of the first relevant document within the cutoff per query; 0 when there is none."""
    mask = _found(a, m, rel)
    cut = in_cutoff(a, m)
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


def _precision_denominator(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """What P@k divides by, per ``denom``: k; |L[:k]|; min(k, R); min(|L[:k]|, R)."""
    denom = choice(m, "denom", ("k", "retrieved", "min_k_R", "min_shown_R"))
    k = np.full(a.num_queries, float(m.cutoff)) if m.cutoff is not None else a.num_retrieved()
    if denom == "retrieved":
        return list_length(a, m)
    if denom == "min_k_R":
        return np.minimum(k, relevant_count(a, m, rel))
    if denom == "min_shown_R":
        return np.minimum(list_length(a, m), relevant_count(a, m, rel))
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
    """R@k = H_k / R, or with ``denom=min_k_R`` H_k / min(k, R); 0 when R = 0 (trec_eval m_recall.c)."""
    big_r = relevant_count(a, m, rel)
    if choice(m, "denom", ("R", "min_k_R")) == "min_k_R" and m.cutoff is not None:
        big_r = np.minimum(big_r, float(m.cutoff))
    return divide(_hits(a, m, rel), big_r)


def hit_rate(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """HitRate@k = [H_k > 0]; with ``count=hits`` H_k itself (trec_eval m_success.c)."""
    hits = _hits(a, m, rel)
    return hits if choice(m, "count", ("any", "hits")) == "hits" else (hits > 0).astype(np.float64)


def f1_parts(a: Aligned, m: Measure, rel: int) -> tuple[np.ndarray, np.ndarray]:
    """The P and R an F-measure combines: P = H_k / (per ``denom``; |L| without a cutoff), R = H_k / R."""
    hits = _hits(a, m, rel)
    denominator = _precision_denominator(a, m, rel)  # without a cutoff k is |L|
    return divide(hits, denominator), divide(hits, relevant_count(a, m, rel))


def f_beta(p: np.ndarray, r: np.ndarray, beta: float) -> np.ndarray:
    """(1 + β²)·P·R / (β²·P + R), 0 when P = R = 0."""
    return divide((1.0 + beta**2) * p * r, beta**2 * p + r)


def f1(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """F@k = (1 + β²)PR / (β²P + R), 0 when P = R = 0; without a cutoff P = H / |L| (van Rijsbergen 1979;
    trec_eval m_set_F.c)."""
    choice(m, "mean", ("query", "from_means"))
    p, r = f1_parts(a, m, rel)
    return f_beta(p, r, float(m.get("beta")))  # type: ignore[arg-type]


def reciprocal_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """RR@k = 1 / rank of the first relevant document in the top k (0 when none); with ``hits=all``
    Σ_{i≤k} h_i / i; with ``hits=top1`` 1 if the first document is relevant, else 0 (trec_eval m_recip_rank.c)."""
    hits = choice(m, "hits", ("first", "all", "top1"))
    if hits == "all":
        return a.per_query_sum(a.relevant(rel) / a.rank, in_cutoff(a, m))
    if hits == "top1":
        return a.per_query_sum(_found(a, m, rel).astype(np.float64), a.rank == 1)
    return divide(np.ones(a.num_queries), _first_hit_rank(a, m, rel))


def mean_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """MeanRank = rank of the first relevant document; NaN (undefined) when none is in the top k (the rank behind
    :func:`reciprocal_rank`)."""
    first = _first_hit_rank(a, m, rel)
    first[first == 0] = np.nan
    return first


def _precision_sum(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Σ_{i≤k, h_i=1} P@i per query, summed in rank order as trec_eval does; with ``precisions=every``
    Σ_{n=1..k} P@n, where past the list's end P@n = H_|L| / n."""
    relevant = _found(a, m, rel)
    precision_at = a.cumulative_within_query(relevant) / a.rank
    if choice(m, "precisions", ("relevant", "every")) == "every":
        total = a.per_query_sum(precision_at, in_cutoff(a, m))
        if m.cutoff is not None:  # ranks |L|+1..k of a short list: H_|L| · (harmonic(k) − harmonic(|L|))
            at_most(m.cutoff, MAX_SUMMED_CUTOFF, f"{m}: the cutoff of precisions=every (k precisions summed)")
            harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, m.cutoff + 1))))
            shown = np.minimum(a.num_retrieved(), m.cutoff).astype(np.int64)
            total += a.per_query_sum(relevant.astype(np.float64)) * (harmonic[int(m.cutoff)] - harmonic[shown])
        return total
    mask = relevant if m.cutoff is None else relevant & (a.rank <= m.cutoff)
    if choice(m, "precision_at", ("rank", "tie_end")) == "tie_end":
        precision_at = precision_at[tie_group_ends(a, m)]
    return a.per_query_sum(precision_at, mask)


def average_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """AP@k = Σ_{i≤k, h_i=1} P@i / D with D per ``denom``: R, min(k, R), k, H_k or Σ_{i≤k} min(i, R);
    0 when D = 0 (trec_eval m_map.c, m_map_cut.c)."""
    total = _precision_sum(a, m, rel)
    denom = choice(m, "denom", ("R", "min_k_R", "k", "hits", "neurec", "min_shown_R"))
    k = float(m.cutoff) if m.cutoff is not None else a.num_retrieved()
    if denom == "R":
        d = relevant_count(a, m, rel)
    elif denom == "min_k_R":  # without a cutoff k is unbounded: D = R
        d = relevant_count(a, m, rel) if m.cutoff is None else np.minimum(k, relevant_count(a, m, rel))
    elif denom == "k":
        d = np.broadcast_to(k, (a.num_queries,)).astype(np.float64)
    elif denom == "min_shown_R":
        d = np.minimum(list_length(a, m), relevant_count(a, m, rel))
    elif denom == "neurec":  # Σ_{i=1..k} min(i, R) = R(R+1)/2 + (k − R)·R when R ≤ k, else k(k+1)/2
        big_r = np.minimum(relevant_count(a, m, rel), k)
        d = big_r * (big_r + 1) / 2 + (k - big_r) * big_r
    else:  # hits
        d = _hits(a, m, rel)
    return divide(total, d)


def r_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Rprec = H_R / R (0 when R = 0); with ``mult`` = x, H_c / c with c = floor(x·R + 0.9) (trec_eval
    m_Rprec_mult.c; c = R when x = 1)."""
    mult = float(m.get("mult"))  # type: ignore[arg-type]
    big_r = relevant_count(a, m, rel)
    cut = big_r if mult == 1.0 else np.floor(mult * big_r + 0.9)
    within = a.rank <= cut[a.qidx]
    return divide(a.per_query_sum(a.relevant(rel).astype(np.float64), within), cut)


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
    penalty = divide(np.minimum(nonrel_above, r_row), np.minimum(judged_nonrel, big_r)[a.qidx])
    terms = np.where(nonrel_above > 0, 1.0 - penalty, 1.0)
    # ranx has no special case: with N = 0 it divides 0 by 0
    if choice(m, "no_nonrel", ("one", "undefined")) == "undefined":
        terms[(judged_nonrel[a.qidx] == 0) & relevant] = np.nan
    return divide(a.per_query_sum(terms, relevant), big_r)


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
    bias = 0.9 if choice(m, "round", ("nearest", "v9")) == "v9" else 0.5
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
    bias = 0.9 if choice(m, "round", ("nearest", "v9")) == "v9" else 0.5
    total = np.zeros(a.num_queries, dtype=np.float64)
    for values in reversed(_interpolated_precisions(a, rel, levels, bias)):
        total += values
    return total / len(levels)


def recall_at_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """max{H_j / R : j ≤ k, H_j / j ≥ min_precision} over each query's ranked rows, 0 when none qualifies (past the
    ranking's end H_j stays and P@j falls, so no later j does better than its last row; torchmetrics
    RetrievalRecallAtFixedPrecision)."""
    choice(m, "mean", ("query", "curve"))
    relevant = a.relevant(rel)
    hits = a.cumulative_within_query(relevant).astype(np.float64)
    recall_at = divide(hits, relevant_count(a, m, rel)[a.qidx])
    counts = (a.rank <= float(m.cutoff)) & (hits / a.rank >= float(m.get("min_precision")))  # type: ignore[arg-type]
    out = np.zeros(a.num_queries)
    np.maximum.at(out, a.qidx[counts], recall_at[counts])
    return out


def precision_recall_curves(a: Aligned, m: Measure, rel: int) -> tuple[np.ndarray, np.ndarray]:
    """P@j and R@j for j = 1..k, query after query (k entries each): H_j / j and H_j / R, H_j constant past the
    ranking's end, both 0 for a query with R = 0 (torchmetrics' empty_target_action='neg')."""
    k = int(m.cutoff)  # type: ignore[arg-type]  # cutoff_required
    shown = np.flatnonzero(a.rank <= k)
    hits = np.zeros((a.num_queries, k))
    hits[a.qidx[shown], a.rank[shown] - 1] = a.relevant(rel)[shown]
    hits = np.cumsum(hits, axis=1)
    big_r = relevant_count(a, m, rel)[:, None]
    precision = np.where(big_r > 0, hits / np.arange(1, k + 1), 0.0)
    return precision.ravel(), divide(hits, big_r).ravel()


def recall_at_precision_of_curves(m: Measure, inputs: Mapping[str, np.ndarray]) -> float:
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
    if choice(m, "universe", ("judged", "retrieved")) == "retrieved":
        nonrelevant = ~a.relevant(rel)
        total = a.per_query_sum(nonrelevant.astype(np.float64))
    else:
        nonrelevant = (a.grade != UNJUDGED) & (a.grade >= 0) & (a.grade < rel)
        judged = (a.qrel_grade >= 0) & (a.qrel_grade < rel)
        total = np.bincount(a.qrel_qidx[judged], minlength=a.num_queries).astype(np.float64)
    out = divide(a.per_query_sum(a.tie_mean(nonrelevant.astype(np.float64)), in_cutoff(a, m)), total)
    empty = {"zero": 0.0, "one": 1.0, "skip": np.nan}[str(choice(m, "no_nonrel", ("zero", "one", "skip")))]
    out[total == 0] = empty
    return out


def num_q(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """1 per evaluated query (trec_eval m_num_q.c)."""
    return np.ones(a.num_queries)


def num_ret(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """|L| per query (trec_eval m_num_ret.c)."""
    return a.num_retrieved()


def num_rel(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """R per query (trec_eval m_num_rel.c)."""
    return a.num_relevant(rel).copy()


def num_rel_ret(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """H_k: relevant documents retrieved (in the top k) per query (trec_eval m_num_rel_ret.c)."""
    return _hits(a, m, rel)


def set_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """SetP = H / |L|, 0 when nothing was retrieved (trec_eval m_set_P.c)."""
    return divide(_hits(a, m, rel), a.num_retrieved())


def relative_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """RelP@k = H_k / min(k, R); uncut H / min(|L|, R); 0 when that is 0 (m_rel_P.c, m_set_rel_P.c)."""
    shown = a.num_retrieved() if m.cutoff is None else np.full(a.num_queries, float(m.cutoff))
    return divide(_hits(a, m, rel), np.minimum(shown, a.num_relevant(rel)))


def set_average_precision(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """SetMAP = H² / (|L| · R), 0 when |L| = 0 or R = 0 (m_set_map.c)."""
    hits = _hits(a, m, rel)
    return divide(hits * hits, a.num_retrieved() * a.num_relevant(rel))


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
    return divide(a.per_query_sum(terms, relevant), a.num_relevant(rel))


def utility(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """a·H + b·(|L| − H) + c·(R − H) + d·(N + H − |L| − R) (trec_eval m_utility.c)."""
    hits, shown, big_r = _hits(a, m, rel), a.num_retrieved(), a.num_relevant(rel)
    coefficient = [float(m.get(name)) for name in ("rel_ret", "nonrel_ret", "rel_not_ret", "nonrel_not_ret")]  # type: ignore[arg-type]
    docs = float(m.get("docs"))  # type: ignore[arg-type]
    return (coefficient[0] * hits + coefficient[1] * (shown - hits) + coefficient[2] * (big_r - hits)
            + coefficient[3] * (docs + hits - shown - big_r))  # fmt: skip


def num_nonrel_judged_ret(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Retrieved documents judged non-relevant (0 ≤ grade < rel) per query (trec_eval m_num_nonrel_judged_ret.c)."""
    judged_nonrel = (a.grade != UNJUDGED) & (a.grade >= 0) & (a.grade < rel)
    return a.per_query_sum(judged_nonrel.astype(np.float64))


def judged_share(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Judged@k = judged rows in the top k / |L[:k]| (0 for an empty ranking; ir_measures Judged)."""
    judged = a.tie_mean((a.grade != UNJUDGED).astype(np.float64))
    return divide(a.per_query_sum(judged, in_cutoff(a, m)), list_length(a, m))


def unjudged_share(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Unjudged@k = rows in the top k not in the qrels or graded below 0, over k (trec_eval m_unjudged.c)."""
    unjudged = a.tie_mean(((a.grade == UNJUDGED) | (a.grade < 0)).astype(np.float64))
    return a.per_query_sum(unjudged, in_cutoff(a, m)) / float(m.cutoff)  # type: ignore[arg-type]  # cutoff required


PRECISION_KERNELS: dict[str, Kernel] = {
    "P": precision,
    "R": recall,
    "HitRate": hit_rate,
    "F1": f1,
    "RR": reciprocal_rank,
    "AP": average_precision,
    "GMAP": average_precision,
    "Rprec": r_precision,
    "bpref": bpref,
    "IPrec": interpolated_precision,
    "MeanRank": mean_rank,
    "SetP": set_precision,
    "RelP": relative_precision,
    "SetMAP": set_average_precision,
    "IPrecAvg": interpolated_precision_mean,
    "infAP": inferred_ap,
    "GMbpref": bpref,
    "Utility": utility,
    "NumNonRelJudgedRet": num_nonrel_judged_ret,
    "Judged": judged_share,
    "Unjudged": unjudged_share,
    "FallOut": fall_out,
    "RecallAtPrecision": recall_at_precision,
    "NumQ": num_q,
    "NumRet": num_ret,
    "NumRel": num_rel,
    "NumRelRet": num_rel_ret,
}
"""The set and precision/recall families and their kernels (registered in :data:`rankwise.kernels.KERNELS`)."""
