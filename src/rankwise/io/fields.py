"""Whitespace-separated text files with a fixed number of fields per line, read with the grammar of
:mod:`rankwise.io.trec` (any run of ASCII whitespace separates fields, ``#`` comment lines and blank lines skipped,
gzip decompressed, a NUL byte or a line that is not UTF-8 refused): the judgment-group qrels and preference files of
trec_eval's ``-R qrels_jg``, ``-R prefs`` and ``-R qrels_prefs``, and ndeval's subtopic qrels.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl
else:
    from .lazy import polars as pl

from ..errors import EmptyInputError, InputError
from .table import ROW, Origin
from .trec import _BOM, _LINE, _SEPARATORS, _TEXT, _read_lines, read_bytes


def read_fields(path: str | Path, columns: tuple[str, ...], layout: str, what: str, *, at_least: bool = False
                ) -> tuple[pl.DataFrame, Origin]:  # fmt: skip
    """:func:`parse_fields` of the file at ``path`` (gzip decompressed)."""
    return parse_fields(read_bytes(Path(path)), str(path), columns, layout, what, at_least=at_least)


def parse_fields(raw: bytes, name: str, columns: tuple[str, ...], layout: str, what: str,
                 hints: Mapping[int, str] | None = None, *, at_least: bool = False
                 ) -> tuple[pl.DataFrame, Origin]:  # fmt: skip
    """Every data line of ``raw`` (the bytes of the file ``name``) as ``len(columns)`` text fields named
    ``columns``, with a ``row`` index; the :class:`Origin` maps a row back to its line. A line with another number
    of fields (with ``at_least``: fewer; the fields after the first ``len(columns)`` are dropped) is an error naming
    its line and ``layout`` (e.g. ``query_id jg doc_id grade``), plus ``hints[n]`` when it has n fields; ``what``
    names the lines (``judgments``) when the file holds none."""
    if raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    if not raw or raw.isspace():
        raise EmptyInputError(f"{name}: file is empty")
    nul = raw.find(b"\x00")
    if nul >= 0:
        line = raw.count(b"\n", 0, nul) + 1
        raise InputError(f"{name}:{line}: NUL byte (a file of {what} is text, and trec_eval allows none)")
    lines = (
        _read_lines(raw, name)
        .with_row_index(_LINE, offset=1)
        .with_columns(pl.col(_TEXT).str.replace_all(_SEPARATORS, " ").str.strip_chars(" "))
        .filter((pl.col(_TEXT).str.len_bytes() > 0) & ~pl.col(_TEXT).str.starts_with("#"))
        .with_columns(pl.col(_TEXT).str.count_matches(" ", literal=True).add(1).alias("fields"))
    )
    if lines.height == 0:
        raise EmptyInputError(f"{name}: no {what} (only comments or blank lines)")
    bad = lines.filter((pl.col("fields") < len(columns)) if at_least else (pl.col("fields") != len(columns))).head(1)
    if bad.height:
        found = bad.get_column("fields")[0]
        hint = (hints or {}).get(found, "")
        expected = f"at least {len(columns)}" if at_least else str(len(columns))
        raise InputError(f"{name}:{bad.get_column(_LINE)[0]}: expected {expected} columns ({layout}), found "
                         f"{found}{hint}")  # fmt: skip
    parts = pl.col(_TEXT).str.splitn(" ", len(columns) + 1 if at_least else len(columns))
    frame = lines.select(*(parts.struct.field(f"field_{i}").alias(c) for i, c in enumerate(columns)), pl.col(_LINE))
    line_numbers = frame.get_column(_LINE)
    return frame.drop(_LINE).with_row_index(ROW), Origin(name, lambda row: int(line_numbers[row]))


def numbers(frame: pl.DataFrame, column: str, origin: Origin, what: str, *, integer: bool) -> pl.DataFrame:
    """``frame`` with its text ``column`` read as Int64 (``integer``) or finite Float64 numbers; the first value that
    is none is an error naming its line and ``what`` it is (``grade``, ``rel_level``)."""
    target = pl.Int64 if integer else pl.Float64
    out = frame.with_columns(pl.col(column).cast(target, strict=False).alias("_number"))
    valid = pl.col("_number").is_not_null() & (pl.lit(True) if integer else pl.col("_number").is_finite())
    bad = out.filter(~valid).head(1)
    if bad.height:
        kind = "an integer" if integer else "a finite number"
        raise InputError(f"{origin.locate(bad.get_column(ROW)[0])}: {what} {bad.get_column(column)[0]!r} is not "
                         f"{kind}")  # fmt: skip
    return out.drop(column).rename({"_number": column})
