"""Subtopic (intent) judgments: which documents are relevant to which subtopic of a query, for the intent-aware
measures (α-nDCG, ERR-IA, NRBP, P-IA, AP-IA, subtopic recall; :mod:`rankwise.kernels.intent`).

The TREC Web track's diversity qrels, as ndeval reads them: one judgment per line,
``query_id subtopic doc_id grade``, fields separated by whitespace, ``#`` comment lines and blank lines skipped,
optionally gzip-compressed (the grammar of :mod:`rankwise.io.trec`). The file has the layout of an ordinary qrels
file with the iteration column holding the subtopic, so it is read by its own loader
(:func:`load_subtopic_qrels`, ``--subtopics FILE``) and never mistaken for one: read as ordinary qrels it repeats
each (query, doc) pair once per subtopic, which the ordinary reader refuses.

Grades are integers; a document is relevant to a subtopic when its grade there is at least the measure's ``rel``
(ndeval: any grade above 0). A (query, subtopic, doc) triple given twice is an error naming both lines.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl
else:
    from .lazy import polars as pl

from ..errors import EmptyInputError, InputError
from .fields import parse_fields
from .table import DOCID, QID, ROW, VALUE, Origin, Table, _ids, _values, make_table
from .tabular import CANDIDATES, _dict_value, check_dict_ids, find_column
from .trec import read_bytes

SUBTOPIC = "subtopic"
LAYOUT = "query_id subtopic doc_id grade"
SUBTOPIC_CANDIDATES = ("subtopic", "subtopic_id", "intent", "aspect", "iteration", "iter")
"""Column names a table's subtopic column is found by (case-insensitive), in this order."""


@dataclass(frozen=True)
class SubtopicJudgments:
    """Validated subtopic judgments: columns ``query_id``, ``subtopic``, ``doc_id`` (text) and ``value`` (the
    integer grade), ``row`` (input position); ``origin`` names the source in messages; ``notes``: what reading
    noticed (one line each)."""

    frame: pl.DataFrame
    origin: Origin
    notes: tuple[str, ...] = ()

    def adhoc_qrels(self) -> Table:
        """Ordinary judgments derived from these: each judged (query, doc) with its largest grade over the query's
        subtopics, so a document is relevant to the query when it is relevant to any subtopic (how ndeval counts
        relevant documents for its non-intent-aware MAP)."""
        frame = self.frame.group_by(QID, DOCID, maintain_order=True).agg(pl.col(VALUE).max())
        name = f"{self.origin.name} (each document's largest grade over its subtopics)"
        return dataclasses.replace(make_table(frame, "qrels", Origin(name)),
                                   notes=(f"qrels derived from the subtopic judgments {self.origin.name}: a "
                                          "document's grade is its largest over the query's subtopics",))  # fmt: skip


def load_subtopic_qrels(source: Any, columns: Mapping[str, str] | None = None) -> SubtopicJudgments:
    """Read subtopic judgments (``query_id subtopic doc_id grade``).

    Parameters
    ----------
    source
        A path to a TREC Web track diversity qrels file (plain or gzip), a polars/pandas DataFrame or pyarrow table
        with query, subtopic, document and grade columns (found by name: ``query_id``/``qid``/``topic``,
        ``subtopic``/``intent``/``iteration``, ``doc_id``/``docno``, ``relevance``/``grade``/``judgment``), a dict
        ``{query_id: {subtopic: {doc_id: grade}}}``, or already loaded :class:`SubtopicJudgments`.
    columns
        For a table: the column names, ``{"query_id": ..., "subtopic": ..., "doc_id": ..., "value": ...}`` (any
        subset; the others are found by name).

    Returns
    -------
    SubtopicJudgments
        Ids as text, grades as int64. Bad input raises :class:`rankwise.InputError` naming the file and line (or
        the row): a line without exactly four fields, a grade that is not an integer, a triple given twice.
    """
    if isinstance(source, SubtopicJudgments):
        return source
    if isinstance(source, (str, Path)):
        path = Path(source)
        return parse_subtopic_qrels(read_bytes(path), str(path))
    if isinstance(source, Mapping):
        return _from_dict(source, f"subtopic qrels {type(source).__name__}")
    name = f"subtopic qrels {type(source).__name__}"
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if not isinstance(source, pl.DataFrame):
        if type(source).__module__.split(".")[0] not in ("pandas", "pyarrow"):
            raise InputError(f"cannot read subtopic qrels from {type(source).__name__}: give a path, DataFrame, "
                             "Arrow table or dict {query_id: {subtopic: {doc_id: grade}}}")  # fmt: skip
        from . import foreign_frame

        source = foreign_frame(source, name)
    return _from_frame(source, columns or {}, name)


def parse_subtopic_qrels(raw: bytes, name: str) -> SubtopicJudgments:
    """Parse the bytes of a subtopic qrels file (``name`` names it in errors): every data line has exactly four
    fields; errors name the line."""
    frame, origin = parse_fields(raw, name, (QID, SUBTOPIC, DOCID, VALUE), LAYOUT, "subtopic judgments",
                                 hints={6: " (a run line?)"})  # fmt: skip
    return _validated(frame, origin)


def _from_frame(frame: pl.DataFrame, columns: Mapping[str, str], name: str) -> SubtopicJudgments:
    """A table with named columns (see :func:`load_subtopic_qrels`)."""
    unknown = sorted(set(columns) - {QID, SUBTOPIC, DOCID, VALUE})
    if unknown:
        raise InputError(f"{name}: unknown column role {unknown[0]!r}; give query_id, subtopic, doc_id, value")
    candidates = {QID: CANDIDATES[QID]["qrels"], SUBTOPIC: SUBTOPIC_CANDIDATES, DOCID: CANDIDATES[DOCID]["qrels"],
                  VALUE: CANDIDATES[VALUE]["qrels"]}  # fmt: skip
    picked = []
    for role, names in candidates.items():
        column = columns.get(role) or find_column(frame.columns, names)
        if column is None or column not in frame.columns:
            raise InputError(f"{name}: no {role} column (tried {', '.join(names)}); columns are {frame.columns}")
        picked.append(pl.col(column).alias(role))
    return _validated(frame.select(picked).with_row_index(ROW), Origin(name))


def _from_dict(data: Mapping[Any, Any], name: str) -> SubtopicJudgments:
    """``{query_id: {subtopic: {doc_id: grade}}}``."""
    rows = []
    for qid, subtopics in data.items():
        if not isinstance(subtopics, Mapping):
            raise InputError(f"{name}: query {qid!r} maps to {type(subtopics).__name__}, expected "
                             "{subtopic: {doc_id: grade}}")  # fmt: skip
        for subtopic, docs in subtopics.items():
            if not isinstance(docs, Mapping):
                raise InputError(f"{name}: query {qid!r} subtopic {subtopic!r} maps to {type(docs).__name__}, "
                                 "expected {doc_id: grade}")  # fmt: skip
            rows += [(qid, subtopic, doc, grade) for doc, grade in docs.items()]
    for at, label in ((0, "query"), (1, "subtopic"), (2, "doc")):
        check_dict_ids([r[at] for r in rows], label, name)
    grades = [_dict_value(g, True, f"{name}: query {q!r} subtopic {s!r} doc {d!r}") for q, s, d, g in rows]
    frame = pl.DataFrame({role: pl.Series(role, [str(r[at]) for r in rows], dtype=pl.String)
                          for at, role in enumerate((QID, SUBTOPIC, DOCID))}).with_columns(
        pl.Series(VALUE, grades, dtype=pl.Int64))  # fmt: skip
    return _validated(frame.with_row_index(ROW), Origin(name))


def _validated(frame: pl.DataFrame, origin: Origin) -> SubtopicJudgments:
    """Ids as non-empty text, grades as integers, each (query, subtopic, doc) once; ``frame`` has the four roles and
    ``row``."""
    if frame.height == 0:
        raise EmptyInputError(f"{origin.name}: no subtopic judgments found")
    frame = frame.select(
        *(_ids(frame, column, "qrels", origin).cast(pl.String).alias(column) for column in (QID, SUBTOPIC, DOCID)),
        pl.col(VALUE),
        pl.col(ROW).cast(pl.UInt32),
    )
    for column in (QID, SUBTOPIC, DOCID):
        missing = frame.filter(pl.col(column).is_null() | (pl.col(column).str.len_bytes() == 0)).head(1)
        if missing.height:
            raise InputError(f"{origin.locate(missing.get_column(ROW)[0])}: {column.replace('_', ' ')} is missing")
    frame = _values(frame, "qrels", origin)
    key = pl.struct(QID, SUBTOPIC, DOCID)
    if frame.select(key.n_unique()).item() != frame.height:
        second = frame.sort(ROW).filter(~key.is_first_distinct()).row(0, named=True)
        same = (pl.col(QID) == second[QID]) & (pl.col(SUBTOPIC) == second[SUBTOPIC]) & (pl.col(DOCID) == second[DOCID])
        first = frame.filter(same).sort(ROW).row(0, named=True)
        raise InputError(f"{origin.locate(second[ROW])}: query {second[QID]!r} subtopic {second[SUBTOPIC]!r} doc "
                         f"{second[DOCID]!r} is judged twice (first at {origin.locate(first[ROW])})")  # fmt: skip
    return SubtopicJudgments(frame, origin, _single_subtopic_note(frame, origin))


def _single_subtopic_note(frame: pl.DataFrame, origin: Origin) -> tuple[str, ...]:
    """A note when every query has one subtopic: likely an ordinary qrels file (its iteration column, usually 0,
    read as the subtopic), under which the intent-aware measures reduce to single-intent ones."""
    if frame.group_by(QID).agg(pl.col(SUBTOPIC).n_unique().alias("n")).get_column("n").max() != 1:
        return ()
    return (f"{origin.name}: every query has a single subtopic; is it an ordinary qrels file (its iteration column "
            "read as the subtopic)? The intent-aware measures then reduce to single-intent ones",)  # fmt: skip


__all__ = ["SUBTOPIC", "SubtopicJudgments", "load_subtopic_qrels", "parse_subtopic_qrels"]
