"""Intent-aware kernels: ndeval's novelty and diversity measures, on the :class:`Aligned` arrays and the subtopic
judgments attached to them (:class:`rankwise.io.subtopics.SubtopicJudgments`, ``Aligned.subtopics``).

For one query: J(d, s) = 1 when document d's grade for subtopic s is at least ``rel`` (unjudged documents and
documents judged for no subtopic are relevant to none); S = the subtopics with at least one relevant document
(subtopics without one are ignored, as ndeval ignores them); c_s(i) = the documents ranked above i that are relevant
to s; and the gain of rank i is

    G_i = Σ_s J(L_i, s) · (1 − α)^{c_s(i)}.

Every measure is 0 for a query with S = 0 (``no_subtopics=skip``: undefined). The ideal ranking of the normalised
measures is ndeval's greedy one over all judged documents of the query: each rank takes the document of largest
gain given the ranks above it, a tie going to the larger doc id (byte order).

Everything is computed on flat arrays over all queries: the run's (row, subtopic) pairs, per-subtopic running
counts from one sort, sums by ``np.bincount``. The greedy ideal is a loop over ranks (not queries), each step one
vectorised pass over the pairs of the documents not yet placed. Sums run in ndeval's order (a row's subtopics in
subtopic order, ranks in rank order; powers of 1 − α and β by repeated multiplication), so values agree with
ndeval's to the last bit, or within one where pyndeval numbers the subtopics in another order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.aligned import Aligned, judgments_by_doc
from ..engine.rowops import lookup, run_starts
from ..errors import MeasureError
from ..io.subtopics import SUBTOPIC, SubtopicJudgments
from ..io.table import DOCID, QID, VALUE
from ..measures.spec import Measure
from .common import Kernel, check_choices, divide

_NEEDS = ("needs subtopic judgments (query_id subtopic doc_id grade, the TREC Web track diversity qrels ndeval "
          "reads): pass subtopics= (--subtopics FILE)")  # fmt: skip


@dataclass(frozen=True)
class IntentJudgments:
    """The subtopic judgments of one :class:`Aligned`'s queries at one relevance threshold, as flat arrays.

    A *slot* is one (query, subtopic with a relevant document); slots are ordered by query, then subtopic (as
    numbers when every subtopic id is an integer, as ndeval reads them; else as text). A *candidate* is one
    (query, relevant document), ordered by query, then doc id descending.
    """

    subtopics: np.ndarray
    """S per query (float64)."""
    slot_query: np.ndarray
    slot_relevant: np.ndarray
    """Per slot: the documents judged relevant to it (float64)."""
    pair_row: np.ndarray
    """Retrieved (row, slot) pairs with J = 1, by row (rank order within each query), then slot."""
    pair_slot: np.ndarray
    candidate_query: np.ndarray
    candidate_offsets: np.ndarray
    """The slots of candidate c are ``candidate_slot[candidate_offsets[c]:candidate_offsets[c + 1]]``."""
    candidate_slot: np.ndarray


def intent_judgments(a: Aligned, m: Measure, rel: int) -> IntentJudgments:
    """The :class:`IntentJudgments` of ``a`` at threshold ``rel`` (cached), or a one-line error without subtopic
    judgments."""
    key = ("intent", rel)
    if key in a._cache:
        return a._cache[key]
    judgments: SubtopicJudgments | None = a.subtopics
    if judgments is None:
        raise MeasureError(f"{m} {_NEEDS}")
    queries = pl.DataFrame({QID: a.query_ids, "_q": np.arange(a.num_queries)}, schema={QID: pl.String, "_q": pl.Int64})
    relevant = judgments.frame.filter(pl.col(VALUE) >= rel).select(QID, SUBTOPIC, DOCID).join(queries, on=QID)
    numeric = judgments.frame.get_column(SUBTOPIC).cast(pl.Int64, strict=False).null_count() == 0
    order = pl.col(SUBTOPIC).cast(pl.Int64) if numeric else pl.col(SUBTOPIC)
    slots = relevant.select("_q", SUBTOPIC).unique().sort("_q", order, SUBTOPIC).with_row_index("_s")
    candidates = relevant.select("_q", DOCID).unique().sort("_q", DOCID, descending=[False, True]).with_row_index("_c")
    pairs = relevant.join(slots, on=["_q", SUBTOPIC]).join(candidates, on=["_q", DOCID]).sort("_c", "_s")
    slot_query = slots.get_column("_q").to_numpy()
    candidate_query = candidates.get_column("_q").to_numpy()
    pair_candidate = pairs.get_column("_c").to_numpy().astype(np.int64)
    candidate_slot = pairs.get_column("_s").to_numpy().astype(np.int64)
    candidate_offsets = np.zeros(len(candidate_query) + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_candidate, minlength=len(candidate_query)), out=candidate_offsets[1:])
    pair_row, pair_slot = _retrieved_pairs(a, candidates, candidate_offsets, candidate_slot)
    view = IntentJudgments(
        subtopics=np.bincount(slot_query, minlength=a.num_queries).astype(np.float64),
        slot_query=slot_query,
        slot_relevant=np.bincount(candidate_slot, minlength=len(slot_query)).astype(np.float64),
        pair_row=pair_row,
        pair_slot=pair_slot,
        candidate_query=candidate_query,
        candidate_offsets=candidate_offsets,
        candidate_slot=candidate_slot,
    )
    a._cache[key] = view
    return view


def _retrieved_pairs(
    a: Aligned, candidates: pl.DataFrame, offsets: np.ndarray, slots: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(row, slot) of every run row relevant to a subtopic, by row then slot: each row's candidate found by doc code
    within its query (:func:`rankwise.engine.rowops.lookup`), then its slots expanded."""
    assert a.doc is not None, "aligned without doc ids"
    doc_ids = a.doc_id_series()
    doc_index = pl.DataFrame({DOCID: doc_ids.cast(pl.String), "_d": np.arange(len(doc_ids), dtype=np.int64)})
    coded = candidates.join(doc_index, on=DOCID, how="inner")  # a document outside the run and qrels is not ranked
    by_doc, docs, doc_offsets = judgments_by_doc(coded.get_column("_q").to_numpy().astype(np.int64),
                                                  coded.get_column("_d").to_numpy(), a.num_queries)  # fmt: skip
    candidate = coded.get_column("_c").to_numpy().astype(np.int64)[by_doc]
    row_candidate = lookup(a.qidx, a.doc, doc_offsets, docs, candidate, -1)
    rows = np.flatnonzero(row_candidate >= 0)
    first, count = offsets[row_candidate[rows]], np.diff(offsets)[row_candidate[rows]]
    pair_row = np.repeat(rows, count)
    within = np.arange(len(pair_row)) - np.repeat(np.cumsum(count) - count, count)
    return pair_row, slots[np.repeat(first, count) + within]


def _powers(base: float, length: int) -> np.ndarray:
    """1, base, base·base, ... (``length`` values) by repeated multiplication, as ndeval updates its gains."""
    steps = np.full(max(length, 1), base)
    steps[0] = 1.0
    return np.cumprod(steps)


def _seen_before(pair_slot: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Per pair: the earlier pairs of its slot, ``order`` sorting the pairs by slot then rank."""
    slot_sorted = pair_slot[order]
    seen = np.empty(len(order), dtype=np.int64)
    seen[order] = np.arange(len(order)) - np.searchsorted(slot_sorted, slot_sorted, side="left")
    return seen


@dataclass(frozen=True)
class _Ranked:
    """A ranking per query as flat rows grouped by query in rank order: query, rank (1-based) and gain G_i."""

    query: np.ndarray
    rank: np.ndarray
    gain: np.ndarray


def _run_ranking(a: Aligned, view: IntentJudgments, alpha: float) -> _Ranked:
    """The run's gains G_i per row (cached per judgments and α)."""
    key = ("intent_gain", id(view), alpha)  # the view lives in the same cache, so its id is not reused
    if key not in a._cache:
        order = np.lexsort((view.pair_row, view.pair_slot))
        seen = _seen_before(view.pair_slot, order)
        decay = _powers(1.0 - alpha, int(seen.max(initial=0)) + 1)
        gain = np.bincount(view.pair_row, weights=decay[seen], minlength=len(a.qidx)).astype(np.float64)
        a._cache[key] = _Ranked(a.qidx, a.rank, gain)
    return a._cache[key]


def _ideal_ranking(a: Aligned, view: IntentJudgments, alpha: float, depth: int | None) -> _Ranked:
    """ndeval's greedy ideal ranking of each query's relevant documents, to ``depth`` ranks (all without one).

    Step t places, in every query at once, the unplaced document of largest gain Σ_{its subtopics s} (1 − α)^{c_s}
    (c_s: documents placed so far that are relevant to s), the first in doc id descending order among equal gains
    (ndeval's ``strcmp(...) > 0``); then the counts of its subtopics grow by one and it leaves the arrays. Judged
    documents relevant to no subtopic would gain 0 and change no value: they are left out."""
    key = ("intent_ideal", id(view), alpha, depth)  # the view lives in the same cache: its id is not reused
    if key in a._cache:
        return a._cache[key]
    query, pair_candidate = view.candidate_query, np.repeat(np.arange(len(view.candidate_query)),
                                                             np.diff(view.candidate_offsets))  # fmt: skip
    pair_slot = view.candidate_slot
    counts = np.zeros(len(view.slot_query), dtype=np.int64)
    decay = _powers(1.0 - alpha, int(view.slot_relevant.max(initial=0)) + 1)
    placed: list[tuple[np.ndarray, int, np.ndarray]] = []
    step = 0
    while len(query) and (depth is None or step < depth):
        step += 1
        score = np.bincount(pair_candidate, weights=decay[counts[pair_slot]], minlength=len(query))
        starts = run_starts(query)
        first = np.flatnonzero(starts)
        best = np.maximum.reduceat(score, first)
        position = np.where(score == best[np.cumsum(starts) - 1], np.arange(len(query)), len(query))
        chosen = np.zeros(len(query), dtype=bool)
        chosen[np.minimum.reduceat(position, first)] = True
        placed.append((query[first], step, best))
        pair_chosen = chosen[pair_candidate]
        counts[pair_slot[pair_chosen]] += 1
        renumber = np.cumsum(~chosen) - 1
        pair_candidate, pair_slot = renumber[pair_candidate[~pair_chosen]], pair_slot[~pair_chosen]
        query = query[~chosen]
    ideal_query = np.concatenate([q for q, _, _ in placed]) if placed else np.zeros(0, dtype=np.int64)
    ideal_rank = np.concatenate([np.full(len(q), t) for q, t, _ in placed]) if placed else np.zeros(0, dtype=np.int64)
    ideal_gain = np.concatenate([g for _, _, g in placed]) if placed else np.zeros(0)
    order = np.lexsort((ideal_rank, ideal_query))
    ranking = _Ranked(ideal_query[order], ideal_rank[order], ideal_gain[order])
    a._cache[key] = ranking
    return ranking


def _discount(rank: np.ndarray) -> np.ndarray:
    """1 / log2(i + 1), as ndeval writes it: log(2) / log(i + 1)."""
    return np.log(2.0) / np.log(rank + 1.0)


Weighting = Callable[[np.ndarray, np.ndarray], np.ndarray]
_DCG: Weighting = lambda gain, rank: gain * _discount(rank)  # noqa: E731
_ERR: Weighting = lambda gain, rank: gain / rank  # noqa: E731


def _cumulative(ranking: _Ranked, k: int, weighting: Weighting, num_queries: int) -> np.ndarray:
    """Σ_{i≤k} weighting(G_i, i) per query, summed in rank order."""
    top = ranking.rank <= k
    weighted = weighting(ranking.gain[top], ranking.rank[top].astype(np.float64))
    return np.bincount(ranking.query[top], weights=weighted, minlength=num_queries).astype(np.float64)


def _ideal_ideal(subtopics: np.ndarray, k: int, alpha: float, weighting: Weighting) -> np.ndarray:
    """ndeval's "ideal ideal" normaliser per query: Σ_{i≤k} weighting(S·(1 − α)^{i−1}, i), the value of a ranking
    whose every document is relevant to every subtopic (computed once per distinct S)."""
    distinct, inverse = np.unique(subtopics, return_inverse=True)
    steps = np.full((len(distinct), k), 1.0 - alpha)
    steps[:, 0] = distinct
    rank = np.arange(1, k + 1, dtype=np.float64)
    return np.cumsum(weighting(np.cumprod(steps, axis=1), rank), axis=1)[:, k - 1][inverse]


def _normalised(total: np.ndarray, view: IntentJudgments, k: int, alpha: float, weighting: Weighting,
                divide_at_1: bool) -> np.ndarray:  # fmt: skip
    """``total`` ÷ the ideal-ideal normaliser (0 where S = 0); at k = 1 undivided unless ``divide_at_1`` (ndeval's
    normalising loop starts at rank 2)."""
    if k == 1 and not divide_at_1:
        return total
    return divide(total, _ideal_ideal(view.subtopics, k, alpha, weighting))


def _no_subtopics(m: Measure, view: IntentJudgments, values: np.ndarray) -> np.ndarray:
    """Per ``no_subtopics``: a query with S = 0 scores 0 (as computed) or is undefined (NaN)."""
    if m.get("no_subtopics") == "skip":
        values = values.copy()
        values[view.subtopics == 0] = np.nan
    return values


def _cutoff(m: Measure) -> int:
    assert m.cutoff is not None, f"{m}: the family requires a cutoff"
    return int(m.cutoff)


_CHOICES: dict[str, tuple[str, ...]] = {"no_subtopics": ("zero", "skip"), "norm_at_1": ("yes", "no")}


def _cascade(a: Aligned, m: Measure, rel: int, weighting: Weighting, normalised: bool) -> np.ndarray:
    """α-DCG@k (``weighting`` :data:`_DCG`) or ERR-IA@k (:data:`_ERR`) ÷ the ideal-ideal normaliser; with
    ``normalised`` the same ÷ its value on the greedy ideal ranking (0 when the run's value is 0)."""
    check_choices(m, _CHOICES)
    view, alpha, k = intent_judgments(a, m, rel), float(m.get("alpha")), _cutoff(m)  # type: ignore[arg-type]
    run = _cumulative(_run_ranking(a, view, alpha), k, weighting, a.num_queries)
    if not normalised:
        return _no_subtopics(m, view, _normalised(run, view, k, alpha, weighting, m.get("norm_at_1") == "yes"))
    ideal = _cumulative(_ideal_ranking(a, view, alpha, k), k, weighting, a.num_queries)
    run, ideal = (_normalised(v, view, k, alpha, weighting, False) for v in (run, ideal))
    return _no_subtopics(m, view, np.where(run != 0, divide(run, ideal), 0.0))


def alpha_dcg(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """α-DCG@k = Σ_{i≤k} G_i / log2(i + 1) ÷ Σ_{i≤k} S(1 − α)^{i−1} / log2(i + 1) (ndeval computeDCG)."""
    return _cascade(a, m, rel, _DCG, normalised=False)


def alpha_ndcg(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """α-nDCG@k = α-DCG@k ÷ α-DCG@k of the greedy ideal ranking; 0 when α-DCG@k is 0 (Clarke et al. 2008)."""
    return _cascade(a, m, rel, _DCG, normalised=True)


def err_ia(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """ERR-IA@k = Σ_{i≤k} G_i / i ÷ Σ_{i≤k} S(1 − α)^{i−1} / i (ndeval computeERR): Chapelle et al.'s ERR-IA with
    uniform intent weights and stop probability α, over its value on a ranking relevant to every subtopic."""
    return _cascade(a, m, rel, _ERR, normalised=False)


def nerr_ia(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """nERR-IA@k = ERR-IA@k ÷ ERR-IA@k of the greedy ideal ranking; 0 when ERR-IA@k is 0 (Chapelle et al. 2011;
    ndeval computeERR)."""
    return _cascade(a, m, rel, _ERR, normalised=True)


def _rbp_sum(ranking: _Ranked, alpha: float, beta: float, subtopics: np.ndarray, num_queries: int) -> np.ndarray:
    """NRBP = (1 − (1 − α)β) / S · Σ_i G_i β^{i−1} over the whole ranking (0 where S = 0)."""
    decay = _powers(beta, int(ranking.rank.max(initial=1)))
    total = np.bincount(ranking.query, weights=ranking.gain * decay[ranking.rank - 1], minlength=num_queries)
    factor = divide(np.full(num_queries, 1.0 - (1.0 - alpha) * beta), subtopics)
    return total.astype(np.float64) * factor


def nrbp(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """NRBP = (1 − (1 − α)β) / S · Σ_i G_i β^{i−1} (Clarke, Kolla & Vechtomova, ICTIR 2009; ndeval computeNRBP)."""
    check_choices(m, _CHOICES)
    view, alpha, beta = intent_judgments(a, m, rel), float(m.get("alpha")), float(m.get("beta"))  # type: ignore[arg-type]
    return _no_subtopics(m, view, _rbp_sum(_run_ranking(a, view, alpha), alpha, beta, view.subtopics, a.num_queries))


def nnrbp(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """nNRBP = NRBP ÷ NRBP of the greedy ideal ranking of every relevant judged document; 0 where S = 0 (ndeval's
    0/0 is NaN: ``no_subtopics=skip``)."""
    check_choices(m, _CHOICES)
    view, alpha, beta = intent_judgments(a, m, rel), float(m.get("alpha")), float(m.get("beta"))  # type: ignore[arg-type]
    run = _rbp_sum(_run_ranking(a, view, alpha), alpha, beta, view.subtopics, a.num_queries)
    ideal = _rbp_sum(_ideal_ranking(a, view, alpha, None), alpha, beta, view.subtopics, a.num_queries)
    return _no_subtopics(m, view, divide(run, ideal))


def ap_ia(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """AP-IA = (1/S) Σ_s AP_s, AP_s = (1/R_s) Σ_{i: J(L_i, s)} (documents relevant to s in the top i) / i over the
    whole ranking, R_s the documents judged relevant to s (ndeval computeMAP's MAP-IA, per query)."""
    check_choices(m, _CHOICES)
    view = intent_judgments(a, m, rel)
    order = np.lexsort((view.pair_row, view.pair_slot))
    found = (_seen_before(view.pair_slot, order) + 1) / a.rank[view.pair_row].astype(np.float64)
    per_slot = np.bincount(view.pair_slot[order], weights=found[order], minlength=len(view.slot_query))
    per_query = np.bincount(view.slot_query, weights=per_slot / view.slot_relevant, minlength=a.num_queries)
    return _no_subtopics(m, view, divide(per_query.astype(np.float64), view.subtopics))


def p_ia(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """P-IA@k = Σ_{i≤k} Σ_s J(L_i, s) / (k · S) (Agrawal et al., WSDM 2009, uniform intent weights; k counts even
    for shorter rankings)."""
    check_choices(m, _CHOICES)
    view, k = intent_judgments(a, m, rel), _cutoff(m)
    rows = view.pair_row[a.rank[view.pair_row] <= k]
    hits = np.bincount(a.qidx[rows], minlength=a.num_queries).astype(np.float64)
    return _no_subtopics(m, view, divide(hits, k * view.subtopics))


def subtopic_recall(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """StRecall@k = |{s : J(L_i, s) for some i ≤ k}| / S (Zhai, Cohen & Lafferty, SIGIR 2003; ndeval strec)."""
    check_choices(m, _CHOICES)
    view, k = intent_judgments(a, m, rel), _cutoff(m)
    order = np.lexsort((view.pair_row, view.pair_slot))
    first = (_seen_before(view.pair_slot, order) == 0) & (a.rank[view.pair_row] <= k)
    covered = np.bincount(a.qidx[view.pair_row[first]], minlength=a.num_queries).astype(np.float64)
    return _no_subtopics(m, view, divide(covered, view.subtopics))


INTENT_KERNELS: dict[str, Kernel] = {
    "alpha-DCG": alpha_dcg,
    "alpha-nDCG": alpha_ndcg,
    "ERR-IA": err_ia,
    "nERR-IA": nerr_ia,
    "NRBP": nrbp,
    "nNRBP": nnrbp,
    "AP-IA": ap_ia,
    "P-IA": p_ia,
    "StRecall": subtopic_recall,
}
"""The intent-aware families and their kernels (registered in :data:`rankwise.kernels.KERNELS`)."""


def refuse_without_subtopics(pairs: Iterable[tuple[str, Measure]], judgments: SubtopicJudgments | None) -> None:
    """Refuse, before any work, an intent-aware measure asked for without subtopic judgments."""
    if judgments is not None:
        return
    for key, measure in pairs:
        if measure.name in INTENT_KERNELS:
            raise MeasureError(f"{key} is intent-aware and {_NEEDS}")
