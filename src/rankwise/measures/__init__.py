"""Measure definitions: the catalog of families, measure instances and measure-string parsing."""

from .catalog import FAMILIES, family
from .parse import parse_measure, parse_measures
from .spec import Measure, MeasureSpec, Param
from .trec_names import trec_name

__all__ = ["FAMILIES", "Measure", "MeasureSpec", "Param", "family", "parse_measure", "parse_measures", "trec_name"]
