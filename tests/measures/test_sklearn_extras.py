"""The measures other libraries' tests exercise: scikit-learn's coverage_error, label_ranking_loss, partial ROC AUC
(max_fpr, McClish-standardised) and DCG with any log base; torchmetrics' fall-out; ir_measures' Accuracy; the
F-measure with any β.

Each is proven against the library itself, per query (one query = one sample of scikit-learn's multilabel arrays, its
ranked documents the labels), on random data with heavy ties, and by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankwise
from conftest import close
from rankwise.errors import MeasureError


def random_queries(seed: int, ties: bool = True) -> tuple[np.ndarray, np.ndarray, dict, dict]:
    """Grades and scores of n_queries × n_items (every item ranked and judged), as arrays and as rankwise dicts."""
    rng = np.random.default_rng(seed)
    n_queries, n_items = int(rng.integers(1, 6)), int(rng.integers(2, 15))
    y_true = rng.choice([0, 0, 1, 2, 3], size=(n_queries, n_items))
    if ties:
        y_score = rng.integers(0, 4, size=(n_queries, n_items)).astype(float)
    else:
        y_score = np.array([rng.permutation(n_items) for _ in range(n_queries)], dtype=float) - n_items / 3
    qrels = {f"q{i}": {f"d{j}": int(y_true[i, j]) for j in range(n_items)} for i in range(n_queries)}
    run = {f"q{i}": {f"d{j}": float(y_score[i, j]) for j in range(n_items)} for i in range(n_queries)}
    return y_true, y_score, qrels, run


@pytest.mark.parametrize("seed", range(30))
def test_coverage_error_and_label_ranking_loss_equal_sklearn_per_query(seed: int) -> None:
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is not installed (pip install '.[test]')")
    y_true, y_score, qrels, run = random_queries(seed)
    for rel in (1, 2):
        ours = rankwise.evaluate(qrels, run, ["CoverageError", "LabelRankingLoss"], rel_level=rel, dialect="sklearn")
        assert not any("ties=average" in note for note in ours.notes())  # both read tied scores as ties
        relevant = (y_true >= rel).astype(int)
        for i in range(len(y_true)):
            sample = (relevant[i : i + 1], y_score[i : i + 1])
            assert close(ours.per_query[f"q{i}"]["CoverageError"], metrics.coverage_error(*sample))
            assert close(ours.per_query[f"q{i}"]["LabelRankingLoss"], metrics.label_ranking_loss(*sample))
        # scikit-learn's mean over samples is the mean over queries
        assert close(ours.aggregate["CoverageError"], metrics.coverage_error(relevant, y_score))
        assert close(ours.aggregate["LabelRankingLoss"], metrics.label_ranking_loss(relevant, y_score))


def test_coverage_error_and_ranking_loss_by_hand() -> None:
    """Scores a 0.9 (relevant), b 0.5, c 0.5 (relevant), d 0.1: c ties with b, so covering c reads 3 documents;
    pairs (a, b), (a, d), (c, b), (c, d): (c, b) is tied, counted wrong → loss 1/4. Unjudged x at the bottom adds a
    negative: 4 documents scored at least as high as c still 3; loss 1/6."""
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0}}
    run = {"q": {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}}
    got = rankwise.evaluate(qrels, run, ["CoverageError", "RankingLoss"]).aggregate
    assert got == {"CoverageError": 3.0, "RankingLoss": 0.25}
    run["q"]["x"] = 0.0
    got = rankwise.evaluate(qrels, run, ["CoverageError", "RankingLoss"]).aggregate
    assert got["CoverageError"] == 3.0 and got["RankingLoss"] == pytest.approx(1 / 6, abs=1e-15)
    nothing = rankwise.evaluate({"q": {"a": 0}}, {"q": {"a": 1.0}}, ["CoverageError", "RankingLoss"]).aggregate
    assert nothing == {"CoverageError": 0.0, "RankingLoss": 0.0}  # scikit-learn's value without a relevant label


@pytest.mark.parametrize("seed", range(30))
def test_partial_auc_equals_sklearn_roc_auc_score_max_fpr(seed: int) -> None:
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is not installed (pip install '.[test]')")
    y_true, y_score, qrels, run = random_queries(seed)
    fprs = (0.05, 0.3, 0.5, 0.99, 1.0)
    ours = rankwise.evaluate(qrels, run, [f"AUC(max_fpr={m:g})" for m in fprs])
    pooled = rankwise.evaluate(qrels, run, [f"AUC(mean=pooled,max_fpr={m:g})" for m in fprs])
    relevant = (y_true >= 1).astype(int)
    for m in fprs:
        for i in range(len(y_true)):
            value = ours.per_query[f"q{i}"][f"AUC(max_fpr={m:g})"]
            if 0 < relevant[i].sum() < relevant.shape[1]:
                assert close(value, metrics.roc_auc_score(relevant[i], y_score[i], max_fpr=m), rel_tol=1e-12)
            else:
                assert np.isnan(value)  # scikit-learn raises: only one class
        if 0 < relevant.sum() < relevant.size:
            expected = metrics.roc_auc_score(relevant.ravel(), y_score.ravel(), max_fpr=m)
            assert close(pooled.aggregate[f"AUC(mean=pooled,max_fpr={m:g})"], expected, rel_tol=1e-12)


def test_partial_auc_by_hand() -> None:
    """Scores a 3 (relevant), b 2, c 1 (relevant), d 0: ROC points (0, ½), (½, ½), (½, 1), (1, 1). Up to FPR ½ the
    area is ½ · ½ = ¼; McClish: ½(1 + (¼ − ⅛) / (½ − ⅛)) = ⅔. The full AUC is ¾ (max_fpr=1). With rank compared,
    the order is the same (no ties)."""
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.0}}
    got = rankwise.evaluate(qrels, run, ["AUC(max_fpr=0.5)", "AUC(max_fpr=1)", "AUC(compare=rank,max_fpr=0.5)"])
    assert got.aggregate["AUC(max_fpr=0.5)"] == pytest.approx(2 / 3, abs=1e-15)
    assert got.aggregate["AUC(max_fpr=1)"] == 0.75
    assert got.aggregate["AUC(compare=rank,max_fpr=0.5)"] == pytest.approx(2 / 3, abs=1e-15)
    with pytest.raises(MeasureError, match="max_fpr reads the ROC curve"):
        rankwise.evaluate(qrels, run, ["AUC(compare=score_ties_win,max_fpr=0.5)"])


@pytest.mark.parametrize("seed", range(20))
def test_dcg_with_any_log_base_equals_sklearn_dcg_score(seed: int) -> None:
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is not installed (pip install '.[test]')")
    y_true, y_score, qrels, run = random_queries(seed)
    for base in (2, 3, 10):
        for k in (1, 3, None):
            text = f"DCG(log_base={base})" + ("" if k is None else f"@{k}")
            ours = rankwise.evaluate(qrels, run, [text], dialect="sklearn")
            for i in range(len(y_true)):
                theirs = metrics.dcg_score(y_true[i : i + 1], y_score[i : i + 1], k=k, log_base=base)
                assert close(ours.per_query[f"q{i}"][text], theirs, rel_tol=1e-12)


def test_log_base_is_the_base_of_the_log2_discount_only() -> None:
    qrels, run = {"q": {"a": 1, "b": 3}}, {"q": {"a": 2.0, "b": 1.0}}
    got = rankwise.evaluate(qrels, run, ["DCG(log_base=10)", "DCG"]).aggregate
    assert got["DCG(log_base=10)"] == pytest.approx(1 / np.log10(2) + 3 / np.log10(3), abs=1e-14)
    assert got["DCG"] == pytest.approx(1 + 3 / np.log2(3), abs=1e-14)
    with pytest.raises(MeasureError, match="log_base=10 sets the base of discount=log2, not of discount=ln"):
        rankwise.evaluate(qrels, run, ["DCG(discount=ln,log_base=10)"])
    with pytest.raises(MeasureError, match="log_base=1 must be >= 2"):
        rankwise.parse_measure("DCG(log_base=1)")


@pytest.mark.parametrize("seed", range(20))
def test_fall_out_equals_torchmetrics(seed: int) -> None:
    """torchmetrics' RetrievalFallOut under the torchmetrics dialect (only the ranked documents exist, a query
    without non-relevant documents scores 1), and its functional form (0 there), on distinct scores (torchmetrics
    orders ties with an unstable sort)."""
    torch = pytest.importorskip("torch", reason="torch is not installed (pip install '.[test]')")
    retrieval = pytest.importorskip("torchmetrics.retrieval", reason="torchmetrics is not installed")
    functional = pytest.importorskip("torchmetrics.functional.retrieval")
    y_true, y_score, qrels, run = random_queries(seed, ties=False)
    relevant = (y_true >= 1).astype(int)
    if seed % 4 == 0:  # a query with no non-relevant document
        y_true[0], relevant[0] = 2, 1
        qrels["q0"] = dict.fromkeys(qrels["q0"], 2)
    indexes = torch.tensor(np.repeat(np.arange(len(y_true)), y_true.shape[1]))
    for k in (1, 3, None):
        cut = "" if k is None else f"@{k}"
        ours = rankwise.evaluate(qrels, run, [f"FallOut{cut}", f"FallOut(no_nonrel=zero){cut}"], dialect="torchmetrics")
        metric = retrieval.RetrievalFallOut(top_k=k)
        theirs = metric(torch.tensor(y_score.ravel()), torch.tensor(relevant.ravel()), indexes=indexes)
        assert abs(ours.aggregate[f"FallOut{cut}"] - float(theirs)) < 1e-6
        for i in range(len(y_true)):
            value = functional.retrieval_fall_out(torch.tensor(y_score[i]), torch.tensor(relevant[i]), top_k=k)
            assert abs(ours.per_query[f"q{i}"][f"FallOut(no_nonrel=zero){cut}"] - float(value)) < 1e-6


@pytest.mark.parametrize("seed", range(20))
def test_recall_at_precision_equals_torchmetrics(seed: int) -> None:
    """torchmetrics' RetrievalRecallAtFixedPrecision (the mean precision and recall curves over queries, then the
    largest mean recall whose mean precision reaches min_precision) under the torchmetrics dialect; per query, the
    same class on that query alone. Distinct scores (torchmetrics orders ties with topk)."""
    torch = pytest.importorskip("torch", reason="torch is not installed (pip install '.[test]')")
    retrieval = pytest.importorskip("torchmetrics.retrieval", reason="torchmetrics is not installed")
    y_true, y_score, qrels, run = random_queries(seed, ties=False)
    relevant = (y_true >= 1).astype(int)
    indexes = torch.tensor(np.repeat(np.arange(len(y_true)), y_true.shape[1]))
    for k in (1, 3, 20):
        for min_precision in (0.0, 0.3, 0.6, 1.0):
            text = f"RecallAtPrecision(min_precision={min_precision:g})@{k}"
            ours = rankwise.evaluate(qrels, run, [text], dialect="torchmetrics")
            metric = retrieval.RetrievalRecallAtFixedPrecision(min_precision=min_precision, max_k=k)
            recall, _ = metric(torch.tensor(y_score.ravel()), torch.tensor(relevant.ravel()), indexes=indexes)
            assert abs(ours.aggregate[text] - float(recall)) < 1e-6
            for i in range(len(y_true)):
                one = retrieval.RetrievalRecallAtFixedPrecision(min_precision=min_precision, max_k=k)
                recall, _ = one(torch.tensor(y_score[i]), torch.tensor(relevant[i]), indexes=torch.zeros(
                    y_true.shape[1], dtype=torch.long))  # fmt: skip
                assert abs(ours.per_query[f"q{i}"][text] - float(recall)) < 1e-6


def test_recall_at_precision_by_hand() -> None:
    """Ranking a (relevant), b, c (relevant), d; R = 3 (e judged relevant, not retrieved). P@1..4 = 1, ½, ⅔, ½;
    R@1..4 = ⅓, ⅓, ⅔, ⅔. At min_precision 0.6 the best is j = 3: ⅔; at 0.9 only j = 1: ⅓; @2 caps j at 2: ⅓."""
    qrels = {"q": {"a": 1, "c": 1, "e": 1, "b": 0}}
    run = {"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}}
    texts = ["RecallAtPrecision(min_precision=0.6)@4", "RecallAtPrecision(min_precision=0.9)@4",
             "RecallAtPrecision(min_precision=0.6)@2"]  # fmt: skip
    got = rankwise.evaluate(qrels, run, texts).aggregate
    assert [got[t] for t in texts] == pytest.approx([2 / 3, 1 / 3, 1 / 3], abs=1e-15)


def test_fall_out_by_hand() -> None:
    """Judged: a 1, b 0, c 0, e 0 (e not retrieved); ranking b, x (unjudged), a, c. FallOut@2 over the judged
    non-relevant documents: b of {b, c, e} = 1/3; over the ranked ones (universe=retrieved): b, x of {b, x, c} = 2/3."""
    qrels = {"q": {"a": 1, "b": 0, "c": 0, "e": 0}}
    run = {"q": {"b": 0.9, "x": 0.8, "a": 0.7, "c": 0.6}}
    got = rankwise.evaluate(qrels, run, ["FallOut@2", "FallOut(universe=retrieved)@2", "FallOut"]).aggregate
    assert got["FallOut@2"] == pytest.approx(1 / 3)
    assert got["FallOut(universe=retrieved)@2"] == pytest.approx(2 / 3)
    assert got["FallOut"] == pytest.approx(2 / 3)
    none = rankwise.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["FallOut", "FallOut(no_nonrel=skip)"])
    assert none.per_query["q"]["FallOut"] == 0.0 and np.isnan(none.per_query["q"]["FallOut(no_nonrel=skip)"])


@pytest.mark.parametrize("seed", range(10))
def test_ir_measures_accuracy_is_auc_by_rank_in_input_order(seed: int) -> None:
    """ir_measures' Accuracy@k (share of (relevant, non-relevant) pairs in the top k in the right order) is
    AUC(compare=rank)@k with ties in input order; queries without a relevant document in the top k are left out.
    (ir_measures raises ZeroDivisionError when the top k holds no non-relevant document: such runs are avoided.)"""
    ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is not installed (pip install '.[test]')")
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(8):
        docs = [f"d{i}" for i in range(20)]
        qrels[f"q{q}"] = {d: int(rng.choice([0, 0, 1, 2])) for d in rng.choice(docs, 12, replace=False)}
        shown = list(rng.choice(docs, int(rng.integers(6, 20)), replace=False))
        run[f"q{q}"] = {d: float(rng.integers(0, 3)) for d in ["nonrel", *shown]}  # ties; one sure negative
        run[f"q{q}"]["nonrel"] = 10.0  # ranked first: every top k holds a non-relevant document
    for k, rel in ((None, 1), (5, 1), (10, 2)):
        measure = ir_measures.Accuracy(rel=rel) if k is None else ir_measures.Accuracy(rel=rel) @ k
        reference = {m.query_id: m.value for m in ir_measures.accuracy.iter_calc([measure], qrels, run)}
        text = "AUC(compare=rank)" + ("" if k is None else f"@{k}")
        ours = rankwise.evaluate(qrels, run, [text], ties="input_order", rel_level=rel)
        defined = {q for q, v in ours.per_query.items() if not np.isnan(v[text])}
        assert defined == set(reference)
        for qid, value in reference.items():
            assert close(ours.per_query[qid][text], value, rel_tol=1e-12)


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0, 3.7])
def test_f_measure_with_any_beta_equals_sklearn_fbeta_score(beta: float) -> None:
    """F(beta=β) without a cutoff is set retrieval: P = H/|L|, R = H/R, as scikit-learn's fbeta_score on
    "retrieved" predictions over every judged or retrieved document."""
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is not installed (pip install '.[test]')")
    rng = np.random.default_rng(int(beta * 10))
    for _ in range(30):
        docs = [f"d{i}" for i in range(15)]
        judged = {d: int(rng.choice([0, 1, 2])) for d in rng.choice(docs, 10, replace=False)}
        shown = {d: float(rng.random()) for d in rng.choice(docs, int(rng.integers(1, 15)), replace=False)}
        text = f"F1(beta={beta:g})"
        ours = rankwise.evaluate({"q": judged}, {"q": shown}, [text]).aggregate[text]
        universe = sorted(set(judged) | set(shown))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no relevant document: sklearn warns and returns 0
            theirs = metrics.fbeta_score([int(judged.get(d, 0) >= 1) for d in universe],
                                         [int(d in shown) for d in universe], beta=beta, zero_division=0)  # fmt: skip
        assert close(ours, theirs, rel_tol=1e-12)
