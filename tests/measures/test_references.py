"""rankwise against independent reference implementations: scipy (Kendall's tau) and scikit-learn (nDCG, DCG).

How the setups correspond
-------------------------
scikit-learn's ``ndcg_score(y_true, y_score, k)`` ranks the *given* documents by ``y_score`` and divides their
DCG@k by the DCG@k of the same documents sorted by ``y_true``: its ideal only knows the documents it is given.
rankwise's nDCG (like trec_eval) takes the ideal from *every judged document* of the query, retrieved or not.
The two agree when the documents given to scikit-learn are exactly the run's documents and every judged
document with a positive gain is among them:

- the run retrieves every judged document, plus unjudged ones;
- ``y_score`` is the run score; ``y_true`` is the document's gain under rankwise's definition — the grade for
  a judged grade >= 1, else 0 (grade 0, negative grades and unjudged documents). scikit-learn refuses
  negative ``y_true``, and a gain of 0 adds nothing to either DCG or ideal;
- scores are tie-free, and ``ignore_ties=True`` (scikit-learn then sorts by score alone; with ties it would
  average over tied orderings, which no tie policy of rankwise does).

A second setup drops some judged documents from the run but keeps at least k documents: scikit-learn is then
given the run's documents plus the missing judged ones with scores below every run score. Those sit at ranks
beyond k, so they add nothing to DCG@k, but they enter scikit-learn's ideal exactly as they enter rankwise's.

Other gains: ``nDCG(gain=exp2)`` etc. match scikit-learn given ``y_true = gain(grade)``, since both sides
sort the ideal by that gain.

``DCG@k`` needs no ideal: scikit-learn's ``dcg_score`` on the run's documents with ``y_true = gain``.

Kendall's tau: rankwise's ``KendallTau`` is tau-b between the run scores and the grades of the retrieved
*judged* documents of a query (unjudged documents are left out; negative grades are judged), which is
``scipy.stats.kendalltau(scores, grades)`` (variant 'b') on those documents; both are NaN when fewer than two
documents remain or all scores or all grades are equal.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import rankwise
from conftest import close

stats = pytest.importorskip("scipy.stats")
metrics = pytest.importorskip("sklearn.metrics")

SEEDS = range(40)


# ---------------------------------------------------------------------------------------------- Kendall's tau


def _tau_case(seed: int) -> tuple[dict, dict]:
    """Queries with heavy ties in both scores and grades, unjudged and negative-graded documents."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(int(rng.integers(1, 7))):
        qid = f"q{q}"
        n = int(rng.integers(1, 25))
        docs = [f"d{i}" for i in range(n)]
        grade_levels = int(rng.integers(1, 5))  # 1 level: every grade equal -> tau undefined
        judged = {d: int(rng.integers(-1, grade_levels - 1)) if grade_levels > 1 else 1
                  for d in docs if rng.random() < 0.7}  # fmt: skip
        judged.setdefault(docs[0], 0)
        qrels[qid] = judged
        score_levels = int(rng.integers(1, 8))  # 1 level: every score equal -> tau undefined
        run[qid] = {d: float(rng.integers(0, score_levels)) / 2 for d in docs if rng.random() < 0.8}
        run[qid].setdefault(docs[-1], 0.25)
    return qrels, run


def _scipy_tau(qrels_q: dict, run_q: dict) -> float:
    judged = [d for d in run_q if d in qrels_q]
    x = [run_q[d] for d in judged]
    y = [qrels_q[d] for d in judged]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.kendalltau(x, y).statistic)


@pytest.mark.parametrize("seed", SEEDS)
def test_kendall_tau_equals_scipy(seed):
    qrels, run = _tau_case(seed)
    result = rankwise.evaluate(qrels, run, ["KendallTau"])
    expected = {q: _scipy_tau(qrels[q], run[q]) for q in qrels}
    for qid, value in expected.items():
        got = result.per_query[qid]["KendallTau"]
        assert close(got, value), (seed, qid, got, value)
    defined = [v for v in expected.values() if not math.isnan(v)]
    assert result.undefined["KendallTau"] == len(expected) - len(defined)
    if defined:
        assert close(result.aggregate["KendallTau"], sum(defined) / len(defined))
    else:
        assert math.isnan(result.aggregate["KendallTau"])


@pytest.mark.parametrize("seed", range(3))
def test_kendall_tau_on_long_queries_equals_scipy(seed):
    """Long rankings of different lengths side by side: the merge passes that count discordant pairs (Knight's
    algorithm) run for every query at once, so queries of 1, 2, 3, 1000 and 5000 documents share each pass."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q, n in enumerate((1, 2, 3, 1000, 5000, 777)):
        docs = [f"d{i}" for i in range(n)]
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs, rng.integers(0, 5, n))}
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs, rng.integers(0, 40, n) / 4)}
    result = rankwise.evaluate(qrels, run, ["KendallTau"])
    for qid in qrels:
        assert close(result.per_query[qid]["KendallTau"], _scipy_tau(qrels[qid], run[qid])), qid


def test_kendall_tau_cases_include_undefined_and_defined_values():
    """The random cases exercise both NaN and non-trivial tau values."""
    values = [_scipy_tau(q[k], r[k]) for q, r in map(_tau_case, SEEDS) for k in q]
    assert sum(math.isnan(v) for v in values) >= 10
    assert sum(not math.isnan(v) and 0 < abs(v) < 1 for v in values) >= 50


@pytest.mark.parametrize("seed", range(10))
def test_kendall_tau_respects_depth(seed):
    """With depth=d only the top d documents (trec_eval order) are retrieved, so tau uses only those."""
    qrels, run = _tau_case(seed)
    depth = 4
    cut = {q: dict(sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:depth])
           for q, docs in run.items()}  # fmt: skip
    result = rankwise.evaluate(qrels, run, ["KendallTau"], depth=depth)
    for qid in qrels:
        assert close(result.per_query[qid]["KendallTau"], _scipy_tau(qrels[qid], cut[qid]))


# ----------------------------------------------------------------------------------------------- nDCG and DCG

GAINS = {
    # measure parameter text -> gain of a grade (rankwise's documented definition; only grades >= 1 count)
    "": lambda g: float(g) if g >= 1 else 0.0,
    "(gain=exp2)": lambda g: 2.0**g - 1.0 if g >= 1 else 0.0,
    "(gain=binary)": lambda g: 1.0 if g >= 1 else 0.0,
    "(gain={1:1,2:3,3:7})": lambda g: {1: 1.0, 2: 3.0, 3: 7.0}.get(g, 0.0),
    "(gain={1:5,2:0.5,3:2})": lambda g: {1: 5.0, 2: 0.5, 3: 2.0}.get(g, 0.0),  # not monotone in the grade
}
CUTS = (1, 2, 3, 5, 10, 20)


def _ndcg_case(seed: int, drop_judged: bool) -> tuple[dict, dict, dict]:
    """(qrels, run, missing): tie-free run scores; grades -1..3; ``missing`` = judged docs not retrieved.

    Without ``drop_judged`` every judged document is retrieved (plus unjudged ones). With it some judged
    documents are left out of the run, and the run keeps at least max(CUTS) documents.
    """
    rng = np.random.default_rng(10_000 + seed)
    qrels, run, missing = {}, {}, {}
    for q in range(int(rng.integers(1, 6))):
        qid = f"q{q}"
        n = int(rng.integers(25 if drop_judged else 2, 40))
        docs = [f"d{i}" for i in range(n)]
        no_relevant = rng.random() < 0.15
        pool = [-1, 0] if no_relevant else [-1, 0, 0, 1, 1, 2, 3]
        judged = {d: int(rng.choice(pool)) for d in docs if rng.random() < 0.6}
        if not judged:
            judged[docs[0]] = 0
        # distinct scores: a permutation, shifted so they are not all positive
        scores = [float(s) - n / 3 for s in rng.permutation(n)]
        retrieved = dict(zip(docs, scores))
        gone: list[str] = []
        if drop_judged:
            extra = [f"m{i}" for i in range(int(rng.integers(1, 6)))]  # judged, never retrieved
            for i, d in enumerate(extra):
                judged[d] = int(rng.choice([0, 1, 2, 3])) if i else 2
            gone = extra
        qrels[qid], run[qid], missing[qid] = judged, retrieved, gone
    return qrels, run, missing


def _sklearn_inputs(qrels_q: dict, run_q: dict, gone: list[str], gain) -> tuple[np.ndarray, np.ndarray]:
    docs = list(run_q)
    y_score = [run_q[d] for d in docs]
    lowest = min(y_score)
    # judged documents missing from the run go last: below every run score, in any (tie-free) order
    docs += gone
    y_score += [lowest - 1.0 - i for i in range(len(gone))]
    y_true = [gain(qrels_q[d]) if d in qrels_q else 0.0 for d in docs]
    return np.asarray([y_true]), np.asarray([y_score])


@pytest.mark.parametrize("drop_judged", [False, True], ids=["all-judged-retrieved", "judged-missing"])
@pytest.mark.parametrize("seed", SEEDS)
def test_ndcg_equals_sklearn(seed, drop_judged):
    qrels, run, missing = _ndcg_case(seed, drop_judged)
    measures = [f"nDCG{p}@{k}" for p in GAINS for k in CUTS]
    if not drop_judged:  # uncut nDCG: every document is within the cutoff, so only the first setup applies
        measures += [f"nDCG{p}" for p in GAINS]
    result = rankwise.evaluate(qrels, run, measures)
    pq = result.per_query
    for params, gain in GAINS.items():
        for k in (*CUTS, None):
            if k is None and drop_judged:
                continue
            key = f"nDCG{params}" + ("" if k is None else f"@{k}")
            expected = {}
            for qid in qrels:
                y_true, y_score = _sklearn_inputs(qrels[qid], run[qid], missing[qid], gain)
                expected[qid] = float(metrics.ndcg_score(y_true, y_score, k=k, ignore_ties=True))
                assert close(pq[qid][key], expected[qid]), (seed, qid, key, pq[qid][key], expected[qid])
            mean = sum(expected.values()) / len(expected)
            assert close(result.aggregate[key], mean), (seed, key)


@pytest.mark.parametrize("seed", SEEDS)
def test_dcg_equals_sklearn(seed):
    qrels, run, _ = _ndcg_case(seed, drop_judged=seed % 2 == 1)
    measures = [f"DCG{p}@{k}" for p in GAINS for k in CUTS] + [f"DCG{p}" for p in GAINS]
    result = rankwise.evaluate(qrels, run, measures)
    for params, gain in GAINS.items():
        for k in (*CUTS, None):
            key = f"DCG{params}" + ("" if k is None else f"@{k}")
            for qid in qrels:
                y_true, y_score = _sklearn_inputs(qrels[qid], run[qid], [], gain)
                expected = float(metrics.dcg_score(y_true, y_score, k=k, ignore_ties=True))
                got = result.per_query[qid][key]
                assert close(got, expected), (seed, qid, key, got, expected)


def test_ndcg_ideal_uses_unretrieved_judged_documents_unlike_sklearn_on_the_run_alone():
    """The documented difference: given only the run's documents, scikit-learn's ideal misses judged documents
    that were not retrieved, so it scores higher than rankwise whenever one of them has a positive gain."""
    qrels, run, _ = _ndcg_case(3, drop_judged=True)
    result = rankwise.evaluate(qrels, run, ["nDCG@10"])
    higher = 0
    for qid in qrels:
        y_true, y_score = _sklearn_inputs(qrels[qid], run[qid], [], GAINS[""])
        run_only = float(metrics.ndcg_score(y_true, y_score, k=10, ignore_ties=True))
        got = result.per_query[qid]["nDCG@10"]
        assert got <= run_only + 1e-12
        higher += run_only > got + 1e-9
    assert higher >= 1


# ------------------------------------------------------------------------------------------------- ROC AUC
# rankwise's AUC ranks a query's *retrieved* documents: relevant (grade >= rel) against every other retrieved
# document (judged non-relevant or unjudged), equal scores counting one half — scikit-learn's roc_auc_score with
# y_true = [grade >= rel] and y_score = the run score. Queries with one class are undefined (scikit-learn raises).


def _auc_case(seed: int) -> tuple[dict, dict]:
    """Queries with heavy score ties, unjudged documents, and some queries of one class only."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(int(rng.integers(1, 25))):
        docs = [f"d{i}" for i in range(int(rng.integers(1, 15)))]
        run[f"q{q}"] = {d: float(rng.integers(0, 5)) / 4 for d in docs}
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 3)) for d in docs if rng.random() < 0.7}
        qrels[f"q{q}"]["never-retrieved"] = 1
    return qrels, run


def _labels(qrels_q: dict, run_q: dict) -> tuple[list[int], list[float]]:
    return [int(qrels_q.get(d, -9) >= 1) for d in run_q], list(run_q.values())


@pytest.mark.parametrize("seed", SEEDS)
def test_auc_equals_sklearn_per_query_weighted_and_pooled(seed):
    qrels, run = _auc_case(seed)
    result = rankwise.evaluate(qrels, run, ["AUC", "AUC(mean=positives)", "AUC(mean=pooled)"])
    per_query, weights, all_y, all_s = [], [], [], []
    for q in run:
        y, s = _labels(qrels[q], run[q])
        all_y += y
        all_s += s
        expected = metrics.roc_auc_score(y, s) if 0 < sum(y) < len(y) else math.nan
        assert close(result.per_query[q]["AUC"], expected), q
        if not math.isnan(expected):
            per_query.append(expected)
            weights.append(sum(y))
    assert result.undefined["AUC"] == len(run) - len(per_query)
    assert close(result.aggregate["AUC"], float(np.mean(per_query)) if per_query else math.nan)
    weighted = float(np.average(per_query, weights=weights)) if per_query else math.nan
    assert close(result.aggregate["AUC(mean=positives)"], weighted)
    pooled = metrics.roc_auc_score(all_y, all_s) if 0 < sum(all_y) < len(all_y) else math.nan
    assert close(result.aggregate["AUC(mean=pooled)"], pooled)


@pytest.mark.parametrize("seed", range(10))
def test_auc_at_k_equals_sklearn_on_the_top_k(seed):
    qrels, run = _auc_case(seed)
    result = rankwise.evaluate(qrels, run, ["AUC@3"], ties="docno_desc")
    for q in run:
        top = dict(sorted(run[q].items(), key=lambda kv: kv[0], reverse=True))
        top = dict(sorted(top.items(), key=lambda kv: -kv[1])[:3])  # score desc, ties by doc id desc
        y, s = _labels(qrels[q], top)
        expected = metrics.roc_auc_score(y, s) if 0 < sum(y) < len(y) else math.nan
        assert close(result.per_query[q]["AUC@3"], expected), q
