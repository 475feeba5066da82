"""``rankwise.compat.ir_measures`` against ir_measures itself (installed by the test extra): the same aggregates and
per-query metrics on random runs with score ties, judged queries missing from the run and run queries without
judgments; the same readers' tuples on the bundled TREC files."""

from __future__ import annotations

import contextlib
import gzip
import io
import itertools
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from rankwise.compat import ir_measures as compat
from rankwise.measures.trec_names import CUTOFF_FAMILIES, PLAIN_MEASURES

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


TEXTS = ["AP", "MAP", "P@10", "nDCG@10", "P(rel=2)@10", "AP(rel=1)", "nDCG(dcg='exp-log2')@10",
         'nDCG(dcg="exp-log2", cutoff=20)@10', 'nDCG(dcg="exp-log2", cutoff=20)', "nDCG(gains={0:1,1:2})",
         "nDCG(gains={1: 2, 0: 1})@5", "IPrec@0.2", "IPrec(rel=2, recall=0.4)@0.2", "IPrec(rel=2, recall=0.4)",
         "SetF(beta=1.0)", "SetF(beta=0.5)", "RBP(p=0.8)", "RBP(p=0.5)", "SetP(relative=False)", "SetP(relative=True)",
         "NumRet(rel=1)", "NumRelRet", "SetRelP", "alpha_nDCG(alpha=0.5)@10", "INST(T=1.0,max_rel=3)", "Judged@5",
         "BPM(T=2.0,max_rel=3)@10", "ERR@20", "RR(rel=2)@5", "Success@10", "Rprec(rel=2)", "Bpref"]  # fmt: skip


def test_registry_names_print_as_ir_measures() -> None:
    """Every name of ir_measures' registry is importable and prints as ir_measures' object of that name."""
    assert set(compat.measures.registry) == set(irm.measures.registry)
    for name, theirs in irm.measures.registry.items():
        ours = getattr(compat, name)
        assert str(ours) == str(theirs), name
        assert str(ours @ 7) == str(theirs @ 7), name


def test_parse_measure_as_ir_measures() -> None:
    """Text, printing, equality and hashing as ir_measures: the same text, and equal pairs equal in both."""
    ours = [compat.parse_measure(t) for t in TEXTS]
    theirs = [irm.parse_measure(t) for t in TEXTS]
    assert [str(m) for m in ours] == [str(m) for m in theirs]
    for i, j in itertools.combinations(range(len(TEXTS)), 2):
        assert (ours[i] == ours[j]) == (theirs[i] == theirs[j]), (TEXTS[i], TEXTS[j])
        assert (hash(ours[i]) == hash(ours[j])) == (hash(theirs[i]) == hash(theirs[j]))
    assert compat.parse_measure(ours[3]) is ours[3]
    for bad, error in (("AP(2)", ValueError), ("AP +", ValueError), ("NotAMeasure@5", NameError)):
        with pytest.raises(error):
            irm.parse_measure(bad)
        with pytest.raises(error):
            compat.parse_measure(bad)


TREC_NAMES = ["map", "P_5", "P_5,10", "P.5,10", "P", "ndcg", "ndcg_cut_5,10", "ndcg_cut", "set_P", "set_recall",
              "set_F", "set_relative_P", "set_map", "set_F.1.0,0.5,2.4", "official", "num_rel_ret", "success",
              "iprec_at_recall_0.10", "recall.5", "map_cut", "infAP", "num_ret", "Rprec", "recip_rank", "bpref",
              "num_q", "num_rel", "iprec_at_recall"]  # fmt: skip


@pytest.mark.parametrize("name", [*TREC_NAMES, *PLAIN_MEASURES, *CUTOFF_FAMILIES, "all_trec", "set", "Rprec_mult",
                                  "relative_P.5", "nonsense", "map.5", "ndcg.2"])  # fmt: skip
def test_parse_trec_measure_as_ir_measures(name: str) -> None:
    """The same measures, in the same order, for every trec_eval name rankwise knows; refused where ir_measures
    refuses (a name it lacks: gm_map, unj; a parameter the measure does not take)."""

    def read(parse: Callable[[str], list[Any]]) -> list[str] | str:
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")  # nicknames: names ir_measures lacks skipped, with a warning
                return [str(m) for m in parse(name)]
        except ValueError:
            return "ValueError"

    assert read(compat.parse_trec_measure) == read(irm.parse_trec_measure)


def test_measure_objects_compute_as_ir_measures() -> None:
    """Compat measure objects key the results and compute what ir_measures' objects of the same text compute; their
    own iter_calc, calc_aggregate and calc as ir_measures' methods."""
    qrels, run = _case(7)
    texts = ["nDCG@10", "AP(rel=2)", "P@5", "SetRelP", "NumRelRet", "IPrec@0.3", "R@20", "SetF(beta=0.5)"]
    ours, theirs = [compat.parse_measure(t) for t in texts], [irm.parse_measure(t) for t in texts]
    mine, their = compat.calc_aggregate(ours, qrels, run), irm.calc_aggregate(theirs, qrels, run)
    assert list(mine) == ours
    assert [mine[m] for m in ours] == pytest.approx([their[m] for m in theirs], abs=1e-9)
    for o, t in zip(ours, theirs):
        assert o.calc_aggregate(qrels, run) == pytest.approx(t.calc_aggregate(qrels, run), abs=1e-9)
        mine_rows = sorted((m.query_id, m.value) for m in o.iter_calc(qrels, run))
        their_rows = sorted((m.query_id, m.value) for m in t.iter_calc(qrels, run))
        assert [q for q, _ in mine_rows] == [q for q, _ in their_rows]
        assert [v for _, v in mine_rows] == pytest.approx([v for _, v in their_rows], abs=1e-9)
        aggregate, per_query = o.calc(qrels, run)
        their_aggregate, their_per_query = t.calc(qrels, run)
        assert aggregate == pytest.approx(their_aggregate, abs=1e-9)
        assert len(per_query) == len(their_per_query) and {m.measure for m in per_query} == {o}
        assert o.evaluator(qrels).calc_aggregate(run) == {o: pytest.approx(their_aggregate, abs=1e-9)}


def test_readers_take_text_and_open_files_as_ir_measures(tmp_path: Path) -> None:
    """The readers take the text itself and open files, keep every line (a diversity qrels' subtopic in its
    iteration column, a document judged under two subtopics) and read .gz paths, as ir_measures' readers."""
    qrels = "0 0 D0 0\n0 0 D1 1\n0 1 D1 2\n\n1 3 D5 2\n"
    run = "0 Q0 D0 1 0.8 run\n0 Q0 D2 2 0.7 run\n1 Q0 D1 1 -1.5e2 run\n"
    assert list(compat.read_trec_qrels(qrels)) == [tuple(q) for q in irm.read_trec_qrels(qrels)]
    assert list(compat.read_trec_run(io.StringIO(run))) == [tuple(s) for s in irm.read_trec_run(io.StringIO(run))]
    packed = tmp_path / "qrels.gz"
    packed.write_bytes(gzip.compress(qrels.encode()))
    assert list(compat.read_trec_qrels(str(packed))) == [tuple(q) for q in irm.read_trec_qrels(str(packed))]
    with pytest.raises(ValueError):
        list(irm.read_trec_run("0 Q0 D0 1 0.8\n"))
    with pytest.raises(ValueError):
        list(compat.read_trec_run("0 Q0 D0 1 0.8\n"))
