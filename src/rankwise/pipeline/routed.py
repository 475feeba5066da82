"""The fast path of :func:`rankwise.pipeline.partitioned.evaluate_in_partitions` for a run of plain TREC text: its
lines moved, unparsed, into one text file per query range, each range then read by the compiled scanner
(:mod:`rankwise.io.scan`) and evaluated as a file of its own.

1. **Count**: the run is read in blocks of whole lines and the compiled ``Router`` (``rankwise.io._trecscan``,
   source ``io/_trecroute.c``) counts its data lines per query id (blank and comment lines are none).
2. **Ranges**: the query ids of run and qrels, in the byte order of their text, are cut into consecutive ranges of
   about ``partition_rows`` run lines, as :func:`rankwise.pipeline.partitioned.query_ranges` cuts them.
3. **Route**: the run is read again and each data line copied, bytes unchanged and in file order, to the text file
   of its range; so are the qrels' lines when the judgments are a TREC file the scanner read whole.
4. **Compute**: each range's files are scanned and evaluated as one evaluation; the ranges' values are joined in
   order (the numbers are the in-memory ones, bit for bit: a query's rows keep their order, and each range holds its
   queries whole).

Nothing is checked while routing: the scanner checks each range's text. Where it finds anything irregular — a
line outside the grammar, a (query, doc) pair given twice, words after the tag (whose note names a line), data that
is not ASCII — or an evaluation of a range raises, this path gives way (None) and the general one reads the file
again, naming the file's own line. It is not taken for gzip or parquet runs, or for judgments whose ids are not
text. The run is read twice (the page cache usually holds it the second time); the routed text takes as much
temporary disk as the run.
"""

from __future__ import annotations

import dataclasses
import mmap
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..errors import InputError
from ..io import blocks, load_qrels
from ..io.native import NATIVE
from ..io.scan import ScannedIds, plain_head, scan_file
from ..io.subtopics import SubtopicJudgments
from ..io.table import DOCID, QID, ROW, VALUE, Origin, Table
from . import partitioned
from .compute import GroupValues
from .groups import GroupSource
from .load import Inputs
from .partitioned import (
    Progress,
    by_partition,
    compute_partitions,
    evaluate_in_partitions,
    query_ranges,
    refuse_no_query,
)
from .plan import Plan


def evaluate_streamed(
    plan: Plan,
    qrels: Any,
    run: str | Path,
    *,
    train: pl.DataFrame | None = None,
    catalog: Any = None,
    subtopics: SubtopicJudgments | None = None,
    features: pl.DataFrame | None = None,
    baseline: Table | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    progress: Progress | None = None,
    item_groups: GroupSource | None = None,
) -> tuple[Inputs, list[GroupValues]]:
    """Inputs and query-group values of the run file ``run`` against ``qrels``, as
    :func:`rankwise.pipeline.load.load_inputs` and :func:`rankwise.pipeline.compute.compute_groups` give them,
    computed range by range: routed (this module) where it can be, else by
    :func:`rankwise.pipeline.partitioned.evaluate_in_partitions`."""
    judgments = load_qrels(qrels, qrels_columns, plan.threshold, grades=plan.grades)
    report = progress or (lambda stage, done, total: None)
    side = Inputs(judgments, judgments, train, subtopics, features, baseline, item_groups)  # qrels, run: per range
    routed = None
    if run_columns is None and blocks.streamable(run) and Path(run).suffix.lower() not in blocks.PARQUET_SUFFIXES:
        routed = evaluate_routed(plan, qrels, judgments, Path(run), side, catalog, partitioned.PARTITION_ROWS, report)
    if routed is None:
        return evaluate_in_partitions(plan, side, run, catalog=catalog, run_columns=run_columns, progress=progress)
    if not routed.groups[0].query_ids:
        refuse_no_query(judgments, routed.run, routed.counts, plan)
    return dataclasses.replace(side, run=routed.run), routed.groups


@dataclasses.dataclass(frozen=True)
class Routed:
    """What routing gave: the run's table (no rows: its name and origin), the query groups' values, and the run's
    data lines per query (``query_id``, ``len``)."""

    run: Table
    groups: list[GroupValues]
    counts: pl.DataFrame


class _Irregular(Exception):
    """A range's text is not what the scanner reads whole: the general path takes the run."""


def evaluate_routed(
    plan: Plan, qrels_source: Any, judgments: Table, run: Path, side: Inputs, catalog: Any, partition_rows: int,
    progress: Progress,
) -> Routed | None:  # fmt: skip
    """The values of ``run`` against ``judgments`` (read from ``qrels_source``) by routing (see the module
    docstring), or None where this path gives way; ranges of about ``partition_rows`` run lines."""
    if NATIVE is None or not run.is_file() or not _plain_file(run):
        return None
    if not _text_ids(judgments):
        return None
    block_bytes = blocks.BLOCK_BYTES
    total = run.stat().st_size
    router = NATIVE.Router()
    run_name = None
    for text, done in _windows(run, block_bytes):
        if router.count(text) != 0:
            return None
        run_name = run_name or _first_tag(text)
        progress("reading", done // 2, total)
    if router.size() == 0:
        return None  # no data line: the general path says so
    counts = _counts(router)
    queries = query_ranges(counts, judgments, partition_rows)
    num_partitions = int(queries.get_column("partition").max() or 0) + 1  # type: ignore[arg-type]
    qrels_path = _routable_qrels(qrels_source, judgments)
    judged = None if qrels_path is not None else by_partition(judgments.frame, queries)
    empty_run = Table("run", _empty("run"), Origin(str(run)), run_name)
    with tempfile.TemporaryDirectory(prefix="rankwise-") as name:
        folder = Path(name)
        _route(router, run, queries, folder / "run", num_partitions, block_bytes,
               lambda done: progress("reading", (total + done) // 2, total))  # fmt: skip
        if qrels_path is not None and not _route_qrels(qrels_path, queries, folder, num_partitions, block_bytes):
            judged = by_partition(judgments.frame, queries)

        def partitions() -> Iterator[tuple[Table, Table]]:
            for p in range(num_partitions):
                qrels = (_scanned(folder / f"qrels-{p}.txt", judgments) if judged is None
                         else dataclasses.replace(judgments, frame=judged.get(p, judgments.frame.clear())))  # fmt: skip
                yield qrels, _scanned(folder / f"run-{p}.txt", empty_run)

        try:
            groups = compute_partitions(plan, partitions(), num_partitions, side, catalog, progress, item_notes=True)
        except (_Irregular, InputError):
            return None
    return Routed(empty_run, groups, counts)


def _text_ids(table: Table) -> bool:
    """Whether both id columns of ``table`` are text (read from its codes where it has them: no frame built)."""
    if table.codes is not None:
        return table.codes.ids.text_ids
    return all(table.frame.schema[column] == pl.String for column in (QID, DOCID))


def _plain_file(path: Path) -> bool:
    """Whether the file at ``path`` begins as text the scanner reads (:func:`rankwise.io.scan.plain_head`)."""
    with path.open("rb") as handle:
        return plain_head(handle.read(4))


def _windows(path: Path, block_bytes: int) -> Iterator[tuple[memoryview, int]]:
    """(window, bytes read so far): the file mapped into memory, in windows of whole lines of about ``block_bytes``
    (the last may end without a line end); each window's pages are given back to the page cache once it is read,
    so that they are not counted as this process's memory."""
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        view = memoryview(mapped)
        try:
            size, start = len(mapped), 0
            while start < size:
                end = min(start + block_bytes, size)
                if end < size:
                    cut = mapped.rfind(b"\n", start, end)
                    end = cut + 1 if cut >= 0 else (mapped.find(b"\n", end) + 1 or size)  # a line past the window
                window = view[start:end]
                try:
                    yield window, end
                finally:
                    window.release()  # the caller's name for it too: the map can then be closed
                if hasattr(mapped, "madvise"):
                    page = start - start % mmap.PAGESIZE
                    mapped.madvise(mmap.MADV_DONTNEED, page, end - page)
                start = end
        finally:
            view.release()


def _first_tag(text: memoryview) -> str | None:
    """The tag (sixth field) of the first data line of ``text``, None when it has none (its first 64 KiB read
    first: most files begin with a data line)."""
    head = bytes(text[: 1 << 16])
    whole = len(head) == len(text)
    tag = _tag_in(head.split(b"\n") if whole else head.split(b"\n")[:-1])
    return tag if tag is not None or whole else _tag_in(bytes(text).split(b"\n"))


def _tag_in(lines: list[bytes]) -> str | None:
    for line in lines:
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            return fields[5].decode("ascii") if len(fields) > 5 else ""
    return None


def _counts(router: Any) -> pl.DataFrame:
    """Each query id the router counted, with its data lines."""
    counts = np.empty(router.size(), dtype=np.int64)
    router.counts(counts)
    return pl.DataFrame({QID: pl.Series(router.ids(), dtype=pl.String), "len": counts})


def _route(router: Any, source: Path, queries: pl.DataFrame, prefix: Path, num_partitions: int, block_bytes: int,
           progress: Callable[[int], None] | None) -> None:  # fmt: skip
    """Copy the data lines of ``source`` (counted by ``router``) into ``{prefix}-{partition}.txt``."""
    ids = pl.DataFrame({QID: pl.Series(router.ids(), dtype=pl.String)})
    partition = ids.join(queries, on=QID, how="left", maintain_order="left").get_column("partition")
    partition_of = np.ascontiguousarray(partition.to_numpy(), dtype=np.int32)
    for text, done in _windows(source, block_bytes):
        for p, lines in enumerate(router.route(text, partition_of, num_partitions)):
            if lines:
                with open(f"{prefix}-{p}.txt", "ab") as out:
                    out.write(lines)
        if progress is not None:
            progress(done)


def _routable_qrels(source: Any, judgments: Table) -> Path | None:
    """The qrels file to route with the run: a TREC file the scanner read whole (its rows as they are in the file),
    else None (the judgments' frame is split instead)."""
    if not isinstance(source, (str, Path)) or judgments.codes is None:
        return None
    return Path(source) if isinstance(judgments.codes.ids, ScannedIds) else None


def _route_qrels(path: Path, queries: pl.DataFrame, folder: Path, num_partitions: int, block_bytes: int) -> bool:
    """Route the qrels file's lines into ``folder/qrels-{partition}.txt``; False (nothing written) where its text
    is not what the router reads (a byte order mark, a query id not ASCII)."""
    assert NATIVE is not None
    router = NATIVE.Router()
    for text, _ in _windows(path, block_bytes):
        if router.count(text) != 0:
            return False
    _route(router, path, queries, folder / "qrels", num_partitions, block_bytes, None)
    return True


def _empty(kind: str) -> pl.DataFrame:
    """The frame of a table with no row."""
    value = pl.Int64 if kind == "qrels" else pl.Float64
    return pl.DataFrame(schema={QID: pl.String, DOCID: pl.String, VALUE: value}).with_row_index(ROW)


def _scanned(path: Path, like: Table) -> Table:
    """The table of one range's text at ``path`` (``like``: the table whose kind, origin, name and notes it takes);
    a range with no line is ``like`` with no row."""
    if not path.exists():
        return dataclasses.replace(like, frame=_empty(like.kind))
    table, _ = scan_file(path, like.kind, Origin(str(path)))
    if table is None or table.notes or table.codes is None:
        raise _Irregular(str(path))
    return Table.from_codes(like.kind, table.codes, like.origin, like.run_name, like.notes)
