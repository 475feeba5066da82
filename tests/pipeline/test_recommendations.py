"""Recommendation inputs: (user, item, rating) truth with a threshold, (user, item, score|rank) lists, k lists,
and MovieLens 100K (from ../shared, skipped when absent) evaluated by rankwise and the reference libraries."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

import rankwise
from rankwise import InputError
from rankwise.cli import main

ML100K = Path(__file__).resolve().parents[3] / "shared" / "data" / "ml-100k" / "ml-100k.inter"

TRUTH = pl.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [10, 11, 12, 10, 13], "rating": [5.0, 3.5, 4.5, 4.0, 2.0]})
RECS = pl.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [11, 10, 14, 13, 10], "rank": [1, 2, 3, 1, 2]})


def test_threshold_and_rank_columns() -> None:
    # threshold 4.5: user 1 relevant {10, 12}, user 2 none. Ranks: user 1 sees 11, 10, 14; user 2 sees 13, 10.
    result = rankwise.evaluate(TRUTH, RECS, ["P@2", "RR", "HitRate@1", "NumRel"], threshold=4.5)
    assert result.per_query["1"] == {"P@2": 0.5, "RR": 0.5, "HitRate@1": 0.0, "NumRel": 2.0}
    assert result.per_query["2"] == {"P@2": 0.0, "RR": 0.0, "HitRate@1": 0.0, "NumRel": 0.0}
    # threshold 4: user 2's item 10 (rating 4.0) becomes relevant, at rank 2
    assert rankwise.evaluate(TRUTH, RECS, "RR", threshold=4.0).per_query["2"]["RR"] == 0.5


def test_ratings_as_graded_gains_and_the_threshold_hint() -> None:
    graded = TRUTH.filter(pl.col("rating") == pl.col("rating").round(0))  # integral ratings are grades
    result = rankwise.evaluate(graded, RECS, "DCG@2")
    # user 1: 11 (not in truth), 10 (rating 5) -> 5/log2(3)
    assert result.per_query["1"]["DCG@2"] == pytest.approx(5 / math.log2(3), abs=1e-12)
    with pytest.raises(InputError, match=r"row 1: relevance grade 3\.5 is not an integer \(ratings need a relevance"):
        rankwise.evaluate(TRUTH, RECS, "P@1")


def test_cutoff_lists_expand_measures_without_a_cutoff() -> None:
    result = rankwise.evaluate(TRUTH, RECS, ["nDCG", "P", "RR@1", "bpref"], cutoffs=[1, 2], threshold=4.5)
    assert result.keys == ("nDCG@1", "nDCG@2", "P@1", "P@2", "RR@1", "bpref")


def test_recbole_inter_file_and_cli_columns(tmp_path: Path) -> None:
    inter = tmp_path / "truth.inter"
    inter.write_text("user_id:token\titem_id:token\trating:float\n1\t10\t5.0\n1\t12\t4.5\n2\t10\t4.0\n")
    recs = tmp_path / "recs.csv"
    RECS.rename({"user_id": "u", "item_id": "i", "rank": "position"}).write_csv(recs)
    runner = CliRunner()
    out = runner.invoke(main, ["evaluate", str(inter), str(recs), "--threshold", "4.5", "--rec-cols", "u,i,position",
                               "-m", "RR", "-k", "1,2", "-m", "HitRate", "--format", "csv", "-q"])  # fmt: skip
    assert out.exit_code == 0, out.stderr
    rows = out.stdout.splitlines()
    # user 1 sees 11, 10 (relevant: 5.0), 14; user 2 is judged (10 at 4.0) but nothing reaches 4.5
    assert "1,RR@2,0.5" in rows and "1,HitRate@1,0.0" in rows and "1,HitRate@2,1.0" in rows
    assert "2,HitRate@2,0.0" in rows and "all,HitRate@2,0.5" in rows
    bad = runner.invoke(main, ["evaluate", str(inter), str(recs), "--rec-cols", "u,i"])
    assert bad.exit_code == 2 and "give three names" in bad.stderr


# ------------------------------------------------------------------------------------------ MovieLens 100K
@pytest.fixture(scope="module")
def movielens() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Global timestamp split 80/20; recommend the 30 most popular training items (ties by item id) to every
    test user; ratings >= 4 are relevant."""
    if not ML100K.exists():
        pytest.skip(f"{ML100K} not found (shared data is optional)")
    data = pl.read_csv(ML100K, separator="\t")
    data = data.rename({c: c.split(":")[0] for c in data.columns})
    cut = data.get_column("timestamp").quantile(0.8)
    train, test = data.filter(pl.col("timestamp") <= cut), data.filter(pl.col("timestamp") > cut)
    popular = train.group_by("item_id").len().sort(["len", "item_id"], descending=[True, False]).head(30)
    users = test.select("user_id").unique().sort("user_id")
    recs = users.join(popular.with_row_index("rank", offset=1).select("item_id", "rank"), how="cross")
    return test.select("user_id", "item_id", "rating"), recs


def _as_dicts(truth: pl.DataFrame, recs: pl.DataFrame) -> tuple[dict, dict]:
    qrels: dict[str, dict[str, int]] = {}
    for user, item, rating in truth.iter_rows():
        qrels.setdefault(str(user), {})[str(item)] = int(rating >= 4)
    run: dict[str, dict[str, float]] = {}
    for user, item, rank in recs.iter_rows():
        run.setdefault(str(user), {})[str(item)] = float(-rank)
    return qrels, run


def test_movielens_trec_eval_equals_pytrec_eval(movielens) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    truth, recs = movielens
    qrels, run = _as_dicts(truth, recs)
    ours = rankwise.evaluate(truth, recs, ["P@10", "map_cut_20", "ndcg_cut_20", "recip_rank", "R@20"], threshold=4)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"P", "map_cut", "ndcg_cut", "recip_rank", "recall"})
    theirs = reference.evaluate(run)
    pairs = {"P@10": "P_10", "map_cut_20": "map_cut_20", "ndcg_cut_20": "ndcg_cut_20", "recip_rank": "recip_rank",
             "R@20": "recall_20"}  # fmt: skip
    assert set(theirs) == set(ours.per_query)
    for qid, values in theirs.items():
        for mine, name in pairs.items():
            assert math.isclose(ours.per_query[qid][mine], values[name], rel_tol=1e-9, abs_tol=1e-12)


def test_movielens_ranx_and_lightgbm_dialects(movielens) -> None:
    truth, recs = movielens
    qrels, run = _as_dicts(truth, recs)
    ranx = pytest.importorskip("ranx")
    ours = rankwise.evaluate(truth, recs, ["nDCG@20", "AP@20", "P@10"], threshold=4, dialect="ranx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["ndcg@20", "map@20", "precision@10"],
                               make_comparable=True)  # fmt: skip
    for mine, name in (("nDCG@20", "ndcg@20"), ("AP@20", "map@20"), ("P@10", "precision@10")):
        assert math.isclose(ours.aggregate[mine], theirs[name], rel_tol=1e-9)
    lgb = pytest.importorskip("lightgbm")
    rows = [(user, item, qrels[user].get(item, 0), score) for user in sorted(run) for item, score in run[user].items()]
    groups = np.unique([r[0] for r in rows], return_counts=True)[1]  # rows sorted by user id as text
    data = lgb.Dataset(np.zeros((len(rows), 1)), label=[r[2] for r in rows], group=groups,
                       init_score=[r[3] for r in rows], params={"verbosity": -1})  # fmt: skip
    params = {"objective": "lambdarank", "metric": ["ndcg", "map"], "eval_at": [10, 20], "verbosity": -1}
    reference = {e.metric_name: e.metric_value for e in lgb.Booster(params=params, train_set=data).eval_train()}
    ours = rankwise.evaluate(truth, recs, ["nDCG@10", "nDCG@20", "AP@10", "AP@20"], threshold=4, dialect="lightgbm")
    for k in (10, 20):
        assert math.isclose(ours.aggregate[f"nDCG@{k}"], reference[f"ndcg@{k}"], rel_tol=1e-9)
        assert math.isclose(ours.aggregate[f"AP@{k}"], reference[f"map@{k}"], rel_tol=1e-9)


def test_movielens_ms_recommenders_and_rs_metrics_dialects(movielens) -> None:
    truth, recs = movielens
    evaluation = pytest.importorskip("recommenders.evaluation.python_evaluation")
    liked = truth.filter(pl.col("rating") >= 4)  # MS Recommenders' ground truth lists relevant items only
    true_df = liked.rename({"user_id": "userID", "item_id": "itemID"}).to_pandas()
    pred_df = (
        recs.with_columns(prediction=-pl.col("rank").cast(pl.Float64))
        .rename({"user_id": "userID", "item_id": "itemID"})
        .drop("rank")
        .to_pandas()
    )
    ours = rankwise.evaluate(liked, recs, ["P@10", "R@20", "AP@20", "nDCG@20"], threshold=4, dialect="ms_recommenders")
    theirs = {
        "P@10": evaluation.precision_at_k(true_df, pred_df, k=10),
        "R@20": evaluation.recall_at_k(true_df, pred_df, k=20),
        "AP@20": evaluation.map_at_k(true_df, pred_df, k=20),
        "nDCG@20": evaluation.ndcg_at_k(true_df, pred_df, k=20),
    }
    for key, value in theirs.items():
        assert math.isclose(ours.aggregate[key], value, rel_tol=1e-9), key
    rs_metrics = pytest.importorskip("rs_metrics")
    qrels, run = _as_dicts(truth, recs)
    relevant = {int(u): [int(i) for i, g in items.items() if g] for u, items in qrels.items()}
    lists = {int(u): [int(i) for i, _ in sorted(items.items(), key=lambda kv: -kv[1])] for u, items in run.items()}
    pairs = (("mapr", "AP@20"), ("ndcg", "nDCG@20"), ("mrr", "RR@20"), ("recall", "R@20"), ("precision", "P@10"))
    ours = rankwise.evaluate(truth, recs, [key for _, key in pairs], threshold=4, dialect="rs_metrics")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # users without relevant items: 0/0 in rs_metrics
        for function, key in pairs:
            k = int(key.split("@")[1])
            per_user = [float(v) for v in getattr(rs_metrics, function)(relevant, lists, k=k, apply_mean=False)]
            for user, value in zip(relevant, per_user):
                mine = ours.per_query[str(user)][key]
                assert (math.isnan(mine) and math.isnan(value)) or math.isclose(mine, value, rel_tol=1e-9), key
            assert math.isclose(ours.aggregate[key], float(np.nanmean(per_user)), rel_tol=1e-9), key
            assert ours.undefined[key] == int(np.isnan(per_user).sum())
