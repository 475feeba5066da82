"""Row operations on flat arrays: ids coded once, rows grouped by query and ordered, grades looked up.

Each operation runs in compiled code (the ``rankwise._rowops`` C extension that ``pip install`` builds, linear
passes with no JIT) when it is present, and otherwise in numpy; the numpy version below each one defines what it
computes, and the tests run both on the same data. ``RANKWISE_PURE_NUMPY=1`` forces numpy.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import numpy as np
import polars as pl


def _native() -> ModuleType | None:
    if os.environ.get("RANKWISE_PURE_NUMPY"):
        return None
    try:
        return importlib.import_module("rankwise._rowops")
    except ImportError:
        return None


NATIVE = _native()
"""The compiled extension, or None (numpy is used)."""

DENSE_SPAN_PER_ROW = 4
"""Integer ids are coded through a lookup table when their range is at most this many times the row count."""


def text_order_codes(*columns: pl.Series) -> tuple[list[np.ndarray], pl.Series]:
    """Code the ids of ``columns`` jointly: ``codes[i][row]`` is the position of the row's id in ``distinct``, the
    distinct ids of all columns in the byte order of their text (integer ids by their decimal text: 10 before 9).

    Equal ids get equal codes in every column, so codes join tables; their order is the doc-id tie order. Integers
    in a narrow range are coded through a lookup table (O(rows)), other ids by a hash join against the distinct ids
    (sorted, not the rows)."""
    if all(c.dtype == pl.Int64 for c in columns):
        dense = _dense_integer_codes(columns)
        if dense is not None:
            return dense
    joined = pl.concat([c.rename("id") for c in columns]) if len(columns) > 1 else columns[0].rename("id")
    distinct = in_text_order(joined.unique())
    index = pl.DataFrame({"id": distinct, "code": np.arange(len(distinct), dtype=np.int64)})
    codes = [
        pl.DataFrame({"id": c.rename("id")}).join(index, on="id", how="left", maintain_order="left")["code"].to_numpy()
        for c in columns
    ]
    return codes, distinct


def in_text_order(ids: pl.Series) -> pl.Series:
    """Distinct ids sorted by the bytes of their text (integers by their decimal text)."""
    return ids.sort() if ids.dtype == pl.String else ids.gather(ids.cast(pl.String).arg_sort())


def _dense_integer_codes(columns: tuple[pl.Series, ...]) -> tuple[list[np.ndarray], pl.Series] | None:
    """:func:`text_order_codes` for integer ids whose range is at most ``DENSE_SPAN_PER_ROW`` × the rows: ids
    marked present in a table over their range, codes read back from it (no hashing); None for wider ranges."""
    rows = sum(len(c) for c in columns)
    present_in = [c for c in columns if len(c)]
    if not present_in:
        return None
    lowest = min(int(c.min()) for c in present_in)  # type: ignore[arg-type]
    span = max(int(c.max()) for c in present_in) - lowest + 1  # type: ignore[arg-type]
    if span > DENSE_SPAN_PER_ROW * rows:
        return None
    table = np.zeros(span, dtype=np.int64)
    offset_ids = [c.to_numpy() - lowest for c in columns]
    for ids in offset_ids:
        table[ids] = 1
    distinct = in_text_order(pl.Series("id", np.flatnonzero(table) + lowest, dtype=pl.Int64))
    table[distinct.to_numpy() - lowest] = np.arange(len(distinct), dtype=np.int64)
    return [table[ids] for ids in offset_ids], distinct


def group_order(
    qidx: np.ndarray, num_queries: int, score: np.ndarray | None, key: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows grouped by query index and each query's rows ordered by (score descending, key ascending).

    Returns ``(order, sorted_score, sorted_key, offsets)``: the row order, the scores and keys in that order, and
    ``offsets`` (length ``num_queries + 1``; the rows of query ``q`` are ``order[offsets[q]:offsets[q+1]]``).
    With keys unique within each query the order is total, so every sort algorithm gives the same one. Without
    ``score``, rows are ordered by key alone. numpy: ``np.lexsort((key, -score, qidx))``; compiled: a counting
    sort by query, then a sort of each query's rows.
    """
    n = len(qidx)
    qidx = np.ascontiguousarray(qidx, dtype=np.int64)
    key = np.ascontiguousarray(key, dtype=np.int64)
    score = np.zeros(n) if score is None else np.ascontiguousarray(score, dtype=np.float64)
    offsets = np.empty(num_queries + 1, dtype=np.int64)
    if NATIVE is not None:
        order, sorted_score, sorted_key = np.empty(n, np.int64), np.empty(n, np.float64), np.empty(n, np.int64)
        NATIVE.group_order(qidx, num_queries, score, key, order, sorted_score, sorted_key, offsets)
        return order, sorted_score, sorted_key, offsets
    order = np.lexsort((key, -score, qidx))
    offsets[0] = 0
    np.cumsum(np.bincount(qidx, minlength=num_queries), out=offsets[1:])
    return order, score[order], key[order], offsets


def lookup(
    qidx: np.ndarray, doc: np.ndarray, offsets: np.ndarray, judged_doc: np.ndarray, judged_value: np.ndarray,
    missing: int,
) -> np.ndarray:  # fmt: skip
    """For each row, the value of its (query, doc) among the judgments, or ``missing``.

    The judgments of query ``q`` are ``judged_doc[offsets[q]:offsets[q+1]]``, sorted ascending (as
    :func:`group_order` with the doc codes as key leaves them). numpy: a binary search on the combined key
    ``qidx · D + doc``; compiled: a binary search within each row's query.
    """
    qidx = np.ascontiguousarray(qidx, dtype=np.int64)
    doc = np.ascontiguousarray(doc, dtype=np.int64)
    judged_doc = np.ascontiguousarray(judged_doc, dtype=np.int64)
    judged_value = np.ascontiguousarray(judged_value, dtype=np.int64)
    out = np.empty(len(qidx), dtype=np.int64)
    if NATIVE is not None:
        NATIVE.lookup(qidx, doc, np.ascontiguousarray(offsets, dtype=np.int64), judged_doc, judged_value,
                      int(missing), out)  # fmt: skip
        return out
    if not len(judged_doc):
        out.fill(missing)
        return out
    span = int(max(judged_doc.max(), doc.max(initial=0))) + 1
    judged_q = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    judged_key = judged_q * span + judged_doc
    row_key = qidx * span + doc
    at = np.minimum(np.searchsorted(judged_key, row_key), len(judged_key) - 1)
    found = judged_key[at] == row_key
    out[:] = np.where(found, judged_value[at], missing)
    return out
