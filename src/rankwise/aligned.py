"""The aligned form: every ranking sorted once, grades looked up once, shared by all measures.

Runs become flat arrays in CSR layout: ``offsets[q]:offsets[q+1]`` are the rows of query ``q`` in rank order,
with ``qidx`` (query index per row), ``rank`` (1-based) and ``grade`` per row. Judgments of the evaluated
queries become ``qrel_qidx``/``qrel_grade``. Kernels work on these arrays with vectorised numpy, never a
per-query Python loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from .errors import InputError
from .io.table import DOCID, QID, VALUE, Table
from .policies import Policies, QuerySet, ScorePrecision, TiePolicy

UNJUDGED = np.iinfo(np.int64).min
"""Grade given to retrieved documents that are not in the qrels (never relevant, not judged)."""


@dataclass(frozen=True)
class QueryAccounting:
    """What happened to each query: nothing is dropped silently."""

    evaluated: int
    run_only: tuple[str, ...]
    """Queries of the run without judgments and not evaluated."""
    qrels_only: tuple[str, ...]
    """Judged queries missing from the run and not evaluated."""
    scored_empty: tuple[str, ...]
    """Judged queries missing from the run, evaluated as empty rankings (``queries="qrels"``)."""
    unjudged_evaluated: tuple[str, ...]
    """Run queries without judgments, evaluated with no relevant documents (``queries="run"``)."""
    no_relevant: tuple[str, ...] = ()
    """Judged queries without a relevant document, not evaluated (``queries="relevant"``)."""
    truncated_rows: int = 0
    """Run rows beyond the depth cut."""


@dataclass
class Aligned:
    """Rankings and judgments of the evaluated queries as flat arrays (see module docstring)."""

    query_ids: list[str]
    offsets: np.ndarray
    qidx: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    grade: np.ndarray
    qrel_qidx: np.ndarray
    qrel_grade: np.ndarray
    accounting: QueryAccounting
    tie_group: np.ndarray | None = None
    """With ``ties=average``: id of each row's group of equal scores (rows of a group are adjacent)."""
    num_candidates: np.ndarray | None = None
    """Per query: the items the user could have been recommended, catalogue size − the user's training items
    (only when training interactions were given)."""
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    def per_query_sum(self, values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Σ values over each query's run rows (optionally only rows where ``mask``)."""
        qidx = self.qidx if mask is None else self.qidx[mask]
        weights = values if mask is None else values[mask]
        return np.bincount(qidx, weights=weights, minlength=self.num_queries).astype(np.float64)

    def tie_mean(self, values: np.ndarray) -> np.ndarray:
        """Each row's value replaced by the mean over its tie group (identity unless ``ties=average``).

        Summed over ranks, this is the expectation over all orders of the tied documents."""
        if self.tie_group is None:
            return values
        counts = np.bincount(self.tie_group)
        return (np.bincount(self.tie_group, weights=values) / counts)[self.tie_group]

    def relevant(self, rel: int) -> np.ndarray:
        """Bool per run row: judged grade >= rel."""
        key = ("relevant", rel)
        if key not in self._cache:
            self._cache[key] = self.grade >= rel
        return self._cache[key]

    def num_relevant(self, rel: int) -> np.ndarray:
        """R per query: judged documents with grade >= rel."""
        key = ("R", rel)
        if key not in self._cache:
            hits = self.qrel_qidx[self.qrel_grade >= rel]
            self._cache[key] = np.bincount(hits, minlength=self.num_queries).astype(np.float64)
        return self._cache[key]

    def num_retrieved(self) -> np.ndarray:
        """|L| per query."""
        return np.diff(self.offsets).astype(np.float64)

    def cumulative_within_query(self, flags: np.ndarray) -> np.ndarray:
        """Running count of ``flags`` within each query, inclusive of the row itself."""
        total = np.zeros(len(flags) + 1, dtype=np.int64)
        np.cumsum(flags, out=total[1:])
        return total[1:] - total[self.offsets[self.qidx]]


def _rank_order(
    qidx: np.ndarray, score: np.ndarray, doc_ids: pl.Series, ties: TiePolicy
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row order that groups queries by index and sorts each by score descending under the tie policy, with the
    query indices and scores in that order (taken from the sort itself: no second gather of shuffled rows).

    Runs are usually written query by query in score order; that is checked in O(n) and then only the
    groups of tied scores are sorted by doc id. Otherwise a sort on (query, -score) comes first: unstable (the
    tie groups are put in doc-id order next, so input order does not matter), except under ``input_order``, where
    rows are grouped by query first (a stable sort on the query alone, cheaper than a stable two-key sort of
    shuffled rows) and then stably sorted by score.
    """
    n = len(qidx)
    if n == 0:
        return np.zeros(0, dtype=np.int64), qidx, score
    new_query = np.diff(qidx) != 0
    contiguous = np.count_nonzero(new_query) + 1 == np.count_nonzero(np.bincount(qidx))
    if contiguous and np.all(new_query | (np.diff(score) <= 0)):
        order = np.argsort(qidx, kind="stable")
        q, s = qidx[order], score[order]
    else:
        if ties is not TiePolicy.INPUT_ORDER:
            by_score = pl.DataFrame({"q": qidx, "s": score}).with_row_index("i")
            by_score = by_score.sort(["q", "s"], descending=[False, True])
            order = by_score.get_column("i").to_numpy().astype(np.int64)
        else:
            grouped = np.arange(n, dtype=np.int64)
            if not contiguous:
                by_query = pl.DataFrame({"q": qidx}).with_row_index("i").sort("q", maintain_order=True)
                grouped = by_query.get_column("i").to_numpy().astype(np.int64)
            by_score = pl.DataFrame({"q": qidx[grouped], "s": score[grouped]}).with_row_index("i")
            by_score = by_score.sort(["q", "s"], descending=[False, True], maintain_order=True)
            order = grouped[by_score.get_column("i").to_numpy()]
        q, s = by_score.get_column("q").to_numpy(), by_score.get_column("s").to_numpy()
    if ties is TiePolicy.INPUT_ORDER:
        return order, q, s  # (``average`` orders ties by doc id too, for a deterministic layout)
    tied_with_next = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    if not tied_with_next.any():
        return order, q, s
    in_group = np.zeros(n, dtype=bool)
    in_group[1:] |= tied_with_next
    in_group[:-1] |= tied_with_next
    group = np.cumsum(np.concatenate(([True], ~tied_with_next)))
    rows = np.flatnonzero(in_group)
    docs = doc_ids.gather(order[rows])  # integer ids are ordered by their decimal text, as string ids are
    tied = pl.DataFrame({"g": group[rows], "num": docs.cast(pl.Int64, strict=False), "doc": docs.cast(pl.String)})
    keys = ["g", "num", "doc"] if ties is TiePolicy.DOCNO_DESC_NUMERIC else ["g", "doc"]
    descending = [False] + [ties is not TiePolicy.DOCNO_ASC] * (len(keys) - 1)
    tied = tied.with_row_index("pos").sort(keys, descending=descending, nulls_last=True)
    within = tied.get_column("pos").to_numpy()
    order[rows] = order[rows][within]
    return order, q, s  # reordering inside groups of equal (query, score) leaves q and s as they are


def _by_text(ids: pl.Series) -> pl.Series:
    """Distinct ids in the byte order of their text (integer ids as their decimal text: 10 before 9)."""
    ids = ids.unique()
    return ids.sort() if ids.dtype == pl.String else ids.gather(ids.cast(pl.String).arg_sort())


def _same_id_types(qrels: Table, run: Table) -> tuple[Table, Table]:
    """Both tables with the same id types: integer ids on one side and text on the other become text."""
    if all(qrels.frame.schema[c] == run.frame.schema[c] for c in (QID, DOCID)):
        return qrels, run
    return qrels.with_text_ids(), run.with_text_ids()


def _text(ids: pl.Series) -> tuple[str, ...]:
    return tuple(ids.cast(pl.String).to_list())


def _grades_of(ranked: pl.DataFrame, judged: pl.DataFrame, num_queries: int) -> pl.Series:
    """The judged grade of every ranked row (null when unjudged), by (query index, doc id). Integer doc ids are
    joined on one int64 key, qidx · span + (doc − lowest), when it fits: one hash key instead of two."""
    docs, ranked_docs = judged.get_column(DOCID), ranked.get_column(DOCID)
    if docs.dtype == pl.Int64 and judged.height and ranked.height:
        lowest = min(int(docs.min()), int(ranked_docs.min()))  # type: ignore[arg-type]
        span = max(int(docs.max()), int(ranked_docs.max())) - lowest + 1  # type: ignore[arg-type]
        if span * max(num_queries, 1) < 2**62:
            key = pl.col("qidx") * span + (pl.col(DOCID) - lowest)
            grades = judged.select(key.alias("key"), pl.col(VALUE).alias("grade"))
            return ranked.select(key.alias("key")).join(grades, on="key", how="left", maintain_order="left")["grade"]
    grades = judged.select("qidx", DOCID, pl.col(VALUE).alias("grade"))
    return ranked.select("qidx", DOCID).join(grades, on=["qidx", DOCID], how="left", maintain_order="left")["grade"]


def align(qrels: Table, run: Table, policies: Policies) -> Aligned:
    """Build the :class:`Aligned` form for the queries chosen by ``policies.queries``.

    Ids are matched in their own type (integers as integers, with no per-row text); query order and every id
    reported are the ids' text. Raises :class:`InputError` when no query is left to evaluate (e.g. run and qrels
    share no query).
    """
    qrels, run = _same_id_types(qrels, run)
    run_q = _by_text(run.frame.get_column(QID))
    qrels_q = _by_text(qrels.frame.get_column(QID))
    run_in_qrels = run_q.is_in(qrels_q.implode())
    qrels_in_run = qrels_q.is_in(run_q.implode())
    run_only = _text(run_q.filter(~run_in_qrels))
    qrels_only = _text(qrels_q.filter(~qrels_in_run))
    no_relevant: tuple[str, ...] = ()
    scored_empty = qrels_only if policies.queries is QuerySet.QRELS else ()
    if policies.queries is QuerySet.QRELS:
        evaluated = qrels_q
    elif policies.queries is QuerySet.RUN:
        evaluated = run_q
    elif policies.queries in (QuerySet.RELEVANT, QuerySet.COMMON_RELEVANT):
        evaluated = _by_text(qrels.frame.filter(pl.col(VALUE) >= policies.rel_level).get_column(QID))
        no_relevant = _text(qrels_q.filter(~qrels_q.is_in(evaluated.implode())))
        if policies.queries is QuerySet.COMMON_RELEVANT:
            missing = set(qrels_only)
            no_relevant = tuple(q for q in no_relevant if q not in missing)
            evaluated = evaluated.filter(evaluated.is_in(run_q.implode()))
        else:
            scored_empty = _text(evaluated.filter(~evaluated.is_in(run_q.implode())))
    else:
        evaluated = run_q.filter(run_in_qrels)
    if evaluated.len() == 0 and policies.queries in (QuerySet.RELEVANT, QuerySet.COMMON_RELEVANT):
        raise InputError(f"{qrels.origin.name}: no query has a relevant document (grade >= {policies.rel_level})")
    if evaluated.len() == 0 and qrels.frame.height > 0:  # empty qrels reach here only when a dialect accepts them
        raise InputError(
            f"{run.origin.name} and {qrels.origin.name} have no query in common "
            f"(run has {run_q.len()} queries, e.g. {_text(run_q[:1])[0]!r}; "
            f"qrels has {qrels_q.len()}, e.g. {_text(qrels_q[:1])[0]!r})"
        )
    num_queries = evaluated.len()
    query_index = pl.DataFrame({QID: evaluated, "qidx": np.arange(num_queries, dtype=np.int64)})
    judged = qrels.frame.join(query_index, on=QID, how="inner", maintain_order="left")
    ranked = run.frame.join(query_index, on=QID, how="inner", maintain_order="left")
    ranked = ranked.with_columns(_grades_of(ranked, judged, num_queries))
    qidx = ranked.get_column("qidx").to_numpy().astype(np.int64)
    score = ranked.get_column(VALUE).to_numpy()
    if policies.scores is ScorePrecision.FLOAT32:
        score = score.astype(np.float32).astype(np.float64)
    order, qidx, score = _rank_order(qidx, score, ranked.get_column(DOCID), policies.ties)
    grade = ranked.get_column("grade").fill_null(UNJUDGED).to_numpy().astype(np.int64)[order]
    offsets = np.zeros(num_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(qidx, minlength=num_queries), out=offsets[1:])
    rank = np.arange(len(qidx), dtype=np.int64) - offsets[qidx] + 1
    truncated = 0
    if policies.depth is not None and len(rank) and rank.max() > policies.depth:
        keep = rank <= policies.depth
        truncated = int(len(keep) - keep.sum())
        qidx, rank, score, grade = qidx[keep], rank[keep], score[keep], grade[keep]
        np.cumsum(np.bincount(qidx, minlength=num_queries), out=offsets[1:])
    tie_group = None
    if policies.ties is TiePolicy.AVERAGE:
        new_group = np.ones(len(qidx), dtype=bool)
        new_group[1:] = (qidx[1:] != qidx[:-1]) | (score[1:] != score[:-1])
        tie_group = np.cumsum(new_group) - 1
    qrel_qidx = judged.get_column("qidx").to_numpy().astype(np.int64)
    by_query = np.argsort(qrel_qidx, kind="stable")
    evaluated_ids = list(_text(evaluated))
    accounting = QueryAccounting(
        evaluated=num_queries,
        run_only=run_only if policies.queries is not QuerySet.RUN else (),
        qrels_only=qrels_only
        if policies.queries in (QuerySet.INTERSECTION, QuerySet.RUN, QuerySet.COMMON_RELEVANT)
        else (),
        scored_empty=scored_empty,
        unjudged_evaluated=run_only if policies.queries is QuerySet.RUN else (),
        truncated_rows=truncated,
        no_relevant=no_relevant,
    )
    return Aligned(
        query_ids=evaluated_ids,
        offsets=offsets,
        qidx=qidx,
        rank=rank,
        score=score,
        grade=grade,
        qrel_qidx=qrel_qidx[by_query],
        qrel_grade=judged.get_column(VALUE).to_numpy().astype(np.int64)[by_query],
        accounting=accounting,
        tie_group=tie_group,
    )
