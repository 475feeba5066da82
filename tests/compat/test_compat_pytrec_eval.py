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
            "G", "set_map", "set_relative_P", "num_nonrel_judged_ret", "utility", "map_cut.10"}  # fmt: skip


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
    assert compat.supported_measures == pytrec_eval.supported_measures - {"Rprec_mult", "relstring", "runid"}
    with pytest.raises(ValueError, match="unsupported measure foo"):
        compat.RelevanceEvaluator({"q": {"d": 1}}, {"foo"})
    assert compat.RelevanceEvaluator({"q": {"d": 1}}, {"map"}).evaluate({"other": {"d": 1.0}}) == {}
