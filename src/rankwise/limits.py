"""The largest sizes a parameter may ask for, in one place, so that a few bytes of input or one option never make
rankwise allocate without bound: each limit is checked before anything of that size is made, and a value past it
is one error line that states the limit (:func:`at_most`).

Learning to rank's limits, which depend on the data (a file's inferred width, the machine's memory), are in
:mod:`rankwise.ltr.limits`.
"""

from __future__ import annotations

from numbers import Integral

from .errors import RankwiseError

MAX_RESAMPLES = 1_000_000
"""The most resamples (bootstrap or Monte Carlo) a comparison may ask for: a Monte Carlo p-value's standard error is
then below 0.0005; the bootstrap means the intervals keep are held in blocks of at most 25 M values (200 MB)."""

MAX_CURVE_K = 1000
"""The largest k of a comparison report's measure@k curves: each k is one more measure evaluated for every run."""

MAX_SUMMED_CUTOFF = 10_000_000
"""The largest cutoff k of a measure variant that sums k terms whatever the ranking's length (``nDCG(ideal=k_ones)``:
k discounts; ``AP(precisions=every)``: the harmonic number H_k): one float64 per term, 80 MB."""


def at_most(value: object, limit: int, what: str, least: int = 1) -> int:
    """``value`` as an int when it is an integer from ``least`` to ``limit``; else a :class:`RankwiseError` of one line
    naming ``what``, the range and the value given."""
    if isinstance(value, bool) or not isinstance(value, Integral) or not least <= int(value) <= limit:
        raise RankwiseError(f"{what} must be an integer from {least:,} to {limit:,}, got {value!r}")
    return int(value)


__all__ = ["MAX_CURVE_K", "MAX_RESAMPLES", "MAX_SUMMED_CUTOFF", "at_most"]
