"""``pytrec_eval``'s Python API, computed by rankwise: ``RelevanceEvaluator(qrels, measures, relevance_level=1,
judged_docs_only_flag=False).evaluate(run)`` returns pytrec_eval's dict of dicts, ``{query: {trec_eval name: value}}``.

As pytrec-eval-terrier 0.5 (cvangysel/pytrec_eval ``src/pytrec_eval.cpp`` and ``py/__init__.py``, trec_eval 9.0.8
inside): only the queries in both the qrels and the run are evaluated (one with an empty ranking too); scores are
stored as float32 before ranking (equal in float32 = tied, then by doc id descending); measures are trec_eval names
(``map``, ``P``, ``P.5,10``, ``ndcg_cut_5,10``, ``P_5``) or nicknames (``official``, ``set``, ``all_trec``), the
parameters of one measure merged as pytrec_eval merges them, keyed by their trec_eval output names (``P_5``,
``ndcg_cut_10``, ``iprec_at_recall_0.10``); ``gm_map`` and ``gm_bpref`` per query are the natural log of AP and
bpref (floored at 1e-5), as trec_eval keeps them; ``iprec_at_recall`` with trec_eval 9's rounding, and NaN at recall
0 for an empty ranking, or one emptied by ``judged_docs_only_flag`` (trec_eval 9's 0/0, which pytrec_eval
returns). Everything is computed by :func:`rankwise.evaluate` under the ``pytrec_eval`` dialect.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

from ..errors import MeasureError
from ..measures import Measure, parse_measures, trec_name
from ..measures.trec_names import ALL_TREC, CUTOFF_FAMILIES, OFFICIAL, PLAIN_MEASURES, SET_MEASURES
from ..pipeline.evaluate import evaluate as _evaluate

supported_measures: frozenset[str] = frozenset(
    name for name in {*CUTOFF_FAMILIES, *PLAIN_MEASURES, "Rprec_mult"}
    if name not in ("dcg", "ideal_dcg", "rbp", "rbp_resid", "unj", "yaap")  # trec_eval 10's, not in pytrec_eval
)  # fmt: skip
"""The trec_eval measure names :class:`RelevanceEvaluator` takes (pytrec_eval's ``supported_measures`` less
``relstring`` and ``runid``, which trec_eval prints as text and pytrec_eval returns as 0.0)."""

supported_nicknames: dict[str, set[str]] = {
    name: {m for m in members if m in supported_measures}
    for name, members in (("official", OFFICIAL), ("set", SET_MEASURES), ("all_trec", ALL_TREC))
}
"""pytrec_eval's nicknames, each the measures of trec_eval's ``-m official``, ``-m set`` and ``-m all_trec`` that
:class:`RelevanceEvaluator` takes (``runid`` and ``relstring``, which trec_eval prints as text, left out)."""

_LOG_PER_QUERY = {"gm_map", "gm_bpref"}
_PARAMS = re.compile(r"^(\w+?)[._]([0-9]+(?:\.[0-9]+)?(?:,[0-9]+(?:\.[0-9]+)?)*)$")


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
        try:
            named = [pair for text in _combined(measures) for pair in parse_measures(text)]
        except MeasureError as exc:  # a parameter rankwise does not read (set_F.0.5)
            raise ValueError(str(exc)) from None
        self._measures = {trec_name(measure) or key: measure for key, measure in named}

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """``{query: {measure: value}}`` for every query in both the qrels and ``scores`` (``{query: {doc: score}}``),
        as pytrec_eval's ``evaluate``: trec_eval's per-query values (float32 scores, ties by doc id descending)."""
        run = {str(q): docs for q, docs in scores.items()}  # as given: rankwise.io reads them at once
        common = [q for q in run if self._qrels.get(q)]
        if not common or not self._measures:
            return {q: {} for q in common}
        keys = list(self._measures)
        ranked = {q: run[q] for q in common if run[q]} or {" ": {" ": 0.0}}  # all empty: one unjudged query (ignored)
        try:  # a query with an empty ranking is evaluated as one (trec_eval -c's empty ranking), as pytrec_eval does
            result = _evaluate({q: self._qrels[q] for q in common}, ranked, [self._measures[k] for k in keys],
                               dialect="pytrec_eval", queries="qrels", rel_level=self._relevance_level,
                               judged_only=self._judged_only)  # fmt: skip
        except MeasureError as exc:
            raise ValueError(str(exc)) from None
        labels = [str(self._measures[k]) for k in keys]
        per_query = result.per_query  # built once (a property)
        out: dict[str, dict[str, float]] = {}
        for query in common:
            values = per_query.get(query, {})
            emptied = not run[query] or (self._judged_only and not any(self._qrels[query].get(d, -1) >= 0
                                                                        for d in run[query]))  # fmt: skip
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


def _combined(measures: Iterable[str]) -> list[str]:
    """pytrec_eval's measure list as trec_eval reads it (pytrec_eval ``py/__init__.py``, ``_expand_nicknames`` and
    ``_combine_measures``): nicknames (``official``, ``set``, ``all_trec``) expanded; ``NAME.p1,p2`` and
    ``NAME_p1,p2`` of one measure merged into one ``NAME.p1,p2,...``, a bare ``NAME`` giving its default parameters
    only when none is given. ValueError for a name pytrec_eval does not support."""
    params: dict[str, set[str]] = {}
    for text in (m for name in measures for m in supported_nicknames.get(str(name), {str(name)})):
        if text in supported_measures:
            params.setdefault(text, set())
            continue
        match = _PARAMS.match(text)
        if match is None or match[1] not in supported_measures:
            raise ValueError(f"unsupported measure {text}")
        params.setdefault(match[1], set()).update(match[2].split(","))
    return [f"{base}.{','.join(sorted(args))}" if args else base for base, args in params.items()]


def _reads_recall_zero(measure: Measure) -> bool:
    """Whether a measure reads the interpolated precision at recall 0 (``iprec_at_recall_0.00``, ``11pt_avg``)."""
    if measure.name == "IPrec":
        return measure.cutoff == 0
    levels = measure.option("levels")
    return measure.name == "IPrecAvg" and isinstance(levels, tuple) and 0.0 in levels


__all__ = ["RelevanceEvaluator", "supported_measures"]
