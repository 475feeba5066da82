"""The compiled row operations (``rankwise.engine._rowops``) equal their numpy definitions
(:mod:`rankwise.engine.rowops`), on the operations themselves and end to end: every dialect gives bit-identical
per-query values on either path."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from rankwise.dialects import DIALECTS
from rankwise.engine import rowops
from rankwise.engine.aligned import UNJUDGED
from rankwise.io.table import Chunks

needs_native = pytest.mark.skipif(rowops.NATIVE is None, reason="the C extension rankwise.engine._rowops is not built "
                                  "(pip install . builds it where a C compiler is found)")  # fmt: skip


@pytest.fixture
def numpy_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rowops, "NATIVE", None)


def _both(call):  # type: ignore[no-untyped-def]
    """``call()`` with the compiled extension and with numpy."""
    native = call()
    saved, rowops.NATIVE = rowops.NATIVE, None
    try:
        return native, call()
    finally:
        rowops.NATIVE = saved


@needs_native
@settings(max_examples=150, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 60), min_size=1, max_size=12),
    distinct_scores=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_group_order_equals_numpy(sizes: list[int], distinct_scores: int, seed: int) -> None:
    """Shuffled rows, few distinct scores (many ties), keys unique within each query (so the order is total)."""
    rng = np.random.default_rng(seed)
    qidx = np.repeat(np.arange(len(sizes)), sizes)
    key = np.concatenate([rng.permutation(100)[:n] for n in sizes]).astype(np.int64) - 50
    score = rng.integers(0, distinct_scores, len(qidx)).astype(np.float64) / 3
    shuffle = rng.permutation(len(qidx))
    native, reference = _both(lambda: rowops.group_order(qidx[shuffle], len(sizes), score[shuffle], key[shuffle]))
    for a, b in zip(native, reference):
        assert np.array_equal(a, b)
    order, sorted_score, sorted_key, offsets = native
    assert np.array_equal(np.diff(offsets), sizes)
    assert np.array_equal(qidx[shuffle][order], np.repeat(np.arange(len(sizes)), sizes))
    assert np.array_equal(sorted_score, score[shuffle][order]) and np.array_equal(sorted_key, key[shuffle][order])
    for keyed in (key[shuffle], None):  # without scores (none made or moved by the compiled pass): by key alone
        native, reference = _both(lambda keyed=keyed: rowops.group_order(qidx[shuffle], len(sizes), None, keyed))
        for a, b in zip(native, reference):
            assert np.array_equal(a, b)


@needs_native
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), num_queries=st.integers(1, 8))
def test_lookup_equals_numpy(seed: int, num_queries: int) -> None:
    rng = np.random.default_rng(seed)
    judged = [np.sort(rng.choice(30, int(rng.integers(0, 12)), replace=False)) for _ in range(num_queries)]
    offsets = np.concatenate(([0], np.cumsum([len(j) for j in judged]))).astype(np.int64)
    judged_doc = np.concatenate(judged).astype(np.int64)
    judged_value = rng.integers(-1, 4, len(judged_doc)).astype(np.int64)
    qidx = rng.integers(0, num_queries, 200).astype(np.int64)
    doc = rng.integers(0, 35, 200).astype(np.int64)
    native, reference = _both(lambda: rowops.lookup(qidx, doc, offsets, judged_doc, judged_value, UNJUDGED))
    assert np.array_equal(native, reference)
    expected = [dict(zip(judged[q].tolist(), judged_value[offsets[q]:offsets[q + 1]].tolist())).get(d, UNJUDGED)
                for q, d in zip(qidx.tolist(), doc.tolist())]  # fmt: skip
    assert native.tolist() == expected


@needs_native
@settings(max_examples=150, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 90), min_size=1, max_size=12),
    distinct_scores=st.integers(1, 6),
    left_out=st.integers(0, 2**12 - 1),
    seed=st.integers(0, 2**32 - 1),
)
def test_align_rows_equals_numpy(sizes: list[int], distinct_scores: int, left_out: int, seed: int) -> None:
    """The fused pass (group, order, look up, rank) equals its numpy definition, with codes mapped to queries out of
    order, some codes left out (−1) and many tied scores; and each output is what it says: the kept rows, grouped by
    query, by score descending then input position, each with its doc's judged value and its 1-based rank."""
    rng = np.random.default_rng(seed)
    num_codes = len(sizes)
    kept = [c for c in range(num_codes) if not left_out >> c & 1]
    code_query = np.full(num_codes, -1, dtype=np.int64)
    code_query[rng.permutation(kept).astype(np.int64)] = np.arange(len(kept))
    code = rng.permutation(np.repeat(np.arange(num_codes), sizes)).astype(np.int64)
    score = rng.integers(0, distinct_scores, len(code)).astype(np.float64) / 3
    doc = rng.integers(0, 40, len(code)).astype(np.int64)  # short and long queries, few and many judgments
    judged = [np.sort(rng.choice(40, int(rng.integers(0, 30)), replace=False)) for _ in kept]
    judged_offsets = np.concatenate(([0], np.cumsum([len(j) for j in judged]))).astype(np.int64)
    judged_doc = np.concatenate([np.zeros(0), *judged]).astype(np.int64)
    judged_value = rng.integers(0, 4, len(judged_doc)).astype(np.int64)
    native, reference = _both(lambda: rowops.align_rows(code, code_query, score, doc, judged_offsets, judged_doc,
                                                        judged_value, UNJUDGED))  # fmt: skip
    for a, b in zip(native, reference):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    sorted_score, sorted_doc, value, query, rank, offsets = native
    query_of_row = code_query[code]
    expected = np.lexsort((np.arange(len(code)), -score, query_of_row))
    expected = expected[query_of_row[expected] >= 0]
    assert np.array_equal(sorted_score, score[expected]) and np.array_equal(sorted_doc, doc[expected])
    assert np.array_equal(query, query_of_row[expected])
    assert np.array_equal(offsets, np.concatenate(([0], np.cumsum(np.bincount(query, minlength=len(kept))))))
    assert np.array_equal(rank, np.arange(len(query)) - offsets[query] + 1)
    values = [dict(zip(judged[q].tolist(), judged_value[judged_offsets[q]:judged_offsets[q + 1]].tolist()))
              for q in range(len(kept))]  # fmt: skip
    assert value.tolist() == [values[q].get(d, UNJUDGED) for q, d in zip(query.tolist(), sorted_doc.tolist())]


@needs_native
def test_align_rows_on_several_threads_equals_one() -> None:
    """Above 2 M rows the fused pass counts, places and ranks on several threads: the same arrays as one thread."""
    rng = np.random.default_rng(11)
    n, num_codes = 2_200_000, 30_000
    code = rng.integers(0, num_codes, n).astype(np.int64)
    code_query = np.where(rng.random(num_codes) < 0.9, 0, -1)
    code_query[code_query == 0] = rng.permutation(int((code_query == 0).sum()))
    num_queries = int(code_query.max()) + 1
    judged_offsets = np.arange(0, 3 * num_queries + 1, 3, dtype=np.int64)
    judged_doc = np.sort(rng.integers(0, 500, (num_queries, 3)), axis=1).ravel()
    args = (code, code_query, rng.integers(0, 4, n).astype(np.float64), rng.integers(0, 500, n), judged_offsets,
            judged_doc, np.arange(len(judged_doc)), -1)  # fmt: skip
    results = []
    for count in ("1", "2", "3"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RANKWISE_THREADS", count)
            results.append(rowops.align_rows(*args))
    assert all(all(np.array_equal(a, b) for a, b in zip(results[0], other)) for other in results[1:])
    with pytest.raises(ValueError, match="outside code_query"):
        rowops.align_rows(code + num_codes, *args[1:])


@needs_native
@settings(max_examples=150, deadline=None)
@given(sizes=st.lists(st.integers(0, 30), min_size=1, max_size=12), seed=st.integers(0, 2**32 - 1),
       kind=st.sampled_from(["float", "bool", "int"]), masked=st.booleans())  # fmt: skip
def test_segment_sums_are_bincounts_bit_for_bit(sizes: list[int], seed: int, kind: str, masked: bool) -> None:
    """Per-query sums of rows grouped by query (empty queries among them) equal numpy's bincount over each row's
    query bit for bit: the same numbers added in the same order, on either path."""
    rng = np.random.default_rng(seed)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(offsets[-1])
    values = {"float": rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n), "bool": rng.random(n) < 0.5,
              "int": rng.integers(-5, 5, n)}[kind]  # fmt: skip
    mask = rng.random(n) < 0.6 if masked else None
    query = np.repeat(np.arange(len(sizes)), sizes)
    keep = np.ones(n, dtype=bool) if mask is None else mask
    expected = np.bincount(query[keep], weights=values[keep], minlength=len(sizes))
    native, reference = _both(lambda: rowops.segment_sums(values, offsets, mask))
    assert native.tobytes() == expected.tobytes() and reference.tobytes() == expected.tobytes()


@needs_native
@settings(max_examples=150, deadline=None)
@given(pairs=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 60)), max_size=200))
def test_distinct_items_per_user_equal_numpy(pairs: list[tuple[int, int]]) -> None:
    """Each user's distinct items, ascending (users with many items and repeated pairs among them), on either path:
    the sets of items per user."""
    user = np.array([u for u, _ in pairs], dtype=np.int64)
    item = np.array([i for _, i in pairs], dtype=np.int64)
    native, reference = _both(lambda: rowops.distinct_items(user, 6, item))
    assert all(np.array_equal(a, b) for a, b in zip(native, reference))
    items, offsets = native
    expected = [sorted({i for u, i in pairs if u == v}) for v in range(6)]
    assert [items[offsets[v]:offsets[v + 1]].tolist() for v in range(6)] == expected


@needs_native
def test_distinct_items_on_several_threads_equal_one() -> None:
    rng = np.random.default_rng(5)
    user, item = rng.integers(0, 20_000, 2_500_000), rng.integers(0, 400, 2_500_000)
    results = []
    for count in ("1", "2", "3"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RANKWISE_THREADS", count)
            results.append(rowops.distinct_items(user, 20_000, item))
    assert all(all(np.array_equal(a, b) for a, b in zip(results[0], other)) for other in results[1:])
    key = np.unique(user * 400 + item)
    assert np.array_equal(results[0][0], key % 400) and results[0][1][-1] == len(key)


@needs_native
@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.integers(0, 30), min_size=1, max_size=12), seed=st.integers(0, 2**32 - 1))
def test_segment_counts_are_running_counts_within_each_query(sizes: list[int], seed: int) -> None:
    """Per row, the flags of its query up to and including it (empty queries among them), on either path."""
    flags = np.random.default_rng(seed).random(sum(sizes)) < 0.4
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    native, reference = _both(lambda: rowops.segment_counts(flags, offsets))
    expected = [int(flags[a:i + 1].sum()) for a, b in itertools.pairwise(offsets.tolist()) for i in range(a, b)]
    assert native.dtype == reference.dtype == np.int64
    assert native.tolist() == reference.tolist() == expected


@needs_native
def test_grouping_counted_on_several_threads_keeps_input_order() -> None:
    """Above 2 M rows the counting sort by query runs on several threads (each counts and places a range of rows):
    the same order as one thread and as numpy (query, score descending, then input position)."""
    rng = np.random.default_rng(7)
    n, num_queries = 2_500_000, 40_000
    qidx = rng.integers(0, num_queries, n).astype(np.int64)
    score = rng.integers(0, 3, n).astype(np.float64)  # many ties: input order decides
    expected = np.lexsort((np.arange(n), -score, qidx))
    for count in ("1", "2", "3"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RANKWISE_THREADS", count)
            order, sorted_score, _, offsets = rowops.group_order(qidx, num_queries, score, None)
        assert np.array_equal(order, expected) and np.array_equal(sorted_score, score[expected])
        assert np.array_equal(offsets, np.concatenate(([0], np.cumsum(np.bincount(qidx, minlength=num_queries)))))


@needs_native
def test_native_refuses_bad_buffers() -> None:
    with pytest.raises(ValueError, match="outside"):
        rowops.group_order(np.array([0, 3]), 2, np.zeros(2), np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="expected"):
        assert rowops.NATIVE is not None
        rowops.NATIVE.lookup(np.zeros(2, np.int64), np.zeros(3, np.int64), np.zeros(2, np.int64),
                             np.zeros(0, np.int64), np.zeros(0, np.int64), 0, np.zeros(2, np.int64), 1)  # fmt: skip


@needs_native
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), distinct_scores=st.integers(1, 50))
def test_threads_and_keyless_order_change_nothing(seed: int, distinct_scores: int) -> None:
    """Queries split over 1, 2, 3 or 7 threads (above the 65,536 rows per thread where threads start) give the
    same order, and ``key=None`` orders ties by input position as ``key=arange`` does."""
    rng = np.random.default_rng(seed)
    n = 300_000
    num_queries = int(rng.integers(1, 5000))
    qidx = rng.integers(0, num_queries, n).astype(np.int64)
    score = rng.integers(0, distinct_scores, n).astype(np.float64)
    doc = rng.integers(0, 1000, n).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(np.bincount(qidx, minlength=num_queries)))).astype(np.int64)
    judged_doc = np.sort(rng.integers(0, 1000, offsets[-1]))  # any sorted values: searched within each query
    judged_doc = np.concatenate([np.sort(judged_doc[a:b]) for a, b in itertools.pairwise(offsets)])
    results = []
    for count in ("1", "2", "3", "7"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RANKWISE_THREADS", count)
            keyless = rowops.group_order(qidx, num_queries, score, None)
            keyed = rowops.group_order(qidx, num_queries, score, np.arange(n, dtype=np.int64))
            found = rowops.lookup(qidx, doc, offsets, judged_doc, doc, -1)
        assert all(np.array_equal(a, b) for a, b in zip(keyless, keyed))
        results.append((*keyless, found))
    assert all(all(np.array_equal(a, b) for a, b in zip(results[0], other)) for other in results[1:])


@pytest.mark.parametrize("dense", [True, False])
def test_text_order_codes_follow_the_ids_text(dense: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Integer ids are ordered by their decimal text (10 before 9), on the lookup-table path and the hash path."""
    if not dense:
        monkeypatch.setattr(rowops, "DENSE_SPAN_PER_ROW", 0)
    a = pl.Series([9, 10, -3, 100, 9], dtype=pl.Int64)
    b = pl.Series([10, 2, 77], dtype=pl.Int64)
    (code_a, code_b), distinct = rowops.text_order_codes(a, b)
    assert distinct.to_list() == [-3, 10, 100, 2, 77, 9]
    assert distinct.gather(code_a).to_list() == a.to_list()
    assert distinct.gather(code_b).to_list() == b.to_list()
    (text_codes,), text = rowops.text_order_codes(pl.Series(["b", "a", "é", "B", "a"]))
    assert text.to_list() == ["B", "a", "b", "é"] and text_codes.tolist() == [2, 1, 3, 0, 1]


@needs_native
@settings(max_examples=100, deadline=None)
@given(columns=st.lists(st.lists(st.integers(-5, 40), max_size=50), min_size=1, max_size=3),
       ordered=st.booleans(), threads=st.integers(1, 4))  # fmt: skip
def test_dense_codes_equal_numpy(columns: list[list[int]], ordered: bool, threads: int) -> None:
    """Integer ids through the lookup table (``table_codes``), compiled and numpy, on any number of threads: the same
    codes, each row's id recovered from ``distinct``; in text order when asked."""
    series = tuple(pl.Series(c, dtype=pl.Int64) for c in columns)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rowops, "threads", lambda: threads)
        native, numpy = _both(lambda: rowops._dense_integer_codes(series, in_text_order=ordered))
    if native is None:  # no row, or a range too wide for a table
        assert numpy is None
        return
    assert numpy is not None
    assert all(np.array_equal(a, b) for a, b in zip(native[0], numpy[0])) and native[1].equals(numpy[1])
    codes, distinct = native
    for column, code in zip(series, codes):
        assert distinct.gather(code).to_list() == column.to_list()
    if ordered:
        text = distinct.cast(pl.String).to_list()
        assert text == sorted(text)


@needs_native
def test_dense_codes_on_many_threads_equal_one(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    series = (pl.Series(rng.integers(-1000, 400_000, 500_000)), pl.Series(rng.integers(0, 1000, 200_000)))
    found = []
    for count in (1, 4):
        monkeypatch.setattr(rowops, "threads", lambda count=count: count)
        found.append(rowops._dense_integer_codes(series, in_text_order=True))
    (one, distinct_one), (many, distinct_many) = found  # type: ignore[misc]
    assert distinct_one.equals(distinct_many) and all(np.array_equal(a, b) for a, b in zip(one, many))


@needs_native
@settings(max_examples=150, deadline=None)
@given(queries=st.lists(st.integers(0, 40), max_size=300), low=st.integers(0, 45), width=st.integers(-2, 45),
       count=st.integers(1, 3), cuts=st.lists(st.integers(0, 300), max_size=5),
       kind=st.sampled_from(["f8", "i8", "i4"]))  # fmt: skip
def test_range_rows_equal_numpy(queries: list[int], low: int, width: int, count: int, cuts: list[int], kind: str
                                ) -> None:  # fmt: skip
    """The rows of a range of query codes, in row order, with their codes widened (query codes counted from the
    range's first) and their values read from the chunk holding each (empty chunks among them; 4-byte values by
    numpy), on either path and any number of threads (an empty or reversed range: no row)."""
    query = np.array(queries, dtype=np.int32)
    doc = (query * 7 + np.arange(len(query), dtype=np.int32)).astype(np.int32)
    value = (np.arange(len(query)) * 1.5 - 3).astype(kind)
    bounds = [0, *sorted(min(c, len(query)) for c in cuts), len(query)]
    chunks = Chunks(tuple(value[a:b] for a, b in itertools.pairwise(bounds)))
    high = low + width
    expected = np.flatnonzero((query >= low) & (query < high))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rowops, "threads", lambda: count)
        native, numpy = _both(lambda: rowops.range_rows(query, doc, chunks, low, high, len(expected)))
    for found in (native, numpy):
        assert np.array_equal(found[0], expected) and found[0].dtype == np.int64
        assert np.array_equal(found[1], query[expected] - low) and found[1].dtype == np.int64
        assert np.array_equal(found[2], doc[expected]) and found[2].dtype == np.int64
        assert found[3].tobytes() == value[expected].tobytes()
    for native_or_not in (rowops.NATIVE, None):
        with pytest.MonkeyPatch.context() as patch, pytest.raises(ValueError, match="lie in the range"):
            patch.setattr(rowops, "NATIVE", native_or_not)
            rowops.range_rows(query, doc, chunks, low, high, len(expected) + 1)


@needs_native
@settings(max_examples=100, deadline=None)
@given(codes=st.lists(st.integers(0, 30), max_size=200), extra=st.integers(0, 5))
def test_code_counts_are_bincounts(codes: list[int], extra: int) -> None:
    """Rows per int32 code, on either path, equal numpy's bincount; a code outside the size is refused."""
    array = np.array(codes, dtype=np.int32)
    size = (max(codes) + 1 if codes else 0) + extra
    native, numpy = _both(lambda: rowops.code_counts(array, size))
    expected = np.bincount(array, minlength=size)
    assert np.array_equal(native, expected) and np.array_equal(numpy, expected) and native.dtype == np.int64
    if codes:
        with pytest.raises(ValueError, match="outside"):
            rowops.code_counts(array, max(codes))


@needs_native
def test_dense_codes_of_chunked_columns_equal_one_chunk() -> None:
    """Columns of many chunks (a frame read from parquet's row groups) are coded chunk by chunk, never joined: the
    codes of the same ids in one chunk."""
    rng = np.random.default_rng(5)
    ids = rng.integers(-50, 5000, 20_000)
    chunked = pl.concat([pl.Series(ids[start : start + 777]) for start in range(0, len(ids), 777)], rechunk=False)
    assert chunked.n_chunks() > 1
    for ordered in (False, True):
        found = rowops._dense_integer_codes((chunked, pl.Series(ids[:300])), in_text_order=ordered)
        whole = rowops._dense_integer_codes((pl.Series(ids), pl.Series(ids[:300])), in_text_order=ordered)
        assert found is not None and whole is not None
        assert found[1].equals(whole[1]) and all(np.array_equal(a, b) for a, b in zip(found[0], whole[0]))


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("ordered", [False, True])
def test_narrow_codes_equal_wide_ones(dense: bool, ordered: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``narrow=True`` gives int32 codes equal to the int64 ones (the dense path writes them as it reads the table,
    on either path and any number of threads; hashed codes are narrowed after)."""
    rng = np.random.default_rng(11)
    series = (pl.Series(rng.integers(-500, 90_000, 300_000)), pl.Series(rng.integers(0, 700, 5_000)))
    if not dense:
        monkeypatch.setattr(rowops, "DENSE_SPAN_PER_ROW", 0)
    code = rowops.text_order_codes if ordered else rowops.id_codes
    for count in (1, 3):
        monkeypatch.setattr(rowops, "threads", lambda count=count: count)
        (wide, distinct), (narrow, narrow_distinct) = code(*series), code(*series, narrow=True)
        assert distinct.equals(narrow_distinct)
        assert all(c.dtype == np.int64 for c in wide) and all(c.dtype == np.int32 for c in narrow)
        assert all(np.array_equal(a, b) for a, b in zip(wide, narrow))
        with monkeypatch.context() as patch:
            patch.setattr(rowops, "NATIVE", None)
            numpy_codes, _ = code(*series, narrow=True)
        assert all(np.array_equal(a, b) and b.dtype == np.int32 for a, b in zip(wide, numpy_codes))


def _frames(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Shuffled rows, heavy score ties, string and integer-looking doc ids, users on one side only."""
    rng = np.random.default_rng(seed)
    truth, recs = [], []
    for user in range(int(rng.integers(3, 15))):
        items = rng.choice(60, int(rng.integers(1, 25)), replace=False)
        if rng.random() < 0.9:
            judged = items[: len(items) // 2 + 1]
            truth += [(f"u{user}", f"{i:0{1 + i % 2}d}", int(rng.integers(-1, 4))) for i in judged]
        if rng.random() < 0.9:
            recs += [(f"u{user}", f"{i:0{1 + i % 2}d}", float(rng.integers(0, 4))) for i in items]
    truth, recs = truth or [("u0", "1", 1)], recs or [("u0", "1", 1.0)]
    order = rng.permutation(len(recs))
    qrels = pl.DataFrame(truth, schema=["user_id", "item_id", "rating"], orient="row")
    run = pl.DataFrame([recs[i] for i in order], schema=["user_id", "item_id", "score"], orient="row")
    return qrels, run


MEASURES = ["P@5", "R@5", "AP@5", "AP", "nDCG@5", "nDCG", "RR", "HitRate@5", "AUC", "bpref", "NumRelRet@5", "Rprec"]


@needs_native
@pytest.mark.parametrize("dialect", [None, *sorted({d.key for d in DIALECTS})])
@pytest.mark.parametrize("seed", range(4))
def test_every_dialect_gives_the_same_values_on_both_paths(dialect: str | None, seed: int) -> None:
    qrels, run = _frames(seed)
    train = pl.DataFrame({"user_id": ["u0"], "item_id": ["none"]})

    def run_it() -> rankwise.EvaluationResult | str:
        try:
            return rankwise.evaluate(qrels, run, MEASURES, dialect=dialect, train=train, catalog=1000)
        except rankwise.RankwiseError as exc:
            return str(exc)

    native, reference = _both(run_it)
    if isinstance(native, str) or isinstance(reference, str):
        assert native == reference
        return
    assert native.query_ids == reference.query_ids
    assert np.array_equal(native.values, reference.values, equal_nan=True)
    assert native.aggregate == pytest.approx(reference.aggregate, rel=0, abs=0, nan_ok=True)
    assert native.notes() == reference.notes()


@pytest.mark.parametrize("ties", ["docno_desc", "docno_asc", "docno_desc_numeric", "input_order"])
def test_tie_orders_on_the_numpy_path(ties: str, numpy_only: None) -> None:
    """The tie key of each policy, on a query whose documents all share one score: text descending puts "x" and
    "9" before "10"; numeric descending puts 10 first and the non-number last."""
    qrels = {"q": {"10": 1, "9": 0, "x": 0, "007": 1}}
    run = {"q": {"9": 1.0, "10": 1.0, "x": 1.0, "007": 1.0}}
    first_relevant = {"docno_desc": 3, "docno_asc": 1, "docno_desc_numeric": 1, "input_order": 2}
    assert rankwise.evaluate(qrels, run, ["RR"], ties=ties).aggregate["RR"] == 1 / first_relevant[ties]


ML_100K = Path(__file__).resolve().parents[3] / "shared" / "data" / "ml-100k" / "ml-100k.inter"


@needs_native
@pytest.mark.skipif(not ML_100K.exists(), reason=f"MovieLens 100K is not at {ML_100K} (../shared is absent)")
def test_ml100k_every_dialect_the_same_on_both_paths() -> None:
    """The last 20% of ML-100K ratings as truth (threshold 4), and for each test user 199 items scored with 5
    distinct values (ties in nearly every list), shuffled."""
    inter = pl.read_csv(ML_100K, separator="\t")
    inter.columns = [c.split(":")[0] for c in inter.columns]
    truth = inter.filter(pl.col("timestamp") > inter["timestamp"].quantile(0.8)).select("user_id", "item_id", "rating")
    users = truth.select("user_id").unique().sort("user_id")
    recs = users.join(pl.DataFrame({"item_id": np.arange(1, 200)}), how="cross")
    rng = np.random.default_rng(0)
    recs = recs.with_columns(score=pl.Series(rng.integers(0, 5, recs.height).astype(np.float64))).sample(
        fraction=1.0, shuffle=True, seed=1
    )
    measures = ["nDCG@10", "AP@20", "P@10", "R@10", "RR", "HitRate@10"]
    for dialect in [None, *sorted({d.key for d in DIALECTS})]:

        def run_it(dialect: str | None = dialect) -> rankwise.EvaluationResult | str:
            try:
                return rankwise.evaluate(truth, recs, measures, dialect=dialect, threshold=4)
            except rankwise.RankwiseError as exc:
                return str(exc)

        native, reference = _both(run_it)
        if isinstance(native, str) or isinstance(reference, str):
            assert native == reference, dialect
            continue
        assert native.query_ids == reference.query_ids, dialect
        assert np.array_equal(native.values, reference.values, equal_nan=True), dialect
