"""Every fusion method against ranx's own ``fuse`` (every normalisation, tie-free random runs whose query sets differ),
trectools' ``fusion`` where it defines the method, hand-computed cases with ties, and the methods' invariances as
properties (hypothesis)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from rankwise.errors import RankwiseError
from rankwise.fusion import METHODS, NORMALISATIONS

POSITION_BASED = {m.name for m in METHODS if m.inputs != "scores"}
TRAINED = {m.name for m in METHODS if m.trained}


def random_runs(seed: int, num_runs: int = 3, queries: int = 6, pool: int = 14) -> tuple[list[dict], dict]:
    """Tie-free runs (continuous random scores) over overlapping documents, list lengths varying by run and query,
    each run missing a different query; and qrels with a relevant document in every query."""
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(num_runs):
        run = {}
        for q in range(queries):
            if q == r:  # run r lacks query q{r}: the query sets differ
                continue
            docs = rng.choice(pool, int(rng.integers(4, pool)), replace=False)
            run[f"q{q}"] = {f"d{d}": float(rng.normal(3 * r, 2)) for d in docs}
        runs.append(run)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(pool, 8, replace=False)}
             for q in range(queries)}  # fmt: skip
    for q in qrels:
        qrels[q]["d0"] = 2
    return runs, qrels


def common(runs: list[dict]) -> list[dict]:
    """The runs restricted to the queries every run holds (ranx asserts equal query sets)."""
    shared = set.intersection(*(set(r) for r in runs))
    return [{q: docs for q, docs in r.items() if q in shared} for r in runs]


def ranx_params(name: str, qrels: Any, norm_runs: list, weights: list[float]) -> dict[str, Any]:
    """The parameters ranx's ``fuse`` takes for ``name``, trained by ranx's own ``*_train`` on its normalised runs."""
    from ranx import fusion as rf

    fixed: dict[str, dict[str, Any]] = {
        "gmnz": {"gamma": 0.7}, "logn_isr": {"sigma": 0.05}, "rrf": {"k": 60}, "rbc": {"phi": 0.8},
        "wmnz": {"weights": weights}, "mixed": {"weights": weights}, "wsum": {"weights": weights},
        "w_bordafuse": {"weights": weights}, "w_condorcet": {"weights": weights},
    }  # fmt: skip
    if name in fixed:
        return fixed[name]
    if name == "bayesfuse":
        return {"log_odds": rf.bayesfuse_train(qrels, norm_runs)}
    if name == "mapfuse":
        return {"map_scores": rf.mapfuse_train(qrels, norm_runs)}
    if name == "posfuse":
        return {"probs": rf.posfuse_train(qrels, norm_runs)}
    if name == "probfuse":
        return {"probs": rf.probfuse_train(qrels, norm_runs, 3)}
    if name == "segfuse":
        return {"probs": rf.segfuse_train(qrels, norm_runs)}
    if name == "slidefuse":
        return {"probs": rf.slidefuse_train(qrels, norm_runs), "w": 2}
    return {}


OURS = {"gmnz": {"gamma": 0.7}, "logn_isr": {"sigma": 0.05}, "rrf": {"k": 60}, "rbc": {"phi": 0.8},
        "probfuse": {"n_segments": 3}, "slidefuse": {"w": 2}}  # fmt: skip
WEIGHTS = [0.45, 0.35, 0.2]


def ranx_fuse(runs: list[dict], qrels: dict, method: str, norm: str) -> dict:
    from ranx import Qrels, Run, fuse
    from ranx.normalization import norm_switch

    ranx_runs = [Run(r) for r in runs]
    ranx_norm = None if norm == "none" else norm
    if ranx_norm is None:
        norm_runs = ranx_runs
    elif norm == "borda":
        norm_runs = norm_switch(norm)(ranx_runs)
    else:
        norm_runs = [norm_switch(norm)(r) for r in ranx_runs]
    params = ranx_params(method, Qrels(qrels) if method in TRAINED else None, norm_runs, WEIGHTS)
    return fuse(ranx_runs, norm=ranx_norm, method=method, params=params).to_dict()  # type: ignore[no-any-return]


def assert_same_run(ours: dict, reference: dict, rel: float = 1e-9) -> None:
    assert ours.keys() == reference.keys()
    for q in reference:
        assert ours[q].keys() == reference[q].keys(), q
        for d, value in reference[q].items():
            assert math.isclose(ours[q][d], value, rel_tol=rel, abs_tol=1e-9), (q, d, ours[q][d], value)


CASES = [(m.name, n.name) for m in METHODS for n in NORMALISATIONS
         if m.name not in ("condorcet", "w_condorcet")]  # fmt: skip


@pytest.mark.parametrize(("method", "norm"), CASES)
def test_equal_to_ranx(method: str, norm: str) -> None:
    """Each method × normalisation on the queries every run holds (ranx asserts one query set; rankwise's
    ``queries="intersection"`` is the same choice) equals ranx's ``fuse``, scores to 1e-9. Not compared: a
    position-based method after the Borda normalisation, where ranx's positions follow the iteration order of a
    Python set of doc ids (hash-seeded: it changes from one process to the next)."""
    pytest.importorskip("ranx", reason="ranx is not installed (pip install '.[test]')")
    if norm == "borda" and method in POSITION_BASED:
        pytest.skip("ranx orders a Borda-normalised run by set iteration order (hash-seeded): no reference")
    runs, qrels = random_runs(7)
    shared = common(runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = ranx_fuse(shared, {q: g for q, g in qrels.items() if q in shared[0]}, method, norm)
    weights = WEIGHTS if method in {m.name for m in METHODS if m.weighted} else None
    ours = rankwise.fuse(runs, method=method, norm=norm, weights=weights, params=OURS.get(method),
                         queries="intersection", qrels=qrels if method in TRAINED else None)  # fmt: skip
    assert_same_run(ours, reference)


UNION_CASES = [(m.name, n) for m in METHODS for n in ("min-max", "rank", "none")
               if not m.weighted and not m.trained and m.name not in ("condorcet",)]  # fmt: skip


@pytest.mark.parametrize(("method", "norm"), UNION_CASES)
def test_union_equals_ranx_over_the_runs_holding_each_query(method: str, norm: str) -> None:
    """``queries="union"``: a query only some runs hold is fused over those runs, as ranx fuses them alone; for
    BordaFuse each run lacking the query gives every candidate the same (N + 1)/2 points (a run that retrieved
    nothing of N candidates), so the scores shift by that and the order is ranx's."""
    pytest.importorskip("ranx", reason="ranx is not installed (pip install '.[test]')")
    runs, qrels = random_runs(9)
    ours = rankwise.fuse(runs, method=method, norm=norm, params=OURS.get(method))
    for q in ("q0", "q1", "q2"):  # each lacking from one run
        holding = [{q: r[q]} for r in runs if q in r]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference = ranx_fuse(holding, qrels, method, norm)
        if method == "bordafuse":
            shift = (len(ours[q]) + 1) / 2 * (len(runs) - len(holding))
            reference = {q: {d: s + shift for d, s in reference[q].items()}}
        assert_same_run({q: ours[q]}, reference)


def condorcet_runs(seed: int) -> list[dict]:
    """Three runs ranking the same documents of each query with small noise around one order: the majority
    preferences are a strict order (checked), the case where Condorcet's order is defined."""
    rng = np.random.default_rng(seed)
    base = {f"q{q}": {f"d{d}": float(d) for d in range(9)} for q in range(4)}
    return [{q: {d: s + float(rng.normal(0, 1.2)) for d, s in docs.items()} for q, docs in base.items()}
            for _ in range(3)]  # fmt: skip


@pytest.mark.parametrize("method", ["condorcet", "w_condorcet"])
def test_condorcet_equal_to_ranx_where_the_majority_is_an_order(method: str) -> None:
    pytest.importorskip("ranx", reason="ranx is not installed (pip install '.[test]')")
    runs = condorcet_runs(3)
    weights = np.array(WEIGHTS if method == "w_condorcet" else [1.0, 1.0, 1.0])
    for q in runs[0]:  # the majority relation is transitive: a Condorcet order exists
        docs = sorted(runs[0][q])
        beats = {(a, b) for a in docs for b in docs if a != b
                 and sum(w for w, r in zip(weights, runs) if r[q][a] > r[q][b]) > weights.sum() / 2}  # fmt: skip
        wins = sorted(sum((a, b) in beats for b in docs) for a in docs)
        assert wins == list(range(len(docs))), "the test data must have no Condorcet cycle"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = ranx_fuse(runs, {}, method, "none")
    ours = rankwise.fuse(runs, method=method, norm="none", weights=WEIGHTS if method == "w_condorcet" else None)
    assert_same_run(ours, reference)


def trec_files(runs: list[dict], folder: Any) -> list[str]:
    """Each run written as a TREC run file (by score descending, ranks 1, 2, ...), for trectools to read."""
    paths = []
    for i, run in enumerate(runs):
        path = folder / f"run{i}.txt"
        lines = [f"{q} Q0 {d} {rank} {s!r} r{i}" for q, docs in run.items()
                 for rank, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), 1)]  # fmt: skip
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("method", ["sum", "max", "min", "anz", "mnz", "med"])
def test_equal_to_trectools_combos(method: str, tmp_path: Any) -> None:
    """trectools' ``combos`` (raw scores, no normalisation, missing scores left out by its nan-functions: rankwise's
    ``norm="none"``); two runs (with three or more, its chained merges name two columns ``score_`` and pandas
    raises MergeError)."""
    pytest.importorskip("trectools", reason="trectools is not installed (pip install '.[test]')")
    from trectools import TrecRun, fusion

    runs, _ = random_runs(11, num_runs=2)
    paths = trec_files(runs, tmp_path)
    fused = fusion.combos([TrecRun(p) for p in paths], strategy=method, max_docs=10_000).run_data
    reference: dict[str, dict[str, float]] = {}
    for q, d, s in zip(fused["query"], fused["docid"], fused["score"]):
        reference.setdefault(str(q), {})[str(d)] = float(s)
    ours = rankwise.fuse(paths, method=method, norm="none")
    as_dict: dict[str, dict[str, float]] = {}
    for q, d, s in ours.select("query_id", "doc_id", "score").iter_rows():
        as_dict.setdefault(q, {})[d] = s
    assert_same_run(as_dict, reference)


@pytest.mark.parametrize(("method", "params", "name"), [("rrf", {"k": 60}, "reciprocal_rank_fusion"),
                                                        ("rbc", {"phi": 0.8}, "rank_biased_precision_fusion")])
def test_equal_to_trectools_rank_fusion(method: str, params: dict, name: str, tmp_path: Any) -> None:
    """trectools' RRF and RBP fusion: the top 1,000 of each run, ties of the fused score by doc id ascending —
    rankwise's ``depth=1000, ties="docno_asc"``; the same documents in the same order with the same scores."""
    pytest.importorskip("trectools", reason="trectools is not installed (pip install '.[test]')")
    from trectools import TrecRun, fusion

    runs, _ = random_runs(5, num_runs=3)
    paths = trec_files(runs, tmp_path)
    reference = getattr(fusion, name)([TrecRun(p) for p in paths], **({"k": 60} if method == "rrf" else {"p": 0.8}))
    ref = reference.run_data
    ours = rankwise.fuse(paths, method=method, norm="none", params=params, depth=1000, ties="docno_asc")
    assert ours.get_column("query_id").to_list() == [str(q) for q in ref["query"]]
    assert ours.get_column("doc_id").to_list() == [str(d) for d in ref["docid"]]
    assert np.allclose(ours.get_column("score").to_numpy(), ref["score"].to_numpy(), rtol=1e-12)


def test_pyterrier_plus_is_combsum_with_zero_for_missing() -> None:
    """PyTerrier's ``+`` (``SumTransformer``: an outer merge of two result frames, a missing score 0, the scores
    added) is rankwise's ``method="sum", norm="none"``: run through PyTerrier itself (no Java needed for it), and by
    hand on a small case."""
    a = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d5": 0.5}}
    b = {"q1": {"d2": 3.0, "d3": 0.25}, "q2": {"d5": -1.0, "d6": 4.0}}
    fused = rankwise.fuse([a, b], method="sum", norm="none")
    assert fused == {"q1": {"d2": 4.0, "d1": 2.0, "d3": 0.25}, "q2": {"d6": 4.0, "d5": -0.5}}
    assert rankwise.fuse([a, b], method="sum", norm="none", missing="zero") == fused
    pt = pytest.importorskip("pyterrier", reason="PyTerrier is not installed (pip install python-terrier)")
    import pandas as pd

    runs, _ = random_runs(29, num_runs=2)
    frames = [pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                           columns=["qid", "docno", "score"]) for run in runs]  # fmt: skip
    topics = pd.DataFrame({"qid": sorted(set(runs[0]) | set(runs[1])), "query": "x"})
    result = (pt.Transformer.from_df(frames[0]) + pt.Transformer.from_df(frames[1])).transform(topics)
    reference: dict[str, dict[str, float]] = {}
    for q, d, s in zip(result["qid"], result["docno"], result["score"]):
        reference.setdefault(q, {})[d] = float(s)
    assert_same_run(rankwise.fuse(runs, method="sum", norm="none"), reference, rel=1e-15)


def test_hand_computed_rrf_with_ties() -> None:
    """Tied scores take their places by the tie policy, in each run and in the fused run. Run a: d2 and d1 tie at
    1.0 (docno_desc puts d2 first: positions d2 0, d1 1, d3 2); run b: d1 0, d3 1. RRF k=1: d1 = 1/3 + 1/2, d2 = 1/2,
    d3 = 1/4 + 1/3; d2 and d3... differ, so the order is d1, d3, d2."""
    a = {"q": {"d1": 1.0, "d2": 1.0, "d3": 0.5}}
    b = {"q": {"d1": 2.0, "d3": 1.0}}
    fused = rankwise.fuse([a, b], method="rrf", params={"k": 1})
    assert list(fused["q"].items()) == [("d1", 1 / 3 + 1 / 2), ("d3", 1 / 4 + 1 / 3), ("d2", 1 / 2)]
    asc = rankwise.fuse([a, b], method="rrf", params={"k": 1}, ties="docno_asc")  # d1 first among the tied in a
    assert asc["q"] == {"d1": 1 / 2 + 1 / 2, "d3": 1 / 4 + 1 / 3, "d2": 1 / 3}


def test_hand_computed_fused_ties_follow_the_tie_policy() -> None:
    """CombSUM with equal fused scores: d1 = d2 = 1 (min-max of two runs that swap them); trec_eval's docno_desc
    order puts d2 first, docno_asc d1, input_order the first run's order (d1)."""
    a = {"q": {"d1": 1.0, "d2": 0.0}}
    b = {"q": {"d2": 5.0, "d1": 3.0}}
    assert list(rankwise.fuse([a, b], method="sum")["q"]) == ["d2", "d1"]
    assert list(rankwise.fuse([a, b], method="sum", ties="docno_asc")["q"]) == ["d1", "d2"]
    assert list(rankwise.fuse([a, b], method="sum", ties="input_order")["q"]) == ["d1", "d2"]


def test_hand_computed_missing_policies() -> None:
    """CombMIN of d2 (only in run a, normalised 0.5): ``default`` min over the runs that have it (0.5), ``zero``
    counts run b's missing score as 0, ``run_min`` as run b's smallest normalised score (0)."""
    a = {"q": {"d1": 0.0, "d2": 1.0, "d3": 2.0}}
    b = {"q": {"d1": 4.0, "d3": 2.0}}
    assert rankwise.fuse([a, b], method="min")["q"]["d2"] == 0.5
    assert rankwise.fuse([a, b], method="min", missing="zero")["q"]["d2"] == 0.0
    assert rankwise.fuse([a, b], method="min", norm="none", missing="run_min")["q"]["d2"] == 1.0
    with pytest.raises(RankwiseError, match="score-based methods only"):
        rankwise.fuse([a, b], method="rrf", missing="zero")


def test_union_fuses_a_query_over_the_runs_that_hold_it() -> None:
    a = {"q1": {"d1": 1.0}, "q2": {"d1": 2.0, "d2": 1.0}}
    b = {"q1": {"d2": 1.0}}
    fused = rankwise.fuse([a, b], method="rrf", params={"k": 60}, norm="none")
    assert fused["q2"] == {"d1": 1 / 61, "d2": 1 / 62}
    assert set(rankwise.fuse([a, b], method="rrf", queries="intersection")) == {"q1"}


scores = st.floats(-100, 100, allow_nan=False, allow_infinity=False)
one_run = st.dictionaries(st.sampled_from([f"q{i}" for i in range(3)]),
                          st.dictionaries(st.sampled_from([f"d{i}" for i in range(8)]), scores, min_size=1),
                          min_size=1)  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(run=one_run, norm=st.sampled_from([n.name for n in NORMALISATIONS if n.name != "borda"]))
def test_combsum_of_one_run_with_an_empty_partner_is_its_normalised_run(run: dict, norm: str) -> None:
    """CombSUM of a run and a run holding nothing of it is the run normalised (a missing score counts 0)."""
    other = {"elsewhere": {"x": 1.0}}
    fused = rankwise.fuse([run, other], method="sum", norm=norm)
    alone = rankwise.fuse([run, run], method="max", norm=norm)  # max of a run with itself: the normalised run
    assert set(fused) - {"elsewhere"} == set(alone)
    for q in alone:
        assert fused[q] == pytest.approx(alone[q], rel=1e-12, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(runs=st.lists(one_run, min_size=2, max_size=3), power=st.integers(-20, 20))
def test_rrf_depends_only_on_the_order(runs: list[dict], power: int) -> None:
    """Any strictly increasing map of a run's scores (here: each score replaced by 2^power times its place among
    the query's distinct scores, exact in floating point) leaves RRF unchanged, ties included."""
    moved = [{q: {d: 2.0**power * sorted(set(docs.values())).index(s) for d, s in docs.items()}
              for q, docs in run.items()} for run in runs]  # fmt: skip
    assert rankwise.fuse(runs, method="rrf", norm="none") == rankwise.fuse(moved, method="rrf", norm="none")


@settings(max_examples=40, deadline=None)
@given(runs=st.lists(one_run, min_size=3, max_size=3), power=st.integers(-6, 6),
       method=st.sampled_from(["wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"]))  # fmt: skip
def test_weights_scaled_together_change_no_order(runs: list[dict], power: int, method: str) -> None:
    """Weights multiplied by one factor (a power of two, so that every product is scaled exactly and no rounding
    can break a tie differently) leave the fused order unchanged."""
    factor = 2.0**power
    weights = [0.5, 0.25, 0.25]
    first = rankwise.fuse(runs, method=method, weights=weights)
    second = rankwise.fuse(runs, method=method, weights=[w * factor for w in weights])
    assert {q: list(d) for q, d in first.items()} == {q: list(d) for q, d in second.items()}


def test_every_method_has_a_test_against_a_reference() -> None:
    compared = {m for m, _ in CASES} | {"condorcet", "w_condorcet"}
    assert compared == {m.name for m in METHODS}
