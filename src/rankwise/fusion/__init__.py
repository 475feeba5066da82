"""Run fusion: every method and normalisation ranx has, exact tie orders, weights searched on an exact grid and
cross-validated over queries.

:func:`fuse` (``rankwise.fuse``) combines runs; :func:`optimize_fusion` (``rankwise.optimize_fusion``) searches the
weights, the parameters, the methods and normalisations for the best value of a measure. The methods and
normalisations are data (:mod:`.catalog`), computed on flat arrays (:mod:`.pool`, :mod:`.normalisations`,
:mod:`.methods`, :mod:`.training`)."""

from __future__ import annotations

from .catalog import METHODS, NORMALISATIONS, Method, Normalisation, Param, explain
from .fused import fuse
from .methods import MissingPolicy
from .optimize import FusionSearch, optimize_fusion, weight_grid
from .pool import QueryPolicy

__all__ = ["METHODS", "NORMALISATIONS", "FusionSearch", "Method", "MissingPolicy", "Normalisation", "Param",
           "QueryPolicy", "explain", "fuse", "optimize_fusion", "weight_grid"]
