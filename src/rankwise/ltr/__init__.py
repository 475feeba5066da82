"""Learning to rank: data in SVMlight/libsvm text (``qid:`` or LightGBM ``.query`` files), labels to and from
judgments. The names below are imported from their modules on first use (PEP 562): ``rankwise ltr -h`` reads the
package without numpy."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .judgments import Relabelled, relabel
    from .svmlight import LtrData, read_svmlight, read_svmlight_files, write_svmlight

_HOMES = {"Relabelled": "judgments", "relabel": "judgments", "LtrData": "svmlight", "read_svmlight": "svmlight",
          "read_svmlight_files": "svmlight", "write_svmlight": "svmlight"}  # fmt: skip


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    globals()[name] = value
    return value


__all__ = ["LtrData", "Relabelled", "read_svmlight", "read_svmlight_files", "relabel", "write_svmlight"]
