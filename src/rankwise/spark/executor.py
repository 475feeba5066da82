"""What every Spark task runs (``mapInArrow`` over the union of rows, partitioned and sorted by query): the rows
of consecutive queries are cut into chunks of about ``chunk_rows`` rows (a query is never split), and each chunk is
read, checked and evaluated by the local engine (:func:`rankwise.io.tabular.frame_to_table`,
:func:`rankwise.pipeline.compute.compute_groups`) — one vectorised evaluation per chunk, never one Python call per
query. A chunk's result is one :mod:`payload <rankwise.spark.payload>`: its query groups' values and aggregation
inputs, its judged queries' best grades (for the rating notes), or what went wrong.

Errors never escape as an executor traceback. A chunk whose rows fail a check reports the check's message and the
rows it named (the driver checks those rows again, numbered in the DataFrame, so the error is the one a local
evaluation gives); a query with more than ``max_query_rows`` rows is reported by its id before its rows are all
held in memory.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from ..errors import InputError, RankwiseError
from ..io.table import DOCID, QID, VALUE, Origin, Table, empty_table
from ..pipeline.compute import compute_groups
from ..pipeline.load import Inputs
from ..pipeline.plan import Plan
from .frames import KEY, Side
from .payload import Array, encode_groups, pack

PAYLOAD = "payload"
SCHEMA = f"{PAYLOAD} binary"
"""The schema of what the tasks return: one packed payload per chunk."""


@dataclass(frozen=True)
class Task:
    """Everything a task needs: the plan, how each input's rows are read (None: an empty input that the dialect
    reads as data), the catalogue (see :func:`rankwise.pipeline.compute.candidate_counts`) and the chunk sizes."""

    plan: Plan
    qrels: Side | None
    run: Side | None
    train: Side | None
    catalog: Any
    chunk_rows: int
    max_query_rows: int


def evaluate_partition(batches: Iterable[pa.RecordBatch], task: Task) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function: one payload per chunk of this partition's queries."""
    for chunk in _chunks(batches, task.chunk_rows, task.max_query_rows):
        arrays = evaluate_chunk(chunk, task) if isinstance(chunk, pl.DataFrame) else _too_large(chunk, task)
        yield pa.RecordBatch.from_arrays([pa.array([pack(arrays)], type=pa.binary())], names=[PAYLOAD])


def _chunks(batches: Iterable[pa.RecordBatch], chunk_rows: int, max_query_rows: int) -> Iterator[pl.DataFrame | str]:
    """The rows (sorted by query) in chunks of whole queries, about ``chunk_rows`` each; for a query with more than
    ``max_query_rows`` rows, its id, and nothing after it."""
    pending: list[pl.DataFrame] = []
    size, limit = 0, chunk_rows
    for batch in batches:
        if batch.num_rows:
            pending.append(pl.DataFrame(pl.from_arrow(batch)))
            size += batch.num_rows
        if size < limit:
            continue
        rows = pl.concat(pending, rechunk=False)
        starts = _query_starts(rows)
        cut = int(starts[-1])
        if cut == 0:  # one query so far: keep reading it, unless it is too large
            if size > max_query_rows:
                yield _key_text(rows, 0)
                return
            pending, limit = [rows], size + chunk_rows
            continue
        yield from _checked(rows.slice(0, cut), starts[:-1], max_query_rows)
        pending, size, limit = [rows.slice(cut)], rows.height - cut, chunk_rows
    if size:
        rows = pl.concat(pending, rechunk=False)
        yield from _checked(rows, _query_starts(rows), max_query_rows)


def _query_starts(rows: pl.DataFrame) -> np.ndarray:
    """The first row of each query in ``rows`` (sorted by query)."""
    keys = rows.get_column(KEY)
    starts = keys.ne_missing(keys.shift(1)).to_numpy().copy()
    starts[0] = True
    return np.flatnonzero(starts)


def _checked(rows: pl.DataFrame, starts: np.ndarray, max_query_rows: int) -> Iterator[pl.DataFrame | str]:
    """``rows``, or the id of its first query with more than ``max_query_rows`` rows."""
    sizes = np.diff(np.append(starts, rows.height))
    too_large = np.flatnonzero(sizes > max_query_rows)
    yield _key_text(rows, int(starts[too_large[0]])) if len(too_large) else rows


def _key_text(rows: pl.DataFrame, row: int) -> str:
    return str(rows.get_column(KEY)[row])


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
    for kind, side in (("qrels", task.qrels), ("run", task.run)):
        if side is None:
            tables[kind] = empty_table(kind, Origin(kind), "")  # type: ignore[arg-type]
            out[f"{kind}.rows"] = np.zeros(1, dtype=np.int64)
            continue
        raw = side.raw(rows)
        out[f"{kind}.rows"] = np.array([raw.height], dtype=np.int64)
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
        groups = compute_groups(task.plan, Inputs(tables["qrels"], tables["run"], train), task.catalog,
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
    return pl.concat([best, frame.sort(VALUE).head(1)])


def _ipc(frame: pl.DataFrame) -> np.ndarray:
    """``frame`` as Arrow IPC bytes (a uint8 array)."""
    buffer = io.BytesIO()
    frame.write_ipc(buffer)
    return np.frombuffer(buffer.getvalue(), dtype=np.uint8)


def read_ipc(data: np.ndarray) -> pl.DataFrame:
    """The frame :func:`_ipc` wrote."""
    return pl.read_ipc(io.BytesIO(np.asarray(data, dtype=np.uint8).tobytes()))
