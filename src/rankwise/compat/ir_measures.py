"""``ir_measures``' Python API, computed by rankwise: ``calc_aggregate(measures, qrels, run)``,
``iter_calc(measures, qrels, run)``, ``calc(measures, qrels, run)``, ``evaluator(measures, qrels)``,
``read_trec_qrels``/``read_trec_run``, its measure objects (``nDCG@10``, ``AP(rel=2)``: every name of its registry,
:mod:`.ir_measures_measures`), ``parse_measure`` and ``parse_trec_measure``.

Measures are ir_measures' own: this module's measure objects, ir_measures' (anything whose ``str`` is
ir_measures' syntax) or that syntax as text (``"nDCG@10"``, ``"AP(rel=2)"``, ``"P@5"``), read by the ``ir_measures``
dialect's names (:mod:`rankwise.measures.peers`) and computed by :func:`rankwise.evaluate` under that dialect: as its
default provider (pytrec_eval: float32 scores, ties by doc id descending), ``calc_aggregate`` averaging over every
judged query (a query missing from the run scores 0; ``iter_calc`` yields it with its 0; a run query without
judgments is not evaluated). ir_measures' ``Judged`` (its own provider, another tie order) is not claimed; where it
sends ``nDCG(dcg='exp-log2')`` and ``ERR`` to gdeval, whose output is rounded to 5 decimals, rankwise's values are
not rounded; its other providers (``ir_measures.gdeval``, ``.judged``, ``define``, ...) are not emulated. Results
are keyed by the measures as given. The readers yield every line of the file, as ir_measures' do. Qrels and runs:
``{query: {doc: value}}`` dicts, iterables of ``Qrel``/``ScoredDoc`` (ir_measures' named tuples, or these), or
DataFrames with ir_measures' column names (``query_id``, ``doc_id``, ``relevance``/``score``). Reference:
ir_measures (MacAvaney, Yates, Feldman, Downey, Cohan and Goharian, ECIR 2022), ``ir_measures/__init__.py``,
``providers/base.py`` and ``util.py``.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from . import ir_measures_measures as measures
from .ir_measures_measures import (
    CalcResults,
    Evaluator,
    Measure,
    Metric,
    calc,
    calc_aggregate,
    evaluator,
    iter_calc,
    parse_measure,
    parse_trec_measure,
)


class Qrel(NamedTuple):
    """One judgment, as ir_measures' ``Qrel``."""

    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


class ScoredDoc(NamedTuple):
    """One ranked document, as ir_measures' ``ScoredDoc``."""

    query_id: str
    doc_id: str
    score: float


def __getattr__(name: str) -> Measure:
    """ir_measures' measure objects by name (``nDCG``, ``AP``, ``MAP``, ``IPrec``, ...): every name of its registry."""
    found = measures.registry.get(name)
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return found


def read_trec_qrels(file: str | Path | IO[str]) -> Iterator[Qrel]:
    """Each line of TREC qrels (``query iteration doc relevance``) as a ``Qrel``, in file order, duplicates and the
    iteration column (a diversity qrels' subtopic) kept: from a path (``.gz`` read as gzip), an open text file, or
    the text itself (a string with a newline), as ir_measures' ``read_trec_qrels`` (ir_measures 0.4 ``util.py``)."""
    for query, iteration, doc, relevance in _fields(file, 4):
        yield Qrel(query, doc, int(relevance), iteration)


def read_trec_run(file: str | Path | IO[str]) -> Iterator[ScoredDoc]:
    """Each line of a TREC run (``query Q0 doc rank score tag``) as a ``ScoredDoc``, in file order: from a path
    (``.gz`` read as gzip), an open text file, or the text itself, as ir_measures' ``read_trec_run``."""
    for query, _, doc, _, score, _ in _fields(file, 6):
        yield ScoredDoc(query, doc, float(score))


def _fields(file: str | Path | IO[str], count: int) -> Iterator[list[str]]:
    """The whitespace-separated fields of each non-blank line; ValueError for a line without ``count`` of them."""
    if isinstance(file, Path) or (isinstance(file, str) and "\n" not in file):
        opener: Any = gzip.open if str(file).endswith(".gz") else open
        with opener(file, "rt") as lines:
            yield from _fields(lines, count)
        return
    for number, line in enumerate(io.StringIO(file) if isinstance(file, str) else file, 1):
        fields = line.split()
        if fields and len(fields) != count:
            raise ValueError(f"line {number}: expected {count} fields, found {len(fields)}: {line.strip()!r}")
        if fields:
            yield fields


__all__ = ["CalcResults", "Evaluator", "Measure", "Metric", "Qrel", "ScoredDoc", "calc", "calc_aggregate", "evaluator",
           "iter_calc", "measures", "parse_measure", "parse_trec_measure", "read_trec_qrels", "read_trec_run",
           *measures.registry]  # fmt: skip
