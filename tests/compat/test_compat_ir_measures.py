"""``rankwise.compat.ir_measures`` against ir_measures itself (installed by the test extra): the same aggregates and
per-query metrics on random runs with score ties, judged queries missing from the run and run queries without
judgments; the same readers' tuples on the bundled TREC files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from rankwise.compat import ir_measures as compat

irm = pytest.importorskip("ir_measures", reason="ir_measures is not installed (pip install ir-measures)")

def _case(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(10):
        docs = [f"d{j}" for j in rng.choice(60, 25, replace=False)]
        if rng.random() < 0.85:
            qrels[f"q{i}"] = {d: int(rng.integers(0, 4)) for d in docs[:12]}
        if rng.random() < 0.85:
            run[f"q{i}"] = {d: float(rng.integers(0, 8)) / 4 for d in docs[3:]}  # ties every few documents
    qrels.setdefault("q0", {"d1": 1})
    run.setdefault("q0", {"d1": 1.0})
    return qrels, run


def _measures() -> list:  # type: ignore[type-arg]
    return [irm.nDCG @ 10, irm.AP, irm.P @ 5, irm.RR, irm.R @ 10, irm.AP(rel=2), irm.nDCG, irm.Bpref, irm.Rprec,
            irm.P(rel=2) @ 10, irm.NumRelRet, irm.SetP]  # fmt: skip


@pytest.mark.parametrize("seed", range(12))
def test_equal_to_ir_measures(seed: int) -> None:
    qrels, run = _case(seed)
    measures = _measures()
    theirs, ours = irm.calc_aggregate(measures, qrels, run), compat.calc_aggregate(measures, qrels, run)
    assert set(ours) == set(measures)
    for measure in measures:
        assert ours[measure] == pytest.approx(theirs[measure], abs=1e-9), measure
    their_rows = sorted((m.query_id, str(m.measure), m.value) for m in irm.iter_calc(measures, qrels, run))
    our_rows = sorted((m.query_id, str(m.measure), m.value) for m in compat.iter_calc(measures, qrels, run))
    assert [r[:2] for r in our_rows] == [r[:2] for r in their_rows]  # judged queries missing from the run too
    assert all(a[2] == pytest.approx(b[2], abs=1e-9) for a, b in zip(our_rows, their_rows))


def test_measures_as_text_tuples_and_frames() -> None:
    """Text measures key the result as written; Qrel/ScoredDoc tuples and DataFrames read as the dicts."""
    qrels, run = _case(3)
    texts = ["nDCG@10", "AP(rel=2)", "P@5"]
    theirs = irm.calc_aggregate([irm.parse_measure(t) for t in texts], qrels, run)
    by_text = compat.calc_aggregate(texts, qrels, run)
    assert list(by_text) == texts
    assert [by_text[t] for t in texts] == pytest.approx([theirs[irm.parse_measure(t)] for t in texts], abs=1e-9)
    qrel_rows = [compat.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    run_rows = [irm.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    assert compat.calc_aggregate(texts, qrel_rows, run_rows) == by_text
    frame_qrels = pl.DataFrame(qrel_rows, schema=["query_id", "doc_id", "relevance", "iteration"], orient="row")
    frame_run = pl.DataFrame(run_rows, schema=["query_id", "doc_id", "score"], orient="row")
    assert compat.evaluator(texts, frame_qrels).calc_aggregate(frame_run.to_pandas()) == by_text


def test_readers_give_ir_measures_tuples(tmp_path: Path) -> None:
    judged, ranked = _case(5)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in judged.items() for d, g in docs.items()))
    run.write_text("".join(f"{q} Q0 {d} {i + 1} {s} tag\n" for q, docs in ranked.items()
                           for i, (d, s) in enumerate(docs.items())))  # fmt: skip
    assert [tuple(q[:3]) for q in compat.read_trec_qrels(qrels)] == [
        (q.query_id, q.doc_id, q.relevance) for q in irm.read_trec_qrels(str(qrels))
    ]
    assert [tuple(s) for s in compat.read_trec_run(run)] == [
        (s.query_id, s.doc_id, s.score) for s in irm.read_trec_run(str(run))
    ]
