"""Real-valued grades (an LLM judge's 0.73): read with ``load_qrels(..., grades="real")``, kept as float64 through the
aligned form, accepted by the measures that define them and refused, in one line, by those that threshold grades
without an explicit ``rel``.

Proven against scikit-learn's ``ndcg_score`` (which takes real-valued relevance), against ERR written out, by hand,
and by the engine change itself: integer grades read as real numbers give every measure the same values.
"""

from __future__ import annotations

import json
import random

import numpy as np
import polars as pl
import pytest
from test_err import err_by_definition, frames

import rankwise
from conftest import run_cli
from rankwise.errors import InputError, MeasureError
from rankwise.io import load_qrels


def real_case(rng: random.Random) -> tuple[dict, dict]:
    """Real grades in [0, 3) (some 0, some negative), distinct scores, unjudged documents."""
    qrels: dict[str, dict[str, float]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(rng.randint(1, 5)):
        qid = f"q{q}"
        docs = {f"d{rng.randint(0, 30)}" for _ in range(rng.randint(1, 15))}
        qrels[qid] = {d: rng.choice([0.0, -0.5, round(rng.uniform(0, 3), 3)]) for d in docs}
        pool = sorted(qrels[qid]) + [f"u{i}" for i in range(rng.randint(0, 5))]
        shown = rng.sample(pool, rng.randint(1, len(pool)))
        scores = rng.sample(range(1000), len(shown))
        run[qid] = {d: float(s) for d, s in zip(shown, scores)}
    return qrels, run


def test_hand_computed() -> None:
    """Ranking a (0.73), b (0), c (1.5): DCG@3 = 0.73 + 1.5/2 = 1.48, ideal 1.5 + 0.73/log2(3), so nDCG@3 =
    1.48 / (1.5 + 0.73/log2 3). ERR(max_grade=2)@3: r = (2^0.73 − 1)/4, 0, (2^1.5 − 1)/4;
    ERR = r_a + (1 − r_a) r_c / 3."""
    qrels = pl.DataFrame({"query_id": ["1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [0.73, 0.0, 1.5]})
    run = pl.DataFrame({"query_id": ["1"] * 4, "doc_id": ["a", "b", "c", "u"], "score": [3.0, 2.0, 1.0, 0.5]})
    res = rankwise.evaluate(load_qrels(qrels, grades="real"), run, ["nDCG(rel=0)@3", "ERR(max_grade=2)@3", "Judged@4"])
    got = res.per_query["1"]
    assert got["nDCG(rel=0)@3"] == pytest.approx(1.48 / (1.5 + 0.73 / np.log2(3)), abs=1e-15)
    r_a, r_c = (2**0.73 - 1) / 4, (2**1.5 - 1) / 4
    assert got["ERR(max_grade=2)@3"] == pytest.approx(r_a + (1 - r_a) * r_c / 3, abs=1e-15)
    assert got["Judged@4"] == 0.75


def test_ndcg_against_scikit_learn() -> None:
    """nDCG(rel=0, universe=retrieved)@k = sklearn.metrics.ndcg_score on the ranked documents' real grades
    (unjudged: 0; negative grades clipped to 0, which scikit-learn refuses)."""
    ndcg_score = pytest.importorskip("sklearn.metrics").ndcg_score
    rng = random.Random(3)
    for _ in range(40):
        qrels, run = real_case(rng)
        k = rng.choice([1, 3, 5, 10])
        table = load_qrels(frames(qrels, run)[0], grades="real")
        res = rankwise.evaluate(table, frames(qrels, run)[1], [f"nDCG(rel=0,universe=retrieved)@{k}"])
        for qid in res.query_ids:
            docs = list(run[qid])
            truth = [[max(qrels[qid].get(d, 0.0), 0.0) for d in docs]]
            if len(docs) < 2 or not any(truth[0]):
                continue  # scikit-learn needs two documents; a query without gain is 0 in both
            expected = ndcg_score(truth, [[run[qid][d] for d in docs]], k=k)
            assert res.per_query[qid][f"nDCG(rel=0,universe=retrieved)@{k}"] == pytest.approx(expected, abs=1e-12)


def test_err_with_real_grades_by_definition() -> None:
    rng = random.Random(5)
    for _ in range(40):
        qrels, run = real_case(rng)
        k = rng.choice([1, 3, 10])
        res = rankwise.evaluate(load_qrels(frames(qrels, run)[0], grades="real"), frames(qrels, run)[1],
                                [f"ERR(max_grade=3)@{k}"])  # fmt: skip
        for qid in res.query_ids:
            ranked = sorted(run[qid], key=lambda d: -run[qid][d])
            expected = err_by_definition([qrels[qid].get(d, 0.0) for d in ranked], k, max_grade=3.0)
            assert res.per_query[qid][f"ERR(max_grade=3)@{k}"] == pytest.approx(expected, abs=1e-12)


EXPLICIT = ["P(rel=1)@5", "R(rel=2)@10", "AP(rel=1)", "nDCG(rel=1)@10", "nDCG(rel=0,gain=exp2)", "DCG(rel=1)@5",
            "RR(rel=1)", "bpref(rel=1)", "infAP(rel=1)", "Rprec(rel=1)", "binG(rel=1)", "RBP", "RBPResidual",
            "ERR@10", "nERR@5", "Judged@10", "Unjudged@10", "KendallTau", "NumRel(rel=1)", "IPrecAvg(rel=1)",
            "NumNonRelJudgedRet(rel=2)", "AUC(rel=1)"]  # fmt: skip


def test_integer_grades_read_as_real_give_the_same_values() -> None:
    """The float64 path through the aligned form (unjudged rows as −2^63 in float) changes no value."""
    rng = random.Random(11)
    for _ in range(20):
        qrels: dict[str, dict[str, int]] = {}
        run: dict[str, dict[str, float]] = {}
        for q in range(rng.randint(1, 5)):
            docs = {f"d{rng.randint(0, 30)}" for _ in range(rng.randint(1, 15))}
            qrels[f"q{q}"] = {d: rng.choice([-1, 0, 0, 1, 2, 3, 4]) for d in docs}
            pool = sorted(qrels[f"q{q}"]) + [f"u{i}" for i in range(4)]
            run[f"q{q}"] = {d: float(rng.randint(0, 5)) for d in rng.sample(pool, rng.randint(1, len(pool)))}
        qrels_frame, run_frame = frames(qrels, run)
        as_int = rankwise.evaluate(qrels_frame, run_frame, EXPLICIT)
        real = qrels_frame.with_columns(pl.col("relevance").cast(pl.Float64))
        as_real = rankwise.evaluate(load_qrels(real, grades="real"), run_frame, EXPLICIT)
        for qid, values in as_int.per_query.items():  # NaN (an undefined KendallTau) equals NaN here
            assert np.array_equal(list(values.values()), list(as_real.per_query[qid].values()), equal_nan=True), qid
            assert list(values) == list(as_real.per_query[qid])


@pytest.mark.parametrize("measure", ["P@5", "nDCG@10", "AP", "bpref", "R@10"])
def test_thresholded_measures_need_rel(measure: str) -> None:
    qrels = load_qrels({"q": {"a": 0.73}}, grades="real")
    name = measure.split("@")[0]
    with pytest.raises(MeasureError, match=rf"^{name}.*: the grades are real numbers and {name} thresholds them: "
                                           rf"give rel explicitly, e\.g\. {name}\(rel=1\)"):  # fmt: skip
        rankwise.evaluate(qrels, {"q": {"a": 1.0}}, [measure])


def test_grade_map_refused() -> None:
    qrels = load_qrels({"q": {"a": 0.73}}, grades="real")
    with pytest.raises(MeasureError, match=r"grade map gives gains to integer grades"):
        rankwise.evaluate(qrels, {"q": {"a": 1.0}}, ["nDCG(rel=1,gain={1:3})@10"])


def test_bad_real_grades() -> None:
    with pytest.raises(InputError, match=r"^qrels DataFrame row 1: relevance grade nan for query 'q' doc 'b' is not"):
        load_qrels(pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [0.5, float("nan")]}),
                   grades="real")  # fmt: skip
    with pytest.raises(InputError, match=r"qrels.txt: no such file"):
        load_qrels("qrels.txt", grades="real")
    with pytest.raises(InputError, match=r"give threshold or grades='real'"):
        load_qrels({"q": {"a": 0.5}}, threshold=0.5, grades="real")
    # Without grades="real", a fractional grade is refused as before.
    with pytest.raises(InputError, match=r"is not an integer"):
        load_qrels({"q": {"a": 0.73}})


def test_real_grades_from_files_and_the_command_line(tmp_path) -> None:
    """TREC qrels, CSV and parquet files with real grades give the values of the same grades from a DataFrame;
    a bad grade names the file's line; without grades='real' a fractional grade says how to read it."""
    rng = random.Random(5)
    qrels, run = real_case(rng)
    qrels_frame, run_frame = frames(qrels, run)
    measures = ["nDCG(rel=0)@5", "ERR(max_grade=3)@5", "DCG(rel=0)@10"]
    expected = rankwise.evaluate(load_qrels(qrels_frame, grades="real"), run_frame, measures)
    trec = tmp_path / "qrels.txt"
    trec.write_text("".join(f"{q} 0 {d} {g!r}\n" for q, docs in qrels.items() for d, g in docs.items()))
    csv, parquet = tmp_path / "qrels.csv", tmp_path / "qrels.parquet"
    qrels_frame.write_csv(csv)
    qrels_frame.write_parquet(parquet)
    for path in (trec, csv, parquet):
        got = rankwise.evaluate(path, run_frame, measures, grades="real")
        assert got.per_query == expected.per_query, path
    runs = tmp_path / "run.txt"
    runs.write_text("".join(f"{q} Q0 {d} 1 {s!r} r\n" for q, docs in run.items() for d, s in docs.items()))
    code, out, err = run_cli("evaluate", str(trec), str(runs), "-m", measures[0], "--grades", "real", "--format",
                             "json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["aggregate"][measures[0]] == pytest.approx(expected.aggregate[measures[0]], abs=1e-15)
    bad = tmp_path / "bad.txt"
    bad.write_text("q 0 a 0.5\nq 0 b high\n")
    with pytest.raises(InputError, match=r"bad.txt:2: relevance grade 'high' is not a number"):
        rankwise.evaluate(bad, runs, measures, grades="real")
    code, _, err = run_cli("evaluate", str(trec), str(runs), "-m", "nDCG@5")
    assert code == 2 and "is not an integer (real-valued grades: grades='real', --grades real" in err
    with pytest.raises(rankwise.RankwiseError, match="give one of them"):
        rankwise.evaluate(trec, runs, measures, grades="real", threshold=0.5)
