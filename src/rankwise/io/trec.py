"""TREC text formats, read as trec_eval reads them.

- qrels: ``query_id iteration doc_id grade`` (4 fields; integer grade, negative = judged "unjudged").
- run: ``query_id iteration doc_id rank score tag`` (6 fields; the rank is ignored, as in trec_eval; fields
  after the tag are ignored too, as trec_eval does, and counted in :attr:`Table.notes`).

The grammar (one for both readers below): lines end at ``\\n``; fields are separated by any run of ASCII
whitespace (space, ``\\t``, ``\\r``, ``\\v``, ``\\f``), as trec_eval's ``isspace`` splits them; a line's
leading and trailing whitespace is ignored; blank lines and lines whose first field starts with ``#`` are
skipped. A NUL byte anywhere is an error (trec_eval, being C, would end a field there), and so is a data line
that is not UTF-8. A UTF-8 byte order mark at the start of the file is dropped; ``.gz`` files are decompressed.

Two readers give the same answer on every input (tests/io/test_io_grammar.py fuzzes this). The fast reader hands
the bytes to polars' CSV reader with a single-byte separator; it is taken only when the file cannot hold
anything but that separator between fields (no other whitespace byte but the ``\\r`` of ``\\r\\n``), and any
empty field (two separators in a row, a leading one, a blank line), short or long row or bad value sends the
file to the careful reader, which normalises whitespace line by line, names the line of each problem and
counts the run lines with extra fields.
"""

from __future__ import annotations

import io
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl
else:
    from .lazy import polars as pl

from ..errors import EmptyInputError, InputError
from .scan import scan_file, scan_trec
from .table import DOCID, QID, ROW, VALUE, Grades, Kind, Origin, Table, make_table

COLUMNS: dict[Kind, tuple[str, ...]] = {
    "qrels": (QID, "iteration", DOCID, VALUE),
    "run": (QID, "iteration", DOCID, "rank", VALUE, "tag"),
}
_LAYOUT = {"qrels": "query_id iteration doc_id grade", "run": "query_id iteration doc_id rank score tag"}
WHITESPACE = b" \t\r\x0b\x0c"  # C's isspace() less the line end "\n"
_SEPARATORS = r"[ \t\r\x0b\x0c]+"
_BOM = b"\xef\xbb\xbf"
_LONE_CR = re.compile(rb"\r(?!\n)")
_TEXT, _LINE = "text", "line"


def read_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed when it is gzip (by magic number, whatever its name)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    if data[:2] == _GZIP:
        data = gunzip(data, str(path))
        if data[:2] == _GZIP:
            raise InputError(f"{path}: gzip data inside gzip data: decompress it once first (gunzip -c {path})")
    refuse_other_compression(data, str(path))
    return data


_GZIP = b"\x1f\x8b"
_OTHER_COMPRESSION = (
    (re.compile(rb"\x28\xb5\x2f\xfd"), "zstd", "zstd -d"),
    (re.compile(rb"BZh[1-9]1AY&SY"), "bzip2", "bunzip2"),
    (re.compile(rb"\xfd7zXZ\x00"), "xz", "unxz"),
    (re.compile(rb"PK\x03\x04"), "a zip archive", "unzip"),
    (re.compile(rb"\x78[\x01\x9c\xda]"), "zlib", "a zlib tool"),  # not "x^": that may begin a query id
)
MAX_EXPANSION = 100
"""A gzip file may expand at most this many times its size once past :data:`FREE_EXPANSION_BYTES` (text runs
compress 5–15×; a gzip bomb ~1000×)."""
FREE_EXPANSION_BYTES = 64 << 20


def refuse_other_compression(data: bytes, name: str) -> None:
    """One line for compressed data rankwise does not read (zstd, bzip2, xz, zip, raw zlib), which would
    otherwise be read as text and fail on a NUL or a non-UTF-8 byte."""
    for magic, what, tool in _OTHER_COMPRESSION:
        if magic.match(data):
            raise InputError(
                f"{name}: {what}-compressed data; rankwise reads text or gzip: decompress it first ({tool})"
            )


def gunzip(data: bytes, name: str) -> bytes:
    """Decompress every gzip member of ``data``, in chunks, refusing output beyond ``MAX_EXPANSION`` times the
    input (past ``FREE_EXPANSION_BYTES``) before it is held in memory; corrupt or truncated data is one line."""
    limit = max(MAX_EXPANSION * len(data), FREE_EXPANSION_BYTES)
    chunks: list[bytes] = []
    total = 0
    rest = data
    while rest:
        if rest[:2] != _GZIP:
            if rest.strip(b"\x00"):
                raise InputError(f"{name}: cannot decompress gzip data (bytes that are not gzip after a member)")
            break  # trailing zeros, as gzip(1) ignores them
        stream = zlib.decompressobj(wbits=31)
        pending = rest
        try:
            while pending and not stream.eof:
                chunk = stream.decompress(pending, 1 << 24)
                total += len(chunk)
                if total > limit:
                    raise InputError(
                        f"{name}: gzip data expands more than {MAX_EXPANSION}× its size (past {total >> 20} MiB): "
                        "refused (a gzip bomb?); decompress it yourself if it is real"
                    )
                chunks.append(chunk)
                pending = stream.unconsumed_tail
        except zlib.error as exc:
            raise InputError(f"{name}: cannot decompress gzip data (corrupt: {exc})") from None
        if not stream.eof:
            raise InputError(f"{name}: cannot decompress gzip data (it ends early: a truncated file?)")
        rest = stream.unused_data
    return b"".join(chunks)


def read_trec(path: str | Path, kind: Kind, threshold: float | None = None, grades: Grades = "integer") -> Table:
    """Read a TREC qrels or run file into a validated :class:`Table` (``grades="real"``: real-valued qrels grades)."""
    path = Path(path)

    def again() -> bytes:  # the file's lines named in an error, without holding its bytes meanwhile
        data = read_bytes(path)
        return data[len(_BOM) :] if data.startswith(_BOM) else data

    scan = kind == "run" or (threshold is None and grades == "integer")
    if scan and path.is_file():  # the file's pages scanned where they are (a FIFO has none, and is read once)
        scanned, tried = scan_file(path, kind, Origin(str(path), _line_mapper(again)))
        if scanned is not None:
            return scanned
        scan = not tried  # an irregular file is not scanned again from its bytes
    return parse_trec(read_bytes(path), kind, str(path), threshold, grades=grades, scan=scan, reread=again)


def parse_trec(
    raw: bytes, kind: Kind, name: str, threshold: float | None = None, *, careful: bool = False, first_line: int = 1,
    grades: Grades = "integer", scan: bool = False, reread: Callable[[], bytes] | None = None,
) -> Table:  # fmt: skip
    """Parse the bytes of a TREC qrels or run file (``name`` names it in errors and notes).

    ``careful=True`` skips the fast readers (the tests compare them). ``first_line``: the line number of the first
    byte of ``raw`` in its file (a block of a file read in parts), so that errors name the file's own lines.
    ``scan=True`` tries the compiled scanner first (:mod:`rankwise.io.scan`: a table of codes, for a whole file read
    once; a block of a streamed file is better read by polars, whose frame it needs); ``reread`` gives the bytes
    again when an error names a line of a scanned table, which then does not hold them.
    """
    if raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    if not raw or raw.isspace():
        raise EmptyInputError(f"{name}: file is empty")
    if scan and not careful and (kind == "run" or (threshold is None and grades == "integer")):
        scanned = scan_trec(raw, kind, Origin(name, _line_mapper(reread or raw, first_line)))
        if scanned is not None:
            return scanned
    separator = None if careful else _plain_separator(raw)
    if separator is not None:
        try:
            return _parse_fast(raw, kind, Origin(name, _line_mapper(raw, first_line)), separator, threshold, grades)
        except (InputError, _Irregular, pl.exceptions.PolarsError):
            pass  # the careful reader decides, and names the line
    return _parse_carefully(raw, kind, name, threshold, first_line, grades)


class _Irregular(Exception):
    """The fast reader met an empty field or a short row: the careful reader takes over."""


def _plain_separator(data: bytes) -> str | None:
    """The one byte that can separate fields in ``data`` (space, or tab when there is no space), or None when
    the file holds other whitespace and needs the careful reader. Single-byte searches only: they run at
    memory speed, where a two-byte search (a double space) costs as much as parsing the file."""
    if b"\x00" in data or b"\x0b" in data or b"\x0c" in data:
        return None
    if b"\r" in data and _LONE_CR.search(data):
        return None  # polars drops the "\r" of "\r\n" itself; any other "\r" is whitespace
    if b"\t" not in data:
        return " "
    return None if b" " in data else "\t"


def _parse_fast(data: bytes, kind: Kind, origin: Origin, separator: str, threshold: float | None,
                grades: Grades = "integer") -> Table:  # fmt: skip
    """polars' CSV reader on a file with one separator byte; raises rather than guess on anything unusual."""
    columns = COLUMNS[kind]
    value_type = pl.Int64 if kind == "qrels" and threshold is None and grades == "integer" else pl.Float64
    frame = pl.read_csv(
        io.BytesIO(data),
        separator=separator,
        has_header=False,
        schema={column: value_type if column == VALUE else pl.String for column in columns},
        quote_char=None,
        comment_prefix="#",
    )
    # An empty field (a doubled, leading or trailing-doubled separator, a blank or whitespace-only line) or a
    # short row reads as a null; a row with too many fields is a polars error.
    if any(column.null_count() for column in frame.get_columns()):
        raise _Irregular
    run_name = frame.get_column("tag")[0] if kind == "run" and frame.height else None
    frame = frame.select(QID, DOCID, VALUE).with_row_index(ROW)
    return make_table(frame, kind, origin, run_name=run_name, threshold=threshold, grades=grades)


def _parse_carefully(raw: bytes, kind: Kind, name: str, threshold: float | None = None, first_line: int = 1,
                     grades: Grades = "integer") -> Table:  # fmt: skip
    """Split every line on runs of whitespace; errors name the file line, extra run fields are counted."""
    # "File may contain no NULL characters" (trec_eval get_qrels.c:21, get_trec_results.c:27): C strings end
    # there, so what a field holds after one is undefined. Refused, wherever it is (comment lines too).
    nul = raw.find(b"\x00")
    if nul >= 0:
        line = raw.count(b"\n", 0, nul) + first_line
        raise InputError(f"{name}:{line}: NUL byte (a TREC file is text, and trec_eval allows none)")
    columns = COLUMNS[kind]
    expected = len(columns)
    lines = (
        _read_lines(raw, name, first_line)
        .with_row_index(_LINE, offset=first_line)
        .with_columns(pl.col(_TEXT).str.replace_all(_SEPARATORS, " ").str.strip_chars(" "))
        .filter((pl.col(_TEXT).str.len_bytes() > 0) & ~pl.col(_TEXT).str.starts_with("#"))
        .with_columns(pl.col(_TEXT).str.count_matches(" ", literal=True).add(1).alias("fields"))
    )
    if lines.height == 0:
        raise EmptyInputError(f"{name}: no {kind} lines (only comments or blank lines)")
    # trec_eval (usnistgov/trec_eval @ f425365) reads a run line's six fields and skips the rest of the line
    # ("Any field following run_id is ignored", get_trec_results.c:28, done at :287-292); a qrels line with a
    # field after the grade is a "Malformed line", fatal (get_qrels.c:255-261, reported at :140-144).
    too_few = pl.col("fields") < expected if kind == "run" else pl.col("fields") != expected
    bad = lines.filter(too_few).head(1)
    if bad.height:
        line, found = bad.get_column(_LINE)[0], bad.get_column("fields")[0]
        first = first_line == 1 and line == lines.get_column(_LINE)[0]  # the file's first data line
        hint = (_swapped(kind, found) if first else "") or (
            " (trec_eval refuses fields after the grade too)" if found > expected else ""
        )
        raise InputError(f"{name}:{line}: expected {expected} columns ({_LAYOUT[kind]}), found {found}{hint}")
    parts = pl.col(_TEXT).str.splitn(" ", expected + 1)
    frame = lines.select(
        *(parts.struct.field(f"field_{i}").alias(column) for i, column in enumerate(columns)),
        pl.col(_LINE),
        (pl.col("fields") > expected).alias("extra"),
    )
    line_numbers = frame.get_column(_LINE)
    run_name: str | None = frame.get_column("tag")[0] if kind == "run" else None
    table = make_table(
        frame.select(QID, DOCID, VALUE).with_row_index(ROW),
        kind,
        Origin(name, lambda row: int(line_numbers[row])),
        run_name=run_name,
        threshold=threshold,
        grades=grades,
    )
    extra = frame.filter(pl.col("extra"))
    if extra.height:
        lines_have = "1 line has" if extra.height == 1 else f"{extra.height} lines have"
        note = (
            f"{name}: {lines_have} fields after the tag (ignored, as trec_eval does); "
            f"first at line {extra.get_column(_LINE)[0]}"
        )
        table = table.with_notes((*table.notes, note))
    return table


def _swapped(kind: Kind, found: int) -> str:
    """The hint for a ``kind`` file whose first data line has the other kind's number of fields (a run's 6 in the
    file given as qrels, qrels' 4 in the one given as the run): the two files were probably given in the wrong
    order."""
    other: Kind = "run" if kind == "qrels" else "qrels"
    if found != len(COLUMNS[other]):
        return ""
    return f": it looks like {'a run' if other == 'run' else 'qrels'} ({found} columns): are QRELS and RUN swapped?"


def _read_lines(raw: bytes, name: str, first_line: int = 1) -> pl.DataFrame:
    """One row per line of ``raw`` (which holds no NUL), column ``text``; a data line must be UTF-8."""

    def read(encoding: str) -> pl.DataFrame:
        frame = pl.read_csv(
            io.BytesIO(raw),
            separator="\x00",
            has_header=False,
            schema={_TEXT: pl.String},
            quote_char=None,
            encoding=encoding,  # type: ignore[arg-type]
        )
        return frame.with_columns(pl.col(_TEXT).fill_null(""))  # an empty line reads as null

    try:
        return read("utf8")
    except pl.exceptions.ComputeError:
        pass
    for number, line in enumerate(raw.split(b"\n"), start=first_line):
        stripped = line.strip(WHITESPACE)
        if stripped and not stripped.startswith(b"#"):
            try:
                stripped.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"{name}:{number}: not UTF-8 text (byte 0x{stripped[exc.start]:02x} at column "
                    f"{len(line) - len(line.lstrip(WHITESPACE)) + exc.start + 1})"
                ) from None
    try:
        return read("utf8-lossy")  # only comment lines hold bytes that are not UTF-8; they are skipped
    except pl.exceptions.PolarsError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{name}: cannot read as text ({first})") from None


def _data_line_numbers(data: bytes) -> list[int]:
    """1-based line numbers of the lines that become rows (all but blank and ``#`` comment lines)."""
    numbers = []
    for i, line in enumerate(data.split(b"\n")):
        stripped = line.strip(WHITESPACE)
        if stripped and not stripped.startswith(b"#"):
            numbers.append(i + 1)
    return numbers


def _line_mapper(raw: bytes | Callable[[], bytes], first_line: int = 1) -> Callable[[int], int]:
    """Row index -> line number of the raw file (whose first line is ``first_line``; ``raw``: its bytes, or a function
    reading them); computed lazily (only error messages need it)."""
    numbers: list[int] = []

    def line_of(row: int) -> int:
        if not numbers:
            numbers.extend(_data_line_numbers(raw if isinstance(raw, bytes) else raw()))
        return numbers[row] + first_line - 1

    return line_of
