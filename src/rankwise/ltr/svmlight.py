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
"""

from __future__ import annotations

import dataclasses
import gzip
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import polars as pl

from ..errors import InputError, RankwiseError
from ..io.trec import read_bytes
from .limits import WIDTH_WITHOUT_ASKING, check_memory, largest_inferred_width

if TYPE_CHECKING:
    import scipy.sparse

ZeroBased = bool | Literal["auto"]
DocIds = Literal["position", "comment"]
DOC_ID_SOURCES = ("position", "comment")
QidOrder = Literal["increasing", "any"]
QID_ORDERS = ("increasing", "any")
PathLike = str | Path

_MARKER = b" -inf: "
_ODD_SPACE = bytes.maketrans(b"\t\r\v\f", b"    ")
_COMMENT = re.compile(rb"#[^\n]*")
_COMMENT_DOC_ID = r"#\s*(?:docid\s*=\s*)?(\S+)"
_SPACE_RUNS = re.compile(rb"  +")
_TWO_COLONS = re.compile(rb":[^\s:]*:")
_NUMBER = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)
_MAX_INDEX = np.iinfo(np.int32).max

# Row kinds in the fast path: bit 0 = field a is not a number, bit 1 = field b is empty, bit 2 = line marker.
# _EMPTY (neither field a number) is an empty token (from a run of spaces) or garbage.
_FEATURE, _QID, _LABEL, _EMPTY, _MARK = 0, 1, 2, 3, 6
_ALLOWED = np.zeros(64, dtype=bool)
"""Which kind may follow which (index ``before << 3 | after``): every line is marker, label, qid?, features."""
_PAIRS = [(_MARK, _MARK), (_MARK, _LABEL), (_LABEL, _MARK), (_LABEL, _QID), (_LABEL, _FEATURE)]
_PAIRS += [(_QID, _MARK), (_QID, _FEATURE), (_FEATURE, _FEATURE), (_FEATURE, _MARK)]
_ALLOWED[[before << 3 | after for before, after in _PAIRS]] = True


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class LtrData:
    """Rows (documents) in groups (queries), with sparse features in CSR form.

    - ``labels``: int64 ``[rows]``, the grades.
    - ``qids``: int64 ``[groups]``, each group's query id as written (``0, 1, ...`` when groups come from a
      ``.query`` file).
    - ``group_offsets``: int64 ``[groups + 1]``: group ``g`` is rows ``group_offsets[g]:group_offsets[g + 1]``.
    - ``indptr`` (int64 ``[rows + 1]``), ``indices`` (int32, 0-based columns, increasing within a row),
      ``values`` (float64): row ``r``'s features are ``indices[indptr[r]:indptr[r + 1]]`` and their values.
    - ``num_features``: the width; ``source``: where the data came from (a path, for messages).
    - ``docnos``: each row's document id (``[rows]`` of ``str``, unique within its group: checked), or None:
      documents are then named by their position in their group (see :meth:`doc_ids`).

    Arrays are converted to these dtypes, checked for consistency and made read-only.
    """

    labels: np.ndarray
    qids: np.ndarray
    group_offsets: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    num_features: int
    source: str = "<memory>"
    docnos: np.ndarray | None = None

    def __post_init__(self) -> None:
        for name, dtype in (
            ("labels", np.int64),
            ("qids", np.int64),
            ("group_offsets", np.int64),
            ("indptr", np.int64),
            ("indices", np.int32),
            ("values", np.float64),
        ):
            given = getattr(self, name)
            array = np.asarray(given, dtype=dtype)
            if array.ndim != 1:
                raise RankwiseError(f"LtrData.{name} must be one-dimensional, not shape {array.shape}")
            if array is given and array.flags.writeable:
                array = array.copy()  # never freeze the caller's own array
            elif dtype != np.float64 and not np.array_equal(array, given):
                raise RankwiseError(f"LtrData.{name} must hold integers that fit {np.dtype(dtype).name}")
            object.__setattr__(self, name, _frozen(array))
        object.__setattr__(self, "num_features", int(self.num_features))
        if self.docnos is not None:
            docnos = np.array(self.docnos, dtype=object)  # always a copy
            if docnos.shape != (len(self.labels),) or not all(isinstance(d, str) for d in docnos.tolist()):
                raise RankwiseError(f"LtrData.docnos must be one str per row ({len(self.labels)} rows)")
            object.__setattr__(self, "docnos", _frozen(docnos))
        problem = _inconsistency(self)
        if problem is None and self.docnos is not None:
            row = _repeated_doc(self.row_groups(), self.doc_ids())
            if row is not None:
                problem = f"document id {self.docnos[row]!r} of row {row} occurs twice in its group"
        if problem is not None:
            raise RankwiseError(f"LtrData ({self.source}): {problem}")

    def __repr__(self) -> str:
        return (
            f"LtrData(rows={self.num_rows}, groups={self.num_groups}, num_features={self.num_features}, "
            f"nnz={self.nnz}, source={self.source!r})"
        )

    @property
    def num_rows(self) -> int:
        """Number of rows (documents)."""
        return len(self.labels)

    @property
    def num_groups(self) -> int:
        """Number of groups (queries)."""
        return len(self.qids)

    @property
    def group_sizes(self) -> np.ndarray:
        """Rows per group, int64 ``[groups]`` (what a LightGBM ``.query`` file holds)."""
        return np.diff(self.group_offsets)

    @property
    def nnz(self) -> int:
        """Number of stored feature entries."""
        return len(self.indices)

    def row_groups(self) -> np.ndarray:
        """The group position (0-based) of every row, int64 ``[rows]``."""
        return np.repeat(np.arange(self.num_groups, dtype=np.int64), self.group_sizes)

    def describe_row(self, row: int) -> str:
        """``row N (qid Q, document D)`` for messages: ``N`` counts rows from 1, ``D`` is :meth:`doc_ids`'s."""
        group = int(np.searchsorted(self.group_offsets, row, side="right")) - 1
        return f"row {row + 1} (qid {self.qids[group]}, document {self.doc_ids()[row]})"

    def dense(self, dtype: Any = np.float32) -> np.ndarray:
        """The features as a dense ``[rows, num_features]`` array (absent entries are 0); a
        :class:`RankwiseError` instead when it would not fit in the machine's memory."""
        nbytes = self.num_rows * self.num_features * np.dtype(dtype).itemsize
        check_memory(nbytes, f"{self.source}: dense features ({self.num_rows} rows × {self.num_features} columns)")
        out = np.zeros((self.num_rows, self.num_features), dtype=dtype)
        rows = np.repeat(np.arange(self.num_rows, dtype=np.int64), np.diff(self.indptr))
        with np.errstate(over="ignore"):  # a value beyond float32 becomes ±inf, as a cast does
            out[rows, self.indices] = self.values
        return out

    def to_scipy(self) -> scipy.sparse.csr_matrix:
        """The features as a ``scipy.sparse.csr_matrix`` of shape ``(rows, num_features)`` (scipy is imported
        only here)."""
        import scipy.sparse

        return scipy.sparse.csr_matrix(
            (self.values, self.indices, self.indptr), shape=(self.num_rows, self.num_features), copy=True
        )

    def select_groups(self, groups: Any) -> LtrData:
        """A new :class:`LtrData` with only the given groups, in the given order.

        ``groups``: group positions (ints, 0-based), a boolean mask over groups, or a slice.
        """
        chosen = np.arange(self.num_groups, dtype=np.int64)[groups]
        sizes = self.group_sizes[chosen]
        rows = _ranges(self.group_offsets[chosen], sizes)
        row_nnz = np.diff(self.indptr)[rows]
        entries = _ranges(self.indptr[rows], row_nnz)
        return LtrData(
            labels=self.labels[rows],
            qids=self.qids[chosen],
            group_offsets=_offsets(sizes),
            indptr=_offsets(row_nnz),
            indices=self.indices[entries],
            values=self.values[entries],
            num_features=self.num_features,
            source=self.source,
            docnos=None if self.docnos is None else self.docnos[rows],
        )

    def doc_ids(self) -> pl.Series:
        """Each row's document id: :attr:`docnos` when given, else its position within its group as text
        (``"0"``, ``"1"``, ...)."""
        if self.docnos is not None:
            return pl.Series("doc_id", self.docnos.tolist(), dtype=pl.String)
        within = np.arange(self.num_rows, dtype=np.int64) - np.repeat(self.group_offsets[:-1], self.group_sizes)
        return pl.Series("doc_id", within).cast(pl.String)

    def query_ids(self) -> pl.Series:
        """Each row's query id (its group's qid) as text."""
        return pl.Series("query_id", self.qids).cast(pl.String).gather(self.row_groups())

    def to_qrels(self) -> pl.DataFrame:
        """The labels as judgments: columns ``query_id`` (qid as text), ``doc_id`` (:meth:`doc_ids`), ``grade``.

        Ready for :func:`rankwise.evaluate` together with :meth:`to_run`.
        """
        return pl.DataFrame([self.query_ids(), self.doc_ids(), pl.Series("grade", self.labels)])

    def to_run(self, scores: Any) -> pl.DataFrame:
        """Model scores as a run: columns ``query_id``, ``doc_id`` (as in :meth:`to_qrels`), ``score``.

        ``scores``: one number per row, in row order (what a model's ``predict`` returns).
        """
        score = np.asarray(scores, dtype=np.float64).reshape(-1)
        if len(score) != self.num_rows:
            raise InputError(f"{self.source}: {len(score)} scores for {self.num_rows} rows")
        return pl.DataFrame([self.query_ids(), self.doc_ids(), pl.Series("score", score)])


def _inconsistency(data: LtrData) -> str | None:
    """What is wrong with the arrays of ``data``, or None."""
    rows, nnz, offsets, indptr = data.num_rows, data.nnz, data.group_offsets, data.indptr
    if len(data.values) != nnz:
        return f"values has {len(data.values)} entries but indices {nnz}"
    if len(indptr) != rows + 1 or indptr[0] != 0 or indptr[-1] != nnz or (np.diff(indptr) < 0).any():
        return f"indptr must be CSR offsets: rows + 1 = {rows + 1} non-decreasing entries from 0 to {nnz}"
    groups = len(data.qids)
    if len(offsets) != groups + 1 or offsets[0] != 0 or offsets[-1] != rows or (np.diff(offsets) < 0).any():
        return f"group_offsets must be groups + 1 = {groups + 1} non-decreasing entries from 0 to {rows}"
    if data.num_features < 0:
        return f"num_features is {data.num_features}"
    if nnz and (data.indices.min() < 0 or data.indices.max() >= data.num_features):
        return f"feature columns must lie in [0, num_features={data.num_features})"
    return None


def _repeated_doc(groups: np.ndarray, docnos: pl.Series) -> int | None:
    """The first row whose document id already named a row of its group, or None."""
    keys = pl.DataFrame({"group": groups, "doc": docnos})
    again = keys.select(~pl.struct("group", "doc").is_first_distinct()).to_series().to_numpy()
    return int(np.argmax(again)) if again.any() else None


def _offsets(sizes: np.ndarray) -> np.ndarray:
    out = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=out[1:])
    return out


def _ranges(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, sizes)])`` without a Python loop."""
    total = int(sizes.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    keep = sizes > 0
    starts, sizes = starts[keep], sizes[keep]
    steps = np.ones(total, dtype=np.int64)
    heads = _offsets(sizes)[:-1]
    steps[0] = starts[0]
    steps[heads[1:]] = starts[1:] - (starts[:-1] + sizes[:-1] - 1)
    return np.cumsum(steps)


# ---------------------------------------------------------------------------------------------------------------
# Reading


@dataclass
class _Rows:
    """Parsed rows before validation: numbers as float64, exactly as written."""

    labels: np.ndarray  # float64 [rows]
    qids: np.ndarray | None  # float64 [rows] or None when no row has qid:
    indptr: np.ndarray  # int64 [rows + 1]
    indices: np.ndarray  # float64 [nnz], as written (1- or 0-based)
    values: np.ndarray  # float64 [nnz]
    lines: np.ndarray  # int64 [rows]: 1-based line number of every row


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
    _check_choices(qid_order, doc_ids)
    raw = read_bytes(path)
    rows = _parse(raw, name)
    data = _assemble(rows, name, path, num_features, zero_based, query_file, require_groups, qid_order)
    return _with_comment_doc_ids(data, raw, rows.lines) if doc_ids == "comment" else data


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
    _check_choices(qid_order, doc_ids)
    names = [str(p) for p in paths]
    raws = [read_bytes(Path(p)) for p in paths]
    parsed = [_parse(raw, name) for raw, name in zip(raws, names)]
    if zero_based == "auto":
        zero_based = any(len(r.indices) and r.indices.min() == 0 for r in parsed)
    if num_features is None:  # the largest index; bad ones (NaN, 2.5, ...) are reported by _assemble below
        largest = [np.nanmax(r.indices) for r in parsed if len(r.indices)]
        num_features = max((int(x) + bool(zero_based) for x in largest if np.isfinite(x)), default=0)
        stored = sum(len(r.indices) for r in parsed)
        if num_features > largest_inferred_width(stored):
            for r, name in zip(parsed, names):
                _refuse_inferred_width(r, r.indices - (not zero_based), stored, name, int(not zero_based))
    read = [
        _assemble(r, name, Path(p), num_features, zero_based, None, require_groups, qid_order)
        for r, name, p in zip(parsed, names, paths)
    ]
    if doc_ids == "comment":
        read = [_with_comment_doc_ids(data, raw, r.lines) for data, raw, r in zip(read, raws, parsed)]
    return read


def _parse(raw: bytes, name: str) -> _Rows:
    """Tokens to numbers: the fast path, or the careful one where the fast path cannot vouch for a line.

    Either way the error raised is the one for the first bad line, as the careful path alone would find it.
    """
    text = _COMMENT.sub(b"", raw) if b"#" in raw else raw
    try:
        return _parse_fast(text)
    except _Irregular as irregular:
        if irregular.line is not None:
            _explain_line(text, irregular.line, name)
        if irregular.suspect is not None:
            _parse_carefully(text, name, last_line=irregular.suspect)
        return _parse_carefully(text, name)


def _parse_fast(text: bytes) -> _Rows:
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
    return _Rows(
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


def _explain_line(text: bytes, line: int, name: str) -> None:
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


def _parse_carefully(text: bytes, name: str, last_line: int | None = None) -> _Rows:
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
    return _Rows(
        labels=np.array(labels, dtype=np.float64),
        qids=np.array(qids, dtype=np.float64) if has_qid else None,
        indptr=_offsets(np.array(lengths, dtype=np.int64)),
        indices=np.array(indices, dtype=np.float64),
        values=np.array(values, dtype=np.float64),
        lines=np.array(lines, dtype=np.int64),
    )


def _integers(
    values: np.ndarray, what: str, line_of: Callable[[int], int], name: str, dtype: Any = np.int64
) -> np.ndarray:
    """float64 → integers of ``dtype``, or an error naming the line (``line_of(position)``) of the first value
    that is not an integer or does not fit."""
    with np.errstate(invalid="ignore"):
        integers = values.astype(dtype)
        bad = integers != values  # NaN, ±inf, fractions and values beyond the dtype all differ
    if bad.any():
        first = int(np.argmax(bad))
        value = values[first]
        problem = "is too large" if np.isfinite(value) and value == np.floor(value) else "is not an integer"
        shown = int(value) if problem == "is too large" else repr(float(value))
        raise InputError(f"{name}:{line_of(first)}: {what} {shown} {problem}")
    return integers


def _assemble(
    rows: _Rows,
    name: str,
    path: Path,
    num_features: int | None,
    zero_based: ZeroBased,
    query_file: PathLike | bool | None,
    require_groups: bool,
    qid_order: QidOrder,
) -> LtrData:
    """Validate parsed rows (integers, indices, groups), sort each row's features, build :class:`LtrData`."""
    if len(rows.labels) == 0:
        raise InputError(f"{name}: no data lines (only comments or blank lines)")
    if zero_based not in (True, False, "auto"):
        raise RankwiseError(f"zero_based must be True, False or 'auto', not {zero_based!r}")
    if num_features is not None and (isinstance(num_features, bool) or int(num_features) != num_features):
        raise RankwiseError(f"num_features must be an integer, not {num_features!r}")
    if num_features is not None and num_features < 0:
        raise RankwiseError(f"num_features must be >= 0, not {num_features}")

    def row_line(row: int) -> int:
        return int(rows.lines[row])

    def entry_line(entry: int) -> int:
        return _entry_line(rows, entry)

    labels = _integers(rows.labels, "label", row_line, name)
    columns = _integers(rows.indices, "feature index", entry_line, name, np.int32)
    if len(columns):
        if zero_based == "auto":
            zero_based = bool(columns.min() == 0)
        lowest = 0 if zero_based else 1
        if lowest:
            columns -= 1
        limit = _MAX_INDEX if num_features is None else num_features
        if columns.min() < 0 or columns.max() >= limit:
            first = int(np.argmax((columns < 0) | (columns >= limit)))
            index, line = columns[first] + lowest, entry_line(first)
            if columns[first] < 0:
                hint = " (1-based indices; pass zero_based=True or 'auto' for 0-based)" if index == 0 else ""
                raise InputError(f"{name}:{line}: feature index {index} is below {lowest}{hint}")
            if num_features is None:
                raise InputError(f"{name}:{line}: feature index {index} is too large")
            raise InputError(
                f"{name}:{line}: feature index {index} is beyond num_features={num_features} "
                f"(largest allowed {num_features - 1 + lowest})"
            )
        if num_features is None:
            _refuse_inferred_width(rows, columns, len(columns), name, lowest)
        indptr, columns, values = _sort_rows(rows.indptr, columns, rows.values)
    else:
        indptr, values = rows.indptr, rows.values
    width = num_features if num_features is not None else (int(columns.max()) + 1 if len(columns) else 0)
    qids, offsets = _groups(rows, name, path, query_file, require_groups, qid_order)
    labels, qids, offsets, indptr, columns, values = (
        _frozen(np.ascontiguousarray(array)) for array in (labels, qids, offsets, indptr, columns, values)
    )
    return LtrData(labels, qids, offsets, indptr, columns, values, num_features=width, source=name)


def _entry_line(rows: _Rows, entry: int) -> int:
    """The 1-based line of stored entry ``entry``."""
    return int(rows.lines[np.searchsorted(rows.indptr, entry, side="right") - 1])


def _refuse_inferred_width(rows: _Rows, columns: np.ndarray, stored: int, name: str, lowest: int) -> None:
    """Raise for the first entry whose 0-based column would make an inferred width wider than ``stored`` entries
    allow (:func:`~rankwise.ltr.limits.largest_inferred_width`); ``lowest`` is the first index (1 or 0)."""
    bound = largest_inferred_width(stored)
    with np.errstate(invalid="ignore"):
        beyond = columns >= bound  # NaN is never beyond: _integers reports it
    if not beyond.any():
        return
    first = int(np.argmax(beyond))
    raise InputError(
        f"{name}:{_entry_line(rows, first)}: feature index {int(columns[first]) + lowest} is far beyond the "
        f"{stored} stored values: a width read from the data may be at most {bound} (the larger of "
        f"{WIDTH_WITHOUT_ASKING} and the stored values); give the width (num_features=, on the command line "
        "--num-features) if the data is this wide"
    )


def _sort_rows(indptr: np.ndarray, columns: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
    """Sort each row's entries by column; of repeated columns keep the last one written."""
    rising = columns[1:] > columns[:-1]
    row_heads = indptr[1:-1]
    rising[row_heads[(row_heads > 0) & (row_heads < len(columns))] - 1] = True  # a new row may start anywhere
    if rising.all():
        return indptr, columns, values
    rows = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
    key = rows * (int(columns.max()) + 1) + columns
    order = np.argsort(key, kind="stable")
    key = key[order]
    last = np.ones(len(key), dtype=bool)
    last[:-1] = key[1:] != key[:-1]
    kept = order[last]
    counts = np.bincount(rows[kept], minlength=len(indptr) - 1)
    return _offsets(counts), columns[kept], values[kept]


def _check_choices(qid_order: object, doc_ids: object) -> None:
    for name, value, allowed in (("qid_order", qid_order, QID_ORDERS), ("doc_ids", doc_ids, DOC_ID_SOURCES)):
        if value not in allowed:
            raise RankwiseError(f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")


def _with_comment_doc_ids(data: LtrData, raw: bytes, lines: np.ndarray) -> LtrData:
    """``data`` with :attr:`LtrData.docnos` read from the trailing comment of each row's line (1-based
    ``lines``): ``#docid = ID`` or ``# ID ...``; a row without one, or an id twice in a query, names its line."""
    text = pl.Series("line", raw.decode("utf-8", "replace").split("\n"))
    docnos = text.gather(lines - 1).str.extract(_COMMENT_DOC_ID, 1)
    missing = docnos.is_null().to_numpy()
    if missing.any():
        raise InputError(
            f"{data.source}:{lines[np.argmax(missing)]}: no document id in a trailing comment "
            "(doc_ids='comment' reads '#docid = ID' or '# ID ...')"
        )
    try:
        return dataclasses.replace(data, docnos=docnos.to_numpy())
    except RankwiseError:  # the one check strings of the right count can fail: an id twice in a group
        groups = data.row_groups()
        row = _repeated_doc(groups, docnos)
        if row is None:
            raise
        first = int(np.argmax((groups == groups[row]) & (docnos.to_numpy() == docnos[row])))
        raise InputError(
            f"{data.source}:{lines[row]}: document {docnos[row]!r} of qid {data.qids[groups[row]]} "
            f"is already at line {lines[first]}"
        ) from None


def _groups(
    rows: _Rows, name: str, path: Path, query_file: PathLike | bool | None, require_groups: bool, qid_order: QidOrder
) -> tuple[np.ndarray, np.ndarray]:
    """(qids, group offsets) from the qid: column, a query file, or (allowed) one group of all rows."""
    n = len(rows.labels)
    default = Path(str(path) + ".query")
    if query_file is None:
        query_path = default if rows.qids is None and default.exists() else None
    elif isinstance(query_file, bool):
        query_path = default if query_file else None
    else:
        query_path = Path(query_file)
    sizes_from_file = None if query_path is None else _read_query_file(query_path, name, n)
    if rows.qids is None:
        if sizes_from_file is not None:
            return np.arange(len(sizes_from_file), dtype=np.int64), _offsets(sizes_from_file)
        if require_groups:
            raise InputError(
                f"{name}: no qid: on the rows and no query file {name}.query "
                f"(write each query's row count to {name}.query, one per line, as LightGBM does; from Python, "
                "query_file= or require_groups=False for one group of all rows)"
            )
        return np.zeros(1, dtype=np.int64), np.array([0, n], dtype=np.int64)
    qids = _integers(rows.qids, "qid", lambda row: int(rows.lines[row]), name)
    heads = np.flatnonzero(np.concatenate(([True], qids[1:] != qids[:-1])))
    group_qids = qids[heads]
    lines = rows.lines
    if qid_order == "increasing":
        falls = np.flatnonzero(group_qids[1:] < group_qids[:-1])
        if len(falls):  # the first line where the order breaks: a fall, or a qid seen before (also a fall)
            group = int(falls[0]) + 1
            earlier = np.flatnonzero(group_qids[:group] == group_qids[group])
            if not len(earlier):
                raise InputError(
                    f"{name}:{lines[heads[group]]}: qid {group_qids[group]} comes after qid {group_qids[group - 1]} "
                    f"(line {lines[heads[group - 1]]}); qids must increase (qid_order='any', on the command line "
                    "--any-qid-order, accepts contiguous groups in any order)"
                )
            _reappears(name, lines, heads, group_qids, group, int(earlier[-1]))
    else:  # increasing qids cannot repeat; in any order, find the first group that repeats an earlier qid
        order = np.argsort(group_qids, kind="stable")
        repeated = np.flatnonzero(group_qids[order][1:] == group_qids[order][:-1])
        if len(repeated):
            later = order[repeated + 1]
            first = int(np.argmin(later))
            _reappears(name, lines, heads, group_qids, int(later[first]), int(order[repeated[first]]))
    offsets = np.append(heads, n).astype(np.int64)
    if sizes_from_file is not None and not np.array_equal(sizes_from_file, np.diff(offsets)):
        raise InputError(f"{name}: the query file's group sizes disagree with the qid: groups of the rows")
    return group_qids, offsets


def _reappears(
    name: str, lines: np.ndarray, heads: np.ndarray, group_qids: np.ndarray, again: int, before: int
) -> None:
    """Raise: group ``again`` repeats the qid of the earlier group ``before``, which other groups followed."""
    ended = heads[before + 1] - 1
    raise InputError(
        f"{name}:{lines[heads[again]]}: qid {group_qids[again]} at line {lines[heads[again]]} "
        f"already ended at line {lines[ended]}; rows of one query must be contiguous"
    )


def _read_query_file(path: Path, data_name: str, rows: int) -> np.ndarray:
    """Group sizes from a LightGBM query file: one positive integer per line (blank lines skipped)."""
    name = str(path)
    if not path.exists():
        raise InputError(f"{name}: no such query file (for {data_name})")
    sizes = []
    for number, line in enumerate(read_bytes(path).split(b"\n"), start=1):
        token = line.strip()
        if not token:
            continue
        if not token.isdigit() or int(token) == 0:
            shown = token.decode("utf-8", "replace")
            raise InputError(f"{name}:{number}: group size {shown!r} is not a positive integer")
        sizes.append(int(token))
    total = sum(sizes)
    if total != rows:
        raise InputError(f"{name}: group sizes add up to {total} rows but {data_name} has {rows}")
    return np.array(sizes, dtype=np.int64)


# ---------------------------------------------------------------------------------------------------------------
# Writing


def _format_floats(values: np.ndarray) -> pl.Series:
    """Shortest text that reads back to the same float64 (``70`` rather than ``70.0``)."""
    return pl.Series(values, dtype=pl.Float64).cast(pl.String).str.strip_suffix(".0")


def write_svmlight(
    data: LtrData,
    path: PathLike,
    *,
    query_file: bool = False,
    zero_based: bool = False,
    labels: Any = None,
) -> None:
    """Write ``data`` as SVMlight text that :func:`read_svmlight` reads back exactly.

    - rows in order: ``label qid:<qid> index:value ...`` with 1-based indices (0-based with ``zero_based``);
      values are written as the shortest text that reads back to the same float64.
    - ``query_file=True``: no ``qid:`` tokens; the group sizes go to ``PATH.query`` (LightGBM's layout).
    - ``labels``: write these (one per row, integers or floats) instead of ``data.labels``.
    - :attr:`LtrData.docnos`, when present, end each row as ``#docid = ID`` (``doc_ids="comment"`` reads them).
    - a path ending in ``.gz`` is gzip-compressed.

    Tokens are formatted (each index once) and joined by polars, without a Python loop over rows.
    """
    path = Path(path)
    rows, nnz = data.num_rows, data.nnz
    label_values = data.labels if labels is None else np.asarray(labels).reshape(-1)
    if len(label_values) != rows:
        raise InputError(f"{path}: {len(label_values)} labels for {rows} rows")
    if np.issubdtype(label_values.dtype, np.integer):
        label_text = pl.Series(label_values.astype(np.int64)).cast(pl.String)
    else:
        label_text = _format_floats(label_values.astype(np.float64))
    # A row is "<label>[ qid:<qid>]", then " <index>:<value>" per feature, then "[ #docid = <id>]\n".
    head: list[pl.Series | pl.Expr] = [label_text]
    if not query_file:
        head += [pl.lit(" qid:"), pl.Series(data.qids).cast(pl.String).gather(data.row_groups())]
    heads = pl.select(pl.concat_str(head)).to_series()
    tails = pl.Series(["\n"] * rows, dtype=pl.String)
    if data.docnos is not None:
        docnos = pl.Series(data.docnos.tolist(), dtype=pl.String)
        unwritable = (docnos.str.contains(r"\s") | (docnos.str.len_chars() == 0)).to_numpy()
        if unwritable.any():
            shown = docnos[int(np.argmax(unwritable))]
            raise InputError(f"{path}: document id {shown!r} cannot be written as a comment (empty or white space)")
        tails = pl.select(pl.concat_str([pl.lit(" #docid = "), docnos, pl.lit("\n")])).to_series()
    shift = 0 if zero_based else 1
    if data.num_features <= nnz:  # format each index once
        names = pl.Series(np.arange(data.num_features, dtype=np.int64) + shift).cast(pl.String)
        keys = pl.select(pl.concat_str([pl.lit(" "), names, pl.lit(":")])).to_series().gather(data.indices)
    else:
        keys = pl.select(
            pl.concat_str([pl.lit(" "), pl.Series(data.indices.astype(np.int64) + shift).cast(pl.String), pl.lit(":")])
        ).to_series()
    features = pl.select(pl.concat_str([keys, _format_floats(data.values)])).to_series()
    row_of_entry = np.repeat(np.arange(rows, dtype=np.int64), np.diff(data.indptr))
    twice = 2 * np.arange(rows, dtype=np.int64)
    source = np.empty(2 * rows + nnz, dtype=np.int64)
    source[data.indptr[:-1] + twice] = np.arange(rows)
    source[np.arange(nnz) + 2 * row_of_entry + 1] = rows + np.arange(nnz)
    source[data.indptr[1:] + twice + 1] = rows + nnz + np.arange(rows)
    parts = pl.concat([heads.alias("t"), features.alias("t"), tails.alias("t")])
    payload = parts.gather(source).str.join("").item().encode()
    with gzip.open(path, "wb") if path.suffix == ".gz" else path.open("wb") as out:
        out.write(payload)
    if query_file:
        sizes = "".join(f"{size}\n" for size in data.group_sizes.tolist())
        Path(str(path) + ".query").write_text(sizes)
