"""Forwarding module: the paired tests, intervals and corrections moved to :mod:`rankwise.comparison.stats`;
``from rankwise.stats import ...`` keeps working for the names it exported."""

from .comparison.stats import *  # noqa: F403
from .comparison.stats import __all__ as __all__
