"""Adjusted p-values for a family of m comparisons: Holm, Bonferroni, Benjamini–Hochberg.

A comparison is significant at level α when its adjusted p-value is at most α; the adjusted values are those of
the step procedures (Holm 1979; Benjamini & Hochberg 1995), so this is the same decision the procedure makes.
"""

from __future__ import annotations

import numpy as np

from ..methods import Correction


def adjust(p_values: np.ndarray, correction: Correction | str) -> np.ndarray:
    r"""Adjusted p-values; undefined (NaN) p-values stay NaN and do not count in m.

    With :math:`p_{(1)} \le \dots \le p_{(m)}` the defined p-values in order:

    - ``bonferroni``: :math:`\min(1, m p_i)`.
    - ``holm``: :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1) p_{(j)})`.
    - ``bh``: :math:`\tilde p_{(i)} = \min_{j \ge i} \min(1, \frac{m}{j} p_{(j)})`.
    - ``none``: the p-values as they are.
    """
    correction = Correction(correction)
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("adjust takes a one-dimensional array of p-values")
    defined = ~np.isnan(p)
    if ((p[defined] < 0) | (p[defined] > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    out = p.copy()
    if correction is Correction.NONE or not defined.any():
        return out
    values = p[defined]
    m = values.size
    if correction is Correction.BONFERRONI:
        out[defined] = np.minimum(1.0, m * values)
        return out
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    rank = np.arange(1, m + 1)
    if correction is Correction.HOLM:
        stepped = np.maximum.accumulate(np.minimum(1.0, (m - rank + 1) * ordered))
    else:
        stepped = np.minimum.accumulate(np.minimum(1.0, m / rank * ordered)[::-1])[::-1]
    adjusted = np.empty(m)
    adjusted[order] = stepped
    out[defined] = adjusted
    return out


__all__ = ["adjust"]
