"""Bad input gives one clear line naming the file and line (or row / ids) and what is wrong."""

from __future__ import annotations

import bz2
import gzip
import re
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise
from conftest import run_cli as _cli
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
        # Fields after the tag are ignored, as trec_eval ignores them (tests/io/test_io_grammar.py), so a run line
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


# --------------------------------------------------------------------------------------------------------------
# Every bad input, one line: a table of inputs the fuzzing of issue #11 found answered by a Python, polars or Arrow
# error, by a message naming no file or line, or by silence. Each is now a RankwiseError of one line (the CLI: exit
# status 2, that line, no traceback).
Q, R = {"q": {"d": 1}}, {"q": {"d": 1.0}}
LONG = "9" * 5000


def _pandas_run(**columns: list) -> pd.DataFrame:
    return pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d", "e"], "score": [1.0, 2.0], **columns})


API_CASES = [
    ("dict grade numpy float", lambda: rankwise.evaluate({"q": {"d": np.float64(1.5)}}, R, ["P@1"]),
     r"^qrels dict: query 'q' doc 'd': np.float64\(1.5\) is not an integer grade$"),
    ("dict grade 2**70", lambda: rankwise.evaluate({"q": {"d": 2**70}}, R, ["P@1"]),
     r"^qrels dict: query 'q' doc 'd': grade 1180591620717411303424 is out of range"),
    ("dict score 10**400", lambda: rankwise.evaluate(Q, {"q": {"d": 10**400}}, ["P@1"]),
     r"^run dict: query 'q' doc 'd': 1000.* is too large for a float64$"),
    ("pandas ids mixing int and str", lambda: rankwise.evaluate(Q, _pandas_run(query_id=["q", 1]), ["P@1"]),
     r"^run DataFrame: column 'query_id' cannot be read \(.*\); give every value of a column one type"),
    ("pandas str among scores", lambda: rankwise.evaluate(Q, _pandas_run(score=[1.0, "x"]), ["P@1"]),
     r"^run DataFrame: column 'score' cannot be read"),
    ("depth '2'", lambda: rankwise.evaluate(Q, R, ["P@1"], depth="2"), r"^depth must be a positive integer, got '2'$"),
    ("depth 1.5", lambda: rankwise.evaluate(Q, R, ["P@1"], depth=1.5), r"^depth must be a positive integer, got 1.5$"),
    ("depth NaN", lambda: rankwise.evaluate(Q, R, ["P@1"], depth=float("nan")), r"^depth must be a positive integer"),
    ("depth inf", lambda: rankwise.evaluate(Q, R, ["P@1"], depth=float("inf")), r"^depth must be a positive integer"),
    ("rel_level 'a'", lambda: rankwise.evaluate(Q, R, ["P@1"], rel_level="a"), r"^rel_level must be an integer >= 0"),
    ("rel_level 1.5", lambda: rankwise.evaluate(Q, R, ["P@1"], rel_level=1.5), r"^rel_level must be an integer >= 0"),
    ("cutoffs ['a']", lambda: rankwise.evaluate(Q, R, ["P"], cutoffs=["a"]), r"^cutoff 'a' must be an integer >= 1$"),
    ("cutoffs 5", lambda: rankwise.evaluate(Q, R, ["P"], cutoffs=5), r"^cutoffs must be a list of integers"),
    ("cutoffs [2.7]", lambda: rankwise.evaluate(Q, R, ["P"], cutoffs=[2.7]), r"^cutoff 2.7 must be an integer >= 1$"),
    ("threshold 'x'", lambda: rankwise.evaluate(Q, R, ["P@1"], threshold="x"), r"^threshold must be a number"),
    ("threshold NaN", lambda: rankwise.evaluate(Q, R, ["P@1"], threshold=float("nan")),
     r"^threshold must be a finite number, not nan$"),
    ("dialect 5", lambda: rankwise.evaluate(Q, R, ["P@1"], dialect=5), r"^dialect must be a name such as"),
    ("compare_dialects dialect 5", lambda: rankwise.compare_dialects(Q, R, ["P@1"], dialects=[5]),
     r"^dialect must be a name such as"),
    ("parse_measure(None)", lambda: rankwise.parse_measure(None), r"^a measure must be a string like 'nDCG@10'"),
    ("P@<5000 digits>", lambda: rankwise.parse_measure("P@" + LONG),
     r"^P@9{38}… \(4962 more characters\): cutoff 9{40}… \(4960 more characters\) is too large \(at most 18"),
    ("P_<5000 digits>", lambda: rankwise.parse_measure("P_" + LONG), r"cutoff 9{40}… .* is too large"),
    ("P@'a' as a Measure", lambda: rankwise.Measure("P", cutoff="a"), r"^P: cutoff 'a' must be a number$"),
    ("columns with an unknown key", lambda: rankwise.evaluate(Q, R, ["P@1"], run_columns={"user": "u"}),
     r"^run_columns: unknown key 'user' \(for 'user' write 'query_id'\); the keys are query_id, doc_id, value, rank$"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "call", "message"), API_CASES, ids=[c[0] for c in API_CASES])
def test_api_bad_input_is_one_rankwise_error(case: str, call: Callable[[], object], message: str) -> None:
    with pytest.raises(RankwiseError, match=message) as info:
        call()
    assert "\n" not in str(info.value)


def _csv_rows(n: int) -> str:
    return "user_id,item_id,score\n" + "".join(f"{i},{i},{i}.5\n" for i in range(n))


RUN_LINE = b"q1 Q0 d1 1 1.0 t\n"
FILE_CASES = [
    ("non-UTF-8 byte", "run.txt", b"q1 Q0 d1 1 1.0 t\nq1 Q0 d\xff2 2 0.5 t\n",
     r"run\.txt:2: not UTF-8 text \(byte 0xff"),
    ("bad value after row 10,000", "run.csv", (_csv_rows(12000) + "5,6,abc\n").encode(),
     r"run\.csv:12002: score 'abc' is not a number$"),
    ("ragged CSV row", "run.csv", (_csv_rows(12000) + "5,6,1.0,9\n").encode(),
     r"run\.csv:12002: 4 fields where the header has 3$"),
    ("zlib magic", "run.txt", zlib.compress(RUN_LINE), r"run\.txt: zlib-compressed data; rankwise reads text or gzip"),
    ("zstd magic", "run.txt", b"\x28\xb5\x2f\xfd" + bytes(20), r"run\.txt: zstd-compressed data.*\(zstd -d\)$"),
    ("bzip2 magic", "run.txt", bz2.compress(RUN_LINE), r"run\.txt: bzip2-compressed data"),
    ("gzip inside gzip", "run.gz", gzip.compress(gzip.compress(RUN_LINE)), r"run\.gz: gzip data inside gzip data"),
    ("corrupt deflate stream", "run.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\xff" * 40,
     r"run\.gz: cannot decompress gzip data \(corrupt: .*invalid block type\)$"),
    ("truncated gzip", "run.gz", gzip.compress(bytes(range(256)) * 8)[:-30],
     r"run\.gz: cannot decompress gzip data \(it ends early"),
    ("gzip bomb", "run.gz", gzip.compress(b"\n" * (80 << 20), compresslevel=1),
     r"run\.gz: gzip data expands more than 100× its size .*refused \(a gzip bomb\?\)"),
    ("20-digit grade", "qrels.txt", b"q1 0 d1 12345678901234567890\n",
     r"qrels\.txt:1: relevance grade 12345678901234567890 is out of range \(grades must fit in 64 bits\)$"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "name", "data", "message"), FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_bad_files_are_one_line_naming_the_file(
    tmp_path: Path, case: str, name: str, data: bytes, message: str
) -> None:
    bad = tmp_path / name
    bad.write_bytes(data)
    good_qrels, good_run = write(tmp_path, "good_qrels.txt", GOOD_QRELS), write(tmp_path, "good_run.txt", GOOD_RUN)
    qrels, run = (str(bad), good_run) if name.startswith("qrels") else (good_qrels, str(bad))
    with pytest.raises(InputError, match=message) as info:
        rankwise.evaluate(qrels, run, ["P@1"])
    assert "\n" not in str(info.value)
    code, out, err = _cli("evaluate", qrels, run, "-m", "P@1")
    assert (code, out) == (2, "")
    assert err.startswith("rankwise: error: ") and err.count("\n") == 1 and re.search(message, err)


def test_directory_named_like_a_csv_file(tmp_path: Path) -> None:
    (tmp_path / "x.csv").mkdir()
    with pytest.raises(InputError, match=r"x\.csv: is a directory, not a file$"):
        rankwise.evaluate(str(tmp_path / "x.csv"), GOOD_RUN, ["P@1"])


CLI_CASES = [
    (["-m", "P@" + LONG], r"^rankwise: error: P@9{38}… \(4962 more characters\): cutoff .* is too large"),
    (["--threshold", "nan"], r"^rankwise: error: threshold must be a finite number, not nan$"),
    (["-k", "2.7", "-m", "P"], r"^rankwise: error: -k '2.7': cutoffs must be integers"),
    (["-k", "0", "-m", "P"], r"^rankwise: error: cutoff 0 must be an integer >= 1$"),
    (["-M", "0"], r"^rankwise: error: depth must be a positive integer, got 0$"),
    (["--truth-cols", "a,b"], r"^rankwise: error: columns 'a,b': give three names"),
]


@pytest.mark.parametrize(("args", "message"), CLI_CASES, ids=[" ".join(c[0])[:30] for c in CLI_CASES])
def test_cli_bad_input_exits_2_with_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    code, out, err = _cli("evaluate", write(tmp_path, "q.txt", GOOD_QRELS), write(tmp_path, "r.txt", GOOD_RUN), *args)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and re.search(message, err), err


def test_explain_with_a_huge_cutoff_is_one_line() -> None:
    code, out, err = _cli("explain", "P@" + LONG)
    assert (code, out) == (2, "") and err.count("\n") == 1 and "is too large" in err


# ------------------------------------------------------------------- the fuzzers, at a budget the suite can afford
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(max_size=30) | st.from_regex(r"[A-Za-z_]{1,8}(\([a-z_]{1,6}=[^)]{0,6}\))?(@[0-9.]{0,25})?", fullmatch=True)
)
def test_fuzz_measure_strings_parse_or_raise_measure_error(text: str) -> None:
    try:
        rankwise.parse_measures(text)
    except MeasureError as exc:
        assert "\n" not in str(exc)


ODD_VALUES = st.sampled_from([None, 0, -1, 1, 2, 1.5, 2.0, float("nan"), float("inf"), "2", "a", True, [], [2.7],
                              ["a"], [0], 5, np.int64(3), np.float64(1.5), object()])  # fmt: skip


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(["depth", "rel_level", "cutoffs", "threshold", "dialect", "ties", "queries", "scores"]),
       ODD_VALUES)  # fmt: skip
def test_fuzz_keyword_values_work_or_raise_rankwise_error(keyword: str, value: object) -> None:
    try:
        rankwise.evaluate({"q": {"d": 1, "e": 0}}, {"q": {"d": 1.0, "e": 2.0}}, ["P"] if keyword == "cutoffs" else
                          ["P@1"], **{keyword: value})  # fmt: skip
    except RankwiseError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.one_of(st.text(max_size=3), st.integers()),
                       st.dictionaries(st.one_of(st.text(max_size=3), st.integers(), st.floats()),
                                       st.one_of(st.integers(), st.floats(), st.text(max_size=2),
                                                 st.builds(np.float64, st.floats()),
                                                 st.builds(np.int64, st.integers(-(2**63), 2**63 - 1))),
                                       max_size=3), max_size=3))  # fmt: skip
def test_fuzz_dicts_work_or_raise_rankwise_error(data: dict) -> None:
    for qrels, run in ((data, {"q": {"d": 1.0}}), ({"q": {"d": 1}}, data)):
        try:
            rankwise.evaluate(qrels, run, ["P@1", "AP"])
        except RankwiseError as exc:
            assert "\n" not in str(exc)
