"""Dialects: resolution, binding, comparison, and each dialect proven against its library (or pinned by hand)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import rankwise
from conftest import close
from rankwise import RankwiseError, compare_dialects, get_dialect, parse_measure
from rankwise.cli import main
from rankwise.dialects import DIALECTS, dialect_names, resolve_dialect


def close32(a: float, b: float) -> bool:
    """For libraries that compute in float32 (torchmetrics returns float32 for some measures)."""
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7)


# ------------------------------------------------------------------------------------------ resolution
def test_names_and_versions_resolve() -> None:
    assert get_dialect("lightgbm").key == "lightgbm@4"
    assert get_dialect("LightGBM@4").key == "lightgbm@4"
    assert get_dialect("ranx@0.3").key == "ranx@0.3"
    with pytest.raises(RankwiseError, match="has no binding for version 3"):
        get_dialect("lightgbm@3")
    with pytest.raises(RankwiseError, match="unknown dialect 'lightgbn'; did you mean lightgbm"):
        get_dialect("lightgbn")
    assert set(dialect_names()) >= {"trec_eval", "pytrec_eval", "ir_measures", "ranx", "lightgbm"}
    # version prefixes compare by components: "0" covers 0.3, "0.30" does not (it is newer: the newest binding,
    # with a note saying so); an older version without a binding is an error
    assert get_dialect("ranx@0").key == "ranx@0.3"
    dialect, note = resolve_dialect("ranx@0.30")
    assert dialect.key == "ranx@0.3" and note is not None and "no binding for this version; used ranx@0.3" in note
    assert resolve_dialect("ranx@0.3") == (get_dialect("ranx"), None)
    with pytest.raises(RankwiseError, match=r"no binding for version 0\.2 \(bindings cover 0\.3\)"):
        get_dialect("ranx@0.2")
    # the versions users have today resolve: ir_measures 0.4.3, Spark 4.0
    assert get_dialect("ir_measures@0.4").key == "ir_measures@0.4"
    assert get_dialect("spark_mllib@4.0").key == get_dialect("spark_mllib").key == "spark_mllib@4.0"
    assert get_dialect("spark_mllib@3.5").key == "spark_mllib@4.0"  # one binding covers both


def test_binding_fills_only_what_the_user_left_out() -> None:
    lightgbm = get_dialect("lightgbm")
    assert str(lightgbm.bind(parse_measure("AP@10"), 1)) == "AP(denom=min_k_R,universe=retrieved,empty=one)@10"
    assert str(lightgbm.bind(parse_measure("AP(denom=R)@10"), 1)) == "AP(denom=R,universe=retrieved,empty=one)@10"
    assert lightgbm.bind(parse_measure("RR"), 1) == parse_measure("RR")  # no binding: rankwise's definition
    ranx = get_dialect("ranx")
    assert str(ranx.bind(parse_measure("nDCG@5"), 2)) == "nDCG(rel=2)@5"  # ranx's -l applies to nDCG


def test_explicit_policies_beat_the_dialect() -> None:
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"b": 1.0, "a": 1.0}}  # tied; input order puts b first, docno_desc puts b first too
    assert rankwise.evaluate(qrels, run, "P@1", dialect="lightgbm").policies.ties.value == "input_order"
    result = rankwise.evaluate(qrels, run, "P@1", dialect="lightgbm", ties="docno_asc")
    assert result.policies.ties.value == "docno_asc"
    assert result.aggregate["P@1"] == 1.0  # a before b


# ------------------------------------------------------------------------------------------ pinned by hand
def test_pytrec_eval_and_ir_measures_compare_scores_in_float32() -> None:
    # 1.0 and 1.0 + 1e-9 are equal in float32: the tie goes to the larger doc id ("b"), which is not relevant.
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    assert rankwise.evaluate(qrels, run, "P@1").aggregate["P@1"] == 1.0
    for name in ("pytrec_eval", "ir_measures"):
        assert rankwise.evaluate(qrels, run, "P@1", dialect=name).aggregate["P@1"] == 0.0
        # and they use trec_eval 9's rounding for interpolated precision: c = floor(0.3·2 + 0.9) = 1
        bound = get_dialect(name).bind(parse_measure("IPrec@0.3"), 1)
        assert str(bound) == "IPrec(round=v9)@0.3"


def test_lightgbm_binding_by_hand() -> None:
    # q1: ranking (input order on the tie) a(2), b(0), c(1) -> exp2 gains 3, 0, 1.
    #   DCG@2 = 3/1 + 0 = 3; ideal over the ranked rows: 3, 1 -> 3 + 1/log2(3). AP@2 = (1/1) / min(2, R=2) = 0.5.
    # q2: no relevant row -> both 1 (LightGBM's convention).
    qrels = {"q1": {"a": 2, "b": 0, "c": 1, "z": 3}, "q2": {"x": 0}}
    run = {"q1": {"a": 0.9, "b": 0.5, "c": 0.5}, "q2": {"x": 0.1}}
    result = rankwise.evaluate(qrels, run, ["nDCG@2", "AP@2"], dialect="lightgbm")
    assert result.per_query["q1"]["nDCG@2"] == pytest.approx(3 / (3 + 1 / math.log2(3)), abs=1e-12)
    assert result.per_query["q1"]["AP@2"] == pytest.approx(0.5, abs=1e-12)
    assert result.per_query["q2"] == {"nDCG@2": 1.0, "AP@2": 1.0}


def test_ranx_bpref_without_judged_nonrelevant_is_undefined() -> None:
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1, "b": 0}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 2.0, "a": 1.0}}
    trec = rankwise.evaluate(qrels, run, "bpref")
    ranx = rankwise.evaluate(qrels, run, "bpref", dialect="ranx")
    assert trec.per_query["q1"]["bpref"] == 0.5  # (1 term of 1) / R = 2
    assert math.isnan(ranx.per_query["q1"]["bpref"])  # 0/0 in ranx
    assert ranx.per_query["q2"]["bpref"] == trec.per_query["q2"]["bpref"] == 0.0
    assert ranx.undefined["bpref"] == 1
    assert "bpref: undefined for 1 of 2 queries" in " ".join(ranx.notes())


def test_every_dialect_is_pinned_here_or_in_a_reference_test() -> None:
    pinned = {"trec_eval", "pytrec_eval", "ir_measures", "ranx", "sklearn", "torchmetrics", "lightgbm", "xgboost"}
    pinned |= {"rs_metrics", "spark_mllib", "replay", "recbole", "ms_recommenders", "beta_recsys"}
    pinned |= {"rectools", "daisyrec", "dl_rs_eval", "openrec", "lenskit", "elliot", "neurec", "recsys_pytorch"}
    pinned |= {"cwl_eval", "compat"}  # tests/measures/test_user_model_measures.py
    pinned |= {"ndeval"}  # tests/measures/test_intent_aware.py (against pyndeval)
    pinned |= {"gdeval"}  # tests/measures/test_err.py (against gdeval.pl and ir_measures' gdeval provider)
    pinned |= {"trectools"}  # tests/dialects/test_dialects_trectools.py (against trectools' TrecEval)
    pinned |= {"expeval"}  # tests/measures/test_exposure.py (against expeval's code and its pinned formulas)
    pinned |= {"trec_fair"}  # tests/measures/test_fairness.py (against wptrec's AWRFMetric and its pinned formulas)
    pinned |= {"allrank"}  # tests/torch/test_torch_allrank.py (against allRank's metrics.py and its pinned formulas)
    assert {d.name for d in DIALECTS} == pinned, "a new dialect needs a test that fails if its binding changes"
    assert get_dialect("trec_eval").bindings == {} and get_dialect("trec_eval").policies == {}


# ------------------------------------------------------------------------------------------ comparison
def test_compare_dialects_groups_equal_values_with_reasons() -> None:
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1, "y": 1}}
    run = {"q1": {"b": 3.0, "a": 2.0, "d": 1.0}, "q2": {"x": 1.0}}
    comparison = compare_dialects(qrels, run, ["AP@2", "nDCG@2"])
    groups = {row.dialect.split("@")[0]: row.group for row in comparison.rows}
    assert groups["trec_eval"] == groups["pytrec_eval"] == groups["ir_measures"] == groups["ranx"]
    assert groups["lightgbm"] != groups["trec_eval"]
    lightgbm = next(r for r in comparison.rows if r.dialect.startswith("lightgbm"))
    assert "AP: denom=min_k_R (min(k, R))" in lightgbm.reasons
    assert "ties=input_order" in lightgbm.reasons
    trec = next(r for r in comparison.rows if r.dialect.startswith("trec_eval"))
    assert trec.reasons == ()
    # q1 AP@2 under trec_eval: a (relevant) at rank 2 -> (1/2) / R=2 = 0.25; q2: (1/1) / 2 = 0.5 -> 0.375
    assert trec.values["AP@2"] == pytest.approx(0.375, abs=1e-12)


def test_cli_dialects_and_dialect_option(tmp_path) -> None:
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text("q1 0 a 2\nq1 0 b 0\nq2 0 x 0\n")
    r.write_text("q1 Q0 b 1 0.5 t\nq1 Q0 a 2 0.4 t\nq2 Q0 x 1 0.3 t\n")
    runner = CliRunner()
    listing = runner.invoke(main, ["dialects"])
    assert listing.exit_code == 0 and "lightgbm@4" in listing.stdout
    table = runner.invoke(main, ["dialects", str(q), str(r), "-m", "nDCG@2"])
    assert table.exit_code == 0 and "lightgbm@4" in table.stdout and "gain=exp2" in table.stdout
    out = runner.invoke(main, ["evaluate", str(q), str(r), "-m", "nDCG@2", "--dialect", "lightgbm", "--format", "csv"])
    # q1: a (gain 3) at rank 2 -> 3/log2(3) over ideal 3 -> 1/log2(3); q2 has no relevant row -> 1.
    last = out.stdout.splitlines()[-1].split(",")
    assert last[:2] == ["all", "nDCG@2"] and float(last[2]) == pytest.approx((1 / math.log2(3) + 1.0) / 2, abs=1e-12)
    bad = runner.invoke(main, ["evaluate", str(q), str(r), "--dialect", "nope"])
    assert bad.exit_code == 2 and bad.stderr.startswith("rankwise: error: unknown dialect 'nope'")
    explained = runner.invoke(main, ["explain", "AP@10", "--dialect", "lightgbm"])
    assert "denom = min_k_R" in explained.stdout and "Dialect: lightgbm@4" in explained.stdout


# ------------------------------------------------------------------------------------------ real libraries
def _random_groups(seed: int) -> list[tuple[str, str, int, float]]:
    rng = np.random.default_rng(seed)
    rows = []
    for q, size in enumerate(rng.integers(1, 12, rng.integers(1, 6))):
        for d in range(size):
            rows.append((f"q{q}", f"d{d}", int(rng.choice([0, 0, 1, 2, 3, 4])), float(rng.integers(0, 4))))
    return rows


@pytest.mark.parametrize("seed", range(25))
def test_lightgbm_dialect_equals_lightgbm(seed: int) -> None:
    lgb = pytest.importorskip("lightgbm")
    rows = _random_groups(seed)
    groups = np.unique([r[0] for r in rows], return_counts=True)[1]
    labels = np.array([r[2] for r in rows])
    scores = np.array([r[3] for r in rows])  # heavy ties: LightGBM keeps the rows' order
    data = lgb.Dataset(np.zeros((len(rows), 1)), label=labels, group=groups, init_score=scores,
                       params={"verbosity": -1})  # fmt: skip
    cutoffs = [1, 3, 5, 10]
    params = {"objective": "lambdarank", "metric": ["ndcg", "map"], "eval_at": cutoffs, "verbosity": -1}
    booster = lgb.Booster(params=params, train_set=data)  # no trees: metrics of the initial scores
    reference = {e.metric_name: e.metric_value for e in booster.eval_train()}
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q, d, label, score in rows:
        qrels.setdefault(q, {})[d] = label
        run.setdefault(q, {})[d] = score
    measures = [f"nDCG@{k}" for k in cutoffs] + [f"AP@{k}" for k in cutoffs]
    ours = rankwise.evaluate(qrels, run, measures, dialect="lightgbm").aggregate
    for k in cutoffs:
        assert close(ours[f"nDCG@{k}"], reference[f"ndcg@{k}"])
        assert close(ours[f"AP@{k}"], reference[f"map@{k}"])


RANX_METRICS = {
    "ndcg@5": "nDCG@5", "ndcg": "nDCG", "ndcg_burges@10": "nDCG(gain=exp2)@10", "dcg@5": "DCG@5",
    "map@5": "AP@5", "map": "AP", "precision@5": "P@5", "recall@5": "R@5", "f1@5": "F1@5", "mrr": "RR",
    "mrr@3": "RR@3", "hit_rate@5": "HitRate@5", "hits@5": "NumRelRet@5", "r-precision": "Rprec", "bpref": "bpref",
    "precision": "SetP",  # uncut: hits ÷ |run| (ranx/metrics/precision.py:12-17)
}  # fmt: skip


def _ranx_case(seed: int) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(rng.integers(1, 5)):
        docs = [f"d{i}" for i in range(rng.integers(2, 20))]
        qrels[f"q{q}"] = {d: int(rng.choice([0, 1, 1, 2, 3])) for d in docs if rng.random() < 0.6}
        qrels[f"q{q}"][docs[0]] = max(1, qrels[f"q{q}"].get(docs[0], 1))
        if q == 0 or rng.random() < 0.85:
            chosen = rng.choice(docs, rng.integers(1, len(docs) + 1), replace=False)
            run[f"q{q}"] = {str(d): float(s) for d, s in zip(chosen, rng.permutation(len(chosen)) + 1.0)}
    return qrels, run


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level", [1, 2])
def test_ranx_dialect_equals_ranx(seed: int, level: int) -> None:
    """Tie-free runs (ranx orders tied scores with an unstable sort); missing queries made comparable."""
    ranx = pytest.importorskip("ranx")
    qrels, run = _ranx_case(seed)
    suffix = "" if level == 1 else f"-l{level}"
    ours = rankwise.evaluate(qrels, run, list(RANX_METRICS.values()), dialect="ranx", rel_level=level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for metric, name in RANX_METRICS.items():
            if metric == "bpref":  # ranx 0.3.21 returns 0 for every query here when queries are made comparable
                continue
            theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metric + suffix, make_comparable=True,
                                   return_mean=False)  # fmt: skip
            for qid, value in zip(ranx.Qrels(qrels).keys(), theirs):
                assert close(ours.per_query[qid][name], float(value)), (metric, qid)
        for qid in run:  # bpref one query at a time
            theirs = ranx.evaluate(ranx.Qrels({qid: qrels[qid]}), ranx.Run({qid: run[qid]}), "bpref" + suffix)
            assert close(ours.per_query[qid]["bpref"], float(theirs)), ("bpref", qid)


def test_ranx_scores_an_empty_ranking_zero() -> None:
    ranx = pytest.importorskip("ranx")
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    run = {"q1": {"a": 0.5}, "q2": {}}  # q2's ranking is empty
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["precision@5", "ndcg@10", "map"], make_comparable=True)
    ours = rankwise.evaluate(qrels, run, ["P@5", "nDCG@10", "AP"], dialect="ranx").aggregate
    assert ours == pytest.approx({"P@5": theirs["precision@5"], "nDCG@10": theirs["ndcg@10"], "AP": theirs["map"]})
    # uncut precision (ranx/metrics/precision.py:12-17): hits in the whole run ÷ its length, an empty run 0: SetP
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"c": 1}, "q3": {"x": 1}, "q4": {"a": 1}}
    run = {"q1": {"a": 0.5, "z": 0.9, "y": 0.1, "b": 0.3, "c": 0.2, "w": 0.05}, "q2": {}, "q4": {"n": 0.3}}
    for level in (1, 2):  # q1's run is longer than its judgments; q2's is empty; q3 is missing from the run
        suffix = "" if level == 1 else f"-l{level}"
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "precision" + suffix, make_comparable=True,
                               return_mean=False)  # fmt: skip
        uncut = rankwise.evaluate(qrels, run, ["SetP"], dialect="ranx", rel_level=level)
        assert {q: v["SetP"] for q, v in uncut.per_query.items()} == pytest.approx(
            dict(zip(ranx.Qrels(qrels).keys(), map(float, theirs)))
        )
        assert {q: v["SetP"] for q, v in uncut.per_query.items()} == {"q1": 2 / 6 / level, "q2": 0, "q3": 0, "q4": 0}
    # a run with no rows at all: ranx raises (its #67); rankwise says what it did
    empty = rankwise.evaluate(qrels, {}, ["P@5"], dialect="ranx")
    assert empty.aggregate["P@5"] == 0.0 and any("run has no rows" in note for note in empty.notes())


@pytest.mark.parametrize("seed", range(30))
def test_sklearn_dialect_equals_sklearn(seed: int) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    n_queries, n_items = int(rng.integers(1, 6)), int(rng.integers(2, 15))
    y_true = rng.choice([0, 0, 1, 2, 3], size=(n_queries, n_items))
    y_score = rng.integers(0, 4, size=(n_queries, n_items)).astype(float)  # heavy ties
    qrels = {f"q{i}": {f"d{j}": int(y_true[i, j]) for j in range(n_items)} for i in range(n_queries)}
    run = {f"q{i}": {f"d{j}": float(y_score[i, j]) for j in range(n_items)} for i in range(n_queries)}
    for k in (1, 3, 5, None):
        cut = "" if k is None else f"@{k}"
        ours = rankwise.evaluate(qrels, run, [f"nDCG{cut}", f"DCG{cut}"], dialect="sklearn")
        assert close(ours.aggregate[f"nDCG{cut}"], metrics.ndcg_score(y_true, y_score, k=k))
        for i in range(n_queries):
            theirs = metrics.dcg_score(y_true[i : i + 1], y_score[i : i + 1], k=k)
            assert close(ours.per_query[f"q{i}"][f"DCG{cut}"], theirs)


@pytest.mark.parametrize("seed", range(30))
def test_sklearn_ap_and_auc_read_tied_scores_as_one_threshold(seed: int) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    n_queries, n_items = int(rng.integers(1, 6)), int(rng.integers(2, 15))
    y_true = rng.choice([0, 0, 1, 2], size=(n_queries, n_items))
    y_score = rng.integers(0, 4, size=(n_queries, n_items)).astype(float)  # heavy ties
    qrels = {f"q{i}": {f"d{j}": int(y_true[i, j]) for j in range(n_items)} for i in range(n_queries)}
    run = {f"q{i}": {f"d{j}": float(y_score[i, j]) for j in range(n_items)} for i in range(n_queries)}
    ours = rankwise.evaluate(qrels, run, ["AP", "AUC"], dialect="sklearn")
    assert not any("ties=average is not defined" in note for note in ours.notes())  # both read ties as ties
    for i in range(n_queries):
        relevant = (y_true[i] >= 1).astype(int)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no positive: sklearn warns and returns 0
            expected = metrics.average_precision_score(relevant, y_score[i])
        assert close(ours.per_query[f"q{i}"]["AP"], expected)
        if 0 < relevant.sum() < n_items:
            lrap = metrics.label_ranking_average_precision_score(relevant[None, :], y_score[i][None, :])
            assert close(ours.per_query[f"q{i}"]["AP"], lrap)
            assert close(ours.per_query[f"q{i}"]["AUC"], metrics.roc_auc_score(relevant, y_score[i]))
    # the unit-test case of scikit-learn: all scores tied, labels [1, 1, 0] -> 2/3 (trec_eval's order: 1 or 1/2)
    tied = rankwise.evaluate({"q": {"a": 1, "b": 1, "c": 0}}, {"q": dict.fromkeys("abc", 0.5)}, "AP", dialect="sklearn")
    assert tied.aggregate["AP"] == pytest.approx(2 / 3)


def test_tie_average_is_an_expectation_only_for_linear_measures() -> None:
    # RR is not linear: computed on the doc-id order (b before a) with a caveat, instead of an expectation
    result = rankwise.evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 1.0}}, ["RR"], ties="average")
    assert result.aggregate["RR"] == 0.5
    assert any("ties=average is not defined for RR" in note for note in result.notes())
    # without ties=average nothing is said about it
    assert rankwise.evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 1.0}}, ["RR", "P@1"]).notes() == []
    # P@1 over a tie of one relevant and one non-relevant document is its expectation, 1/2
    assert rankwise.evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 1.0}}, "P@1", ties="average").aggregate[
        "P@1"
    ] == pytest.approx(0.5)


@pytest.mark.parametrize("seed", range(20))
def test_torchmetrics_dialect_equals_torchmetrics(seed: int) -> None:
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.functional.retrieval")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 15))
    preds = rng.permutation(n) - n / 3.0  # distinct scores, some <= 0
    grades = rng.choice([0, 0, 1, 2, 3], size=n)
    binary = (grades > 0).astype(int)
    qrels = {"q": {f"d{i}": int(g) for i, g in enumerate(grades)}}
    run = {"q": {f"d{i}": float(p) for i, p in enumerate(preds)}}
    p_t, b_t, g_t = torch.tensor(preds), torch.tensor(binary), torch.tensor(grades)
    for k in (1, 3, 5, 20):
        ours = rankwise.evaluate(qrels, run, [f"AP@{k}", f"P@{k}", f"R@{k}", f"RR@{k}", f"nDCG@{k}", f"HitRate@{k}"],
                                 dialect="torchmetrics").aggregate  # fmt: skip
        assert close32(ours[f"AP@{k}"], float(retrieval.retrieval_average_precision(p_t, b_t, top_k=k)))
        assert close32(ours[f"P@{k}"], float(retrieval.retrieval_precision(p_t, b_t, top_k=k)))
        assert close32(ours[f"R@{k}"], float(retrieval.retrieval_recall(p_t, b_t, top_k=k)))
        assert close32(ours[f"RR@{k}"], float(retrieval.retrieval_reciprocal_rank(p_t, b_t, top_k=k)))
        assert close32(ours[f"HitRate@{k}"], float(retrieval.retrieval_hit_rate(p_t, b_t, top_k=k)))
        assert close32(ours[f"nDCG@{k}"], float(retrieval.retrieval_normalized_dcg(p_t, g_t, top_k=k)))
    # nDCG averages tied scores
    tied = torch.tensor(np.round(preds / 3.0))
    run_tied = {"q": {f"d{i}": float(p) for i, p in enumerate(tied.numpy())}}
    ours = rankwise.evaluate(qrels, run_tied, "nDCG@3", dialect="torchmetrics").aggregate["nDCG@3"]
    assert close32(ours, float(retrieval.retrieval_normalized_dcg(tied, g_t, top_k=3)))


@pytest.mark.parametrize("seed", range(20))
def test_xgboost_dialect_equals_xgboost(seed: int) -> None:
    xgb = pytest.importorskip("xgboost")
    rows = _random_groups(seed)
    query = np.array([int(r[0][1:]) for r in rows])
    labels = np.array([r[2] for r in rows])
    scores = np.array([r[3] for r in rows])  # heavy ties: XGBoost keeps the rows' order
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q, d, label, score in rows:
        qrels.setdefault(q, {})[d] = label
        run.setdefault(q, {})[d] = score

    def reference(objective: str, y: np.ndarray, metrics: list[str]) -> dict[str, float]:
        data = xgb.DMatrix(np.zeros((len(rows), 1)), label=y, qid=query, base_margin=scores)
        booster = xgb.Booster({"objective": objective, "eval_metric": metrics, "base_score": 0}, [data])
        fields = booster.eval(data, name="train").split("\t")[1:]  # no trees: metrics of the base margins
        return {field.split(":")[0][len("train-") :]: float(field.split(":")[1]) for field in fields}

    graded = reference("rank:ndcg", labels, ["ndcg@3", "ndcg@5", "ndcg@3-"])
    binary = reference("rank:map", (labels > 0).astype(float), ["map@3", "map@5"])  # map needs binary labels
    ours = rankwise.evaluate(qrels, run, ["nDCG@3", "nDCG@5", "nDCG(empty=zero)@3", "AP@3", "AP@5"], dialect="xgboost")
    assert close(ours.aggregate["nDCG@3"], graded["ndcg@3"])
    assert close(ours.aggregate["nDCG@5"], graded["ndcg@5"])
    assert close(ours.aggregate["nDCG(empty=zero)@3"], graded["ndcg@3-"])
    assert close(ours.aggregate["AP@3"], binary["map@3"])
    assert close(ours.aggregate["AP@5"], binary["map@5"])


@pytest.mark.parametrize("seed", range(20))
def test_rs_metrics_dialect_equals_rs_metrics(seed: int) -> None:
    rs_metrics = pytest.importorskip("rs_metrics")
    rng = np.random.default_rng(seed)
    truth: dict[int, list[int]] = {}
    recs: dict[int, list[int]] = {}
    for user in range(int(rng.integers(1, 8))):
        truth[user] = [int(i) for i in rng.choice(30, int(rng.integers(1, 8)), replace=False)]
        if rng.random() < 0.85:  # some users get no list at all
            recs[user] = [int(i) for i in rng.choice(30, int(rng.integers(1, 15)), replace=False)]
    qrels = {str(u): {str(i): 1 for i in items} for u, items in truth.items()}
    run = {str(u): {str(i): float(len(items) - r) for r, i in enumerate(items)} for u, items in recs.items()}
    for k in (1, 5, 10):
        names = {"precision": f"P@{k}", "recall": f"R@{k}", "mrr": f"RR@{k}", "mapr": f"AP@{k}", "ndcg": f"nDCG@{k}",
                 "hitrate": f"HitRate@{k}"}  # fmt: skip
        ours = rankwise.evaluate(qrels, run, list(names.values()), dialect="rs_metrics")
        for function, measure in names.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the mean of an empty list
                theirs = getattr(rs_metrics, function)(truth, recs, k=k, apply_mean=False)
            for user, value in zip(truth, theirs):
                assert close(ours.per_query[str(user)][measure], float(value)), (function, k, user)


@pytest.mark.parametrize("seed", range(4))
def test_spark_mllib_dialect_equals_spark(spark, seed: int) -> None:
    from pyspark.ml.evaluation import RankingEvaluator

    rng = np.random.default_rng(seed)
    rows, qrels, run = [], {}, {}
    for user in range(int(rng.integers(2, 8))):
        labels = [float(i) for i in rng.choice(20, int(rng.integers(1, 6)), replace=False)]
        predicted = [float(i) for i in rng.choice(20, int(rng.integers(1, 12)), replace=False)]
        rows.append((predicted, labels))
        qrels[f"u{user}"] = {str(int(i)): 1 for i in labels}
        run[f"u{user}"] = {str(int(i)): float(len(predicted) - r) for r, i in enumerate(predicted)}
    frame = spark.createDataFrame(rows, ["prediction", "label"])
    names = {"precisionAtK": "P", "recallAtK": "R", "ndcgAtK": "nDCG", "meanAveragePrecisionAtK": "AP"}
    for k in (1, 5):
        ours = rankwise.evaluate(qrels, run, [f"{m}@{k}" for m in names.values()] + ["AP"], dialect="spark_mllib")
        for metric, measure in names.items():
            theirs = RankingEvaluator(metricName=metric, k=k).evaluate(frame)
            assert close(ours.aggregate[f"{measure}@{k}"], theirs), (metric, k)
    assert close(ours.aggregate["AP"], RankingEvaluator(metricName="meanAveragePrecision").evaluate(frame))


@pytest.mark.parametrize("seed", range(15))
def test_ms_recommenders_dialect_equals_recommenders(seed: int) -> None:
    evaluation = pytest.importorskip("recommenders.evaluation.python_evaluation")
    import pandas as pd

    rng = np.random.default_rng(seed)
    truth_rows, pred_rows = [], []
    for user in range(int(rng.integers(2, 8))):
        for item in rng.choice(25, int(rng.integers(1, 7)), replace=False):
            truth_rows.append((user, int(item), 1.0))
        if user == 0 or rng.random() < 0.8:  # some ground-truth users get no recommendations
            for rank, item in enumerate(rng.choice(25, int(rng.integers(1, 12)), replace=False)):
                pred_rows.append((user, int(item), float(100 - rank)))
    if rng.random() < 0.5:
        pred_rows.append((99, 1, 1.0))  # a user without ground truth
    truth = pd.DataFrame(truth_rows, columns=["userID", "itemID", "rating"])
    pred = pd.DataFrame(pred_rows, columns=["userID", "itemID", "prediction"])
    qrels = truth.rename(columns={"userID": "user_id", "itemID": "item_id", "rating": "relevance"}).astype(
        {"relevance": int}
    )
    run = pred.rename(columns={"userID": "user_id", "itemID": "item_id", "prediction": "score"})
    for k in (1, 5, 10):
        measures = [f"P@{k}", f"R@{k}", f"AP@{k}", f"nDCG@{k}", f"AP(denom=R)@{k}"]
        ours = rankwise.evaluate(qrels, run, measures, dialect="ms_recommenders").aggregate
        assert close(ours[f"P@{k}"], evaluation.precision_at_k(truth, pred, k=k))
        assert close(ours[f"R@{k}"], evaluation.recall_at_k(truth, pred, k=k))
        assert close(ours[f"AP@{k}"], evaluation.map_at_k(truth, pred, k=k))
        assert close(ours[f"nDCG@{k}"], evaluation.ndcg_at_k(truth, pred, k=k))
        assert close(ours[f"AP(denom=R)@{k}"], evaluation.map(truth, pred, k=k))  # its `map`: top k, ÷ r


def test_ms_recommenders_1_1_and_beta_recsys_divide_map_by_r() -> None:
    qrels = {"u": {"a": 1, "b": 1, "c": 1}}
    run = {"u": {"a": 2.0, "x": 1.0}}
    # one hit at rank 1: Σ P@i = 1; >= 1.2 divides by min(2, 3) = 2, <= 1.1 and Beta-RecSys by r = 3
    assert rankwise.evaluate(qrels, run, "AP@2", dialect="ms_recommenders").aggregate["AP@2"] == pytest.approx(1 / 2)
    for name in ("ms_recommenders@1.1", "beta_recsys"):
        assert rankwise.evaluate(qrels, run, "AP@2", dialect=name).aggregate["AP@2"] == pytest.approx(1 / 3)


def test_per_measure_query_sets_cover_different_users() -> None:
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    run = {"u1": {"a": 1.0}}
    result = rankwise.evaluate(qrels, run, ["P@1", "nDCG@1"], dialect="ms_recommenders")
    assert result.aggregate == {"P@1": 1.0, "nDCG@1": 0.5}  # P over u1 only, nDCG over u1 and u2
    assert result.query_ids == ("u1", "u2")
    assert math.isnan(result.per_query["u2"]["P@1"]) and result.per_query["u2"]["nDCG@1"] == 0.0
    assert result.undefined == {"P@1": 0, "nDCG@1": 0}
    assert "nDCG@1: averaged over queries=relevant" in result.notes()  # every ground-truth user with a relevant item


@pytest.mark.parametrize("seed", range(10))
def test_ms_recommenders_auc_equals_recommenders(seed: int) -> None:
    evaluation = pytest.importorskip("recommenders.evaluation.python_evaluation")
    import pandas as pd

    rng = np.random.default_rng(seed)
    truth_rows, pred_rows = [], []
    for user in range(int(rng.integers(2, 8))):
        for item in rng.choice(25, int(rng.integers(2, 9)), replace=False):
            truth_rows.append((user, int(item), float(rng.integers(0, 2))))
        for item in rng.choice(25, int(rng.integers(1, 15)), replace=False):
            pred_rows.append((user, int(item), float(rng.integers(0, 6)) / 5))  # ties, unjudged items
    truth = pd.DataFrame(truth_rows, columns=["userID", "itemID", "rating"])
    truth.loc[0, "rating"], truth.loc[1, "rating"] = 1.0, 0.0
    pred = pd.DataFrame([*pred_rows, (0, int(truth.itemID[0]), 0.5), (0, int(truth.itemID[1]), 0.25)],
                        columns=["userID", "itemID", "prediction"]).drop_duplicates(["userID", "itemID"])  # fmt: skip
    qrels = truth.rename(columns={"userID": "user_id", "itemID": "item_id", "rating": "relevance"}).astype(
        {"relevance": int}
    )
    run = pred.rename(columns={"userID": "user_id", "itemID": "item_id", "prediction": "score"})
    ours = rankwise.evaluate(qrels, run, ["AUC"], dialect="ms_recommenders").aggregate["AUC"]
    assert close(ours, evaluation.auc(truth, pred))


def test_every_test_file_a_dialect_names_exists() -> None:
    """Each dialect says how it is proven (``verified``): the test files it names are there (they follow a move)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    named = {(d.key, path) for d in DIALECTS for path in re.findall(r"tests/[\w/]+\.py", d.verified)}
    assert len(named) > 20
    assert not [(key, path) for key, path in named if not (root / path).is_file()]
