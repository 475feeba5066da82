"""``rankwise trec_eval``: trec_eval 10's options, and its output byte for byte.

Against the real trec_eval 10 binary when one is found (``$TREC_EVAL``, else ``trec_eval`` on the PATH; build it
from usnistgov/trec_eval with ``make``): random cases with ties, negative grades and short runs, under every option
combination, diffed line for line (lines of the measures rankwise does not compute — G, ndcg_rel, Rndcg — are taken
out of trec_eval's output first). Without the binary those tests skip; the option grammar and the errors are
tested here either way, and the values are proven against pytrec_eval in ``test_all_trec``.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from rankwise.cli import main
from rankwise.measures.trec_names import NOT_COMPUTED
from test_all_trec import write_case
from test_trec_eval_differential import make_case

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
    assert code == 0, err
    expected = reference(*options, *files)
    if "nan" not in expected:
        assert out == expected
        return
    # -J can leave a query with no document: trec_eval divides 0 by 0 there (iprec_at_recall, 11pt_avg print
    # "-nan", and their means too) where rankwise gives 0; every other line is the same
    pairs = list(zip(expected.splitlines(), out.splitlines(), strict=True))
    assert [got for ref, got in pairs if "nan" not in ref] == [ref for ref, _ in pairs if "nan" not in ref]
    assert all(got.split("\t")[:2] == ref.split("\t")[:2] for ref, got in pairs)


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
        (["-m", "all_prefs"], "preference and judgment-group measures"),
        (["-R", "prefs"], "reads only the 'qrels' judgment format"),
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


def test_measures_not_computed_are_noted(tmp_path):
    files = write_case(tmp_path, *make_case(2))
    code, out, err = rankwise_trec_eval("-m", "all_trec", *files)
    assert code == 0 and "left out: G, ndcg_rel, Rndcg" in err
    assert "infAP" in out and "unj_20" in out and "ndcg_rel" not in out
