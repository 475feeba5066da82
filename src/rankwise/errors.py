"""Errors rankwise raises for bad input.

Every message is one line that names where the problem is (file and line, DataFrame row, or the ids involved)
and what is wrong, so the CLI can print it as-is and exit with status 2.
"""

from __future__ import annotations


class RankwiseError(ValueError):
    """Base class: bad input, an unknown measure, or an impossible request."""


class InputError(RankwiseError):
    """Malformed qrels or run data: wrong columns, bad numbers, duplicates, empty input."""


class MeasureError(RankwiseError):
    """A measure string that cannot be parsed, an unknown measure or a bad parameter."""


class EmptyInputError(InputError):
    """Qrels or a run with no rows. An error under trec_eval's conventions; data under a dialect whose library
    accepts empty input (ir_measures, ranx), which catches it."""
