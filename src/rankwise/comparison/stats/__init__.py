"""Statistics on per-query value vectors: paired tests, confidence intervals, multiple-testing corrections, effect
sizes and randomised Tukey HSD. Pure numpy and the standard library (no SciPy at run time; the tests compare every
function with ``scipy.stats``)."""

from ...limits import MAX_RESAMPLES
from ..methods import Correction, IntervalMethod, SignificanceTest
from .corrections import adjust
from .effects import cohens_d, win_tie_loss
from .intervals import fewest_resamples, mean_intervals
from .paired_tests import (
    MIN_QUERIES,
    TestResult,
    bootstrap_test,
    paired_t_test,
    paired_test,
    randomization_test,
    sign_flip_minimum,
    sign_test,
    smallest_p,
    wilcoxon_test,
)
from .tukey import randomised_tukey_hsd

__all__ = [
    "MAX_RESAMPLES",
    "MIN_QUERIES",
    "Correction",
    "IntervalMethod",
    "SignificanceTest",
    "TestResult",
    "adjust",
    "bootstrap_test",
    "cohens_d",
    "fewest_resamples",
    "mean_intervals",
    "paired_t_test",
    "paired_test",
    "randomised_tukey_hsd",
    "randomization_test",
    "sign_flip_minimum",
    "sign_test",
    "smallest_p",
    "wilcoxon_test",
    "win_tie_loss",
]
