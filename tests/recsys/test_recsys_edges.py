"""The recommender protocol's edges (issue #27): a (user, item) pair rated twice in the test part (a broadcast error
in serendipity; now taken once, with a note), the advice when no test rating is left (lower the threshold only when
the threshold dropped ratings), timestamps held as durations or times of day; then a fuzzer of the experiment on
small random logs: a result or one line, never a traceback or a numpy warning."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankwise.cli import main
from rankwise.errors import InputError
from rankwise.recsys import beyond
from rankwise.recsys.data import load_ratings
from rankwise.recsys.experiment import recsys21


def _log(repeat_in_test: bool) -> pl.DataFrame:
    """12 users rate 6 of 12 items in turn (train), then each rates one more item, twice when ``repeat_in_test``."""
    rows, t = [], 0
    for u in range(12):
        for j in range(6):
            t += 1
            rows.append((f"u{u}", f"i{(u + j) % 12}", 4.0 + (j % 2), float(t)))
    for u in range(12):
        for _ in range(2 if repeat_in_test else 1):
            t += 1
            rows.append((f"u{u}", f"i{(u + 7) % 12}", 5.0, float(t)))
    return pl.DataFrame(rows, schema=["user_id", "item_id", "rating", "timestamp"], orient="row")


@pytest.mark.filterwarnings("error")
def test_a_pair_rated_twice_in_the_test_part_is_taken_once() -> None:
    """Everything after the 72 training rows is test: 24 rows, 12 pairs; the experiment gives what the same log with
    each pair once gives (split at the same row: 72 of 96, 72 of 84), and says it dropped 12 repeats."""
    twice = recsys21(_log(True), quantile=72 / 96, threshold=4.5, k=3, model="popular")
    once = recsys21(_log(False), quantile=72 / 84, threshold=4.5, k=3, model="popular")
    assert twice.split.train.height == once.split.train.height == 72
    assert any("12 test interactions dropped: a (user, item) pair rated again" in n for n in twice.split.notes)
    assert twice.split.test.height == once.split.test.height == 12
    assert twice.beyond_table().equals(once.beyond_table())
    assert twice.table().fill_nan(None).equals(once.table().fill_nan(None))  # AUC is NaN under some dialects


def test_serendipity_takes_a_truth_pair_once() -> None:
    lists = pl.DataFrame({"user_id": ["u", "u"], "item_id": ["a", "b"], "score": [2.0, 1.0]})
    truth = pl.DataFrame({"user_id": ["u", "u"], "item_id": ["a", "a"]})
    train = pl.DataFrame({"user_id": ["v", "v"], "item_id": ["a", "b"]})
    once = beyond.serendipity(lists, truth=truth.unique(), train=train, dialect="rectools")
    assert beyond.serendipity(lists, truth=truth, train=train, dialect="rectools").value == once.value


def test_the_advice_names_the_cause_when_no_test_rating_is_left(tmp_path: Path) -> None:
    """Cold-start filtering (the test user has no training history) is not helped by a lower threshold."""
    path = tmp_path / "cold.csv"
    path.write_text("user_id,item_id,rating,timestamp\n1,1,5,1\n1,2,5,2\n2,3,5,3\n3,4,5,4\n")
    result = CliRunner().invoke(main, ["recsys-experiment", str(path), "--threshold", "0"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "user not in train" in result.stderr and "lower the threshold" not in result.stderr
    low = tmp_path / "low.csv"
    low.write_text("user_id,item_id,rating,timestamp\n1,1,5,1\n1,2,5,2\n2,2,5,3\n2,3,5,4\n1,3,1,5\n")
    result = CliRunner().invoke(main, ["recsys-experiment", str(low), "--threshold", "4.5", "--quantile", "0.8"])
    assert result.exit_code == 2 and "rated below 4.5" in result.stderr and "lower the threshold" in result.stderr


def test_timestamps_as_durations_or_times_of_day() -> None:
    """A duration is seconds since some start (5 s and one day = 86400 s, by hand); a time of day orders nothing."""
    frame = pl.DataFrame({"user_id": ["1", "2"], "item_id": ["a", "b"], "rating": [4.0, 5.0],
                          "timestamp": [dt.timedelta(seconds=5), dt.timedelta(days=1)]})  # fmt: skip
    assert load_ratings(frame).get_column("timestamp").to_list() == [5.0, 86400.0]
    with pytest.raises(InputError, match="holds times of day"):
        load_ratings(frame.with_columns(pl.Series("timestamp", [dt.time(5), dt.time(6)])))


# ------------------------------------------------------------------- the fuzzer, at a budget the suite can afford
@pytest.mark.filterwarnings("error")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])  # fmt: skip
@given(rows=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 7), st.sampled_from([0.0, 1.0, 3.0, 4.0, 5.0]),
                               st.integers(0, 30)), min_size=1, max_size=60),
       threshold=st.sampled_from(["0", "3", "4.5", "9"]), quantile=st.sampled_from(["0.2", "0.5", "0.8", "0.99"]),
       k=st.sampled_from(["1", "3", "20"]),
       model=st.sampled_from(["popular", "itemknn", "random", "ease"]))  # fmt: skip
def test_fuzz_the_experiment_gives_a_table_or_one_line(tmp_path: Path, rows: list, threshold: str, quantile: str,
                                                      k: str, model: str) -> None:  # fmt: skip
    """Repeated pairs, ties in time, cold users and items, every threshold: a table (exit 0), or exit 2 with one
    error line (notes before it), never a traceback."""
    path = tmp_path / "ratings.csv"
    path.write_text("user_id,item_id,rating,timestamp\n" + "".join(f"u{u}, i{i}, {r}, {t}\n" for u, i, r, t in rows))
    result = CliRunner().invoke(main, ["recsys-experiment", str(path), "--threshold", threshold, "--quantile",
                                       quantile, "-k", k, "--model", model, "--format", "csv"])  # fmt: skip
    assert result.exit_code in (0, 2), (result.exception, result.output)
    errors = [line for line in result.stderr.splitlines() if not line.startswith("rankwise: note: ")]
    if result.exit_code == 2:
        assert result.stdout == "" and len(errors) == 1 and errors[0].startswith("rankwise: error: "), result.stderr
    else:
        assert errors == [] and result.stdout.startswith("dialect")
