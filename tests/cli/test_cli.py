"""The command line: formats, options, notes on stderr, and clean failures (exit 2, one line)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli as invoke

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "rankwise" / "examples"
QRELS, RUN = str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "run.txt")

# qrels: q1 has d1 (grade 2) and d2 (grade 0) judged, q2 has d3 (grade 1); q3 is judged but not run.
SMALL_QRELS = "q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\nq3 0 d9 1\n"
# run: q1 ranks d2 (score 2) above d1 (score 1); q2 ranks d4 then d3, tied at 1.0 -> docno_desc puts d4 first.
SMALL_RUN = "q1 Q0 d2 1 2.0 tagX\nq1 Q0 d1 2 1.0 tagX\nq2 Q0 d3 1 1.0 tagX\nq2 Q0 d4 2 1.0 tagX\n"


@pytest.fixture
def small(tmp_path: Path) -> tuple[str, str]:
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(SMALL_QRELS)
    r.write_text(SMALL_RUN)
    return str(q), str(r)


def test_trec_format_is_trec_eval_layout(small: tuple[str, str]) -> None:
    code, out, err = invoke("evaluate", *small, "-m", "P.1,2", "-m", "num_q", "-m", "recip_rank", "-q",
                            "--format", "trec")  # fmt: skip
    assert code == 0
    # q1: first relevant (d1) at rank 2 -> RR 0.5, P@1 0, P@2 0.5. q2: d4 (unjudged) first, d3 at 2. num_q has no
    # per-query line (trec_eval's te_print_single_meas_empty).
    assert out.splitlines() == [
        "recip_rank            \tq1\t0.5000",
        "P_1                   \tq1\t0.0000",
        "P_2                   \tq1\t0.5000",
        "recip_rank            \tq2\t0.5000",
        "P_1                   \tq2\t0.0000",
        "P_2                   \tq2\t0.5000",
        "num_q                 \tall\t2",
        "recip_rank            \tall\t0.5000",
        "P_1                   \tall\t0.0000",
        "P_2                   \tall\t0.5000",
    ]
    assert "1 judged query is missing from the run" in err and "q3" in err


def test_default_measures_are_trec_eval_official_with_runid(small: tuple[str, str]) -> None:
    code, out, _ = invoke("evaluate", *small, "--format", "trec")
    assert code == 0
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert names[:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert names[-1] == "P_1000" and len(names) == 30
    assert out.splitlines()[0] == "runid                 \tall\ttagX"


def test_json_keys_are_measures_as_written(small: tuple[str, str]) -> None:
    code, out, _ = invoke("evaluate", *small, "-m", "MRR", "-m", "nDCG(gain=exp2)@2", "--format", "json")
    assert code == 0
    payload = json.loads(out)
    assert set(payload["aggregate"]) == {"MRR", "nDCG(gain=exp2)@2"}
    assert payload["per_query"]["q1"]["MRR"] == 0.5
    # q1: gains 2^2-1 = 3 for d1 at rank 2 -> DCG 3/log2(3); ideal 3/log2(2) = 3 -> nDCG 1/log2(3).
    assert payload["per_query"]["q1"]["nDCG(gain=exp2)@2"] == pytest.approx(1 / 1.584962500721156, abs=1e-12)


def test_all_queries_flag_scores_missing_queries_zero(small: tuple[str, str]) -> None:
    _, out, _ = invoke("evaluate", *small, "-m", "RR", "--format", "json")
    _, out_c, err_c = invoke("evaluate", *small, "-m", "RR", "-c", "--format", "json")
    assert json.loads(out)["aggregate"]["RR"] == 0.5
    assert json.loads(out_c)["aggregate"]["RR"] == pytest.approx(1.0 / 3.0)  # (0.5 + 0.5 + 0) / 3
    assert json.loads(out_c)["per_query"]["q3"]["RR"] == 0.0
    assert "1 judged query missing from the run was scored as an empty ranking: q3" in err_c


def test_rel_level_depth_and_ties(small: tuple[str, str]) -> None:
    _, out, _ = invoke("evaluate", *small, "-m", "num_rel", "-l2", "--format", "json")
    assert json.loads(out)["aggregate"]["num_rel"] == 1  # only q1's d1 has grade >= 2
    _, out, _ = invoke("evaluate", *small, "-m", "num_ret", "-M1", "--format", "json")
    assert json.loads(out)["aggregate"]["num_ret"] == 2
    _, out, _ = invoke("evaluate", *small, "-m", "P@1", "--ties", "docno_asc", "--format", "json")
    assert json.loads(out)["per_query"]["q2"]["P@1"] == 1.0  # d3 now before d4


def test_csv_and_table_formats(small: tuple[str, str]) -> None:
    _, out, _ = invoke("evaluate", *small, "-m", "RR", "-q", "--format", "csv")
    assert out.splitlines() == ["query_id,measure,value", "q1,RR,0.5", "q2,RR,0.5", "all,RR,0.5"]
    code, out, _ = invoke("evaluate", *small, "-m", "RR", "-m", "NumQ")
    assert code == 0 and "RR" in out and "0.5000" in out and "NumQ" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-m", "nDGC@10"], "rankwise: error: unknown measure 'nDGC'; did you mean nDCG"),
        (["-m", "P@0"], "rankwise: error: P: cutoff @0 must be an integer >= 1"),
        (["-c", "--queries", "run"], "rankwise: error: -c contradicts --queries run"),
    ],
)
def test_errors_exit_2_with_one_line(small: tuple[str, str], args: list[str], message: str) -> None:
    code, out, err = invoke("evaluate", *small, *args)
    assert code == 2
    assert out == ""
    assert err.strip() == message or err.strip().startswith(message)
    assert len(err.strip().splitlines()) == 1


def test_bad_file_exits_2_without_traceback(tmp_path: Path, small: tuple[str, str]) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 oops t\n")
    code, _, err = invoke("evaluate", small[0], str(bad))
    assert code == 2
    assert err == f"rankwise: error: {bad}:2: score 'oops' is not a number\n"


def test_measures_and_explain() -> None:
    code, out, _ = invoke("measures")
    assert code == 0
    assert "nDCG@k" in out and "KendallTau" in out and "MeanRank@k" in out
    code, out, _ = invoke("explain", "AP(denom=min_k_R)@20")
    assert code == 0
    assert "denom = min_k_R" in out and "cutoff = 20" in out and "rel = 1 (from the evaluation's rel_level" in out
    code, out, _ = invoke("explain", "map_cut_10")
    assert "trec_eval name: map_cut_10" in out and "denom = R (default)" in out
    code, _, err = invoke("explain", "bogus")
    assert code == 2 and err.startswith("rankwise: error: unknown measure 'bogus'")


def test_installed_command_runs_on_bundled_example() -> None:
    exe = Path(sys.executable).with_name("rankwise")
    if not exe.exists():
        pytest.skip("rankwise console script not installed beside this Python")
    done = subprocess.run([str(exe), "evaluate", QRELS, RUN, "-m", "nDCG@10", "--format", "json"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert 0.0 < payload["aggregate"]["nDCG@10"] < 1.0
    assert set(payload["per_query"]) == {"301", "302", "303", "304", "305"}


def test_judged_only_flag_removes_unjudged_documents_and_says_so(tmp_path) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c -1\n")
    run.write_text("q1 Q0 x 1 3.0 r\nq1 Q0 c 2 2.5 r\nq1 Q0 b 3 2.0 r\nq1 Q0 a 4 1.0 r\n")
    code, out, err = invoke("evaluate", str(qrels), str(run), "-m", "P@2", "-m", "RR", "-J", "--format", "json")
    assert code == 0, err
    values = json.loads(out)["aggregate"]
    assert values == {"P@2": 0.5, "RR": 0.5}  # condensed list [b, a]: x unjudged, c graded below 0
    assert "2 unjudged ranked documents were removed before scoring (judged_only)" in err
