"""Recommender evaluation end to end: read an interaction log (:mod:`.data`), split it (:mod:`.split`), train a
baseline and recommend top-k lists (:mod:`.baselines`), score them beyond accuracy (:mod:`.beyond`), and guard
against sampled candidates (:mod:`.sampled`). Accuracy measures come from :func:`rankwise.evaluate` and
:func:`rankwise.compare_dialects`; :mod:`.experiment` runs the RecSys'21 protocol in one call."""

from __future__ import annotations

from .baselines import EASE, ItemKNN, MostPopular, RandomRecommender, Recommendations, make_model
from .data import load_ratings
from .split import Split, global_time_split, leave_last_out, random_holdout, time_ratio_split

__all__ = [
    "EASE",
    "ItemKNN",
    "MostPopular",
    "RandomRecommender",
    "Recommendations",
    "Split",
    "global_time_split",
    "leave_last_out",
    "load_ratings",
    "make_model",
    "random_holdout",
    "time_ratio_split",
]
