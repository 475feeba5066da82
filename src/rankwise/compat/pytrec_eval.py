"""``pytrec_eval``'s Python API, computed by rankwise: ``RelevanceEvaluator(qrels, measures, relevance_level=1,
judged_docs_only_flag=False).evaluate(run)`` returns pytrec_eval's dict of dicts, ``{query: {trec_eval name: value}}``.

As pytrec-eval-terrier 0.5 (cvangysel/pytrec_eval ``src/pytrec_eval.cpp``, trec_eval 9.0.8 inside): only the queries
in both the qrels and the run are evaluated; scores are stored as float32 before ranking (equal in float32 = tied,
then by doc id descending); measures are trec_eval names (``map``, ``P``, ``P.5,10``, ``ndcg_cut.10``, ``P_5``),
keyed by their trec_eval output names (``P_5``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``); ``gm_map`` and
``gm_bpref`` per query are the natural log of AP and bpref (floored at 1e-5), as trec_eval keeps them;
``iprec_at_recall`` with trec_eval 9's rounding, and NaN at recall 0 for a ranking emptied by
``judged_docs_only_flag`` (trec_eval 9's 0/0, which pytrec_eval returns). Everything is computed by
:func:`rankwise.evaluate` under the ``pytrec_eval`` dialect.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from ..errors import MeasureError
from ..measures import Measure, parse_measures, trec_name
from ..measures.trec_names import CUTOFF_FAMILIES, PLAIN_MEASURES
from ..pipeline.evaluate import evaluate as _evaluate

supported_measures: frozenset[str] = frozenset(
    name for name in {*CUTOFF_FAMILIES, *PLAIN_MEASURES}
    if name not in ("dcg", "ideal_dcg", "rbp", "rbp_resid", "unj", "yaap")  # trec_eval 10's, not in pytrec_eval
)  # fmt: skip
"""The trec_eval measure names :class:`RelevanceEvaluator` takes (pytrec_eval's ``supported_measures`` less
``Rprec_mult``, ``relstring`` and ``runid``, which are not scores of one measure)."""

_LOG_PER_QUERY = {"gm_map", "gm_bpref"}


class RelevanceEvaluator:
    """pytrec_eval's evaluator: ``query_relevance`` is ``{query: {doc: grade}}``; ``measures`` a set of trec_eval
    names; ``relevance_level`` trec_eval's ``-l``; ``judged_docs_only_flag`` its ``-J``. Reference: pytrec_eval
    (Van Gysel and de Rijke, SIGIR 2018) over NIST trec_eval."""

    def __init__(self, query_relevance: Mapping[str, Mapping[str, int]], measures: Iterable[str],
                 relevance_level: int = 1, judged_docs_only_flag: bool = False) -> None:  # fmt: skip
        if isinstance(measures, str):
            raise TypeError("measures must be a set of measure names, such as {'map', 'ndcg'}")
        self._qrels = {str(q): {str(d): int(g) for d, g in docs.items()} for q, docs in query_relevance.items()}
        self._relevance_level = int(relevance_level)
        self._judged_only = bool(judged_docs_only_flag)
        self._measures: dict[str, Measure] = {}
        for text in measures:
            base = str(text).split(".")[0]
            if base not in supported_measures and not any(base.startswith(f"{n}_") for n in supported_measures):
                raise ValueError(f"unsupported measure {text}")
            for key, measure in parse_measures(str(text)):
                self._measures[trec_name(measure) or key] = measure

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """``{query: {measure: value}}`` for every query in both the qrels and ``scores`` (``{query: {doc: score}}``),
        as pytrec_eval's ``evaluate``: trec_eval's per-query values (float32 scores, ties by doc id descending)."""
        run = {str(q): {str(d): float(s) for d, s in docs.items()} for q, docs in scores.items() if docs}
        common = [q for q in run if self._qrels.get(q)]
        if not common or not self._measures:
            return {}
        keys = list(self._measures)
        try:
            result = _evaluate({q: self._qrels[q] for q in common}, {q: run[q] for q in common},
                               [self._measures[k] for k in keys], dialect="pytrec_eval",
                               rel_level=self._relevance_level, judged_only=self._judged_only)  # fmt: skip
        except MeasureError as exc:
            raise ValueError(str(exc)) from None
        labels = [str(self._measures[k]) for k in keys]
        out: dict[str, dict[str, float]] = {}
        for query in common:
            values = result.per_query.get(query, {})
            emptied = self._judged_only and not any(self._qrels[query].get(d, -1) >= 0 for d in run[query])
            row = {}
            for key, label in zip(keys, labels):
                value = float(values.get(label, math.nan))
                if key in _LOG_PER_QUERY:
                    value = math.log(max(value, 1e-5))
                elif emptied and _reads_recall_zero(self._measures[key]):
                    value = math.nan  # trec_eval 9: precision at recall 0 of an empty ranking is 0/0
                row[key] = value
            out[query] = row
        return out


def _reads_recall_zero(measure: Measure) -> bool:
    """Whether a measure reads the interpolated precision at recall 0 (``iprec_at_recall_0.00``, ``11pt_avg``)."""
    if measure.name == "IPrec":
        return measure.cutoff == 0
    levels = measure.option("levels")
    return measure.name == "IPrecAvg" and isinstance(levels, tuple) and 0.0 in levels


__all__ = ["RelevanceEvaluator", "supported_measures"]
