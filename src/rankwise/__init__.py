"""rankwise: exact, named, fast ranking metrics.

Every measure follows a named, documented definition (``rankwise.measures``), is checked against its
reference implementation, and is computed on flat arrays.

>>> import rankwise
>>> result = rankwise.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 0.5, "d2": 0.9}}, ["nDCG@10", "RR"])
>>> round(result.aggregate["RR"], 3)
0.5
"""

from .comparison.dialects import compare_dialects
from .comparison.systems import Comparison, compare
from .dialects import get_dialect
from .errors import InputError, MeasureError, RankwiseError
from .io import load_qrels, load_run
from .io.subtopics import load_subtopic_qrels
from .measures import Measure, parse_measure, parse_measures
from .pipeline.evaluate import EvaluationResult, evaluate
from .policies import Policies, QuerySet, TiePolicy

__version__ = "0.1.0"

__all__ = [
    "Comparison",
    "EvaluationResult",
    "InputError",
    "Measure",
    "MeasureError",
    "Policies",
    "QuerySet",
    "RankwiseError",
    "TiePolicy",
    "compare",
    "compare_dialects",
    "evaluate",
    "get_dialect",
    "load_qrels",
    "load_run",
    "load_subtopic_qrels",
    "parse_measure",
    "parse_measures",
]
