"""The search: the exact weight grid (and the points ranx's drops), every configuration's value equal to
``rankwise.evaluate`` on its fused run and to ranx's ``optimize_fusion`` where ranx tries it, cross-validation that
chooses on the training folds and reports the held-out ones."""

from __future__ import annotations

import ast
import itertools
import math
import warnings
from math import comb

import numpy as np
import pytest
from test_methods import common, random_runs

import rankwise
from rankwise.errors import RankwiseError
from rankwise.fusion import weight_grid


@pytest.mark.parametrize("runs", [2, 3, 4, 5])
def test_the_weight_grid_is_every_point(runs: int) -> None:
    grid = weight_grid(runs, 10)
    assert len(grid) == comb(10 + runs - 1, runs - 1) == len({tuple(r) for r in grid.tolist()})
    assert (grid.sum(axis=1) == 10).all() and (grid >= 0).all()
    product_order = [p for p in itertools.product(range(11), repeat=runs) if sum(p) == 10]
    assert [tuple(r) for r in grid.tolist()] == product_order


def test_ranx_drops_weight_points_rankwise_tries() -> None:
    """ranx's ``get_trial_configs`` keeps only the float tuples whose sum is exactly 1.0: 62 of 66 points for 3 runs,
    256 of 286 for 4, 860 of 1,001 for 5; (0.2, 0.7, 0.1) is never tried, (0.7, 0.2, 0.1) is."""
    pytest.importorskip("ranx", reason="ranx is not installed (pip install '.[test]')")
    from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs

    for runs, kept in ((3, 62), (4, 256), (5, 860)):
        ranx_points = {tuple(round(w * 10) for w in p) for p in get_trial_configs(get_possible_weights(0.1), runs)}
        ours = {tuple(r) for r in weight_grid(runs, 10).tolist()}
        assert len(ranx_points) == kept and ranx_points < ours
    ours_3 = {tuple(r) for r in weight_grid(3, 10).tolist()}
    dropped = ours_3 - {tuple(round(w * 10) for w in p) for p in get_trial_configs(get_possible_weights(0.1), 3)}
    assert sorted(dropped) == [(2, 7, 1), (3, 6, 1), (6, 3, 1), (7, 2, 1)]  # 0.2 + 0.7 + 0.1 = 0.9999999999999999
    assert (1, 2, 7) not in dropped and (1, 2, 7) in ours_3


def test_every_configuration_equals_evaluate_on_its_fused_run() -> None:
    """The search's value of each configuration (weights, parameters, a method that learns) is
    ``rankwise.evaluate``'s on the run ``rankwise.fuse`` gives for it, per query and on average."""
    runs, qrels = random_runs(21)
    search = rankwise.optimize_fusion(qrels, runs, ["wsum", "rrf", "probfuse"], ["min-max", "rank"], "nDCG@10",
                                      params={"k": [10, 60], "n_segments": [2, 5]}, denominator=4)  # fmt: skip
    assert len(search.configs) == 2 * (15 + 2 + 2)
    for i, config in enumerate(search.configs):
        arguments = {"method": config.method.name, "norm": config.norm.name}
        if config.method.weighted:
            arguments["weights"] = list(config.weights)
        fused = rankwise.fuse(runs, **arguments, params=config.params, qrels=qrels)
        result = rankwise.evaluate(qrels, fused, "nDCG@10")
        assert math.isclose(search.scores[i], result.aggregate["nDCG@10"], rel_tol=1e-12), config.label()
        expected = [result.per_query[q]["nDCG@10"] for q in search.query_ids]
        assert np.allclose(search.per_query[i], expected, rtol=1e-12)
    best = int(np.argmax(search.scores))
    assert search.best is search.configs[best] and search.score == search.scores[best]


def test_equal_to_ranx_optimize_fusion_where_ranx_tries_the_point() -> None:
    """ranx's report (wsum over its 62-point grid) holds the values rankwise gives the same configurations, where
    the fused scores are tie-free (zmuv-normalised weighted sums with every weight > 0: a zero weight ties the
    documents only the other runs hold, which ranx orders by an unstable argsort)."""
    pytest.importorskip("ranx", reason="ranx is not installed (pip install '.[test]')")
    from ranx import Qrels, Run, optimize_fusion

    runs, qrels = random_runs(13)
    shared = common(runs)
    judged = {q: g for q, g in qrels.items() if q in shared[0]}
    ours = rankwise.optimize_fusion(judged, shared, "wsum", "zmuv", "nDCG@10")
    by_weights = {tuple(round(w * 10) for w in c.weights): s for c, s in zip(ours.configs, ours.scores)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, report = optimize_fusion(Qrels(judged), [Run(r) for r in shared], norm="zmuv", method="wsum",
                                    metric="ndcg@10", show_progress=False, return_optimization_report=True)
    assert len(report.configs) == 62
    compared = 0
    for config, value in zip(report.configs, report.results):
        point = tuple(round(w * 10) for w in ast.literal_eval(config.replace("np.float64", "")))
        if min(point) > 0:
            assert math.isclose(by_weights[point], value, rel_tol=1e-9), point
            compared += 1
    assert compared == 32


def test_cross_validation_chooses_on_training_folds_and_reports_held_out() -> None:
    runs, qrels = random_runs(17, queries=12)
    search = rankwise.optimize_fusion(qrels, runs, "wsum", "min-max", "AP", folds=4, seed=7)
    assert len(search.folds) == 4 and sum(f["queries"] for f in search.folds) == len(search.query_ids) == 12
    held = np.full(12, np.nan)
    permutation = np.random.default_rng(7).permutation(12)
    for f, test in zip(search.folds, np.array_split(permutation, 4)):
        training = np.setdiff1d(np.arange(12), test)
        train_means = search.per_query[:, training].mean(axis=1)
        chosen = int(np.argmax(train_means))
        assert f["configuration"] == search.configs[chosen].label()
        assert math.isclose(f["train"], train_means[chosen]) and math.isclose(f["test"],
                                                                              search.per_query[chosen, test].mean())
        held[test] = search.per_query[chosen, test]
    assert math.isclose(search.held_out, held.mean())
    again = rankwise.optimize_fusion(qrels, runs, "wsum", "min-max", "AP", folds=4, seed=7)
    assert again.folds == search.folds
    assert "held-out AP over 12 queries" in search.table()
    assert search.folds_frame().height == 4 and search.to_polars().height == 66


def test_methods_that_learn_are_trained_on_the_training_folds_only() -> None:
    """ProbFuse's held-out value on a fold equals fusing with judgments of the other folds only."""
    runs, qrels = random_runs(19, queries=8)
    search = rankwise.optimize_fusion(qrels, runs, "probfuse", "min-max", "AP", params={"n_segments": 3}, folds=2,
                                      seed=3)  # fmt: skip
    permutation = np.random.default_rng(3).permutation(8)
    for f, test in zip(search.folds, np.array_split(permutation, 2)):
        training = {search.query_ids[i] for i in range(8) if i not in set(test.tolist())}
        fused = rankwise.fuse(runs, "probfuse", params={"n_segments": 3},
                              qrels={q: g for q, g in qrels.items() if q in training})  # fmt: skip
        held = {search.query_ids[i] for i in test}
        expected = rankwise.evaluate({q: g for q, g in qrels.items() if q in held}, fused, "AP").aggregate["AP"]
        assert math.isclose(f["test"], expected, rel_tol=1e-12)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"measure": "num_rel_ret"}, "aggregated by sum, not a mean over queries"),
    ({"folds": 1}, "folds must be an integer >= 2, got 1"),
    ({"folds": 50}, "50 folds for 6 queries"),
    ({"method": "nope"}, "unknown fusion method 'nope'"),
    ({"params": {"kk": 3}}, "unknown parameter 'kk'"),
])  # fmt: skip
def test_bad_requests_are_one_line(kwargs: dict, message: str) -> None:
    runs, qrels = random_runs(2)
    arguments = {"method": "rrf", "norm": "min-max", "measure": "AP"} | kwargs
    with pytest.raises(RankwiseError, match=message):
        rankwise.optimize_fusion(qrels, runs, arguments.pop("method"), arguments.pop("norm"),
                                 arguments.pop("measure"), **arguments)  # fmt: skip


def test_search_over_every_method_and_normalisation_names_the_best() -> None:
    runs, qrels = random_runs(23)
    search = rankwise.optimize_fusion(qrels, runs, "all", ["min-max", "zmuv"], "P@5", denominator=2,
                                      params={"k": 60, "gamma": 1.0, "sigma": 0.01, "phi": 0.8, "n_segments": 4,
                                              "w": 2})  # fmt: skip
    assert {c.method.name for c in search.configs} == {m.name for m in rankwise.fusion.METHODS}
    assert search.score == pytest.approx(float(np.nanmax(search.scores)))
    fused = rankwise.fuse(runs, **search.best_arguments(), qrels=qrels)
    assert rankwise.evaluate(qrels, fused, "P@5").aggregate["P@5"] == pytest.approx(search.score)
