"""Each library's own metric names under its dialect (issue #23): every name in the library's own registry resolves to a
rankwise measure or is listed as not supported with why; names evaluated under their dialect equal the library's own
numbers on random cases; without --dialect a library's name gets a one-line hint naming the dialect."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import rankwise
from conftest import close, run_cli
from rankwise.cli import main
from rankwise.dialects import get_dialect, library_names
from rankwise.measures.parse import read_peer_name
from rankwise.measures.peers import PEERS, PeerNames, peer_names
from rankwise.pipeline.plan import make_plan


def _resolves(names: PeerNames, name: str) -> None:
    """``name`` is listed, and reads as a measure (with a cutoff where the family needs one) or says why not."""
    entry = names.find(name)
    assert entry is not None, f"{names.library}: {name!r} is not listed"
    if entry.measure is None:
        assert len(entry.why) > 10, f"{names.library}: {name} is not supported without a reason"
        return
    measure = None
    for text in (name, f"{name}@10", f"{name}@0.5"):
        try:
            measure = read_peer_name(names, text)
        except rankwise.MeasureError:
            continue
        break
    assert measure is not None, f"{names.library}: {name} does not read as a measure"


def test_every_dialect_with_names_checks_them() -> None:
    for names in PEERS:
        dialect = get_dialect(names.library)
        assert dialect.names is names
        for entry in names.names:
            _resolves(names, entry.name)


def test_ranx_metric_switch() -> None:
    evaluate = pytest.importorskip("ranx.meta.evaluate")
    switch = re.findall(r'metric == "([\w\-]+)"', inspect.getsource(evaluate.metric_switch))
    assert len(switch) >= 14
    for name in switch:
        _resolves(peer_names("ranx"), name)  # type: ignore[arg-type]


def test_ir_measures_registry() -> None:
    measures = pytest.importorskip("ir_measures.measures")
    assert len(measures.registry) >= 40
    names = peer_names("ir_measures")
    assert names is not None
    for name, measure in measures.registry.items():
        _resolves(names, name)
        entry = names.find(name)
        assert entry is not None and entry.measure is not None
        for param in measure.SUPPORTED_PARAMS:  # every parameter is read or refused with why
            arg = entry.args.get(param) or names.args.get(param)
            rankwise_param = param in rankwise.measures.family(entry.measure.split("(")[0]).param_names().split(", ")
            assert arg is not None or rankwise_param, (name, param)


def test_ms_recommenders_python_evaluation() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluation = pytest.importorskip("recommenders.evaluation.python_evaluation")
    helpers = {"get_top_k_items", "merge_ranking_true_pred", "merge_rating_true_pred"}
    public = [n for n, f in inspect.getmembers(evaluation, inspect.isfunction)
              if f.__module__ == evaluation.__name__ and not n.startswith("_") and n not in helpers]  # fmt: skip
    assert {"ndcg_at_k", "novelty", "diversity", "serendipity", "catalog_coverage"} <= set(public)
    for name in public:
        _resolves(peer_names("ms_recommenders"), name)  # type: ignore[arg-type]


def test_torchmetrics_retrieval() -> None:
    classes = pytest.importorskip("torchmetrics.retrieval")
    functions = importlib.import_module("torchmetrics.functional.retrieval")
    for name in [*classes.__all__, *functions.__all__]:
        _resolves(peer_names("torchmetrics"), name)  # type: ignore[arg-type]


def test_sklearn_ranking_functions() -> None:
    ranking = pytest.importorskip("sklearn.metrics._ranking")
    public = [n for n, f in inspect.getmembers(ranking, inspect.isfunction)
              if f.__module__ == ranking.__name__ and not n.startswith("_")]  # fmt: skip
    assert "ndcg_score" in public
    for name in public:
        _resolves(peer_names("sklearn"), name)  # type: ignore[arg-type]


def test_replay_rectools_lenskit_rs_metrics_registries() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        replay = pytest.importorskip("replay.metrics")
        rectools = pytest.importorskip("rectools.metrics")
        lenskit = pytest.importorskip("lenskit.metrics")
        rs_metrics = pytest.importorskip("rs_metrics")
    from replay.metrics.base_metric import Metric  # type: ignore[import-untyped]

    replay_names = [n for n in dir(replay) if isinstance(getattr(replay, n), type)
                    and issubclass(getattr(replay, n), Metric) and getattr(replay, n) is not Metric]  # fmt: skip
    rectools_names = [n for n in rectools.__all__ if n not in {
        "calc_metrics", "PairwiseDistanceCalculator", "PairwiseHammingDistanceCalculator",
        "SparsePairwiseHammingDistanceCalculator", "DebiasConfig", "debias_interactions"}]  # fmt: skip
    lenskit_names = [n for n in lenskit.__all__ if n not in {
        "Metric", "MetricFunction", "MeasurementCollector", "ListMetric", "GlobalMetric", "RankingMetricBase",
        "RunAnalysis", "RunAnalysisResult", "RankWeight", "GeometricRankWeight", "LogRankWeight",
        "quick_measure_model"}]  # fmt: skip
    rs_names = [n for n in dir(rs_metrics) if callable(getattr(rs_metrics, n)) and not n.startswith("_")
                and n != "pandas_to_dict"]  # fmt: skip
    for library, found in (("replay", replay_names), ("rectools", rectools_names), ("lenskit", lenskit_names),
                           ("rs_metrics", rs_names)):  # fmt: skip
        assert len(found) >= 4, library
        for name in found:
            _resolves(peer_names(library), name)  # type: ignore[arg-type]


def test_recbole_metric_classes() -> None:
    python = os.environ.get("RANKWISE_REFERENCE_PYTHON")
    if not python:
        pytest.skip("RANKWISE_REFERENCE_PYTHON is not set: RecBole runs in tests/reference_env")
    code = ("import inspect, recbole.evaluator.metrics as m, recbole.evaluator.base_metric as b; "
            "print(' '.join(n for n, c in inspect.getmembers(m, inspect.isclass) "
            "if issubclass(c, b.AbstractMetric) and c.__module__ == m.__name__))")  # fmt: skip
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    names = done.stdout.split()
    assert "ItemCoverage" in names and "GiniIndex" in names
    for name in names:
        _resolves(peer_names("recbole"), name)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------------------
# The library's own numbers


def _ranx_case(seed: int, grades: tuple[int, ...] = (0, 1, 1, 2, 3)) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(int(rng.integers(2, 6))):
        docs = [f"d{i}" for i in range(int(rng.integers(3, 25)))]
        qrels[f"{q + 1}"] = {d: int(rng.choice(grades)) for d in docs if rng.random() < 0.6}
        qrels[f"{q + 1}"][docs[0]] = max(1, qrels[f"{q + 1}"].get(docs[0], 1))
        chosen = rng.choice(docs, int(rng.integers(1, len(docs) + 1)), replace=False)
        run[f"{q + 1}"] = {str(d): float(s) for d, s in zip(chosen, rng.permutation(len(chosen)) + 1.0)}  # no ties
    return qrels, run


RANX_NAMES = ["hits@5", "hit_rate@5", "precision@5", "precision", "recall@5", "recall", "f1@5", "r-precision", "mrr",
              "mrr@3", "map@5", "map", "dcg@5", "dcg_burges@5", "ndcg@5", "ndcg", "ndcg_burges@10"]
"""ranx's names compared (bpref: ranx's 0/0 of a query without a judged non-relevant document, a known bug)."""


@pytest.mark.parametrize("seed", range(8))
def test_ranx_names_equal_ranx(seed: int) -> None:
    ranx = pytest.importorskip("ranx")
    qrels, run = _ranx_case(seed)
    ours = rankwise.evaluate(qrels, run, RANX_NAMES, dialect="ranx").aggregate
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), RANX_NAMES, make_comparable=True)
    for name in RANX_NAMES:
        assert close(ours[name], theirs[name], rel_tol=1e-9, abs_tol=1e-12), (name, ours[name], theirs[name])
    binary, run = _ranx_case(seed, grades=(0, 1))  # ranx weighs RBP by the grade: 0/1 grades
    rbp = ["rbp.95", "rbp.8", "ndcg@10-l1"]
    ours = rankwise.evaluate(binary, run, rbp, dialect="ranx").aggregate
    theirs = ranx.evaluate(ranx.Qrels(binary), ranx.Run(run), rbp, make_comparable=True)
    assert all(close(ours[n], theirs[n], rel_tol=1e-9) for n in rbp), (ours, theirs)


GAINS = "NDCG(gains={0:0,1:1,2:5,3:9})@10"
IR_NAMES = ["nDCG(dcg=exp-log2)@10", "nDCG(dcg='exp-log2')@5", "nDCG@5", GAINS, "AP(rel=2)", "AP@5", "MAP",
            "P@10", "P(rel=2)@5", "RR", "MRR@3", "R@100", "Recall@5", "Judged@10", "Success@3", "Rprec", "BPref",
            "NumRet(rel=1)", "NumRel", "NumQ", "SetP", "SetR", "SetAP", "SetF(beta=2.0)"]


@pytest.mark.parametrize("seed", range(8))
def test_ir_measures_names_equal_ir_measures(seed: int) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = _ranx_case(seed)
    ours = rankwise.evaluate(qrels, run, IR_NAMES, dialect="ir_measures").aggregate
    measures = {n: ir_measures.parse_measure(n.replace("=exp-log2", "='exp-log2'")) for n in IR_NAMES if n != GAINS}
    measures[GAINS] = ir_measures.nDCG(gains={0: 0, 1: 1, 2: 5, 3: 9}) @ 10  # its parser reads no dict
    by_name = {}
    for measure in measures.values():  # the provider ir_measures picks with every provider installed, named (its
        # fallback to another provider when one is unavailable would change the definition)
        provider = next(ir_measures.providers.registry[p] for p in ("pytrec_eval", "gdeval", "judged", "msmarco")
                        if ir_measures.providers.registry[p].supports(measure))  # fmt: skip
        by_name[str(measure)] = provider.calc_aggregate([measure], qrels, run)[measure]
    for name in IR_NAMES:
        key = str(measures[name])
        tol = 1e-5 if "exp-log2" in name else 1e-9  # ir_measures runs gdeval.pl for it, which prints 5 decimals
        assert close(ours[name], by_name[key], rel_tol=1e-6, abs_tol=tol), (name, ours[name], by_name[key])


@pytest.mark.parametrize("seed", range(6))
def test_ms_recommenders_names_equal_recommenders(seed: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluation = pytest.importorskip("recommenders.evaluation.python_evaluation")
    import pandas as pd

    rng = np.random.default_rng(seed)
    truth_rows, pred_rows, train_rows = [], [], []
    for user in range(int(rng.integers(3, 9))):
        for item in rng.choice(30, int(rng.integers(1, 7)), replace=False):
            truth_rows.append((user, int(item), 1.0))
        items = rng.permutation(30)  # a user's recommendations exclude its training items (as novelty requires)
        for item in items[: int(rng.integers(1, 10))]:
            train_rows.append((user, int(item), 1.0))
        for rank, item in enumerate(items[-int(rng.integers(1, 9)):]):
            pred_rows.append((user, int(item), float(100 - rank)))
    truth = pd.DataFrame(truth_rows, columns=["userID", "itemID", "rating"])
    pred = pd.DataFrame(pred_rows, columns=["userID", "itemID", "prediction"])
    train = pd.DataFrame(train_rows, columns=["userID", "itemID", "rating"])
    qrels = truth.rename(columns={"userID": "user_id", "itemID": "item_id", "rating": "relevance"}).astype(
        {"relevance": int})  # fmt: skip
    run = pred.rename(columns={"userID": "user_id", "itemID": "item_id", "prediction": "score"})
    training = train.rename(columns={"userID": "user_id", "itemID": "item_id"})[["user_id", "item_id"]]
    names = ["precision_at_k", "recall_at_k(k=5)", "ndcg_at_k(k=3)", "map_at_k", "map", "novelty@10",
             "catalog_coverage@10", "distributional_coverage@10"]
    ours = rankwise.evaluate(qrels, run, names, dialect="ms_recommenders", train=training).aggregate
    pred_novelty = pred[pred["itemID"].isin(set(train["itemID"]))]  # novelty raises on items unseen in training
    theirs = {
        "precision_at_k": evaluation.precision_at_k(truth, pred, k=10),
        "recall_at_k(k=5)": evaluation.recall_at_k(truth, pred, k=5),
        "ndcg_at_k(k=3)": evaluation.ndcg_at_k(truth, pred, k=3),
        "map_at_k": evaluation.map_at_k(truth, pred, k=10),
        "map": evaluation.map(truth, pred, k=10),
        "catalog_coverage@10": evaluation.catalog_coverage(train, pred),
    }
    # distributional_coverage: its last line indexes a Series by position ([0]), a KeyError on pandas 3; its formula
    # (python_evaluation.py distributional_coverage): -Σ p(i) log2 p(i), p(i) = rows recommending i / all rows
    shares = pred["itemID"].value_counts().to_numpy() / len(pred)
    theirs["distributional_coverage@10"] = float(-(shares * np.log2(shares)).sum())
    for name, value in theirs.items():
        assert close(ours[name], value, rel_tol=1e-9, abs_tol=1e-12), (name, ours[name], value)
    if len(pred_novelty):
        only_seen = run[run["item_id"].isin(set(train["itemID"]))]
        novelty = rankwise.evaluate(qrels, only_seen, ["novelty@10", "Novelty@10"], dialect="ms_recommenders",
                                    train=training)  # fmt: skip
        # novelty's last line indexes a Series by position ([0]): a KeyError on pandas 3. Its per-item values
        # (historical_item_novelty) summed over the recommended rows ÷ the rows, as python_evaluation.py novelty does
        per_item = evaluation.historical_item_novelty(train, pred_novelty).set_index("itemID")["item_novelty"]
        expected = float(per_item.loc[pred_novelty["itemID"]].sum() / len(pred_novelty))
        assert close(novelty.aggregate["novelty@10"], expected, rel_tol=1e-9), (novelty.aggregate, expected)
        assert any("Novelty@10 is rankwise's Novelty@10" in note for note in novelty.notes())


@pytest.mark.parametrize("seed", range(6))
def test_torchmetrics_names_equal_torchmetrics(seed: int) -> None:
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.functional.retrieval")
    qrels, run = _ranx_case(seed, grades=(0, 0, 1, 2))
    query = next(iter(qrels))
    docs = sorted(set(qrels[query]) | set(run[query]))  # the items torchmetrics is given: judged or ranked
    scores = {d: run[query].get(d, -1.0 - i) for i, d in enumerate(docs)}  # distinct: the unranked score <= 0
    qrels, run = {query: {d: qrels[query].get(d, 0) for d in docs}}, {query: scores}
    preds, grades = np.array([run[query][d] for d in docs]), np.array([qrels[query][d] for d in docs])
    p_t, b_t = torch.tensor(preds), torch.tensor((grades > 0).astype(int))
    names = {"RetrievalNormalizedDCG(top_k=3)": retrieval.retrieval_normalized_dcg(p_t, torch.tensor(grades), top_k=3),
             "retrieval_average_precision(top_k=5)": retrieval.retrieval_average_precision(p_t, b_t, top_k=5),
             "RetrievalPrecision(top_k=20, adaptive_k=True)": retrieval.retrieval_precision(p_t, b_t, top_k=20,
                                                                                             adaptive_k=True),
             "RetrievalRecall(top_k=2)": retrieval.retrieval_recall(p_t, b_t, top_k=2),
             "retrieval_reciprocal_rank": retrieval.retrieval_reciprocal_rank(p_t, b_t),
             "RetrievalHitRate(top_k=1)": retrieval.retrieval_hit_rate(p_t, b_t, top_k=1),
             "RetrievalRPrecision": retrieval.retrieval_r_precision(p_t, b_t)}  # fmt: skip
    ours = rankwise.evaluate(qrels, run, list(names), dialect="torchmetrics").aggregate
    for name, value in names.items():
        assert close(ours[name], float(value), rel_tol=1e-6, abs_tol=1e-7), (name, ours[name], float(value))


@pytest.mark.parametrize("seed", range(8))
def test_sklearn_names_equal_sklearn(seed: int) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 12))
    grades = rng.choice([0, 0, 1, 2], size=n)
    grades[int(rng.integers(0, n))] = 0
    grades[int(rng.integers(0, n))] = 1  # both classes
    scores = rng.choice([0.1, 0.2, 0.5, 0.9], size=n)  # heavy ties
    qrels = {"q": {f"d{i}": int(g) for i, g in enumerate(grades)}}
    run = {"q": {f"d{i}": float(s) for i, s in enumerate(scores)}}
    binary, y, s = (grades > 0).astype(int), grades[None, :], scores[None, :]
    names = {"ndcg_score(k=3)": metrics.ndcg_score(y, s, k=3), "ndcg_score": metrics.ndcg_score(y, s),
             "dcg_score(k=5, log_base=10)": metrics.dcg_score(y, s, k=5, log_base=10),
             "average_precision_score": metrics.average_precision_score(binary, scores),
             "label_ranking_average_precision_score": metrics.label_ranking_average_precision_score(binary[None, :], s),
             "roc_auc_score": metrics.roc_auc_score(binary, scores),
             "coverage_error": metrics.coverage_error(binary[None, :], s),
             "label_ranking_loss": metrics.label_ranking_loss(binary[None, :], s)}  # fmt: skip
    ours = rankwise.evaluate(qrels, run, list(names), dialect="sklearn").aggregate
    for name, value in names.items():
        assert close(ours[name], float(value), rel_tol=1e-9, abs_tol=1e-12), (name, ours[name], float(value))


# ---------------------------------------------------------------------------------------------------------------
# Hints, listing, refusals


@pytest.mark.parametrize(("text", "hint"), [
    ("hit_rate@10", "`hit_rate` is ranx's name: use --dialect ranx, or HitRate"),
    ("hits@10", "`hits` is ranx's name: use --dialect ranx, or HitRate(count=hits)"),
    ("ndcg_burges@10", "`ndcg_burges` is ranx's name: use --dialect ranx, or nDCG(gain=exp2)"),
    ("ndcg_at_k", "`ndcg_at_k` is MS Recommenders' name: use --dialect ms_recommenders, or nDCG"),
    ("RetrievalNormalizedDCG(top_k=10)", "use --dialect torchmetrics, or nDCG"),
    ("rmse", "for what rankwise does not compute"),
])  # fmt: skip
def test_a_library_name_without_its_dialect_names_the_dialect(text: str, hint: str) -> None:
    with pytest.raises(rankwise.MeasureError) as info:
        rankwise.parse_measure(text)
    assert hint in str(info.value) and "\n" not in str(info.value)


def test_ms_recommenders_novelty_is_self_information() -> None:
    plan_pairs = dict(make_plan(["novelty@10"], "ms_recommenders").pairs)
    assert plan_pairs["novelty@10"].name == "SelfInformation"
    assert dict(make_plan(["novelty@10"], None).pairs)["novelty@10"].name == "Novelty"


def test_unsupported_names_and_arguments_say_why() -> None:
    with pytest.raises(rankwise.MeasureError, match="rankwise does not compute MS Recommenders' historical_item"):
        make_plan(["historical_item_novelty"], "ms_recommenders")
    with pytest.raises(rankwise.MeasureError, match=r"judged_only.*not supported.*-J"):
        make_plan(["AP(judged_only=True)"], "ir_measures")
    with pytest.raises(rankwise.MeasureError, match="must be one of log2, exp-log2"):
        make_plan(["nDCG(dcg=exp)@10"], "ir_measures")


def test_the_command_line_reads_a_library_s_names() -> None:
    qrels, run = "src/rankwise/examples/qrels.txt", "src/rankwise/examples/run.txt"
    code, out, _ = run_cli("evaluate", qrels, run, "-m", "hit_rate@10", "-m", "ndcg_burges@10", "--dialect", "ranx")
    assert code == 0 and "hit_rate@10" in out and "ndcg_burges@10" in out
    code, _, err = run_cli("evaluate", qrels, run, "-m", "hit_rate@10")
    assert code != 0 and "use --dialect ranx, or HitRate" in err
    with pytest.raises(rankwise.MeasureError, match=r"needs its p: rbp\.DIGITS"):
        make_plan(["rbp"], "ranx")


def test_dialects_name_lists_the_names() -> None:
    rows = library_names("ranx")
    assert {"name": "hit_rate", "measure": "HitRate", "arguments": "", "note": ""} in rows
    done = CliRunner().invoke(main, ["dialects", "ms_recommenders"])
    assert done.exit_code == 0, done.output
    assert "novelty" in done.output and "SelfInformation" in done.output and "not supported" in done.output
    done = CliRunner().invoke(main, ["dialects", "ranx", "--format", "json"])
    assert done.exit_code == 0 and '"ndcg_burges"' in done.output
    done = CliRunner().invoke(main, ["dialects", "trec_eval"])
    assert done.exit_code == 0 and "rankwise's own names" in done.output


def test_cutoffs_reach_library_names_and_rankwise_names_alike() -> None:
    """``cutoffs=`` (``-k``) under a dialect: a library name written without its cutoff (ir_measures' ``P``, ranx's
    ``hit_rate``) is read once per cutoff, with the numbers of the names written with them; a rankwise name the
    library spells the same way (ranx's ``ndcg``) gets no note."""
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d2": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.9, "d3": 0.1}, "q2": {"d2": 0.3, "d1": 0.2}}
    for dialect, names in (("ir_measures", ["nDCG", "P", "AP", "R"]), ("ranx", ["hit_rate", "ndcg", "precision"])):
        expanded = rankwise.evaluate(qrels, run, names, cutoffs=[1, 3], dialect=dialect)
        written = rankwise.evaluate(qrels, run, [f"{n}@{k}" for n in names for k in (1, 3)], dialect=dialect)
        assert expanded.aggregate == written.aggregate
    assert rankwise.evaluate(qrels, run, ["nDCG@10"], dialect="ranx").notes() == []
