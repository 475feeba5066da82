"""Readers where a newcomer goes wrong (issue #28): qrels and run given in the wrong order are called that (naming
the file and line), and MovieLens ``ratings.csv`` headers (``userId,movieId,rating,timestamp``) are recognised
without naming the columns."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import rankwise
from conftest import run_cli
from rankwise import InputError

QRELS = "# judgments\nq1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
RUN = "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 0.5 t\n"
SWAPPED = "are QRELS and RUN swapped?"


def _write(folder: Path, **texts: str) -> tuple[str, ...]:
    """Each text in the file of its name in ``folder`` (``_`` for ``.``); their paths."""
    paths = [folder / name.replace("_", ".") for name in texts]
    for path, text in zip(paths, texts.values()):
        path.write_text(text)
    return tuple(map(str, paths))


@pytest.fixture
def trec(tmp_path: Path) -> tuple[str, ...]:
    return _write(tmp_path, qrels_txt=QRELS, run_txt=RUN)


def test_a_run_given_as_qrels(trec: tuple[str, ...]) -> None:
    qrels, run = trec
    with pytest.raises(InputError) as info:
        rankwise.evaluate(run, qrels, ["P@1"])
    assert str(info.value) == (f"{run}:1: expected 4 columns (query_id iteration doc_id grade), found 6: it looks "
                               f"like a run (6 columns): {SWAPPED}")  # fmt: skip


def test_qrels_given_as_a_run(trec: tuple[str, ...]) -> None:
    qrels, _ = trec
    with pytest.raises(InputError) as info:
        rankwise.load_run(qrels)
    # line 2: the first data line, after the comment
    assert str(info.value) == (f"{qrels}:2: expected 6 columns (query_id iteration doc_id rank score tag), found 4: "
                               f"it looks like qrels (4 columns): {SWAPPED}")  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "text", "line", "found"),
    [
        ("run", "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2\n", 2, 4),  # a run line cut short after a good one: no swap
        ("qrels", "q1 0 d1 1\nq1 0 d2 0 x y\n", 2, 6),
        ("run", "q1 d1 2.0\n", 1, 3),  # neither kind's count
        ("qrels", "q1 Q0 d1 1 2.0\n", 1, 5),
    ],
)
def test_other_column_counts_are_not_called_a_swap(tmp_path: Path, kind: str, text: str, line: int, found: int
                                                   ) -> None:  # fmt: skip
    path = tmp_path / "f.txt"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        (rankwise.load_run if kind == "run" else rankwise.load_qrels)(str(path))
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: expected ") and f"found {found}" in message
    assert "swapped" not in message


# ---------------------------------------------------------------------------------------------- MovieLens headers
RATINGS = "userId,movieId,rating,timestamp\n1,31,2.5,1260759144\n1,1029,3.0,1260759179\n1,1061,3.0,1260759182\n" \
          "2,10,4.0,835355493\n2,17,5.0,835355681\n"  # fmt: skip
RECS = "userId,movieId,score\n1,31,0.9\n1,1061,0.8\n1,5,0.7\n2,17,0.9\n2,10,0.1\n"
# By hand, relevant = rating >= 3: user 1 {1029, 1061}, user 2 {10, 17}. User 1's list 31, 1061, 5: P@2 = 1/2,
# R@3 = 1/2; user 2's list 17, 10: P@2 = 1, R@3 = 1. Means: P@2 = R@3 = 0.75.
EXPECTED = {"1": {"P@2": 0.5, "R@3": 0.5}, "2": {"P@2": 1.0, "R@3": 1.0}}


@pytest.fixture
def movielens(tmp_path: Path) -> tuple[str, ...]:
    return _write(tmp_path, ratings_csv=RATINGS, recs_csv=RECS)


def test_movielens_ratings_csv_is_read_by_its_headers(movielens: tuple[str, ...]) -> None:
    ratings, recs = movielens
    result = rankwise.evaluate(ratings, recs, ["P@2", "R@3"], threshold=3)
    assert result.per_query == EXPECTED
    assert result.aggregate == {"P@2": 0.75, "R@3": 0.75}
    named = rankwise.evaluate(ratings, recs, ["P@2", "R@3"], threshold=3,
                              qrels_columns={"query_id": "userId", "doc_id": "movieId", "value": "rating"},
                              run_columns={"query_id": "userId", "doc_id": "movieId", "value": "score"})  # fmt: skip
    assert named.per_query == result.per_query


def test_movielens_ratings_on_the_command_line_without_truth_cols(movielens: tuple[str, ...]) -> None:
    code, out, err = run_cli("evaluate", *movielens, "-m", "P@2", "-m", "R@3", "--threshold", "3", "-q", "--format",
                             "json")  # fmt: skip
    assert (code, err) == (0, "")
    assert json.loads(out) == {"aggregate": {"P@2": 0.75, "R@3": 0.75}, "per_query": EXPECTED}


def test_movielens_headers_in_data_frames() -> None:
    ratings = pd.read_csv(io.StringIO(RATINGS))
    recs = pl.DataFrame({"userId": [1, 1, 1, 2, 2], "itemId": [31, 1061, 5, 17, 10], "score": [0.9, 0.8, 0.7, 0.9,
                                                                                                 0.1]})  # fmt: skip
    assert rankwise.evaluate(ratings, recs, ["P@2", "R@3"], threshold=3).per_query == EXPECTED


def test_an_unknown_header_still_lists_what_was_tried(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text("person,film,rating\n1,2,4\n")
    with pytest.raises(InputError) as info:
        rankwise.load_qrels(str(path), threshold=3)
    assert str(info.value) == (f"{path}: no query_id column (tried query_id, qid, query, topic, topic_id, user_id, "
                               "user, userid); columns are ['person', 'film', 'rating']")  # fmt: skip
