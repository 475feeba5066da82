"""Statistics on per-query value vectors: paired tests, confidence intervals, multiple-testing corrections, effect
sizes and randomised Tukey HSD. Pure numpy and the standard library (no SciPy at run time; the tests compare every
function with ``scipy.stats``)."""


from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .methods import Correction, IntervalMethod, SignificanceTest  # the names only: no numpy (``compare -h``)

if TYPE_CHECKING:
    from .corrections import adjust
    from .effects import cohens_d, win_tie_loss
    from .intervals import mean_intervals
    from .paired_tests import (
        TestResult,
        bootstrap_test,
        paired_t_test,
        paired_test,
        randomization_test,
        sign_test,
        wilcoxon_test,
    )
    from .tukey import randomised_tukey_hsd

_HOMES = {
    "adjust": "corrections", "cohens_d": "effects", "win_tie_loss": "effects", "mean_intervals": "intervals",
    "TestResult": "paired_tests", "bootstrap_test": "paired_tests", "paired_t_test": "paired_tests",
    "paired_test": "paired_tests", "randomization_test": "paired_tests", "sign_test": "paired_tests",
    "wilcoxon_test": "paired_tests", "randomised_tukey_hsd": "tukey",
}  # fmt: skip


def __getattr__(name: str) -> Any:
    """The numeric functions, imported from their module on first use (PEP 562)."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    globals()[name] = value
    return value

__all__ = [
    "Correction",
    "IntervalMethod",
    "SignificanceTest",
    "TestResult",
    "adjust",
    "bootstrap_test",
    "cohens_d",
    "mean_intervals",
    "paired_t_test",
    "paired_test",
    "randomised_tukey_hsd",
    "randomization_test",
    "sign_test",
    "wilcoxon_test",
    "win_tie_loss",
]
