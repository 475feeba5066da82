"""The ``ir_measures`` dialect against ir_measures 0.4 itself: per query (iter_calc) and aggregate (calc_aggregate).

ir_measures scores every judged query (a judged query missing from the run is 0, a run query without judgments is
left out), compares scores as float32 (its pytrec_eval provider) and returns 0 per judged query for an empty run.
"""

from __future__ import annotations

import math
import random

import pytest

import rankwise

ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is a test dependency: pip install -e '.[test]'")

# rankwise name -> ir_measures measure (by its own name syntax)
MEASURES = {
    "nDCG@10": "nDCG@10",
    "nDCG": "nDCG",
    "AP": "AP",
    "AP@5": "AP@5",
    "P@5": "P@5",
    "P(rel=2)@5": "P(rel=2)@5",
    "R@5": "R@5",
    "RR": "RR",
    "Rprec": "Rprec",
    "bpref": "Bpref",
    "IPrec@0.5": "IPrec@0.5",
    "HitRate@3": "Success@3",
    "NumRet": "NumRet",
    "NumRelRet": "NumRelRet",
}


def _case(seed: int) -> tuple[dict, dict]:
    """Random judgments (grades 0–2, no query with only negative grades: pytrec_eval misbehaves on those) and a
    run whose scores are float32-representable with many ties; some judged queries are missing from the run
    and some run queries are unjudged."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(rng.randint(2, 7)):
        docs = [f"d{i}" for i in range(rng.randint(1, 15))]
        qid = f"q{q}"
        if rng.random() < 0.85:
            qrels[qid] = {d: rng.choice([0, 0, 1, 2]) for d in rng.sample(docs, rng.randint(1, len(docs)))}
        if rng.random() < 0.8 or qid not in qrels:
            shown = rng.sample(docs, rng.randint(1, len(docs)))
            run[qid] = {d: rng.randint(0, 6) / 4 for d in shown}
    if not set(qrels) & set(run):  # ir_measures needs no common query, but the comparison wants one
        first = next(iter(qrels))
        run[first] = {d: 1.0 for d in qrels[first]}
    return qrels, run


@pytest.mark.parametrize("seed", range(40))
def test_ir_measures_dialect_equals_ir_measures(seed: int) -> None:
    qrels, run = _case(seed)
    theirs = {name: ir_measures.parse_measure(text) for name, text in MEASURES.items()}
    per_query: dict[tuple[str, str], float] = {}
    for metric in ir_measures.iter_calc(list(theirs.values()), qrels, run):
        per_query[(metric.query_id, str(metric.measure))] = metric.value
    aggregate = ir_measures.calc_aggregate(list(theirs.values()), qrels, run)
    result = rankwise.evaluate(qrels, run, list(MEASURES), dialect="ir_measures")
    assert set(result.query_ids) == set(qrels)  # every judged query, unjudged run queries left out
    for name, measure in theirs.items():
        for qid, values in result.per_query.items():
            assert values[name] == pytest.approx(per_query[(qid, str(measure))], abs=1e-12), (name, qid)
        assert result.aggregate[name] == pytest.approx(aggregate[measure], abs=1e-12), name
def test_ir_measures_scores_an_empty_run_zero_per_judged_query() -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    measures = [ir_measures.parse_measure(m) for m in ("P@5", "AP", "nDCG@10")]
    theirs = ir_measures.calc_aggregate(measures, qrels, {})
    result = rankwise.evaluate(qrels, {}, ["P@5", "AP", "nDCG@10"], dialect="ir_measures")
    assert result.aggregate == {"P@5": theirs[measures[0]], "AP": theirs[measures[1]], "nDCG@10": theirs[measures[2]]}
    assert result.aggregate["AP"] == 0.0 and set(result.query_ids) == {"q1", "q2"}
    assert any("run has no rows" in note for note in result.notes())
    # nothing judged: ir_measures returns NaN aggregates and no per-query values
    empty = rankwise.evaluate({}, {"q1": {"a": 1.0}}, ["P@5"], dialect="ir_measures")
    assert math.isnan(empty.aggregate["P@5"]) and empty.query_ids == ()
    assert math.isnan(ir_measures.calc_aggregate(measures[:1], {}, {"q1": {"a": 1.0}})[measures[0]])
    # trec_eval itself refuses empty input: rankwise keeps the clear error there
    with pytest.raises(rankwise.InputError, match="no ranked documents"):
        rankwise.evaluate(qrels, {}, ["P@5"])
