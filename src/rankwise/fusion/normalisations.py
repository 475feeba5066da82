"""Normalisations of each run's scores, per query, on the pool's (candidates × runs) arrays: every statistic (min,
max, sum, mean, standard deviation) is one ``reduceat`` over the candidates of all queries at once, no per-query
Python. The formulas are :data:`rankwise.fusion.catalog.NORMALISATIONS`'; ranx's ``ranx/normalization/*.py`` define
the same values (its 1e-9 floor on each denominator included), read, not copied."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine.rowops import group_order
from .catalog import Normalisation
from .pool import Pool

FLOOR = 1e-9
"""The smallest denominator (ranx's): a list of equal scores normalises to 0 rather than to NaN."""


@dataclass(frozen=True)
class Scored:
    """The runs after normalisation: ``value`` (candidates × runs, NaN where the run holds no score for the
    candidate), ``position`` (-1 where it holds none), ``length`` (queries × runs: each list's length)."""

    value: np.ndarray
    position: np.ndarray
    length: np.ndarray

    @property
    def present(self) -> np.ndarray:
        return self.position >= 0


def per_query(pool: Pool, values: np.ndarray, how: str) -> np.ndarray:
    """(queries × runs): the ``how`` (``min``, ``max``, ``sum``) of ``values`` (candidates × runs, NaN = absent)
    over each query's candidates, by one ``reduceat``; ``min``/``max`` of a query a run missed are ±inf, its
    ``sum`` 0."""
    starts = pool.offsets[:-1]
    if how == "min":
        return np.minimum.reduceat(np.where(np.isnan(values), np.inf, values), starts, axis=0)
    if how == "max":
        return np.maximum.reduceat(np.where(np.isnan(values), -np.inf, values), starts, axis=0)
    return np.add.reduceat(np.where(np.isnan(values), 0.0, values), starts, axis=0)


def normalise(pool: Pool, norm: Normalisation) -> Scored:
    """Each run's scores normalised per query by ``norm`` (formulas in :data:`~.catalog.NORMALISATIONS`).

    - ``min-max``: (s − min) / max(max − min, 1e-9); ``min-max-inverted``: (max − s) / max(max − min, 1e-9)
      (ranx/normalization/min_max_norm.py; Lee, SIGIR 1997);
    - ``max``: s / max(max, 1e-9) (max_norm.py); ``sum``: (s − min) / max(Σ s − |r| · min, 1e-9) (sum_norm.py;
      Montague & Aslam, CIKM 2001);
    - ``zmuv``: (s − mean) / max(std, 1e-9), the population std (zmuv_norm.py);
    - ``rank``: 1 − p / |r| (rank_norm.py); ``borda``: 1 − p / N, a missed document 0.5 − (|r| − 1) / (2N) placed
      after the run's own (borda_norm.py; Renda & Straccia, SAC 2003);
    - ``none``: the scores as given.

    s is a run's score, p its position (0 first), |r| the run's list length for the query, N the query's candidates.
    """
    score, position, length = pool.score, pool.position, pool.length
    q = pool.query
    name = norm.name
    if name == "none":
        return Scored(score.copy(), position, length)
    if name == "rank":
        return Scored(np.where(position >= 0, 1.0 - position / np.maximum(length[q], 1), np.nan), position, length)
    if norm.fills:  # borda
        return _borda(pool)
    low, high = per_query(pool, score, "min")[q], per_query(pool, score, "max")[q]
    low, high = np.where(np.isfinite(low), low, 0.0), np.where(np.isfinite(high), high, 0.0)  # a query a run missed
    if name == "min-max":
        value = (score - low) / np.maximum(high - low, FLOOR)
    elif name == "min-max-inverted":
        value = (high - score) / np.maximum(high - low, FLOOR)
    elif name == "max":
        value = score / np.maximum(high, FLOOR)
    elif name == "sum":
        total = per_query(pool, score, "sum")[q]
        value = (score - low) / np.maximum(total - length[q] * low, FLOOR)
    else:  # zmuv
        count = np.maximum(length, 1)
        mean = (per_query(pool, score, "sum") / count)[q]
        var = per_query(pool, (score - mean) ** 2, "sum") / count
        value = (score - mean) / np.maximum(np.sqrt(var)[q], FLOOR)
    return Scored(value, position, length)


def _borda(pool: Pool) -> Scored:
    """Borda normalisation: every candidate gets a score in every run; the documents a run missed share the points
    left and follow its own list, ordered among themselves by the run's tie key."""
    position, length = pool.position, pool.length
    size = pool.candidates_per_query()[:, None].astype(np.float64)
    q = pool.query
    missed_value = 0.5 - (length[q] - 1) / (2 * size)
    value = np.where(position >= 0, 1.0 - position / size, missed_value)
    filled = position.copy()
    for r in range(pool.num_runs):  # per run (a handful), vectorised over every query
        missed = np.flatnonzero(position[:, r] < 0)
        if not len(missed):
            continue
        order, _, _, offsets = group_order(q[missed], pool.num_queries, None, pool.tie_keys(missed))
        place = np.empty(len(missed), dtype=np.int64)
        place[order] = np.arange(len(missed), dtype=np.int64) - offsets[q[missed][order]]
        filled[missed, r] = length[q[missed], r] + place
    full = np.broadcast_to(np.diff(pool.offsets)[:, None], length.shape).astype(np.int64)
    return Scored(value, filled, full)

__all__ = ["FLOOR", "Scored", "normalise", "per_query"]
