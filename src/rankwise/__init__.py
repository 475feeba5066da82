"""rankwise: exact, named, fast ranking metrics.

Every measure follows a named, documented definition (``rankwise.measures``), is checked against its
reference implementation, and is computed on flat arrays.

>>> import rankwise
>>> result = rankwise.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 0.5, "d2": 0.9}}, ["nDCG@10", "RR"])
>>> round(result.aggregate["RR"], 3)
0.5
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what mypy and readers see; at run time each name is imported on first use (``__getattr__``)
    from .comparison.dialects import compare_dialects
    from .comparison.groups import GroupTable, group_table
    from .comparison.systems import Comparison, compare
    from .dialects import get_dialect
    from .errors import InputError, MeasureError, RankwiseError
    from .fusion import fuse, optimize_fusion
    from .io import load_qrels, load_run
    from .io.subtopics import load_subtopic_qrels
    from .measures import Measure, parse_measure, parse_measures
    from .pipeline.bias_disparity import BiasDisparity, bias_disparity
    from .pipeline.evaluate import EvaluationResult, evaluate
    from .pipeline.item_table import ItemGroupTable, item_group_table
    from .policies import Policies, QuerySet, TiePolicy

__version__ = "0.1.0"

__all__ = [
    "BiasDisparity",
    "Comparison",
    "EvaluationResult",
    "GroupTable",
    "InputError",
    "ItemGroupTable",
    "Measure",
    "MeasureError",
    "Policies",
    "QuerySet",
    "RankwiseError",
    "TiePolicy",
    "bias_disparity",
    "compare",
    "compare_dialects",
    "evaluate",
    "fuse",
    "get_dialect",
    "group_table",
    "item_group_table",
    "load_qrels",
    "load_run",
    "load_subtopic_qrels",
    "optimize_fusion",
    "parse_measure",
    "parse_measures",
]

_HOMES = {
    "compare_dialects": ".comparison.dialects",
    "Comparison": ".comparison.systems",
    "compare": ".comparison.systems",
    "GroupTable": ".comparison.groups",
    "group_table": ".comparison.groups",
    "get_dialect": ".dialects",
    "InputError": ".errors",
    "MeasureError": ".errors",
    "RankwiseError": ".errors",
    "fuse": ".fusion",
    "optimize_fusion": ".fusion",
    "load_qrels": ".io",
    "load_run": ".io",
    "load_subtopic_qrels": ".io.subtopics",
    "Measure": ".measures",
    "parse_measure": ".measures",
    "parse_measures": ".measures",
    "BiasDisparity": ".pipeline.bias_disparity",
    "bias_disparity": ".pipeline.bias_disparity",
    "EvaluationResult": ".pipeline.evaluate",
    "evaluate": ".pipeline.evaluate",
    "ItemGroupTable": ".pipeline.item_table",
    "item_group_table": ".pipeline.item_table",
    "Policies": ".policies",
    "QuerySet": ".policies",
    "TiePolicy": ".policies",
}
"""Each public name → the module it lives in. ``import rankwise`` imports none of them (polars and numpy load only
when a name is first used), so ``rankwise -V`` starts fast (PEP 562)."""


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
