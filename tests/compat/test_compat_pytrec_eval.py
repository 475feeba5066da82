"""``rankwise.compat.pytrec_eval`` returns what pytrec_eval returns (pytrec-eval-terrier, trec_eval 9 inside), on random
qrels and runs with float32 ties, queries missing on either side, graded and negative judgments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankwise.compat import pytrec_eval as compat

MEASURES = {"map", "P.5,10", "recall.5,100", "ndcg", "ndcg_cut.3,10", "recip_rank", "Rprec", "bpref", "map_cut.5",
            "success.1,5", "num_rel", "num_rel_ret", "num_ret", "num_q", "gm_map", "set_P", "set_recall", "set_F",
            "iprec_at_recall", "infAP", "P_20", "gm_bpref", "11pt_avg", "relative_P.5", "ndcg_rel", "Rndcg", "binG",
            "G", "set_map", "set_relative_P", "num_nonrel_judged_ret", "utility", "map_cut.10",
            "Rprec_mult"}  # fmt: skip


def _case(seed: int) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(int(rng.integers(1, 7))):
        docs = [f"d{i}" for i in range(int(rng.integers(2, 40)))]
        if rng.random() < 0.9:
            qrels[str(q)] = {d: int(rng.choice([-1, 0, 0, 1, 2, 3])) for d in docs if rng.random() < 0.5}
            qrels[str(q)][docs[0]] = 1
        if rng.random() < 0.9:
            chosen = rng.choice(docs, int(rng.integers(1, len(docs) + 1)), replace=False)
            base = rng.choice([1.0, 1.0 + 1e-9, 2.0, 3.5], size=len(chosen))  # ties, and ties only in float32
            run[str(q)] = {str(d): float(s) for d, s in zip(chosen, base)}
    qrels.setdefault("0", {"d0": 1})
    run.setdefault("0", {"d0": 1.0})
    return qrels, run


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize(("level", "judged_only"), [(1, False), (2, False), (1, True)])
def test_equals_pytrec_eval(seed: int, level: int, judged_only: bool) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _case(seed)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, MEASURES, relevance_level=level,
                                            judged_docs_only_flag=judged_only).evaluate(run)  # fmt: skip
    ours = compat.RelevanceEvaluator(qrels, MEASURES, relevance_level=level,
                                     judged_docs_only_flag=judged_only).evaluate(run)  # fmt: skip
    assert ours.keys() == theirs.keys()
    for query, values in theirs.items():
        assert ours[query].keys() == values.keys(), (query, sorted(set(ours[query]) ^ set(values)))
        bad = [(k, ours[query][k], v) for k, v in values.items()
               if not (math.isclose(ours[query][k], v, rel_tol=1e-9, abs_tol=1e-12)
                       or (math.isnan(v) and math.isnan(ours[query][k])))]  # fmt: skip
        assert not bad, (query, bad)


def test_supported_measures_and_refusals() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    assert compat.supported_measures == pytrec_eval.supported_measures - {"relstring", "runid"}
    assert compat.supported_nicknames.keys() <= pytrec_eval.supported_nicknames.keys()
    for name, members in compat.supported_nicknames.items():
        assert members == pytrec_eval.supported_nicknames[name] - {"relstring", "runid"}, name
    with pytest.raises(ValueError, match="unsupported measure foo"):
        compat.RelevanceEvaluator({"q": {"d": 1}}, {"foo"})
    assert compat.RelevanceEvaluator({"q": {"d": 1}}, {"map"}).evaluate({"other": {"d": 1.0}}) == {}


TEXT_FIELDS = {"runid", "relstring"}  # trec_eval prints them as text; pytrec_eval returns 0.0, rankwise leaves them out


@pytest.mark.parametrize(
    "measures",
    [{"ndcg_cut", "ndcg_cut.1,4", "ndcg_cut_20,4", "ndcg_cut_15", "recall.1000", "P"}, {"P.5", "P_10", "P"},
     {"official"}, {"set", "ndcg"}, {"all_trec"}, {"official", "set_F", "Rprec_mult.0.5,2", "success_1,5"}, set()],
)  # fmt: skip
def test_measure_lists_as_pytrec_eval(measures: set[str]) -> None:
    """Nicknames expanded and one measure's parameters merged as pytrec_eval merges them (a bare name adds its
    defaults only when no parameter is given); a run query with an empty ranking evaluated, with its values."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    for seed in range(4):
        qrels, run = _case(seed)
        run[next(iter(qrels))] = {}  # a judged query with an empty ranking
        theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        ours = compat.RelevanceEvaluator(qrels, measures).evaluate(run)
        assert ours.keys() == theirs.keys()
        for query, values in theirs.items():
            assert ours[query].keys() == values.keys() - TEXT_FIELDS
            assert all(math.isclose(ours[query][k], v, abs_tol=1e-12) or (math.isnan(v) and math.isnan(ours[query][k]))
                       for k, v in values.items() if k not in TEXT_FIELDS)  # fmt: skip


def test_empty_inputs_as_pytrec_eval() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _case(1)
    run = {q: {} for q in run}
    cases = [(qrels, {"map", "ndcg"}, {}), (qrels, set(), run), (qrels, {"map", "P_5"}, run), ({}, {"map"}, run),
             ({}, set(), {}), (qrels, set(), {})]  # fmt: skip
    for judged, measures, ranked in cases:
        theirs = pytrec_eval.RelevanceEvaluator(judged, measures).evaluate(ranked)
        assert compat.RelevanceEvaluator(judged, measures).evaluate(ranked) == theirs, (measures, ranked)
    with pytest.raises(ValueError):
        pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_x"})
    with pytest.raises(ValueError):
        compat.RelevanceEvaluator(qrels, {"ndcg_cut_x"})
