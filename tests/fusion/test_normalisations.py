"""The normalisations against ranx's own (``ranx.normalization``), edge cases included (one document, equal scores,
a negative maximum), and by hand where ranx has no answer (ties under the rank and Borda normalisations)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import rankwise
from rankwise.fusion import NORMALISATIONS
from rankwise.fusion.catalog import normalisation
from rankwise.fusion.normalisations import normalise
from rankwise.fusion.pool import build_pool, read_runs, run_names


def normalised(runs: list[dict], norm: str, **options: object) -> list[dict]:
    """Each run normalised by rankwise, as {query: {doc: value}} over the documents it holds (Borda: all)."""
    tables = read_runs(runs)
    n = normalisation(norm)
    pool = build_pool(tables, run_names(runs, tables), inverted=n.inverts, **options)  # type: ignore[arg-type]
    scored = normalise(pool, n)
    queries = pool.query_ids.cast(str).to_list()
    docs = pool.doc_ids.cast(str).to_list()
    out: list[dict] = [{} for _ in runs]
    for c in range(len(pool.query)):
        for r in range(len(runs)):
            if scored.present[c, r]:
                out[r].setdefault(queries[pool.query[c]], {})[docs[pool.doc[c]]] = float(scored.value[c, r])
    return out


RUNS = [
    {"q1": {"a": 3.0, "b": 1.5, "c": -2.0, "d": 0.25}, "q2": {"a": 7.0}, "q3": {"x": 2.0, "y": 2.0, "z": 2.0},
     "q4": {"a": -1.0, "b": -3.0}},
    {"q1": {"b": 4.0, "e": 0.5}, "q2": {"b": 1.0, "c": 2.0}, "q3": {"x": 1.0}, "q4": {"c": -0.5, "a": -7.5}},
]  # fmt: skip


@pytest.mark.parametrize("norm", [n.name for n in NORMALISATIONS if n.name not in ("none", "rank", "borda")])
def test_equal_to_ranx(norm: str) -> None:
    """One document, equal scores (ranx's 1e-9 floor), a negative maximum (max: s / 1e-9, as ranx)."""
    ranx = pytest.importorskip("ranx", reason="ranx is not installed (pip install '.[test]')")
    from ranx.normalization import norm_switch

    ours = normalised(RUNS, norm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = [norm_switch(norm)(ranx.Run(r)).to_dict() for r in RUNS]
    for mine, reference in zip(ours, theirs):
        assert mine.keys() == reference.keys()
        for q in reference:
            assert mine[q] == pytest.approx(dict(reference[q]), rel=1e-12, abs=1e-12), (norm, q)


def test_rank_and_borda_equal_ranx_without_ties() -> None:
    ranx = pytest.importorskip("ranx", reason="ranx is not installed (pip install '.[test]')")
    from ranx.normalization import borda_norm, rank_norm

    runs = [{"q1": {"a": 3.0, "b": 1.5, "c": -2.0}, "q2": {"a": 1.0, "b": 2.0}},
            {"q1": {"b": 4.0, "e": 0.5}, "q2": {"c": 2.0}}]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx_runs = [ranx.Run(r) for r in runs]
        rank = [rank_norm(r).to_dict() for r in ranx_runs]
        borda = [r.to_dict() for r in borda_norm(ranx_runs)]
    for ours, reference in ((normalised(runs, "rank"), rank), (normalised(runs, "borda"), borda)):
        for mine, theirs in zip(ours, reference):
            assert {q: mine[q] for q in theirs} == {q: pytest.approx(dict(v)) for q, v in theirs.items()}


def test_rank_normalisation_orders_ties_by_the_tie_policy() -> None:
    """x, y, z tie at 2.0: docno_desc places z, y, x (1, 2/3, 1/3), docno_asc the reverse."""
    desc = normalised(RUNS, "rank")[0]["q3"]
    asc = normalised(RUNS, "rank", ties="docno_asc")[0]["q3"]
    assert desc == pytest.approx({"z": 1.0, "y": 2 / 3, "x": 1 / 3})
    assert asc == pytest.approx({"x": 1.0, "y": 2 / 3, "z": 1 / 3})


def test_borda_fills_every_candidate_and_places_missed_documents_last() -> None:
    """Run 2 of q1 holds b, e of the candidates a b c d e (N = 5): b 1, e 4/5; a, c, d share
    0.5 − (2 − 1)/10 = 0.4 and follow at positions 2, 3, 4 in the tie order."""
    tables = read_runs(RUNS)
    pool = build_pool(tables, run_names(RUNS, tables))
    scored = normalise(pool, normalisation("borda"))
    q1 = np.flatnonzero(pool.query == 0)
    docs = pool.doc_ids.gather(pool.doc[q1]).to_list()
    value = dict(zip(docs, scored.value[q1, 1]))
    assert value == pytest.approx({"a": 0.4, "b": 1.0, "c": 0.4, "d": 0.4, "e": 0.8})
    position = dict(zip(docs, scored.position[q1, 1]))
    assert sorted(position[d] for d in "acd") == [2, 3, 4]
    assert position["d"] < position["c"] < position["a"]  # docno_desc among the missed


def test_inverted_min_max_ranks_the_smallest_score_first() -> None:
    """Distances: min-max-inverted gives the smallest distance 1, and RRF reads the run in that order."""
    run = {"q": {"near": 0.1, "far": 0.9, "mid": 0.5}}
    assert normalised([run, run], "min-max-inverted")[0]["q"] == pytest.approx({"near": 1.0, "mid": 0.5, "far": 0.0})
    fused = rankwise.fuse([run, run], method="rrf", norm="min-max-inverted", params={"k": 0})
    assert list(fused["q"]) == ["near", "mid", "far"]
    assert math.isclose(fused["q"]["near"], 2.0)


def test_depth_keeps_the_top_of_each_run_in_its_order() -> None:
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    other = {"q": {"c": 5.0, "d": 1.0}}
    fused = rankwise.fuse([run, other], method="sum", norm="none", depth=1)
    assert fused == {"q": {"c": 5.0, "a": 3.0}}
    inverted = rankwise.fuse([run, other], method="sum", norm="min-max-inverted", depth=1)
    assert set(inverted["q"]) == {"c", "d"}  # the smallest score of each run
