"""From parsed SVMlight rows to :class:`~rankwise.ltr.data.LtrData`: labels and indices checked to be integers,
the width (given, or read from the data within :mod:`rankwise.ltr.limits`), each row's features sorted, groups from
``qid:`` or a LightGBM ``.query`` file, and document ids from trailing comments. Every error names file:line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import numpy as np
import polars as pl

from ..errors import InputError, RankwiseError
from ..io.trec import read_bytes
from .data import LtrData, PathLike, csr_offsets, read_only, repeated_doc
from .limits import MAX_WIDTH, WIDTH_WITHOUT_ASKING, largest_inferred_width
from .svmlight_lines import ParsedRows

ZeroBased = bool | Literal["auto"]
"""How feature indices count: ``False`` from 1, ``True`` from 0, ``"auto"`` from 0 when some index is 0."""
DocIds = Literal["position", "comment"]
"""Where documents get their ids: their position in their query, or each row's trailing comment."""
DOC_ID_SOURCES = ("position", "comment")
"""The values of :data:`DocIds`."""
QidOrder = Literal["increasing", "any"]
"""Which order of qid groups is accepted: increasing qids, or contiguous groups in any order."""
QID_ORDERS = ("increasing", "any")
"""The values of :data:`QidOrder`."""

_COMMENT_DOC_ID = r"#\s*(?:docid\s*=\s*)?(\S+)"
_MAX_INDEX = np.iinfo(np.int32).max


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


def assemble(
    rows: ParsedRows,
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
    if num_features is not None and not 0 <= num_features <= MAX_WIDTH:
        raise RankwiseError(f"num_features must be an integer from 0 to {MAX_WIDTH:,} (LightGBM and XGBoost index "
                            f"columns with 32-bit integers), not {num_features}")  # fmt: skip

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
            refuse_inferred_width(rows, columns, len(columns), name, lowest)
        indptr, columns, values = _sort_rows(rows.indptr, columns, rows.values)
    else:
        indptr, values = rows.indptr, rows.values
    width = num_features if num_features is not None else (int(columns.max()) + 1 if len(columns) else 0)
    qids, offsets = _groups(rows, name, path, query_file, require_groups, qid_order)
    labels, qids, offsets, indptr, columns, values = (
        read_only(np.ascontiguousarray(array)) for array in (labels, qids, offsets, indptr, columns, values)
    )
    return LtrData(labels, qids, offsets, indptr, columns, values, num_features=width, source=name)


def _entry_line(rows: ParsedRows, entry: int) -> int:
    """The 1-based line of stored entry ``entry``."""
    return int(rows.lines[np.searchsorted(rows.indptr, entry, side="right") - 1])


def refuse_inferred_width(rows: ParsedRows, columns: np.ndarray, stored: int, name: str, lowest: int) -> None:
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
    return csr_offsets(counts), columns[kept], values[kept]


def check_choices(qid_order: object, doc_ids: object) -> None:
    """Raise a :class:`RankwiseError` unless ``qid_order`` and ``doc_ids`` are among their allowed values."""
    for name, value, allowed in (("qid_order", qid_order, QID_ORDERS), ("doc_ids", doc_ids, DOC_ID_SOURCES)):
        if value not in allowed:
            raise RankwiseError(f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")


def with_comment_doc_ids(data: LtrData, raw: bytes, lines: np.ndarray) -> LtrData:
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
        row = repeated_doc(groups, docnos)
        if row is None:
            raise
        first = int(np.argmax((groups == groups[row]) & (docnos.to_numpy() == docnos[row])))
        raise InputError(
            f"{data.source}:{lines[row]}: document {docnos[row]!r} of qid {data.qids[groups[row]]} "
            f"is already at line {lines[first]}"
        ) from None


def _groups(
    rows: ParsedRows,
    name: str,
    path: Path,
    query_file: PathLike | bool | None,
    require_groups: bool,
    qid_order: QidOrder,
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
            return np.arange(len(sizes_from_file), dtype=np.int64), csr_offsets(sizes_from_file)
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
