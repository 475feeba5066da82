"""The careful SVMlight parser: one line at a time in Python, slow, but every error names its line; and
:class:`ParsedRows`, what this parser and the fast one of :mod:`rankwise.ltr.svmlight` both give.

The fast path sends here what it cannot vouch for (:func:`explain_line` for one line, :func:`parse_carefully` for
the file or a part of it), so the errors raised are always the ones this parser alone would raise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .data import csr_offsets

_NUMBER = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)


@dataclass
class ParsedRows:
    """Parsed rows before validation: numbers as float64, exactly as written."""

    labels: np.ndarray  # float64 [rows]
    qids: np.ndarray | None  # float64 [rows] or None when no row has qid:
    indptr: np.ndarray  # int64 [rows + 1]
    indices: np.ndarray  # float64 [nnz], as written (1- or 0-based)
    values: np.ndarray  # float64 [nnz]
    lines: np.ndarray  # int64 [rows]: 1-based line number of every row


def _line_text(text: bytes, line: int) -> bytes:
    start = 0
    for _ in range(line - 1):
        start = text.index(b"\n", start) + 1
    end = text.find(b"\n", start)
    return text[start : end if end >= 0 else len(text)]


def _first_data_line(text: bytes, before: int) -> tuple[int, bool] | None:
    """(line number, has qid) of the first non-blank line before line ``before``."""
    for number, line in enumerate(text.split(b"\n", before - 1)[: before - 1], start=1):
        tokens = line.split()
        if tokens:
            return number, len(tokens) > 1 and tokens[1].startswith(b"qid:")
    return None


def explain_line(text: bytes, line: int, name: str) -> None:
    """Raise the error for line ``line``, if the careful parser finds one there (also qid: on some lines only)."""
    parsed = _parse_line(_line_text(text, line), line, name)
    first = _first_data_line(text, line)
    if parsed is not None and first is not None and (parsed[1] is not None) != first[1]:
        has, lacks = (line, first[0]) if parsed[1] is not None else (first[0], line)
        raise InputError(f"{name}:{line}: line {has} has qid: but line {lacks} has none; give qid: on every row")


def _number(token: bytes, what: str, line: int, name: str) -> float:
    if _NUMBER.fullmatch(token) is None:
        shown = token.decode("utf-8", "replace")
        raise InputError(f"{name}:{line}: {what} {shown!r} is not a number")
    return float(token)


def _parse_line(line: bytes, number: int, name: str) -> tuple[float, float | None, list[float], list[float]] | None:
    """One line (comment already removed): (label, qid or None, indices, values), or None when blank."""
    tokens = line.split()
    if not tokens:
        return None
    if b":" in tokens[0]:
        shown = tokens[0].decode("utf-8", "replace")
        raise InputError(f"{name}:{number}: expected a label first, found {shown!r}")
    label = _number(tokens[0], "label", number, name)
    qid = None
    rest = tokens[1:]
    if rest and rest[0].startswith(b"qid:"):
        qid = _number(rest[0][4:], "qid", number, name)
        rest = rest[1:]
    indices, values = [], []
    for token in rest:
        shown = token.decode("utf-8", "replace")
        if token.startswith(b"qid:"):
            raise InputError(f"{name}:{number}: {shown!r}: qid: must come right after the label")
        parts = token.split(b":")
        if len(parts) != 2:
            raise InputError(f"{name}:{number}: malformed feature {shown!r}, expected index:value")
        indices.append(_number(parts[0], f"feature index in {shown!r}:", number, name))
        values.append(_number(parts[1], f"feature value in {shown!r}:", number, name))
    return label, qid, indices, values


def parse_carefully(text: bytes, name: str, last_line: int | None = None) -> ParsedRows:
    """Line by line in Python (up to ``last_line``): slow, but every error names its line."""
    labels, qids, lengths, indices, values, lines = [], [], [], [], [], []
    first_qid: tuple[int, bool] | None = None
    chunks = text.split(b"\n") if last_line is None else text.split(b"\n", last_line)[:last_line]
    for number, line in enumerate(chunks, start=1):
        parsed = _parse_line(line, number, name)
        if parsed is None:
            continue
        label, qid, row_indices, row_values = parsed
        if first_qid is None:
            first_qid = (number, qid is not None)
        elif first_qid[1] != (qid is not None):
            has, lacks = (number, first_qid[0]) if qid is not None else (first_qid[0], number)
            raise InputError(f"{name}:{number}: line {has} has qid: but line {lacks} has none; give qid: on every row")
        labels.append(label)
        qids.append(qid)
        lengths.append(len(row_indices))
        indices.extend(row_indices)
        values.extend(row_values)
        lines.append(number)
    has_qid = first_qid is not None and first_qid[1]
    return ParsedRows(
        labels=np.array(labels, dtype=np.float64),
        qids=np.array(qids, dtype=np.float64) if has_qid else None,
        indptr=csr_offsets(np.array(lengths, dtype=np.int64)),
        indices=np.array(indices, dtype=np.float64),
        values=np.array(values, dtype=np.float64),
        lines=np.array(lines, dtype=np.int64),
    )
