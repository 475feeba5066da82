"""Reading measure strings: ir_measures-like syntax and trec_eval names.

Syntax: ``NAME[(PARAM=VALUE,...)][@CUTOFF]`` — ``nDCG@10``, ``P(rel=2)@5``, ``AP(denom=min_k_R)@20``,
``nDCG(gain=exp2)@10``, ``nDCG(gain={1:1,2:3,3:7})@10``. Names and aliases are matched without regard to case
(``MAP@100``, ``mrr@10``). trec_eval names (``ndcg_cut.10,20``, ``P_5``, ``map``, ``official``) are read by
:mod:`rankwise.measures.trec_names`.
"""

from __future__ import annotations

import re

from ..errors import MeasureError
from ..wording import shorten as _short
from .catalog import canonical_family_name, family, suggest
from .spec import Measure, ParamValue, _split_top_level, check_cutoff_digits
from .trec_names import CUTOFF_FAMILIES, PLAIN_MEASURES, parse_trec_name, trec_name

_MEASURE_RE = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z0-9_\-]*)\s*(?:\((?P<params>.*)\))?\s*(?:@\s*(?P<cutoff>[0-9]*\.?[0-9]+))?$"
)


def parse_measure(text: str) -> Measure:
    """Parse one measure in ir_measures-like syntax (or a trec_eval name that names exactly one measure).

    ``parse_measure(str(m)) == m`` for every :class:`Measure` ``m``.
    """
    measures = parse_measures(text)
    if len(measures) != 1:
        raise MeasureError(f"{_short(text)!r} names {len(measures)} measures; use parse_measures for sets")
    return measures[0][1]


def _parse_ir_syntax(text: str) -> Measure:
    name, params, raw_cutoff = _read_parts(text)
    cutoff: float | None = None
    if raw_cutoff is not None:
        cutoff = _cutoff_number(raw_cutoff, family(name).cutoff == "recall" or "." in raw_cutoff, text)
    return Measure(name, cutoff=cutoff, params=params)


def _read_parts(text: str) -> tuple[str, tuple[tuple[str, ParamValue], ...], str | None]:
    """``NAME[(param=value,...)][@cutoff]`` → (family name, parsed parameters, cutoff text or None)."""
    match = _MEASURE_RE.match(text)
    if match is None:
        raise MeasureError(
            f"cannot read measure {_short(text)!r}: expected NAME[(param=value,...)][@cutoff]{suggest(text)}"
        )
    name = _family_of(match["name"])
    spec = family(name)
    params = []
    if match["params"] is not None and match["params"].strip():
        for item in _split_top_level(match["params"]):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or not key:
                raise MeasureError(f"{_short(text)}: parameter {_short(item.strip())!r} must look like name=value")
            params.append((key, spec.param(key).parse(value, text)))
    return name, tuple(params), match["cutoff"]


def _family_of(name: str) -> str:
    """The family a name in ``NAME[(...)][@k]`` syntax means: a rankwise name or alias (any case), or a trec_eval
    name without its cutoff (``ndcg_cut``, ``recip_rank``), so that ``ndcg_cut@10`` — the key ``-m ndcg_cut -k 10``
    gives — reads back as the measure it names."""
    canonical = canonical_family_name(name) or PLAIN_MEASURES.get(name) or CUTOFF_FAMILIES.get(name, (None,))[0]
    if canonical is None:
        raise MeasureError(f"unknown measure {_short(name)!r}{suggest(name)}")
    return canonical


def _cutoff_number(raw: str, as_float: bool, text: str) -> int | float:
    check_cutoff_digits(raw, text)
    return float(raw) if as_float else int(raw)


def expand_cutoffs(text: str, cutoffs: list[int]) -> list[tuple[str, Measure]] | None:
    """The one ``-k`` rule: a measure string written without a cutoff whose family takes a rank cutoff (``P``,
    ``Precision``, ``nDCG(gain=exp2)``, ``ndcg_cut``, ``map``) becomes ``TEXT@k`` for each k, keyed exactly so
    (``parse_measures("TEXT@k")`` reads it back). None when ``text`` gives its own cutoff (``P@5``, ``P_5``,
    ``P.5,10``), names a set (``official``) or a family without rank cutoffs (``bpref``, ``IPrec``)."""
    text = text.strip()
    match = _MEASURE_RE.match(text)
    if match is None or match["cutoff"] is not None or text == "official":
        return None
    if text not in CUTOFF_FAMILIES and text not in PLAIN_MEASURES and parse_trec_name(text) is not None:
        return None  # P_5, ndcg_cut_10: a trec_eval name with its cutoff
    name, params, _ = _read_parts(text)
    if family(name).cutoff != "rank":
        return None
    return [(f"{text}@{k}", Measure(name, cutoff=k, params=params)) for k in cutoffs]


def parse_measures(text: str) -> list[tuple[str, Measure]]:
    """Parse a measure string that may name several measures; returns ``(key, measure)`` pairs.

    The key is ``text`` itself when it names one measure, otherwise each measure's trec_eval output name
    (``P.5,10`` gives ``P_5`` and ``P_10``).
    """
    if not isinstance(text, str):
        raise MeasureError(f"a measure must be a string like 'nDCG@10', not {type(text).__name__}")
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
