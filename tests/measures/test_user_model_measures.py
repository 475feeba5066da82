"""The user-model measures: cwl_eval's C/W/L measures (INST, INSQ, BPM static and dynamic, NERR8–NERR11, SDCG, RBP
normalised over its horizon) and Compat.

Proven against ir_measures' cwl_eval provider (cwl-eval 1.0) and compat provider per query, on random runs with
tied scores, graded and negative judgments, unjudged documents, rankings past the 1000-rank horizon and judged
queries missing from the run; against cwl_eval's own ``main()`` on files and its BPM-Dynamic class (which ir_measures
does not expose); against the C/W/L definition summed rank by rank in plain Python (any horizon, BPM's patience
step, which cwl_eval drops); and against hand-computed cases.
"""

from __future__ import annotations

import math
import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from conftest import close, run_cli
from rankwise.errors import MeasureError
from rankwise.kernels.common import within_query_accumulate
from rankwise.kernels.user_model import trigamma


def random_case(seed: int, queries: int = 12, longest: int = 40, grades=(-1, 0, 0, 1, 2, 3)) -> tuple[dict, dict]:
    """Graded qrels (negative grades too) and a run with many tied scores and unjudged documents; some judged queries
    are missing from the run, some run queries have no judgments."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, float]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        pool = [f"d{i}" for i in range(max(60, longest + 20))]
        judged = {d: rng.choice(grades) for d in rng.sample(pool, rng.randint(0, 30))}
        if judged and q % 7 != 3:
            qrels[f"q{q}"] = judged
        shown = rng.sample(pool, rng.randint(0, longest))
        if shown and q % 5 != 2:
            run[f"q{q}"] = {d: rng.randint(0, 8) / 4 + 0.25 for d in shown}  # positive, heavily tied
    return qrels, run


# ----------------------------------------------------------------------------------------------------------------
# The C/W/L definition, rank by rank


def cwl_by_definition(gains: list[float], continuation, horizon: int) -> float:
    """EU = Σ_{i≤N} W_i g_i, W_i = P_i / Σ_j P_j, P_i = Π_{j<i} C_j, with gains 0 past the ranking and C computed
    by ``continuation(i, gains_so_far, g_i)`` for each rank i = 1..N."""
    padded = (list(gains) + [0.0] * horizon)[:horizon]
    reach, utility, mass, collected = 1.0, 0.0, 0.0, []
    for i, g in enumerate(padded, start=1):
        utility += reach * g
        mass += reach
        collected.append(g)
        reach *= continuation(i, collected, g)
    return utility / mass


def bpm_continuation(goal: float, patience: float, hb: float = 0.0, hc: float = 0.0, med: float = 0.5):
    """Zhang et al.'s BPM: read on while the gain so far is below T_l and l < K_l at every rank l so far."""
    state = {"goal": goal, "patience": patience, "reading": True}

    def continuation(i: int, collected: list[float], g: float) -> float:
        state["reading"] = state["reading"] and sum(collected) < state["goal"] and i < state["patience"]
        state["goal"] += hb * (g - med)
        state["patience"] += hc * (g - med)
        return 1.0 if state["reading"] else 0.0

    return continuation


DEFINITIONS = {  # measure → C(i, gains so far, g_i)
    "INST(T=1.5)": lambda i, c, g: ((i + 1.5 + (1.5 - sum(c)) - 1) / (i + 1.5 + (1.5 - sum(c)))) ** 2,
    "INSQ(T=2)": lambda i, c, g: ((i + 4 - 1) / (i + 4)) ** 2,
    "NERR8@4": lambda i, c, g: 1 - g if i < 4 else 0.0,
    "NERR9@6": lambda i, c, g: i / (i + 1) * (1 - g) if i < 6 else 0.0,
    "NERR10(p=0.7)": lambda i, c, g: 0.7 * (1 - g),
    "NERR11(T=0.5)": lambda i, c, g: ((i + 1 - 1) / (i + 1)) ** 2 * (1 - g),
    "SDCG@7": lambda i, c, g: math.log(i + 1) / math.log(i + 2) if i < 7 else 0.0,
}


@pytest.mark.parametrize("horizon", [1, 3, 25, 200])
@pytest.mark.parametrize("seed", range(3))
def test_every_cwl_measure_is_its_definition_at_any_horizon(seed: int, horizon: int) -> None:
    qrels, run = random_case(seed, grades=(0, 1, 2, 3, 0.4))
    measures = {**DEFINITIONS, "BPM(T=2)@5": None, "BPM(T=1.5,hb=0.5,hc=2,med=0.25)@3": None}
    texts = {name: name.replace(")", f",scale={{0,3}},horizon={horizon})") if "(" in name
             else name.replace("@", f"(scale={{0,3}},horizon={horizon})@") for name in measures}  # fmt: skip
    result = rankwise.evaluate(load_real(qrels), run, list(texts.values()), queries="qrels", ties="input_order")
    for qid, judged in qrels.items():
        ranking = sorted(run.get(qid, {}), key=lambda d: -run[qid][d])  # stable: ties in input order
        gains = [min(max(judged[d], 0.0), 3.0) / 3.0 if d in judged else 0.0 for d in ranking]
        for name, text in texts.items():
            if name.startswith("BPM"):
                head = rankwise.parse_measure(text)
                continuation = bpm_continuation(*(float(head.get(p)) for p in ("T",)), float(head.cutoff),
                                                *(float(head.get(p)) for p in ("hb", "hc", "med")))  # fmt: skip
            else:
                continuation = measures[name]
            expected = cwl_by_definition(gains, continuation, horizon)
            assert close(result.per_query[qid][text], expected, rel_tol=1e-12), (qid, text)


def load_real(qrels: dict) -> object:
    """Qrels with real-valued grades as rankwise reads them (``grades="real"``)."""
    from rankwise.io import load_qrels

    return load_qrels(qrels, grades="real")


def test_hand_computed_cases() -> None:
    """Gains 1, 0 (doc a relevant, b not).

    INST(T=1, horizon=3): C_1 = ((1 + 1 + 0 − 1)/(1 + 1 + 0))² = 1/4 (T_1 = 1 − 1 = 0);
    C_2 = ((2 + 1 + 0 − 1)/3)² = 4/9; P = 1, 1/4, 1/9, so INST = 1 / (1 + 1/4 + 1/9) = 36/49.
    BPM(T=5)@2: C_1 = [1 < 5][1 < 2] = 1, C_2 = [2 < 2] = 0: W = ½, ½ → ½. With hc=1 (binary gains, med ½) the
    patience grows to K_2 = 2.5, K_3 = 2.5 − 0.5 = 2: the user reads ranks 1..3 (2 < 2.5, then 3 < 2 fails), W = ⅓.
    SDCG@2 = (1/log2 2) / (1/log2 2 + 1/log2 3).
    """
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 0.9, "b": 0.5}}
    got = rankwise.evaluate(qrels, run, ["INST(horizon=3)", "BPM(T=5)@2", "BPM(T=5,hc=1)@2", "SDCG@2",
                                         "NERR10(p=0.5)", "INSQ(horizon=1)"]).aggregate  # fmt: skip
    assert got["INST(horizon=3)"] == pytest.approx(36 / 49, abs=1e-15)
    assert got["BPM(T=5)@2"] == pytest.approx(1 / 2, abs=1e-15)
    assert got["BPM(T=5,hc=1)@2"] == pytest.approx(1 / 3, abs=1e-15)
    assert got["SDCG@2"] == pytest.approx(1 / (1 + 1 / math.log2(3)), abs=1e-15)
    assert got["NERR10(p=0.5)"] == pytest.approx(1.0, abs=1e-15)  # C_1 = 0.5 · (1 − 1) = 0: only rank 1 is read
    assert got["INSQ(horizon=1)"] == pytest.approx(1.0, abs=1e-15)  # one rank: W_1 = 1


def test_insq_tail_is_the_infinite_sum_in_the_limit() -> None:
    """One relevant document at rank 1: P_i = (2T/(i − 1 + 2T))² telescopes, so Σ_{i≥1} P_i = 4 (π²/6 − 1) for T = 1
    and INSQ → 1 / (4 (π²/6 − 1)) as the horizon grows (here 10^8: a relative difference of about 1.5e-8)."""
    got = rankwise.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["INSQ(horizon=100000000)"]).aggregate
    assert got["INSQ(horizon=100000000)"] == pytest.approx(1 / (4 * (math.pi**2 / 6 - 1)), rel=1e-7)


# ----------------------------------------------------------------------------------------------------------------
# Against cwl_eval


def _provider(name: str):
    ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is not installed (pip install '.[test]')")
    pytest.importorskip("cwl", reason="cwl-eval is not installed (pip install '.[test]')")
    import logging

    logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)  # clipping warnings on purpose
    return ir_measures, getattr(ir_measures, name)


CWL_PAIRS = [  # (ir_measures measure, rankwise measure)
    ("INST(max_rel=3)", "INST(scale={0,3})"),
    ("INST(max_rel=3,T=2.5)", "INST(T=2.5,scale={0,3})"),
    ("INST(max_rel=1)", "INST"),  # grades above 1 clipped: binary gains
    ("INSQ(max_rel=3)", "INSQ(scale={0,3})"),
    ("INSQ(max_rel=2,min_rel=1,T=0.3)", "INSQ(T=0.3,scale={1,2})"),
    ("BPM(max_rel=3)@5", "BPM(scale={0,3})@5"),
    ("BPM(max_rel=2,T=2)@20", "BPM(T=2,scale={0,2})@20"),
    ("NERR8(max_rel=3)@10", "NERR8(scale={0,3})@10"),
    ("NERR9(max_rel=3)@50", "NERR9(scale={0,3})@50"),
    ("NERR10(max_rel=3)", "NERR10(scale={0,3})"),
    ("NERR10(max_rel=3,p=0.5)", "NERR10(p=0.5,scale={0,3})"),
    ("NERR11(max_rel=3,T=2)", "NERR11(T=2,scale={0,3})"),
    ("SDCG(max_rel=3)@10", "SDCG(scale={0,3})@10"),
    ("SDCG(max_rel=3,min_rel=1)@5", "SDCG(scale={1,3})@5"),
    ("P(rel=1)@5", "P@5"),
    ("RR(rel=1)", "RR"),
    ("AP(rel=1)", "AP"),  # the dialect's AP(denom=hits): cwl_eval's AP divides by the relevant documents retrieved
]


@pytest.mark.parametrize("seed", range(4))
def test_cwl_measures_equal_ir_measures_cwl_eval_per_query(seed: int) -> None:
    ir_measures, _ = _provider("cwl_eval")
    qrels, run = random_case(seed, longest=1500 if seed == 3 else 40)  # seed 3: rankings past the 1000-rank horizon
    assert seed != 3 or max(len(docs) for docs in run.values()) > 1000
    wanted = [ir_measures.parse_measure(irm) for irm, _ in CWL_PAIRS]
    reference = {(str(m.measure), m.query_id): m.value for m in ir_measures.cwl_eval.iter_calc(wanted, qrels, run)}
    result = rankwise.evaluate(qrels, run, [rw for _, rw in CWL_PAIRS], dialect="cwl_eval", depth=1000)
    assert sorted(result.per_query) == sorted(qrels)
    for measure, (_, text) in zip(wanted, CWL_PAIRS):
        for qid in qrels:
            assert close(result.per_query[qid][text], reference[(str(measure), qid)], rel_tol=1e-12), (text, qid)


@pytest.mark.parametrize("rel", [1, 2])
def test_rbp_through_cwl_eval_is_binary_and_normalised_over_1000_ranks(rel: int) -> None:
    """ir_measures' RBP(rel=r) through cwl_eval is rankwise's RBP under the cwl_eval dialect with -l r; it differs
    from trec_eval's RBP (grades scaled by the query's largest, an infinite sum) on graded qrels."""
    ir_measures, provider = _provider("cwl_eval")
    qrels, run = random_case(7, longest=1500)
    assert max(len(docs) for docs in run.values()) > 1000
    wanted = {p: ir_measures.RBP(rel=rel, p=p) for p in (0.8, 0.99)}
    reference = {(p, m.query_id): m.value for p, measure in wanted.items()
                 for m in provider.iter_calc([measure], qrels, run)}  # fmt: skip
    result = rankwise.evaluate(qrels, run, ["RBP(p=0.8)", "RBP(p=0.99)"], dialect="cwl_eval", rel_level=rel)
    trec = rankwise.evaluate(qrels, run, ["RBP(p=0.99)"], queries="qrels", ties="input_order")
    assert any(not close(trec.per_query[q]["RBP(p=0.99)"], reference[(0.99, q)]) for q in qrels)
    for p in (0.8, 0.99):
        for qid in qrels:
            assert close(result.per_query[qid][f"RBP(p={p:g})"], reference[(p, qid)], rel_tol=1e-12), (p, qid)


def test_cwl_eval_orders_tied_scores_by_input_order() -> None:
    """Run through ir_measures, cwl_eval reads tied documents in the order the run gives them (a stable sort by
    score): swapping two tied documents changes INST, and the cwl_eval dialect follows."""
    ir_measures, provider = _provider("cwl_eval")
    qrels = {"q": {"a": 2, "b": 0, "c": 1}}
    for run in ({"q": {"a": 0.5, "b": 0.5, "c": 0.9}}, {"q": {"b": 0.5, "a": 0.5, "c": 0.9}}):
        (reference,) = provider.iter_calc([ir_measures.INST(max_rel=2)], qrels, run)
        got = rankwise.evaluate(qrels, run, ["INST(scale={0,2})"], dialect="cwl_eval").aggregate
        assert got["INST(scale={0,2})"] == pytest.approx(reference.value, rel=1e-13)
    values = {provider.calc_aggregate([ir_measures.INST(max_rel=2)], qrels, r)[ir_measures.INST(max_rel=2)]
              for r in ({"q": {"a": 0.5, "b": 0.5}}, {"q": {"b": 0.5, "a": 0.5}})}  # fmt: skip
    assert len(values) == 2


def test_bpm_dynamic_equals_cwl_eval_bpmd_whose_patience_step_does_nothing() -> None:
    """cwl_eval's BPM-Dynamic (not exposed by ir_measures) on the same gains: its hc is added to T after the goal's
    loop, so any hc gives rankwise's hc=0; rankwise's hc moves K (checked against the definition above)."""
    pytest.importorskip("cwl", reason="cwl-eval is not installed (pip install '.[test]')")
    from cwl.ruler.measures.cwl_bpm import BPMDCWLMetric
    from cwl.ruler.ranking import Ranking

    rng = random.Random(11)
    for trial in range(60):
        grades = [rng.choice([0, 0, 1, 2, 3]) for _ in range(rng.randint(1, 30))]
        goal, patience = rng.choice([0.5, 1.0, 2.0, 3.5]), rng.randint(1, 25)
        hb, med = rng.choice([0.0, 0.5, 1.0, 2.0]), rng.choice([0.25, 0.5])
        ranking = Ranking("q", [g / 3 for g in grades], [np.nan] * len(grades))
        reference = BPMDCWLMetric(goal, patience, hb, rng.choice([0.0, 1.0, 5.0]), med).measure(ranking)
        qrels = {"q": {f"d{i}": g for i, g in enumerate(grades)}}
        run = {"q": {f"d{i}": float(len(grades) - i) for i in range(len(grades))}}
        text = f"BPM(T={goal:g},hb={hb:g},med={med:g},scale={{0,3}})@{patience}"
        got = rankwise.evaluate(qrels, run, [text], queries="qrels").per_query["q"][text]
        assert got == pytest.approx(reference, rel=1e-12, abs=1e-15), (trial, text, grades)


def test_cwl_eval_main_on_files_prints_the_same_expected_utilities(tmp_path: Path, monkeypatch, capsys) -> None:
    """cwl_eval's own command (its default metric set: P@1-5,10, RBP@0.2/0.4/0.8, NDCG-k@5,10, RR, AP, INST T=1,2,3) on
    a gain file in [0, 1] and a run file sorted by score: each query's EU, printed to 4 decimals, is rankwise's."""
    pytest.importorskip("cwl", reason="cwl-eval is not installed (pip install '.[test]')")
    from cwl.cwl_eval import main

    qrels, run = random_case(5, grades=(0, 0, 1, 2, 3))
    gains = {q: {d: g / 3 for d, g in docs.items()} for q, docs in qrels.items()}
    gain_file = tmp_path / "gains.txt"
    gain_file.write_text("".join(f"{q} 0 {d} {g!r}\n" for q, docs in gains.items() for d, g in docs.items()))
    ranked = {q: sorted(docs.items(), key=lambda kv: -kv[1]) for q, docs in run.items() if q in qrels}
    run_file = tmp_path / "run.txt"
    run_file.write_text("".join(f"{q} Q0 {d} {i} {s} tag\n" for q, docs in ranked.items()
                                for i, (d, s) in enumerate(docs, start=1)))  # fmt: skip
    monkeypatch.chdir(tmp_path)  # cwl_eval writes cwl.log in the working directory
    main(str(run_file), str(gain_file))
    printed = {(line.split("\t")[0], line.split("\t")[1]): float(line.split("\t")[2])
               for line in capsys.readouterr().out.splitlines()}  # fmt: skip
    names = {"RBP@0.8": "RBP(p=0.8,horizon=1000)", "RBP@0.4": "RBP(p=0.4,horizon=1000)",
             "RBP@0.2": "RBP(p=0.2,horizon=1000)",
             "NDCG-k@5": "SDCG@5", "NDCG-k@10": "SDCG@10", "INST-T=1.0": "INST", "INST-T=2.0": "INST(T=2)",
             "INST-T=3.0": "INST(T=3)"}  # fmt: skip
    result = rankwise.evaluate(load_real(gains), run_file, list(names.values()), ties="input_order", queries="run")
    assert {q for q, _ in printed} == set(ranked)
    compared = [(qid, metric, value) for (qid, metric), value in printed.items() if metric in names]
    assert len(compared) == len(ranked) * len(names)
    for qid, metric, value in compared:
        assert abs(result.per_query[qid][names[metric]] - value) <= 5.1e-5, (qid, metric)


def test_cwl_measures_take_real_grades() -> None:
    """An LLM judge's 0.73 is a gain of 0.73 on the scale {0,1}; ir_measures scales real grades the same way."""
    ir_measures, provider = _provider("cwl_eval")
    qrels = {"q": {"a": 0.73, "b": 0.2, "c": 1.0}}
    run = {"q": {"a": 0.9, "b": 0.8, "c": 0.7, "x": 0.6}}
    for irm, text in (("INST(max_rel=1)", "INST"), ("NERR11(max_rel=1)", "NERR11"), ("SDCG(max_rel=1)@3", "SDCG@3")):
        (reference,) = provider.iter_calc([ir_measures.parse_measure(irm)], qrels, run)
        got = rankwise.evaluate(load_real(qrels), run, [text]).aggregate[text]
        assert got == pytest.approx(reference.value, rel=1e-12)


# ----------------------------------------------------------------------------------------------------------------
# Compat


def test_compat_hand_computed() -> None:
    """qrels a:2, b:1, c:1; ranking c, x, a, y. The ideal closest to it is a, c, b (grade 1: c is ranked, b not).
    Overlap at depth 1..4: 0, 1, 2, 2 → fractions 0, 1/2, 2/3, 1/2. With p = ½ (weights 1, ½, ¼, ⅛):
    Σ w·fraction = 1/4 + 1/6 + 1/16 = 23/48; Σ w = 15/8; the ideal with itself has fractions 1, 1, 1, 3/4:
    Σ = 59/32. Normalised 23/48 ÷ 59/32 = 46/177; not normalised 23/48 ÷ 15/8 = 23/90."""
    qrels = {"q": {"a": 2, "b": 1, "c": 1}}
    run = {"q": {"c": 0.9, "x": 0.8, "a": 0.7, "y": 0.6}}
    got = rankwise.evaluate(qrels, run, ["Compat(p=0.5)", "Compat(p=0.5,normalise=no)"]).aggregate
    assert got["Compat(p=0.5)"] == pytest.approx(46 / 177, abs=1e-15)
    assert got["Compat(p=0.5,normalise=no)"] == pytest.approx(23 / 90, abs=1e-15)
    perfect = rankwise.evaluate(qrels, {"q": {"a": 3, "c": 2, "b": 1}}, ["Compat"]).aggregate["Compat"]
    assert perfect == pytest.approx(1.0, abs=1e-15)
    nothing = rankwise.evaluate({"q": {"a": 0}}, {"q": {"a": 1.0}}, ["Compat"]).aggregate["Compat"]
    assert nothing == 0.0  # no relevant document: an empty ideal overlaps nothing


def test_compat_ideal_takes_equal_grades_in_the_rankings_order() -> None:
    """Two equally relevant documents tied in score, ranked a, b (doc id ascending): the ideal closest to the
    ranking is a, b, so the ranking is perfect (1). ir_measures keeps the qrels' order (b, a) for documents of equal
    grade and equal score: overlap 0 at depth 1 and 1 at depth 2, p/(1 + p) = 0.95/1.95 (the dialect's caveat)."""
    qrels, run = {"q": {"b": 1, "a": 1}}, {"q": {"a": 0.5, "b": 0.5}}
    perfect = rankwise.evaluate(qrels, run, ["Compat"], dialect="compat").aggregate["Compat"]
    assert perfect == pytest.approx(1.0, abs=1e-15)
    ir_measures, provider = _provider("compat")
    (reference,) = provider.iter_calc([ir_measures.Compat()], qrels, run)
    assert reference.value == pytest.approx(0.95 / 1.95, abs=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_compat_equals_ir_measures_compat_per_query(seed: int) -> None:
    """On random runs with heavy ties, the qrels listing each query's documents in doc id order (ir_measures breaks
    the ideal's ties of equal grade and score by the qrels' order, rankwise by the ranking's: see the dialect)."""
    ir_measures, provider = _provider("compat")
    qrels, run = random_case(seed)
    qrels = {q: dict(sorted(docs.items())) for q, docs in qrels.items()}
    pairs = [("Compat", "Compat"), ("Compat(p=0.8)", "Compat(p=0.8)"), ("Compat(normalize=False)",
             "Compat(normalise=no)"), ("Compat(p=0.99,normalize=False)", "Compat(p=0.99,normalise=no)")]  # fmt: skip
    result = rankwise.evaluate(qrels, run, [rw for _, rw in pairs], dialect="compat")
    for irm, text in pairs:
        measure = ir_measures.parse_measure(irm)
        reference = {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}
        assert sorted(reference) == sorted(result.per_query)
        for qid, value in reference.items():
            assert close(result.per_query[qid][text], value, rel_tol=1e-12), (text, qid)


# ----------------------------------------------------------------------------------------------------------------
# The machinery


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(-3, 3, allow_nan=False), max_size=40), min_size=1, max_size=12))
def test_within_query_accumulate_is_a_loop_per_query(lists: list[list[float]]) -> None:
    values = np.array([v for values in lists for v in values], dtype=np.float64)
    qidx = np.repeat(np.arange(len(lists)), [len(values) for values in lists])
    for ufunc in (np.add, np.multiply):
        expected = [w for values in lists for w in ufunc.accumulate(np.array(values, dtype=np.float64))]
        assert within_query_accumulate(ufunc, values, qidx, len(lists)).tolist() == expected  # bit for bit


def test_trigamma_matches_scipy() -> None:
    special = pytest.importorskip("scipy.special")
    x = np.concatenate((np.linspace(0.01, 40, 4001), np.geomspace(40, 1e9, 200)))
    assert np.allclose(trigamma(x), special.polygamma(1, x), rtol=2e-15, atol=0)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("INST(scale={3,1})", "scale must be two grades {min,max} with min < max"),
        ("INSQ(scale={0,1,2})", "scale must be two grades"),
        ("BPM", "BPM needs a cutoff"),
        ("NERR8", "NERR8 needs a cutoff"),
        ("INST(T=0)", "T=0 must be > 0"),
        ("Compat(p=1.5)", "p=1.5 must be <= 1"),
        ("INST@10", "INST takes no cutoff"),
    ],
)
def test_bad_parameters_are_refused_in_one_line(text: str, fragment: str) -> None:
    with pytest.raises(MeasureError, match=re.escape(fragment)):
        rankwise.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [text])


def test_cli_evaluates_and_explains_the_new_measures(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q 0 a 2\nq 0 b 0\nq 0 c 1\n")
    run.write_text("q Q0 c 1 0.9 t\nq Q0 a 2 0.5 t\nq Q0 b 3 0.5 t\n")
    code, out, err = run_cli("evaluate", str(qrels), str(run), "-m", "INST(T=2)", "-m", "Compat",
                             "--dialect", "cwl_eval", "--format", "csv")  # fmt: skip
    assert code == 0, err
    assert "all,INST(T=2)," in out and "all,Compat," in out
    code, out, _ = run_cli("explain", "BPM@10", "--dialect", "cwl_eval")
    assert code == 0 and "hc" in out and "Zhang" in out
