"""Bad input gives one clear line naming the file and line (or row / ids) and what is wrong."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import rankwise
from rankwise import InputError, MeasureError, RankwiseError

GOOD_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
GOOD_RUN = "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 0.5 t\n"


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("run_text", "expected"),
    [
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 abc t\n", r"run\.txt:2: score 'abc' is not a number"),
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 t\n", r"run\.txt:2: expected 6 columns .* found 5"),
        # Fields after the tag are ignored, as trec_eval ignores them (tests/test_io_grammar.py), so a run line
        # with 7 fields is no longer an error; a line with a NUL byte is.
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\x00\n", r"run\.txt:2: NUL byte"),
        (
            "# header\n\nq1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n",
            r"run\.txt:4: query 'q1' doc 'd1' appears twice .*run\.txt:3",
        ),
        ("q1 Q0 d1 1 nan t\n", r"run\.txt:1: score nan .* not finite"),
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 -inf t\n", r"run\.txt:2: score -inf .* not finite"),
        ("", r"run\.txt: file is empty"),
        ("# only a comment\n\n", r"run\.txt: no run lines"),
        ("zz Q0 d1 1 2.0 t\n", r"no query in common"),
    ],
)
def test_bad_run_files(tmp_path: Path, run_text: str, expected: str) -> None:
    qrels = write(tmp_path, "qrels.txt", GOOD_QRELS)
    run = write(tmp_path, "run.txt", run_text)
    with pytest.raises(InputError, match=expected) as info:
        rankwise.evaluate(qrels, run, ["map"])
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("qrels_text", "expected"),
    [
        ("q1 0 d1 1.5\n", r"qrels\.txt:1: relevance grade '1\.5' is not an integer"),
        ("q1 0 d1 x\n", r"qrels\.txt:1: relevance grade 'x' is not an integer"),
        ("q1 0 d1 1\nq1 0 d1 2\n", r"qrels\.txt:2: query 'q1' doc 'd1' appears twice in the qrels"),
        ("q1 0 d1\n", r"qrels\.txt:1: expected 4 columns .* found 3"),
        ("q1 0 d1 1\nq1 0 d2 1 extra\n", r"qrels\.txt:2: expected 4 columns .* found 5"),
        ("", r"qrels\.txt: file is empty"),
    ],
)
def test_bad_qrels_files(tmp_path: Path, qrels_text: str, expected: str) -> None:
    qrels = write(tmp_path, "qrels.txt", qrels_text)
    run = write(tmp_path, "run.txt", GOOD_RUN)
    with pytest.raises(InputError, match=expected):
        rankwise.evaluate(qrels, run, ["map"])


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope\.txt: no such file"):
        rankwise.evaluate(str(tmp_path / "nope.txt"), write(tmp_path, "run.txt", GOOD_RUN), ["map"])


def test_whitespace_variants_and_gzip_read_the_same(tmp_path: Path) -> None:
    qrels = write(tmp_path, "qrels.txt", GOOD_QRELS)
    plain = rankwise.evaluate(qrels, write(tmp_path, "run.txt", GOOD_RUN), ["map", "P@1"]).aggregate
    messy = GOOD_RUN.replace(" ", " \t ").replace("\n", " \r\n")
    assert rankwise.evaluate(qrels, write(tmp_path, "messy.txt", "  " + messy), ["map", "P@1"]).aggregate == plain
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(GOOD_RUN.encode()))
    assert rankwise.evaluate(qrels, str(gz), ["map", "P@1"]).aggregate == plain


def test_dataframe_errors_name_rows_and_columns() -> None:
    qrels = {"q1": {"d1": 1}}
    frame = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [1.0, float("nan")]})
    with pytest.raises(InputError, match=r"run DataFrame row 1: score nan .* not finite"):
        rankwise.evaluate(qrels, frame, ["map"])
    floats_as_ids = pl.DataFrame({"query_id": [1.0], "doc_id": ["d1"], "score": [1.0]})
    with pytest.raises(InputError, match="never cast from floats"):
        rankwise.evaluate(qrels, floats_as_ids, ["map"])
    no_score = pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "points": [1.0]})
    with pytest.raises(InputError, match=r"no value column .* columns are \['qid', 'docno', 'points'\]"):
        rankwise.evaluate(qrels, no_score, ["map"])
    with pytest.raises(InputError, match=r"run dict: query 'q1' doc 'd1': 'x' is not a number"):
        rankwise.evaluate(qrels, {"q1": {"d1": "x"}}, ["map"])
    with pytest.raises(InputError, match="no ranked documents"):
        rankwise.evaluate(qrels, {}, ["map"])


def test_integer_ids_are_text_not_floats() -> None:
    qrels = pl.DataFrame({"query_id": [1, 2], "doc_id": [10, 20], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": [1, 2], "doc_id": [10, 21], "score": [0.3, 0.2]})
    result = rankwise.evaluate(qrels, run, ["P@1"])
    assert result.query_ids == ("1", "2")
    assert result.per_query == {"1": {"P@1": 1.0}, "2": {"P@1": 0.0}}


def test_unknown_measure_suggests_close_names() -> None:
    with pytest.raises(MeasureError, match=r"unknown measure 'nDGC'; did you mean nDCG"):
        rankwise.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["nDGC@10"])
    with pytest.raises(MeasureError, match=r"denom='x' must be one of R, min_k_R, k, hits"):
        rankwise.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["AP(denom=x)@5"])


def test_bad_policies_are_rejected() -> None:
    with pytest.raises(RankwiseError, match="unknown tie policy 'random'"):
        rankwise.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["map"], ties="random")
    with pytest.raises(RankwiseError, match="depth must be a positive integer"):
        rankwise.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["map"], depth=0)


def test_line_numbers_count_blank_and_comment_lines(tmp_path: Path) -> None:
    qrels = write(tmp_path, "qrels.txt", GOOD_QRELS)
    run = write(tmp_path, "run.txt", "# c\n\nq1 Q0 d1 1 2.0 t\n\n  \nq1 Q0 d2 2 t\n")
    with pytest.raises(InputError, match=r"run\.txt:6: expected 6 columns .* found 5"):
        rankwise.evaluate(qrels, run, ["map"])
    run = write(tmp_path, "run2.txt", "# c\n\nq1\tQ0\td1\t1\t2.0\tt\n\nq1 Q0 d2 2 bad t\n")
    with pytest.raises(InputError, match=r"run2\.txt:5: score 'bad' is not a number"):
        rankwise.evaluate(qrels, run, ["map"])
