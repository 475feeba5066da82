"""polars, imported on first use. The modules that read and evaluate inputs name it ``pl`` as usual (``if
TYPE_CHECKING: import polars as pl`` / ``else: from ..io.lazy import polars as pl``), so a run that never touches a
DataFrame — TREC files read by the compiled scanner (:mod:`rankwise.io.scan`), evaluated and printed — never imports
polars, and ``rankwise trec_eval`` starts about 0.1 s sooner (tests/cli/test_startup.py holds it)."""

from __future__ import annotations

import importlib
import types
from typing import Any


class LazyModule(types.ModuleType):
    """A module imported when one of its attributes is first read; from then on it holds the module's attributes."""

    def __getattr__(self, name: str) -> Any:
        module = importlib.import_module(self.__name__)
        self.__dict__.update(module.__dict__)
        return getattr(module, name)


polars = LazyModule("polars")
"""``polars``, imported when first used."""
