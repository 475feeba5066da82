"""TREC text formats, read as trec_eval reads them.

- qrels: ``query_id iteration doc_id grade`` (4 columns; integer grade, negative = judged "unjudged").
- run: ``query_id iteration doc_id rank score tag`` (6 columns; the rank column is ignored, as in trec_eval).

Columns are separated by any run of spaces or tabs; lines starting with ``#`` and blank lines are skipped;
``.gz`` files are decompressed. The fast path hands the bytes to polars' CSV reader; when that fails or a
row comes back short, a line-by-line scan finds the first bad line and names it.
"""

from __future__ import annotations

import gzip
import io
import re
from collections.abc import Callable
from pathlib import Path

import polars as pl

from ..errors import InputError
from .table import DOCID, QID, ROW, VALUE, Kind, Origin, Table, make_table

COLUMNS: dict[Kind, tuple[str, ...]] = {
    "qrels": (QID, "iteration", DOCID, VALUE),
    "run": (QID, "iteration", DOCID, "rank", VALUE, "tag"),
}
_LAYOUT = {"qrels": "query_id iteration doc_id grade", "run": "query_id iteration doc_id rank score tag"}
_SPACES = re.compile(rb"[ \t\r\f\v]+")
_EDGES = re.compile(rb"(?m)^ | $")
_BLANK_LINES = re.compile(rb"\n\n+")


def read_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed when it is gzip (by magic number, whatever its name)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InputError(f"{path}: cannot decompress gzip data ({exc})") from None
    return data


def _normalise_whitespace(data: bytes) -> bytes:
    """Make every column separator a single space and strip spaces at line ends."""
    return _EDGES.sub(b"", _SPACES.sub(b" ", data))


def _data_line_numbers(data: bytes) -> list[int]:
    """1-based line numbers of the lines that become rows (all but blank and ``#`` comment lines)."""
    numbers = []
    for i, line in enumerate(data.split(b"\n")):
        stripped = line.strip()
        if stripped and not stripped.startswith(b"#"):
            numbers.append(i + 1)
    return numbers


def _find_bad_line(data: bytes, kind: Kind, name: str) -> InputError:
    """Scan line by line for the first line with the wrong number of columns."""
    expected = len(COLUMNS[kind])
    for number, line in enumerate(data.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) != expected:
            return InputError(f"{name}:{number}: expected {expected} columns ({_LAYOUT[kind]}), found {len(fields)}")
    return InputError(f"{name}: cannot read as TREC {kind} ({_LAYOUT[kind]})")


class _Malformed(Exception):
    """A row with the wrong number of fields: the careful path finds and names its line."""


def read_trec(path: str | Path, kind: Kind, threshold: float | None = None) -> Table:
    """Read a TREC qrels or run file into a validated :class:`Table`.

    The fast path hands the raw bytes to polars with the value column typed. Anything unusual (tabs, runs of
    spaces, blank lines, a bad field) sends the file down the careful path, which normalises whitespace, reads
    every field as text and names the first bad line.
    """
    path = Path(path)
    name = str(path)
    raw = read_bytes(path)
    if not raw or raw.isspace():
        raise InputError(f"{name}: file is empty")
    origin = Origin(name, _line_mapper(raw))
    try:
        return _parse(raw, kind, origin, typed=True, threshold=threshold)
    except (InputError, _Malformed, pl.exceptions.PolarsError):
        return _parse_carefully(raw, kind, origin, threshold)


def _parse(data: bytes, kind: Kind, origin: Origin, typed: bool, threshold: float | None = None) -> Table:
    columns = COLUMNS[kind]
    value_type = (pl.Int64 if kind == "qrels" and threshold is None else pl.Float64) if typed else pl.String
    frame = pl.read_csv(
        io.BytesIO(data),
        separator=" ",
        has_header=False,
        new_columns=list(columns),
        schema_overrides={VALUE: value_type},
        infer_schema=False,
        quote_char=None,
        comment_prefix="#",
    )
    if frame.width != len(columns) or frame.get_column(columns[-1]).null_count():
        raise _Malformed
    run_name = frame.get_column("tag")[0] if kind == "run" else None
    frame = frame.select(QID, DOCID, VALUE).with_row_index(ROW)
    return make_table(frame, kind, origin, run_name=run_name, threshold=threshold)


def _parse_carefully(raw: bytes, kind: Kind, origin: Origin, threshold: float | None = None) -> Table:
    """Normalise whitespace, drop blank lines, read fields as text: errors name the file line."""
    data = _normalise_whitespace(raw)
    rows = _BLANK_LINES.sub(b"\n", data).lstrip(b"\n")
    try:
        return _parse(rows, kind, origin, typed=False, threshold=threshold)
    except pl.exceptions.NoDataError:
        raise InputError(f"{origin.name}: no {kind} lines (only comments or blank lines)") from None
    except (_Malformed, pl.exceptions.PolarsError):
        raise _find_bad_line(data, kind, origin.name) from None


def _line_mapper(raw: bytes) -> Callable[[int], int]:
    """Row index -> line number of the raw file; computed lazily (only error messages need it)."""
    numbers: list[int] = []

    def line_of(row: int) -> int:
        if not numbers:
            numbers.extend(_data_line_numbers(raw))
        return numbers[row]

    return line_of
