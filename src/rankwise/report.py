"""Forwarding module: reports of a comparison moved to :mod:`rankwise.comparison.report`;
``from rankwise.report import render`` keeps working for the names it exported."""

from .comparison.report import *  # noqa: F403
from .comparison.report import __all__ as __all__
