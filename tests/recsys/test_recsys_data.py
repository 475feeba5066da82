"""Interaction logs and splits (rankwise.recsys.data, rankwise.recsys.split): every format, one-line errors naming the
file and line, and splits that are reproducible, sized as promised and never leak (hypothesis)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.errors import InputError
from rankwise.recsys import global_time_split, leave_last_out, load_ratings, random_holdout, time_ratio_split
from rankwise.recsys.data import SCHEMA

EXPECTED = pl.DataFrame({"user_id": ["1", "2"], "item_id": ["10", "20"], "rating": [4.0, 2.5],
                         "timestamp": [100.0, 200.0]}, schema=SCHEMA)  # fmt: skip


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("u.data", "1\t10\t4\t100\n2\t20\t2.5\t200\n"),
        ("ratings.dat", "1::10::4::100\n2::20::2.5::200\n"),
        ("ratings.csv", "userId,movieId,rating,timestamp\n1,10,4,100\n2,20,2.5,200\n"),
        ("ml.inter", "user_id:token\titem_id:token\trating:float\ttimestamp:float\n1\t10\t4\t100\n2\t20\t2.5\t200\n"),
        ("spaces.txt", "1   10 4 100\n\n2 20  2.5\t200\n"),
    ],
)
def test_every_format_reads_the_same(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert load_ratings(path).equals(EXPECTED)


def test_tables_and_parquet(tmp_path: Path) -> None:
    frame = pl.DataFrame({"user": [1, 2], "item": [10, 20], "rating": [4.0, 2.5], "ts": [100, 200]})
    assert load_ratings(frame, columns={"timestamp": "ts"}).equals(EXPECTED)
    assert load_ratings(frame.to_pandas(), columns={"timestamp": "ts"}).equals(EXPECTED)
    frame.write_parquet(tmp_path / "r.parquet")
    assert load_ratings(tmp_path / "r.parquet", columns={"timestamp": "ts"}).equals(EXPECTED)
    implicit = load_ratings(pl.DataFrame({"user_id": ["a"], "item_id": ["b"]}))
    assert implicit.get_column("rating").is_null().all() and implicit.get_column("timestamp").is_null().all()


def test_dates_become_seconds() -> None:
    frame = pl.DataFrame({"user_id": ["a", "b"], "item_id": ["x", "y"], "time": ["1970-01-02", "1970-01-01T00:01:00"]})
    assert load_ratings(frame).get_column("timestamp").to_list() == [86400.0, 60.0]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("ratings.csv", "userId,movieId,rating\n1,10,4\n2,20,high\n",
         r"ratings.csv:3: rating \(rating\) 'high' is not a number"),
        ("ratings.csv", "userId,movieId,rating\n1,,4\n", r"ratings.csv:2: item_id \(movieId\) is missing"),
        ("u.data", "1\t10\t4\t100\n2\t20\t5\t1e\n", r"u.data:2: timestamp \(timestamp\) '1e' is not a number"),
        ("u.data", "1\t10\t4\t100\t7\n", r"u.data:1: more than 4 fields"),
        ("ratings.csv", "a,b\n1,2\n", r"no user_id column \(tried user_id"),
        ("ratings.csv", "", "file is empty"),
    ],
)  # fmt: skip
def test_bad_files_are_named_by_line(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load_ratings(path)


def test_float_ids_and_unknown_roles_are_refused() -> None:
    with pytest.raises(InputError, match="ids are never cast from floats"):
        load_ratings(pl.DataFrame({"user_id": [1.0], "item_id": [2]}))
    with pytest.raises(InputError, match="unknown role 'user'"):
        load_ratings(pl.DataFrame({"user_id": [1], "item_id": [2]}), columns={"user": "user_id"})


# ---------------------------------------------------------------------------------------------------------------
# Splits


def _log(seed: int, n: int = 400) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return load_ratings(pl.DataFrame({"user_id": rng.integers(0, 30, n), "item_id": rng.integers(0, 60, n),
                                      "rating": rng.integers(1, 6, n).astype(float),
                                      "timestamp": rng.integers(0, 50, n)}))  # fmt: skip


def _rows(frame: pl.DataFrame) -> list[tuple[object, ...]]:
    return sorted(frame.rows())


def _disjoint_and_complete(data: pl.DataFrame, split: object) -> None:
    train, test = split.train, split.test  # type: ignore[attr-defined]
    assert _rows(pl.concat([train, test])) == _rows(data)  # every row once, in one side (no option dropped any)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.05, 0.95))
def test_global_split_never_leaks(seed: int, quantile: float) -> None:
    data = _log(seed)
    split = global_time_split(data, quantile, drop_seen=False)
    _disjoint_and_complete(data, split)
    assert split.train.height == int(quantile * data.height)
    assert split.train.get_column("timestamp").max() <= split.test.get_column("timestamp").min()
    by_date = global_time_split(data, at=25, drop_seen=False)
    assert (by_date.train.get_column("timestamp") < 25).all() and (by_date.test.get_column("timestamp") >= 25).all()


def _per_user_time_order(split: object) -> None:
    last_train = split.train.group_by("user_id").agg(pl.col("timestamp").max().alias("t"))  # type: ignore[attr-defined]
    first_test = split.test.group_by("user_id").agg(pl.col("timestamp").min().alias("s"))  # type: ignore[attr-defined]
    joined = last_train.join(first_test, on="user_id")
    assert (joined.get_column("t") <= joined.get_column("s")).all()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4))
def test_leave_last_out(seed: int, n: int) -> None:
    data = _log(seed)
    split = leave_last_out(data, n, drop_seen=False)
    _disjoint_and_complete(data, split)
    _per_user_time_order(split)
    sizes = data.group_by("user_id").len()
    expected = dict(sizes.select("user_id", pl.when(pl.col("len") > n).then(n).otherwise(0)).iter_rows())
    got = dict(split.test.group_by("user_id").len().iter_rows())
    assert {u: c for u, c in expected.items() if c} == got


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.1, 0.9), st.integers(0, 5))
def test_ratio_splits(seed: int, share: float, random_seed: int) -> None:
    data = _log(seed)
    sizes = data.group_by("user_id").len()
    expected = {u: int(np.floor(c * share)) for u, c in sizes.iter_rows() if int(np.floor(c * share))}
    timed = time_ratio_split(data, share, drop_seen=False)
    _disjoint_and_complete(data, timed)
    _per_user_time_order(timed)
    assert dict(timed.test.group_by("user_id").len().iter_rows()) == expected
    held = random_holdout(data, share, seed=random_seed, drop_seen=False)
    _disjoint_and_complete(data, held)
    assert dict(held.test.group_by("user_id").len().iter_rows()) == expected
    shuffled = data.sample(fraction=1.0, shuffle=True, seed=seed)
    again = random_holdout(shuffled, share, seed=random_seed, drop_seen=False)
    assert _rows(again.test) == _rows(held.test)  # the same seed, whatever the row order


def test_random_holdout_depends_on_the_seed() -> None:
    data = _log(1)
    assert _rows(random_holdout(data, seed=1).test) != _rows(random_holdout(data, seed=2).test)


def test_options_drop_and_count() -> None:
    data = load_ratings(pl.DataFrame({
        "user_id": ["a", "a", "a", "b", "c", "a"], "item_id": ["x", "y", "z", "x", "x", "x"],
        "rating": [5.0, 4.0, 3.0, 5.0, 5.0, 5.0], "timestamp": [1, 2, 3, 4, 5, 6]}))  # fmt: skip
    split = global_time_split(data, 0.5, drop_cold_users=True, drop_cold_items=True, threshold=4.5)
    # train: a-x, a-y, a-z; test: b-x (cold user), c-x (cold user), a-x (seen)
    assert split.test.height == 0
    assert split.notes == ("1 test interactions dropped: the user has the item in train",
                           "2 test interactions dropped: user not in train")  # fmt: skip
    assert set(zip(*split.train.select("user_id", "item_id").to_dict(as_series=False).values())).isdisjoint(
        set(zip(*split.test.select("user_id", "item_id").to_dict(as_series=False).values())))


def test_split_errors() -> None:
    no_time = pl.DataFrame({"user_id": ["a"], "item_id": ["b"]})
    with pytest.raises(InputError, match="needs a timestamp"):
        global_time_split(no_time)
    with pytest.raises(InputError, match="quantile must be a number strictly between 0 and 1"):
        global_time_split(_log(0), 1.5)
    with pytest.raises(InputError, match="no ratings to compare"):
        random_holdout(no_time.vstack(pl.DataFrame({"user_id": ["a"], "item_id": ["c"]})), 0.5, threshold=4)
    with pytest.raises(InputError, match="not an ISO date"):
        global_time_split(_log(0), at="yesterday")


def test_recsys21_split_matches_the_shared_lists() -> None:
    """The global 80/20 split with cold users/items dropped is the one the dialect tests' ML-100K lists use."""
    from recsys_lists import ML100K, _split, skip_without_data

    skip_without_data()
    train, test = _split()
    split = global_time_split(ML100K, 0.8, drop_cold_users=True, drop_cold_items=True, drop_seen=False)
    ours = split.test.select(pl.col("user_id").cast(pl.Int64), pl.col("item_id").cast(pl.Int64))
    assert _rows(ours) == _rows(test.select("user_id", "item_id"))
    assert split.train.height == train.height
