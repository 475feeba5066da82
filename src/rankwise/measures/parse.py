"""Reading measure strings: ir_measures-like syntax and trec_eval names.

Syntax: ``NAME[(PARAM=VALUE,...)][@CUTOFF]`` — ``nDCG@10``, ``P(rel=2)@5``, ``AP(denom=min_k_R)@20``,
``nDCG(gain=exp2)@10``, ``nDCG(gain={1:1,2:3,3:7})@10``. Names and aliases are matched without regard to case
(``MAP@100``, ``mrr@10``). trec_eval names (``ndcg_cut.10,20``, ``P_5``, ``map``, ``official``) are read by
:mod:`rankwise.measures.trec_names`.
"""

from __future__ import annotations

import re

from ..errors import MeasureError
from .catalog import canonical_family_name, family, suggest
from .spec import Measure, _split_top_level
from .trec_names import parse_trec_name, trec_name

_MEASURE_RE = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z0-9_\-]*)\s*(?:\((?P<params>.*)\))?\s*(?:@\s*(?P<cutoff>[0-9]*\.?[0-9]+))?$"
)


def parse_measure(text: str) -> Measure:
    """Parse one measure in ir_measures-like syntax (or a trec_eval name that names exactly one measure).

    ``parse_measure(str(m)) == m`` for every :class:`Measure` ``m``.
    """
    measures = parse_measures(text)
    if len(measures) != 1:
        raise MeasureError(f"{text!r} names {len(measures)} measures; use parse_measures for sets")
    return measures[0][1]


def _parse_ir_syntax(text: str) -> Measure:
    match = _MEASURE_RE.match(text)
    if match is None:
        raise MeasureError(f"cannot read measure {text!r}: expected NAME[(param=value,...)][@cutoff]{suggest(text)}")
    name = canonical_family_name(match["name"])
    if name is None:
        raise MeasureError(f"unknown measure {match['name']!r}{suggest(match['name'])}")
    spec = family(name)
    params = []
    if match["params"] is not None and match["params"].strip():
        for item in _split_top_level(match["params"]):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or not key:
                raise MeasureError(f"{text}: parameter {item.strip()!r} must look like name=value")
            params.append((key, spec.param(key).parse(value, text)))
    cutoff: float | None = None
    if match["cutoff"] is not None:
        raw = match["cutoff"]
        cutoff = float(raw) if spec.cutoff == "recall" or "." in raw else int(raw)
    return Measure(name, cutoff=cutoff, params=tuple(params))


def parse_measures(text: str) -> list[tuple[str, Measure]]:
    """Parse a measure string that may name several measures; returns ``(key, measure)`` pairs.

    The key is ``text`` itself when it names one measure, otherwise each measure's trec_eval output name
    (``P.5,10`` gives ``P_5`` and ``P_10``).
    """
    text = text.strip()
    if not text:
        raise MeasureError("empty measure name")
    measures = parse_trec_name(text)
    if measures is None:
        measures = [_parse_ir_syntax(text)]
    if len(measures) == 1:
        return [(text, measures[0])]
    keys = [trec_name(m) or str(m) for m in measures]
    if len(set(keys)) < len(keys):  # e.g. recall levels 0.121 and 0.124 both print as iprec_at_recall_0.12
        keys = [str(m) for m in measures]
    return list(zip(keys, measures))
