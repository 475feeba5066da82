"""Learning-to-rank data in SVMlight / libsvm text, with ``qid:`` tokens or LightGBM ``.query`` files.

One line per row (document)::

    <label> [qid:<query id>] <index>:<value> <index>:<value> ... [# comment]

- ``label``: an integer grade (integral numbers such as ``2.0`` are accepted; ``2.5`` is an error).
- ``qid:``: the query (group) of the row. Rows of one query must be contiguous: a qid that appears again
  after a different qid is an error. By default qids must also increase from group to group (XGBoost refuses
  a ``qid`` that is not sorted); ``qid_order="any"`` accepts contiguous groups in any order (all LightGBM
  needs). Either every row has ``qid:`` or none does.
- Without ``qid:``, groups come from a LightGBM query file, one group size per line, found as ``FILE.query``
  next to the data (or named with ``query_file=``); the sizes must add up to the number of rows.
- Features are sparse: ``index:value`` with 1-based indices by default (SVMlight, RankLib, LETOR, MSLR),
  0-based with ``zero_based=True``, or ``"auto"`` (0-based when some index is 0, as scikit-learn).
  Column ``c`` of the matrix holds index ``c + 1`` (1-based) or ``c`` (0-based).
- Unsorted indices within a row are sorted. A repeated index keeps its **last** value (what TF-Ranking's
  libsvm parser does: it assigns into a dict). Explicit zeros are kept as stored entries.
- ``#`` starts a comment to the end of the line (whole-line or trailing); blank lines are skipped. Columns
  are separated by spaces or tabs; CRLF line ends and ``.gz`` files are fine.
- Documents are named by their position in their query (``0``, ``1``, ...), or with ``doc_ids="comment"`` by
  the row's trailing comment: ``#docid = ID ...`` (LETOR) or else the comment's first word (``# ID query text``,
  RankLib). Then every row needs one, unique within its query; :func:`write_svmlight` writes them back as
  ``#docid = ID``.

Every problem is an :class:`~rankwise.errors.InputError` of one line naming the file and, where one line is
at fault, the line (``file:line: ...``).

Fast path (no per-line Python): every newline becomes a marker token ``-inf:``, and polars' multi-threaded
CSV reader, told that a space ends a record and a colon separates fields, parses every token at once into
two float64 columns ``a`` and ``b`` (what is not a number becomes null). A row's kind follows from which
fields are null: marker (``a`` = -inf), label (``b`` null), ``qid:`` (``a`` null: the text ``qid`` is not a
number), feature (both numbers), empty (neither: an empty token from a run of spaces, dropped when the
count of double spaces says so, or garbage). Vectorised numpy checks that every line is marker, label,
optional qid, features, in that order; the counts of newlines and of `` qid:`` in the bytes make the
correspondence exact. Anything irregular sends the offending line (or, when polars refuses the input
outright, the file up to the first token with two colons; in rare cases the whole file) through a careful
per-line parser, which names the first bad line: errors are those the careful parser alone would raise.

This module reads (the API and the fast path). The careful parser is :mod:`rankwise.ltr.svmlight_lines`, the checks
from parsed rows to :class:`~rankwise.ltr.data.LtrData` (integers, width, groups, document ids)
:mod:`rankwise.ltr.svmlight_assemble`, the writer :mod:`rankwise.ltr.svmlight_write`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from ..io.trec import read_bytes
from .data import LtrData, PathLike
from .limits import largest_inferred_width
from .svmlight_assemble import (
    DOC_ID_SOURCES,
    QID_ORDERS,
    DocIds,
    QidOrder,
    ZeroBased,
    assemble,
    check_choices,
    refuse_inferred_width,
    with_comment_doc_ids,
)
from .svmlight_lines import ParsedRows, explain_line, parse_carefully
from .svmlight_write import write_svmlight

__all__ = [
    "DOC_ID_SOURCES",
    "QID_ORDERS",
    "DocIds",
    "LtrData",
    "PathLike",
    "QidOrder",
    "ZeroBased",
    "read_svmlight",
    "read_svmlight_files",
    "write_svmlight",
]

_MARKER = b" -inf: "
_ODD_SPACE = bytes.maketrans(b"\t\r\v\f", b"    ")
_COMMENT = re.compile(rb"#[^\n]*")
_SPACE_RUNS = re.compile(rb"  +")
_TWO_COLONS = re.compile(rb":[^\s:]*:")

# Row kinds in the fast path: bit 0 = field a is not a number, bit 1 = field b is empty, bit 2 = line marker.
# _EMPTY (neither field a number) is an empty token (from a run of spaces) or garbage.
_FEATURE, _QID, _LABEL, _EMPTY, _MARK = 0, 1, 2, 3, 6
_ALLOWED = np.zeros(64, dtype=bool)
"""Which kind may follow which (index ``before << 3 | after``): every line is marker, label, qid?, features."""
_PAIRS = [(_MARK, _MARK), (_MARK, _LABEL), (_LABEL, _MARK), (_LABEL, _QID), (_LABEL, _FEATURE)]
_PAIRS += [(_QID, _MARK), (_QID, _FEATURE), (_FEATURE, _FEATURE), (_FEATURE, _MARK)]
_ALLOWED[[before << 3 | after for before, after in _PAIRS]] = True


class _Irregular(Exception):
    """The fast path cannot vouch for the input.

    ``line``: the first line that breaks the structure (the careful parser explains it). ``suspect``: a bad
    line found without knowing whether an earlier one is bad too (the careful parser reads up to it).
    """

    def __init__(self, line: int | None = None, suspect: int | None = None) -> None:
        super().__init__(line, suspect)
        self.line = line
        self.suspect = suspect


def read_svmlight(
    path: PathLike,
    *,
    num_features: int | None = None,
    zero_based: ZeroBased = False,
    query_file: PathLike | bool | None = None,
    require_groups: bool = True,
    qid_order: QidOrder = "increasing",
    doc_ids: DocIds = "position",
) -> LtrData:
    """Read an SVMlight / libsvm ranking file (format and behaviour: see the module docstring).

    - ``num_features``: the width (so train, validation and test files agree); an index beyond it is an
      error naming file:line. Default: the largest index found (+1 when 0-based), at most the larger of 65,536 and
      the number of stored ``index:value`` entries (:mod:`rankwise.ltr.limits`: a tiny file cannot claim a width of
      10^8); a larger index is an error naming file:line unless ``num_features`` is given.
    - ``zero_based``: ``False`` (1-based, default; index 0 is an error), ``True``, or ``"auto"``
      (0-based when some index is 0).
    - ``query_file``: groups for data without ``qid:``: ``None`` (default) uses ``FILE.query`` when it
      exists (LightGBM's convention), ``True`` requires it, a path names the file, ``False`` never reads
      one. With ``qid:`` in the data a query file that is read must agree with the qid groups.
    - ``require_groups``: without ``qid:`` and without a query file, raise (default) or make all rows one
      group (qid 0).
    - ``qid_order``: ``"increasing"`` (default: a qid smaller than the one before it is an error naming the
      line) or ``"any"`` (contiguous groups in any order). A qid that comes back after another is always an error.
    - ``doc_ids``: ``"position"`` (default: documents are named ``0``, ``1``, ... within their query) or
      ``"comment"`` (each row's trailing comment names it: ``#docid = ID`` or ``# ID ...``).
    """
    path = Path(path)
    name = str(path)
    check_choices(qid_order, doc_ids)
    raw = read_bytes(path)
    rows = _parse(raw, name)
    data = assemble(rows, name, path, num_features, zero_based, query_file, require_groups, qid_order)
    return with_comment_doc_ids(data, raw, rows.lines) if doc_ids == "comment" else data


def read_svmlight_files(
    paths: Sequence[PathLike],
    *,
    num_features: int | None = None,
    zero_based: ZeroBased = False,
    require_groups: bool = True,
    qid_order: QidOrder = "increasing",
    doc_ids: DocIds = "position",
) -> list[LtrData]:
    """Read several files (train, validation, test) with one width: ``num_features`` or, by default, the
    largest width among them (bounded as in :func:`read_svmlight`, by the entries of all the files together).
    ``zero_based="auto"`` decides once for all files (0-based when any has index 0).
    """
    check_choices(qid_order, doc_ids)
    names = [str(p) for p in paths]
    raws = [read_bytes(Path(p)) for p in paths]
    parsed = [_parse(raw, name) for raw, name in zip(raws, names)]
    if zero_based == "auto":
        zero_based = any(len(r.indices) and r.indices.min() == 0 for r in parsed)
    if num_features is None:  # the largest index; bad ones (NaN, 2.5, ...) are reported by assemble below
        largest = [np.nanmax(r.indices) for r in parsed if len(r.indices)]
        num_features = max((int(x) + bool(zero_based) for x in largest if np.isfinite(x)), default=0)
        stored = sum(len(r.indices) for r in parsed)
        if num_features > largest_inferred_width(stored):
            for r, name in zip(parsed, names):
                refuse_inferred_width(r, r.indices - (not zero_based), stored, name, int(not zero_based))
    read = [
        assemble(r, name, Path(p), num_features, zero_based, None, require_groups, qid_order)
        for r, name, p in zip(parsed, names, paths)
    ]
    if doc_ids == "comment":
        read = [with_comment_doc_ids(data, raw, r.lines) for data, raw, r in zip(read, raws, parsed)]
    return read


def _parse(raw: bytes, name: str) -> ParsedRows:
    """Tokens to numbers: the fast path, or the careful one where the fast path cannot vouch for a line.

    Either way the error raised is the one for the first bad line, as the careful path alone would find it.
    """
    text = _COMMENT.sub(b"", raw) if b"#" in raw else raw
    try:
        return _parse_fast(text)
    except _Irregular as irregular:
        if irregular.line is not None:
            explain_line(text, irregular.line, name)
        if irregular.suspect is not None:
            parse_carefully(text, name, last_line=irregular.suspect)
        return parse_carefully(text, name)


def _parse_fast(text: bytes) -> ParsedRows:
    """Polars parses every number; numpy checks the structure. Raises :class:`_Irregular` on anything odd."""
    stream = _MARKER[1:] + text.replace(b"\n", _MARKER)
    if b"\t" in stream or b"\r" in stream or b"\v" in stream or b"\f" in stream:
        stream = stream.translate(_ODD_SPACE)
    try:
        code, a, b = _classify(stream)
        empty = code[:-1] == _EMPTY
        if empty.any():
            spaces = np.frombuffer(stream, dtype=np.uint8) == ord(" ")
            if np.count_nonzero(spaces[1:] & spaces[:-1]) == np.count_nonzero(empty):  # all empty: drop them
                keep = ~empty
                code, a, b = np.append(code[:-1][keep], _MARK), a[keep], b[keep]
            else:  # some garbage: without the empty tokens the structure check below names its line
                code, a, b = _classify(_SPACE_RUNS.sub(b" ", stream))
            del spaces
    except pl.exceptions.PolarsError:
        found = _TWO_COLONS.search(text)  # what polars refuses outright: a token with two colons
        raise _Irregular(suspect=None if found is None else text.count(b"\n", 0, found.start()) + 1) from None

    # Rows other than features are few (about 3 a line): locate them, and the features by elimination.
    other_at = np.flatnonzero(code[:-1] != _FEATURE)
    other = code[other_at]
    marker_at = other_at[other == _MARK]
    if len(marker_at) != text.count(b"\n") + 1:
        raise _Irregular  # a "-inf" of the user's (read as a marker): the careful path explains it
    label_rank = np.flatnonzero(other == _LABEL)
    label_at = other_at[label_rank]
    qid_at = other_at[other == _QID]
    if stream.count(b":") - len(marker_at) != len(code) - 1 - len(other_at) + len(qid_at):
        # features and qids have one colon each, labels none: a "label" with one ("1:", "1:0x3") or garbage with
        # one is not where the structure check would look first, so the careful path reads the whole file
        raise _Irregular
    lines = np.searchsorted(marker_at, label_at, side="right").astype(np.int64)
    bad_lines = []
    allowed = _ALLOWED[(code[:-1] << 3) | code[1:]]
    if not allowed.all():  # out of order: no label, a stray qid, garbage (neither field a number)
        bad_lines.append(int(np.searchsorted(marker_at, np.argmin(allowed) + 1, side="right")))
    has_qid = code[label_at + 1] == _QID
    if len(label_at) and not (has_qid.all() or not has_qid.any()):  # qid: on some rows only
        bad_lines.append(int(lines[np.argmax(has_qid != has_qid[0])]))
    if len(qid_at) != stream.count(b" qid:"):
        # a token like "QID:3" or ":1" that reads as a qid (its first field is not a number): it may sit on an
        # earlier line than any structural problem, so the careful path reads the whole file
        raise _Irregular
    if bad_lines:
        raise _Irregular(min(bad_lines))
    indptr = np.empty(len(label_at) + 1, dtype=np.int64)
    indptr[:-1] = label_at - label_rank  # rows before the label, less the non-feature ones
    indptr[-1] = len(a) - len(other_at)
    feature = code[:-1] == _FEATURE
    return ParsedRows(
        labels=a[label_at],
        qids=b[qid_at] if len(qid_at) else None,
        indptr=indptr,
        indices=a[feature],
        values=b[feature],
        lines=lines,
    )


def _classify(stream: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse the token stream; (kind of every row plus a final marker, field a, field b) as numpy arrays."""
    frame = pl.read_csv(
        stream,
        has_header=False,
        separator=":",
        eol_char=" ",
        quote_char=None,
        schema={"a": pl.Float64, "b": pl.Float64},
        ignore_errors=True,
    )
    a = frame.get_column("a").to_numpy()  # nulls become NaN: a NaN (null or "nan") is never valid here
    b_column = frame.get_column("b")
    b_null = b_column.is_null().to_numpy()
    b = b_column.to_numpy()
    code = np.empty(len(a) + 1, dtype=np.uint8)
    code[-1] = _MARK
    np.isnan(a, out=code[:-1].view(bool))
    code[:-1] |= b_null.view(np.uint8) << 1
    code[:-1] |= (a == -np.inf).view(np.uint8) << 2
    return code, a, b
