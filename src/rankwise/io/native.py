"""The compiled part of :mod:`rankwise.io` (the ``rankwise.io._trecscan`` C extension), loaded once: None where it
was not built (no C compiler at install) or ``RANKWISE_PURE_NUMPY=1`` asks for none; every caller then takes its
polars path, which computes the same."""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def load_native(name: str) -> ModuleType | None:
    """The compiled module ``name`` (one of rankwise's C extensions), or None where it was not built or
    ``RANKWISE_PURE_NUMPY=1`` asks for none."""
    if os.environ.get("RANKWISE_PURE_NUMPY"):
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


NATIVE = load_native("rankwise.io._trecscan")
"""The compiled extension, or None."""
