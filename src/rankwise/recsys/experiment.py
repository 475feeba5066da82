"""The RecSys'21 experiment (Tamm, Damdinov, Vasilev, *Quality Metrics in Recommender Systems: Do We Calculate
Metrics Consistently?*) in one call: load ratings → global timestamp split → test ratings ≥ threshold → a baseline's
top-k lists → the accuracy measures under every recommender library's dialect (the paper's table: rows libraries,
columns metrics, with the spread of each metric and why each library differs) → beyond-accuracy measures.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import polars as pl

from ..comparison.dialects import DialectComparison, compare_dialects
from . import beyond
from .baselines import Recommendations, make_model
from .data import ITEM, RATING, USER, load_ratings
from .split import Split, global_time_split

#: The recommender libraries' dialects (the paper's rows), with trec_eval as the reference row.
RECSYS_DIALECTS = ("trec_eval", "rs_metrics", "spark_mllib", "replay", "replay@0.11", "replay@0.4", "recbole",
                   "ms_recommenders", "ms_recommenders@1.1", "beta_recsys", "rectools", "daisyrec@1", "daisyrec",
                   "daisyrec@2.0-benchmark", "dl_rs_eval", "openrec@tf2", "openrec@tf1", "lenskit", "elliot",
                   "neurec", "neurec@2020.python", "neurec@1", "recsys_pytorch")  # fmt: skip
ACCURACY = ("HitRate", "P", "R", "RR", "AP", "nDCG", "AUC")


@dataclass(frozen=True)
class Experiment:
    """What :func:`recsys21` computed: the split, the lists, the dialect table and the beyond-accuracy values."""

    split: Split
    recommendations: Recommendations
    accuracy: DialectComparison
    beyond: tuple[beyond.BeyondResult, ...]
    settings: dict[str, Any]

    def table(self) -> pl.DataFrame:
        """Wide table: one row per dialect, one column per measure, and ``why`` (what the dialect changes)."""
        long = self.accuracy.to_polars()
        wide = long.pivot(on="measure", index=["dialect", "group"], values="value", aggregate_function="first")
        reasons = long.group_by("dialect", maintain_order=True).agg(pl.col("why").first())
        return wide.join(reasons, on="dialect", maintain_order="left").select(
            "dialect", "group", *self.accuracy.keys, "why"
        )

    def spread(self) -> pl.DataFrame:
        """Per measure: how many distinct values the dialects give (to 1e-12), min, max and max − min."""
        rows = []
        for key in self.accuracy.keys:
            values = [row.values[key] for row in self.accuracy.rows if not math.isnan(row.values[key])]
            distinct = len({round(v, 12) for v in values})
            low, high = (min(values), max(values)) if values else (math.nan, math.nan)
            rows.append({"measure": key, "distinct": distinct, "min": low, "max": high, "spread": high - low})
        return pl.DataFrame(rows, schema={"measure": pl.String, "distinct": pl.Int64, "min": pl.Float64,
                                          "max": pl.Float64, "spread": pl.Float64})  # fmt: skip

    def beyond_table(self) -> pl.DataFrame:
        """One row per beyond-accuracy measure: its full name and value."""
        return pl.DataFrame({"measure": [r.measure for r in self.beyond], "value": [r.value for r in self.beyond]},
                            schema={"measure": pl.String, "value": pl.Float64})  # fmt: skip


def latest_test_ratings(split: Split) -> Split:
    """``split`` with each (user, item) pair of its test part once (its latest rating at or above the threshold: the
    test part is in time order), the others counted in the notes: a test set is a set of relevant pairs, which the
    beyond-accuracy measures join the lists on."""
    latest = split.test.unique(subset=[USER, ITEM], keep="last", maintain_order=True)
    if latest.height == split.test.height:
        return split
    note = (f"{split.test.height - latest.height} test interactions dropped: a (user, item) pair rated again in the "
            "test part (taken once, its latest rating)")  # fmt: skip
    return dataclasses.replace(split, test=latest, notes=(*split.notes, note))


def _empty_test_advice(notes: tuple[str, ...], threshold: float, quantile: float) -> str:
    """Why no test rating is left, and the one change that would leave some: a lower threshold only when the
    threshold dropped ratings; else what the split dropped (cold-start filtering: a test user or item needs
    training interactions)."""
    why = "; ".join(notes) or "the test part of the split is empty"
    if any("rated below" in note for note in notes):
        return f"no test ratings >= {threshold:g} are left after the split ({why}): lower the threshold"
    return (f"no test ratings are left after the split ({why}): test users and items must have training "
            f"interactions; a later split point (--quantile above {quantile:g}) or more data leaves more")


def recsys21(
    ratings: Any,
    *,
    quantile: float = 0.8,
    threshold: float = 4.5,
    k: int = 20,
    model: str = "ease",
    regularization: float = 500.0,
    dialects: tuple[str, ...] = RECSYS_DIALECTS,
    measures: tuple[str, ...] = ACCURACY,
    seed: int = 0,
) -> Experiment:
    """Run the experiment on ``ratings`` (anything :func:`load_ratings` reads).

    Protocol: global timestamp split at ``quantile`` (rows sorted by timestamp, user, item); test rows whose user
    or item is not in train, or whose (user, item) pair is in train, are dropped; test rows rated below
    ``threshold`` are dropped (the rest are the relevant items); the ``model`` (``ease`` with λ =
    ``regularization``, ``itemknn``, ``popular``, ``random`` with ``seed``) trained on the whole training set
    recommends ``k`` unseen items to every test user; each measure (@k, AUC over the whole list) is computed under
    every dialect; beyond-accuracy measures use the training interactions, the training items as catalogue and the
    test set as truth, with a most-popular baseline for unexpectedness.
    """
    data = load_ratings(ratings)
    split = latest_test_ratings(global_time_split(data, quantile, drop_cold_users=True, drop_cold_items=True,
                                                  threshold=threshold))  # fmt: skip
    if split.test.height == 0:
        raise beyond.InputError(_empty_test_advice(split.notes, threshold, quantile))
    options: dict[str, Any] = {"regularization": regularization} if model == "ease" else {}
    if model == "random":
        options = {"seed": seed}
    recommender = make_model(model, **options).fit(split.train)
    test_users = split.test.get_column(USER).unique(maintain_order=True).to_list()
    recs = recommender.recommend(test_users, k)
    truth = split.test.select(USER, ITEM, RATING)
    train_pairs = split.train.select(USER, ITEM).unique()
    n_items = train_pairs.get_column(ITEM).n_unique()
    keys = [m if m == "AUC" else f"{m}@{k}" for m in measures]
    accuracy = compare_dialects(truth, recs.frame.select(USER, ITEM, "score"), keys, dialects=dialects,
                                threshold=threshold, train=train_pairs, catalog=n_items)  # fmt: skip
    popular = make_model("popular").fit(split.train).recommend(test_users, k)
    lists = beyond.lists(recs, k)
    results = (
        beyond.coverage(lists, train=train_pairs, over="train"),
        beyond.coverage(lists, over="count"),
        beyond.distributional_coverage(lists),
        beyond.gini_index(lists, train=train_pairs),
        beyond.unseen_share(lists, train=train_pairs),
        beyond.self_information(lists, train=train_pairs, dialect="rectools"),
        beyond.self_information(lists, train=train_pairs, dialect="replay"),
        beyond.average_popularity(lists, train=train_pairs),
        beyond.long_tail(lists, train=train_pairs, dialect="elliot"),
        beyond.intra_list_diversity(lists, train=train_pairs),
        beyond.unexpectedness(lists, baseline=popular, k=k),
        beyond.serendipity(lists, truth=truth.select(USER, ITEM), train=train_pairs, dialect="rectools"),
    )
    settings = {"quantile": quantile, "threshold": threshold, "k": k, "model": model, "train": split.train.height,
                "test": split.test.height, "test users": len(test_users), "items": n_items}  # fmt: skip
    if model == "ease":
        settings["lambda"] = regularization
    return Experiment(split, recs, accuracy, results, settings)
