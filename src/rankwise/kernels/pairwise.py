"""Kernels of the pairwise measures, which compare documents two by two: KendallTau, AUC (per query, weighted by
positives, or pooled over all rows), CoverageError and LabelRankingLoss.

Pairs are counted without enumerating them: sorted rows, runs of equal scores and searches in sorted blocks
(:func:`_pair_order_counts`, :func:`_inversions`). The formulas are documented in :mod:`rankwise.measures.pairwise`.
"""

from __future__ import annotations

import numpy as np

from ..engine.aligned import UNJUDGED, Aligned
from ..engine.rowops import run_starts
from ..errors import MeasureError
from ..measures.spec import Measure
from .common import Kernel, choice, divide, in_cutoff, tie_group_ends


def kendall_tau(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Kendall's tau-b (Kendall 1945) between scores and grades over each query's retrieved judged documents.

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
    keep = in_cutoff(a, m)
    if choice(m, "unjudged", ("negative", "skip")) == "skip":
        judged = a.grade != UNJUDGED
        keep = judged if keep is None else keep & judged
    return np.arange(len(a.qidx)) if keep is None else np.flatnonzero(keep)


def _auc_scores(a: Aligned, m: Measure) -> tuple[np.ndarray, float]:
    """What orders a pair: the score, or with ``compare=rank`` the position (−rank, so no two rows tie); and the
    credit of a tied pair: ½, or 1 with ``compare=score_ties_win``."""
    if choice(m, "compare", ("score", "rank", "score_ties_win")) == "rank":
        return -a.rank.astype(np.float64), 0.5
    return a.score, _tie_credit(m)


def _tie_credit(m: Measure) -> float:
    """The credit of a pair of tied scores: 1 with ``compare=score_ties_win``, else ½ (never used with
    ``compare=rank``, where no two rows tie)."""
    return 1.0 if choice(m, "compare", ("score", "rank", "score_ties_win")) == "score_ties_win" else 0.5


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
    if choice(m, "form", ("pairs", "elliot")) == "elliot":
        rows, terms = _elliot_terms(a, m, rel)
        big_r = a.num_relevant(rel)
        denominator = big_r if m.cutoff is None else np.minimum(big_r, float(m.cutoff))
        return divide(np.bincount(a.qidx[rows], weights=terms, minlength=a.num_queries), denominator)
    rows = _auc_rows(a, m)
    scores, tie_credit = _auc_scores(a, m)
    out, n_pos, n_neg = _roc_area(a.qidx[rows], scores[rows], a.relevant(rel)[rows], a.num_queries, tie_credit,
                                  max_fpr)  # fmt: skip
    one_class = choice(m, "one_class", ("undefined", "replay", "dl_rs_eval"))
    if one_class == "replay":
        out[n_neg == 0] = 1.0
        out[n_pos == 0] = 0.0
    elif one_class == "dl_rs_eval":
        out[n_pos == 0] = 0.0
        out[n_neg == 0] = 1.0
    return out


def auc_positives(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """n⁺ per query: the relevant documents among the rows its AUC compares (the weights of ``mean=positives``)."""
    rows = _auc_rows(a, m)
    weights = np.bincount(a.qidx[rows], weights=a.relevant(rel)[rows], minlength=a.num_queries)
    return weights.astype(np.float64)


def pooled_auc_inputs(a: Aligned, m: Measure, rel: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """What the pooled AUC (:func:`pooled_auc`) needs of each query group: per row in layout order, Elliot's terms
    (``form=elliot``) or the score and relevance of every row the AUC compares; and how many of these rows each query
    has (:data:`rankwise.kernels.aggregate.ROWS_PER_QUERY`)."""
    if choice(m, "form", ("pairs", "elliot")) == "elliot":
        rows, terms = _elliot_terms(a, m, rel)
        per_row = {"terms": terms}
    else:
        rows = _auc_rows(a, m)
        per_row = {"auc_score": _auc_scores(a, m)[0][rows], "auc_relevant": a.relevant(rel)[rows]}
    return per_row, np.bincount(a.qidx[rows], minlength=a.num_queries)


def pooled_auc(m: Measure, inputs: dict[str, np.ndarray]) -> float:
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
    np.maximum.at(out, a.qidx[relevant], a.rank[tie_group_ends(a, m)[relevant]].astype(np.float64))
    return out


def label_ranking_loss(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """1 − |{(d, e) : d relevant, e not, s_d > s_e}| / (n⁺ · n⁻) over the ranked rows, tied pairs counting as
    wrongly ordered (scikit-learn label_ranking_loss); 0 when a class is missing."""
    correct, n_pos, n_neg = _pair_order_counts(a.qidx, a.score, a.relevant(rel), a.num_queries, tie_credit=0.0)
    pairs = n_pos * n_neg
    return np.where(pairs > 0, 1.0 - divide(correct, pairs), 0.0)


PAIRWISE_KERNELS: dict[str, Kernel] = {
    "KendallTau": kendall_tau,
    "AUC": auc,
    "CoverageError": coverage_error,
    "LabelRankingLoss": label_ranking_loss,
}
"""The pairwise families and their kernels (registered in :data:`rankwise.kernels.KERNELS`)."""
