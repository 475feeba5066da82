"""What the probabilistic methods learn, against ranx's own ``*_train`` functions, and aligned by query id (ranx
pairs the qrels' and the run's queries by position in two sorted lists)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankwise
from rankwise.fusion.catalog import normalisation
from rankwise.fusion.normalisations import normalise
from rankwise.fusion.pool import build_pool, read_runs, run_names
from rankwise.fusion.training import align_judgments, train


def trained(runs: list[dict], qrels: dict):  # type: ignore[no-untyped-def]
    tables = read_runs(runs)
    pool = build_pool(tables, run_names(runs, tables))
    scored = normalise(pool, normalisation("none"))
    judgments = align_judgments(pool, rankwise.load_qrels(qrels))
    return train(pool, scored, judgments, np.ones(pool.num_queries, dtype=bool))


def data(seed: int) -> tuple[list[dict], dict]:
    rng = np.random.default_rng(seed)
    runs = [{f"q{q}": {f"d{d}": float(rng.random()) for d in rng.choice(40, int(rng.integers(5, 40)), replace=False)}
             for q in range(8)} for _ in range(2)]  # fmt: skip
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 2)) for d in range(0, 40, 2)} for q in range(8)}
    return runs, qrels


def test_estimates_equal_ranx() -> None:
    pytest.importorskip("ranx", reason="ranx is not installed (pip install '.[test]')")
    from ranx import Qrels, Run
    from ranx import fusion as rf

    runs, qrels = data(3)
    ours = trained(runs, qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx_runs, ranx_qrels = [Run(r) for r in runs], Qrels(qrels)
        probs = rf.posfuse_train(ranx_qrels, ranx_runs)
        for r in range(2):
            assert np.allclose(ours.position_probs[r], probs[r])
            for segments in (1, 3, 7, 50):
                assert np.allclose(ours.segment_probs(r, segments), rf.probfuse_train(ranx_qrels, ranx_runs,
                                                                                      segments)[r])  # fmt: skip
            assert np.allclose(ours.segfuse_probs[r], rf.segfuse_train(ranx_qrels, ranx_runs)[r])
            assert np.allclose(ours.log_odds[r], rf.bayesfuse_train(ranx_qrels, ranx_runs)[r])
        assert np.allclose(ours.map, rf.mapfuse_train(ranx_qrels, ranx_runs))


def test_judgments_are_matched_by_query_id() -> None:
    """Qrels holding a query no run has, and lacking one the runs have: each run's hits come from its own query's
    judgments (the MAP is rankwise.evaluate's over the judged queries)."""
    runs, qrels = data(5)
    qrels = {q: g for q, g in qrels.items() if q != "q0"} | {"q99": {"d1": 1}}
    ours = trained(runs, qrels)
    for r in range(2):
        expected = rankwise.evaluate({q: g for q, g in qrels.items() if q != "q99"}, runs[r], "AP").aggregate["AP"]
        assert ours.map[r] == pytest.approx(expected)
