"""Beyond-accuracy measures (rankwise.recsys.beyond): hand-computed cases, then each library's own code run on the
same lists, per user where the library has per-user values: RePlay, rs_metrics, MS Recommenders, RecTools, LensKit;
RecBole and Elliot (not installable here) by their source lines transcribed and cited."""

from __future__ import annotations

import math
import warnings
from collections import Counter

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import close
from rankwise.errors import InputError
from rankwise.recsys import beyond

# ---------------------------------------------------------------------------------------------------------------
# A small case computed by hand
#
# train: u1 {a, b}, u2 {a, c}, u3 {a, b, d}        n_users = 3, pairs = 7; users per item: a 3, b 2, c 1, d 1
# lists: u1 [c, d, e], u2 [b, d], u3 [c]           (e: never seen in training)
TRAIN = pl.DataFrame({"user_id": ["u1", "u1", "u2", "u2", "u3", "u3", "u3"],
                      "item_id": ["a", "b", "a", "c", "a", "b", "d"]})  # fmt: skip
RECS = pl.DataFrame({"user_id": ["u1", "u1", "u1", "u2", "u2", "u3"], "item_id": ["c", "d", "e", "b", "d", "c"],
                     "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0]})  # fmt: skip


def _per_user(result: beyond.BeyondResult) -> dict[str, float]:
    assert result.per_user is not None
    return dict(result.per_user.iter_rows())


def test_coverage_by_hand() -> None:
    # recommended: {b, c, d, e}; train items {a, b, c, d}
    assert beyond.coverage(RECS, train=TRAIN, dialect="ms_recommenders").value == 4 / 4
    assert beyond.coverage(RECS, train=TRAIN, dialect="replay").value == 3 / 4
    assert beyond.coverage(RECS, catalog=10).value == 4 / 10
    assert beyond.coverage(RECS, catalog=list("abcdefgh"), count="known").value == 4 / 8
    assert beyond.coverage(RECS, over="count").value == 4
    assert beyond.coverage(RECS, k=1, over="count").value == 2  # c, b


def test_entropy_and_gini_by_hand() -> None:
    # counts: c 2, d 2, e 1, b 1 over 6 slots
    p = np.array([2, 2, 1, 1]) / 6
    assert close(beyond.distributional_coverage(RECS).value, float(-(p * np.log2(p)).sum()))
    assert close(beyond.shannon_entropy(RECS, dialect="recbole").value, float(-(p * np.log(p)).sum()) / 4)
    # catalogue of 6: sorted counts 0, 0, 1, 1, 2, 2; G = Σ (2j − 7) c_j / (6 · 6)
    expected = ((2 * 3 - 7) * 1 + (2 * 4 - 7) * 1 + (2 * 5 - 7) * 2 + (2 * 6 - 7) * 2) / 36
    assert close(beyond.gini_index(RECS, catalog=6).value, expected)


def test_novelty_by_hand() -> None:
    seen = {"u1": {"a", "b"}, "u2": {"a", "c"}, "u3": {"a", "b", "d"}}
    lists = {"u1": ["c", "d", "e"], "u2": ["b", "d"], "u3": ["c"]}
    assert _per_user(beyond.unseen_share(RECS, train=TRAIN)) == {u: 1 - len(set(items) & seen[u]) / len(items)
                                                                 for u, items in lists.items()}  # fmt: skip
    users_of = {"a": 3, "b": 2, "c": 1, "d": 1}
    info = {i: -math.log2(users_of.get(i, 1) / 3) for i in "abcde"}  # e cold: as one user
    rectools = _per_user(beyond.self_information(RECS, train=TRAIN, dialect="rectools"))
    assert all(close(rectools[u], float(np.mean([info[i] for i in items]))) for u, items in lists.items())
    replay = _per_user(beyond.self_information(RECS, train=TRAIN, k=3, dialect="replay"))
    assert all(close(replay[u], sum(info[i] / math.log2(3) for i in items) / 3) for u, items in lists.items())
    # MS: p from 7 pairs, e contributes 0, pooled over the 6 rows
    ms_info = {i: -math.log2(users_of[i] / 7) for i in "abcd"}
    pooled = sum(ms_info.get(i, 0.0) for items in lists.values() for i in items) / 6
    assert close(beyond.self_information(RECS, train=TRAIN, dialect="ms_recommenders").value, pooled)


def test_popularity_and_long_tail_by_hand() -> None:
    users_of = {"a": 3, "b": 2, "c": 1, "d": 1}
    lists = {"u1": ["c", "d", "e"], "u2": ["b", "d"], "u3": ["c"]}
    arp = _per_user(beyond.average_popularity(RECS, train=TRAIN))
    assert arp == {u: float(np.mean([users_of.get(i, 0) for i in items])) for u, items in lists.items()}
    # Elliot: short head = a (3 of 7 < 5.6), b (5 < 5.6), c (6 >= 5.6: crosses, included) -> long tail {d}
    assert beyond.long_tail_items(TRAIN, head_share=0.8).to_list() == ["d"]
    assert _per_user(beyond.long_tail(RECS, train=TRAIN, dialect="elliot")) == {"u1": 1 / 3, "u2": 1 / 2, "u3": 0.0}
    assert _per_user(beyond.long_tail(RECS, train=TRAIN, count=True)) == {"u1": 1.0, "u2": 1.0, "u3": 0.0}
    # RecBole: t = 0.5 -> the 2 least popular by (count, id): c, d
    assert sorted(beyond.long_tail_items(TRAIN, tail_ratio=0.5).to_list()) == ["c", "d"]


def test_diversity_by_hand() -> None:
    # co-occurrence cosine: users of a {1,2,3}, b {1,3}, c {2}, d {3}; cos(c, d) = 0, cos(b, d) = 1/√2
    ild = _per_user(beyond.intra_list_diversity(RECS, train=TRAIN))
    assert ild.keys() == {"u1", "u2"}  # u3 has one item: left out
    assert close(ild["u1"], 1 - (0 + 0 + 0) / 3)  # c, d, e: e unseen -> similarity 0
    assert close(ild["u2"], 1 - 1 / math.sqrt(2))
    features = pl.DataFrame({"item_id": list("abcde"), "f1": [1, 0, 1, 1, 0], "f2": [0, 1, 1, 0, 1]})
    hamming = _per_user(beyond.intra_list_diversity(RECS, features=features, dialect="rectools"))
    assert hamming == {"u1": (1 + 1 + 2) / 3, "u2": 2.0, "u3": 0.0}  # c=[1,1], d=[1,0], e=[0,1], b=[0,1]


def test_unexpectedness_and_serendipity_by_hand() -> None:
    base = pl.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["c", "a", "x"], "score": [2.0, 1.0, 1.0]})
    unexpected = _per_user(beyond.unexpectedness(RECS, baseline=base, k=2))
    assert unexpected == {"u1": 1 - 1 / 2, "u2": 1.0, "u3": 0.0}  # u3: no baseline list
    truth = pl.DataFrame({"user_id": ["u1", "u2"], "item_id": ["d", "b"]})
    # MS: u1's d vs history {a, b}: cos(d,a) = 1/√3, cos(d,b) = 1/√2; u2's b vs {a, c}: cos(b,a) = 2/√6, cos(b,c)=0
    ms = _per_user(beyond.serendipity(RECS, truth=truth, train=TRAIN, dialect="ms_recommenders"))
    assert close(ms["u1"], (1 - (1 / math.sqrt(3) + 1 / math.sqrt(2)) / 2) / 3)
    assert close(ms["u2"], (1 - (2 / math.sqrt(6)) / 2) / 2)
    assert ms["u3"] == 0.0
    # RecTools: n = 5 items; dense popularity ranks a 1, b 2, c 3, d 3; u1's d at rank 2, u2's b at rank 1
    rt = _per_user(beyond.serendipity(RECS, truth=truth, train=TRAIN, catalog=5, dialect="rectools"))
    assert close(rt["u1"], max((5 + 1 - 2) / 5 - (5 + 1 - 3) / 5, 0) / 3)
    assert close(rt["u2"], max((5 + 1 - 1) / 5 - (5 + 1 - 2) / 5, 0) / 2)


def test_missing_inputs_are_named() -> None:
    with pytest.raises(InputError, match="needs training interactions"):
        beyond.self_information(RECS, train=None)
    with pytest.raises(InputError, match="needs item features"):
        beyond.intra_list_diversity(RECS, kind="feature_cosine")
    with pytest.raises(InputError, match="needs the catalogue"):
        beyond.gini_index(RECS)
    with pytest.raises(InputError, match="no 'lenskit' definition"):
        beyond.coverage(RECS, catalog=5, dialect="lenskit")
    with pytest.raises(InputError, match="more than the catalogue"):
        beyond.gini_index(RECS, catalog=3)
    with pytest.raises(InputError, match=r"item features: 1 items have no features \(e.g. 'e'\)"):
        beyond.intra_list_diversity(RECS, kind="feature_cosine",
                                    features=pl.DataFrame({"item_id": list("abcd"), "f": [1.0, 2.0, 3.0, 4.0]}))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 12), min_size=1, max_size=6, unique=True), min_size=1, max_size=8),
       st.integers(1, 6))  # fmt: skip
def test_bounds_and_aggregates_hold_on_random_lists(items_per_user: list[list[int]], k: int) -> None:
    recs = pl.DataFrame({"user_id": [f"u{u}" for u, items in enumerate(items_per_user) for _ in items],
                         "item_id": [str(i) for items in items_per_user for i in items],
                         "score": [float(-r) for items in items_per_user for r in range(len(items))]})  # fmt: skip
    train = pl.DataFrame({"user_id": ["t1", "t1", "t2"], "item_id": ["0", "1", "1"]})
    gini = beyond.gini_index(recs, k=k, catalog=13).value
    assert 0 <= gini < 1
    novelty = beyond.unseen_share(recs, train=train, k=k)
    assert novelty.per_user is not None and novelty.per_user.get_column("value").is_between(0, 1).all()
    assert close(novelty.value, novelty.per_user.get_column("value").mean())
    entropy = beyond.distributional_coverage(recs, k=k).value
    distinct = beyond.coverage(recs, k=k, over="count").value
    assert -1e-12 <= entropy <= math.log2(distinct) + 1e-12


# ---------------------------------------------------------------------------------------------------------------
# The libraries' own code, on random lists and on MovieLens 100K


def _random_case(seed: int) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(train, recs with rank, truth, item features): 25 users, 40 items, lists of 8 unseen items (a few users with
    shorter lists), some recommended items never seen in training."""
    rng = np.random.default_rng(seed)
    train_rows, rec_rows, truth_rows = [], [], []
    for u in range(25):
        seen = rng.choice(34, size=rng.integers(2, 12), replace=False)  # items 34..39 are never trained on
        train_rows += [(f"u{u}", f"{i}") for i in seen]
        candidates = np.setdiff1d(np.arange(40), seen)
        picked = rng.choice(candidates, size=8 if u % 6 else 3, replace=False)
        rec_rows += [(f"u{u}", f"{i}", r + 1) for r, i in enumerate(picked)]
        truth_rows += [(f"u{u}", f"{i}") for i in rng.choice(candidates, size=4, replace=False)]
    features = pl.DataFrame({"item_id": [f"{i}" for i in range(40)],
                             **{f"f{j}": rng.integers(0, 2, 40) for j in range(5)}})  # fmt: skip
    return (pl.DataFrame(train_rows, schema=["user_id", "item_id"], orient="row"),
            pl.DataFrame(rec_rows, schema=["user_id", "item_id", "rank"], orient="row"),
            pl.DataFrame(truth_rows, schema=["user_id", "item_id"], orient="row"), features)  # fmt: skip


def _ml100k(model: str) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, int]:
    from recsys_lists import lists, skip_without_data

    skip_without_data()
    data = lists(model)
    truth = data.truth.filter(pl.col("rating") >= 4).select("user_id", "item_id")
    return data.train.select("user_id", "item_id"), data.recs.select("user_id", "item_id", "rank"), truth, \
        data.n_items  # fmt: skip


CASES = ["random0", "random1", "ease", "popularity"]


def _case(name: str) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, int]:
    if name.startswith("random"):
        train, recs, truth, _ = _random_case(int(name[-1]))
        return train, recs, truth, 40
    return _ml100k(name)


def _same_per_user(ours: beyond.BeyondResult, theirs: dict[str, float], tol: float = 1e-9) -> None:
    mine = _per_user(ours)
    assert mine.keys() == {str(u) for u in theirs}, "different users"
    bad = [(u, mine[str(u)], v) for u, v in theirs.items() if not close(mine[str(u)], v, rel_tol=tol, abs_tol=tol)]
    assert not bad, bad[:5]


def _replay() -> object:
    replay = pytest.importorskip("replay.metrics", reason="replay-rec is not installed (.ci/run installs it --no-deps)")
    return replay


@pytest.mark.parametrize("case", CASES)
def test_replay(case: str) -> None:
    metrics = _replay()
    train, recs, _, _ = _case(case)
    k = 5
    scored = recs.select(pl.col("user_id").alias("query_id"), "item_id", (-pl.col("rank")).cast(pl.Float64)
                         .alias("rating"))  # fmt: skip
    replay_train = train.rename({"user_id": "query_id"})
    per_user = metrics.PerUser()
    theirs = metrics.Coverage(k)(scored, replay_train)[f"Coverage@{k}"]
    assert close(beyond.coverage(recs, k=k, train=train, dialect="replay").value, theirs)
    _same_per_user(beyond.unseen_share(recs, train=train, k=k, dialect="replay"),
                   metrics.Novelty(k, mode=per_user)(scored, replay_train)[f"Novelty-PerUser@{k}"])  # fmt: skip
    _same_per_user(beyond.self_information(recs, train=train, k=k, dialect="replay"),
                   metrics.Surprisal(k, mode=per_user)(scored, replay_train)[f"Surprisal-PerUser@{k}"])  # fmt: skip
    baseline = recs.with_columns(pl.col("item_id").shift(1).over("user_id").fill_null("0"))  # overlapping lists
    base_scored = baseline.select(pl.col("user_id").alias("query_id"), "item_id",
                                  (-pl.col("rank")).cast(pl.Float64).alias("rating")).unique(["query_id", "item_id"])
    theirs_unexp = metrics.Unexpectedness(k, mode=per_user)(scored, base_scored)[f"Unexpectedness-PerUser@{k}"]
    _same_per_user(beyond.unexpectedness(recs, baseline=base_scored.rename({"query_id": "user_id", "rating": "score"}),
                                         k=k), theirs_unexp)  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_rs_metrics(case: str) -> None:
    rs_metrics = pytest.importorskip("rs_metrics", reason="rs_metrics is not installed (pip install '.[test]')")
    train, recs, _, _n_items = _case(case)
    k = 10
    catalogue = sorted(set(train.get_column("item_id")) | set(recs.get_column("item_id")))
    pred = recs.sort("user_id", "rank").to_pandas()
    log = train.to_pandas()
    assert close(beyond.coverage(recs, k=k, catalog=catalogue, dialect="rs_metrics").value,
                 rs_metrics.coverage(catalogue, pred, k=k))  # fmt: skip
    assert close(beyond.average_popularity(recs, train=train, k=k, dialect="rs_metrics").value,
                 rs_metrics.popularity(log, pred, k=k))  # fmt: skip
    assert close(beyond.self_information(recs, train=train, k=k, dialect="rs_metrics").value,
                 rs_metrics.surprisal(log, pred, k=k))  # fmt: skip


def _ms() -> object:
    return pytest.importorskip("recommenders.evaluation.python_evaluation",
                               reason="recommenders is not installed (.ci/run installs it --no-deps)")  # fmt: skip


@pytest.fixture
def ms(monkeypatch: pytest.MonkeyPatch) -> object:
    """MS Recommenders 1.2's python_evaluation, run with the two pandas 2 behaviours its code relies on and pandas 3
    removed: ``series[0]`` on a labelled Series meaning the first value (``df.agg({...})[0]`` in
    distributional_coverage, novelty, diversity, serendipity: a KeyError on pandas 3), and
    ``frame[col].fillna(0, inplace=True)`` writing into the frame (a silent no-op under copy-on-write: pairs that
    never co-occur would stay NaN and be skipped by the mean, instead of counting 0 as the code intends). Both are
    restored only inside MS's module calls; the library's own functions compute every value."""
    module = _ms()
    import pandas as pd

    if int(pd.__version__.split(".")[0]) >= 3:
        getitem, fillna, frame_getitem = pd.Series.__getitem__, pd.Series.fillna, pd.DataFrame.__getitem__

        def series_getitem(self: pd.Series, key: object) -> object:
            if isinstance(key, int) and not pd.api.types.is_integer_dtype(self.index.dtype) and key not in self.index:
                return self.iloc[key]
            return getitem(self, key)

        def frame_column(self: pd.DataFrame, key: object) -> object:
            out = frame_getitem(self, key)
            if isinstance(out, pd.Series) and isinstance(key, str):
                object.__setattr__(out, "_rankwise_parent", (self, key))
            return out

        def write_back_fillna(self: pd.Series, *args: object, inplace: bool = False, **kwargs: object) -> object:
            parent = self.__dict__.get("_rankwise_parent")
            if inplace and parent is not None:
                parent[0][parent[1]] = fillna(self, *args, **kwargs)
                return None
            return fillna(self, *args, inplace=inplace, **kwargs)

        monkeypatch.setattr(pd.Series, "__getitem__", series_getitem)
        monkeypatch.setattr(pd.DataFrame, "__getitem__", frame_column)
        monkeypatch.setattr(pd.Series, "fillna", write_back_fillna)
    for value in vars(module).values():  # lru_cache_df caches: start clean
        if hasattr(value, "cache_clear"):
            value.cache_clear()
    return module


@pytest.mark.parametrize("case", CASES)
def test_ms_recommenders(case: str, ms: object) -> None:
    train, recs, truth, _ = _case(case)
    k = 6
    cut = recs.filter(pl.col("rank") <= k)
    train_pd, reco_pd = train.to_pandas(), cut.select("user_id", "item_id").to_pandas()
    names = {"col_user": "user_id", "col_item": "item_id"}
    relevant = cut.join(truth.with_columns(pl.lit(1.0).alias("rel")), on=["user_id", "item_id"], how="left")
    reco_rel = relevant.select("user_id", "item_id", pl.col("rel").fill_null(0.0)).to_pandas()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        catalog = ms.catalog_coverage(train_pd, reco_pd, **names)  # type: ignore[attr-defined]
        distributional = ms.distributional_coverage(train_pd, reco_pd, **names)  # type: ignore[attr-defined]
        novelty = ms.novelty(train_pd, reco_pd, **names)  # type: ignore[attr-defined]
        diversity = ms.user_diversity(train_pd, reco_pd, **names)  # type: ignore[attr-defined]
        serendipity = ms.user_serendipity(train_pd, reco_rel, col_relevance="rel", **names)  # type: ignore[attr-defined]
        mean_diversity = ms.diversity(train_pd, reco_pd, **names)  # type: ignore[attr-defined]
    assert close(beyond.coverage(recs, k=k, train=train, dialect="ms_recommenders").value, catalog)
    assert close(beyond.distributional_coverage(recs, k=k).value, distributional)
    assert close(beyond.self_information(recs, train=train, k=k, dialect="ms_recommenders").value, novelty)
    ours = beyond.intra_list_diversity(recs, train=train, k=k, dialect="ms_recommenders")
    _same_per_user(ours, dict(zip(diversity["user_id"], diversity["user_diversity"])))
    assert close(ours.value, mean_diversity)
    _same_per_user(beyond.serendipity(recs, truth=truth, train=train, k=k, dialect="ms_recommenders"),
                   dict(zip(serendipity["user_id"], serendipity["user_serendipity"])))  # fmt: skip


def test_ms_recommenders_feature_diversity(ms: object) -> None:
    train, recs, _, features = _random_case(3)
    k = 5
    vectors = features.select("item_id", pl.concat_list(pl.exclude("item_id")).alias("features")).to_pandas()
    vectors["features"] = vectors["features"].map(lambda v: np.asarray(v, dtype=float))
    vectors = vectors[vectors["features"].map(lambda v: v.any())]  # MS divides by the norm: no zero vectors
    recs = recs.filter(pl.col("item_id").is_in(pl.Series(vectors["item_id"]).implode()))
    recs = recs.with_columns((pl.int_range(pl.len()).over("user_id") + 1).alias("rank"))
    cut = recs.filter(pl.col("rank") <= k).select("user_id", "item_id").to_pandas()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ms.user_diversity(train.to_pandas(), cut, item_feature_df=vectors,  # type: ignore[attr-defined]
                                   item_sim_measure="item_feature_vector", col_user="user_id",
                                   col_item="item_id")  # fmt: skip
    ours = beyond.intra_list_diversity(recs, k=k, kind="feature_cosine", features=features)
    _same_per_user(ours, dict(zip(theirs["user_id"], theirs["user_diversity"])))


def _rectools() -> object:
    return pytest.importorskip("rectools.metrics", reason="rectools is not installed (.ci/run installs it --no-deps)")


@pytest.mark.parametrize("case", CASES)
def test_rectools(case: str) -> None:
    metrics = _rectools()
    train, recs, truth, _n_items = _case(case)
    k = 7
    reco, prev, test = recs.to_pandas(), train.to_pandas(), truth.to_pandas()
    catalogue = sorted(set(train.get_column("item_id")) | set(recs.get_column("item_id")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        miuf = metrics.MeanInvUserFreq(k=k).calc_per_user(reco, prev)
        arp = metrics.AvgRecPopularity(k=k).calc_per_user(reco, prev)
        arp_share = metrics.AvgRecPopularity(k=k, normalize=True).calc_per_user(reco, prev)
        serendipity = metrics.Serendipity(k=k).calc_per_user(reco, test, prev, catalogue)
    _same_per_user(beyond.self_information(recs, train=train, k=k, dialect="rectools"), miuf.to_dict())
    _same_per_user(beyond.average_popularity(recs, train=train, k=k, dialect="rectools"), arp.to_dict())
    _same_per_user(beyond.average_popularity(recs, train=train, k=k, popularity="interactions", share=True),
                   arp_share.to_dict())  # fmt: skip
    _same_per_user(beyond.serendipity(recs, truth=truth, train=train, k=k, catalog=catalogue, dialect="rectools"),
                   serendipity.to_dict())  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rectools_intra_list_diversity(seed: int) -> None:
    metrics = _rectools()
    from rectools.metrics.distances import PairwiseHammingDistanceCalculator

    _, recs, _, features = _random_case(seed)
    k = 6
    # integer item ids: RecTools checks that the pair columns are numpy arrays, and pandas 3 gives text columns as
    # Arrow-backed arrays instead
    as_int = pl.col("item_id").cast(pl.Int64)
    calculator = PairwiseHammingDistanceCalculator(features.with_columns(as_int).to_pandas().set_index("item_id"))
    reco = recs.with_columns(as_int).to_pandas()
    theirs = metrics.IntraListDiversity(k=k, distance_calculator=calculator).calc_per_user(reco)
    _same_per_user(beyond.intra_list_diversity(recs, k=k, features=features, dialect="rectools"), theirs.to_dict())


@pytest.mark.parametrize("case", CASES)
def test_lenskit_list_gini(case: str) -> None:
    pytest.importorskip("lenskit", reason="lenskit is not installed (.ci/run installs it --no-deps)")
    from lenskit.data import ItemList
    from lenskit.metrics import ListGini

    _train, recs, _, n_items = _case(case)
    k = 10
    catalogue = n_items + 5
    metric = ListGini(k, items=catalogue)
    values = [metric.compute_list_data(ItemList(item_ids=group.sort("rank").get_column("item_id").to_list(),
                                                ordered=True), None)
              for _, group in recs.group_by("user_id", maintain_order=True)]  # fmt: skip
    assert close(beyond.gini_index(recs, k=k, catalog=catalogue).value, metric.global_aggregate(values))


# ---------------------------------------------------------------------------------------------------------------
# Pinned: RecBole 1.2 (recbole/evaluator/metrics.py: ItemCoverage, AveragePopularity, ShannonEntropy, GiniIndex,
# TailPercentage) and Elliot 0.3 (evaluation/popularity_utils.py get_short_head/get_long_tail, metrics/bias/aplt,
# aclt), whose environments cannot be installed here: their lines transcribed, run on the same full-length lists.


def _recbole_matrix(recs: pl.DataFrame, k: int) -> np.ndarray:
    full = recs.filter(pl.col("rank") <= k).filter(pl.len().over("user_id") == k).sort("user_id", "rank")
    return full.get_column("item_id").to_numpy().reshape(-1, k)


@pytest.mark.parametrize("case", CASES)
def test_recbole_pinned(case: str) -> None:
    train, recs, _, n_items = _case(case)
    k = 3
    item_matrix = _recbole_matrix(recs, k)
    full = recs.filter(pl.len().over("user_id") >= k)
    num_items = n_items + 1  # RecBole's item_num counts the [PAD] item
    # GiniIndex.get_gini
    item_count = dict(Counter(item_matrix.flatten()))
    sorted_count = np.array(sorted(item_count.values()))
    idx = np.arange(num_items - sorted_count.shape[0] + 1, num_items + 1)
    gini = np.sum((2 * idx - num_items - 1) * sorted_count) / (item_matrix.shape[0] * item_matrix.shape[1]) / num_items
    assert close(beyond.gini_index(full, k=k, catalog=num_items).value, gini)
    # ShannonEntropy.get_entropy
    total = item_matrix.shape[0] * item_matrix.shape[1]
    entropy = sum(-cnt / total * np.log(cnt / total) for cnt in item_count.values()) / len(item_count)
    assert close(beyond.shannon_entropy(full, k=k, dialect="recbole").value, entropy)
    # ItemCoverage.get_coverage
    assert close(beyond.coverage(full, k=k, catalog=num_items, dialect="recbole").value,
                 len(np.unique(item_matrix)) / num_items)  # fmt: skip
    # AveragePopularity.get_pop + metric_info + topk_result (values.cumsum / arange, mean over users, at k)
    counts = dict(Counter(train.get_column("item_id").to_list()))
    pop = np.vectorize(lambda i: counts.get(i, 0))(item_matrix).astype(float)
    average = (pop.cumsum(axis=1) / np.arange(1, k + 1)).mean(axis=0)[k - 1]
    assert close(beyond.average_popularity(full, train=train, k=k, dialect="recbole").value, average)
    # TailPercentage.get_tail with tail_ratio 0.1 (sorted by (count, item id)) and with an absolute count 2
    for ratio in (0.1, 2):
        if ratio > 1:
            tail = [item for item, cnt in counts.items() if cnt <= ratio]
        else:
            ordered = sorted(counts.items(), key=lambda kv: (kv[1], _id_key(kv[0])))
            tail = [item for item, _ in ordered[: max(int(len(ordered) * ratio), 1)]]
        value = np.isin(item_matrix, tail).astype(float)
        expected = (value.cumsum(axis=1) / np.arange(1, k + 1)).mean(axis=0)[k - 1]
        assert close(beyond.long_tail(full, train=train, k=k, tail_ratio=ratio).value, expected)


def _id_key(item: str) -> int:
    """Ties by item id as an integer (every id here is one), as rankwise breaks them; RecBole and Elliot break them
    by their internal ids, which follow the order items first appear in the data (a stated difference)."""
    return int(item)


@pytest.mark.parametrize("case", CASES)
def test_elliot_pinned(case: str) -> None:
    train, recs, _, _ = _case(case)
    k = 10
    # Popularity.get_pop_items / get_sorted_pop_items (stable sort by users descending, ties in item order) /
    # get_short_head (pop_ratio 0.8 of the transactions, the crossing item included) / get_long_tail
    pop_items = dict(sorted(Counter(train.get_column("item_id").to_list()).items(), key=lambda kv: _id_key(kv[0])))
    sorted_pop = dict(sorted(pop_items.items(), key=lambda kv: kv[1], reverse=True))
    limit, short_head = train.height * 0.8, []
    for item, pop in sorted_pop.items():
        short_head.append(item)
        limit -= pop
        if limit <= 0:
            break
    long_tail = [i for i in sorted_pop if i not in set(short_head)]
    assert sorted(beyond.long_tail_items(train, head_share=0.8).to_list()) == sorted(long_tail)
    lists = {u: g.sort("rank").get_column("item_id").to_list()[:k] for (u,), g in recs.group_by("user_id")}
    aplt = {u: len(set(items) & set(long_tail)) / len(items) for u, items in lists.items()}
    aclt = {u: len(set(items) & set(long_tail)) for u, items in lists.items()}
    _same_per_user(beyond.long_tail(recs, train=train, k=k, dialect="elliot"), aplt)
    _same_per_user(beyond.long_tail(recs, train=train, k=k, dialect="elliot", count=True), aclt)


def test_recbole_counts_repeated_training_rows_as_the_engine_does() -> None:
    """RecBole's item counter counts every training row (dataset.py:1424-1431): ``rankwise.recsys.beyond`` under the
    recbole dialect counts a repeated (user, item) row each time, as ``rankwise.evaluate(dialect="recbole")`` does
    (``repeats=each``, proven against RecBole in tests/dialects/test_recbole_beyond.py); by hand: a is trained on 3
    times (u1 twice, u3), b once, c twice."""
    import rankwise

    train = pl.DataFrame({"user_id": ["u1", "u1", "u2", "u3", "u3", "u3"], "item_id": ["a", "a", "b", "a", "c", "c"]})
    recs = pl.DataFrame({"user_id": ["u1", "u1", "u2", "u2"], "item_id": ["a", "b", "c", "a"], "score": [2.0, 1, 2, 1]})
    truth = pl.DataFrame({"user_id": ["u1", "u2"], "item_id": ["a", "c"], "rating": [5, 5]})
    arp = beyond.average_popularity(recs, train=train, dialect="recbole")
    assert arp.value == pytest.approx(((3 + 1) / 2 + (2 + 3) / 2) / 2)
    assert beyond.average_popularity(recs, train=train, dialect="recbole", repeats=False).value == pytest.approx(
        ((2 + 1) / 2 + (1 + 2) / 2) / 2)  # fmt: skip
    tail = beyond.long_tail(recs, train=train, dialect="recbole", tail_ratio=0.5)
    engine = rankwise.evaluate(truth, recs, ["ARP", "LongTail(tail_ratio=0.5)"], train=train, dialect="recbole")
    assert engine.aggregate == pytest.approx({"ARP": arp.value, "LongTail(tail_ratio=0.5)": tail.value})
    assert rankwise.parse_measure(arp.measure).get("repeats") == "each"
