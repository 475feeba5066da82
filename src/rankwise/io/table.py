"""The one normalised form every input becomes: a :class:`Table` of (query_id, doc_id, value) rows.

Ids are strings (integers become their decimal text; floats are refused, never cast). Values are integer
grades for qrels and float64 scores for runs. Every row keeps its input position (``row``) so the
``input_order`` tie policy and error messages can refer back to the source.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from .lazy import polars as pl

from ..errors import EmptyInputError, InputError
from ..policies import threads
from ..wording import shorten
from .native import NATIVE

Kind = Literal["qrels", "run"]
Grades = Literal["integer", "real"]
"""How qrels values are read: ``integer`` grades (trec_eval's), or ``real`` numbers (e.g. an LLM judge's 0.73)."""
QID, DOCID, VALUE, ROW = "query_id", "doc_id", "value", "row"
VALUE_NAME = {"qrels": "relevance grade", "run": "score"}


@dataclass(frozen=True)
class Origin:
    """Where a table came from, to name it in error messages.

    ``line_of(row)`` maps a row index to a 1-based line number in a text file; without it rows are named
    ``row N`` (0-based, as in the DataFrame the user passed).
    """

    name: str
    line_of: Callable[[int], int] | None = None
    first_row: int = 0
    """Rows of the source before this table's first (a block of a larger source), added to ``row N``."""

    def locate(self, row: int) -> str:
        if self.line_of is not None:
            return f"{self.name}:{self.line_of(row)}"
        return f"{self.name} row {row + self.first_row}"


class IdDictionary(Protocol):
    """What the codes of a coded table index: its query ids and doc ids (``which``: ``"query"`` or ``"doc"``)."""

    @property
    def complete(self) -> bool:
        """Whether every id of the dictionary is in the table's rows (one file scanned), or it is shared by several."""

    @property
    def text_ids(self) -> bool:
        """Whether the ids are text (else Int64 ids, as a DataFrame typed them)."""

    def series(self, which: str, positions: np.ndarray | None = None) -> pl.Series:
        """The ids at ``positions`` (codes), or all of them in code order, in their type (text, or Int64 ids)."""

    def text(self, which: str, positions: np.ndarray | None = None) -> list[str]:
        """The ids at ``positions`` (or all), as text."""


@dataclass(frozen=True)
class TableCodes:
    """A table held as codes: per row, the code of its query id and of its doc id in ``ids``, and its value (int64
    grades, float64 scores); ``rows``: each row's input row (None: row ``i`` is input row ``i``). Made by the
    compiled TREC scanner (:mod:`rankwise.io.scan`, one file's own dictionary) and for the query ranges of a large
    evaluation (:mod:`rankwise.pipeline.partitioned`: qrels and run coded together once)."""

    ids: IdDictionary
    query: np.ndarray
    doc: np.ndarray
    value: np.ndarray
    rows: np.ndarray | None = None

    def frame(self) -> pl.DataFrame:
        """The rows as the columns of :class:`Table`."""
        rows = np.arange(len(self.value)) if self.rows is None else self.rows
        return pl.DataFrame([self.ids.series("query", self.query).alias(QID),
                             self.ids.series("doc", self.doc).alias(DOCID),
                             pl.Series(ROW, rows, dtype=pl.UInt32), pl.Series(VALUE, self.value)])  # fmt: skip


@dataclass(frozen=True)
class Table:
    """Validated judgments or run: columns query_id, doc_id, value, row (input position).

    Ids are text (String), or Int64 when the source typed the whole column as integers (DataFrames, Arrow,
    parquet): integer ids stay integers, so large tables are never turned into per-row strings; wherever the order
    or the spelling of an id matters (doc-id tie order, output) its decimal text is used, so results do not depend
    on the id type. ``notes``: what the reader accepted but did not use (one line each, naming the file), e.g. run
    lines with fields after the tag, which trec_eval ignores.

    A table read by the compiled TREC scanner (:meth:`from_codes`) holds its rows as :attr:`codes`, and builds
    ``frame`` from them only when something asks for it; the engine reads the codes. ``dataclasses.replace`` gives a
    table of its frame alone (the codes describe the rows they were read from)."""

    kind: Kind
    frame: pl.DataFrame
    origin: Origin
    run_name: str | None = None
    notes: tuple[str, ...] = ()
    codes: TableCodes | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def from_codes(cls, kind: Kind, codes: TableCodes, origin: Origin, run_name: str | None = None,
                   notes: tuple[str, ...] = ()) -> Table:  # fmt: skip
        """A table of ``codes``, its frame built on first use."""
        table = object.__new__(cls)
        for name, value in (("kind", kind), ("origin", origin), ("run_name", run_name), ("notes", notes),
                            ("codes", codes)):  # fmt: skip
            object.__setattr__(table, name, value)
        return table

    def __getattr__(self, name: str) -> Any:
        if name != "frame" or self.__dict__.get("codes") is None:
            raise AttributeError(name)
        frame = self.codes.frame()  # type: ignore[union-attr]
        object.__setattr__(self, "frame", frame)
        return frame

    @property
    def height(self) -> int:
        """The number of rows (without building the frame of a coded table)."""
        return len(self.codes.value) if self.codes is not None else self.frame.height

    def values(self) -> np.ndarray:
        """The value column (grades or scores) as a numpy array."""
        return self.codes.value if self.codes is not None else Chunks.of(self.frame.get_column(VALUE)).whole()

    def value_chunks(self) -> Chunks:
        """The value column as :class:`Chunks`: views of a frame's chunks (no copy), or the coded values."""
        if self.codes is not None:
            return Chunks((self.codes.value,))
        return Chunks.of(self.frame.get_column(VALUE))

    def distinct_query_ids(self) -> set[str]:
        """The query ids of the rows, as text."""
        if self.codes is not None:
            ids = self.codes.ids
            return set(ids.text("query", None if ids.complete else np.unique(self.codes.query)))
        return set(self.with_text_ids().frame.get_column(QID).unique().to_list())

    def with_notes(self, notes: tuple[str, ...]) -> Table:
        """This table with ``notes`` (its codes kept)."""
        if self.codes is None:
            return dataclasses.replace(self, notes=notes)
        return Table.from_codes(self.kind, self.codes, self.origin, self.run_name, notes)

    def with_text_ids(self) -> Table:
        """This table with both id columns as text."""
        if self.codes is not None and self.codes.ids.text_ids:
            return self
        if all(self.frame.schema[c] == pl.String for c in (QID, DOCID)):
            return self
        frame = self.frame.with_columns(pl.col(QID).cast(pl.String), pl.col(DOCID).cast(pl.String))
        return dataclasses.replace(self, frame=frame)


def _ids(frame: pl.DataFrame, column: str, kind: Kind, origin: Origin) -> pl.Expr:
    """The id column as String, or as Int64 when it holds integers (UInt64 becomes text: it may not fit)."""
    dtype = frame.schema[column]
    if dtype == pl.String:
        return pl.col(column)
    if dtype.is_integer() and dtype != pl.UInt64:
        return pl.col(column).cast(pl.Int64)
    if dtype.is_integer() or dtype == pl.Categorical or dtype == pl.Enum:
        return pl.col(column).cast(pl.String)
    raise InputError(
        f"{origin.name}: {column} must hold strings or integers, not {dtype} (ids are never cast from floats)"
    )


def _first_row(frame: pl.DataFrame, mask: pl.Expr) -> dict | None:
    """The first row where ``mask`` holds, or None: asked of every row first (an aggregate, no rows copied: a
    filter would copy the frame's columns), the row found only where there is one."""
    if not frame.select(mask.any()).item():
        return None
    hit = frame.filter(mask).head(1)
    return hit.row(0, named=True) if hit.height else None


def _values(
    frame: pl.DataFrame, kind: Kind, origin: Origin, threshold: float | None = None, grades: Grades = "integer"
) -> pl.DataFrame:
    """Cast the value column to Int64 grades / Float64 scores, failing on the first bad value.

    With a ``threshold``, qrels values are ratings: grade 1 when rating >= threshold, else 0. With
    ``grades="real"`` qrels values are finite Float64 grades."""
    what = VALUE_NAME[kind] if threshold is None else "rating"
    dtype = frame.schema[VALUE]
    if kind == "qrels" and grades == "real" and threshold is not None:
        raise InputError(f"{origin.name}: a rating threshold makes binary grades: give threshold or grades='real'")
    target = pl.Int64 if kind == "qrels" and threshold is None and grades == "integer" else pl.Float64
    if dtype == pl.String:
        cast = pl.col(VALUE).str.strip_chars().cast(target, strict=False)
    elif dtype.is_numeric() or dtype == pl.Boolean:
        if target == pl.Int64 and dtype.is_float():
            bad = _first_row(frame, pl.col(VALUE).is_not_null() & (pl.col(VALUE) != pl.col(VALUE).round(0)))
            if bad is not None:
                raise InputError(
                    f"{origin.locate(bad[ROW])}: {what} {bad[VALUE]!r} is not an integer "
                    "(ratings need a relevance threshold: --threshold / threshold=)"
                )
        cast = pl.col(VALUE).cast(target, strict=False)
    else:
        raise InputError(f"{origin.name}: {what} column must be numeric, not {dtype}")
    same = dtype == target  # kept as it is: a new column, or a select, copies every column to align their chunks
    if same:  # the value column last, as where it is made anew
        out = pl.DataFrame([frame.get_column(c) for c in frame.columns if c != VALUE] + [frame.get_column(VALUE)])
    else:
        out = frame.with_columns(cast.alias("_cast"))
    column = VALUE if same else "_cast"
    bad = _first_row(out, pl.col(column).is_null()) if out.get_column(column).null_count() else None
    if bad is not None:
        raw = bad[VALUE]
        expected = "an integer" if target == pl.Int64 else "a number"
        problem = "is missing" if raw is None else f"{shorten(str(raw))!r} is not {expected}"
        if raw is not None and target == pl.Int64 and re.fullmatch(r"\s*[+-]?[0-9]+\s*", str(raw)):
            problem = f"{shorten(str(raw).strip())} is out of range (grades must fit in 64 bits)"
        elif raw is not None and target == pl.Int64 and _is_number(str(raw)):
            problem += " (real-valued grades: grades='real', --grades real; ratings: a threshold)"
        raise InputError(f"{origin.locate(bad[ROW])}: {what} {problem}")
    if not same:
        out = out.drop(VALUE).rename({"_cast": VALUE})
    if kind == "qrels" and threshold is not None:
        return out.with_columns((pl.col(VALUE) >= threshold).cast(pl.Int64))
    if kind == "qrels" and grades == "real":
        bad = _first_row(out, ~pl.col(VALUE).is_finite())
        if bad is not None:
            raise InputError(f"{origin.locate(bad[ROW])}: {what} {bad[VALUE]} for query {bad[QID]!r} doc "
                             f"{bad[DOCID]!r} is not finite")  # fmt: skip
    if kind == "run":
        bad = _first_row(out, ~pl.col(VALUE).is_finite())
        if bad is not None:
            raise InputError(
                f"{origin.locate(bad[ROW])}: score {bad[VALUE]} for query {bad[QID]!r} doc {bad[DOCID]!r} "
                "is not finite (NaN and infinite scores cannot be ranked)"
            )
        # -0.0 and 0.0 are the same score (as in trec_eval's comparison), so make them identical (polars reads
        # ``x + 0.0`` as x: the zero is replaced).
        if out.select((pl.col(VALUE) == 0).any()).item():
            out = out.with_columns(pl.when(pl.col(VALUE) == 0).then(0.0).otherwise(pl.col(VALUE)).alias(VALUE))
    return out


def make_table(
    frame: pl.DataFrame,
    kind: Kind,
    origin: Origin,
    run_name: str | None = None,
    threshold: float | None = None,
    *,
    allow_empty: bool = False,
    grades: Grades = "integer",
) -> Table:
    """Validate and normalise a frame with columns query_id, doc_id, value (and optionally row).

    Raises :class:`InputError` for an empty input, missing ids, bad or non-finite values, and a
    (query, doc) pair given twice — naming the file line or row of each problem. ``threshold`` turns qrels
    ratings into binary grades (rating >= threshold); ``grades="real"`` keeps qrels values as real numbers (finite
    Float64). ``allow_empty``: a frame without rows is checked (column
    types) and returned, not refused (one part of a larger input may hold none).
    """
    if ROW not in frame.columns:
        frame = frame.with_row_index(ROW)
    if frame.height == 0 and not allow_empty:
        raise EmptyInputError(f"{origin.name}: no {'judgments' if kind == 'qrels' else 'ranked documents'} found")
    frame = frame.select(
        _ids(frame, QID, kind, origin).alias(QID),
        _ids(frame, DOCID, kind, origin).alias(DOCID),
        pl.col(VALUE),
        pl.col(ROW).cast(pl.UInt32),
    )
    for column, label in ((QID, "query id"), (DOCID, "doc id")):
        if frame.schema[column] != pl.String and frame.get_column(column).null_count() == 0:
            continue  # integer ids without a null (counted as the column was made): nothing to look for
        missing = pl.col(column).is_null()
        if frame.schema[column] == pl.String:
            missing = missing | (pl.col(column).str.len_bytes() == 0)
        bad = _first_row(frame, missing)
        if bad is not None:
            raise InputError(f"{origin.locate(bad[ROW])}: {label} is missing")
    frame = _values(frame, kind, origin, threshold, grades)
    check_duplicates(frame, kind, origin)
    return Table(kind, frame, origin, run_name)


def check_duplicates(frame: pl.DataFrame, kind: Kind, origin: Origin) -> None:
    """Refuse a (query, doc) pair that occurs twice (trec_eval treats it as fatal too)."""
    if _distinct_integer_pairs(frame):
        return
    key = pl.struct(QID, DOCID)
    if frame.select(key.hash().n_unique()).item() == frame.height:  # distinct hashes: no duplicate pairs
        return
    if frame.select(key.n_unique()).item() == frame.height:  # a hash collision, not a duplicate
        return
    # The earliest row that repeats an earlier one, and that earlier one (not merely the first two rows that
    # occur twice: they may be two different pairs).
    ordered = frame.sort(ROW)
    second = ordered.filter(~key.is_first_distinct()).row(0, named=True)
    same = (pl.col(QID) == second[QID]) & (pl.col(DOCID) == second[DOCID])
    first = ordered.filter(same).row(0, named=True)
    raise InputError(
        f"{origin.locate(second[ROW])}: query {second[QID]!r} doc {second[DOCID]!r} appears twice in the "
        f"{kind} (first at {origin.locate(first[ROW])})"
    )


def _distinct_integer_pairs(frame: pl.DataFrame) -> bool:
    """For integer ids, whether the (query, doc) pairs are distinct: in a narrow range (at most 4 × the rows), by the
    compiled pass of :mod:`rankwise.io.native` (rows grouped by query, a stamp per doc), else counted on one int64
    key (q − q_min) · span + (d − d_min), faster than hashing pairs; False when the ids are not both integers or the
    key would not fit (the caller then hashes the pairs)."""
    if frame.height == 0 or frame.schema[QID] != pl.Int64 or frame.schema[DOCID] != pl.Int64:
        return False
    bounds = frame.select(pl.col(QID).min().alias("q0"), pl.col(QID).max().alias("q1"), pl.col(DOCID).min().alias("d0"),
                          pl.col(DOCID).max().alias("d1")).row(0)  # fmt: skip
    q0, q1, d0, d1 = (int(v) for v in bounds)
    span = d1 - d0 + 1
    if NATIVE is not None and max(q1 - q0 + 1, span) <= 4 * frame.height and span < 2**32:  # narrow: codes as they are
        query, doc = Chunks.of(frame.get_column(QID)).parts, Chunks.of(frame.get_column(DOCID)).parts  # read in place
        return bool(NATIVE.first_repeated_pair(query, q1 - q0 + 1, doc, span, threads(), q0, d0) < 0)
    if (q1 - q0 + 1) * span >= 2**63:
        return False
    key = (pl.col(QID) - q0) * span + (pl.col(DOCID) - d0)
    return bool(frame.select(key.n_unique()).item() == frame.height)


@dataclass(frozen=True)
class Chunks:
    """A numeric column held as the numpy views of its chunks (a frame read from parquet has one per row group),
    for gathering rows part by part without a copy of the whole column."""

    parts: tuple[np.ndarray, ...]

    @classmethod
    def of(cls, series: pl.Series) -> Chunks:
        """The chunks of a numeric ``series`` without nulls as views; other series as one array."""
        if series.n_chunks() <= 1 or series.null_count() or not series.dtype.is_numeric():
            return cls((series.to_numpy(),))
        return cls(tuple(chunk.to_numpy() for chunk in series.get_chunks()))

    def whole(self) -> np.ndarray:
        """The column as one array: its one chunk's view, or the chunks joined into memory numpy owns. (polars'
        ``to_numpy`` joins a chunked column in polars' allocator, which keeps the pages once the array is freed: a
        20M-row column read from parquet's row groups left 160 MB of resident memory behind.)"""
        return self.parts[0] if len(self.parts) == 1 else np.concatenate(self.parts)

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The values at ``rows`` (ascending positions in the whole column), ``column[rows]``: each chunk gathers
        the rows that fall in it."""
        if len(self.parts) == 1:
            return self.parts[0][rows]
        starts = np.cumsum([0, *(len(part) for part in self.parts)])
        bounds = np.searchsorted(rows, starts)
        out = np.empty(len(rows), dtype=self.parts[0].dtype)
        for part, start, low, high in zip(self.parts, starts, bounds, bounds[1:]):
            if low < high:
                np.take(part, rows[low:high] - start, out=out[low:high])
        return out


def empty_table(kind: Kind, origin: Origin, reason: str) -> Table:
    """A table with no rows, for dialects that read empty input as data; ``reason`` becomes its note."""
    frame = pl.DataFrame(
        schema={QID: pl.String, DOCID: pl.String, VALUE: pl.Int64 if kind == "qrels" else pl.Float64, ROW: pl.UInt32}
    )
    return Table(kind, frame, origin, notes=(reason,))


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False
