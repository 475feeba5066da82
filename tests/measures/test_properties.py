"""Property tests (hypothesis): bounds, perfect rankings, row order, query splits and input forms."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import rankwise

SETTINGS = settings(max_examples=60, deadline=None)

QIDS = ["q1", "q2", "10", "Q3"]
DOCS = ["d1", "d2", "d9", "d10", "D3", "a", "b_7", "x", "y", "z"]
SCORES = [-1.0, 0.0, 0.25, 0.5, 0.5, 1.0, 2.0, 3.75, 1e-3]  # few values: heavy ties

FRACTION_MEASURES = [
    "P@1", "P@3", "P@20", "P(rel=2)@3", "R@3", "R", "HitRate@2", "F1@3", "F1", "RR", "RR@2",
    "AP", "AP@3", "AP(denom=min_k_R)@3", "AP(denom=k)@3", "AP(denom=hits)@3", "AP(denom=k)", "GMAP",
    "nDCG", "nDCG@3", "nDCG(gain=exp2)@5", "nDCG(gain=binary)", "nDCG(gain={1:1,2:3,3:7})@3", "nDCG(rel=2)@5",
    "Rprec", "bpref", "IPrec@0.5", "IPrec(round=v9)@0.3", "IPrec@0", "IPrec@1",
]  # fmt: skip
OTHER_MEASURES = ["MeanRank", "MeanRank@3", "KendallTau", "DCG@3", "DCG(gain=exp2)", "NumQ", "NumRet",
                  "NumRel", "NumRelRet"]  # fmt: skip
ALL_MEASURES = FRACTION_MEASURES + OTHER_MEASURES
COUNT_MEASURES = {"NumQ", "NumRet", "NumRel", "NumRelRet"}


@st.composite
def qrels_and_run(draw, min_queries: int = 1):
    """Random qrels and run dicts sharing at least one query (QIDS[0])."""
    more = st.lists(st.sampled_from(QIDS[1:]), unique=True, min_size=min_queries - 1, max_size=3)
    qids = [QIDS[0], *draw(more)]
    grades = st.integers(min_value=-1, max_value=3)
    doc_maps = st.dictionaries(st.sampled_from(DOCS), grades, min_size=1, max_size=8)
    score_maps = st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=1, max_size=10)
    qrels, run = {}, {}
    for i, qid in enumerate(qids):
        in_qrels = i == 0 or draw(st.booleans())
        in_run = i == 0 or not in_qrels or draw(st.booleans())
        if in_qrels:
            qrels[qid] = draw(doc_maps)
        if in_run:
            run[qid] = draw(score_maps)
    return qrels, run


def _same(a: np.ndarray, b: np.ndarray) -> None:
    np.testing.assert_array_equal(a, b)  # NaN == NaN here


@SETTINGS
@given(data=qrels_and_run(), rel_level=st.sampled_from([1, 2]), depth=st.sampled_from([None, 2, 5]))
def test_bounds(data, rel_level, depth):
    qrels, run = data
    result = rankwise.evaluate(qrels, run, ALL_MEASURES, rel_level=rel_level, depth=depth)
    pq, agg = result.per_query, result.aggregate
    longest = max(len(docs) for docs in run.values())
    for key in FRACTION_MEASURES:
        assert 0.0 <= agg[key] <= 1.0, key
        for qid in result.query_ids:
            assert 0.0 <= pq[qid][key] <= 1.0 + 1e-12, (key, qid)
    for qid in result.query_ids:
        vals = pq[qid]
        assert -1.0 <= vals["KendallTau"] <= 1.0 or math.isnan(vals["KendallTau"])
        assert 1.0 <= vals["MeanRank"] <= min(longest, depth or longest) or math.isnan(vals["MeanRank"])
        assert vals["DCG@3"] >= 0.0
        # 2^g - 1 >= g for every grade g >= 1, and the uncut sum has more terms
        assert vals["DCG(gain=exp2)"] >= vals["DCG@3"] - 1e-12
        assert vals["NumRelRet"] <= min(vals["NumRel"], vals["NumRet"])
        # relations the definitions imply
        assert vals["P@1"] <= vals["HitRate@2"]
        assert vals["RR@2"] <= vals["RR"]
        if not math.isnan(vals["MeanRank"]):
            assert vals["RR"] == pytest.approx(1.0 / vals["MeanRank"])
        else:
            assert vals["RR"] == 0.0
    assert agg["NumQ"] == len(result.query_ids)
    assert not math.isnan(agg["DCG@3"]) and agg["DCG@3"] >= 0.0
    kt = agg["KendallTau"]
    assert math.isnan(kt) or -1.0 <= kt <= 1.0
    mr = agg["MeanRank"]
    assert math.isnan(mr) or mr >= 1.0


@SETTINGS
@given(data=qrels_and_run(), rel_level=st.sampled_from([1, 2]))
def test_aggregate_is_mean_sum_or_geometric_mean_of_per_query_values(data, rel_level):
    qrels, run = data
    result = rankwise.evaluate(qrels, run, ALL_MEASURES, rel_level=rel_level)
    for i, key in enumerate(result.keys):
        row = result.values[i]
        defined = row[~np.isnan(row)]
        assert result.undefined[key] == len(row) - len(defined)
        if key in COUNT_MEASURES:
            expected = float(defined.sum())
        elif not len(defined):
            assert math.isnan(result.aggregate[key])
            continue
        elif key == "GMAP":
            expected = math.exp(sum(math.log(max(v, 1e-5)) for v in defined) / len(defined))
        else:
            expected = sum(defined) / len(defined)
        assert result.aggregate[key] == pytest.approx(expected, rel=1e-12, abs=1e-15), key


@st.composite
def perfect_case(draw):
    """One query with R >= 1 and a run sorted by grade: every judged relevant doc is retrieved first.

    Scores strictly decrease from one grade to the next lower one (documents of equal grade may tie); judged
    non-relevant, negative-graded and unjudged documents follow, below every relevant one.
    """
    grades = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1, max_size=8))
    rel_level = draw(st.sampled_from([1, 2]))
    top = draw(st.sampled_from(DOCS))
    grades[top] = max(grades.get(top, 0), rel_level)  # R >= 1
    others = [d for d in DOCS if d not in grades]
    unjudged = draw(st.lists(st.sampled_from(others), unique=True, max_size=3)) if others else []
    tail = draw(st.lists(st.sampled_from([-5.0, -6.0, -7.0]), min_size=len(unjudged), max_size=len(unjudged)))
    # every document with a gain (grade >= 1) first, by grade, so nDCG is perfect at either rel_level
    run = {d: float(g) for d, g in grades.items() if g >= 1}
    below = [d for d, g in grades.items() if g < 1 and draw(st.booleans())]
    run.update({d: -1.0 - 0.5 * i for i, d in enumerate(below)})
    run.update(dict(zip(unjudged, tail)))
    return {"q": grades}, {"q": run}, rel_level


@SETTINGS
@given(case=perfect_case(), ties=st.sampled_from(["docno_desc", "docno_asc", "input_order"]))
def test_perfect_ranking_scores_one(case, ties):
    qrels, run, rel_level = case
    n_judged = len(qrels["q"])
    measures = ["nDCG", "nDCG@3", "nDCG(gain=exp2)@2", "AP", "RR", "P@1", "Rprec", "bpref", f"R@{n_judged}",
                "HitRate@1", "IPrec@1", "IPrec@0.5", "MeanRank"]  # fmt: skip
    result = rankwise.evaluate(qrels, run, measures, rel_level=rel_level, ties=ties)
    agg = result.aggregate
    for key in measures[:-1]:
        assert agg[key] == pytest.approx(1.0, rel=1e-12), key
    assert agg["MeanRank"] == 1.0


def _shuffled_frame(frame: pl.DataFrame, seed: int) -> pl.DataFrame:
    return frame.sample(fraction=1.0, shuffle=True, seed=seed)


def _frames(qrels: dict, run: dict) -> tuple[pl.DataFrame, pl.DataFrame]:
    q = [(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()]
    r = [(qid, d, s) for qid, docs in run.items() for d, s in docs.items()]
    qf = pl.DataFrame(q, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}, orient="row")
    rf = pl.DataFrame(r, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row")
    return qf, rf


@SETTINGS
@given(data=qrels_and_run(), seed=st.integers(0, 2**32 - 1), ties=st.sampled_from(["docno_desc", "docno_asc"]))
def test_row_order_does_not_matter_with_docno_ties(data, seed, ties):
    qrels, run = data
    qf, rf = _frames(qrels, run)
    base = rankwise.evaluate(qf, rf, ALL_MEASURES, ties=ties)
    shuffled = rankwise.evaluate(_shuffled_frame(qf, seed), _shuffled_frame(rf, seed + 1), ALL_MEASURES, ties=ties)
    assert shuffled.query_ids == base.query_ids
    _same(shuffled.values, base.values)
    _same(np.array(list(shuffled.aggregate.values())), np.array(list(base.aggregate.values())))


@SETTINGS
@given(data=qrels_and_run(min_queries=2), split=st.integers(1, 3), queries=st.sampled_from(["intersection", "run"]))
def test_splitting_queries_gives_the_same_per_query_values(data, split, queries):
    qrels, run = data
    full = rankwise.evaluate(qrels, run, ALL_MEASURES, queries=queries)
    ids = list(full.query_ids)
    assume(len(ids) >= 2)
    parts = [ids[: min(split, len(ids) - 1)], ids[min(split, len(ids) - 1) :]]
    per_query = {}
    for part in parts:
        sub_run = {q: run[q] for q in part}
        sub_qrels = {q: qrels[q] for q in part if q in qrels}
        if not sub_qrels:  # every query of this part is unjudged (queries="run"); qrels cannot be empty
            sub_qrels = {"unused-query": {"d": 1}}
        res = rankwise.evaluate(sub_qrels, sub_run, ALL_MEASURES, queries=queries)
        assert sorted(res.query_ids) == sorted(part)
        per_query.update(res.per_query)
    assert set(per_query) == set(ids)
    for qid in ids:
        np.testing.assert_array_equal(
            np.array([per_query[qid][k] for k in full.keys]), np.array([full.per_query[qid][k] for k in full.keys])
        )


def _write_trec(path: Path, qrels: dict, run: dict) -> tuple[Path, Path]:
    qpath, rpath = path / "qrels.txt", path / "run.txt"
    qpath.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    lines = []
    for q, docs in run.items():
        lines += [f"{q}\tQ0\t{d}\t{i + 1}\t{s!r}\tmyrun\n" for i, (d, s) in enumerate(docs.items())]
    rpath.write_text("".join(lines))
    return qpath, rpath


@SETTINGS
@given(data=qrels_and_run(), ties=st.sampled_from(["docno_desc", "docno_asc", "input_order"]))
def test_dict_polars_pandas_and_trec_file_agree(tmp_path_factory, data, ties):
    pytest.importorskip("pandas")
    qrels, run = data
    qf, rf = _frames(qrels, run)
    tmp = tmp_path_factory.mktemp("trec")
    qpath, rpath = _write_trec(tmp, qrels, run)
    sources = {
        "dict": (qrels, run),
        "polars": (qf, rf),
        "pandas": (qf.to_pandas(), rf.to_pandas()),
        "trec": (qpath, rpath),
        "trec-str": (str(qpath), str(rpath)),
    }
    results = {name: rankwise.evaluate(q, r, ALL_MEASURES, ties=ties) for name, (q, r) in sources.items()}
    base = results["dict"]
    for name, res in results.items():
        assert res.query_ids == base.query_ids, name
        _same(res.values, base.values)
    assert results["trec"].run_name == "myrun"
