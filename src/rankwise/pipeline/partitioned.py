"""Evaluation of a run larger than memory: the run file is read in blocks, its rows are partitioned by query onto
disk, and each partition is aligned and computed as a whole evaluation would be; the partitions' values are then
joined.

1. **Spill**: every block (:mod:`rankwise.io.blocks`, validated as the whole file would be) is written to a
   temporary Arrow IPC file, and its rows per query counted (integer ids in a narrow range in one dense array).
2. **Partition**: the queries of run and qrels, in the byte order of their text (the order of results), are cut
   into consecutive ranges of about ``partition_rows`` run rows (a query is never split), and each block's rows
   go to the file of their range (its query's range looked up in a dense array for integer ids in a narrow range,
   else joined). A query's rows keep their order in the file (``ties=input_order``).
3. **Compute**: each range is one evaluation (:func:`rankwise.pipeline.compute.compute_groups`) over its rows and
   its queries' judgments.
4. **Join**: the ranges are consecutive in query order, so their per-query values, notes and aggregation inputs
   concatenate into exactly those of the whole run (:func:`rankwise.kernels.aggregate.concatenate_inputs`): the
   numbers are the in-memory ones, bit for bit.

Peak memory is that of one block or one partition, plus the qrels and the per-query values. Temporary files go
to the system's temporary directory (``TMPDIR``) and are removed at the end.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine import rowops
from ..engine.aligned import QueryAccounting, SharedIds, align, code_jointly
from ..engine.rowops import code_counts, in_text_order, range_rows
from ..io.blocks import Block, run_blocks
from ..io.table import DOCID, QID, ROW, VALUE, Chunks, Origin, Table, TableCodes, check_duplicates
from ..kernels import concatenate_inputs
from .compute import SAMPLED_NOTE, GroupValues, compute_groups
from .groups import item_group_notes
from .load import Inputs
from .plan import Plan

PARTITION_ROWS = 2_000_000
"""Run rows evaluated at a time."""
MOST_RANGES = 16
"""The most query ranges of an evaluation in memory: each range's rows are found by one pass over every row's codes,
so past ``MOST_RANGES × PARTITION_ROWS`` rows the ranges grow with the input (the passes stay linear in it)."""
_SOURCE_ROW = "source_row"
DENSE_MOST = 1 << 24
"""The most ids a dense array of the streamed path spans (128 MB of counts): see :func:`_dense_span`."""

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: called as blocks are read and partitions computed."""


def evaluate_in_partitions(
    plan: Plan,
    side: Inputs,
    run: str | Path,
    *,
    catalog: Any = None,
    run_columns: Mapping[str, str] | None = None,
    partition_rows: int | None = None,
    block_options: Mapping[str, int] | None = None,
    progress: Progress | None = None,
) -> tuple[Inputs, list[GroupValues]]:
    """Inputs and query-group values of ``run`` (a TREC or parquet file) against the judgments ``side.qrels`` with
    the other inputs of ``side`` (its ``run`` unused), as :func:`rankwise.pipeline.load.load_inputs` and
    :func:`compute_groups` give them, computed partition by partition (see the module docstring): ``partition_rows``
    run rows at a time (default :data:`PARTITION_ROWS`); ``block_options``: ``block_bytes``/``block_rows`` for the
    reader."""
    report = progress or (lambda stage, done, total: None)
    with tempfile.TemporaryDirectory(prefix="rankwise-") as folder:
        def blocks() -> Iterator[Block]:
            return run_blocks(run, run_columns, **(block_options or {}))

        spill = _spill(Path(folder), blocks, side.qrels, report)
        judgments = spill.qrels
        queries = query_ranges(spill.counts, judgments, partition_rows or PARTITION_ROWS)
        num_partitions = _route(spill, queries)
        judged = by_partition(judgments.frame, queries)
        partitions = (
            (dataclasses.replace(judgments, frame=judged.get(p, judgments.frame.clear())), spill.partition_table(p))
            for p in range(num_partitions)
        )
        side = dataclasses.replace(side, qrels=judgments, run=judgments)  # qrels and run: per partition
        groups = compute_partitions(plan, partitions, num_partitions, side, catalog, report, item_notes=True)
    empty = spill.empty_run.drop(_SOURCE_ROW).with_row_index(ROW)
    run_table = Table("run", empty, Origin(str(run)), spill.run_name, spill.notes)
    if not groups[0].query_ids:
        refuse_no_query(judgments, run_table, spill.counts, plan)
    return dataclasses.replace(side, run=run_table), groups


def compute_in_partitions(
    plan: Plan, inputs: Inputs, catalog: Any = None, partition_rows: int | None = None
) -> list[GroupValues]:
    """:func:`compute_groups` over consecutive query ranges of about ``partition_rows`` run rows each (default
    :data:`PARTITION_ROWS`), for inputs in memory: the same values, notes and aggregates, with the working memory of
    one range at a time (and its cache-friendlier sizes). Ids are coded once for all ranges
    (:func:`rankwise.engine.aligned.code_jointly`), query ids in text order, so that a range is a range of codes: its
    rows are found as it is computed, keeping their order, a pair of coded tables
    (:class:`rankwise.io.table.TableCodes`) over the shared dictionaries."""
    limit = partition_rows or max(PARTITION_ROWS, -(-inputs.run.height // MOST_RANGES))
    if inputs.run.height <= limit:
        return compute_groups(plan, inputs, catalog)
    qrels, run = inputs.qrels, inputs.run
    coded = code_jointly(qrels, run, narrow=True)  # once, for every range: each range reads its rows' codes
    ids = SharedIds.of(coded)
    identity = np.array_equal(coded.run_query_at, np.arange(len(coded.run_query_at)))
    run_query = coded.run_query if identity else coded.run_query_at[coded.run_query]  # positions in text order
    per_query = code_counts(run_query, len(coded.query_ids))
    codes = [run_query, coded.run_doc, coded.qrels_query, coded.qrels_doc]
    del coded, run_query  # the int64 codes are held by ``codes`` alone: each is freed when it is narrowed
    run_query, run_doc, qrels_query, qrels_doc = _narrow(codes)
    run_before = np.concatenate([[0], np.cumsum(per_query)])  # run rows of the queries before each
    partition_of = run_before[:-1] // limit  # by query, in text order: never decreasing
    num_partitions = int(partition_of.max(initial=0)) + 1
    first_query = np.searchsorted(partition_of, np.arange(num_partitions + 1))
    run_value, qrels_value = run.value_chunks(), qrels.value_chunks()  # no copy of a chunked column

    def part(table: Table, query: np.ndarray, doc: np.ndarray, value: Chunks, before: np.ndarray, p: int,
             window: SharedIds) -> Table:  # fmt: skip
        """The rows of partition ``p``, in their order: those whose query lies in its range (found when the
        partition is computed, so that no order of all rows is held); ``before[q]``: the rows of queries before q;
        ``window``: the dictionaries of the range's queries, whose codes count from its first."""
        low, high = first_query[p], first_query[p + 1]
        rows, query_codes, doc_codes, values = range_rows(query, doc, value, low, high, int(before[high] - before[low]))
        codes = TableCodes(window, query_codes, doc_codes, values, rows=rows)
        return Table.from_codes(table.kind, codes, table.origin, table.run_name, table.notes)

    def pair(p: int) -> tuple[Table, Table]:
        """Partition ``p``'s qrels and run, over one window of the dictionaries (sized by its queries)."""
        window = ids.window(int(first_query[p]), int(first_query[p + 1]))
        return (part(qrels, qrels_query, qrels_doc, qrels_value, qrels_before, p, window),
                part(run, run_query, run_doc, run_value, run_before, p, window))  # fmt: skip

    qrels_before = np.concatenate([[0], np.cumsum(code_counts(qrels_query, len(per_query)))])
    partitions = (pair(p) for p in range(num_partitions))
    groups = compute_partitions(plan, partitions, num_partitions, inputs, catalog, None)
    if not groups[0].query_ids:
        align(qrels, run, plan.groups[0].policies)  # raises the error of an evaluation with no query
    return groups


def _narrow(codes: list[np.ndarray]) -> list[np.ndarray]:
    """The codes as int32 where every one fits (half the memory of int64 while the ranges are computed), else as
    they are: ``codes`` is emptied as they are narrowed, so that each int64 array is freed once its int32 copy is
    made (codes already int32 are kept as they are)."""
    if all(c.dtype == np.int32 for c in codes) or not all(not len(c) or int(c.max()) < 2**31 for c in codes):
        return codes
    narrow = []
    while codes:
        narrow.append(codes.pop(0).astype(np.int32, copy=False))
    return narrow


def compute_partitions(
    plan: Plan, partitions: Iterable[tuple[Table, Table]], num_partitions: int, side: Inputs, catalog: Any,
    progress: Progress | None, *, item_notes: bool = False,
) -> list[GroupValues]:  # fmt: skip
    """Each (qrels, run) partition computed with the other inputs of ``side`` (no partition needs a query), the
    query groups joined in order. ``item_notes``: the run is read range by range only (streamed), so the notes of
    :func:`rankwise.pipeline.groups.item_group_notes` about ``side.item_groups`` come from the ranges' distinct
    items, with the first group's notes."""
    parts = []
    ranked: list[pl.Series] = []
    judged: list[pl.Series] = []
    for p, (qrels, run) in enumerate(partitions):
        inputs = dataclasses.replace(side, qrels=qrels, run=run)
        parts.append(compute_groups(plan, inputs, catalog, allow_empty=True))
        if item_notes and side.item_groups is not None:
            ranked.append(run.frame.get_column(DOCID).cast(pl.String).unique())
            judged.append(qrels.frame.get_column(DOCID).cast(pl.String).unique())
        if progress is not None:
            progress("computing", p + 1, num_partitions)
    groups = [concatenate_groups([part[g] for part in parts]) for g in range(len(plan.groups))]
    if ranked and side.item_groups is not None:
        notes = item_group_notes(side.item_groups, pl.concat(ranked).unique(), pl.concat(judged).unique())
        groups[0] = dataclasses.replace(groups[0], caveats=(*groups[0].caveats, *notes))
    return groups


@dataclasses.dataclass
class _Spill:
    """The blocks written to ``folder``, the rows per query, and what the reader noticed."""

    folder: Path
    source: str
    qrels: Table
    counts: pl.DataFrame
    num_blocks: int
    run_name: str | None
    notes: tuple[str, ...]
    empty_run: pl.DataFrame
    locate: Callable[[int], str]

    def block_file(self, block: int) -> Path:
        return _block_file(self.folder, block)

    def partition_file(self, partition: int, block: int) -> Path:
        return self.folder / f"partition-{partition}-block-{block}.arrow"

    def partition_table(self, partition: int) -> Table:
        """The run rows of one partition, in file order, checked for a (query, doc) pair given in two blocks."""
        files = [self.partition_file(partition, b) for b in range(self.num_blocks)]
        frames = [pl.read_ipc(f) for f in files if f.exists()]
        frame = pl.concat(frames) if frames else self.empty_run
        origin = _SourceOrigin(self.source, find=self.locate, source_rows=frame.get_column(_SOURCE_ROW))
        frame = frame.drop(_SOURCE_ROW).with_row_index(ROW)
        check_duplicates(frame, "run", origin)
        return Table("run", frame, origin, self.run_name)


@dataclasses.dataclass(frozen=True)
class _SourceOrigin(Origin):
    """Names a row of a partition by its place in the run file (``source_rows``: each row's index there)."""

    find: Callable[[int], str] = str
    source_rows: pl.Series = dataclasses.field(default_factory=lambda: pl.Series())

    def locate(self, row: int) -> str:
        return self.find(int(self.source_rows[row]))


def _block_file(folder: Path, block: int) -> Path:
    return folder / f"block-{block}.arrow"


def _spill(folder: Path, blocks: Callable[[], Iterator[Block]], qrels: Table, report: Progress) -> _Spill:
    """Write every block of ``blocks()`` to ``folder`` (ids as the qrels' type, or both as text), counting run rows
    per query; an error in a partition is located by reading the blocks again."""
    counts = _QueryCounts()
    notes: list[str] = []
    run_name, num_blocks, source = None, 0, ""
    empty_run = None
    block: Block
    for block in blocks():
        table = block.table
        if num_blocks == 0:
            source, run_name = table.origin.name, table.run_name
            if any(table.frame.schema[c] != qrels.frame.schema[c] for c in (QID, DOCID)):
                qrels = qrels.with_text_ids()
        if any(table.frame.schema[c] != qrels.frame.schema[c] for c in (QID, DOCID)):
            table = table.with_text_ids()
        source_row = (pl.col(ROW).cast(pl.UInt64) + block.first_row).alias(_SOURCE_ROW)
        frame = table.frame.select(QID, DOCID, VALUE, source_row)
        frame.write_ipc(_block_file(folder, num_blocks))
        counts.add(frame.get_column(QID))
        notes.extend(table.notes)
        empty_run = frame.clear()
        num_blocks += 1
        report("reading", block.done, block.total)
    assert empty_run is not None  # run_blocks raises for a run without rows
    return _Spill(folder, source, qrels, counts.frame(), num_blocks, run_name, tuple(dict.fromkeys(notes)), empty_run,
                  lambda row: _locate(blocks(), source, row))  # fmt: skip


def _locate(blocks: Iterator[Block], source: str, row: int) -> str:
    """Where row ``row`` of the run file is (its line for TREC text): the blocks are read again up to it (only an
    error message needs this)."""
    for block in blocks:
        if row < block.first_row + block.table.frame.height:
            return block.table.origin.locate(row - block.first_row)
    return f"{source} row {row}"


def query_ranges(counts: pl.DataFrame, qrels: Table, partition_rows: int) -> pl.DataFrame:
    """Every query of run and qrels with its partition: consecutive in text order, about ``partition_rows`` run
    rows each (a query is never split)."""
    ids = in_text_order(pl.concat([counts.get_column(QID), _query_ids(qrels)]).unique())
    rows = pl.DataFrame({QID: ids}).join(counts, on=QID, how="left", maintain_order="left").get_column("len")
    per_query = rows.fill_null(0).to_numpy().astype(np.int64)
    before = np.cumsum(per_query) - per_query
    return pl.DataFrame({QID: ids, "partition": before // max(partition_rows, 1)})


def _query_ids(table: Table) -> pl.Series:
    """The query ids of ``table``'s rows in its id type: from the dictionary of a table held as text codes (no frame
    built), else from its frame."""
    if table.codes is not None and table.codes.ids.text_ids:
        return pl.Series(QID, list(table.distinct_query_ids()), dtype=pl.String)
    return table.frame.get_column(QID)


def _dense_span(span: int, count: int) -> bool:
    """Whether Int64 ids spanning ``span`` values, for ``count`` rows or ids, go in a dense array over their range:
    at most :data:`rankwise.engine.rowops.DENSE_SPAN_PER_ROW` values per row (as ids are coded in memory), or 2^20
    whatever the count, and never past :data:`DENSE_MOST`."""
    return span <= min(max(rowops.DENSE_SPAN_PER_ROW * count, 1 << 20), DENSE_MOST)


def _counts_schema() -> dict[str, Any]:
    return {QID: pl.Int64, "len": pl.Int64}


class _QueryCounts:
    """Run rows per query id, block by block: Int64 ids in a narrow range (:func:`_dense_span`) counted in one dense
    array by ``np.bincount``, others (or all, once the range is no longer narrow) by polars' ``group_by``."""

    def __init__(self) -> None:
        self.rows = 0
        self.low = 0
        self.dense: np.ndarray | None = None
        self.frames: list[pl.DataFrame] = []

    def add(self, ids: pl.Series) -> None:
        """Count one block's query ids (no nulls: a table has none)."""
        self.rows += len(ids)
        if not len(ids) or (not self.frames and ids.dtype == pl.Int64 and self._counted_dense(ids)):
            return
        if self.dense is not None:
            self.frames.append(self._dense_frame())
            self.dense = None
        self.frames.append(ids.to_frame().group_by(QID).len().cast({"len": pl.Int64}))

    def _counted_dense(self, ids: pl.Series) -> bool:
        values = Chunks.of(ids).whole()
        low, high = int(values.min()), int(values.max())
        if self.dense is not None:
            low, high = min(low, self.low), max(high, self.low + len(self.dense) - 1)
        span = high - low + 1
        if not _dense_span(span, self.rows):
            return False
        counts = np.bincount(values - low, minlength=span)
        if self.dense is not None:
            counts[self.low - low : self.low - low + len(self.dense)] += self.dense
        self.low, self.dense = low, counts
        return True

    def _dense_frame(self) -> pl.DataFrame:
        assert self.dense is not None
        present = np.flatnonzero(self.dense)
        return pl.DataFrame({QID: present + self.low, "len": self.dense[present]}, schema=_counts_schema())

    def frame(self) -> pl.DataFrame:
        """Columns ``query_id`` and ``len``: each query id read once, with its rows."""
        if not self.frames:
            return self._dense_frame() if self.dense is not None else pl.DataFrame(schema=_counts_schema())
        frames = self.frames + ([self._dense_frame()] if self.dense is not None else [])
        return pl.concat(frames).group_by(QID).agg(pl.col("len").sum())


def _route(spill: _Spill, queries: pl.DataFrame) -> int:
    """Move each block's rows into the files of their partitions; returns the number of partitions."""
    lookup = _partition_lookup(queries)
    for b in range(spill.num_blocks):
        frame = pl.read_ipc(spill.block_file(b))
        for (partition,), rows in _split(frame, queries, lookup).items():
            rows.write_ipc(spill.partition_file(int(partition), b))  # type: ignore[call-overload]
        spill.block_file(b).unlink()
    return int(queries.get_column("partition").to_numpy().max(initial=0)) + 1


def by_partition(frame: pl.DataFrame, queries: pl.DataFrame) -> dict[int, pl.DataFrame]:
    split = _split(frame, queries, _partition_lookup(queries))
    return {int(key[0]): rows for key, rows in split.items()}  # type: ignore[call-overload]


def _partition_lookup(queries: pl.DataFrame) -> tuple[int, np.ndarray] | None:
    """For Int64 query ids in a narrow range (:func:`_dense_span`), each id's partition in a dense array (−1 for an id
    of none), with the first id; else None."""
    ids = queries.get_column(QID)
    if ids.dtype != pl.Int64 or not len(ids) or ids.null_count():
        return None
    low, high = int(ids.min()), int(ids.max())  # type: ignore[arg-type]
    if not _dense_span(high - low + 1, len(ids)):
        return None
    table = np.full(high - low + 1, -1, dtype=np.int32)
    table[ids.to_numpy() - low] = queries.get_column("partition").to_numpy()
    return low, table


def _split(frame: pl.DataFrame, queries: pl.DataFrame,
           lookup: tuple[int, np.ndarray] | None) -> dict[Any, pl.DataFrame]:  # fmt: skip
    """``frame``'s rows by the partition of their query, in their order: looked up in ``lookup``'s dense array
    where every id lies in it, else by a join with ``queries``."""
    if lookup is not None and frame.height and frame.schema[QID] == pl.Int64:
        low, table = lookup
        at = Chunks.of(frame.get_column(QID)).whole() - low
        if at.min() >= 0 and at.max() < len(table) and (partition := table[at]).min() >= 0:
            with_partition = frame.with_columns(pl.Series("partition", partition))
            return with_partition.partition_by("partition", as_dict=True, include_key=False, maintain_order=True)
    with_partition = frame.join(queries, on=QID, how="left", maintain_order="left")
    return with_partition.partition_by("partition", as_dict=True, include_key=False, maintain_order=True)


def concatenate_groups(parts: list[GroupValues]) -> GroupValues:
    """One query group's values over consecutive query ranges, joined in order."""
    first = parts[0]
    joined: dict = {}
    accounting = QueryAccounting(
        evaluated=sum(p.accounting.evaluated for p in parts),
        **{field: tuple(chain.from_iterable(getattr(p.accounting, field) for p in parts))
           for field in ("run_only", "qrels_only", "scored_empty", "unjudged_evaluated", "no_relevant")},
        truncated_rows=sum(p.accounting.truncated_rows for p in parts),
        removed_unjudged=sum(p.accounting.removed_unjudged for p in parts),
    )  # fmt: skip
    return GroupValues(
        group=first.group,
        query_ids=[q for p in parts for q in p.query_ids],
        accounting=accounting,
        measures=first.measures,
        values=np.concatenate([p.values for p in parts], axis=1),
        inputs=tuple(concatenate_inputs([p.inputs[i] for p in parts], joined) for i in range(len(first.measures))),
        caveats=_joined_caveats(parts),
    )


def _joined_caveats(parts: list[GroupValues]) -> tuple[str, ...]:
    """Each part's caveats once, in order; a note on the shape of every query (:data:`SAMPLED_NOTE`) only when
    every part with queries has the same one."""
    caveats = dict.fromkeys(c for p in parts for c in p.caveats)
    with_queries = [set(p.caveats) for p in parts if p.query_ids]
    return tuple(c for c in caveats if not c.startswith(SAMPLED_NOTE) or all(c in own for own in with_queries))


def refuse_no_query(qrels: Table, run: Table, counts: pl.DataFrame, plan: Plan) -> None:
    """The error of an evaluation left with no query, as the in-memory path words it."""
    one_per_query = counts.select(QID, pl.col(QID).alias(DOCID), pl.lit(0.0).alias(VALUE)).with_row_index(ROW)
    align(qrels, dataclasses.replace(run, frame=one_per_query), plan.groups[0].policies)
