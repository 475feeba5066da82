"""Randomised Tukey HSD (Carterette, TOIS 2012; Sakai 2014): one test across all systems that controls the
family-wise error rate of every pairwise comparison."""

from __future__ import annotations

import numpy as np

from .paired_tests import permutation_minimum
from .resampling import CHUNK_CELLS


def randomised_tukey_hsd(matrix: np.ndarray, resamples: int = 10_000, seed: int | None = 0) -> np.ndarray:
    r"""p-values of every pair of systems (an ``m × m`` symmetric array) from ``matrix`` (queries × systems).

    Under the null hypothesis the systems are exchangeable on each query: each trial permutes every row
    independently (seeded), and records the range of the system means, :math:`\max_s \bar x^*_s - \min_s \bar
    x^*_s`. Then

    .. math:: p_{ij} = \max\left(\frac{1 + \#\{b : \mathrm{range}_b \ge |\bar x_i - \bar x_j|\}}{1 + B},\
              (m!)^{1-n}\right)

    with :math:`n` queries and :math:`m` systems: the floor is the exact test's minimum (a permutation applied to
    every row alike keeps the range: :math:`m!` of the :math:`(m!)^n` permutations are at least as extreme;
    :func:`~rankwise.comparison.stats.paired_tests.permutation_minimum`). The diagonal is 1; the other cells are NaN
    for fewer than two queries (no test).
    """
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 2:
        raise ValueError("randomised Tukey HSD needs a queries × systems matrix with at least two systems")
    n, m = x.shape
    if n < 2:
        p = np.full((m, m), np.nan)
        np.fill_diagonal(p, 1.0)
        return p
    means = x.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    tolerance = 1e-12 * float(np.abs(x).mean() + 1e-300)
    rng = np.random.default_rng(seed)
    ranges = np.empty(resamples)
    chunk = max(1, CHUNK_CELLS // (n * m))
    for start in range(0, resamples, chunk):
        rows = min(chunk, resamples - start)
        order = np.argsort(rng.random((rows, n, m)), axis=2)
        trial_means = np.take_along_axis(np.broadcast_to(x, (rows, n, m)), order, axis=2).mean(axis=1)
        ranges[start : start + rows] = trial_means.max(axis=1) - trial_means.min(axis=1)
    ranges.sort()
    at_least = resamples - np.searchsorted(ranges, observed - tolerance, side="left")
    p = np.maximum((1.0 + at_least) / (1.0 + resamples), permutation_minimum(n, m))
    np.fill_diagonal(p, 1.0)
    return p


__all__ = ["randomised_tukey_hsd"]
