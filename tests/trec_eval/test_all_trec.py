"""Every trec_eval measure rankwise computes, per query, against trec_eval's own C code through pytrec_eval
(pytrec-eval-terrier, trec_eval 9.0.8) — a table generated from trec_eval's measure list — plus hand-computed cases
for the measures trec_eval 10 added (rbp, rbp_resid, unj), which pytrec_eval does not have.

The random cases are those of ``test_trec_eval_differential`` (float32 scores, ties, negative grades, short runs,
queries without relevant documents); each is evaluated with ``rankwise trec_eval -q`` and read back from its output,
so the names, the order and the printed values are checked too (to the 4 decimals trec_eval prints).

trec_eval 9 rounds recall levels as floor(x·R + 0.9) where trec_eval 10 rounds to nearest: 11pt_avg is compared
with ``IPrecAvg(round=v9)``, computed through the API.
"""

from __future__ import annotations

import math

import pytest
from click.testing import CliRunner
from test_trec_eval_differential import make_case

import rankwise
from conftest import close
from rankwise.cli import main
from rankwise.measures.trec_names import ALL_TREC, NOT_COMPUTED
from rankwise.trec_eval.request import trec_eval_request

pytrec_eval = pytest.importorskip("pytrec_eval")

N_CASES = 60
# trec_eval measures of all_trec that pytrec_eval (trec_eval 9.0.8) computes as trec_eval 10 does.
SAME_IN_9 = sorted(set(ALL_TREC) - NOT_COMPUTED - {"runid", "relstring", "11pt_avg", "iprec_at_recall", "unj", "rbp",
                                                   "rbp_resid"})  # fmt: skip
MIN_GEO_MEAN = 1e-5


def write_case(tmp_path, qrels: dict, run: dict) -> tuple[str, str]:
    """The case as TREC files."""
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, docs in run.items() for d, s in docs.items()))
    return str(qrels_path), str(run_path)


def printed(name: str, value: float) -> str:
    """How trec_eval prints a value: ``%ld`` for counts, else ``%6.4f``."""
    return str(int(value)) if name.startswith("num_") else f"{value:6.4f}"


def trec_eval_lines(*args: str) -> dict[tuple[str, str], str]:
    """``rankwise trec_eval ARGS`` output as {(name, qid): value text}."""
    result = CliRunner().invoke(main, ["trec_eval", *args])
    assert result.exit_code == 0, result.output
    out = {}
    for line in result.stdout.splitlines():
        name, qid, value = line.split("\t")
        assert len(name) >= 22 and name == name.rstrip() + " " * (len(name) - len(name.rstrip()))
        out[(name.rstrip(), qid)] = value
    return out


def test_the_table_covers_every_all_trec_measure():
    """Each all_trec measure is compared here, against pytrec_eval or by hand, or listed as not computed."""
    by_hand = {"runid", "relstring", "11pt_avg", "iprec_at_recall", "unj", "rbp", "rbp_resid"}
    assert set(ALL_TREC) == set(SAME_IN_9) | by_hand | (NOT_COMPUTED & set(ALL_TREC))
    assert set(SAME_IN_9) <= pytrec_eval.supported_measures


@pytest.mark.parametrize("seed", range(N_CASES))
def test_all_trec_per_query_matches_pytrec_eval(seed, tmp_path):
    qrels, run = make_case(seed)
    files = write_case(tmp_path, qrels, run)
    for level in (1, 2):
        ref = pytrec_eval.RelevanceEvaluator(qrels, set(SAME_IN_9), relevance_level=level).evaluate(run)
        got = trec_eval_lines("-q", "-m", "all_trec", f"-l{level}", *files)
        for qid, values in ref.items():
            for name, expected in values.items():
                if name in ("gm_map", "gm_bpref", "num_q"):
                    continue  # printed only for all
                value = got[(name, qid)]
                assert value == printed(name, expected), (seed, level, qid, name, value, expected)
        for name in ("gm_map", "gm_bpref"):  # trec_eval's all: exp of the mean log
            expected = math.exp(sum(v[name] for v in ref.values()) / len(ref))
            assert float(got[(name, "all")]) == pytest.approx(expected, abs=5.001e-5)


@pytest.mark.parametrize("seed", range(0, N_CASES, 3))
def test_new_measures_exact_through_the_api(seed):
    """Full-precision per-query values of the new families, through the API, against pytrec_eval."""
    qrels, run = make_case(seed)
    pairs = {
        "set_P": "SetP", "set_relative_P": "RelP", "set_map": "SetMAP", "set_F": "F1", "infAP": "infAP",
        "binG": "binG", "utility": "Utility", "num_nonrel_judged_ret": "NumNonRelJudgedRet",
        "relative_P_5": "RelP@5", "relative_P_20": "RelP@20", "Rprec_mult_0.20": "Rprec(mult=0.2)",
        "Rprec_mult_1.60": "Rprec(mult=1.6)", "Rprec_mult_2.00": "Rprec(mult=2)", "11pt_avg": "IPrecAvg(round=v9)",
        "gm_bpref": "GMbpref",
    }  # fmt: skip
    measures = {"set_P", "set_relative_P", "set_map", "set_F", "infAP", "binG", "utility", "num_nonrel_judged_ret",
                "relative_P.5,20", "Rprec_mult.0.2,1.6,2.0", "11pt_avg", "gm_bpref"}  # fmt: skip
    ref = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    result = rankwise.evaluate(qrels, run, list(pairs.values()), scores="float32")
    for qid, values in ref.items():
        for name, expected in values.items():
            got = result.per_query[qid][pairs[name]]
            if name == "gm_bpref":
                got = math.log(max(got, MIN_GEO_MEAN))
            assert close(got, expected), (seed, qid, name, got, expected)


def test_set_f_weight_is_beta_squared():
    """trec_eval's set_F.x weighs with x = β²: set_F.0.25 is F with β = 0.5."""
    qrels, run = make_case(3)
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"set_F.0.25"}).evaluate(run)
    (line,) = trec_eval_request(["set_F.0.25"]).measures
    assert line.name == "set_F_0.25" and str(line.measure) == "F1(beta=0.5)"
    result = rankwise.evaluate(qrels, run, [line.measure])
    for qid, values in ref.items():
        assert close(result.values[0][result.query_ids.index(qid)], values["set_F"])


def test_rbp_residual_and_unjudged_by_hand(tmp_path):
    """rbp, rbp_resid and unj_k worked out by hand on one ranking: grades 2, unjudged, 0, 1, −1 (in pool,
    unjudged); the query's largest grade is 2, so gains are g/2."""
    qrels = {"q": {"a": 2, "c": 0, "d": 1, "e": -1, "z": 1}}
    run = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}
    files = write_case(tmp_path, qrels, run)
    got = trec_eval_lines("-q", "-m", "rbp.p=0.5", "-m", "rbp_resid.p=0.5", "-m", "unj.2,5,10", *files)
    rbp = 0.5 * (1.0 * 1 + 0.5 * 0.5**3)  # (1 − p)(gain_1 p^0 + gain_4 p^3)
    resid = 0.5**5 + 0.5 * (0.5**1 + 0.5**4)  # p^|L| + (1 − p) Σ_unjudged p^(i−1), ranks 2 and 5
    assert got[("rbp_p=0.5", "q")] == f"{rbp:6.4f}"
    assert got[("rbp_resid_p=0.5", "q")] == f"{resid:6.4f}"
    assert [got[(f"unj_{k}", "q")] for k in (2, 5, 10)] == ["0.5000", "0.4000", "0.2000"]
    result = rankwise.evaluate(qrels, run, ["RBP(p=0.5)", "RBPResidual(p=0.5)", "Judged@2", "Judged@10"])
    assert close(result.aggregate["RBP(p=0.5)"], rbp) and close(result.aggregate["RBPResidual(p=0.5)"], resid)
    # Judged counts any document in the qrels, e (graded −1) too: 4 of the 5 ranked (b is not judged)
    assert result.aggregate["Judged@2"] == 0.5 and result.aggregate["Judged@10"] == 0.8


def test_relstring_marks_grades_unjudged_and_pool(tmp_path):
    qrels = {"q": {"a": 12, "c": 0, "d": 3, "e": -1}, "r": {"x": 1}}
    run = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}, "r": {"y": 1.0}}
    files = write_case(tmp_path, qrels, run)
    got = trec_eval_lines("-q", "-m", "relstring.4", *files)
    assert got[("relstring_4", "q")] == "'>-03'" and got[("relstring_4", "r")] == "'-'"
    got = trec_eval_lines("-q", "-c", "-m", "relstring", "-J", *files)
    assert got[("relstring", "q")] == "'>03'"  # -J: b (unjudged) and e (graded −1) removed


def test_judged_only_is_condensed_list(tmp_path):
    """-J equals evaluating the run with its unjudged documents removed, after -M."""
    qrels, run = make_case(11)
    files = write_case(tmp_path, qrels, run)
    condensed = {q: {d: s for d, s in docs.items() if qrels.get(q, {}).get(d, -1) >= 0} for q, docs in run.items()}
    condensed = {q: docs for q, docs in condensed.items() if docs}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.5", "ndcg", "bpref"}).evaluate(condensed)
    got = trec_eval_lines("-q", "-J", "-m", "map", "-m", "P.5", "-m", "ndcg", "-m", "bpref", *files)
    for qid, values in ref.items():
        for name, expected in values.items():
            assert got[(name, qid)] == printed(name, expected)
