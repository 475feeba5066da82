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
    """Make every column separator a single space and strip spaces at line ends (only when needed)."""
    if b"\t" in data or b"  " in data or b"\r" in data or data[:1] == b" " or b"\n " in data or b" \n" in data:
        data = _EDGES.sub(b"", _SPACES.sub(b" ", data))
    return data


def _data_line_numbers(data: bytes) -> list[int]:
    """1-based line numbers of the lines that become rows (all but blank and ``#`` comment lines)."""
    return [i + 1 for i, line in enumerate(data.split(b"\n")) if line and not line.startswith(b"#")]


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


def read_trec(path: str | Path, kind: Kind) -> Table:
    """Read a TREC qrels or run file into a validated :class:`Table`."""
    path = Path(path)
    name = str(path)
    data = _normalise_whitespace(read_bytes(path))
    columns = COLUMNS[kind]
    if not data.strip():
        raise InputError(f"{name}: file is empty")
    has_gaps = data.startswith((b"#", b"\n")) or b"\n#" in data or b"\n\n" in data
    rows = _BLANK_LINES.sub(b"\n", data).lstrip(b"\n") if has_gaps else data
    try:
        frame = pl.read_csv(
            io.BytesIO(rows),
            separator=" ",
            has_header=False,
            new_columns=list(columns),
            infer_schema=False,
            quote_char=None,
            comment_prefix="#",
        )
    except pl.exceptions.NoDataError:
        raise InputError(f"{name}: no {kind} lines (only comments or blank lines)") from None
    except (pl.exceptions.ComputeError, pl.exceptions.SchemaError, pl.exceptions.ShapeError):
        raise _find_bad_line(data, kind, name) from None
    if frame.width != len(columns):
        raise _find_bad_line(data, kind, name)
    frame = frame.with_row_index(ROW)
    if frame.get_column(columns[-1]).null_count():
        raise _find_bad_line(data, kind, name)
    run_name = None
    if kind == "run" and frame.height:
        run_name = frame.get_column("tag")[0]
    frame = frame.select(QID, DOCID, VALUE, ROW)
    return make_table(frame, kind, Origin(name, _line_mapper(data, has_gaps)), run_name=run_name)


def _line_mapper(data: bytes, has_gaps: bool):
    """Row index -> line number; computed lazily (only error messages need it)."""
    if not has_gaps:
        return lambda row: row + 1
    numbers: list[int] = []

    def line_of(row: int) -> int:
        if not numbers:
            numbers.extend(_data_line_numbers(data))
        return numbers[row]

    return line_of
