"""``rankwise trec_eval`` where a newcomer goes wrong (issue #28): an unknown ``-m`` name gets a suggestion in
trec_eval's own ``-m`` grammar, and qrels and run given in the wrong order are called that. trec_eval itself stops
on both (non-zero status, one line); rankwise stops too, with exit status 2 and one line on stderr that says more.
Against the real binary when one is found (``$TREC_EVAL``, else ``trec_eval`` on the PATH)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_all_trec import write_case
from test_trec_eval_cli import TREC_EVAL, needs_binary, reference

from rankwise.cli import main


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 0, "d4": 1}}
    return write_case(tmp_path, qrels, {"q1": {"d1": 3.0, "d3": 2.0, "d9": 1.0}, "q2": {"d4": 5.0, "d1": 4.0}})


def _rankwise(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["trec_eval", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("measure", "hint"),
    [
        ("ndcg_cutt.10", "ndcg_cut.10"),  # the name corrected, the cutoffs kept
        ("ndcg_cutt", "ndcg_cut"),
        ("P_5", "P.5"),  # as trec_eval prints it, as -m reads it
        ("P@5", "P.5"),  # as rankwise writes it
        ("ndcg_cut_10", "ndcg_cut.10"),
        ("iprec_at_recall_0.50", "iprec_at_recall.0.50"),
        ("ndcgg.1=3", "ndcg.1=3"),  # name=value parameters: among the measures that read them
        ("oficial", "official"),  # a nickname
        ("Map", "map"),
    ],
)
def test_an_unknown_measure_suggests_what_to_type(files: tuple[str, str], measure: str, hint: str) -> None:
    code, out, err = _rankwise("-m", measure, *files)
    name = measure.partition(".")[0]
    assert (code, out) == (2, "")
    assert err.startswith(f"rankwise: error: -m {measure}: trec_eval has no measure {name!r}; did you mean {hint}")
    assert err.endswith("?\n") and err.count("\n") == 1
    shown = err.split("did you mean ", 1)[1].removesuffix("?\n").split(", ")
    assert len(shown) == len(set(shown)) <= 3
    code, out, err = _rankwise("-m", hint, *files)  # the first suggestion is an -m trec_eval reads
    assert code == 0 and out and err == ""


def test_far_from_every_name_suggests_nothing(files: tuple[str, str]) -> None:
    assert _rankwise("-m", "zzzz", *files) == (2, "", "rankwise: error: -m zzzz: trec_eval has no measure 'zzzz'\n")


def test_the_evaluate_path_suggests_the_same_way(files: tuple[str, str]) -> None:
    # one suggestion code for both commands (rankwise.measures.catalog.closest): evaluate names ndcg_cut too
    result = CliRunner().invoke(main, ["evaluate", *files, "-m", "ndcg_cutt.10"])
    assert result.exit_code == 2 and "did you mean" in result.stderr and "ndcg_cut" in result.stderr


@needs_binary
@pytest.mark.parametrize("measure", ["ndcg_cutt.10", "P_5"])
def test_trec_eval_also_stops_on_an_unknown_measure(files: tuple[str, str], measure: str) -> None:
    assert TREC_EVAL is not None
    done = subprocess.run([TREC_EVAL, "-m", measure, *files], capture_output=True, text=True)
    assert done.returncode != 0 and done.stdout == ""
    assert f"illegal measure '{measure.partition('.')[0]}'" in done.stderr


@needs_binary
def test_the_suggested_measure_prints_what_trec_eval_prints(files: tuple[str, str]) -> None:
    _, _, err = _rankwise("-m", "ndcg_cutt.5,10", *files)
    hint = err.split("did you mean ", 1)[1].split(", ")[0].removesuffix("?\n")
    assert hint == "ndcg_cut.5,10"
    assert _rankwise("-q", "-m", hint, *files)[1] == reference("-q", "-m", hint, *files)


@pytest.mark.parametrize("order", ["swapped", "run twice", "qrels twice"])
def test_qrels_and_run_swapped_are_called_that(files: tuple[str, str], order: str) -> None:
    qrels, run = files
    given = {"swapped": (run, qrels), "run twice": (run, run), "qrels twice": (qrels, qrels)}[order]
    code, out, err = _rankwise(*given)
    if given[0] == run:  # read first: the file given as qrels holds a run
        expected = (f"rankwise: error: {run}:1: expected 4 columns (query_id iteration doc_id grade), found 6: it "
                    "looks like a run (6 columns): are QRELS and RUN swapped?\n")  # fmt: skip
    else:
        expected = (f"rankwise: error: {qrels}:1: expected 6 columns (query_id iteration doc_id rank score tag), found "
                    "4: it looks like qrels (4 columns): are QRELS and RUN swapped?\n")  # fmt: skip
    assert (code, out, err) == (2, "", expected)


@needs_binary
def test_trec_eval_also_stops_on_swapped_files(files: tuple[str, str]) -> None:
    assert TREC_EVAL is not None
    qrels, run = files
    done = subprocess.run([TREC_EVAL, run, qrels], capture_output=True, text=True)
    assert done.returncode != 0 and done.stdout == "" and "Malformed line" in done.stderr
