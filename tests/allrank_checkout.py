"""allRank's own modules, imported from a checkout of github.com/allegro/allRank (``RANKWISE_ALLRANK_PATH``) with the
installed torch; a test without one is skipped with the reason."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import pytest


def allrank_modules(*names: str) -> list[Any]:
    """The modules ``names`` (``allrank.config``, ``allrank.models.model``) of the checkout. allRank's config classes
    need attrs (skipped without it); ``sys.path`` and ``sys.modules`` are as they were afterwards."""
    root = os.environ.get("RANKWISE_ALLRANK_PATH")
    if not root:
        pytest.skip("RANKWISE_ALLRANK_PATH is not set (a checkout of github.com/allegro/allRank)")
    pytest.importorskip("attr", reason="allRank's config classes need attrs")
    saved = {n: m for n, m in sys.modules.items() if n == "allrank" or n.startswith("allrank.")}
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, root)
    try:
        return [importlib.import_module(name) for name in names]
    finally:
        sys.path.remove(root)
        for name in [n for n in sys.modules if n == "allrank" or n.startswith("allrank.")]:
            del sys.modules[name]
        sys.modules.update(saved)
