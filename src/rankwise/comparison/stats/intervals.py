"""Confidence intervals of means: Student's t, bootstrap percentile and BCa, for many vectors at once (a system's
per-query values, or two systems' per-query differences).

Bootstrap intervals follow ``scipy.stats.bootstrap`` exactly (same resamples for the same seed, linear
interpolation between order statistics, BCa with the jackknife acceleration), so the tests can compare them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from ..methods import IntervalMethod
from .distributions import normal_cdf, normal_quantile, t_quantile
from .resampling import MEANS_CELLS, bootstrap_means


def mean_intervals(
    vectors: Sequence[np.ndarray],
    method: IntervalMethod | str = IntervalMethod.BCA,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int | None = 0,
) -> np.ndarray:
    r"""The ``confidence`` interval of the mean of each vector: a ``k × 2`` array of (low, high).

    - ``t``: :math:`\bar x \pm t_{n-1}(1 - \alpha/2)\, s / \sqrt n` with :math:`\alpha = 1 -` ``confidence``
      (NaN for :math:`n < 2`).
    - ``percentile``: the :math:`\alpha/2` and :math:`1 - \alpha/2` quantiles of the ``resamples`` bootstrap means.
    - ``bca``: the quantiles :math:`\alpha_{1,2} = \Phi\left(\hat z_0 + \frac{\hat z_0 + z_{\alpha/2, 1-\alpha/2}}
      {1 - \hat a (\hat z_0 + z_{\alpha/2, 1-\alpha/2})}\right)` of the bootstrap means, with
      :math:`\hat z_0 = \Phi^{-1}\big((\#\{\bar x^*_b < \bar x\} + \#\{\bar x^*_b \le \bar x\}) / 2B\big)`
      (bootstrap means equal to :math:`\bar x` up to rounding, 1e-12 relative, count as equal) and
      the jackknife acceleration :math:`\hat a = \sum_i U_i^3 / \big(6 (\sum_i U_i^2)^{3/2}\big)`,
      :math:`U_i = (n - 1)(\bar\theta_{(\cdot)} - \theta_{(i)})`.

    A constant vector (of two or more values) has the interval [mean, mean]; one of fewer values NaN. Bootstrap
    intervals need :func:`fewest_resamples` resamples (one beyond each end of the interval); with fewer they are NaN.
    Vectors of
    one length share their bootstrap resamples (each length draws from a fresh ``numpy.random.default_rng(seed)``,
    as ``scipy.stats.bootstrap``).
    """
    method = IntervalMethod(method)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    arrays = [np.asarray(v, dtype=np.float64).ravel() for v in vectors]
    out = np.full((len(arrays), 2), np.nan)
    alpha = (1.0 - confidence) / 2.0
    by_length: dict[int, list[int]] = defaultdict(list)
    for i, values in enumerate(arrays):
        if values.size >= 2 and np.ptp(values) == 0.0:
            out[i] = values[0]
        elif values.size >= 2:
            by_length[values.size].append(i)
    if method is not IntervalMethod.T and resamples < fewest_resamples(confidence):
        by_length.clear()
    per_block = max(1, MEANS_CELLS // max(resamples, 1))  # resamples of one length are the same in every block
    blocks = [rows[i : i + per_block] for rows in by_length.values() for i in range(0, len(rows), per_block)]
    for rows in blocks:
        block = np.stack([arrays[i] for i in rows])
        if method is IntervalMethod.T:
            out[rows] = _t_intervals(block, alpha)
            continue
        means = bootstrap_means(block, resamples, seed)
        if method is IntervalMethod.PERCENTILE:
            out[rows] = np.quantile(means, [alpha, 1.0 - alpha], axis=1).T
        else:
            for row, values, boot in zip(rows, block, means):
                levels = _bca_levels(values, boot, alpha)
                out[row] = np.quantile(boot, levels) if levels else np.nan
    return out


def fewest_resamples(confidence: float) -> int:
    r"""The fewest bootstrap resamples a ``confidence`` interval can be read from: :math:`\lceil 2 / (1 - c) \rceil`
    (40 for 95%), so that at least one resample lies beyond each of the :math:`(1 - c)/2` and :math:`(1 + c)/2`
    quantiles; with fewer, both ends would be the extreme resamples (Efron & Tibshirani 1993, §13.3, advise
    1,000 or more for intervals)."""
    return math.ceil(2.0 / (1.0 - confidence) - 1e-9)


def _t_intervals(block: np.ndarray, alpha: float) -> np.ndarray:
    n = block.shape[1]
    if n < 2:
        return np.full((block.shape[0], 2), np.nan)
    half = t_quantile(1.0 - alpha, n - 1) * block.std(axis=1, ddof=1) / math.sqrt(n)
    mean = block.mean(axis=1)
    return np.column_stack((mean - half, mean + half))


def _bca_levels(values: np.ndarray, boot: np.ndarray, alpha: float) -> list[float]:
    """The two bootstrap quantile levels of the BCa interval (see :func:`mean_intervals`); none when they are
    undefined (every bootstrap mean on one side of the estimate)."""
    n = values.size
    estimate = values.mean()
    tolerance = 1e-12 * float(np.abs(values).mean())  # resample means equal to the estimate up to rounding are equal
    below = np.count_nonzero(boot < estimate - tolerance) + np.count_nonzero(boot <= estimate + tolerance)
    share_below = below / (2 * boot.size)
    z0 = normal_quantile(float(share_below))
    jackknife = (values.sum() - values) / (n - 1)
    u = (n - 1) * (jackknife.mean() - jackknife)
    acceleration = float((u**3).sum() / (6.0 * (u**2).sum() ** 1.5))
    levels = []
    for z in (normal_quantile(alpha), -normal_quantile(alpha)):
        level = normal_cdf(z0 + (z0 + z) / (1.0 - acceleration * (z0 + z)))
        levels.append(level)
    return levels if all(math.isfinite(level) for level in levels) else []


__all__ = ["fewest_resamples", "mean_intervals"]
