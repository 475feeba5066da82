"""The aligned form: every ranking sorted once, grades looked up once, shared by all measures.

Runs become flat arrays in CSR layout: ``offsets[q]:offsets[q+1]`` are the rows of query ``q`` in rank order,
with ``qidx`` (query index per row), ``rank`` (1-based) and ``grade`` per row. Judgments of the evaluated
queries become ``qrel_qidx``/``qrel_grade``. Kernels work on these arrays with vectorised numpy, never a
per-query Python loop.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..errors import InputError
from ..io.scan import ScannedIds
from ..io.table import DOCID, QID, Table
from ..policies import Policies, QuerySet, ScorePrecision, TiePolicy
from .rowops import (
    align_rows,
    group_order,
    id_codes,
    run_starts,
    segment_counts,
    segment_sums,
    text_order,
    text_order_codes,
)

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
    removed_unjudged: int = 0
    """Unjudged run rows removed before scoring (``judged_only``)."""


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
    doc: np.ndarray | None = None
    """Per row: the code of its doc id in ``doc_ids``."""
    qrel_doc: np.ndarray | None = None
    """Per judgment (in the order of ``qrel_qidx``): the code of its doc id in ``doc_ids``."""
    doc_ids: pl.Series | None = None
    """The distinct doc ids ``doc`` codes (run and qrels); read them with :meth:`doc_id_series`, which builds them on
    first use where alignment left them to ``doc_id_source``."""
    doc_id_source: Callable[[], pl.Series] | None = field(default=None, repr=False)
    """Builds ``doc_ids`` (inputs read as codes name their documents only when asked)."""
    training: Any = None
    """The training interactions and catalogue the beyond-accuracy measures read
    (:class:`rankwise.engine.training.Training`; attached after alignment, None without them)."""
    subtopics: Any = None
    """The subtopic judgments the intent-aware measures read (:class:`rankwise.io.subtopics.SubtopicJudgments`;
    attached after alignment, None without them)."""
    samples: Any = None
    """With sampled rankings, the rankings of each query's samples (:class:`rankwise.pipeline.samples.SampledRankings`):
    the expected-exposure measures average each document's exposure over them."""
    _cache: dict = field(default_factory=dict, repr=False)

    def doc_id_series(self) -> pl.Series:
        """The distinct doc ids ``doc`` codes."""
        if self.doc_ids is None and self.doc_id_source is not None:
            self.doc_ids = self.doc_id_source()
        assert self.doc_ids is not None, "aligned without doc ids"
        return self.doc_ids

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    def per_query_sum(self, values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Σ values over each query's run rows (optionally only rows where ``mask``), in row order
        (:func:`.rowops.segment_sums`)."""
        return segment_sums(values, self.offsets, mask)

    def tie_mean(self, values: np.ndarray) -> np.ndarray:
        """Each row's value replaced by the mean over its tie group (identity unless ``ties=average``).

        Summed over ranks, this is the expectation over all orders of the tied documents."""
        if self.tie_group is None:
            return values
        counts = np.bincount(self.tie_group)
        return (np.bincount(self.tie_group, weights=values) / counts)[self.tie_group]

    def memo(self, key: tuple, make: Callable[[], Any]) -> Any:
        """``make()``, made once per key for these queries (arrays several measures share)."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def relevant(self, rel: int) -> np.ndarray:
        """Bool per run row: judged grade >= rel."""
        return self.memo(("relevant", rel), lambda: self.grade >= rel)  # type: ignore[no-any-return]

    def num_relevant(self, rel: int) -> np.ndarray:
        """R per query: judged documents with grade >= rel."""
        def count() -> np.ndarray:
            hits = self.qrel_qidx[self.qrel_grade >= rel]
            return np.bincount(hits, minlength=self.num_queries).astype(np.float64)

        return self.memo(("R", rel), count)  # type: ignore[no-any-return]

    def num_retrieved(self) -> np.ndarray:
        """|L| per query."""
        return np.diff(self.offsets).astype(np.float64)

    def cumulative_within_query(self, flags: np.ndarray) -> np.ndarray:
        """Running count of ``flags`` within each query, inclusive of the row itself
        (:func:`.rowops.segment_counts`)."""
        return segment_counts(flags, self.offsets)


def same_id_types(qrels: Table, run: Table) -> tuple[Table, Table]:
    """Both tables with the same id types: integer ids on one side and text on the other become text."""
    if all(qrels.frame.schema[c] == run.frame.schema[c] for c in (QID, DOCID)):
        return qrels, run
    return qrels.with_text_ids(), run.with_text_ids()


def _text(ids: pl.Series) -> tuple[str, ...]:
    return tuple(ids.cast(pl.String).to_list())


def _tie_order(
    qidx: np.ndarray, score: np.ndarray, doc: np.ndarray, coded: Coded, ties: TiePolicy
) -> tuple[np.ndarray, np.ndarray] | None:
    """Rows ranked by score descending, equal scores in input order, put in doc-id order under ``ties``: the rows
    of every group of equal (query, score) rows and the order to read them in, ``(rows, within)`` (None when no score
    is tied); ``coded`` names the docs of ``doc`` (or orders them by text without naming them). Only the tied rows'
    ids are ranked, once per distinct id."""
    starts = run_starts(qidx, score)
    tied_with_next = ~starts[1:]
    if not tied_with_next.any():
        return None
    in_group = np.zeros(len(qidx), dtype=bool)
    in_group[1:] |= tied_with_next
    in_group[:-1] |= tied_with_next
    rows = np.flatnonzero(in_group)  # whole groups of two or more rows, each begun by a start
    group = np.cumsum(starts[rows]) - 1
    present, local = _distinct(doc[rows])
    if coded.doc_order is not None and ties is not TiePolicy.DOCNO_DESC_NUMERIC:
        rank = _by_text(coded.doc_order(present), ties)  # the scanner orders its ids' bytes: no text is made
    else:
        rank = _tie_rank(ties, coded.doc_text(present))
    within, _, _, _ = group_order(group, int(group[-1]) + 1, None, rank[local])
    return rows, within


def _distinct(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_inverse=True)`` of non-negative codes: through a table over their range where it is
    narrow (no sort), else by numpy."""
    span = int(codes.max()) + 1
    if span > 4 * len(codes):
        return np.unique(codes, return_inverse=True)  # type: ignore[no-any-return]
    seen = np.zeros(span, dtype=bool)
    seen[codes] = True
    present = np.flatnonzero(seen)
    index = np.empty(span, dtype=np.int64)
    index[present] = np.arange(len(present), dtype=np.int64)
    return present, index[codes]


def _tie_rank(ties: TiePolicy, ids: pl.Series | list[str]) -> np.ndarray:
    """Each of the distinct ``ids``' place in the tie order: by text ascending (``docno_asc``), by number descending
    then text descending for non-numbers last (``docno_desc_numeric``), else by text descending (``docno_desc``, and
    ``average``, which lays ties out that way). ``ids``: a series, or text (ASCII, from the scanner: Python's order of
    str is the byte order)."""
    if isinstance(ids, list) and ties is not TiePolicy.DOCNO_DESC_NUMERIC:
        return _by_text(_text_order(ids), ties)
    ids = _series(ids, DOCID)
    if ties is TiePolicy.DOCNO_DESC_NUMERIC:
        text_rank = _ranks(text_order(ids))
        by = pl.DataFrame({"num": ids.cast(pl.String).cast(pl.Int64, strict=False), "text": text_rank})
        return _ranks(by.with_row_index("i").sort(["num", "text"], descending=True, nulls_last=True)["i"].to_numpy())
    return _by_text(text_order(ids), ties)


def _by_text(order: np.ndarray, ties: TiePolicy) -> np.ndarray:
    """Each id's place in the tie order from ``order`` (positions in text order): ascending for ``docno_asc``, else
    descending."""
    rank = _ranks(order)
    return rank if ties is TiePolicy.DOCNO_ASC else -rank


def _series(ids: pl.Series | list[str], name: str) -> pl.Series:
    """Ids as a series (text from the scanner becomes a String series)."""
    return ids if not isinstance(ids, list) else pl.Series(name, ids, dtype=pl.String)


def _ranks(order: np.ndarray) -> np.ndarray:
    """The inverse permutation: ``rank[order[i]] = i``."""
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank


@dataclass(frozen=True)
class _QuerySets:
    """Which distinct query ids (in text order) are in the run, in the qrels, and have a relevant judgment."""

    ids: pl.Series | list[str]
    in_run: np.ndarray
    in_qrels: np.ndarray
    has_relevant: np.ndarray

    def text(self, mask: np.ndarray) -> tuple[str, ...]:
        if isinstance(self.ids, list):
            return tuple(itertools.compress(self.ids, mask.tolist()))
        return _text(self.ids.filter(pl.Series(mask)))


def _evaluated(sets: _QuerySets, policies: Policies) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per ``policies.queries``: (evaluated, scored as empty rankings, left out for having no relevant document),
    each a mask over ``sets.ids``."""
    in_run, in_qrels, has_relevant = sets.in_run, sets.in_qrels, sets.has_relevant
    nothing = np.zeros_like(in_run)
    if policies.queries is QuerySet.QRELS:
        return in_qrels, in_qrels & ~in_run, nothing
    if policies.queries is QuerySet.RUN:
        return in_run, nothing, nothing
    if policies.queries is QuerySet.RELEVANT:
        return has_relevant, has_relevant & ~in_run, in_qrels & ~has_relevant
    if policies.queries is QuerySet.COMMON_RELEVANT:
        return has_relevant & in_run, nothing, in_qrels & ~has_relevant & in_run
    return in_run & in_qrels, nothing, nothing


def align(qrels: Table, run: Table, policies: Policies, *, allow_empty: bool = False) -> Aligned:
    """Build the :class:`Aligned` form for the queries chosen by ``policies.queries``.

    Ids are coded once (:mod:`.rowops`: integers stay integers, no per-row text); query order and every id
    reported are the ids' text. Rows are grouped by query and ordered by score in one pass, groups of tied scores
    then by doc id under the tie policy (:func:`_tie_order`), and grades looked up by doc code within each query
    (:func:`.rowops.align_rows`: one compiled pass).
    Raises
    :class:`InputError` when no query is left to evaluate (e.g. run and qrels share no query), unless
    ``allow_empty`` (one partition of a larger evaluation may hold none).
    """
    coded = code_jointly(qrels, run)
    qrels_query, query_ids = coded.qrels_query, coded.query_ids
    qrels_grade = qrels.values()
    qrels_grade = qrels_grade.astype(np.float64 if qrels_grade.dtype.kind == "f" else np.int64, copy=False)
    sets = _QuerySets(query_ids, *(np.zeros(len(query_ids), dtype=bool) for _ in range(3)))
    ranked = np.bincount(coded.run_query, minlength=len(coded.run_query_at)) > 0
    sets.in_run[coded.run_query_at[ranked]] = True
    sets.in_qrels[qrels_query] = True
    sets.has_relevant[qrels_query[qrels_grade >= policies.rel_level]] = True
    evaluated, scored_empty, no_relevant = _evaluated(sets, policies)
    num_queries = int(evaluated.sum())
    if num_queries == 0 and not allow_empty:
        _refuse_nothing_to_evaluate(qrels, run, policies, sets)
    query_index = np.where(evaluated, np.cumsum(evaluated) - 1, -1)
    score = run.values()
    if policies.scores is ScorePrecision.FLOAT32:
        score = score.astype(np.float32).astype(np.float64)
    judged_qidx = query_index[qrels_query]
    judged = judged_qidx >= 0
    by_doc, judged_doc, judged_offsets = judgments_by_doc(judged_qidx[judged], coded.qrels_doc[judged], num_queries)
    qrel_grade = qrels_grade[judged][by_doc]
    qrel_qidx = np.repeat(np.arange(num_queries, dtype=np.int64), np.diff(judged_offsets))
    real = qrel_grade.dtype.kind == "f"  # real grades are looked up by their position among the judgments
    score, doc, found, qidx, rank, offsets = align_rows(
        coded.run_query, query_index[coded.run_query_at], score, coded.run_doc, judged_offsets, judged_doc,
        np.arange(len(qrel_grade), dtype=np.int64) if real else qrel_grade, -1 if real else UNJUDGED,
    )  # fmt: skip
    if policies.ties is not TiePolicy.INPUT_ORDER:
        tied = _tie_order(qidx, score, doc, coded, policies.ties)
        if tied is not None:
            rows, within = tied
            doc[rows], found[rows] = doc[rows][within], found[rows][within]
    grade = _real_grades(found, qrel_grade) if real else found
    truncated = 0
    if policies.depth is not None and len(rank) and rank.max() > policies.depth:
        keep = rank <= policies.depth
        truncated = int(len(keep) - keep.sum())
        qidx, rank, score, grade, doc = qidx[keep], rank[keep], score[keep], grade[keep], doc[keep]
        np.cumsum(np.bincount(qidx, minlength=num_queries), out=offsets[1:])
    removed = 0
    if policies.judged_only:  # condensed lists: the judged documents keep their order, ranked anew
        keep = (grade != UNJUDGED) & (grade >= 0)
        removed = int(len(keep) - keep.sum())
        qidx, score, grade, doc = qidx[keep], score[keep], grade[keep], doc[keep]
        np.cumsum(np.bincount(qidx, minlength=num_queries), out=offsets[1:])
        rank = np.arange(len(qidx), dtype=np.int64) - offsets[qidx] + 1
    tie_group = None
    if policies.ties is TiePolicy.AVERAGE:
        tie_group = np.cumsum(run_starts(qidx, score)) - 1
    run_only, qrels_only = sets.text(sets.in_run & ~sets.in_qrels), sets.text(sets.in_qrels & ~sets.in_run)
    accounting = QueryAccounting(
        evaluated=num_queries,
        run_only=run_only if policies.queries is not QuerySet.RUN else (),
        qrels_only=qrels_only
        if policies.queries in (QuerySet.INTERSECTION, QuerySet.RUN, QuerySet.COMMON_RELEVANT)
        else (),
        scored_empty=sets.text(scored_empty),
        unjudged_evaluated=run_only if policies.queries is QuerySet.RUN else (),
        truncated_rows=truncated,
        removed_unjudged=removed,
        no_relevant=sets.text(no_relevant),
    )
    return Aligned(
        query_ids=list(sets.text(evaluated)),
        offsets=offsets,
        qidx=qidx,
        rank=rank,
        score=score,
        grade=grade,
        qrel_qidx=qrel_qidx,
        qrel_grade=qrel_grade,
        accounting=accounting,
        tie_group=tie_group,
        doc=doc,
        qrel_doc=judged_doc,
        doc_ids=coded.doc_ids,
        doc_id_source=coded.all_doc_ids,
    )


DocText = Callable[[np.ndarray], "pl.Series | list[str]"]
"""The doc ids of some doc codes (a series, or text)."""


@dataclass(frozen=True)
class Coded:
    """Qrels and run as codes (:func:`code_jointly`): per qrels row its query's position among the distinct query
    ids in text order (``query_ids``), per run row its query's code, which is at ``run_query_at[code]`` in that order
    (the run's own dictionary: no per-row array is made to translate them), and per row its doc's code, equal in both
    tables; the doc ids themselves as a series (``doc_ids``) or built when asked (``all_doc_ids``), and ``doc_text``
    naming some codes."""

    run_query: np.ndarray
    run_query_at: np.ndarray
    qrels_query: np.ndarray
    query_ids: pl.Series | list[str]
    run_doc: np.ndarray
    qrels_doc: np.ndarray
    doc_text: DocText
    doc_ids: pl.Series | None = None
    all_doc_ids: Callable[[], pl.Series] | None = None
    doc_order: Callable[[np.ndarray], np.ndarray] | None = None
    """The positions of some doc codes in their ids' text order, where that is had without making the text."""


@dataclass
class SharedIds:
    """The dictionaries of qrels and run coded together (:func:`code_jointly`), shared by the query ranges of a large
    evaluation (:class:`rankwise.io.table.TableCodes`): query ids in text order, doc ids built once when asked."""

    query_ids: pl.Series
    doc_text: DocText
    all_doc_ids: Callable[[], pl.Series]
    complete = False
    _docs: pl.Series | None = None

    @property
    def text_ids(self) -> bool:
        return self.query_ids.dtype == pl.String and self.series("doc", np.zeros(0, dtype=np.int64)).dtype == pl.String

    def text(self, which: str, positions: np.ndarray | None = None) -> list[str]:
        return self.series(which, positions).cast(pl.String).to_list()  # type: ignore[no-any-return]

    @classmethod
    def of(cls, coded: Coded) -> SharedIds:
        doc_ids = coded.doc_ids  # not ``coded``: its per-row codes are not kept alive by the dictionaries

        def every_doc() -> pl.Series:
            assert doc_ids is not None
            return doc_ids

        return cls(_series(coded.query_ids, QID), coded.doc_text, coded.all_doc_ids or every_doc)

    def window(self, low: int, high: int) -> SharedIds:
        """These dictionaries with the query ids ``low..high-1`` alone, their codes counted from ``low`` (a query
        range's, so that what is sized by the queries is sized by the range's), the doc ids shared."""
        return SharedIds(self.query_ids.slice(low, high - low), self.doc_text, lambda: self.series("doc"))

    def series(self, which: str, positions: np.ndarray | None = None) -> pl.Series:
        if which == "query":
            return self.query_ids if positions is None else self.query_ids.gather(positions)
        if positions is not None and self._docs is None:
            return _series(self.doc_text(positions), DOCID)
        if self._docs is None:
            self._docs = self.all_doc_ids()
        return self._docs if positions is None else self._docs.gather(positions)


def code_jointly(qrels: Table, run: Table, narrow: bool = False) -> Coded:
    """Qrels and run as codes in one pair of dictionaries (:class:`Coded`): from their codes where both hold codes,
    else from their frames (int32 codes where ``narrow`` and they fit)."""
    return _coded(qrels, run) or _coded_frames(qrels, run, narrow)


def _coded_frames(qrels: Table, run: Table, narrow: bool = False) -> Coded:
    """:class:`Coded` from the tables' frames: ids coded by :mod:`.rowops` (integers stay integers, no per-row
    text), query ids ordered by their text."""
    qrels, run = same_id_types(qrels, run)
    (run_query, qrels_query), query_ids = text_order_codes(run.frame.get_column(QID), qrels.frame.get_column(QID),
                                                           narrow=narrow)  # fmt: skip
    (run_doc, qrels_doc), doc_ids = id_codes(run.frame.get_column(DOCID), qrels.frame.get_column(DOCID), narrow=narrow)
    identity = np.arange(len(query_ids), dtype=np.int64)
    return Coded(run_query, identity, qrels_query, query_ids, run_doc, qrels_doc, doc_ids.gather, doc_ids=doc_ids)


def _coded(qrels: Table, run: Table) -> Coded | None:
    """:class:`Coded` from tables held as codes, or None unless both are: one shared dictionary (query ranges,
    :class:`SharedIds`) is read as it is; two scanned files' (:mod:`rankwise.io.scan`) are joined, the qrels' ids
    found in the run's dictionaries (one hash lookup per distinct id), those it lacks coded after the run's."""
    if qrels.codes is None or run.codes is None:
        return None
    run_codes, qrels_codes = run.codes, qrels.codes
    if isinstance(run_codes.ids, SharedIds) and run_codes.ids is qrels_codes.ids:
        shared = run_codes.ids
        identity = np.arange(len(shared.query_ids), dtype=np.int64)
        return Coded(run_codes.query, identity, qrels_codes.query, shared.query_ids, run_codes.doc, qrels_codes.doc,
                     lambda codes: shared.series("doc", codes), all_doc_ids=lambda: shared.series("doc"))  # fmt: skip
    run_ids, qrels_ids = run_codes.ids, qrels_codes.ids
    if not (isinstance(run_ids, ScannedIds) and isinstance(qrels_ids, ScannedIds)):
        return None
    run_query_text = run_ids.text("query")
    joint, qrels_only_queries = _joint_codes(run_ids.codes_of("query", qrels_ids), len(run_query_text))
    query_text = run_query_text + (qrels_ids.text("query", qrels_only_queries) if len(qrels_only_queries) else [])
    order = _text_order(query_text)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    query_ids = [query_text[i] for i in order]
    num_run_docs = run_ids.size("doc")
    joint_doc, qrels_only = _joint_codes(run_ids.codes_of("doc", qrels_ids), num_run_docs)
    run_ids.drop_index()  # the codes are joined: their hash tables (tens of MB for a large run) are not read again
    qrels_ids.drop_index()

    def doc_text(codes: np.ndarray) -> list[str]:
        codes = np.asarray(codes, dtype=np.int64)
        if len(codes) and codes.max() >= num_run_docs:
            every = all_doc_ids()
            return [every[c] for c in codes.tolist()]
        return run_ids.text("doc", codes)

    def all_doc_ids() -> list[str]:
        return run_ids.text("doc") + qrels_ids.text("doc", qrels_only)

    def doc_order(codes: np.ndarray) -> np.ndarray:
        if len(codes) and int(codes.max()) >= num_run_docs:
            return _text_order(doc_text(codes))
        return run_ids.text_order("doc", codes)

    run_query_at = rank[: len(run_query_text)]  # the run's ids come first in the joint dictionary
    return Coded(run_codes.query, run_query_at, rank[joint[qrels_codes.query]], query_ids, run_codes.doc,
                 joint_doc[qrels_codes.doc], doc_text,
                 all_doc_ids=lambda: pl.Series(DOCID, all_doc_ids(), dtype=pl.String), doc_order=doc_order)  # fmt: skip


SORT_IN_PYTHON = 50_000
"""Up to this many ids are put in text order by Python's sort (no polars import); more by polars' (faster)."""


def _text_order(ids: list[str]) -> np.ndarray:
    """The positions of ``ids`` (ASCII text: Python's order of str is the byte order) in text order."""
    if len(ids) > SORT_IN_PYTHON:
        return text_order(pl.Series(ids, dtype=pl.String))
    return np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)


def _joint_codes(in_first: np.ndarray, first_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes in one dictionary of two: ``in_first[c]`` is the code of the second dictionary's id ``c`` in the first
    (of ``first_size`` ids; −1 where absent), and the absent ids are coded after the first's, in their order. Gives
    the joint code of each id of the second, and the second's codes of the absent ids."""
    missing = np.flatnonzero(in_first < 0)
    joint = in_first.copy()
    joint[missing] = first_size + np.arange(len(missing), dtype=np.int64)
    return joint, missing


def _refuse_nothing_to_evaluate(qrels: Table, run: Table, policies: Policies, sets: _QuerySets) -> None:
    """The error for an evaluation left with no query (a dialect that accepts empty qrels gets none: no query
    is evaluated and every mean is undefined)."""
    if policies.queries in (QuerySet.RELEVANT, QuerySet.COMMON_RELEVANT):
        raise InputError(f"{qrels.origin.name}: no query has a relevant document (grade >= {policies.rel_level})")
    if qrels.height > 0:
        ids = _series(sets.ids, QID)
        run_ids, qrels_ids = ids.filter(pl.Series(sets.in_run)), ids.filter(pl.Series(sets.in_qrels))
        raise InputError(
            f"{run.origin.name} and {qrels.origin.name} have no query in common "
            f"(run has {_some(run_ids)}; qrels has {_some(qrels_ids)})"
        )


def _some(ids: pl.Series) -> str:
    """How many queries, with an example: "3 queries, e.g. '7'" (or "no query")."""
    if ids.len() == 0:
        return "no query"
    return f"{ids.len()} {'query' if ids.len() == 1 else 'queries'}, e.g. {_text(ids[:1])[0]!r}"


def _real_grades(found: np.ndarray, qrel_grade: np.ndarray) -> np.ndarray:
    """Each run row's real grade from its judgment's position ``found`` (−1: unjudged), :data:`UNJUDGED` as a float
    where it has none (−2^63, exact in float64: ``grade == UNJUDGED`` and ``grade >= rel`` read the same as for
    integer grades)."""
    return np.where(found >= 0, qrel_grade[np.maximum(found, 0)] if len(qrel_grade) else 0.0, float(UNJUDGED))


def judgments_by_doc(qidx: np.ndarray, doc: np.ndarray, num_queries: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The judgments grouped by query and sorted by doc code within each: (row order, doc codes in that order,
    offsets), the layout :func:`.rowops.lookup` searches."""
    order, _, sorted_doc, offsets = group_order(qidx, num_queries, None, doc)
    return order, sorted_doc, offsets
