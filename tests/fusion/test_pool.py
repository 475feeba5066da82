"""Reading and pooling the runs: bad input is one line naming the file and line (or the row, or the id), the query
policies, the tie keys, the notes."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import rankwise
from rankwise.errors import InputError, RankwiseError

A = {"q1": {"d1": 1.0, "d2": 0.5}, "q2": {"d1": 2.0}}
B = {"q1": {"d2": 1.0}, "q3": {"d9": 1.0}}


def test_a_duplicate_document_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "dup.txt"
    path.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq1 Q0 d1 3 0.5 t\n")
    with pytest.raises(InputError, match=r"dup\.txt:3: query 'q1' doc 'd1' appears twice .*dup\.txt:1"):
        rankwise.fuse([str(path), A])


def test_a_nan_score_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "nan.txt"
    path.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 nan t\n")
    with pytest.raises(InputError, match=r"nan\.txt:2: "):
        rankwise.fuse([A, str(path)])


def test_a_nan_score_in_a_dataframe_names_the_row() -> None:
    frame = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, float("nan")]})
    with pytest.raises(InputError, match="row 1"):
        rankwise.fuse([frame, frame])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"method": "wsum", "weights": [0.5, 0.3, 0.2]}, "3 weights for 2 runs: give one weight per run"),
    ({"method": "wsum", "weights": [0.5, float("nan")]}, "weight nan is not a finite number"),
    ({"method": "rrf", "weights": [0.5, 0.5]}, "rrf takes no weights; the weighted methods: wmnz, mixed"),
    ({"method": "combfoo"}, "unknown fusion method 'combfoo'; choose one of min, max"),
    ({"norm": "l2"}, "unknown normalisation 'l2'; choose one of min-max, min-max-inverted"),
    ({"method": "rrf", "params": {"q": 1}}, "rrf: unknown parameter 'q'; its parameters: k"),
    ({"method": "rrf", "params": {"k": -1}}, r"rrf: parameter k must be an integer in \[0, 1e\+09\], got -1"),
    ({"method": "rrf", "params": {"k": 1.5}}, "must be an integer"),
    ({"ties": "average"}, "ties=average is not an order"),
    ({"ties": "random"}, "unknown tie policy 'random'"),
    ({"queries": "some"}, "unknown query policy 'some'; choose one of union, intersection"),
    ({"missing": "max"}, "unknown missing-document policy 'max'"),
    ({"depth": 0}, "depth must be a positive integer, got 0"),
    ({"method": "probfuse"}, "probfuse learns from judgments: give qrels"),
])  # fmt: skip
def test_bad_options_are_one_line(kwargs: dict, message: str) -> None:
    with pytest.raises(RankwiseError, match=message) as info:
        rankwise.fuse([A, B], **kwargs)
    assert "\n" not in str(info.value)


def test_one_run_is_refused() -> None:
    with pytest.raises(RankwiseError, match="fusion needs at least two runs, got 1"):
        rankwise.fuse([A])
    with pytest.raises(RankwiseError, match=r"one \{query: \{doc: score\}\} dict is one run"):
        rankwise.fuse(A)


def test_runs_sharing_no_query_under_intersection() -> None:
    with pytest.raises(InputError, match="the runs share no query"):
        rankwise.fuse([{"q1": {"d": 1.0}}, {"q2": {"d": 1.0}}], queries="intersection")


def test_the_query_policies_and_their_notes() -> None:
    from rankwise.fusion.fused import fuse_with_notes

    frame, notes, _ = fuse_with_notes([A, B], "sum", queries="intersection")
    assert frame.get_column("query_id").unique().to_list() == ["q1"]
    assert notes == ["2 queries are not in every run and left out (queries=intersection): q2, q3"]
    frame, notes, _ = fuse_with_notes([A, B], "sum", depth=1)
    assert sorted(frame.get_column("query_id").unique().to_list()) == ["q1", "q2", "q3"]
    assert notes == ["1 run row was beyond the depth cut"]


def test_integer_and_text_ids_mix() -> None:
    ints = pl.DataFrame({"query_id": [1, 1], "doc_id": [10, 9], "score": [1.0, 2.0]})
    text = pl.DataFrame({"query_id": ["1"], "doc_id": ["10"], "score": [5.0]})
    fused = rankwise.fuse([ints, text], method="sum", norm="none")
    assert fused.get_column("doc_id").to_list() == ["10", "9"]
    same = rankwise.fuse([ints, ints], method="sum", norm="none")
    assert same.schema["doc_id"] == pl.Int64 and same.get_column("doc_id").to_list() == [9, 10]
