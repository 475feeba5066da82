"""rankwise.io.table's :class:`Chunks`: a column's chunks as views, gathered part by part — the same values as the
whole column, without copying a chunked column."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.io.table import Chunks


def _chunked(values: list, sizes: list[int], dtype: pl.DataType) -> pl.Series:
    """``values`` as a series of chunks of ``sizes`` (the rest in a last chunk)."""
    pieces, start = [], 0
    for size in sizes:
        pieces.append(pl.Series("v", values[start : start + size], dtype=dtype))
        start += size
    pieces.append(pl.Series("v", values[start:], dtype=dtype))
    return pl.concat(pieces, rechunk=False)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(-(2**62), 2**62), max_size=60),
    sizes=st.lists(st.integers(0, 12), max_size=6),
    data=st.data(),
)
def test_chunks_equal_the_whole_column(values: list[int], sizes: list[int], data: st.DataObject) -> None:
    series = _chunked(values, sizes, pl.Int64)
    chunks = Chunks.of(series)
    assert len(chunks.parts) == (series.n_chunks() if series.n_chunks() > 1 else 1)
    expected = np.array(values, dtype=np.int64)
    assert np.array_equal(chunks.whole(), expected)
    rows = np.array(sorted(data.draw(st.sets(st.integers(0, max(len(values) - 1, 0)), max_size=len(values)))),
                    dtype=np.int64) if values else np.zeros(0, dtype=np.int64)  # fmt: skip
    taken = chunks.take(rows)
    assert taken.dtype == np.int64
    assert np.array_equal(taken, expected[rows])


def test_chunks_are_views_of_the_frame() -> None:
    series = _chunked([0.5, 1.5, 2.5, 3.5, 4.5], [2, 2], pl.Float64)
    chunks = Chunks.of(series)
    assert len(chunks.parts) == 3
    assert all(not part.flags.owndata for part in chunks.parts)  # no copy of a chunk
    assert np.array_equal(chunks.take(np.array([0, 3, 4])), [0.5, 3.5, 4.5])
    one = pl.Series("v", [1.0, 2.0])
    assert len(Chunks.of(one).parts) == 1


def test_nulls_and_text_are_one_array() -> None:
    with_null = _chunked([1, None, 3], [1], pl.Int64)
    assert len(Chunks.of(with_null).parts) == 1
    text = _chunked(["a", "b", "c"], [1], pl.String)
    assert list(Chunks.of(text).whole()) == ["a", "b", "c"]
