"""``rankwise evaluate`` where a newcomer goes wrong (issue #28): the packaged example qrels and run given in the
wrong order are called that, in one line with exit status 2 (the readers' cases: ``tests/io/test_rough_edges_io.py``,
``rankwise trec_eval``'s: ``tests/trec_eval/test_rough_edges_trec_eval.py``)."""

from __future__ import annotations

from importlib.resources import files

from conftest import run_cli

EXAMPLES = files("rankwise") / "examples"


def test_the_examples_swapped_are_one_line_with_exit_2() -> None:
    qrels, run = str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "run.txt")
    assert run_cli("evaluate", run, qrels, "-m", "P@1") == (
        2, "", f"rankwise: error: {run}:2: expected 4 columns (query_id iteration doc_id grade), found 6: it looks "
               "like a run (6 columns): are QRELS and RUN swapped?\n",
    )  # fmt: skip
    code, out, _ = run_cli("evaluate", qrels, run, "-m", "P@1", "--format", "csv")  # the right order works
    assert code == 0 and out.startswith("query_id,measure,value\n")
