"""What every Spark task runs (``mapInArrow`` over the union of rows, partitioned by query): the task reads its
partition's rows (all the rows of its queries: a query is never split), cuts them into chunks of whole queries of
about ``chunk_rows`` rows, and reads, checks and evaluates each chunk with the local engine
(:func:`rankwise.io.tabular.frame_to_table`, :func:`rankwise.pipeline.compute.compute_groups`) — one vectorised
evaluation per chunk, never one Python call per query. The rows need no order: the local engine groups a chunk's rows
by query itself, and each input's rows are read in the order of ``mid`` (:meth:`rankwise.spark.frames.Side.raw`),
which only numbers rows in error messages; where the run's row order is read (``ties=input_order``), the run's rows
are sorted by its order column, or checked for tied ranks (:func:`rankwise.spark.order.in_given_order`). A chunk's
result is one :mod:`payload <rankwise.spark.payload>`: its query groups' values and aggregation inputs, its judged
queries' best grades (for the rating notes), or what went wrong.

Memory: a task holds its partition's rows as Arrow arrays (about 8 bytes a column, 4 columns for numeric values:
``partitions`` sets how many rows that is) and one chunk's evaluation at a time (about 200 bytes a row).

Errors never escape as an executor traceback. A chunk whose rows fail a check reports the check's message and the
rows it named (the driver checks those rows again, numbered in the DataFrame, so the error is the one a local
evaluation gives); a query with more than ``max_query_rows`` rows is reported by its id, found while the partition
is read (the rows held are counted by query each time they have doubled past ``max_query_rows``), not after.
"""

from __future__ import annotations

import dataclasses
import io
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from ..errors import InputError, RankwiseError
from ..io.table import DOCID, QID, VALUE, Origin, Table, empty_table
from ..pipeline.compute import compute_groups
from ..pipeline.groups import GroupSource
from ..pipeline.load import Inputs
from ..pipeline.plan import Plan
from .frames import KEY, InexactValues, Side
from .order import in_given_order
from .payload import Array, encode_groups, pack

PAYLOAD = "payload"
SCHEMA = f"{PAYLOAD} binary"
"""The schema of what the tasks return: one packed payload per chunk."""
INEXACT = "inexact"
"""The payload of a chunk whose integer values could not travel as doubles (see
:class:`rankwise.spark.frames.InexactValues`): the input's kind."""


@dataclass(frozen=True)
class Task:
    """Everything a task needs: the plan, how each input's rows are read (None: an empty input that the dialect
    reads as data), the catalogue (see :func:`rankwise.pipeline.compute.candidate_counts`), the chunk sizes, and
    what makes the evaluation read the run's row order (None: nothing; see :mod:`rankwise.spark.order`)."""

    plan: Plan
    qrels: Side | None
    run: Side | None
    train: Side | None
    catalog: Any
    chunk_rows: int
    max_query_rows: int
    row_order: str | None = None
    item_groups: GroupSource | None = None

    def with_values_as_given(self) -> Task:
        """This task with the qrels' and the run's values in columns of their own type (see
        :class:`rankwise.spark.frames.InexactValues`)."""
        return dataclasses.replace(self, qrels=self.qrels and self.qrels.with_values_as_given(),
                                   run=self.run and self.run.with_values_as_given())  # fmt: skip


def evaluate_partition(batches: Iterable[pa.RecordBatch], task: Task) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function: one payload per chunk of this partition's queries. Spark runs a task per core, so
    the compiled passes of each task take one thread (unless ``RANKWISE_THREADS`` says otherwise)."""
    os.environ.setdefault("RANKWISE_THREADS", "1")
    rows = _partition_rows(batches, task.max_query_rows)
    if rows is None:
        return
    payloads = [_too_large(rows, task)] if isinstance(rows, str) else (
        evaluate_chunk(chunk, task) for chunk in _chunks(rows, task.chunk_rows))  # fmt: skip
    for arrays in payloads:
        yield pa.RecordBatch.from_arrays([pa.array([pack(arrays)], type=pa.binary())], names=[PAYLOAD])


def _partition_rows(batches: Iterable[pa.RecordBatch], max_query_rows: int) -> pl.DataFrame | str | None:
    """The partition's rows (None: it has none); or the id of a query with more than ``max_query_rows`` rows, found
    as soon as the rows held have doubled since they were last counted (see module docstring), or at the end."""
    held: list[pa.RecordBatch] = []
    size, counted = 0, 0
    for batch in batches:
        held.append(batch)
        size += batch.num_rows
        if size > max(max_query_rows, 2 * counted):
            too_large, counted = _too_large_query(held, max_query_rows), size
            if too_large is not None:
                return too_large
    if size > max(max_query_rows, counted):
        too_large = _too_large_query(held, max_query_rows)
        if too_large is not None:
            return too_large
    return pl.DataFrame(pl.from_arrow(pa.Table.from_batches(held), rechunk=False)) if size else None


def _too_large_query(batches: list[pa.RecordBatch], max_query_rows: int) -> str | None:
    """The id (as text) of the query with the most rows in ``batches`` if it has more than ``max_query_rows`` (rows
    without a query id are not a query: the checks name them)."""
    keys = pl.Series(KEY, pa.chunked_array([batch.column(KEY) for batch in batches])).drop_nulls()
    counts = keys.filter(keys != "") if keys.dtype == pl.String else keys
    largest = counts.value_counts(name="rows").sort(["rows", KEY], descending=[True, False]).head(1)
    return str(largest.item(0, KEY)) if largest.height and largest.item(0, "rows") > max_query_rows else None


def _chunks(rows: pl.DataFrame, chunk_rows: int) -> Iterator[pl.DataFrame]:
    """``rows`` in chunks of whole queries, about ``chunk_rows`` rows each (queries spread over the chunks by the
    hash of their id), each in the order of ``rows``."""
    if rows.height <= chunk_rows:
        yield rows
        return
    count = -(-rows.height // chunk_rows)
    chunk_of = (rows.get_column(KEY).hash() % count).to_numpy()
    for chunk in range(count):
        mine = chunk_of == chunk
        if mine.any():
            yield rows.filter(pl.Series(mine))


def _too_large(query: str, task: Task) -> dict[str, Array]:
    message = (
        f"query {query!r} has more than {task.max_query_rows:,} rows (ranked documents, judgments and training "
        "items): a query is evaluated in the memory of one Spark task; give max_query_rows= a larger limit if the "
        "executors' Python workers have the memory (about 200 bytes a row), or cut the run (e.g. its top 1000 per "
        "query) first"
    )
    return {"error": [InputError.__name__, message]}


@dataclass(frozen=True)
class _Recorder(Origin):
    """An origin that remembers which rows an error message named."""

    located: list[int] = dataclasses.field(default_factory=list)

    def locate(self, row: int) -> str:
        self.located.append(row)
        return super().locate(row)


def evaluate_chunk(rows: pl.DataFrame, task: Task) -> dict[str, Array]:
    """One chunk's payload: the row count of each input; then each input's first error and the rows it names, or
    the query groups' values (:func:`rankwise.spark.payload.encode_groups`) and the judged queries' best grades."""
    out: dict[str, Array] = {}
    tables: dict[str, Table] = {}
    raws: dict[str, pl.DataFrame] = {}
    for kind, side in (("qrels", task.qrels), ("run", task.run)):
        if side is None:
            tables[kind] = empty_table(kind, Origin(kind), "")  # type: ignore[arg-type]
            out[f"{kind}.rows"] = np.zeros(1, dtype=np.int64)
            continue
        try:
            raw = side.raw(rows)
        except InexactValues:
            return {INEXACT: [kind]}
        out[f"{kind}.rows"] = np.array([raw.height], dtype=np.int64)
        raws[kind] = raw
        origin = _Recorder(side.origin)
        try:
            tables[kind] = side.table(raw, origin)
        except InputError as exc:
            out[f"{kind}.error"] = [str(exc)]
            out[f"{kind}.candidates"] = _ipc(raw[sorted(set(origin.located))])
    if len(tables) < 2:
        return out
    train = _train(rows, task.train)
    try:
        if task.row_order is not None and task.run is not None:
            tables["run"] = in_given_order(tables["run"], raws["run"], task.run, task.row_order,
                                           task.plan.policies.scores)  # fmt: skip
        inputs = Inputs(tables["qrels"], tables["run"], train, item_groups=task.item_groups)
        groups = compute_groups(task.plan, inputs, task.catalog,
                                allow_empty=True)  # fmt: skip
    except RankwiseError as exc:
        return {**out, "error": [type(exc).__name__, str(exc)]}
    judged = _judged(tables["qrels"])
    return {**out, **encode_groups(groups), "judged.queries": judged.get_column(QID).to_list(),
            "judged.grades": judged.get_column(VALUE).to_numpy()}  # fmt: skip


def _train(rows: pl.DataFrame, side: Side | None) -> pl.DataFrame | None:
    """The chunk's training interactions as :func:`rankwise.io.interactions.load_interactions` gives them."""
    if side is None:
        return None
    raw = side.raw(rows)
    pairs = raw.select(pl.col(side.columns[QID]).cast(pl.String).alias(QID),
                       pl.col(side.columns[DOCID]).cast(pl.String).alias(DOCID))  # fmt: skip
    return pairs.unique(maintain_order=True)


def _judged(qrels: Table) -> pl.DataFrame:
    """Each judged query's best grade, and the lowest grade under its query: what
    :func:`rankwise.pipeline.result.rating_notes` reads of the qrels (query ids as text)."""
    frame = qrels.frame.select(pl.col(QID).cast(pl.String), pl.col(VALUE).cast(pl.Int64))
    best = frame.group_by(QID).agg(pl.col(VALUE).max())
    return pl.concat([best, frame.filter(pl.col(VALUE) == pl.col(VALUE).min()).head(1)])


def _ipc(frame: pl.DataFrame) -> np.ndarray:
    """``frame`` as Arrow IPC bytes (a uint8 array)."""
    buffer = io.BytesIO()
    frame.write_ipc(buffer)
    return np.frombuffer(buffer.getvalue(), dtype=np.uint8)


def read_ipc(data: np.ndarray) -> pl.DataFrame:
    """The frame :func:`_ipc` wrote."""
    return pl.read_ipc(io.BytesIO(np.asarray(data, dtype=np.uint8).tobytes()))
