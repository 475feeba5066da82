"""trec_eval's experimental gain measures and yaap: G, ndcg_rel (nDCGRel), Rndcg (RnDCG), dcg (DCG), ideal_dcg
(IDCG) and yaap (YAAP).

Worked by hand on small rankings (every branch of trec_eval's loops: a ranking shorter and longer than the ideal,
R = 0 at the relevance level, the 0/0 trec_eval prints as -nan, grade maps with a gain for grade 0 and a negative
gain); against pytrec_eval (trec_eval 9.0.8's C code, which has G, ndcg_rel and Rndcg but no grade maps: it cannot
read pair parameters) per query at full precision on the random cases of ``test_trec_eval_differential``; and
against the trec_eval 10 binary (``$TREC_EVAL``, skipped without it) for the names, the nickname lists and grade
maps. (The byte-for-byte runs under every option, these measures included, are in ``test_trec_eval_cli``.)
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess

import pytest
from test_all_trec import trec_eval_lines, write_case
from test_trec_eval_cli import rankwise_trec_eval
from test_trec_eval_differential import make_case

import rankwise
from conftest import close
from rankwise.trec_eval.request import trec_eval_request

TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
needs_binary = pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary ($TREC_EVAL or trec_eval on PATH)")
L3 = math.log2(3)

# q: grades a 2, b 1, c 1, d 0; ranked x (unjudged), b, a, d. Gains along the ranking 0, 1, 2, 0; ideal 2, 1, 1.
QRELS = {"q": {"a": 2, "b": 1, "c": 1, "d": 0}, "r": {"e": 0}, "s": {"a": 1}}
RUN = {"q": {"x": 4.0, "b": 3.0, "a": 2.0, "d": 1.0}, "r": {"e": 1.0}, "s": {"b": 3.0, "c": 2.0, "a": 1.0}}
DCG_2, DCG_3 = 1 / L3, 1 / L3 + 2 / 2
IDCG_1, IDCG_2, IDCG_3 = 2.0, 2 + 1 / L3, 2 + 1 / L3 + 1 / 2
BY_HAND = {
    # Σ gain_i / log2(2 + C_i − S_i): C = 2, 3, 4, 5 (max(I_j, 1) summed), S = 0, 1, 3, 3; ÷ the ideal gain 4
    "G": (1 / math.log2(2 + 3 - 1) + 2 / math.log2(2 + 4 - 3)) / 4,
    # nDCG at the relevant ranks 2 and 3, and the whole ranking's for c (relevant, not retrieved); ÷ R⁺ = 3
    "nDCGRel": (DCG_2 / IDCG_2 + DCG_3 / IDCG_3 + DCG_3 / IDCG_3) / 3,
    # the ideal gain changes after rank 1 (2 → 1) and after rank 3 (1 → 0); |L| = 4 = R⁺ + 1 adds nothing
    "RnDCG": (0 / IDCG_1 + DCG_3 / IDCG_3) / 2,
    # S = 1/2 + 2/3 over the relevant ranks 2 and 3: ln((1 + S) / (1 + R − S)), R = 3
    "YAAP": math.log((1 + 7 / 6) / (1 + 3 - 7 / 6)),
    "IDCG": IDCG_3,
    "IDCG@1": IDCG_1,
    "DCG": DCG_3,
}


def test_worked_example_through_the_api():
    result = rankwise.evaluate(QRELS, RUN, list(BY_HAND))
    for name, expected in BY_HAND.items():
        assert close(result.per_query["q"][name], expected), (name, result.per_query["q"][name], expected)
    # s: relevant a ranked 3rd of 3, R⁺ = 1: the change after rank 1 gives DCG@1/IDCG@1 = 0, and |L| = 3 > R⁺ + 1
    # adds DCG/IDCG = (1/log2 4)/1
    assert close(result.per_query["s"]["RnDCG"], (0 + 0.5) / 2)
    assert close(result.per_query["s"]["G"], 1 / math.log2(2 + 3 - 1))  # C = 1, 2, 3; S = 0, 0, 1
    assert close(result.per_query["s"]["YAAP"], math.log((1 + 1 / 3) / (1 + 1 - 1 / 3)))
    # r: nothing relevant (R = 0): 0, and YAAP is ln(1/1)
    assert all(result.per_query["r"][name] == 0.0 for name in ("G", "nDCGRel", "RnDCG", "YAAP", "IDCG", "DCG"))


def test_rndcg_zero_without_relevant_and_undefined_without_gain(tmp_path):
    """Rndcg is 0 when no document reaches -l (trec_eval returns early) and 0/0 when some does but no gain is
    positive (-l 0 on a query judged 0 only): trec_eval prints -nan, and so does its mean."""
    at_two = rankwise.evaluate(QRELS, RUN, ["RnDCG"], rel_level=2)
    assert at_two.per_query["s"]["RnDCG"] == 0.0  # s has grade 1 only: R = 0 at level 2
    assert close(at_two.per_query["q"]["RnDCG"], BY_HAND["RnDCG"])  # gains do not depend on the level
    at_zero = rankwise.evaluate(QRELS, RUN, ["RnDCG"], rel_level=0)
    assert math.isnan(at_zero.per_query["r"]["RnDCG"]) and at_zero.undefined["RnDCG"] == 1
    files = write_case(tmp_path, QRELS, RUN)
    got = trec_eval_lines("-q", "-l0", "-m", "Rndcg", *files)
    assert got[("Rndcg", "r")] == "  -nan" and got[("Rndcg", "all")] == "  -nan"


def test_trec_eval_names_and_lines(tmp_path):
    files = write_case(tmp_path, QRELS, RUN)
    got = trec_eval_lines("-q", "-m", "G", "-m", "ndcg_rel", "-m", "Rndcg", "-m", "yaap", "-m", "dcg", "-m",
                          "ideal_dcg", *files)  # fmt: skip
    for trec, name in (("G", "G"), ("ndcg_rel", "nDCGRel"), ("Rndcg", "RnDCG"), ("yaap", "YAAP"), ("dcg", "DCG"),
                       ("ideal_dcg", "IDCG")):  # fmt: skip
        assert got[(trec, "q")] == f"{BY_HAND[name]:6.4f}"
    names = [line.name for line in trec_eval_request(["yaap", "G", "ideal_dcg", "dcg", "Rndcg", "ndcg_rel"]).measures]
    assert names == ["G", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg", "yaap"]  # trec_eval's table order


def test_grade_maps_by_hand(tmp_path):
    """G.0=0.5,2=5: grade 0 gains 0.5 and counts in the ideal, grade 2 gains 5, grade 1 keeps its default gain 1."""
    files = write_case(tmp_path, QRELS, RUN)
    (line,) = trec_eval_request(["G.0=0.5,2=5"]).measures
    assert line.name == "G_0=0.5,2=5" and str(line.measure) == "G(rel=0,gain={0:0.5,2:5})"
    got = trec_eval_lines("-q", "-m", "G.0=0.5,2=5", "-m", "dcg.2=-1", *files)
    # q: gains along the ranking 0, 1, 5, 0.5; ideal 5, 1, 1, 0.5 (total 7.5); C = 5, 6, 7, 8; S = 0, 1, 6, 6.5
    expected = (1 / math.log2(2 + 6 - 1) + 5 / math.log2(2 + 7 - 6) + 0.5 / math.log2(2 + 8 - 6.5)) / 7.5
    assert got[("G_0=0.5,2=5", "q")] == f"{expected:6.4f}"
    assert got[("dcg_2=-1", "q")] == f"{1 / L3 - 1 / 2:6.4f}"  # a negative gain lowers the DCG
    (rndcg,) = trec_eval_request(["Rndcg.0=1"]).measures
    assert str(rndcg.measure) == "RnDCG(gain={0:1})"  # Rndcg's rel stays -l: its R test is trec_eval's num_rel


@pytest.mark.parametrize("seed", range(0, 120, 2))
def test_per_query_against_pytrec_eval(seed):
    """Full precision, per query: G, ndcg_rel and Rndcg of trec_eval's C code (through pytrec_eval), at -l 1 and 2
    (scores float32-representable, as pytrec_eval stores them)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = make_case(seed)
    for level in (1, 2):
        ref = pytrec_eval.RelevanceEvaluator(qrels, {"G", "ndcg_rel", "Rndcg"}, relevance_level=level).evaluate(run)
        result = rankwise.evaluate(qrels, run, ["G", "nDCGRel", "RnDCG"], rel_level=level, scores="float32")
        for qid, values in ref.items():
            for trec, name in (("G", "G"), ("ndcg_rel", "nDCGRel"), ("Rndcg", "RnDCG")):
                got = result.per_query[qid][name]
                assert close(got, values[trec]), (seed, level, qid, trec, got, values[trec])


@needs_binary
@pytest.mark.parametrize("seed", range(30))
def test_grade_maps_against_the_binary(seed, tmp_path):
    """Grade maps (gains for grade 0, negative and fractional gains) on random cases, every -m of its own (trec_eval
    10 shares one parameter block between dcg, ideal_dcg and ndcg and crashes when two of them get parameters).
    Gains here differ by 1 or more or are equal: trec_eval sorts its ideal gains with a comparison that truncates
    their difference to an integer (gain_init.c comp_rel_gain), so gains closer than 1 fall in an order its C
    library's qsort decides, which rankwise does not reproduce (it sorts by gain)."""
    files = write_case(tmp_path, *make_case(seed))
    for spec in ("G.0=0.5,2=5", "ndcg_rel.1=3,3=9", "Rndcg.0=1,2=4.5", "ideal_dcg.1=4.5,2=-1", "dcg.0=2", "yaap",
                 "G.3=7.5"):  # fmt: skip
        args = ["-q", "-c", "-m", spec, *files]
        expected = subprocess.run([TREC_EVAL, *args], capture_output=True, text=True, check=True).stdout
        code, out, err = rankwise_trec_eval(*args)
        assert code == 0 and out == expected, (spec, err)
