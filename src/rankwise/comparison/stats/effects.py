"""Effect sizes of a paired difference: the standardised mean difference and win/tie/loss counts."""

from __future__ import annotations

import math

import numpy as np

TIE_TOLERANCE = 1e-12
"""Two per-query values closer than this are a tie (values that differ only by rounding are equal)."""


def cohens_d(differences: np.ndarray) -> float:
    r"""Cohen's :math:`d` for paired data (:math:`d_z`): :math:`\bar d / s_d`, with :math:`s_d` the standard
    deviation of the differences (:math:`n - 1` in the denominator). NaN for :math:`n < 2` or when every
    difference is 0; :math:`\pm\infty` when every difference is the same non-zero value."""
    d = np.asarray(differences, dtype=np.float64).ravel()
    if d.size < 2 or not d.any():
        return math.nan
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    return math.copysign(math.inf, mean) if np.ptp(d) == 0.0 or sd == 0.0 else mean / sd


def win_tie_loss(system: np.ndarray, other: np.ndarray) -> tuple[int, int, int]:
    """Queries where ``system`` scores higher than ``other``, within :data:`TIE_TOLERANCE` of it, and lower."""
    d = np.asarray(system, dtype=np.float64) - np.asarray(other, dtype=np.float64)
    return int((d > TIE_TOLERANCE).sum()), int((np.abs(d) <= TIE_TOLERANCE).sum()), int((d < -TIE_TOLERANCE).sum())


__all__ = ["TIE_TOLERANCE", "cohens_d", "win_tie_loss"]
