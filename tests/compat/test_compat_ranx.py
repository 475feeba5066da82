"""``rankwise.compat.ranx`` against ranx 0.3.21 itself (installed by the test extra): the same per-query values and
means on random qrels and runs (tied scores in queries of up to 15 documents, queries missing on either side, graded
judgments, several metrics with cutoffs and relevance levels), hand-checked values, the same comparison report
(Student p-values, superscripts, LaTeX, dict), the same files and fused runs; and ranx's own test suite with
``ranx`` swapped for the compat module (its files are not on PyPI: ``RANKWISE_RANX_TESTS``)."""

from __future__ import annotations

import ast
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from rankwise.compat import ranx as compat

ranx = pytest.importorskip("ranx", reason="ranx is not installed (pip install '.[test]')")

METRICS = ["ndcg@5", "ndcg", "map", "map@10", "mrr", "mrr@3", "precision@3", "precision", "recall@10", "f1@5",
           "hits@5", "hit_rate@3", "r-precision", "ndcg@10-l2", "map-l2", "dcg_burges@5", "ndcg_burges"]  # fmt: skip
"""ranx's metrics compared on whole runs. bpref is compared query by query (test_bpref_...): ranx's batched bpref
varies from call to call on the same input (a race in its parallel kernel), a bug rankwise does not copy."""


def _case(seed: int, systems: int = 1) -> tuple[dict[str, dict[str, int]], list[dict[str, dict[str, float]]]]:
    """Random graded qrels and runs; queries of at most 15 documents carry tied scores, longer ones none (ranx's
    sort is stable only up to 15); some judged queries missing from a run, some run queries unjudged."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    runs: list[dict[str, dict[str, float]]] = [{} for _ in range(systems)]
    for i in range(int(rng.integers(12, 30))):
        docs = [f"d{j}" for j in rng.choice(80, 40, replace=False)]
        if rng.random() < 0.9:
            qrels[f"q{i}"] = {d: int(rng.choice([0, 1, 1, 2, 3])) for d in docs[: int(rng.integers(1, 15))]}
        for run in runs:
            if rng.random() < 0.85:
                n = int(rng.integers(1, 31))
                ranked = rng.permutation(docs)[:n]
                values = rng.integers(0, 6, n) / 5 if n <= 15 else rng.permutation(n) / n  # ties only up to 15
                run[f"q{i}"] = {str(d): float(v) for d, v in zip(ranked, values)}
    return qrels, runs


def _assert_same(ours: object, theirs: object, where: str = "") -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), where
        for key in theirs:
            _assert_same(ours[key], theirs[key], f"{where}/{key}")
    else:
        assert np.allclose(np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float), rtol=1e-9, atol=1e-12,
                           equal_nan=True), (where, ours, theirs)  # fmt: skip


@pytest.mark.parametrize("seed", range(8))
def test_evaluate_equals_ranx_with_ties_and_missing_queries(seed: int) -> None:
    qrels, (run,) = _case(seed)
    their_run, our_run = ranx.Run(run, name="r"), compat.Run(run, name="r")
    for return_mean in (True, False):
        theirs = ranx.evaluate(ranx.Qrels(qrels), their_run, METRICS, return_mean=return_mean, make_comparable=True)
        ours = compat.evaluate(compat.Qrels(qrels), our_run, METRICS, return_mean=return_mean, make_comparable=True)
        _assert_same(ours, theirs)
    _assert_same(dict(our_run.scores), dict(their_run.scores))
    _assert_same(our_run.mean_scores, their_run.mean_scores)
    assert list(our_run.keys()) == list(their_run.keys()) == sorted(qrels)
    one = ranx.evaluate(ranx.Qrels(qrels), their_run, "ndcg@5", return_std=True)
    _assert_same(compat.evaluate(compat.Qrels(qrels), our_run, "ndcg@5", return_std=True), one)


@pytest.mark.parametrize("seed", range(4))
def test_plain_dicts_equal_ranx_ties_in_reverse_order(seed: int) -> None:
    """Dicts given to ``evaluate`` directly: ranx sorts them ascending and reverses, so equal scores rank in reverse
    input order; the compat module ranks them so too."""
    qrels, (run,) = _case(seed + 100)
    shared = sorted(set(qrels) & set(run))
    judged, ranked = {q: qrels[q] for q in shared}, {q: run[q] for q in shared}
    _assert_same(compat.evaluate(judged, ranked, METRICS, return_mean=False),
                 ranx.evaluate(judged, ranked, METRICS, return_mean=False))  # fmt: skip
    with pytest.raises(AssertionError, match="make_comparable=True"):
        compat.evaluate(qrels | {"extra": {"d1": 1}}, ranked, "map")


@pytest.mark.parametrize("seed", range(3))
def test_bpref_equals_ranx_query_by_query(seed: int) -> None:
    """ranx evaluated one query at a time (its parallel kernel then has one task, and is deterministic)."""
    qrels, (run,) = _case(seed + 200)
    shared = sorted(set(qrels) & set(run))
    ours = compat.evaluate({q: qrels[q] for q in shared}, {q: run[q] for q in shared}, "bpref", return_mean=False)
    theirs = [ranx.evaluate({q: qrels[q]}, {q: run[q]}, "bpref", return_mean=False)[0] for q in shared]
    _assert_same(ours, theirs)


def test_array_input_ranks_rows_as_given() -> None:
    """ranx's array input: one ``[[doc id, value], ...]`` array per query; a run's rows are its ranking as given."""
    rng = np.random.default_rng(4)
    grades = [np.sort(rng.integers(0, 3, 6))[::-1] for _ in range(5)]  # by grade: ranx's ideal DCG reads the rows
    judged = [np.column_stack([rng.choice(30, 6, replace=False), g]) for g in grades]  # in their given order
    ranked = [np.column_stack([rng.choice(30, 12, replace=False), rng.random(12)]) for _ in range(5)]
    metrics = ["ndcg@5", "map", "mrr", "recall@10"]  # a list: ranx's evaluate("ndcg@5", return_mean=False) raises
    _assert_same(compat.evaluate(judged, ranked, metrics, return_mean=False),
                 ranx.evaluate(judged, ranked, metrics, return_mean=False))  # KeyError 'ndcg' (not copied)  # fmt: skip
    assert compat.evaluate(judged, ranked, "ndcg@5", return_mean=False).shape == (5,)


def test_refusals_name_what_to_use_instead() -> None:
    runs = [compat.Run({"q": {"d1": 1.0, "d2": 0.5}}), compat.Run({"q": {"d2": 1.0}})]
    with pytest.raises(ValueError, match=r"use rankwise\.fuse"):
        compat.fuse(runs, method="probfuse", params={"probs": []})
    with pytest.raises(ValueError, match="FusionSearch"):
        compat.optimize_fusion(compat.Qrels({"q": {"d1": 1}}), runs, return_optimization_report=True)
    with pytest.raises(AssertionError, match="Only one run provided"):
        compat.fuse(runs[:1])
    with pytest.raises(NotImplementedError, match="`wilcoxon` not supported"):
        compat.compare(compat.Qrels({"q": {"d1": 1}}), runs, "map", stat_test="wilcoxon")


def test_hand_checked_values() -> None:
    """Judged d1 (grade 1) and d2 (grade 2); ranking d2, d3, d1."""
    qrels, run = compat.Qrels({"q": {"d1": 1, "d2": 2}}), compat.Run({"q": {"d2": 0.9, "d3": 0.8, "d1": 0.7}})
    got = compat.evaluate(qrels, run, ["map", "mrr", "precision@2", "ndcg@3", "ndcg@3-l2", "recall@2", "hits@3"])
    ideal = 2 / math.log2(2) + 1 / math.log2(3)
    assert got["map"] == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert got["mrr"] == pytest.approx(1.0) and got["precision@2"] == pytest.approx(1 / 2)
    assert got["ndcg@3"] == pytest.approx((2 / math.log2(2) + 1 / math.log2(4)) / ideal)
    assert got["ndcg@3-l2"] == pytest.approx(1.0)  # only d2 relevant at level 2, ranked first
    assert got["recall@2"] == pytest.approx(1 / 2) and got["hits@3"] == pytest.approx(2.0)
    assert run.mean_scores["map"] == got["map"] and run.scores["mrr"] == {"q": 1.0}


def test_compare_report_equals_ranx_with_student_t_test() -> None:
    qrels, runs = _case(7, systems=4)
    judged = {q: g for q, g in qrels.items()}
    metrics = ["ndcg@5", "map@10", "mrr", "precision@3"]
    theirs = ranx.compare(ranx.Qrels(judged), [ranx.Run(r, name=f"model_{i}") for i, r in enumerate(runs)], metrics,
                          max_p=0.05, make_comparable=True)  # fmt: skip
    ours = compat.compare(compat.Qrels(judged), [compat.Run(r, name=f"model_{i}") for i, r in enumerate(runs)],
                          metrics, max_p=0.05, make_comparable=True)  # fmt: skip
    _assert_same(ours.to_dict() | {"stat_test": 0, "metrics": 0, "model_names": 0},
                 theirs.to_dict() | {"stat_test": 0, "metrics": 0, "model_names": 0})  # fmt: skip
    assert (ours.model_names, ours.metrics) == (theirs.model_names, theirs.metrics)
    assert str(ours) == str(theirs) and ours.to_latex() == theirs.to_latex()
    flags = [(a, b, m) for a in ours.model_names for b in ours.model_names if a != b for m in metrics
             if ours.comparisons[a, b][m]["significant"] != theirs.comparisons[a, b][m]["significant"]]  # fmt: skip
    assert not flags
    percent = compat.compare(compat.Qrels(judged), [compat.Run(r) for r in runs], metrics, show_percentages=True,
                             rounding_digits=4, make_comparable=True)  # fmt: skip
    reference = ranx.compare(ranx.Qrels(judged), [ranx.Run(r) for r in runs], metrics, show_percentages=True,
                             rounding_digits=4, make_comparable=True)  # fmt: skip
    assert str(percent) == str(reference)


def test_compare_fisher_within_monte_carlo_error() -> None:
    """ranx's permutations come from numba's generator, rankwise's from numpy's: the p-values agree within
    |Δp| ≤ 4·sqrt(p(1 − p)·2/B) + 2/B (ranx's p is #/B, rankwise's (1 + #)/(1 + B))."""
    qrels, runs = _case(11, systems=3)
    b = 4000
    kwargs = {"stat_test": "fisher", "n_permutations": b, "max_p": 0.05, "make_comparable": True}
    theirs = ranx.compare(ranx.Qrels(qrels), [ranx.Run(r, name=f"s{i}") for i, r in enumerate(runs)], ["map"],
                          **kwargs).to_dict()  # fmt: skip
    ours = compat.compare(compat.Qrels(qrels), [compat.Run(r, name=f"s{i}") for i, r in enumerate(runs)], ["map"],
                          **kwargs).to_dict()  # fmt: skip
    for a in ("s0", "s1", "s2"):
        for other, p_theirs in theirs[a]["comparisons"].items():
            p_ours = ours[a]["comparisons"][other]["map"]
            p = (p_ours + p_theirs["map"]) / 2
            assert abs(p_ours - p_theirs["map"]) <= 4 * math.sqrt(p * (1 - p) * 2 / b) + 2 / b


def test_files_and_frames_read_as_ranx_reads_them(tmp_path: Path) -> None:
    qrels, (run,) = _case(3)
    names = {"qrels.trec": compat.Qrels(qrels), "run.trec": compat.Run(run, name="bm25")}
    for file, data in names.items():
        data.save(str(tmp_path / file))
        data.save(str(tmp_path / file.replace(".trec", ".json")))
        data.save(str(tmp_path / file.replace(".trec", ".parquet")))
    for suffix in ("trec", "json"):
        ours_q, theirs_q = (cls.Qrels.from_file(str(tmp_path / f"qrels.{suffix}")) for cls in (compat, ranx))
        assert ours_q.to_dict() == theirs_q.to_dict() == qrels
        ours_r, theirs_r = (cls.Run.from_file(str(tmp_path / f"run.{suffix}")) for cls in (compat, ranx))
        assert ours_r.to_dict() == theirs_r.to_dict() == run and ours_r.name == theirs_r.name
    assert compat.Run.from_file(str(tmp_path / "run.trec")).name == "bm25"
    # ranx's own from_df/from_parquet refuse pandas 3's string columns (its dtype check wants object): not copied
    assert compat.Qrels.from_parquet(str(tmp_path / "qrels.parquet")).to_dict() == qrels
    assert compat.Run.from_parquet(str(tmp_path / "run.parquet")).to_dict() == run
    frame = ranx.Run(run).to_dataframe()
    assert compat.Run(run).to_dataframe().equals(frame)
    assert compat.Run.from_df(frame.astype({"q_id": object, "doc_id": object})).to_dict() == ranx.Run.from_df(
        frame.astype({"q_id": object, "doc_id": object})).to_dict()  # fmt: skip


@pytest.mark.parametrize(("method", "norm", "params"), [
    ("wsum", "min-max", {"weights": [0.3, 0.7]}), ("rrf", "min-max", {"k": 20}), ("sum", "zmuv", None),
    ("mnz", "max", None), ("rbc", "rank", {"phi": 0.8}), ("isr", "min-max", None), ("bordafuse", "min-max", None),
])  # fmt: skip
def test_fuse_equals_ranx(method: str, norm: str, params: dict | None) -> None:
    _, runs = _case(5, systems=2)
    shared = sorted(set(runs[0]) & set(runs[1]))
    tie_free = [{q: {d: s + 1e-6 * i for i, (d, s) in enumerate(r[q].items())} for q in shared} for r in runs]
    theirs = ranx.fuse([ranx.Run(r) for r in tie_free], norm=norm, method=method, params=params)
    ours = compat.fuse([compat.Run(r) for r in tie_free], norm=norm, method=method, params=params)
    assert ours.name == theirs.name and list(ours.keys()) == list(theirs.keys())
    for q in shared:  # equal fused scores (ranx orders equal ones by an unstable sort, so only values are compared)
        assert ours[q].keys() == theirs[q].keys()
        assert [ours[q][d] for d in theirs[q]] == pytest.approx(list(theirs[q].values()), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("metric", ["map", "ndcg@10"])
def test_optimize_fusion_equals_ranx_for_weights(metric: str) -> None:
    """Two tie-free runs over the same documents (every weight vector gives a tie-free fused run): the best
    weights are ranx's, unless rankwise's exact grid holds a point ranx's float grid drops (a sum not exactly 1.0),
    then that point's value is at least ranx's best."""
    judged, _ = _case(9)
    qrels = {q: g for q, g in judged.items() if len(g) >= 3}  # z-scores of one document are 0/0
    rng = np.random.default_rng(9)
    shared = sorted(qrels)
    runs = [{q: {d: float(v) for d, v in zip(qrels[q], rng.permutation(len(qrels[q])) + rng.random())}
             for q in shared} for _ in range(2)]  # fmt: skip
    theirs, report = ranx.optimize_fusion(ranx.Qrels(qrels), [ranx.Run(r) for r in runs], norm="zmuv", metric=metric,
                                          show_progress=False, return_optimization_report=True)  # fmt: skip
    ours = compat.optimize_fusion(compat.Qrels(qrels), [compat.Run(r) for r in runs], norm="zmuv", metric=metric)
    tried = {tuple(round(float(w), 6) for w in ast.literal_eval(c.replace("np.float64", ""))) for c in report.configs}
    point = tuple(round(w, 6) for w in ours["weights"])
    value = compat.evaluate(compat.Qrels(qrels), compat.fuse([compat.Run(r) for r in runs], "zmuv", "wsum", ours),
                            metric)  # fmt: skip
    if point in tried:
        assert point == tuple(round(float(w), 6) for w in theirs["weights"])
    assert value >= max(report.results) - 1e-12


# ranx's own test suite ================================================================================================
THEIR_SUITE = os.environ.get("RANKWISE_RANX_TESTS")
"""A checkout of AmenRa/ranx at 0.3.21 (its tests/unit/ranx). ranx's sdists on PyPI (0.1.4 to 0.3.21) and its wheel
ship no tests, and GitHub is not reachable from the tests, so the suite runs where a checkout is given."""

OUT_OF_SCOPE_MODULES = {
    **{f"fusion/{name}_test.py": "imports ranx.fusion's internal functions (numba kernels on typed lists)"
       for name in ("bayesfuse", "bordafuse", "comb_anz", "comb_gmnz", "comb_max", "comb_med", "comb_min", "comb_mnz",
                    "comb_sum", "condorcet", "isr", "log_isr", "logn_isr", "mapfuse", "mixed", "posfuse", "probfuse",
                    "rbc", "rrf", "segfuse", "slidefuse", "weighted_bordafuse", "weighted_condorcet", "wmnz",
                    "wsum")},
    **{f"normalization/{name}_norm_test.py": "imports ranx.normalization's internal functions"
       for name in ("borda", "max", "min_max", "rank", "sum", "zmuv")},
    **{f"metrics/{name}_test.py": "imports ranx.metrics' internal functions (numba kernels on typed lists)"
       for name in ("bpref", "f1", "rank_biased_precision", "zero_division_error")},
    "metrics_test.py": "imports ranx.metrics' internal functions (numba kernels on typed lists)",
}  # fmt: skip
"""ranx's test modules that import its internals (not its API): they cannot be collected against the compat module."""

EXPECTED_FAILURES = {
    "data_structures/qrels_test.py::test_to_typed_list": "numba typed lists are ranx's internal form: not provided",
    "data_structures/run_test.py::test_to_typed_list": "numba typed lists are ranx's internal form: not provided",
    "data_structures/run_test.py::test_save_load_lz4": "LZ4 (cbor2 in lz4 frames) runs are not provided",
}
"""ranx's tests that fail against the compat module, each with why."""


UNSET = (
    "RANKWISE_RANX_TESTS is unset: ranx's tests are not in its PyPI sdist; set it to a checkout of AmenRa/ranx "
    "0.3.21 to run them against the compat module"
)


@pytest.mark.skipif(THEIR_SUITE is None, reason=UNSET)
def test_ranx_own_suite_with_the_compat_module(tmp_path: Path) -> None:
    root = Path(str(THEIR_SUITE))
    suite = root / "tests" / "unit" / "ranx"
    assert suite.is_dir(), f"{suite} is not a directory"
    (tmp_path / "swap_ranx.py").write_text(
        "import sys\nimport rankwise.compat.ranx as compat\n\n"
        "for name in ('ranx', 'ranx.data_structures', 'ranx.data_structures.qrels', 'ranx.data_structures.run'):\n"
        "    sys.modules[name] = compat  # get_file_kind is the compat module's\n"
    )  # fmt: skip
    report = tmp_path / "junit.xml"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-m", "pytest", "-p", "swap_ranx", "-p", "no:cacheprovider", "-q",
                    "--continue-on-collection-errors", f"--junitxml={report}", "tests/unit/ranx"],
                   cwd=root, env=env, capture_output=True, check=False, timeout=600)  # fmt: skip
    passed, failed, uncollected = [], [], []
    for case in ET.parse(report).getroot().iter("testcase"):
        if not case.get("classname"):  # a module that could not be imported: its name is the dotted path
            uncollected.append(_relative(case.get("name", "")) + ".py")
            continue
        name = f"{_relative(case.get('classname', ''))}.py::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(name)
        elif case.find("skipped") is None:
            passed.append(name)
    assert sorted(failed) == sorted(EXPECTED_FAILURES), sorted(set(failed) ^ set(EXPECTED_FAILURES))
    assert sorted(uncollected) == sorted(OUT_OF_SCOPE_MODULES), sorted(set(uncollected) ^ set(OUT_OF_SCOPE_MODULES))
    assert len(passed) == 58, passed  # every collected test of theirs but the three above


def _relative(dotted: str) -> str:
    """``tests.unit.ranx.meta.evaluate_test`` → ``meta/evaluate_test``."""
    return dotted.removeprefix("tests.unit.ranx.").replace(".", "/")
