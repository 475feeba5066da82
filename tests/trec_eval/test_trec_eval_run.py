"""The trec_eval drop-in as a library: its command line read into options (``rankwise.trec_eval.options``), a run
giving its output and its notes (``rankwise.trec_eval.run``), and the judgment formats' shared shape
(``rankwise.trec_eval.judgments``). The command line's output is tested in ``test_trec_eval_cli``."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_trec_eval_cli import rankwise_trec_eval

from conftest import run_cli
from rankwise.errors import InputError, RankwiseError
from rankwise.io.table import Table
from rankwise.trec_eval.judgment_groups import JudgmentGroups
from rankwise.trec_eval.judgments import Judgments
from rankwise.trec_eval.options import TrecEvalOptions, parse_options
from rankwise.trec_eval.prefs import Preferences
from rankwise.trec_eval.run import TrecEvalRun, load_judgments, read_zscores, run_trec_eval

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq4 0 z 1\n"  # q4 judged, not run: trec_eval 10 would stop
RUN = "q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\nq2 Q0 x 1 1.0 r\nq3 Q0 y 1 1.0 r\n"


def _file(tmp_path: Path, text: str, name: str = "qrels") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_options_read_as_getopt_long_reads_them():
    glued = parse_options(["-qcmP.5", "-M50", "-l2", "-mmap", "qrels", "run"])
    separate = parse_options(["qrels", "-q", "-c", "-m", "P.5", "-M", "50", "run", "-l", "2", "-m", "map"])
    long = parse_options(["--query_eval_wanted", "--complete_rel_info_wanted", "--measure=P.5", "--measure", "map",
                          "--Max_retrieved_per_topic=50", "--level_for_rel", "2", "qrels", "run"])  # fmt: skip
    assert glued == separate == long == TrecEvalOptions(
        files=("qrels", "run"), per_query=True, complete=True, rel_level=2, depth=50, measures=("P.5", "map")
    )
    assert parse_options([]) == TrecEvalOptions()  # trec_eval's defaults
    others = ["-n", "-J", "-N", "0", "-Z", "z", "-R", "qrels_jg", "-T", "trec_results", "-M1", "-M2"]
    assert parse_options(others) == TrecEvalOptions(summary=False, judged_only=True, collection=0, zscores="z",
                                                    rel_format="qrels_jg", depth=2)  # fmt: skip
    assert parse_options(["-h"]).help and parse_options(["--version"]).version


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-x"], "trec_eval: option -x not recognized"),
        (["-M", "0"], "trec_eval: -M 0 must be positive"),
        (["-l", "-1"], "trec_eval: -l -1 must be >= 0"),
        (["-N", "x"], "trec_eval: -N 'x' must be an integer"),
        (["-R", "xml"], "trec_eval: -R xml: the judgment format is one of qrels, qrels_jg, prefs, qrels_prefs"),
        (["-T", "xml"], "trec_eval: -T xml: rankwise reads only the 'trec_results' run format"),
        (["-o", "-D", "1"], "trec_eval: -o is not supported by rankwise"),  # the first bad option is named
    ],
)
def test_bad_options_are_named(arguments, message):
    with pytest.raises(RankwiseError) as info:
        parse_options(arguments)
    assert str(info.value) == message


def test_a_run_gives_its_output_and_its_notes(tmp_path):
    files = _file(tmp_path, QRELS), _file(tmp_path, RUN, "run")
    done = run_trec_eval(parse_options(["-q", "-m", "P.1", *files]))
    assert isinstance(done, TrecEvalRun)
    code, out, err = rankwise_trec_eval("-q", "-m", "P.1", *files)
    assert code == 0 and done.text == out
    assert err == "".join(f"rankwise: note: {note}\n" for note in done.notes)
    assert len(done.notes) == 1 and "q4" in done.notes[0] and "missing from the run" in done.notes[0]


def test_input_trec_eval_evaluates_gives_no_note(tmp_path):
    """On stderr the drop-in prints what trec_eval prints: nothing, for an ordinary run — here 100 documents per query
    with every relevant one among them (which ``rankwise evaluate`` notes as possibly sampled candidates), a run query
    without judgments, a judged query without a relevant document, a depth cut, -c and -J."""
    qrels = "".join(f"q{q} 0 d{q}_{d} {int(d < 3)}\n" for q in range(3) for d in range(5)) + "q9 0 x 0\n"
    run = "".join(f"q{q} Q0 d{q}_{d} {d + 1} {100 - d} r\n" for q in (*range(3), 5) for d in range(100))
    run += "".join(f"q9 Q0 y{d} {d + 1} {100 - d} r\n" for d in range(100))  # q9: judged, nothing relevant
    files = _file(tmp_path, qrels), _file(tmp_path, run, "run")
    for options in ([], ["-q", "-M", "50"], ["-m", "all_trec"], ["-c", "-J"]):
        code, out, err = rankwise_trec_eval(*options, *files)
        assert code == 0 and out and err == "", (options, err)
    ordinary = [line for line in run.splitlines(keepends=True) if line[:2] in ("q0", "q1", "q2")]
    judged = qrels.replace("q9 0 x 0\n", "")
    plain = _file(tmp_path, judged, "plain_qrels"), _file(tmp_path, "".join(ordinary), "plain_run")
    assert "sampled candidates?" in run_cli("evaluate", *plain)[2]  # rankwise evaluate notes it
    assert rankwise_trec_eval(*plain)[2] == ""


def test_the_notes_known_before_an_error_are_kept(tmp_path):
    """A run that fails after its evaluation (here: the -Z file is missing) has given its notes by then; the
    command line prints them before the error."""
    files = _file(tmp_path, QRELS), _file(tmp_path, RUN, "run")
    notes: list[str] = []
    with pytest.raises(OSError):
        run_trec_eval(parse_options(["-Z", str(tmp_path / "nope"), *files]), notes)
    assert notes and all("query" in note for note in notes)
    code, out, err = rankwise_trec_eval("-Z", str(tmp_path / "nope"), *files)
    assert code == 2 and out == ""
    assert err.splitlines()[:-1] == [f"rankwise: note: {note}" for note in notes]
    assert err.splitlines()[-1].startswith("rankwise: error: [Errno 2]")


def test_judgments_load_by_format_and_share_one_shape(tmp_path):
    qrels = load_judgments(_file(tmp_path, QRELS), "qrels")
    path = _file(tmp_path, "q1 u1 a 1\nq1 u2 a 2\nq1 u2 b 0\n")
    groups = load_judgments(path, "qrels_jg")
    prefs = load_judgments(path, "qrels_prefs")
    assert isinstance(qrels, Table) and isinstance(groups, JudgmentGroups) and isinstance(prefs, Preferences)
    assert isinstance(groups, Judgments) and isinstance(prefs, Judgments)
    assert groups.pool().frame.get_column("value").to_list() == [2, 0]  # the largest grade over the groups
    assert prefs.pool().frame.get_column("value").to_list() == [0, 0]  # judged, no grade
    assert groups.pool().origin.name == f"{path} (all judgment groups)"
    assert prefs.pool().origin.name == f"{path} (documents with a preference)"
    with pytest.raises(InputError, match=r":2: grade 'x' is not an integer"):
        load_judgments(_file(tmp_path, "q1 u1 a 1\nq1 u2 a x\n"), "qrels_jg")
    with pytest.raises(InputError, match=r":1: rel_level 'inf' is not a finite number"):
        load_judgments(_file(tmp_path, "q1 u1 a inf\n"), "qrels_prefs")


def test_zscores_file(tmp_path):
    path = tmp_path / "z"
    path.write_text("q1 map 0.5 0.25\n\nq2 P_5 0 0\n")
    assert read_zscores(path) == {("q1", "map"): (0.5, 0.25), ("q2", "P_5"): (0.0, 0.0)}
    for text, problem in [("q1 map 0.5\n", "a z-score line is"), ("q1 map x 1\n", "must be numbers"),
                          ("q1 map nan 1\n", "must be finite")]:  # fmt: skip
        path.write_text(text)
        with pytest.raises(InputError, match=f"{path}:1: .*{problem}"):
            read_zscores(path)
