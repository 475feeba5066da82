"""The inputs on the driver: which columns of each Spark DataFrame play query, document and value (found and
checked exactly as :mod:`rankwise.io.tabular` finds and checks them in a local DataFrame), and the one DataFrame of
rows the executors evaluate.

Qrels, run and training interactions travel as one union of rows, as narrow as the values allow (every column costs
in the shuffle and in the Arrow hand-over to Python): ``q`` (query id: the partition key), ``d`` (document id), the
value, and ``mid``, which says both which input a row is from and where it was in it:
``monotonically_increasing_id()`` of the row in its own DataFrame for the run, ``-1 - `` that for the qrels, null for
training interactions (whose order nothing reads). ``mid`` follows the DataFrame's current partitions, which are no
order the user gave (a repartition, a join or a union shuffles them): it numbers a bad row in an error message and
orders nothing that a value depends on. Where the run's row order is read (``ties=input_order``), a run column named
by ``order_column`` travels as ``o`` (see :mod:`rankwise.spark.order`). A value column of integers or
floating-point numbers travels as ``v`` (double), both inputs' in the same column: every such value is a double
exactly, except integers of 2^53 and more, which the executors notice (the evaluation is then run again with
:data:`VALUE_COLUMNS`); any other value column (text, decimals) travels in a column of its own (``rv`` for the run,
``gv`` for the qrels), as given. Ids
keep their type (integer ids travel as ``bigint``) unless the inputs disagree, as the local engine's
:func:`rankwise.engine.aligned.same_id_types` would make them: then that id column travels as text, and executors turn
integer columns back into integers before checking them, so error messages name ids as a local evaluation would.
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
import pyarrow as pa

from ..errors import EmptyInputError, InputError
from ..io.table import DOCID, QID, VALUE, Kind, Origin, Table
from ..io.tabular import CANDIDATES, check_columns, find_column, frame_to_table, pick_column, value_expression

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

RUN, QRELS, TRAIN = 0, 1, 2
KEY, DOC, VALUE_AS_DOUBLE, RUN_VALUE, QRELS_VALUE, MID, ORDER = "q", "d", "v", "rv", "gv", "mid", "o"
VALUE_COLUMNS = {RUN: RUN_VALUE, QRELS: QRELS_VALUE}
"""Each input's own value column, for values that do not travel as ``v``."""
EXACT_INTEGER = 2**53
"""Integers below this in magnitude are doubles exactly."""
_AS_DOUBLE = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.Float32, pl.Float64)
"""Value types that travel as ``v`` (double); ``Int64`` only while every value is below :data:`EXACT_INTEGER`."""
_ROLE_COLUMN = {QID: KEY, DOCID: DOC}
_MID_BITS = 33
"""``monotonically_increasing_id()`` puts the partition index above bit 33 and the record number below."""


class InexactValues(Exception):
    """Raised on an executor when an integer value column that travelled as doubles held an integer of
    :data:`EXACT_INTEGER` or more: the evaluation must be run again with the values as given."""


@dataclass(frozen=True)
class Side:
    """One input DataFrame: what its columns are and how its rows travel.

    ``columns``: role (``query_id``, ``doc_id``, ``value``) → the DataFrame's column; ``given``: the user's
    ``qrels_columns``/``run_columns``, applied again on the executors; ``integer_ids``: whether the query and
    document columns hold integers; ``as_text``: whether each travels as text; ``value_type``: the value column's
    type (polars, as Arrow gives it); ``as_double``: whether the values travel as ``v`` (see module docstring);
    ``rank``: whether a run's value column is a rank (score = −rank); ``order``: the run's column that orders each
    query's rows, travelling as ``o`` (None: the row order is not read, see :mod:`rankwise.spark.order`).
    """

    kind: Kind | str
    code: int
    origin: str
    columns: dict[str, str]
    given: dict[str, str] | None = None
    threshold: float | None = None
    integer_ids: tuple[bool, bool] = (False, False)
    as_text: tuple[bool, bool] = (False, False)
    value_type: Any = None
    as_double: bool = False
    rank: bool = False
    order: str | None = None

    @property
    def value_column(self) -> str | None:
        """The union's column of this input's values (None: training interactions have none)."""
        if self.code not in VALUE_COLUMNS:
            return None
        return VALUE_AS_DOUBLE if self.as_double else VALUE_COLUMNS[self.code]

    def select(self, frame: DataFrame) -> DataFrame:
        """This input's rows in the columns of the union (see module docstring)."""
        from pyspark.sql import functions as F

        picked = [
            column(frame, self.columns[role]).cast("string" if text else "bigint" if integer else "string")
            .alias(_ROLE_COLUMN[role])
            for role, integer, text in zip((QID, DOCID), self.integer_ids, self.as_text)
        ]  # fmt: skip
        if self.value_column is not None:
            value = column(frame, self.columns[VALUE])
            picked.append((value.cast("double") if self.as_double else value).alias(self.value_column))
        if self.order is not None:
            picked.append(column(frame, self.order).alias(ORDER))
        position = F.monotonically_increasing_id()
        mid = {RUN: position, QRELS: -1 - position}.get(self.code, F.lit(None).cast("bigint"))
        return frame.select(*picked, mid.alias(MID))

    def raw(self, rows: pl.DataFrame) -> pl.DataFrame:
        """This input's rows of the union (``rows``) as they were in the DataFrame: the user's column names and
        types, integer ids as integers, in the order of ``mid`` (the row's ``monotonically_increasing_id()``), which
        they keep; with ``o`` when the run carries an order column. Raises :class:`InexactValues` (see there)."""
        mine = _rows_of(rows, self.code)
        restored = [
            (pl.col(_ROLE_COLUMN[role]).cast(pl.Int64) if integer and text else pl.col(_ROLE_COLUMN[role]))
            .alias(self.columns[role])
            for role, integer, text in zip((QID, DOCID), self.integer_ids, self.as_text)
        ]  # fmt: skip
        if self.value_column is not None:
            value = pl.col(self.value_column)
            if self.as_double:
                if self.value_type == pl.Int64 and mine.select((value.abs() >= EXACT_INTEGER).any()).item():
                    raise InexactValues(self.kind)
                value = value.cast(self.value_type)
            restored.append(value.alias(self.columns[VALUE]))
        return mine.select(*restored, pl.col(MID), *([pl.col(ORDER)] if self.order is not None else []))

    def with_values_as_given(self) -> Side:
        """This side with its values in a column of their own type (see :class:`InexactValues`)."""
        return dataclasses.replace(self, as_double=False)

    def table(self, raw: pl.DataFrame, origin: Origin, *, allow_empty: bool = True) -> Table:
        """``raw`` (see :meth:`raw`) read and checked as the local engine reads a DataFrame."""
        frame = raw.drop(MID, ORDER, strict=False)
        return frame_to_table(frame, self.kind, origin, self.given, self.threshold,  # type: ignore[arg-type]
                              allow_empty=allow_empty)  # fmt: skip


def _rows_of(rows: pl.DataFrame, code: int) -> pl.DataFrame:
    """The rows of input ``code`` (see module docstring for how ``mid`` tells them), ``mid`` decoded, in the order
    of ``mid`` (sorted by it unless they came in that order)."""
    mid = pl.col(MID)
    if code == TRAIN:
        return rows.filter(mid.is_null())
    mine = rows.filter(mid >= 0) if code == RUN else rows.filter(mid < 0).with_columns((-1 - mid).alias(MID))
    return mine if mine.get_column(MID).is_sorted() else mine.sort(MID)


def describe(frame: DataFrame, kind: Kind, code: int, columns: Any, threshold: float | None) -> Side:
    """The :class:`Side` of a qrels or run DataFrame, its columns found and their types checked as
    :func:`rankwise.io.tabular.frame_to_table` does, with the same one-line errors (an empty DataFrame with bad
    column types is an empty input, as locally: emptiness is checked before types)."""
    given = check_columns(columns, kind)
    origin = Origin(f"{kind} {type(frame).__name__}")
    schema_only = empty_frame(frame)
    with contextlib.suppress(EmptyInputError):  # raised once the columns are found: they were
        frame_to_table(schema_only, kind, origin, given, threshold)
    picked = {role: pick_column(schema_only.columns, role, kind, given, origin.name) for role in (QID, DOCID)}
    picked[VALUE], expression = value_expression(schema_only, kind, given, origin.name)
    value_type = schema_only.schema[picked[VALUE]]
    rank = not expression.meta.eq(pl.col(picked[VALUE]).alias(VALUE))  # score = -rank
    side = Side(kind, code, origin.name, picked, given, threshold,
                tuple(schema_only.schema[picked[r]].is_integer() for r in (QID, DOCID)),  # type: ignore[arg-type]
                value_type=value_type, as_double=value_type in _AS_DOUBLE, rank=rank)  # fmt: skip
    try:
        side.table(schema_only, origin)
    except InputError:
        if frame.isEmpty():
            side.table(schema_only, origin, allow_empty=False)  # raises EmptyInputError, as for a local frame
        raise
    return side


def describe_train(frame: DataFrame) -> Side:
    """The :class:`Side` of training interactions given as a Spark DataFrame: user and item columns found by name
    as :func:`rankwise.io.interactions.load_interactions` finds them, both read as text."""
    name = f"training interactions {type(frame).__name__}"
    schema_only = empty_frame(frame)
    picked = {}
    for role in (QID, DOCID):
        column = find_column(schema_only.columns, CANDIDATES[role]["qrels"])
        if column is None:
            tried = ", ".join(CANDIDATES[role]["qrels"])
            raise InputError(f"{name}: no {role} column (tried {tried}); columns are {schema_only.columns}")
        dtype = schema_only.schema[column]
        if not (dtype == pl.String or dtype.is_integer()):
            raise InputError(f"{name}: {column} must hold strings or integers, not {dtype}")
        picked[role] = column
    integer_ids = tuple(schema_only.schema[picked[r]].is_integer() for r in (QID, DOCID))
    return Side("train", TRAIN, name, picked, integer_ids=integer_ids)  # type: ignore[arg-type]


def with_common_id_types(sides: list[Side]) -> list[Side]:
    """``sides`` with each id column travelling as text unless it holds integers in every input."""
    text = tuple(not all(side.integer_ids[i] for side in sides) for i in range(2))
    return [dataclasses.replace(side, as_text=(text[0] or side.as_text[0], text[1] or side.as_text[1]))
            for side in sides]  # fmt: skip


def empty_frame(frame: DataFrame) -> pl.DataFrame:
    """A polars frame without rows with ``frame``'s columns and the types Arrow gives them (a type Arrow cannot
    hold becomes Null, which no id or value column may have)."""
    from pyspark.sql.pandas.types import to_arrow_type

    fields = []
    for field in frame.schema.fields:
        try:
            arrow_type = to_arrow_type(field.dataType)
        except Exception:  # pyspark raises its own error classes for unsupported types
            arrow_type = pa.null()
        fields.append(pa.field(field.name, arrow_type))
    return pl.DataFrame(pl.from_arrow(pa.schema(fields).empty_table()))


def row_numbers(frame: DataFrame, mids: np.ndarray) -> np.ndarray:
    """The 0-based positions in ``frame`` (its order when collected) of the rows whose ``mid`` is ``mids``: the rows
    of earlier Spark partitions, counted in one job, plus the record number within the partition."""
    from pyspark.sql import functions as F

    counts = frame.groupBy(F.spark_partition_id().alias("p")).count().collect()
    per_partition = np.zeros(max((row["p"] for row in counts), default=0) + 1, dtype=np.int64)
    for row in counts:
        per_partition[row["p"]] = row["count"]
    before = np.concatenate(([0], np.cumsum(per_partition)))
    mids = np.asarray(mids, dtype=np.int64)
    return before[mids >> _MID_BITS] + (mids & ((1 << _MID_BITS) - 1))


@dataclass(frozen=True)
class ListedRows(Origin):
    """Names row ``i`` of a table by ``rows[i]``, its row in the DataFrame the user gave."""

    rows: tuple[int, ...] = ()

    def locate(self, row: int) -> str:
        return f"{self.name} row {self.rows[row]}"


def column(frame: DataFrame, name: str) -> Column:
    """``frame``'s column ``name``, taken literally (dots and backticks in a name are not paths)."""
    return frame["`" + name.replace("`", "``") + "`"]


def spark_dataframe(value: Any) -> bool:
    """Whether ``value`` is a Spark DataFrame (classic or Spark Connect)."""
    return type(value).__name__ == "DataFrame" and type(value).__module__.startswith("pyspark.")


__all__ = ["ORDER", "QRELS", "RUN", "TRAIN", "InexactValues", "ListedRows", "Side", "column", "describe",
           "describe_train", "empty_frame", "row_numbers", "spark_dataframe", "with_common_id_types"]  # fmt: skip
