"""``ir_measures``' Python API, computed by rankwise: ``calc_aggregate(measures, qrels, run)``,
``iter_calc(measures, qrels, run)``, ``evaluator(measures, qrels)`` and ``read_trec_qrels``/``read_trec_run``.

Measures are ir_measures' own: its measure objects (``ir_measures.nDCG@10``, ``AP(rel=2)``; anything whose ``str`` is
ir_measures' syntax) or that syntax as text (``"nDCG@10"``, ``"AP(rel=2)"``, ``"P@5"``), read by the ``ir_measures``
dialect's names (:mod:`rankwise.measures.peers`) and computed by :func:`rankwise.evaluate` under that dialect: as its
default provider (pytrec_eval: float32 scores, ties by doc id descending), ``calc_aggregate`` averaging over every
judged query (a query missing from the run scores 0; ``iter_calc`` yields it with its 0; a run query without
judgments is not evaluated). ir_measures' ``Judged`` (its own provider, another tie order) is not claimed. Results
are keyed by the measures as given. Qrels and runs: ``{query: {doc: value}}`` dicts, iterables of ``Qrel``/``ScoredDoc``
(ir_measures' named tuples, or these), or DataFrames with ir_measures' column names (``query_id``, ``doc_id``,
``relevance``/``score``). Reference: ir_measures (MacAvaney, Yates, Feldman, Downey, Cohan
and Goharian, ECIR 2022), ``ir_measures/__init__.py`` and ``providers/base.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from ..io import load_qrels, load_run
from ..io.table import DOCID, QID, ROW, VALUE, Table
from ..pipeline.evaluate import evaluate as _evaluate

DIALECT = "ir_measures"


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


class Metric(NamedTuple):
    """One per-query value, as ir_measures' ``Metric``: the measure as given."""

    query_id: str
    measure: Any
    value: float


class Evaluator:
    """ir_measures' evaluator: ``measures`` over the judgments ``qrels``, applied to runs."""

    def __init__(self, measures: Iterable[Any], qrels: Any) -> None:
        self.measures = list(measures)
        self._texts = [str(m) for m in self.measures]
        self._qrels = _pairs(qrels, "relevance")

    def _result(self, run: Any) -> Any:
        return _evaluate(self._qrels, _pairs(run, "score"), self._texts, dialect=DIALECT)

    def calc_aggregate(self, run: Any) -> dict[Any, float]:
        """Each measure's mean over the judged queries (0 for a judged query missing from the run)."""
        result = self._result(run)
        return {measure: float(result.aggregate[text]) for measure, text in zip(self.measures, self._texts)}

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """A :class:`Metric` per (judged query, measure), a judged query missing from the run with its 0, queries in
        the result's order."""
        result = self._result(run)
        for query in result.query_ids:
            values = result.per_query[query]
            for measure, text in zip(self.measures, self._texts):
                yield Metric(query, measure, float(values[text]))


def evaluator(measures: Iterable[Any], qrels: Any) -> Evaluator:
    """ir_measures' ``evaluator(measures, qrels)``."""
    return Evaluator(measures, qrels)


def calc_aggregate(measures: Iterable[Any], qrels: Any, run: Any) -> dict[Any, float]:
    """ir_measures' ``calc_aggregate``: ``{measure: mean}``."""
    return Evaluator(measures, qrels).calc_aggregate(run)


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
    """ir_measures' ``iter_calc``: a :class:`Metric` per query and measure."""
    return Evaluator(measures, qrels).iter_calc(run)


def read_trec_qrels(path: str | Path) -> Iterator[Qrel]:
    """The judgments of a TREC qrels file, as ``Qrel`` tuples in file order (read by :func:`rankwise.load_qrels`)."""
    for query, doc, grade in _rows(load_qrels(path)):
        yield Qrel(str(query), str(doc), int(grade))


def read_trec_run(path: str | Path) -> Iterator[ScoredDoc]:
    """The lines of a TREC run file, as ``ScoredDoc`` tuples in file order (read by :func:`rankwise.load_run`)."""
    for query, doc, score in _rows(load_run(path)):
        yield ScoredDoc(str(query), str(doc), float(score))


def _rows(table: Table) -> Iterator[tuple[Any, Any, Any]]:
    """(query id, doc id, value) of each row of ``table``, in input order."""
    frame = table.frame.sort(ROW)
    return zip(*(frame.get_column(c).to_list() for c in (QID, DOCID, VALUE)))


def _pairs(source: Any, value: str) -> dict[str, dict[str, Any]]:
    """``{query: {doc: value}}`` from a dict of dicts, an iterable of named tuples with ``query_id``, ``doc_id`` and
    ``value`` (``relevance`` or ``score``) fields, or a DataFrame with those columns."""
    if isinstance(source, Mapping):
        return {str(q): {str(d): v for d, v in docs.items()} for q, docs in source.items()}
    columns = getattr(source, "columns", None)
    if columns is not None:  # a polars or pandas DataFrame
        rows: Iterable[Any] = zip(*(list(source[c]) for c in ("query_id", "doc_id", value)))
    else:
        rows = ((row.query_id, row.doc_id, getattr(row, value)) for row in source)
    out: dict[str, dict[str, Any]] = {}
    for query, doc, v in rows:
        out.setdefault(str(query), {})[str(doc)] = v
    return out


__all__ = ["Evaluator", "Metric", "Qrel", "ScoredDoc", "calc_aggregate", "evaluator", "iter_calc", "read_trec_qrels",
           "read_trec_run"]  # fmt: skip
