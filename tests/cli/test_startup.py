"""Cold start (issue #22): ``import rankwise``, ``rankwise -V``, ``--help``, ``measures``, ``explain``, the list of
``dialects`` and the help of ``evaluate`` and ``trec_eval`` import no heavy library (each public name and each command
is imported when first used, and a command imports the engine only to evaluate)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

import rankwise
from rankwise.cli import SHORT_HELP, load_command, main
from rankwise.io.native import NATIVE

HEAVY = ("polars", "numpy", "matplotlib", "scipy", "torch", "pyspark")

CHILD = """
import json, runpy, sys
argv = json.loads(sys.argv[1])
if argv is None:
    import rankwise
else:
    sys.argv = ["rankwise", *argv]
    try:
        runpy.run_module("rankwise", run_name="__main__")
    except SystemExit as done:
        assert done.code in (0, None), done.code
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def imported_by(argv: list[str] | None) -> set[str]:
    """The top-level modules a fresh interpreter holds after ``import rankwise`` (``argv`` None) or after running
    ``python -m rankwise *argv``."""
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(argv)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


LIGHT = [None, ["-V"], ["--help"], ["measures"], ["explain", "nDCG@10"], ["explain", "AP", "--dialect", "ranx"],
         ["dialects"], ["evaluate", "-h"], ["trec_eval", "-h"], ["compare", "-h"], ["ltr", "-h"],
         ["ltr", "train", "-h"], ["recsys-experiment", "-h"]]  # fmt: skip


@pytest.mark.parametrize("argv", LIGHT, ids=lambda argv: "import" if argv is None else " ".join(argv))
def test_starting_imports_no_heavy_library(argv: list[str] | None) -> None:
    assert imported_by(argv).isdisjoint(HEAVY), sorted(imported_by(argv) & set(HEAVY))


EXAMPLES = [str(Path(rankwise.__file__).parent / "examples" / name) for name in ("qrels.txt", "run.txt")]


@pytest.mark.skipif(NATIVE is None, reason="TREC files are read by polars without the compiled scanner")
@pytest.mark.parametrize("argv", [["trec_eval", *EXAMPLES], ["trec_eval", "-q", "-m", "all_trec", *EXAMPLES],
                                  ["evaluate", *EXAMPLES], ["evaluate", "-m", "nDCG@10", "-q", "--format", "json",
                                                            *EXAMPLES]],
                         ids=["trec_eval", "trec_eval -q all_trec", "evaluate", "evaluate json"])  # fmt: skip
def test_trec_files_are_evaluated_without_polars(argv: list[str]) -> None:
    """TREC files read by the compiled scanner are evaluated and printed without importing polars (issue #22)."""
    imported = imported_by(argv)
    assert "numpy" in imported  # the check can fail: evaluating needs numpy
    assert imported.isdisjoint({"polars", "matplotlib", "scipy", "torch", "pyspark"}), sorted(imported & set(HEAVY))


def test_the_child_sees_what_a_command_imports() -> None:
    assert "polars" in imported_by(["trec_eval", "-c", *EXAMPLES])  # -c adds rows to the run's frame


def test_the_listed_short_help_is_each_commands_own() -> None:
    for name, text in SHORT_HELP.items():
        command = load_command(name)
        assert command is not None and command.short_help == text, name
    assert load_command("no-such-command") is None
    assert main.list_commands(click.Context(main)) == sorted(SHORT_HELP)


def test_the_public_names_load_on_first_use() -> None:
    assert set(dir(rankwise)) >= set(rankwise.__all__)
    from rankwise import Comparison, TiePolicy, evaluate

    assert evaluate is rankwise.evaluate and Comparison.__name__ == "Comparison" and TiePolicy.__name__ == "TiePolicy"
    with pytest.raises(AttributeError, match="no_such_name"):
        rankwise.no_such_name  # noqa: B018


@pytest.mark.skipif(NATIVE is None, reason="TREC files are read by polars without the compiled scanner")
def test_the_drop_in_starts_without_click() -> None:
    """``rankwise trec_eval`` goes from the entry point to the drop-in without the command-line framework or the
    other commands (issue #22: its start-up is most of a small evaluation)."""
    imported = imported_by(["trec_eval", "-m", "map", *EXAMPLES])
    assert imported.isdisjoint({"click", "rich", "polars"}), sorted(imported & {"click", "rich", "polars"})


DROP_IN_CASES = [["-m", "map", "-m", "P.5,10", *EXAMPLES], ["-q", "-m", "all_trec", *EXAMPLES], ["-h"], ["-v"],
                 ["-c", "-m", "ndcg_cut.10", *EXAMPLES], ["-m", "ndcg_cutt.10", *EXAMPLES], [EXAMPLES[0]],
                 ["-m", "map", EXAMPLES[0], "missing-run.txt"], ["-R", "prefs", "-m", "map", *EXAMPLES]]  # fmt: skip


@pytest.mark.parametrize("argv", DROP_IN_CASES, ids=" ".join)
def test_the_entry_point_and_the_click_command_agree(argv: list[str]) -> None:
    """The same bytes on stdout and stderr and the same exit status from ``rankwise trec_eval`` started as a program
    (the entry point's path, no click) and run as a click command (``rankwise.cli``)."""
    env = {**os.environ, "COLUMNS": "100"}
    started = subprocess.run([sys.executable, "-m", "rankwise", "trec_eval", *argv], capture_output=True, env=env)
    clicked = subprocess.run([sys.executable, "-c", "import sys; from rankwise.cli import main; main()",
                              "trec_eval", *argv], capture_output=True, env=env)  # fmt: skip
    assert (started.returncode, started.stdout, started.stderr) == (clicked.returncode, clicked.stdout,
                                                                    clicked.stderr)  # fmt: skip
    assert started.returncode in (0, 2) and (started.stdout or started.stderr)
