"""``rankwise trec_eval``: trec_eval 10's options, and its output byte for byte.

Against the real trec_eval 10 binary when one is found (``$TREC_EVAL``, else ``trec_eval`` on the PATH; build it
from usnistgov/trec_eval with ``make``): random cases with ties, negative grades and short runs, under every option
combination, diffed line for line (lines of any measure rankwise does not compute, none today, would be taken out
of trec_eval's output first). Without the binary those tests skip; the option grammar and the errors are tested here
either way, and the values are proven against pytrec_eval in ``test_all_trec``. The other judgment formats (``-R``)
are tested in ``test_trec_eval_prefs`` and ``test_trec_eval_judgment_groups``, the experimental gain measures in
``test_trec_eval_gain_measures``.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from click.testing import CliRunner
from test_all_trec import write_case
from test_trec_eval_differential import make_case

from rankwise.cli import main
from rankwise.measures.trec_names import NOT_COMPUTED

TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
needs_binary = pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary ($TREC_EVAL or trec_eval on PATH)")

OPTION_SETS = [
    [],
    ["-q", "-m", "all_trec"],
    ["-q", "-m", "all_trec", "-c"],
    ["-q", "-m", "all_trec", "-l2"],
    ["-q", "-m", "all_trec", "-M5"],
    ["-qc", "-m", "all_trec", "-M", "3", "-l", "2"],
    ["-q", "-J", "-m", "all_trec"],
    ["-q", "-J", "-M4", "-m", "all_trec", "-l2"],
    ["-q", "-n", "-m", "set", "-N", "500", "-mutility.2,-1,-1,0.5", "-mset_F.0.25"],
    ["-q", "-mP.3,1,7", "-mndcg.1=3,2=9,0=0.5", "-mndcg_cut.2,23.4", "-mRprec_mult.0.35,1.5", "-m11pt_avg..25,.5,.75",
     "-miprec_at_recall..15,.55", "-mrbp.p=0.7", "-mrbp_resid.p=0.95", "-munj.1,3", "-mrelative_P.2,4",
     "-mrelstring.6", "-msuccess.2"],
    ["-q", "-m", "G", "-m", "dcg", "-m", "ndcg_rel", "-m", "Rndcg", "-m", "yaap", "-l2"],
    ["-q", "-c", "-m", "ideal_dcg", "-m", "Rndcg", "-m", "yaap", "-M6"],
    ["-q", "-J", "-mG.1=3,2=9,0=0.5", "-mndcg_rel.2=4.5,3=1", "-mRndcg.0=1,3=7"],
    ["-q", "-l0", "-mdcg.1=2,3=-1", "-mG", "-mRndcg", "-mndcg_rel"],
]  # fmt: skip


def rankwise_trec_eval(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["trec_eval", *args])
    return result.exit_code, result.stdout, result.stderr


def reference(*args: str) -> str:
    """trec_eval's output without the lines of measures rankwise does not compute."""
    assert TREC_EVAL is not None
    out = subprocess.run([TREC_EVAL, *args], capture_output=True, text=True, check=True).stdout
    left_out = tuple(f"{name} " for name in NOT_COMPUTED) + tuple(f"{name}\t" for name in NOT_COMPUTED)
    return "".join(line for line in out.splitlines(keepends=True) if not line.startswith(left_out))


@needs_binary
@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("options", OPTION_SETS, ids=[" ".join(o) or "default" for o in OPTION_SETS])
def test_output_is_trec_eval_byte_for_byte(seed, options, tmp_path):
    qrels, run = make_case(seed)
    if not any(o.startswith("-") and not o.startswith("-m") and "c" in o for o in options):
        qrels = {q: docs for q, docs in qrels.items() if q in run}  # trec_eval 10 exits on a judged query not run
    if not qrels:
        pytest.skip("no judged query left")
    files = write_case(tmp_path, qrels, run)
    code, out, err = rankwise_trec_eval(*options, *files)
    assert code == 0 and err == "", err  # trec_eval prints nothing on stderr here, and neither does the drop-in
    assert out == reference(*options, *files)  # "-nan" included: see test_a_ranking_emptied_by_J_prints_nan


@needs_binary
def test_glued_and_separate_parameters_read_the_same(tmp_path):
    files = write_case(tmp_path, *make_case(5))
    glued = rankwise_trec_eval("-qmndcg_cut.5,10", "-M50", "-l1", *files)
    separate = rankwise_trec_eval("-q", "-m", "ndcg_cut.5,10", "-M", "50", "-l", "1", *files)
    late = rankwise_trec_eval(*files, "--query_eval_wanted", "--measure=ndcg_cut.5,10", "-M", "50")
    assert glued == separate == late
    assert glued[1] == reference("-q", "-m", "ndcg_cut.5,10", "-M", "50", *files)


def test_option_grammar_without_the_binary(tmp_path):
    files = write_case(tmp_path, *make_case(5))
    glued = rankwise_trec_eval("-qcmP.5", "-M50", "-l2", *files)
    separate = rankwise_trec_eval(*files, "-q", "-c", "-m", "P.5", "-M", "50", "-l", "2")
    assert glued == separate and glued[0] == 0
    lines = glued[1].splitlines()
    assert all(line.startswith("P_5                   \t") for line in lines)
    assert lines[-1].split("\t")[1] == "all"


def test_first_parameters_win_and_order_is_trec_evals(tmp_path):
    """trec_eval keeps the first -m NAME.PARAMS of a measure and prints in its table order, whatever the -m order."""
    files = write_case(tmp_path, *make_case(7))
    code, out, _ = rankwise_trec_eval("-m", "ndcg", "-m", "P.5", "-m", "P.10", "-m", "official", "-m", "map", *files)
    names = [line.split("\t")[0].rstrip() for line in out.splitlines()]
    assert code == 0 and "P_10" not in names and names.index("P_5") < names.index("ndcg")
    assert names[:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-m", "nosuch"], "trec_eval has no measure 'nosuch'"),
        (["-m", "all_prefs"], "-m prefs_num_prefs_poss cannot be computed from -R qrels judgments"),
        (["-R", "prefs"], "-m num_ret (no -m: trec_eval's official measures) cannot be computed from -R prefs"),
        (["-R", "xml"], "-R xml: the judgment format is one of qrels, qrels_jg, prefs, qrels_prefs"),
        (["-m", "yaap.2"], "trec_eval's yaap takes no parameters"),
        (["-m", "G.x"], "parameters must look like name=value"),
        (["-m", "P.5,5"], "a cutoff is given twice"),
        (["-m", "utility.1,2"], "exactly four coefficients"),
        (["-M", "x"], "-M 'x' must be an integer"),
        (["-x"], "option -x not recognized"),
        (["-m", "map.3"], "takes no parameters"),
    ],
)
def test_bad_options_are_one_line_and_status_2(args, message, tmp_path):
    files = write_case(tmp_path, *make_case(1))
    code, out, err = rankwise_trec_eval(*args, *files)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_every_measure_is_computed(tmp_path):
    """Every measure of trec_eval's table is computed (none left out with a note), and all_trec prints the
    experimental G, ndcg_rel and Rndcg too, but not dcg, ideal_dcg or yaap (as trec_eval's nickname lists)."""
    assert not NOT_COMPUTED
    files = write_case(tmp_path, *make_case(2))
    code, out, err = rankwise_trec_eval("-m", "all_trec", *files)
    names = {line.split("\t")[0].rstrip() for line in out.splitlines()}
    assert code == 0 and "left out" not in err
    assert {"infAP", "unj_20", "G", "ndcg_rel", "Rndcg", "binG"} <= names
    assert not names & {"dcg", "ideal_dcg", "yaap"}


def test_a_trec_eval_name_has_numeric_cutoffs():
    """P_5 and P.5,10 are trec_eval names; P_IA@10 is not (its "cutoff" is no number): it is ir_measures' name of
    the intent-aware P-IA@10."""
    from rankwise import MeasureError, parse_measure, parse_measures
    from rankwise.measures.trec_names import parse_trec_name

    assert parse_trec_name("P_IA@10") is None and parse_trec_name("recall_x") is None
    assert str(parse_measure("P_IA@10")) == "P-IA@10" and str(parse_measure("p_ia@5")) == "P-IA@5"
    assert [key for key, _ in parse_measures("P.5,10")] == ["P_5", "P_10"]
    assert str(parse_measure("iprec_at_recall_0.10")) == "IPrec@0.1"
    assert str(parse_measure("Rprec_mult_0.20")) == "Rprec(mult=0.2)"
    with pytest.raises(MeasureError, match="cutoff '1e3' is not a number"):
        parse_measure("P_1e3")
    with pytest.raises(MeasureError, match="unknown measure 'P_x'"):
        parse_measure("P_x")


def test_a_ranking_emptied_by_J_prints_nan(tmp_path):
    """-J can leave a query no document: trec_eval's interpolated precision starts from num_rel_ret / num_ret =
    0/0 (m_iprec_at_recall.c, m_11pt_avg.c), so the recall levels whose cutoff lround(x · R) is 0 print -nan, and so
    do 11pt_avg and the means; the levels above stay 0 (checked against the binary: the byte-for-byte test above)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 d 1\nq2 0 e 0\n")
    run.write_text("q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\nq2 Q0 x 1 1.0 r\n")  # q2 ranks only an unjudged document
    code, out, err = rankwise_trec_eval("-q", "-J", "-m", "iprec_at_recall.0,0.2,0.3,0.8", "-m", "11pt_avg",
                                        "-m", "num_ret", str(qrels), str(run))  # fmt: skip
    assert code == 0, err
    rows = {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in out.splitlines()}
    assert rows[("iprec_at_recall_0.00  ", "q2")] == rows[("iprec_at_recall_0.20  ", "q2")] == "  -nan"  # R=2: 0, 0
    assert rows[("iprec_at_recall_0.30  ", "q2")] == rows[("iprec_at_recall_0.80  ", "q2")] == "0.0000"  # 1, 2
    assert rows[("11pt_avg              ", "q2")] == rows[("11pt_avg              ", "all")] == "  -nan"
    assert rows[("iprec_at_recall_0.00  ", "q1")] == "1.0000" and rows[("num_ret               ", "q2")] == "0"
    assert rows[("iprec_at_recall_0.00  ", "all")] == "  -nan" and rows[("iprec_at_recall_0.30  ", "all")] == "0.5000"
