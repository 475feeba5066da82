"""A run read in blocks, for runs larger than memory: TREC text (plain or gzip) cut at line ends, parquet by rows.

Each block is parsed and validated by the same readers as a whole file (:func:`rankwise.io.trec.parse_trec`,
:func:`rankwise.io.tabular.frame_to_table`), with its position in the file, so that an error names the file's own
line (TREC) or row (parquet). What one block cannot see — the same (query, doc) pair in two blocks — is checked
where the blocks' rows meet (:mod:`rankwise.pipeline.partitioned`).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    import polars as pl
else:
    from .lazy import polars as pl

from ..errors import EmptyInputError, InputError
from .table import Origin, Table
from .tabular import check_columns, frame_to_table
from .trec import parse_trec, refuse_other_compression

BLOCK_BYTES = 64 << 20
"""Bytes of TREC text parsed at a time."""
BLOCK_ROWS = 4_000_000
"""Rows of a parquet file read at a time."""
PARQUET_SUFFIXES = (".parquet", ".pq")


@dataclass(frozen=True)
class Block:
    """One block of a run: its validated rows (``ROW`` counts from the block's first row), the rows before it, and
    how much of the source is read (``done`` of ``total``, bytes or rows) for progress."""

    table: Table
    first_row: int
    done: int
    total: int


def streamable(source: object) -> bool:
    """Whether ``source`` is a run file this module reads in blocks: TREC text (plain or gzip) or parquet."""
    if not isinstance(source, (str, Path)):
        return False
    suffix = Path(source).suffix.lower()
    return suffix in PARQUET_SUFFIXES or suffix not in (".csv", ".tsv", ".inter")


def run_blocks(
    source: str | Path, columns: Mapping[str, str] | None = None, *, block_bytes: int | None = None,
    block_rows: int | None = None,
) -> Iterator[Block]:  # fmt: skip
    """The run at ``source`` in blocks (see the module docstring); raises :class:`EmptyInputError` when it has no
    row at all. Blocks of ``block_bytes`` (TREC text) or ``block_rows`` (parquet); defaults :data:`BLOCK_BYTES`,
    :data:`BLOCK_ROWS`."""
    columns = check_columns(columns, "run")
    path = Path(source)
    if not path.exists() or path.is_dir():  # a FIFO or a device is read as a stream, as without --stream
        raise InputError(f"{path}: no such file" if not path.exists() else f"{path}: is a directory, not a file")
    blocks = (_parquet_blocks(path, columns, block_rows or BLOCK_ROWS) if path.suffix.lower() in PARQUET_SUFFIXES
              else _trec_blocks(path, block_bytes or BLOCK_BYTES))  # fmt: skip
    empty = True
    for block in blocks:
        empty = False
        yield block
    if empty:
        raise EmptyInputError(f"{path}: no ranked documents found")


def _parquet_blocks(path: Path, columns: Mapping[str, str] | None, block_rows: int) -> Iterator[Block]:
    scan = pl.scan_parquet(path)
    total = _collected(path, lambda: scan.select(pl.len()).collect()).item()
    for start in range(0, total, block_rows):
        frame = _collected(path, lambda: scan.slice(start, block_rows).collect())  # noqa: B023 (called at once)
        table = frame_to_table(frame, "run", Origin(str(path), first_row=start), columns)
        yield Block(table, start, min(start + block_rows, total), total)


def _collected(path: Path, collect: Callable[[], pl.DataFrame]) -> pl.DataFrame:
    """``collect()``, a parquet file polars cannot read (truncated, not parquet) as one line, as without --stream."""
    try:
        return collect()
    except (pl.exceptions.PolarsError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: cannot read ({first})") from None


def _trec_blocks(path: Path, block_bytes: int) -> Iterator[Block]:
    """Blocks of whole lines; a block of only blank and comment lines holds no rows and is skipped."""
    total = path.stat().st_size
    first_row, first_line = 0, 1
    for text, done in line_blocks(path, block_bytes):
        try:
            table = parse_trec(text, "run", str(path), first_line=first_line)
        except EmptyInputError:
            table = None
        first_line += text.count(b"\n")
        if table is not None:
            yield Block(table, first_row, done, total)
            first_row += table.frame.height


def line_blocks(path: Path, block_bytes: int) -> Iterator[tuple[bytes, int]]:
    """(text, compressed bytes read so far): the file's bytes cut after a line end, about ``block_bytes`` each."""
    with path.open("rb") as raw:
        head = raw.peek(4)[:4]  # not read: a FIFO cannot seek back
        seekable = raw.seekable()
        stream: gzip.GzipFile | BinaryIO = gzip.GzipFile(fileobj=raw) if head[:2] == b"\x1f\x8b" else raw
        refuse_other_compression(head, str(path))
        rest, first = b"", True
        while True:
            try:
                chunk = stream.read(block_bytes)
            except (OSError, EOFError, zlib.error) as exc:
                raise InputError(f"{path}: cannot decompress gzip data ({exc})") from None
            if not chunk:
                break
            if first and stream is not raw and chunk[:2] == b"\x1f\x8b":
                raise InputError(f"{path}: gzip data inside gzip data: decompress it once first (gunzip -c {path})")
            first = False
            text = rest + chunk
            end = text.rfind(b"\n") + 1
            if end == 0:  # a line longer than a block: read on
                rest = text
                continue
            rest = text[end:]
            yield text[:end], raw.tell() if seekable else 0
        if rest:
            yield rest, raw.tell() if seekable else 0
