"""``rankwise fuse``: fused runs written or printed, the search with its report, bad input as one line (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

import rankwise
from conftest import run_cli

A = {"q1": {"d1": 3.0, "d2": 1.0, "d3": 0.5}, "q2": {"d1": 1.0, "d4": 2.0, "d6": 0.1}}
B = {"q1": {"d2": 9.0, "d3": 1.0, "d7": 0.2}, "q2": {"d4": 1.0, "d5": 0.5}}
QRELS = {"q1": {"d2": 1, "d3": 1}, "q2": {"d4": 2, "d6": 1}}


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str, str]:
    paths = []
    for name, run in (("a.txt", A), ("b.txt", B)):
        path = tmp_path / name
        path.write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in run.items() for d, s in docs.items()))
        paths.append(str(path))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    return paths[0], paths[1], str(qrels)


def test_fuse_writes_the_run_the_api_gives(files: tuple[str, str, str], tmp_path: Path) -> None:
    a, b, _ = files
    out = tmp_path / "fused.txt"
    code, stdout, stderr = run_cli("fuse", a, b, "-m", "wsum", "--norm", "min-max", "-w", "0.3,0.7", "-o", str(out))
    assert code == 0 and stdout == "" and stderr == "", stderr
    api = rankwise.fuse([a, b], "wsum", "min-max", weights=[0.3, 0.7])
    lines = out.read_text().splitlines()
    assert [line.split()[2] for line in lines] == api.get_column("doc_id").to_list()
    assert lines[0].split()[5] == "wsum"
    code, stdout, _ = run_cli("fuse", a, b, "-m", "rrf", "--param", "k=60", "-M", "2", "--tag", "hybrid")
    assert code == 0 and stdout.splitlines()[0].split()[5] == "hybrid"


def test_fuse_then_evaluate(files: tuple[str, str, str], tmp_path: Path) -> None:
    a, b, qrels = files
    out = tmp_path / "fused.txt"
    assert run_cli("fuse", a, b, "-m", "rrf", "-o", str(out))[0] == 0
    code, stdout, _ = run_cli("evaluate", qrels, str(out), "-m", "AP", "--format", "csv")
    assert code == 0 and "AP" in stdout


def test_optimize_prints_the_report_and_writes_the_best_run(files: tuple[str, str, str], tmp_path: Path) -> None:
    a, b, qrels = files
    out, report = tmp_path / "best.txt", tmp_path / "report.csv"
    code, stdout, stderr = run_cli("fuse", a, b, "-m", "wsum,rrf", "--optimize", "AP", "--qrels", qrels, "--folds",
                                   "2", "--seed", "3", "-o", str(out), "--report", str(report))  # fmt: skip
    assert code == 0, stderr
    assert "best: " in stdout and "held-out AP over 2 queries" in stdout
    assert report.read_text().splitlines()[0] == "method,norm,weights,params,score"
    assert len(report.read_text().splitlines()) == 1 + 11 + 10
    search = rankwise.optimize_fusion(qrels, [a, b], ["wsum", "rrf"], "min-max", "AP")
    best = rankwise.fuse([a, b], **search.best_arguments())
    assert [line.split()[2] for line in out.read_text().splitlines()] == best.get_column("doc_id").to_list()


def test_help_lists_methods_and_normalisations_and_explain_defines_them() -> None:
    code, stdout, _ = run_cli("fuse", "--help")
    assert code == 0 and "bordafuse" in stdout and "min-max-inverted" in stdout
    code, stdout, _ = run_cli("fuse", "--explain", "rrf")
    assert code == 0 and "1/(k + p_r(d) + 1)" in stdout


@pytest.mark.parametrize(("args", "message"), [
    (["-m", "combfoo"], "rankwise: error: unknown fusion method 'combfoo'; choose one of"),
    (["--norm", "l2"], "rankwise: error: unknown normalisation 'l2'"),
    (["-w", "0.3,0.3,0.4"], "rankwise: error: 3 weights for 2 runs: give one weight per run"),
    (["-w", "0.3,x"], "rankwise: error: --weights: 'x' is not a number"),
    (["-m", "rrf", "--param", "k"], "rankwise: error: --param 'k': write NAME=VALUE"),
    (["-m", "rrf", "--param", "k=10,20"], "rankwise: error: --param 'k=10,20': one value when fusing"),
    (["--optimize", "AP"], "rankwise: error: --optimize needs --qrels"),
    (["-m", "probfuse"], "rankwise: error: probfuse learns from judgments: give qrels"),
])  # fmt: skip
def test_bad_input_is_one_line(files: tuple[str, str, str], args: list[str], message: str) -> None:
    a, b, _ = files
    code, _, stderr = run_cli("fuse", a, b, *args)
    assert code == 2 and stderr.startswith(message) and len(stderr.splitlines()) == 1, stderr


def test_a_bad_run_file_names_its_line(files: tuple[str, str, str], tmp_path: Path) -> None:
    a, _, _ = files
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1 1 1.0 t\nq1 Q0 d1 2 0.5 t\n")
    code, _, stderr = run_cli("fuse", a, str(bad))
    assert code == 2 and "bad.txt:2: query 'q1' doc 'd1' appears twice" in stderr and len(stderr.splitlines()) == 1
    code, _, stderr = run_cli("fuse", a)
    assert code == 2 and stderr == "rankwise: error: fusion needs at least two runs, got 1\n"
