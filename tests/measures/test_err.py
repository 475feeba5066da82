"""ERR@k and nERR@k (Chapelle et al., CIKM 2009) and gdeval's nDCG@k.

Proven three ways: hand-computed cascades; per query against gdeval.pl itself (the TREC Web track's script, run by
Perl through ir_measures' ``gdeval`` provider, which ships it in its wheel) on random runs with tied scores,
negative grades, unjudged documents and queries without a relevant document; and nERR against a direct
transcription of its definition (no installed provider computes a plain nERR: ir_measures' nERR-IA needs pyndeval,
cwl_eval's NERR8-11 need cwl-eval, neither installs here).

gdeval prints 5 decimals, so values are compared to 5e-6. Its tie order (score descending, then doc id descending
as text) is rankwise's default ``ties=docno_desc``; its nDCG@k is ``nDCG(gain=exp2)@k`` (2^g − 1 gains over
grades ≥ 1, ideal from every judged document); it prints only the run's queries with a relevant judgment
(ir_measures scores the others 0, as rankwise does by default). The ``gdeval`` dialect binds both (plain
``nDCG@k`` and ``ERR@k``) and evaluates the queries gdeval prints (``queries=common_relevant``); with
``queries="qrels"`` it gives ir_measures' provider's values, zeros and mean included.
"""

from __future__ import annotations

import math
import random
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

import rankwise
from rankwise.errors import InputError, MeasureError


def frames(qrels: dict[str, dict[str, float]], run: dict[str, dict[str, float]]) -> tuple[pl.DataFrame, ...]:
    """The nested dicts as rankwise's (query_id, doc_id, relevance / score) frames."""
    q = [(qid, doc, grade) for qid, docs in qrels.items() for doc, grade in docs.items()]
    r = [(qid, doc, score) for qid, docs in run.items() for doc, score in docs.items()]
    qrels_frame = pl.DataFrame(q, schema=["query_id", "doc_id", "relevance"], orient="row")
    return qrels_frame, pl.DataFrame(r, schema=["query_id", "doc_id", "score"], orient="row")


def err_by_definition(grades: list[float], k: int | None, max_grade: float = 4.0) -> float:
    """Chapelle et al.'s ERR written out: Σ_i R_i / i · Π_{j<i} (1 − R_j), R = (2^g − 1) / 2^max_grade for g > 0."""
    value, reach = 0.0, 1.0
    for i, g in enumerate(grades[:k] if k else grades, start=1):
        stop = (2.0**g - 1.0) / 2.0**max_grade if g > 0 else 0.0
        value += reach * stop / i
        reach *= 1.0 - stop
    return value


def test_err_hand_computed() -> None:
    """Grades 4, 0, 2 at ranks 1-3 with g_max = 4: r = 15/16, 0, 3/16.
    ERR@3 = 15/16 + (1/16)(3/16)/3 = 241/256; ERR@1 = 15/16; the ideal order 4, 2, 0 gives 15/16 + (1/16)(3/16)/2
    = 483/512, so nERR@3 = (241/256) / (483/512) = 482/483. With g_max = 5: r = 15/32, 0, 3/32 and
    ERR@3 = 15/32 + (17/32)(3/32)/3 = 497/1024."""
    qrels, run = frames({"1": {"a": 4, "b": 0, "c": 2}}, {"1": {"a": 3.0, "b": 2.0, "c": 1.0}})
    res = rankwise.evaluate(qrels, run, ["ERR@3", "ERR@1", "nERR@3", "ERR(max_grade=5)@3", "ERR", "nERR@1"])
    got = res.per_query["1"]
    assert got["ERR@3"] == pytest.approx(241 / 256, abs=1e-15)
    assert got["ERR"] == pytest.approx(241 / 256, abs=1e-15)
    assert got["ERR@1"] == pytest.approx(15 / 16, abs=1e-15)
    assert got["nERR@3"] == pytest.approx(482 / 483, abs=1e-15)
    assert got["nERR@1"] == pytest.approx(1.0, abs=1e-15)
    assert got["ERR(max_grade=5)@3"] == pytest.approx(497 / 1024, abs=1e-15)


def test_err_unjudged_negative_and_empty() -> None:
    """Unjudged documents and grades ≤ 0 stop no one; a query without a positive grade scores 0 (nERR too)."""
    qrels, run = frames(
        {"1": {"x": -1, "y": 1}, "2": {"z": 0}},
        {"1": {"x": 5.0, "u": 4.0, "y": 3.0}, "2": {"z": 1.0, "w": 0.5}},
    )
    res = rankwise.evaluate(qrels, run, ["ERR@10", "nERR@10"])
    assert res.per_query["1"]["ERR@10"] == pytest.approx((1 / 16) / 3, abs=1e-15)
    assert res.per_query["1"]["nERR@10"] == pytest.approx(1 / 3, abs=1e-15)
    assert res.per_query["2"] == {"ERR@10": 0.0, "nERR@10": 0.0}


def test_err_refuses_a_grade_above_max_grade() -> None:
    """A grade above g_max would make a stopping probability above 1: refused, naming the query and a fix."""
    qrels, run = frames({"q7": {"a": 6}}, {"q7": {"a": 1.0}})
    with pytest.raises(
        MeasureError, match=r"^ERR@10: query 'q7' has grade 6, above max_grade=4 .* ERR\(max_grade=6\)$"
    ):
        rankwise.evaluate(qrels, run, ["ERR@10"])
    assert rankwise.evaluate(qrels, run, ["ERR(max_grade=6)@10"]).per_query["q7"]["ERR(max_grade=6)@10"] == (
        pytest.approx(63 / 64)
    )


@pytest.mark.parametrize("text", ["ERR(max_grade=0)@5", "ERR(max_grade=-1)", "nERR(max_grade=x)@5"])
def test_err_max_grade_must_be_positive(text: str) -> None:
    with pytest.raises(MeasureError, match="max_grade"):
        rankwise.parse_measure(text)


def random_case(rng: random.Random) -> tuple[dict, dict]:
    """Numeric query ids (gdeval needs them), grades -1..4, many tied scores, unjudged and short runs, queries
    without a relevant document."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(rng.randint(1, 6)):
        qid = str(100 + q)
        docs = [f"d{rng.randint(0, 40)}" for _ in range(rng.randint(1, 25))]
        qrels[qid] = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3, 4]) for d in docs}
        if rng.random() < 0.15:
            qrels[qid] = {d: min(g, 0) for d, g in qrels[qid].items()}
        pool = list(qrels[qid]) + [f"u{i}" for i in range(rng.randint(0, 8))]
        shown = rng.sample(pool, rng.randint(1, len(pool)))
        run[qid] = {d: float(rng.randint(0, 6)) for d in shown}
    return qrels, run


def test_nerr_by_definition() -> None:
    """nERR@k = ERR@k of the run / ERR@k of the judged documents sorted by grade, for random cases."""
    rng = random.Random(7)
    for _ in range(40):
        qrels, run = random_case(rng)
        k = rng.choice([1, 3, 5, 10, 20])
        res = rankwise.evaluate(*frames(qrels, run), [f"nERR@{k}", f"ERR@{k}"])
        for qid in res.query_ids:
            by_doc_desc = sorted(run[qid], reverse=True)  # ties: doc id descending, as text
            ranked = sorted(by_doc_desc, key=lambda d: -run[qid][d])
            grades = [qrels[qid].get(d, 0) for d in ranked]
            ideal = err_by_definition(sorted(qrels[qid].values(), reverse=True), k)
            expected = err_by_definition(grades, k) / ideal if ideal else 0.0
            assert res.per_query[qid][f"ERR@{k}"] == pytest.approx(err_by_definition(grades, k), abs=1e-12)
            assert res.per_query[qid][f"nERR@{k}"] == pytest.approx(expected, abs=1e-12)


needs_gdeval = pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")


@needs_gdeval
@pytest.mark.parametrize("seed", range(30))
def test_err_and_ndcg_against_gdeval(seed: int) -> None:
    """ERR@k and nDCG(gain=exp2)@k per query equal gdeval.pl's err@k and ndcg@k (run by Perl via ir_measures)."""
    ir_measures = pytest.importorskip("ir_measures")
    gdeval = ir_measures.providers.registry["gdeval"]
    if not gdeval.is_available():
        pytest.skip("ir_measures' gdeval provider is not available")
    rng = random.Random(seed)
    qrels, run = random_case(rng)
    k = rng.choice([1, 2, 5, 10, 20])
    asked = [ir_measures.ERR @ k, ir_measures.nDCG(dcg="exp-log2") @ k]
    theirs = {(m.query_id, str(m.measure)): m.value for m in gdeval.iter_calc(asked, qrels, run)}
    res = rankwise.evaluate(*frames(qrels, run), [f"ERR@{k}", f"nDCG(gain=exp2)@{k}"])
    assert {qid for qid, _ in theirs} <= set(qrels)
    ndcg_key = next(key for _, key in theirs if key.startswith("nDCG"))
    for qid in res.query_ids:  # gdeval prints no line for a query without a relevant document: ir_measures gives 0
        ours = res.per_query[qid]
        assert math.isclose(ours[f"ERR@{k}"], theirs[(qid, f"ERR@{k}")], abs_tol=5e-6 + 1e-12), qid
        assert math.isclose(ours[f"nDCG(gain=exp2)@{k}"], theirs[(qid, ndcg_key)], abs_tol=5e-6 + 1e-12), qid
        if not any(g > 0 for g in qrels[qid].values()):
            assert ours == {f"ERR@{k}": 0.0, f"nDCG(gain=exp2)@{k}": 0.0}


def gdeval_script() -> Path:
    """gdeval.pl as ir_measures ships it (its ``gdeval`` provider runs this file with Perl)."""
    ir_measures = pytest.importorskip("ir_measures")
    return Path(ir_measures.__file__).parent / "bin" / "gdeval.pl"


def write_trec(tmp_path: Path, qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> tuple[Path, Path]:
    """The case as TREC files; run lines shuffled across queries, their rank column a plain counter."""
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    lines = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    random.Random(len(lines)).shuffle(lines)
    run_path.write_text("".join(f"{q} Q0 {d} {i} {s} sys\n" for i, (q, d, s) in enumerate(lines, start=1)))
    return qrels_path, run_path


def run_gdeval(qrels_path: Path, run_path: Path, k: int) -> dict[str, tuple[float, float]]:
    """gdeval.pl's own output: {topic: (ndcg@k, err@k)} for every topic it prints."""
    out = subprocess.run(
        ["perl", str(gdeval_script()), str(qrels_path), str(run_path), str(k)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    assert out[0] == f"runid,topic,ndcg@{k},err@{k}"
    rows = [line.split(",") for line in out[1:] if line]
    return {topic: (float(ndcg), float(err)) for _, topic, ndcg, err in rows}


def random_case_with_missing_queries(rng: random.Random) -> tuple[dict, dict]:
    """:func:`random_case` plus a query only the run has and, sometimes, a judged query the run lacks."""
    qrels, run = random_case(rng)
    run["999"] = {f"d{i}": float(rng.randint(0, 3)) for i in range(rng.randint(1, 6))}
    if len(run) > 2 and rng.random() < 0.6:
        del run[rng.choice(sorted(q for q in run if q != "999"))]
    return qrels, run


@needs_gdeval
@pytest.mark.parametrize("seed", range(25))
def test_gdeval_dialect_equals_gdeval_pl_and_its_ir_measures_provider(seed: int, tmp_path: Path) -> None:
    """Under ``dialect="gdeval"`` the plain names nDCG@k and ERR@k are gdeval.pl's ndcg@k and err@k, on the very
    queries it prints (the run's queries with a judgment > 0) and with their mean; with ``queries="qrels"`` (-c)
    they are ir_measures' gdeval provider's values, which score every judged query (0 where gdeval prints none)."""
    ir_measures = pytest.importorskip("ir_measures")
    rng = random.Random(1000 + seed)
    qrels, run = random_case_with_missing_queries(rng)
    k = rng.choice([1, 2, 3, 5, 10, 20])
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    printed = run_gdeval(qrels_path, run_path, k)
    names = [f"nDCG@{k}", f"ERR@{k}"]

    relevant_in_run = {q for q in run if any(g > 0 for g in qrels.get(q, {}).values())}
    if not relevant_in_run:  # gdeval prints its header alone; rankwise has no query to evaluate and says so
        assert printed == {}
        with pytest.raises(InputError, match="no query has a relevant document"):
            rankwise.evaluate(qrels_path, run_path, names, dialect="gdeval")
        return
    ours = rankwise.evaluate(qrels_path, run_path, names, dialect="gdeval")
    assert set(ours.query_ids) == set(printed) == relevant_in_run
    for qid, (ndcg, err) in printed.items():
        assert math.isclose(ours.per_query[qid][names[0]], ndcg, abs_tol=5e-6 + 1e-12), qid
        assert math.isclose(ours.per_query[qid][names[1]], err, abs_tol=5e-6 + 1e-12), qid
    if printed:  # the original gdeval.pl's amean: over the printed topics
        assert math.isclose(ours.aggregate[names[0]], sum(v[0] for v in printed.values()) / len(printed), abs_tol=5e-6)
        assert math.isclose(ours.aggregate[names[1]], sum(v[1] for v in printed.values()) / len(printed), abs_tol=5e-6)

    provider = ir_measures.providers.registry["gdeval"]
    asked = [ir_measures.nDCG(dcg="exp-log2") @ k, ir_measures.ERR @ k]
    evaluator = provider.evaluator(asked, qrels)
    theirs = {(m.query_id, i): m.value for m in evaluator.iter_calc(run) for i, a in enumerate(asked) if m.measure == a}
    filled = rankwise.evaluate(qrels_path, run_path, names, dialect="gdeval", queries="qrels")
    assert set(filled.query_ids) == set(qrels) == {qid for qid, _ in theirs}
    for (qid, i), value in theirs.items():
        assert math.isclose(filled.per_query[qid][names[i]], value, abs_tol=5e-6 + 1e-12), (qid, names[i])
    means = evaluator.calc_aggregate(run)
    for i, measure in enumerate(asked):
        assert math.isclose(filled.aggregate[names[i]], means[measure], abs_tol=5e-6)


def test_gdeval_dialect_binding() -> None:
    """What the dialect binds, by hand: one query of grades 2, 0, 1 (ranked a, b, c) and an unranked grade-1 doc,
    another without a relevant judgment. nDCG@3 = (3 + 1/log2(4)) / (3 + 1/log2(3) + 1/log2(4)); ERR@3 with
    r = 3/16, 0, 1/16: 3/16 + (13/16)(1/16)/3. The second query is left out, and counted in a note."""
    qrels = {"1": {"a": 2, "b": 0, "c": 1, "z": 1}, "2": {"x": 0, "y": -1}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}, "2": {"x": 1.0}}
    result = rankwise.evaluate(qrels, run, ["nDCG@3", "ERR@3"], dialect="gdeval")
    assert result.query_ids == ("1",)
    assert result.per_query["1"]["nDCG@3"] == pytest.approx(
        (3 + 1 / math.log2(4)) / (3 + 1 / math.log2(3) + 1 / math.log2(4)), abs=1e-15
    )
    assert result.per_query["1"]["ERR@3"] == pytest.approx(3 / 16 + (13 / 16) * (1 / 16) / 3, abs=1e-15)
    assert "1 judged query has no relevant document and was not evaluated: 2" in result.notes()
    gdeval = rankwise.get_dialect("gdeval")
    assert str(gdeval.bind(rankwise.parse_measure("nDCG@5"), 1)) == "nDCG(gain=exp2)@5"
    assert str(gdeval.bind(rankwise.parse_measure("ERR@5"), 1)) == "ERR(max_grade=4)@5"
