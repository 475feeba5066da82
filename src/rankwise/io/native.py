"""The compiled part of :mod:`rankwise.io` (the ``rankwise.io._trecscan`` C extension), loaded once: None where it
was not built (no C compiler at install) or ``RANKWISE_PURE_NUMPY=1`` asks for none; every caller then takes its
polars path, which computes the same."""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def _native() -> ModuleType | None:
    if os.environ.get("RANKWISE_PURE_NUMPY"):
        return None
    try:
        return importlib.import_module("rankwise.io._trecscan")
    except ImportError:
        return None


NATIVE = _native()
"""The compiled extension, or None."""
