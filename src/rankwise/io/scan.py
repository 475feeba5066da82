"""TREC text read by compiled code straight into codes: the fast path of :func:`rankwise.io.trec.parse_trec`.

The ``rankwise.io._trecscan`` C extension splits each line into fields, gives every distinct query id and doc id a
code (a hash table, ids in order of first appearance) and parses the grade or score, with the grammar of
:mod:`rankwise.io.trec`; the table it gives holds those codes (:class:`~rankwise.io.table.TableCodes`) and builds its
polars frame only when something asks for it. It reads regular input only: data that is not ASCII or holds a NUL
byte, a line with too few fields (or a qrels line with too many), a value outside the grammar (grades
``[+-]?digits`` within 64 bits; scores ``[+-]?(digits[.digits]|.digits)([eE][+-]?digits)``, finite), and a (query,
doc) pair given twice make it give way to the polars readers, which read the same input to the same rows or name the
line of the problem (tests/io/test_scan.py holds both to the same answer). Without the extension (no C compiler at
install, or ``RANKWISE_PURE_NUMPY=1``) every file takes the polars readers.
"""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from .lazy import polars as pl

from ..policies import threads
from .native import NATIVE
from .table import DOCID, QID, Kind, Origin, Table, TableCodes


def scan_file(path: Path, kind: Kind, origin: Origin) -> tuple[Table | None, bool]:
    """:func:`scan_trec` of the file at ``path``, mapped into memory rather than read (no copy of its bytes, and the
    pages are the page cache's). Gives (the table or None, whether the file was scanned): an empty or compressed
    file, or one that begins with a byte order mark, is not (the readers of :mod:`rankwise.io.trec` read it, and may
    scan its bytes); a scanned file that gave None is irregular, for the polars readers alone."""
    try:
        with open(path, "rb") as handle:
            if not plain_head(handle.read(4)):
                return None, False
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                view = memoryview(mapped)
                try:
                    return scan_trec(view, kind, origin), True
                finally:
                    view.release()
    except (OSError, ValueError):
        return None, False  # the readers of rankwise.io.trec name the problem


def plain_head(head: bytes) -> bool:
    """Whether a file's first bytes begin text the scanner reads: two or more, ASCII (not gzip, zstd, ... nor a byte
    order mark)."""
    return len(head) >= 2 and head.isascii()


def scan_trec(raw: bytes | memoryview, kind: Kind, origin: Origin, *, bytes_per_thread: int = 1 << 21) -> Table | None:
    """``raw`` (TREC qrels with integer grades, or a run; no byte order mark) as a coded table, or None where the
    input is not regular (see the module docstring) or the scanner is not built: the polars readers then decide.
    Lines are split over :func:`rankwise.policies.threads` threads, one per ``bytes_per_thread`` bytes at most."""
    if NATIVE is None:
        return None
    coder = NATIVE.Coder()
    fields = 4 if kind == "qrels" else 6
    capacity = len(raw) // (2 * fields - 1) + 64  # a data line takes 2 · fields − 1 bytes or more (pages unused
    query, doc = np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int64)  # stay unallocated)
    value = np.empty(capacity, dtype=np.int64 if kind == "qrels" else np.float64)
    rows, status, _, extra, first_extra, tag = coder.scan(raw, fields, kind == "qrels", query, doc, value, threads(),
                                                          bytes_per_thread)  # fmt: skip
    if status != 0:
        return None
    query, doc, value = query[:rows], doc[:rows], value[:rows]
    if NATIVE.first_repeated_pair((query,), coder.size("query"), (doc,), coder.size("doc"), threads()) >= 0:
        return None
    notes: tuple[str, ...] = ()
    if extra:
        lines_have = "1 line has" if extra == 1 else f"{extra} lines have"
        notes = (f"{origin.name}: {lines_have} fields after the tag (ignored, as trec_eval does); first at line "
                 f"{first_extra}",)  # fmt: skip
    return Table.from_codes(kind, TableCodes(ScannedIds(coder), query, doc, value), origin, tag, notes)


class ScannedIds:
    """The ids of one scanned file (its ``Coder``'s dictionaries: every id is in its rows), as text."""

    complete = True
    text_ids = True

    def __init__(self, coder: Any) -> None:
        self.coder = coder

    def text(self, which: str, positions: Any = None) -> list[str]:
        """The query (``which="query"``) or doc ids, all or at ``positions`` (codes)."""
        if positions is None:
            return self.coder.ids(which)  # type: ignore[no-any-return]
        return self.coder.ids(which, np.ascontiguousarray(positions, dtype=np.int64))  # type: ignore[no-any-return]

    def series(self, which: str, positions: np.ndarray | None = None) -> pl.Series:
        return pl.Series(QID if which == "query" else DOCID, self.text(which, positions), dtype=pl.String)

    def text_order(self, which: str, positions: np.ndarray) -> np.ndarray:
        """The positions of ``positions`` (codes) sorted by the bytes of their ids' text, ties by position (as
        Python sorts the ASCII ids :meth:`text` gives), without making the text."""
        codes = np.ascontiguousarray(positions, dtype=np.int64)
        order = np.empty(len(codes), dtype=np.int64)
        self.coder.order(which, codes, order)
        return order

    def size(self, which: str) -> int:
        return self.coder.size(which)  # type: ignore[no-any-return]

    def drop_index(self) -> None:
        """Free the hash tables of the dictionaries (:meth:`codes_of` builds them again if asked)."""
        self.coder.drop_index()

    def codes_of(self, which: str, other: ScannedIds) -> np.ndarray:
        """For each id of ``other`` (``which``: "query" or "doc"), its code here, −1 where it has none."""
        out = np.empty(other.size(which), dtype=np.int64)
        self.coder.find(which, other.coder, out, threads())
        return out
