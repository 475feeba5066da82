"""Row operations on flat arrays: ids coded once, rows grouped by query and ordered, grades looked up.

Each operation runs in compiled code (the ``rankwise.engine._rowops`` C extension that ``pip install`` builds, linear
passes with no JIT) when it is present, and otherwise in numpy; the numpy version below each one defines what it
computes, and the tests run both on the same data. ``RANKWISE_PURE_NUMPY=1`` forces numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..io.native import load_native
from ..io.table import Chunks
from ..policies import threads

NATIVE = load_native("rankwise.engine._rowops")
"""The compiled extension, or None (numpy is used)."""

DENSE_SPAN_PER_ROW = 4
"""Integer ids are coded through a lookup table when their range is at most this many times the row count."""


def id_codes(*columns: pl.Series, narrow: bool = False) -> tuple[list[np.ndarray], pl.Series]:
    """Code the ids of ``columns`` jointly: ``codes[i][row]`` is the position of the row's id in ``distinct`` (the
    distinct ids of all columns, in no particular order). Equal ids get equal codes in every column, so codes join
    tables. Codes are int64, or int32 with ``narrow`` (where they fit: half the memory).

    Integers in a narrow range are coded through a lookup table over the range (O(rows), no hashing); other ids by
    their 64-bit hashes (one sort of integers, not of text), checked: every row's id must equal the id its hash
    stands for, else (a hash collision) by a join against the distinct ids."""
    return _dense_integer_codes(columns, narrow=narrow) or _narrowed(_hashed_codes(columns), narrow)


def _narrowed(coded: tuple[list[np.ndarray], pl.Series], narrow: bool) -> tuple[list[np.ndarray], pl.Series]:
    """``coded`` with int32 codes where ``narrow`` and they fit."""
    codes, distinct = coded
    if narrow and len(distinct) < 2**31:
        codes = [c.astype(np.int32) for c in codes]
    return codes, distinct


def _hashed_codes(columns: tuple[pl.Series, ...]) -> tuple[list[np.ndarray], pl.Series]:
    """:func:`id_codes` by the ids' 64-bit hashes (see there)."""
    starts = [_id_runs(c) for c in columns]
    if any(start is not None for start in starts):  # code each run of equal ids once (a run's rows per query)
        heads = [c if start is None else c.filter(pl.Series(start)) for c, start in zip(columns, starts)]
        head_codes, distinct = _hashed_codes(tuple(heads))  # the same range of ids over fewer rows: no table
        expanded = [codes if start is None else codes[np.cumsum(start) - 1]
                    for codes, start in zip(head_codes, starts)]  # fmt: skip
        return expanded, distinct
    joined = pl.concat([c.rename("id") for c in columns]) if len(columns) > 1 else columns[0].rename("id")
    if not len(joined):
        return [np.zeros(0, dtype=np.int64) for _ in columns], joined
    inverse, representative = _distinct_values(joined.hash().to_numpy())
    distinct = joined.gather(representative)
    if (joined == distinct.gather(inverse)).all():
        bounds = np.cumsum([0, *(len(c) for c in columns)])
        return [inverse[bounds[i] : bounds[i + 1]] for i in range(len(columns))], distinct
    distinct = joined.unique()
    index = pl.DataFrame({"id": distinct, "code": np.arange(len(distinct), dtype=np.int64)})
    joins = [pl.DataFrame({"id": c.rename("id")}).join(index, on="id", how="left", maintain_order="left")
             for c in columns]  # fmt: skip
    return [j.get_column("code").to_numpy() for j in joins], distinct


def _id_runs(ids: pl.Series) -> np.ndarray | None:
    """Bool per row: the row's id differs from the previous row's; None unless the rows form runs of 4 or more on
    average (ids written query by query), where coding each run once pays."""
    if len(ids) < 64:
        return None
    starts = ids.ne_missing(ids.shift(1)).to_numpy()
    return starts if 4 * np.count_nonzero(starts) <= len(ids) else None


def run_starts(*keys: np.ndarray) -> np.ndarray:
    """Bool per row: the row starts a new run of equal ``keys`` (rows with equal keys adjacent), e.g. a new group
    of tied scores within a query for keys (query, score)."""
    starts = np.zeros(len(keys[0]), dtype=bool)
    starts[:1] = True
    for key in keys:
        starts[1:] |= key[1:] != key[:-1]
    return starts


def _distinct_values(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code of each value among the distinct values in ascending order, one row index holding each distinct
    value): one unstable sort, cheaper than ``np.unique``'s stable one with ``return_index``."""
    order = np.argsort(values)
    ordered = values[order]
    starts = np.empty(len(values), dtype=bool)
    starts[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    codes = np.empty(len(values), dtype=np.int64)
    codes[order] = np.cumsum(starts) - 1
    return codes, order[starts]


def text_order_codes(*columns: pl.Series, narrow: bool = False) -> tuple[list[np.ndarray], pl.Series]:
    """:func:`id_codes` with ``distinct`` in the byte order of the ids' text (integer ids by their decimal text: 10
    before 9), the order of query ids in every result: only the distinct ids are sorted."""
    dense = _dense_integer_codes(columns, in_text_order=True, narrow=narrow)
    if dense is not None:
        return dense
    codes, distinct = _hashed_codes(columns)
    order = text_order(distinct)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return _narrowed(([rank[c] for c in codes], distinct.gather(order)), narrow)


def text_order(ids: pl.Series) -> np.ndarray:
    """The positions of ``ids`` sorted by the bytes of their text (integers by their decimal text)."""
    text = ids if ids.dtype == pl.String else ids.cast(pl.String)
    return text.arg_sort().to_numpy()


def in_text_order(ids: pl.Series) -> pl.Series:
    """Distinct ids sorted by the bytes of their text (integers by their decimal text)."""
    return ids.gather(text_order(ids))


def _dense_integer_codes(
    columns: tuple[pl.Series, ...], in_text_order: bool = False, narrow: bool = False
) -> tuple[list[np.ndarray], pl.Series] | None:
    """:func:`id_codes` for integer ids whose range is at most ``DENSE_SPAN_PER_ROW`` × the rows: ids marked present
    in a table over their range, codes read back from it (no hashing, int32 codes written as they are read where
    ``narrow``); None for wider ranges. ``in_text_order``: the codes (and ``distinct``) in the text order of the
    ids, as :func:`text_order_codes` gives them (the table holds each id's rank, so the rows are read once); None
    for ids that are not all Int64."""
    if not all(c.dtype == pl.Int64 for c in columns):
        return None
    rows = sum(len(c) for c in columns)
    present_in = [c for c in columns if len(c)]
    if not present_in:
        return None
    lowest = min(int(c.min()) for c in present_in)  # type: ignore[arg-type]
    span = max(int(c.max()) for c in present_in) - lowest + 1  # type: ignore[arg-type]
    if span > DENSE_SPAN_PER_ROW * rows:
        return None
    table = np.zeros(span, dtype=np.int64)
    ids = [Chunks.of(c) for c in columns]  # views of the columns' chunks: no copy of a chunked column
    for column in ids:
        for part in column.parts:
            if NATIVE is not None:
                NATIVE.table_codes(part, lowest, table, None, threads())
            else:
                table[part - lowest] = 1
    present = np.flatnonzero(table)
    distinct = pl.Series("id", present + lowest, dtype=pl.Int64)
    order = text_order(distinct) if in_text_order else np.arange(len(present), dtype=np.int64)
    table[present[order]] = np.arange(len(present), dtype=np.int64)
    codes = []
    code_type = np.int32 if narrow and len(present) < 2**31 else np.int64
    for column in ids:
        out = np.empty(sum(len(part) for part in column.parts), dtype=code_type)
        start = 0
        for part in column.parts:
            if NATIVE is not None:
                NATIVE.table_codes(part, lowest, table, out[start : start + len(part)], threads())
            else:
                out[start : start + len(part)] = table[part - lowest]
            start += len(part)
        codes.append(out)
    return codes, distinct.gather(order) if in_text_order else distinct


def group_order(
    qidx: np.ndarray, num_queries: int, score: np.ndarray | None, key: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows grouped by query index and each query's rows ordered by (score descending, key ascending).

    Returns ``(order, sorted_score, sorted_key, offsets)``: the row order, the scores and keys in that order, and
    ``offsets`` (length ``num_queries + 1``; the rows of query ``q`` are ``order[offsets[q]:offsets[q+1]]``).
    With keys unique within each query the order is total, so every sort algorithm gives the same one. Without
    ``score``, rows are ordered by key alone; without ``key``, the key is the row's input position (and
    ``sorted_key`` is ``order``). numpy: ``np.lexsort((key, -score, qidx))``; compiled: a counting sort by query,
    then a sort of each query's rows, the queries split over :func:`threads` threads.
    """
    n = len(qidx)
    qidx = np.ascontiguousarray(qidx, dtype=np.int64)
    offsets = np.empty(num_queries + 1, dtype=np.int64)
    if NATIVE is not None:  # without scores none are made or moved: the zeros returned are never touched (calloc)
        order = np.empty(n, np.int64)
        if score is None:
            in_score, sorted_score = None, np.zeros(n)
        else:
            in_score, sorted_score = np.ascontiguousarray(score, dtype=np.float64), np.empty(n, np.float64)
        out_score = None if score is None else sorted_score
        if key is None:
            NATIVE.group_order(qidx, num_queries, in_score, None, order, out_score, None, offsets, threads())
            return order, sorted_score, order, offsets
        key = np.ascontiguousarray(key, dtype=np.int64)
        sorted_key = np.empty(n, np.int64)
        NATIVE.group_order(qidx, num_queries, in_score, key, order, out_score, sorted_key, offsets, threads())
        return order, sorted_score, sorted_key, offsets
    score = np.zeros(n) if score is None else np.ascontiguousarray(score, dtype=np.float64)
    key = np.arange(n, dtype=np.int64) if key is None else np.ascontiguousarray(key, dtype=np.int64)
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
    ``qidx · D + doc``; compiled: a binary search within each row's query, the rows split over :func:`threads`
    threads.
    """
    qidx = np.ascontiguousarray(qidx, dtype=np.int64)
    doc = np.ascontiguousarray(doc, dtype=np.int64)
    judged_doc = np.ascontiguousarray(judged_doc, dtype=np.int64)
    judged_value = np.ascontiguousarray(judged_value, dtype=np.int64)
    out = np.empty(len(qidx), dtype=np.int64)
    if NATIVE is not None:
        NATIVE.lookup(qidx, doc, np.ascontiguousarray(offsets, dtype=np.int64), judged_doc, judged_value,
                      int(missing), out, threads())  # fmt: skip
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


def distinct_items(user: np.ndarray, num_users: int, item: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (user, item) pairs grouped by user: ``(items, offsets)``, the items of user ``u`` ascending in
    ``items[offsets[u]:offsets[u+1]]`` (the layout :func:`lookup` searches).

    numpy: :func:`group_order` by user with the items as key, then the first of each run of equal pairs kept;
    compiled: a counting sort placing only the items (every core), each user's items sorted and their repeats dropped
    (threads over users), then packed.
    """
    user = np.ascontiguousarray(user, dtype=np.int64)
    item = np.ascontiguousarray(item, dtype=np.int64)
    offsets = np.empty(num_users + 1, dtype=np.int64)
    if NATIVE is not None:
        items = np.empty(len(item), dtype=np.int64)
        kept = NATIVE.distinct_items(user, num_users, item, items, offsets, threads())
        return items[:kept].copy() if kept < len(item) // 2 else items[:kept], offsets
    _, _, sorted_item, grouped = group_order(user, num_users, None, item)
    first = np.empty(len(sorted_item), dtype=bool)  # a pair's first row: a new user or a new item
    first[:1] = True
    np.not_equal(sorted_item[1:], sorted_item[:-1], out=first[1:])
    first[grouped[:-1][grouped[:-1] < len(first)]] = True
    at = np.flatnonzero(first)  # the kept rows; a user's first kept row is the first at or after its offset
    offsets[:] = np.searchsorted(at, grouped)
    return sorted_item[at], offsets


def segment_counts(flags: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per row, how many rows of its query up to and including it have ``flags`` (rows grouped by query,
    ``offsets[q]:offsets[q+1]``), as int64. numpy: a cumulative sum less each query's sum before it; compiled: a
    running count per query (threads over queries)."""
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if NATIVE is not None and flags.dtype == np.bool_:
        out = np.empty(len(flags), dtype=np.int64)
        NATIVE.segment_counts(np.ascontiguousarray(flags), offsets, out, threads())
        return out
    total = np.zeros(len(flags) + 1, dtype=np.int64)
    np.cumsum(flags, out=total[1:])
    return total[1:] - np.repeat(total[offsets[:-1]], np.diff(offsets))


def segment_sums(values: np.ndarray, offsets: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Σ ``values`` over each query's rows ``offsets[q]:offsets[q+1]`` (only rows where ``mask``), as float64.

    numpy: ``np.bincount(query, weights=values)`` with each row's query; compiled: one pass per query, adding the
    rows in row order as bincount does (so the sums are bit-identical), queries split over :func:`threads`
    threads. Values may be bool (counted as 1).
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    num_queries = len(offsets) - 1
    if values.dtype != np.bool_:
        values = np.ascontiguousarray(values, dtype=np.float64)
    if NATIVE is not None:
        out = np.empty(num_queries, dtype=np.float64)
        flags = None if mask is None else np.ascontiguousarray(mask, dtype=np.bool_)
        NATIVE.segment_sums(np.ascontiguousarray(values), offsets, flags, out, threads())
        return out
    query = np.repeat(np.arange(num_queries, dtype=np.int64), np.diff(offsets))
    if mask is not None:
        query, values = query[mask], values[mask]
    return np.bincount(query, weights=values, minlength=num_queries).astype(np.float64)


def code_counts(codes: np.ndarray, size: int) -> np.ndarray:
    """How many rows hold each code: ``np.bincount(codes, minlength=size)`` (int64), codes in ``0..size-1``.
    Compiled for int32 codes: one pass, without the int64 copy of all codes that bincount makes first."""
    if NATIVE is not None and codes.dtype == np.int32:
        out = np.zeros(size, dtype=np.int64)
        NATIVE.code_counts(np.ascontiguousarray(codes), out)
        return out
    return np.bincount(codes, minlength=size).astype(np.int64, copy=False)


def range_rows(
    query: np.ndarray, doc: np.ndarray, values: Chunks, low: int, high: int, count: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows whose query code lies in ``low ≤ query < high``, in row order, with their codes as int64 (query codes
    counted from ``low``) and their values: ``(rows, query[rows] − low, doc[rows], values.take(rows))`` for ``rows =
    flatnonzero((query >= low) & (query < high))``. ``query`` and ``doc``: int32 codes; ``values``: the column's
    chunks; ``count``: the number of such rows (known from the rows per query).

    Compiled: one pass over each thread's block counts its rows, a second writes them (codes and value, read from
    the chunk holding the row) after the blocks before it — the same rows in the same order as numpy's passes."""
    parts = values.parts
    eight = all(part.dtype.itemsize == 8 and part.dtype == parts[0].dtype for part in parts)
    if NATIVE is not None and query.dtype == np.int32 and doc.dtype == np.int32 and parts and eight:
        rows, query_out, doc_out = (np.empty(count, dtype=np.int64) for _ in range(3))
        value = np.empty(count, dtype=parts[0].dtype)
        NATIVE.range_rows(np.ascontiguousarray(query), np.ascontiguousarray(doc), low, high, rows, query_out, doc_out,
                          threads(), tuple(np.ascontiguousarray(part) for part in parts), value)  # fmt: skip
        return rows, query_out, doc_out, value
    rows = np.flatnonzero((query >= low) & (query < high))
    if len(rows) != count:
        raise ValueError(f"range_rows: {len(rows)} rows lie in the range, room for {count}")
    return rows, query[rows].astype(np.int64) - low, doc[rows].astype(np.int64), values.take(rows)


def align_rows(
    code: np.ndarray, code_query: np.ndarray, score: np.ndarray, doc: np.ndarray, judged_offsets: np.ndarray,
    judged_doc: np.ndarray, judged_value: np.ndarray, missing: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Rows grouped by query, each query ranked, every row's judged value looked up: the ranked form of a run.

    Row ``i`` belongs to query ``code_query[code[i]]`` (−1: the row is left out) of ``len(judged_offsets) − 1``.
    Returns ``(score, doc, value, query, rank, offsets)`` of the kept rows in rank order: within each query by score
    descending, equal scores in input order (:func:`group_order` without a key), ``value`` the row's doc's value
    among its query's judgments (:func:`lookup`; ``missing`` where it has none), ``rank`` 1-based within the query.
    numpy: those functions one after another; compiled: one counting sort by query on every core, then each query
    ordered and looked up while its rows are in cache (:func:`threads` threads over query ranges).
    """
    code = np.ascontiguousarray(code, dtype=np.int64)
    code_query = np.ascontiguousarray(code_query, dtype=np.int64)
    score = np.ascontiguousarray(score, dtype=np.float64)
    doc = np.ascontiguousarray(doc, dtype=np.int64)
    judged_offsets = np.ascontiguousarray(judged_offsets, dtype=np.int64)
    num_queries = len(judged_offsets) - 1
    if NATIVE is not None:
        n = len(code)
        out = np.empty(n, np.float64), *(np.empty(n, np.int64) for _ in range(4))
        offsets = np.empty(num_queries + 1, np.int64)
        kept = NATIVE.align_rows(code, code_query, score, doc, judged_offsets,
                                 np.ascontiguousarray(judged_doc, dtype=np.int64),
                                 np.ascontiguousarray(judged_value, dtype=np.int64), int(missing), *out, offsets,
                                 threads())  # fmt: skip
        sorted_score, sorted_doc, value, query, rank = (a if kept == n else a[:kept] for a in out)
        return sorted_score, sorted_doc, value, query, rank, offsets
    query = code_query[code]
    keep = query >= 0
    if not keep.all():
        query, score, doc = query[keep], score[keep], doc[keep]
    order, sorted_score, _, offsets = group_order(query, num_queries, score, None)
    query = np.repeat(np.arange(num_queries, dtype=np.int64), np.diff(offsets))
    sorted_doc = doc[order]
    value = lookup(query, sorted_doc, judged_offsets, judged_doc, judged_value, missing)
    rank = np.arange(len(query), dtype=np.int64) - offsets[query] + 1
    return sorted_score, sorted_doc, value, query, rank, offsets


def concatenated_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices ``starts[0] .. starts[0]+counts[0]-1, starts[1] .. starts[1]+counts[1]-1, ...`` as one array
    (e.g. the entries of some rows of a CSR matrix), without a Python loop."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    begins = np.cumsum(counts) - counts
    return np.repeat(np.asarray(starts, dtype=np.int64) - begins, counts) + np.arange(total, dtype=np.int64)
