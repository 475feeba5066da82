"""Baselines (rankwise.recsys.baselines): hand-computed small cases, EASE against the direct numpy formula, and
RecTools' and LensKit's own models where they install; the sampled-evaluation guard; the experiment command."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from conftest import close
from rankwise.cli import main
from rankwise.errors import InputError, RankwiseError
from rankwise.recsys import EASE, ItemKNN, MostPopular, RandomRecommender, load_ratings
from rankwise.recsys.baselines import top_k
from rankwise.recsys.sampled import (
    corrected_values,
    looks_sampled,
    metric_at_rank,
    sampled_metric,
    sampled_rank_probabilities,
)

# users: 1 {10, 20}, 2 {10, 30}, 3 {10, 20, 40}; items in id order 10, 20, 30, 40
TRAIN = load_ratings(pl.DataFrame({"user_id": [1, 1, 2, 2, 3, 3, 3], "item_id": [10, 20, 10, 30, 10, 20, 40]}))
X = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 1]], dtype=float)
ITEMS = ["10", "20", "30", "40"]


def _lists(frame: pl.DataFrame) -> dict[str, list[str]]:
    return {u: g.sort("rank").get_column("item_id").to_list() for (u,), g in frame.group_by("user_id")}


def test_most_popular_by_hand() -> None:
    recs = MostPopular().fit(TRAIN).recommend(["1", "2", "9"], k=2).frame
    # popularity 10: 3, 20: 2, 30: 1, 40: 1 -> user 1 (has 10, 20): 30, 40 tie at 1, smaller id first
    assert _lists(recs) == {"1": ["30", "40"], "2": ["20", "40"], "9": ["10", "20"]}
    assert recs.filter(pl.col("user_id") == "9").get_column("score").to_list() == [3.0, 2.0]


def test_item_knn_by_hand() -> None:
    norms = np.sqrt(X.sum(axis=0))
    similarity = (X.T @ X) / np.outer(norms, norms)
    np.fill_diagonal(similarity, 0.0)
    expected = X @ similarity
    recs = ItemKNN().fit(TRAIN).recommend(["1", "2", "3"], k=4).frame
    for row in recs.iter_rows(named=True):
        assert close(row["score"], expected[int(row["user_id"]) - 1, ITEMS.index(row["item_id"])])
    assert _lists(recs)["1"] == ["40", "30"]  # 40: cos(10,40) + cos(20,40) = 1/√3 + 1/√2 > 30: 1/√3


def test_item_knn_keeps_top_neighbours() -> None:
    norms = np.sqrt(X.sum(axis=0))
    similarity = (X.T @ X) / np.outer(norms, norms)
    np.fill_diagonal(similarity, 0.0)
    kept = np.zeros_like(similarity)
    for j in range(4):  # per target item j: its most similar item i (ties by smaller index)
        i = int(np.lexsort((np.arange(4), -similarity[:, j]))[0])
        kept[i, j] = similarity[i, j]
    expected = X @ kept
    recs = ItemKNN(neighbors=1).fit(TRAIN).recommend(["1", "2", "3"], k=4, exclude_seen=False).frame
    for row in recs.iter_rows(named=True):
        assert close(row["score"], expected[int(row["user_id"]) - 1, ITEMS.index(row["item_id"])])


@pytest.mark.parametrize("lam", [0.5, 10.0])
def test_ease_equals_the_direct_formula(lam: float) -> None:
    p = np.linalg.inv(X.T @ X + lam * np.eye(4))
    b = np.eye(4) - p @ np.diag(1 / np.diag(p))
    scores = X @ b
    recs = EASE(regularization=lam).fit(TRAIN).recommend(["1", "2", "3"], k=4, exclude_seen=False).frame
    for row in recs.iter_rows(named=True):
        assert close(row["score"], scores[int(row["user_id"]) - 1, ITEMS.index(row["item_id"])], rel_tol=1e-9,
                     abs_tol=1e-12)  # fmt: skip
    seen_excluded = EASE(regularization=lam).fit(TRAIN).recommend(["3"], k=4).frame
    assert seen_excluded.get_column("item_id").to_list() == ["30"]


def test_ease_refuses_too_many_items() -> None:
    with pytest.raises(RankwiseError, match=r"EASE on 4 items needs about 0.0 GiB .* above the limit"):
        EASE(max_bytes=100).fit(TRAIN)
    assert EASE.memory_bytes(30_000) == 3 * 8 * 30_000**2


def test_random_is_seeded() -> None:
    first = RandomRecommender(seed=3).fit(TRAIN).recommend(["1", "2"], k=2).frame
    assert first.equals(RandomRecommender(seed=3).fit(TRAIN).recommend(["1", "2"], k=2).frame)
    assert not first.equals(RandomRecommender(seed=4).fit(TRAIN).recommend(["1", "2"], k=2).frame)
    assert set(_lists(first)["1"]).isdisjoint({"10", "20"})


def test_top_k_breaks_ties_by_column_even_at_the_cut() -> None:
    scores = np.array([[1.0, 3.0, 3.0, 3.0, -np.inf], [0.0, 0.0, 0.0, 0.0, 0.0], [-np.inf] * 5])
    row, col, _, rank = top_k(scores, 2)
    assert row.tolist() == [0, 0, 1, 1] and col.tolist() == [1, 2, 0, 1] and rank.tolist() == [1, 2, 1, 2]


def test_personalised_models_skip_cold_users_and_say_so() -> None:
    recs = EASE().fit(TRAIN).recommend(["1", "new"], k=2)
    assert recs.frame.get_column("user_id").unique().to_list() == ["1"]
    assert recs.notes == ("1 users have no training interactions and get no list from EASE",)
    with pytest.raises(InputError, match="k must be a positive integer"):
        MostPopular().fit(TRAIN).recommend(["1"], k=0)


def test_writes_tables_and_trec_runs(tmp_path: Path) -> None:
    recs = MostPopular().fit(TRAIN).recommend(["1"], k=2)
    recs.write(tmp_path / "run.txt", run_name="pop")
    assert (tmp_path / "run.txt").read_text().splitlines() == ["1 Q0 30 1 1.0 pop", "1 Q0 40 2 1.0 pop"]
    recs.write(tmp_path / "recs.csv")
    assert pl.read_csv(tmp_path / "recs.csv", schema_overrides={"user_id": pl.String, "item_id": pl.String}).equals(
        recs.frame
    )


def _ml100k_train() -> tuple[pl.DataFrame, list[str]]:
    from recsys_lists import lists, skip_without_data

    skip_without_data()
    data = lists("ease")
    return load_ratings(data.train), data.truth.get_column("user_id").unique().to_list()


def _rectools_dataset(train: pl.DataFrame) -> object:
    from rectools import Columns
    from rectools.dataset import Dataset

    # integer ids: RecTools 0.19 cannot read pandas 3's string columns
    frame = train.select(pl.col("user_id").cast(pl.Int64).alias(Columns.User),
                         pl.col("item_id").cast(pl.Int64).alias(Columns.Item),
                         pl.lit(1.0).alias(Columns.Weight), pl.lit("2020-01-01").str.to_datetime()
                         .alias(Columns.Datetime)).to_pandas()  # fmt: skip
    return Dataset.construct(frame)


def _rectools_models() -> object:
    pytest.importorskip("rectools", reason="rectools is not installed (.ci/run installs it --no-deps)")
    try:
        import rectools.models as models
    except ImportError as exc:
        pytest.skip(f"rectools.models cannot be imported ({exc}: it imports implicit for every model; "
                    "pip install --no-deps implicit)")  # fmt: skip
    return models


def test_matches_rectools_ease() -> None:
    models = _rectools_models()
    train, _ = _ml100k_train()
    dataset = _rectools_dataset(train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = models.EASEModel(regularization=500.0).fit(dataset)  # type: ignore[attr-defined]
    ours = EASE(regularization=500.0).fit(train)
    # the learned item-item weights B, item for item (RecTools inverts in float32). Its recommend() is not compared:
    # it scores through implicit's float32 top-k, whose scores differ from X·B by up to ~0.5 % here.
    position = {str(item): i for i, item in enumerate(dataset.item_id_map.external_ids)}
    order = np.array([position[item] for item in ours._fitted.items])  # type: ignore[union-attr]
    assert np.allclose(theirs.weight[np.ix_(order, order)], ours._weights, rtol=0, atol=1e-6)


def test_matches_rectools_popular() -> None:
    models = _rectools_models()
    train, users = _ml100k_train()
    dataset = _rectools_dataset(train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = models.PopularModel(popularity="n_users").fit(dataset)  # type: ignore[attr-defined]
        popular = model.recommend([int(u) for u in users], dataset, k=20, filter_viewed=True)
    ours = MostPopular().fit(train).recommend(users, k=20).frame
    theirs = dict(zip(zip(popular["user_id"].astype(str), popular["rank"]), popular["score"]))
    assert len(theirs) == ours.height
    # popularity ties are broken differently (RecTools: its internal item order); the score at every rank agrees
    for user, rank, score in ours.select("user_id", "rank", "score").iter_rows():
        assert theirs[(user, rank)] == score


def test_matches_lenskit_item_knn() -> None:
    pytest.importorskip("lenskit", reason="lenskit is not installed (.ci/run installs it --no-deps)")
    from lenskit.data import ItemList, RecQuery, from_interactions_df
    from lenskit.knn import ItemKNNScorer

    train = load_ratings(pl.DataFrame({"user_id": np.repeat(np.arange(12), 5),
                                       "item_id": np.random.default_rng(0).integers(0, 15, 60)})).unique(
        ["user_id", "item_id"])  # fmt: skip
    dataset = from_interactions_df(train.select(pl.col("user_id").cast(pl.Int64), pl.col("item_id").cast(pl.Int64))
                                   .to_pandas(), user_col="user_id", item_col="item_id")  # fmt: skip
    scorer = ItemKNNScorer(k=1000, feedback="implicit", min_sim=1e-12)  # every neighbour: the sum of similarities
    scorer.train(dataset)
    ours = ItemKNN().fit(train).recommend([str(u) for u in range(12)], k=15, exclude_seen=False).frame
    items = np.arange(15)
    for user in range(12):
        history = [int(i) for i in train.filter(pl.col("user_id") == str(user)).get_column("item_id")]
        query = RecQuery(user_id=user, history_items=ItemList(item_ids=history))
        their = scorer(query=query, items=ItemList(item_ids=items)).scores("pandas", index="ids")
        mine = dict(zip(ours.filter(pl.col("user_id") == str(user)).get_column("item_id"),
                        ours.filter(pl.col("user_id") == str(user)).get_column("score")))  # fmt: skip
        for item, value in their.items():
            expected = 0.0 if np.isnan(value) else value
            assert close(mine.get(str(item), 0.0), expected, rel_tol=1e-6, abs_tol=1e-9), (user, item)


# ---------------------------------------------------------------------------------------------------------------
# Sampled evaluation


def test_sampled_rank_distribution_is_binomial() -> None:
    a = sampled_rank_probabilities(50, 10)
    assert np.allclose(a.sum(axis=1), 1.0)
    assert a[0, 0] == 1.0 and a[-1, -1] == 1.0  # rank 1 stays first; the last item is last among any sample
    from math import comb

    p = 19 / 49  # full rank 20
    assert close(a[19, 3], comb(10, 3) * p**3 * (1 - p) ** 7)


def test_correction_is_unbiased_where_it_can_be_and_beats_the_sampled_value() -> None:
    n, m = 500, 50
    values = corrected_values("RR", None, n, m, gamma=0.0)
    a = sampled_rank_probabilities(n, m)
    # MES is least squares: its expectation is the projection of M on A's column space, closer than the raw value
    full_values = metric_at_rank("RR", None, np.arange(1, n + 1))
    raw_error = np.abs(a @ metric_at_rank("RR", None, np.arange(1, m + 2)) - full_values)
    assert np.abs(a @ values - full_values).mean() < raw_error.mean()
    rng = np.random.default_rng(0)
    full = np.minimum(rng.geometric(0.02, 20_000), n)
    sampled = 1 + rng.binomial(m, (full - 1) / (n - 1))
    estimate = sampled_metric(sampled, "HitRate", 10, n_items=n, n_negatives=m, gamma=0.01)
    truth = metric_at_rank("HitRate", 10, full).mean()
    assert abs(estimate.corrected - truth) < 0.2 * abs(estimate.sampled - truth)
    assert "not consistent with full-ranking ones (Krichene & Rendle, KDD 2020)" in estimate.note


def test_sampled_lists_are_recognised() -> None:
    assert "1 positive + 100 sampled negatives" in str(looks_sampled(np.full(30, 101), 1682))
    assert looks_sampled(np.array([20, 20, 19]), 1682) is None
    assert looks_sampled(np.full(30, 1682), 1682) is None
    with pytest.raises(InputError, match=r"sampled ranks must be integers in 1\.\.101"):
        sampled_metric(np.array([0, 3]), "HitRate", 10, n_items=1000, n_negatives=100)


# ---------------------------------------------------------------------------------------------------------------
# The experiment, one command


def test_recsys_experiment_on_ml100k(tmp_path: Path) -> None:
    from recsys_lists import ML100K, skip_without_data

    skip_without_data()
    result = CliRunner().invoke(main, ["recsys-experiment", str(ML100K), "--format", "csv"])
    assert result.exit_code == 0, result.output
    table = pl.read_csv(result.stdout.encode())
    value = dict(zip(table.get_column("dialect"), table.iter_rows(named=True)))
    assert value["dl_rs_eval@2019"]["HitRate@20"] > 1  # DL-RS-Eval counts hits
    assert value["daisyrec@1"]["RR@20"] > value["trec_eval@10"]["RR@20"]  # DaisyRec sums 1/rank over hits
    assert value["openrec@tf2"]["nDCG@20"] > value["trec_eval@10"]["nDCG@20"]  # unnormalised DCG
    assert table.get_column("AP@20").round(12).n_unique() >= 4  # several MAP values
    assert close(value["trec_eval@10"]["HitRate@20"], 34 / 62)
    markdown = CliRunner().invoke(main, ["recsys-experiment", str(ML100K), "--format", "markdown", "--plot",
                                         str(tmp_path / "p.png")])  # fmt: skip
    assert markdown.exit_code == 0 and "| daisyrec@1 |" in markdown.stdout and (tmp_path / "p.png").stat().st_size


def test_recsys_experiment_fails_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("user_id,item_id,rating,timestamp\n1,2,x,3\n")
    result = CliRunner().invoke(main, ["recsys-experiment", str(path)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"rankwise: error: {path}:2: rating (rating) 'x' is not a number"
