"""LensKit 2025.8's exposure and popularity metrics against ``rankwise.evaluate`` on the same lists, run through
LensKit's own metric code (skipped where lenskit is not installed; .ci/run installs it --no-deps):

- ``ExposureGini(n, items=N)`` (src/lenskit/metrics/ranking/_gini.py:85-132) is ``Gini(weight=geometric)@n`` with
  ``catalog=N`` (LensKit sums float32 exposures: equal to 1e-6); ``ExposureGini`` with another
  ``GeometricRankWeight(p)`` is ``Gini(weight=geometric,p=p)``;
- ``ListGini(n, items=N)`` (_gini.py:48-82) is ``Gini@n`` with ``catalog=N``;
- ``MeanPopRank(dataset, k=n)`` (src/lenskit/metrics/ranking/_pop.py:19-86), per list, is
  ``ARP(scale=quantile)@n`` with ``train=`` the dataset's interactions.

Lists have ties in score order only by rank (each list strictly ordered), items in training or not; per list and
aggregated; a list longer than n and one shorter."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import rankwise
from conftest import close


@pytest.fixture(scope="module")
def lenskit() -> None:
    pytest.importorskip("lenskit", reason="lenskit is not installed (.ci/run installs it --no-deps)")


def _case(seed: int) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(recs: 30 users with lists of 2 to 9 of 50 items, score = −rank; train: pairs over 40 items; truth: one item
    per user)."""
    rng = np.random.default_rng(seed)
    rows = [(u, int(item), -float(r)) for u in range(30)
            for r, item in enumerate(rng.choice(50, size=int(rng.integers(2, 10)), replace=False), 1)]  # fmt: skip
    recs = pl.DataFrame(rows, schema=["user_id", "item_id", "score"], orient="row")
    train = pl.DataFrame({"user_id": rng.integers(0, 30, 300), "item_id": rng.integers(0, 40, 300)}).unique()
    truth = recs.group_by("user_id").first().select("user_id", "item_id", pl.lit(1).alias("rating"))
    return recs, train, truth


def _item_lists(recs: pl.DataFrame) -> dict[int, object]:
    from lenskit.data import ItemList

    return {int(u): ItemList(item_ids=frame.sort("score", descending=True).get_column("item_id").to_numpy(),
                             ordered=True)
            for (u,), frame in recs.group_by("user_id")}  # fmt: skip


@pytest.mark.parametrize(("seed", "k", "patience"), [(0, 5, None), (1, 3, 0.5), (2, 8, 0.9)])
def test_exposure_and_list_gini(lenskit: None, seed: int, k: int, patience: float | None) -> None:
    from lenskit.metrics import ExposureGini, GeometricRankWeight, ListGini

    recs, _, truth = _case(seed)
    catalogue = 60
    weight = GeometricRankWeight() if patience is None else GeometricRankWeight(patience)
    exposure = ExposureGini(k, items=catalogue, weight=weight)
    listed = ListGini(k, items=catalogue)
    lists = list(_item_lists(recs).values())
    theirs_exposure = exposure.global_aggregate([exposure.compute_list_data(il, None) for il in lists])
    theirs_list = listed.global_aggregate([listed.compute_list_data(il, None) for il in lists])
    name = "Gini(weight=geometric)" if patience is None else f"Gini(weight=geometric,p={patience})"
    ours = rankwise.evaluate(truth, recs, [f"{name}@{k}", f"Gini@{k}"], catalog=catalogue, queries="run").aggregate
    assert close(ours[f"{name}@{k}"], theirs_exposure, rel_tol=1e-6), (ours, theirs_exposure)  # float32 sums
    assert close(ours[f"Gini@{k}"], theirs_list, rel_tol=1e-12), (ours, theirs_list)
    assert not close(ours[f"{name}@{k}"], ours[f"Gini@{k}"])


@pytest.mark.parametrize(("seed", "k"), [(0, 5), (3, 2), (4, 10)])
def test_mean_pop_rank(lenskit: None, seed: int, k: int) -> None:
    from lenskit.data import from_interactions_df
    from lenskit.metrics import MeanPopRank

    recs, train, truth = _case(seed)
    metric = MeanPopRank(from_interactions_df(train.to_pandas()), k=k)
    theirs = {u: metric.measure_list(il, None) for u, il in _item_lists(recs).items()}
    result = rankwise.evaluate(truth, recs, [f"ARP(scale=quantile)@{k}"], train=train, queries="run")
    ours = {int(u): values[f"ARP(scale=quantile)@{k}"] for u, values in result.per_query.items()}
    assert ours.keys() == theirs.keys()
    bad = [(u, ours[u], v) for u, v in theirs.items() if not close(ours[u], v, rel_tol=1e-12)]
    assert not bad, bad[:5]
    assert close(result.aggregate[f"ARP(scale=quantile)@{k}"], float(np.mean(list(theirs.values()))))
    assert any(0 < v < 1 for v in theirs.values())


def test_mean_pop_rank_by_hand() -> None:
    """Training users: a 3, b 2, c 2, d 1 → ascending average ranks d 1, b and c 2.5, a 4, ÷ 4; e (no training) 0."""
    train = pl.DataFrame({"user_id": ["u1", "u2", "u3", "u1", "u2", "u1", "u3", "u2"],
                          "item_id": ["a", "a", "a", "b", "b", "c", "c", "d"]})  # fmt: skip
    recs = {"u1": {"a": 3.0, "b": 2.0, "e": 1.0}, "u2": {"d": 1.0}}
    result = rankwise.evaluate({"u1": {"a": 1}, "u2": {"d": 1}}, recs, ["ARP(scale=quantile)"], train=train)
    per_query = result.per_query
    assert close(per_query["u1"]["ARP(scale=quantile)"], (4 / 4 + 2.5 / 4 + 0) / 3)
    assert close(per_query["u2"]["ARP(scale=quantile)"], 1 / 4)
    with pytest.raises(rankwise.RankwiseError, match="scale=quantile is already in"):
        rankwise.evaluate({"u1": {"a": 1}}, recs, ["ARP(scale=quantile,share=yes)"], train=train)


@pytest.mark.parametrize("partitions", [1, 3])
def test_spark_chunks_equal_the_local_engine(spark: object, partitions: int) -> None:
    """Gini with weight=geometric is global: its exposure per counted row travels with the item keys."""
    from spark_checks import on_both_engines

    recs, train, truth = _case(5)
    on_both_engines(spark, truth, recs, ["Gini(weight=geometric)@5", "Gini(weight=geometric,p=0.5)", "Gini@3"],
                    partitions, train=train, catalog=60, queries="run")  # type: ignore[arg-type]  # fmt: skip


def test_query_ranges_equal_the_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    from rankwise.pipeline import partitioned

    recs, train, truth = _case(6)
    measures = ["Gini(weight=geometric)@5", "Gini(weight=geometric,p=0.5)", "ARP(scale=quantile)@4"]
    whole = rankwise.evaluate(truth, recs, measures, train=train, catalog=60, queries="run")
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 23)
    parts = rankwise.evaluate(truth, recs, measures, train=train, catalog=60, queries="run")
    assert np.allclose(parts.values, whole.values, equal_nan=True, rtol=0, atol=1e-12)
    for key, value in whole.aggregate.items():
        assert close(parts.aggregate[key], value, rel_tol=1e-12), key
