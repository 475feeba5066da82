"""On the driver: the chunks' payloads joined into the inputs and query-group values of the whole evaluation, as the
local engine computes them.

Spark partitions hold queries in no particular order, so the chunks are not consecutive ranges of queries (as
:mod:`rankwise.pipeline.partitioned`'s are). They are joined in any order
(:func:`rankwise.pipeline.partitioned.concatenate_groups`) and then put in the order of the queries' text
(:func:`in_query_order`): per-query values and aggregation inputs by query, the pooled AUC's per-row inputs query by
query, each query's rows in their own order. The aggregates computed from them are then the local engine's, bit for
bit.

Errors are raised in the order a local evaluation meets them: empty qrels, the qrels' first bad row, empty run,
the run's first bad row, then what computing found. A bad row is found again on the driver: every chunk that failed
a check sent the rows its message named, and checking those rows together, in input order and numbered as in the
DataFrame, gives the message the whole DataFrame gives (each check fails first on the earliest failing row, and
each chunk sent its own earliest).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NoReturn

import numpy as np
import polars as pl

from .. import errors
from ..errors import InputError
from ..io.table import DOCID, QID, ROW, VALUE, Kind, Origin, Table
from ..kernels import ROWS_PER_QUERY, AggregationInputs
from ..pipeline.compute import GroupValues, compute_groups
from ..pipeline.load import Inputs, load_or_empty
from ..pipeline.partitioned import concatenate_groups, refuse_no_query
from .executor import Task, read_ipc
from .frames import KEY, MID, ListedRows, Side, empty_frame, row_numbers
from .payload import Array, decode_groups

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

Payload = Mapping[str, Array]


def gather(
    task: Task, payloads: Sequence[Payload], frames: Mapping[str, DataFrame], empty: Mapping[str, Table]
) -> tuple[Inputs, list[GroupValues]]:
    """The evaluation's inputs (what :func:`rankwise.pipeline.result.assemble` reads of them) and query groups.

    ``frames``: the qrels and run DataFrames (to number a bad row, and to list the run's queries when none is
    evaluated); ``empty``: inputs found empty before any job ran, read as data by the dialect."""
    plan = task.plan
    tables = dict(empty)
    kind: Kind
    for kind, side in (("qrels", task.qrels), ("run", task.run)):
        if side is None:
            continue
        if _no_rows(payloads, kind):
            no_rows = empty_frame(frames[kind])
            tables[kind] = load_or_empty(plan.dialect, kind, lambda: side.table(no_rows, Origin(side.origin),  # noqa: B023
                                                                        allow_empty=False))  # fmt: skip
        failed = [p for p in payloads if f"{kind}.error" in p]
        if failed:
            _raise_first_error(side, frames[kind], failed)
    _raise_computing_error(payloads)
    computed = [decode_groups(plan, p) for p in payloads]
    if not computed:  # no rows at all: both inputs empty, read as data
        return Inputs(tables["qrels"], tables["run"]), compute_groups(plan, Inputs(tables["qrels"], tables["run"]),
                                                                      task.catalog, allow_empty=True)  # fmt: skip
    groups = [in_query_order(concatenate_groups([c[g] for c in computed])) for g in range(len(plan.groups))]
    qrels = tables["qrels"] if "qrels" in tables else _judged_table(task.qrels, payloads)
    run = tables["run"] if "run" in tables else Table("run", _no_run_rows(), Origin(task.run.origin))  # type: ignore[union-attr]
    if not groups[0].query_ids:
        run_queries = _run_queries(frames["run"], task.run) if task.run is not None else _no_run_rows()
        refuse_no_query(qrels, run, run_queries, plan)
    return Inputs(qrels, run), groups


def _no_rows(payloads: Sequence[Payload], kind: str) -> bool:
    """Whether the input ``kind`` had no rows: every chunk counted its rows and found none (a task that stopped
    at a query too large to hold counted nothing)."""
    return all(f"{kind}.rows" in p and int(p[f"{kind}.rows"][0]) == 0 for p in payloads)


def _no_run_rows() -> pl.DataFrame:
    return pl.DataFrame(schema={QID: pl.String, DOCID: pl.String, VALUE: pl.Float64, ROW: pl.UInt32})


def _raise_first_error(side: Side, frame: DataFrame, failed: Sequence[Payload]) -> NoReturn:
    """The error of ``side``'s earliest bad row, numbered as in ``frame`` (see module docstring)."""
    kind = side.kind
    candidates = pl.concat([read_ipc(p[f"{kind}.candidates"]) for p in failed]).sort(MID)  # type: ignore[arg-type]
    if candidates.height:
        rows = row_numbers(frame, candidates.get_column(MID).to_numpy())
        side.table(candidates, ListedRows(side.origin, rows=tuple(int(r) for r in rows)))
    raise InputError(str(failed[0][f"{kind}.error"][0]))  # a message that names no row


def _raise_computing_error(payloads: Sequence[Payload]) -> None:
    """The first (in the order of their text) error a chunk met while computing, as its own class."""
    found = sorted(tuple(p["error"]) for p in payloads if "error" in p)  # type: ignore[arg-type]
    if found:
        name, message = found[0]
        error = getattr(errors, str(name), errors.RankwiseError)
        raise error(message)


def in_query_order(group: GroupValues) -> GroupValues:
    """``group`` with its queries in the byte order of their text (the order of a local evaluation): values and
    per-query inputs by query, per-row inputs (:data:`rankwise.kernels.aggregate.ROWS_PER_QUERY`) query by query, and
    the accounting's query lists sorted."""
    ids = pl.Series(QID, group.query_ids, dtype=pl.String)
    order = ids.arg_sort().to_numpy()  # the ids are distinct, so this is rankwise.engine.rowops.in_text_order's order
    text_sorted: Callable[[tuple[str, ...]], tuple[str, ...]] = lambda q: tuple(sorted(q, key=str.encode))  # noqa: E731
    accounting = dataclasses.replace(group.accounting, **{  # type: ignore[arg-type]
        field: text_sorted(getattr(group.accounting, field))
        for field in ("run_only", "qrels_only", "scored_empty", "unjudged_evaluated", "no_relevant")
    })  # fmt: skip
    return dataclasses.replace(
        group,
        query_ids=ids.gather(order).to_list(),
        values=group.values[:, order],
        inputs=tuple(_inputs_in_order(inputs, order) for inputs in group.inputs),
        accounting=accounting,
    )


def _inputs_in_order(inputs: AggregationInputs, order: np.ndarray) -> AggregationInputs:
    """Aggregation inputs with the queries in ``order``; per-row arrays moved query by query."""
    if ROWS_PER_QUERY not in inputs:
        return {key: values[order] for key, values in inputs.items()}
    counts = inputs[ROWS_PER_QUERY].astype(np.int64)
    starts = np.cumsum(counts) - counts
    moved = counts[order]
    rows = np.repeat(starts[order] - (np.cumsum(moved) - moved), moved) + np.arange(int(moved.sum()))
    return {key: values[order] if key in ("values", ROWS_PER_QUERY) else values[rows] for key, values in inputs.items()}


def _judged_table(side: Side | None, payloads: Sequence[Payload]) -> Table:
    """The judged queries' best grades (and the lowest grade) as a qrels table: all that the rating notes and the
    error of an evaluation without a query read of the qrels."""
    queries = [q for p in payloads for q in p.get("judged.queries", [])]
    grades = [np.asarray(p["judged.grades"], dtype=np.int64) for p in payloads if "judged.grades" in p]
    frame = pl.DataFrame({QID: pl.Series(queries, dtype=pl.String)}).with_columns(
        pl.col(QID).alias(DOCID), pl.Series(VALUE, np.concatenate(grades) if grades else [], dtype=pl.Int64)
    ).with_row_index(ROW)  # fmt: skip
    return Table("qrels", frame.select(QID, DOCID, VALUE, pl.col(ROW).cast(pl.UInt32)),
                 Origin(side.origin if side is not None else "qrels"))  # fmt: skip


def _run_queries(frame: DataFrame, side: Side) -> pl.DataFrame:
    """The run's distinct query ids as text (one job; only for the error of an evaluation without a query)."""
    from pyspark.sql import functions as F

    rows = side.select(frame).select(F.col(KEY).cast("string").alias(QID)).distinct().collect()
    return pl.DataFrame({QID: pl.Series([row[QID] for row in rows], dtype=pl.String)})
