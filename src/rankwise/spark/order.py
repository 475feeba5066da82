"""The run's row order on Spark: where an evaluation reads it, it must be given.

A tie policy that breaks ties in row order (``ties=input_order``: the default of cwl_eval, LightGBM, XGBoost,
rs_metrics, Spark MLlib, MS Recommenders, Beta-RecSys and Elliot, or given by the user) ranks tied documents in the
order of the run's rows. Locally every input has that order (a file's lines, a DataFrame's or an Arrow table's rows,
a dict's insertion order). A Spark DataFrame has none: Spark keeps no row order through a shuffle (a
``repartition``, a join, a union), and the partition a row is read from, hence its
``monotonically_increasing_id()``, depends on how the DataFrame was computed, even with one partition. Nothing else
rankwise computes reads the order of the rows: every other tie policy orders ties by doc id or averages over them,
the ideal rankings sort the grades (equal grades are interchangeable), and training interactions are read as sets.

So under ``input_order`` the driver asks for the order (:func:`order_run`):

- ``order_column="pos"``: a run column whose values (numbers, text, dates or times; distinct within each query, never
  null) order each query's rows; ties are then broken in that order, as :func:`rankwise.evaluate` breaks them on the
  rows sorted by that column. The column travels with the run's rows, and each task sorts by it
  (:func:`in_given_order`);
- or a rank column instead of scores (score = −rank): no two rows of a query tie, so no order is read; a task that
  finds two rows of a query at the same rank refuses them;
- otherwise the evaluation is refused, in one line naming the policy's source and how to give the order.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import polars as pl

from ..errors import InputError
from ..io.table import DOCID, QID, ROW, VALUE, Table
from ..pipeline.plan import Plan
from ..policies import ScorePrecision, TiePolicy
from .frames import ORDER, Side, empty_frame

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

HOW = ('a Spark DataFrame has no row order (a repartition, a join or a union reorders it): give order_column= a run '
       'column whose values order each query\'s rows (e.g. order_column="pos")')  # fmt: skip
"""The end of every refusal: why, and how to give the order."""


def reads_row_order(plan: Plan, ties: Any) -> str | None:
    """What makes the evaluation read the run's row order, in words (None: nothing does): ``ties=input_order``
    given by the user (``ties``: as given), or the dialect's default tie policy."""
    in_force = (plan.policies, *(group.policies for group in plan.groups))
    if all(policies.ties is not TiePolicy.INPUT_ORDER for policies in in_force):
        return None
    if ties is not None or plan.dialect is None:
        return "ties=input_order breaks ties in row order"
    return f"dialect {plan.dialect.key} breaks ties in row order (ties=input_order)"


def check_order_column(order_column: Any) -> None:
    """Refuse an ``order_column`` that is not a column name."""
    if order_column is not None and (not isinstance(order_column, str) or not order_column):
        raise InputError(f"order_column must be the name of a run column, not {order_column!r}")


def order_run(side: Side, frame: DataFrame, order_column: str | None, reason: str | None) -> Side:
    """The run's :class:`Side` with the order it is read in: ``order_column`` checked (a column of ``frame`` holding
    numbers, text, dates or times) and, when the row order is read (``reason``), carried; or the one-line refusal of
    a run that gives no order (no order column, scores rather than ranks) where it is read."""
    if order_column is not None:
        schema = empty_frame(frame).schema
        if order_column not in schema:
            raise InputError(f"{side.origin}: order_column {order_column!r} is not a column; columns are "
                             f"{list(schema)}")  # fmt: skip
        dtype = schema[order_column]
        if not (dtype.is_numeric() or dtype.is_temporal() or dtype == pl.String):
            raise InputError(f"{side.origin}: order_column {order_column!r} must hold numbers, text, dates or times, "
                             f"not {dtype}")  # fmt: skip
        return dataclasses.replace(side, order=order_column) if reason is not None else side
    if reason is not None and not side.rank:
        raise InputError(f"{side.origin}: {reason}, and {HOW}, or a rank column instead of scores, or another ties= "
                         "policy")  # fmt: skip
    return side


def in_given_order(table: Table, raw: pl.DataFrame, side: Side, reason: str, scores: ScorePrecision) -> Table:
    """On a task, where the row order is read: the run's rows (``table``, read from ``raw``) sorted by the order
    column, which must order each query's rows; or, for a run given as ranks, the rows as they are once no two rows
    of a query are found at the same rank. Raises a one-line :class:`InputError` naming the earliest query (by the
    text of its id) that breaks the rule."""
    frame = table.frame
    if side.order is None:
        value = pl.col(VALUE).cast(pl.Float32) if scores is ScorePrecision.FLOAT32 else pl.col(VALUE)
        tied = _first(frame.filter(pl.struct(pl.col(QID), value).is_duplicated()), value)
        if tied is not None:
            rank = raw.get_column(side.columns[VALUE])[int(tied[0][ROW])]
            raise InputError(f"{side.origin}: query {tied[0][QID]!r}: docs {tied[0][DOCID]!r} and {tied[1][DOCID]!r} "
                             f"share rank {rank}, and {reason}; {HOW}")  # fmt: skip
        return table
    keyed = frame.with_columns(raw.get_column(ORDER).gather(frame.get_column(ROW)).alias(ORDER))
    missing = _first(keyed.filter(pl.col(ORDER).is_null()), None)
    if missing is not None:
        raise InputError(f"{side.origin}: query {missing[0][QID]!r}: order column {side.order!r} is null for doc "
                         f"{missing[0][DOCID]!r}; its values must order each query's rows")  # fmt: skip
    repeated = _first(keyed.filter(pl.struct(QID, ORDER).is_duplicated()), pl.col(ORDER))
    if repeated is not None:
        first, second = repeated[:2]
        raise InputError(f"{side.origin}: query {first[QID]!r}: order column {side.order!r} has the value "
                         f"{first[ORDER]!r} for docs {first[DOCID]!r} and {second[DOCID]!r}; its values must order "
                         "each query's rows, so they must differ within a query")  # fmt: skip
    return dataclasses.replace(table, frame=keyed.sort(ORDER, maintain_order=True).drop(ORDER))


def _first(rows: pl.DataFrame, key: pl.Expr | None) -> list[dict[str, Any]] | None:
    """The first of ``rows`` by the text of the query and doc ids, with the rows of its query that share its ``key``
    (None: the first alone); None when there are no rows."""
    if not rows.height:
        return None
    ordered = rows.sort(pl.col(QID).cast(pl.String), pl.col(DOCID).cast(pl.String))
    if key is None:
        return ordered.head(1).to_dicts()
    mine = ordered.filter(pl.col(QID) == ordered.item(0, QID))
    keys = mine.select(key.alias("key")).get_column("key")
    return mine.filter(keys == keys[0]).to_dicts()  # NaN equals NaN in polars
