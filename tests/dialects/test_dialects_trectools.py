"""The ``trectools`` dialect: trectools 0.0.50's ``TrecEval`` itself, per query and in aggregate.

trectools reads TREC files with pandas (``TrecQrel`` drops grades below 0, ``TrecRun`` sorts by score, then doc id
ascending) and each ``get_*`` method divides the sum of its per-query values by the number of the run's queries
(``get_unjudged``: of the judged queries). Its defaults (``trec_eval=True``) re-sort ties by doc id descending, as
trec_eval does, except in ``get_ndcg`` and ``get_rbp``, which keep the loaded order. Every case below is random
(tied scores, negative grades, unjudged documents, queries missing on either side, queries without a relevant
document) and written to files that both libraries read. Where trectools reports NaN, or no row, for a query whose
value is 0 (see the dialect's known bugs), the test checks that rankwise gives that 0 and the same mean.

Also run: ir_measures' ``trectools`` provider (``trec_eval=False``, tied documents in the order given, every judged
query scored), equal to the dialect with ``ties=input_order`` and ``queries=qrels`` where it reports a number.
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import rankwise
from rankwise import get_dialect, parse_measure

trectools = pytest.importorskip("trectools")
pd = pytest.importorskip("pandas")

pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.sort_values")  # trectools, pandas 3

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


def random_case(rng: random.Random, *, tied: bool = True) -> tuple[Qrels, Run]:
    """Up to six queries: grades -1..3 (some queries all non-relevant or all negative), documents the qrels do not
    judge, queries only the qrels have and queries only the run has; scores 0..4 (many ties) or all distinct."""
    qrels: Qrels = {}
    run: Run = {}
    for q in range(rng.randint(2, 6)):
        qid = f"q{q}"
        side = rng.choices(["both", "qrels", "run"], weights=[6, 1, 1])[0]
        if side != "run":
            docs = {f"d{rng.randint(0, 30)}" for _ in range(rng.randint(1, 14))}
            qrels[qid] = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in sorted(docs)}
            if rng.random() < 0.15:
                qrels[qid] = {d: min(g, 0) for d, g in qrels[qid].items()}
        if side != "qrels":
            pool = [*qrels.get(qid, {}), *(f"u{i}" for i in range(rng.randint(1, 8)))]
            shown = rng.sample(pool, rng.randint(1, len(pool)))
            run[qid] = {d: float(rng.randint(0, 4)) if tied else rng.random() for d in shown}
    qrels.setdefault("q9", {"d1": 1, "d2": 0})  # neither file may be empty (trectools reads an empty file as NaN)
    run.setdefault("q8", {"u1": 1.0})
    return qrels, run


def write_trec(tmp_path: Path, qrels: Qrels, run: Run, rng: random.Random) -> tuple[Path, Path]:
    """Both as TREC files; the run's lines shuffled across queries, their rank column a plain counter."""
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    lines = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    rng.shuffle(lines)
    run_path.write_text("".join(f"{q} Q0 {d} {i} {s!r} sys\n" for i, (q, d, s) in enumerate(lines, start=1)))
    return qrels_path, run_path


def trec_eval_of(qrels_path: Path, run_path: Path) -> Any:
    """trectools' evaluator on the two files, read by trectools' own readers."""
    return trectools.TrecEval(trectools.TrecRun(str(run_path)), trectools.TrecQrel(str(qrels_path)))


def values(frame: Any) -> dict[str, float]:
    """A trectools per-query result (a one-column DataFrame or a Series, indexed by query) as {query: value}."""
    series = frame.iloc[:, 0] if frame.ndim == 2 else frame
    return {str(qid): float(value) for qid, value in series.items()}


def mean_of(value: Any) -> float:
    """A trectools mean (a NumPy scalar, or NaN)."""
    return float(value)


def assert_per_query(theirs: dict[str, float], ours: dict[str, float], run: Run, name: str) -> None:
    """trectools' values equal rankwise's; a run query trectools leaves out or reports as NaN is 0 in rankwise (a
    documented known bug), and a NaN row for a query outside the run (trectools aligns on the qrels) is not one."""
    for qid in run:
        value = theirs.get(qid, math.nan)
        expected = 0.0 if math.isnan(value) else value
        assert math.isclose(ours[qid], expected, rel_tol=1e-12, abs_tol=1e-12), (name, qid, value, ours[qid])
    for qid, value in theirs.items():
        assert qid in run or math.isnan(value), (name, qid, value)


# (rankwise name under the dialect, trectools call, policy overrides): the measures whose trectools values are
# exactly the dialect's on tied runs with files read by trectools.
Call = Callable[[Any, bool], Any]
ASC = {"ties": "docno_asc"}  # TrecRun's order on ties: what get_ndcg, get_rbp and trec_eval=False rank


def tied_measures(k: int) -> list[tuple[str, Call, dict[str, str]]]:
    return [
        (f"P@{k}", lambda te, pq: te.get_precision(depth=k, per_query=pq), {}),
        (f"R@{k}", lambda te, pq: te.get_recall(depth=k, per_query=pq), {}),
        (f"AP@{k}", lambda te, pq: te.get_map(depth=k, per_query=pq), {}),
        ("AP", lambda te, pq: te.get_map(per_query=pq), {}),  # depth=1000: the runs are shorter
        (f"RR@{k}", lambda te, pq: te.get_reciprocal_rank(depth=k, per_query=pq), {}),
        ("RR", lambda te, pq: te.get_reciprocal_rank(per_query=pq), {}),
        # get_ndcg keeps TrecRun's order (doc id ascending on ties): the caveat's --ties docno_asc
        (f"nDCG@{k}", lambda te, pq: te.get_ndcg(depth=k, per_query=pq), ASC),
        (f"nDCG(gain=exp2)@{k}", lambda te, pq: te.get_ndcg(depth=k, per_query=pq, trec_eval=False), ASC),
        (f"P@{k}", lambda te, pq: te.get_precision(depth=k, per_query=pq, trec_eval=False), ASC),
        (f"AP@{k}", lambda te, pq: te.get_map(depth=k, per_query=pq, trec_eval=False), ASC),
        ("NumRet", lambda te, pq: te.get_retrieved_documents(per_query=pq), {}),
        ("NumRelRet", lambda te, pq: te.get_relevant_retrieved_documents(per_query=pq), {}),
    ]


@pytest.mark.parametrize("seed", range(40))
def test_trectools_dialect_equals_trec_eval_class_per_query_and_mean(seed: int, tmp_path: Path) -> None:
    """P, R, AP, RR, nDCG (linear gains, and 2^g − 1 with trec_eval=False), NumRet and NumRelRet: the dialect's
    values on the run's queries (judged or not) and its means are trectools', at cutoffs 1 to 10 and uncut."""
    rng = random.Random(seed)
    qrels, run = random_case(rng)
    k = rng.choice([1, 2, 3, 5, 10])
    qrels_path, run_path = write_trec(tmp_path, qrels, run, rng)
    te = trec_eval_of(qrels_path, run_path)
    for name, call, policies in tied_measures(k):
        ours = rankwise.evaluate(qrels_path, run_path, [name], dialect="trectools", **policies)
        assert set(ours.query_ids) == set(run), name  # the run's queries, judged or not
        assert_per_query(values(call(te, True)), {q: v[name] for q, v in ours.per_query.items()}, run, name)
        theirs = mean_of(call(te, False))
        assert math.isclose(ours.aggregate[name], theirs, rel_tol=1e-12, abs_tol=1e-12), (name, policies)


@pytest.mark.parametrize("seed", range(40))
def test_trectools_counts_relevant_documents_and_unjudged_over_the_judged_queries(seed: int, tmp_path: Path) -> None:
    """NumRel sums R over the qrels' queries and Unjudged@k divides the run's sum by the number of judged queries:
    the dialect evaluates both over the judged queries, which gives trectools' mean unless the run has a query
    without any judgment (trectools adds its share) or the qrels a query whose grades are all negative (trectools'
    reader drops it, so it does not count)."""
    rng = random.Random(500 + seed)
    qrels, run = random_case(rng)
    k = rng.choice([1, 2, 3, 5, 10])
    qrels_path, run_path = write_trec(tmp_path, qrels, run, rng)
    te = trec_eval_of(qrels_path, run_path)
    ours = rankwise.evaluate(qrels_path, run_path, ["NumRel", f"Unjudged@{k}"], dialect="trectools")

    relevant = {qid: sum(g > 0 for g in docs.values()) for qid, docs in qrels.items()}
    # per query, a measure averaged over other queries than the rest is NaN outside its own
    assert {q: v["NumRel"] for q, v in ours.per_query.items() if not math.isnan(v["NumRel"])} == relevant
    assert values(te.get_relevant_documents(per_query=True)) == {
        qid: n for qid, n in relevant.items() if any(g >= 0 for g in qrels[qid].values())
    }
    assert ours.aggregate["NumRel"] == mean_of(te.get_relevant_documents()) == sum(relevant.values())

    unjudged = values(te.get_unjudged(depth=k, per_query=True))
    assert set(unjudged) == set(run)
    for qid in set(run) & set(qrels):
        assert math.isclose(ours.per_query[qid][f"Unjudged@{k}"], unjudged[qid], abs_tol=1e-12), qid
    for qid in set(qrels) - set(run):  # judged, not retrieved: an empty ranking
        assert ours.per_query[qid][f"Unjudged@{k}"] == 0.0
    run_only = sum(min(len(run[q]), k) / k for q in set(run) - set(qrels))
    read_by_trectools = sum(any(g >= 0 for g in docs.values()) for docs in qrels.values())
    theirs = mean_of(te.get_unjudged(depth=k))
    assert math.isclose(theirs * read_by_trectools, ours.aggregate[f"Unjudged@{k}"] * len(qrels) + run_only)
    if not run_only and read_by_trectools == len(qrels):
        assert math.isclose(ours.aggregate[f"Unjudged@{k}"], theirs, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_trectools_bpref_and_its_zero_without_judged_nonrelevant(seed: int, tmp_path: Path) -> None:
    """bpref equals trectools' wherever the query has a judged non-relevant document; without one trectools scores
    0 (min(R, N) = 0 makes each term 0/0, which its sum drops) where trec_eval and rankwise score each relevant
    document retrieved 1, and trectools' mean is lower by exactly those values over the run's queries."""
    rng = random.Random(900 + seed)
    qrels, run = random_case(rng)
    qrels_path, run_path = write_trec(tmp_path, qrels, run, rng)
    te = trec_eval_of(qrels_path, run_path)
    ours = rankwise.evaluate(qrels_path, run_path, ["bpref"], dialect="trectools")
    theirs = values(te.get_bpref(per_query=True))
    missed = 0.0
    for qid in run:
        value = ours.per_query[qid]["bpref"]
        no_nonrelevant = not any(g == 0 for g in qrels.get(qid, {}).values())
        if no_nonrelevant and value > 0:
            assert theirs[qid] == 0.0, qid  # the known bug
            missed += value
        else:
            assert math.isclose(value, theirs.get(qid, 0.0), abs_tol=1e-12), qid
    mean = mean_of(te.get_bpref())
    assert math.isclose(ours.aggregate["bpref"] - missed / len(run), mean, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_trectools_gmap_where_trectools_defines_it(seed: int, tmp_path: Path) -> None:
    """get_geometric_map equals GMAP over the run's queries whenever it is a number; it is NaN exactly when some
    per-query AP is NaN: a run query without a relevant judgment, or a judged query with one missing from the run."""
    rng = random.Random(1300 + seed)
    qrels, run = random_case(rng)
    qrels_path, run_path = write_trec(tmp_path, qrels, run, rng)
    te = trec_eval_of(qrels_path, run_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy's gmean on NaN
        theirs = float(te.get_geometric_map())
    has_relevant = {q for q, docs in qrels.items() if any(g > 0 for g in docs.values())}
    undefined = bool(set(run) - has_relevant) or bool(has_relevant - set(run))
    assert math.isnan(theirs) == undefined
    if not undefined:
        ours = rankwise.evaluate(qrels_path, run_path, ["GMAP"], dialect="trectools")
        assert math.isclose(ours.aggregate["GMAP"], theirs, rel_tol=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_trectools_rbp_on_runs_without_ties(seed: int, tmp_path: Path) -> None:
    """get_rbp's defaults (p = 0.8, binary gains) are the dialect's RBP on runs without tied scores (trectools
    averages the rank weights of tied documents, a convention rankwise's RBP has no parameter for); its mean is NaN
    when no run query retrieves a relevant document, where rankwise's is 0."""
    rng = random.Random(1700 + seed)
    qrels, run = random_case(rng, tied=False)
    qrels_path, run_path = write_trec(tmp_path, qrels, run, rng)
    te = trec_eval_of(qrels_path, run_path)
    ours = rankwise.evaluate(qrels_path, run_path, ["RBP"], dialect="trectools")
    per_query, _ = te.get_rbp(per_query=True)
    assert_per_query(values(per_query), {q: v["RBP"] for q, v in ours.per_query.items()}, run, "RBP")
    theirs, _ = te.get_rbp()
    if math.isnan(theirs):
        assert ours.aggregate["RBP"] == 0.0 and per_query.empty
    else:
        assert math.isclose(ours.aggregate["RBP"], theirs, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("seed", range(15))
def test_trectools_rbp_without_tie_averaging_on_tied_runs(seed: int, tmp_path: Path) -> None:
    """get_rbp(average_ties=False) ranks TrecRun's order (score, then doc id ascending): the dialect's RBP with
    ties=docno_asc, per query and in the mean, on runs with many tied scores."""
    rng = random.Random(1900 + seed)
    qrels, run = random_case(rng)
    qrels_path, run_path = write_trec(tmp_path, qrels, run, rng)
    te = trec_eval_of(qrels_path, run_path)
    ours = rankwise.evaluate(qrels_path, run_path, ["RBP"], dialect="trectools", ties="docno_asc")
    per_query, _ = te.get_rbp(per_query=True, average_ties=False)
    assert_per_query(values(per_query), {q: v["RBP"] for q, v in ours.per_query.items()}, run, "RBP")
    theirs, _ = te.get_rbp(average_ties=False)
    assert math.isclose(ours.aggregate["RBP"], 0.0 if math.isnan(theirs) else theirs, rel_tol=1e-12, abs_tol=1e-12)


def test_trectools_rbp_tie_groups_cross_queries_and_its_residual(tmp_path: Path) -> None:
    """The known bugs, pinned. q1 ranks a (non-relevant) then z (relevant, score 1.0); q2 ranks b (relevant, score
    1.0) then u (unjudged). trectools puts z and b in one tie group and gives both (0.2·0.8 + 0.2) / 2 = 0.18; RBP
    is 0.16 and 0.2. Its residual for q2 is u's weight 0.2·0.8 plus p^1000 for the tail, where trec_eval's adds
    p^|L| = 0.64: 0.8."""
    qrels_path, run_path = write_trec(
        tmp_path,
        {"q1": {"a": 0, "z": 1}, "q2": {"b": 1}},
        {"q1": {"a": 2.0, "z": 1.0}, "q2": {"b": 1.0, "u": 0.5}},
        random.Random(0),
    )
    te = trec_eval_of(qrels_path, run_path)
    rbp, residual = te.get_rbp(per_query=True)
    assert values(rbp) == pytest.approx({"q1": 0.18, "q2": 0.18}, abs=1e-15)
    ours = rankwise.evaluate(qrels_path, run_path, ["RBP", "RBPResidual"], dialect="trectools")
    assert {q: v["RBP"] for q, v in ours.per_query.items()} == pytest.approx({"q1": 0.16, "q2": 0.2}, abs=1e-15)
    assert values(residual)["q2"] == pytest.approx(0.16 + 0.8**1000, abs=1e-15)
    assert ours.per_query["q2"]["RBPResidual"] == pytest.approx(0.8, abs=1e-15)


@pytest.mark.parametrize("seed", range(25))
def test_trectools_remove_unjudged_is_judged_only(seed: int, tmp_path: Path) -> None:
    """removeUnjudged=True (unjudged and negative-graded documents taken out before the cut) is rankwise's
    judged_only policy (trec_eval -J) for P, R and nDCG."""
    rng = random.Random(2100 + seed)
    qrels, run = random_case(rng)
    k = rng.choice([1, 2, 3, 5])
    qrels_path, run_path = write_trec(tmp_path, qrels, run, rng)
    te = trec_eval_of(qrels_path, run_path)
    cases: list[tuple[str, Call, dict[str, str]]] = [
        (f"P@{k}", lambda te, pq: te.get_precision(depth=k, per_query=pq, removeUnjudged=True), {}),
        (f"R@{k}", lambda te, pq: te.get_recall(depth=k, per_query=pq, removeUnjudged=True), {}),
        (f"nDCG@{k}", lambda te, pq: te.get_ndcg(depth=k, per_query=pq, removeUnjudged=True), ASC),
    ]
    for name, call, policies in cases:
        ours = rankwise.evaluate(qrels_path, run_path, [name], dialect="trectools", judged_only=True, **policies)
        assert_per_query(values(call(te, True)), {q: v[name] for q, v in ours.per_query.items()}, run, name)
        assert math.isclose(ours.aggregate[name], mean_of(call(te, False)), rel_tol=1e-12, abs_tol=1e-12), name
    # get_reciprocal_rank ignores removeUnjudged (a known bug): the same as without it
    ignored = values(te.get_reciprocal_rank(per_query=True, removeUnjudged=True))
    assert ignored == values(te.get_reciprocal_rank(per_query=True))


def test_trectools_rprec_on_one_query_and_its_failures(tmp_path: Path) -> None:
    """get_rprec equals Rprec on a single query (random, with ties); it raises KeyError on a run query without
    judgments, and with pandas >= 3 (its groupby.apply drops the query column) it matches each query's top R
    documents against every query's relevant documents by doc id alone: wrong on two queries sharing doc ids."""
    rng = random.Random(4)
    for _ in range(25):
        qrels, run = random_case(rng)
        qid = rng.choice(sorted(set(qrels) & set(run)))
        qrels_path, run_path = write_trec(tmp_path, {qid: qrels[qid]}, {qid: run[qid]}, rng)
        te = trec_eval_of(qrels_path, run_path)
        ours = rankwise.evaluate(qrels_path, run_path, ["Rprec"], dialect="trectools")
        assert_per_query(values(te.get_rprec(per_query=True)), {qid: ours.per_query[qid]["Rprec"]}, {qid: {}}, "Rprec")
        assert math.isclose(ours.aggregate["Rprec"], mean_of(te.get_rprec()), abs_tol=1e-12)

    qrels_path, run_path = write_trec(tmp_path, {"1": {"a": 1}}, {"1": {"a": 1.0}, "2": {"b": 1.0}}, rng)
    with pytest.raises(KeyError):
        trec_eval_of(qrels_path, run_path).get_rprec(per_query=True)

    # q1: R = 1, its top document "a" is not relevant to q1 but is to q2 -> trec_eval: 0; q2: R = 1, "b" first: 0
    qrels = {"1": {"b": 1, "a": 0}, "2": {"a": 1, "b": 0}}
    qrels_path, run_path = write_trec(tmp_path, qrels, {"1": {"a": 2.0, "b": 1.0}, "2": {"b": 2.0, "a": 1.0}}, rng)
    ours = rankwise.evaluate(qrels_path, run_path, ["Rprec"], dialect="trectools")
    assert ours.per_query == {"1": {"Rprec": 0.0}, "2": {"Rprec": 0.0}}
    theirs = values(trec_eval_of(qrels_path, run_path).get_rprec(per_query=True))
    if int(pd.__version__.split(".")[0]) >= 3:
        assert theirs == {"1": 1.0, "2": 1.0}
    else:
        assert all(math.isnan(v) or v == 0.0 for v in theirs.values())


def test_trectools_default_depths_and_bpref_depth_over_judged_documents(tmp_path: Path) -> None:
    """trectools' methods cut at depth=1000 by default: on a 1,500-document ranking get_map() is AP with -M 1000
    (depth=1000), not AP; get_bpref(depth=d) keeps the first d judged documents, where -M d cuts the ranking."""
    rng = random.Random(11)
    docs = [f"d{i:04d}" for i in range(1500)]
    qrels = {"1": {d: 1 if rng.random() < 0.1 else 0 for d in rng.sample(docs, 600)}}
    run = {"1": {d: float(1500 - i) for i, d in enumerate(docs)}}
    qrels_path, run_path = write_trec(tmp_path, qrels, run, rng)
    te = trec_eval_of(qrels_path, run_path)
    theirs = mean_of(te.get_map())
    cut = rankwise.evaluate(qrels_path, run_path, ["AP"], dialect="trectools", depth=1000).aggregate["AP"]
    whole = rankwise.evaluate(qrels_path, run_path, ["AP"], dialect="trectools").aggregate["AP"]
    assert math.isclose(cut, theirs, rel_tol=1e-12) and not math.isclose(whole, theirs)

    # u1, u2 unjudged, then r relevant; one judged non-relevant n elsewhere. depth 2: trectools keeps r (the first
    # two judged documents are r alone) and scores 1; rankwise -M 2 keeps u1, u2 and scores 0.
    qrels_path, run_path = write_trec(tmp_path, {"1": {"r": 1, "n": 0}}, {"1": {"u1": 3.0, "u2": 2.0, "r": 1.0}}, rng)
    assert mean_of(trec_eval_of(qrels_path, run_path).get_bpref(depth=2)) == 1.0
    assert rankwise.evaluate(qrels_path, run_path, ["bpref"], dialect="trectools", depth=2).aggregate["bpref"] == 0.0


def test_trectools_reads_numeric_ids_as_numbers(tmp_path: Path) -> None:
    """pandas reads an all-numeric doc id column as integers, so "007" becomes "7" and ties are broken on "7" >
    "10" (descending); rankwise keeps the ids as text, "010" > "007". The caveat, pinned: P@1 differs."""
    qrels_path, run_path = write_trec(
        tmp_path, {"1": {"007": 1, "010": 0}}, {"1": {"007": 1.0, "010": 1.0}}, random.Random(0)
    )
    assert mean_of(trec_eval_of(qrels_path, run_path).get_precision(depth=1)) == 1.0
    assert rankwise.evaluate(qrels_path, run_path, ["P@1"], dialect="trectools").aggregate["P@1"] == 0.0


def test_trectools_binding() -> None:
    """What the dialect binds, and where it differs from trec_eval by hand: q2 is only in the run (trec_eval leaves
    it out; trectools scores it 0), so P@2 = (1/2 + 0) / 2; RBP = (1 − 0.8)·1 for q1's relevant first document."""
    dialect = get_dialect("trectools")
    assert str(dialect.bind(parse_measure("RBP"), 1)) == "RBP(p=0.8,gain=binary)"
    assert str(dialect.bind(parse_measure("RBPResidual"), 1)) == "RBPResidual(p=0.8)"
    assert dialect.policies == {"queries": "run"}
    qrels = {"q1": {"a": 2, "b": 0}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 1.0}}
    result = rankwise.evaluate(qrels, run, ["P@2", "RBP"], dialect="trectools")
    assert result.aggregate["P@2"] == pytest.approx(0.25, abs=1e-15)
    assert result.per_query["q1"]["RBP"] == pytest.approx(0.2, abs=1e-15)
    assert rankwise.evaluate(qrels, run, ["P@2"]).aggregate["P@2"] == pytest.approx(0.5, abs=1e-15)


IR_MEASURES_PAIRS = [  # (ir_measures measure, rankwise name under --dialect trectools --ties input_order -c)
    ("P@5", "P@5"),
    ("P@2", "P@2"),
    ("AP@5", "AP@5"),
    ("AP", "AP"),
    ("RR", "RR"),
    ("nDCG@5", "nDCG@5"),
    ("nDCG(dcg='exp-log2')@5", "nDCG(gain=exp2)@5"),
]


@pytest.mark.parametrize("seed", range(20))
def test_ir_measures_trectools_provider(seed: int) -> None:
    """ir_measures runs trectools with trec_eval=False on its own DataFrames (tied documents in the order given,
    grades below 0 kept) and reports every judged query: its numbers are the dialect's with ties=input_order and
    queries=qrels; it passes trectools' NaN through (and so its mean is NaN), where the value is 0."""
    ir_measures = pytest.importorskip("ir_measures")
    provider = ir_measures.providers.registry["trectools"]
    if not provider.is_available():
        pytest.skip("ir_measures' trectools provider is not available")
    rng = random.Random(2500 + seed)
    qrels, run = random_case(rng)
    names = [rw for _, rw in IR_MEASURES_PAIRS]
    ours = rankwise.evaluate(qrels, run, names, dialect="trectools", ties="input_order", queries="qrels")
    assert set(ours.query_ids) == set(qrels)
    for irm, rw in IR_MEASURES_PAIRS:
        measure = ir_measures.parse_measure(irm)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}
        assert set(theirs) == set(qrels), irm
        for qid, value in theirs.items():
            expected = 0.0 if math.isnan(value) else value
            assert math.isclose(ours.per_query[qid][rw], expected, rel_tol=1e-12, abs_tol=1e-12), (irm, qid)
