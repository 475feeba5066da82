"""Resampling, vectorised and seeded: bootstrap means of many vectors at once and the sign-flip (randomisation)
distribution of a paired mean difference, exact or Monte Carlo.

Bootstrap resamples are drawn exactly as ``scipy.stats.bootstrap`` draws them (``Generator.integers(0, n,
(B, n))`` from ``numpy.random.default_rng(seed)``, consumed in row chunks, which give the same stream), so the same
seed gives the same resamples, and every vector of one length gets the same resamples (common random numbers).
"""

from __future__ import annotations

import numpy as np

CHUNK_CELLS = 2_000_000
"""Cells (resamples × queries) drawn at a time: bounds memory whatever the query count."""
MEANS_CELLS = 25_000_000
"""Bootstrap means (vectors × resamples, 200 MB of float64) held at a time by the intervals."""


def bootstrap_means(vectors: np.ndarray, resamples: int, seed: int | None) -> np.ndarray:
    r"""Means of ``resamples`` bootstrap resamples of each row of ``vectors`` (``k × n``): a ``k × B`` array.

    Resample :math:`b` draws indices :math:`i_{b1}, \dots, i_{bn}` uniformly from :math:`\{0..n-1\}`; with
    :math:`c_{bj}` the number of times :math:`j` is drawn, the mean of row :math:`v` is
    :math:`\bar v^*_b = \frac1n \sum_j c_{bj} v_j`, computed for all rows as one matrix product per chunk.
    """
    vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
    k, n = vectors.shape
    if n == 0:
        return np.full((k, resamples), np.nan)
    rng = np.random.default_rng(seed)
    means = np.empty((k, resamples))
    chunk = max(1, CHUNK_CELLS // n)
    for start in range(0, resamples, chunk):
        rows = min(chunk, resamples - start)
        counts = draw_counts(rng.integers(0, n, (rows, n)), n)
        means[:, start : start + rows] = (counts @ vectors.T).T / n  # counts first: 9x faster than vectors @ counts.T
    return means


def draw_counts(drawn: np.ndarray, n: int) -> np.ndarray:
    """How many times each of ``n`` indices is drawn in each row of ``drawn`` (``rows × m`` indices): ``rows × n``
    float64 counts, one ``bincount`` for all rows."""
    rows = drawn.shape[0]
    counts = np.bincount((drawn + (np.arange(rows) * n)[:, None]).ravel(), minlength=rows * n)
    return counts.reshape(rows, n).astype(np.float64)


def sign_flip_sums(differences: np.ndarray) -> np.ndarray:
    r"""Every value of :math:`\sum_i s_i d_i` over the :math:`2^n` sign vectors :math:`s \in \{-1, 1\}^n` (built
    by doubling: :math:`S_{i} = (S_{i-1} + d_i) \cup (S_{i-1} - d_i)`), for the exact randomisation test."""
    sums = np.zeros(1)
    for d in np.asarray(differences, dtype=np.float64):
        sums = np.concatenate((sums + d, sums - d))
    return sums


def random_sign_flip_sums(differences: np.ndarray, resamples: int, seed: int | None) -> np.ndarray:
    r""":math:`\sum_i s_i d_i` for ``resamples`` sign vectors with independent fair signs (seeded)."""
    differences = np.asarray(differences, dtype=np.float64)
    n = differences.size
    rng = np.random.default_rng(seed)
    sums = np.empty(resamples)
    chunk = max(1, CHUNK_CELLS // max(n, 1))
    for start in range(0, resamples, chunk):
        rows = min(chunk, resamples - start)
        signs = rng.integers(0, 2, (rows, n), dtype=np.int8) * 2 - 1
        sums[start : start + rows] = signs @ differences
    return sums


def at_least_as_extreme(null: np.ndarray, observed: float, scale: float) -> np.ndarray:
    r"""Which null values are at least as extreme as the observed one: :math:`|x| \ge |t| - \epsilon`, with
    :math:`\epsilon = 10^{-12} \cdot` ``scale``, so values equal to :math:`t` up to rounding count (as equal values
    must)."""
    return np.abs(null) >= abs(observed) - 1e-12 * scale


__all__ = [
    "MEANS_CELLS",
    "at_least_as_extreme",
    "bootstrap_means",
    "draw_counts",
    "random_sign_flip_sums",
    "sign_flip_sums",
]
