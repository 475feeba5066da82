"""Reading measure strings: ir_measures-like syntax and trec_eval names.

Syntax: ``NAME[(PARAM=VALUE,...)][@CUTOFF]`` — ``nDCG@10``, ``P(rel=2)@5``, ``AP(denom=min_k_R)@20``,
``nDCG(gain=exp2)@10``, ``nDCG(gain={1:1,2:3,3:7})@10``. Names and aliases are matched without regard to case
(``MAP@100``, ``mrr@10``). trec_eval names (``ndcg_cut.10,20``, ``P_5``, ``map``, ``official``) are read by
:mod:`rankwise.measures.trec_names`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import cast

from ..errors import MeasureError
from ..wording import shorten as _short
from .catalog import canonical_family_name, family, suggest
from .peers import PEER_RE, Arg, PeerName, PeerNames
from .spec import Measure, ParamValue, _split_top_level, check_cutoff_digits
from .trec_names import CUTOFF_FAMILIES, PLAIN_MEASURES, parse_trec_name, trec_name

_MEASURE_RE = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z0-9_\-]*)\s*(?:\((?P<params>.*)\))?\s*"
    r"(?:@\s*(?P<cutoff>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?))?$"
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
    name, params, raw_cutoff = read_parts(text)
    cutoff: float | None = None
    if raw_cutoff is not None:
        cutoff = _cutoff_number(raw_cutoff, family(name).cutoff == "recall" or "." in raw_cutoff, text)
    return Measure(name, cutoff=cutoff, params=params)


def read_parts(text: str) -> tuple[str, tuple[tuple[str, ParamValue], ...], str | None]:
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
    """A cutoff's text as a number: a float for a recall level (or one written with a point), else an integer; an
    exponent (``5e-324``, how a tiny recall level prints) is read too."""
    check_cutoff_digits(raw, text)
    if "e" in raw.lower():
        value = float(raw)
        return value if as_float or not value.is_integer() else int(value)
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
    name, params, _ = read_parts(text)
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


def measure_items(measures: object) -> list[object]:
    """``measures`` as a list of what was asked: one string or :class:`Measure` as a list of it, an iterable as its
    items (each checked where it is read: :func:`not_a_measure`); anything else a one-line :class:`MeasureError`."""
    items = [measures] if isinstance(measures, (str, Measure)) else measures
    if not isinstance(items, Iterable):
        raise MeasureError(f"measures must be a string, a Measure or a list of them, not {type(items).__name__}")
    return list(items)


def not_a_measure(item: object) -> MeasureError:
    """The error for an item of a measure list that is neither a string nor a :class:`Measure`."""
    return MeasureError(f"a measure must be a string or a Measure, not {type(item).__name__}")


def distinct_keys(pairs: Iterable[tuple[str, Measure]]) -> list[tuple[str, Measure]]:
    """``pairs`` (key as written, measure) with each key once; a key that names two different measures refused."""
    seen: dict[str, Measure] = {}
    for key, measure in pairs:
        if seen.setdefault(key, measure) != measure:
            raise MeasureError(f"{key!r} would name two different measures: {seen[key]} and {measure}")
    return list(seen.items())


def read_peer_name(names: PeerNames, text: str) -> Measure | None:
    """The rankwise measure ``text`` names in another library's syntax (``names``: that library's, see
    :mod:`rankwise.measures.peers`): ranx's ``ndcg_burges@10`` is ``nDCG(gain=exp2)@10``, ir_measures'
    ``nDCG(dcg=exp-log2)@10`` the same, MS Recommenders' ``novelty`` ``SelfInformation``. The measure carries the
    parameters that name fixes; a dialect's bindings fill the rest. None when ``text`` is not one of the library's
    names; a :class:`MeasureError` saying why when it is but rankwise does not compute it, or an argument is wrong."""
    match = PEER_RE.match(names.respell(text).strip())
    if match is None:
        return None
    parts = match.groupdict()
    entry = names.find(parts["name"])
    if entry is None:
        return None
    where = f"{names.possessive} {entry.name}"
    if entry.measure is None:
        if _is_rankwise_name(text):
            return None  # rankwise's own name (RecBole's AUC is GAUC under its dialect): the dialect notes the clash
        raise MeasureError(f"{_short(text)}: rankwise does not compute {where}: {entry.why}")
    given = _peer_args(parts["args"], names.positional, text)
    measure_text = entry.measure
    if parts["cutoff"] is None and entry.cutoff is None and not any(
            _peer_arg(names, entry, key, where).to == "cutoff" for key in given):  # fmt: skip
        measure_text = entry.uncut or entry.measure
    name, base_params, base_cutoff = read_parts(measure_text)
    cutoff: int | float | None = None if base_cutoff is None else _peer_number(base_cutoff, measure_text)
    params: dict[str, ParamValue] = dict(base_params)
    if entry.cutoff is not None:
        cutoff = entry.cutoff
    if parts["cutoff"] is not None:
        if names.dot is not None and parts["dot"] is None and family(name).cutoff is None:
            parts["dot"] = parts["cutoff"].replace(".", "")  # ranx reads rbp@95 as rbp.95
        else:
            cutoff = _peer_number(parts["cutoff"], text)
    for marker, setting in (("dot", names.dot), ("minus", names.minus), ("rel", names.rel_suffix or None)):
        if parts[marker] and setting is None:
            return None  # not this library's syntax
    if parts["dot"] is not None and names.dot is not None:
        params[names.dot] = float("0." + parts["dot"])
    elif names.dot is not None and names.dot in family(name).param_names().split(", ") and names.dot not in given:
        raise MeasureError(f"{_short(text)}: {where} needs its {names.dot}: {entry.name}.DIGITS ({names.dot} = "
                           f"0.DIGITS), e.g. {entry.name}.95")  # fmt: skip
    if parts["minus"] and names.minus is not None:
        params[names.minus[0]] = names.minus[1]
    if parts["rel"] is not None:
        params["rel"] = int(parts["rel"])
    for key, raw in given.items():
        arg = _peer_arg(names, entry, key, where)
        if arg.why:
            raise MeasureError(f"{_short(text)}: {where}: argument {key!r} is not supported: {arg.why}")
        value = raw
        if arg.values:
            if raw not in arg.values:
                raise MeasureError(f"{_short(text)}: {where}: {key}={_short(raw)!r} must be one of "
                                   f"{', '.join(arg.values)}")  # fmt: skip
            value = str(arg.values[raw])
        if arg.switch:
            name = arg.switch
        if arg.to == "cutoff":
            cutoff = _peer_number(value, text)
        elif arg.to == "measure":
            name = canonical_family_name(value) or value
        elif arg.index is not None:
            default = params.get(arg.to, family(name).param(arg.to).default)
            items = [float(v) for v in cast(tuple[float, ...], default)] if isinstance(default, tuple) else []
            items[arg.index] = float(_peer_number(value, text))
            params[arg.to] = tuple(items)
        elif arg.square_root:
            params[arg.to] = family(name).param(arg.to).check(float(_peer_number(value, text)) ** 0.5, text)
        else:
            params[arg.to] = family(name).param(arg.to).parse(value, text)
    known = {p.name for p in family(name).params}
    return Measure(name, cutoff=cutoff, params=tuple((k, v) for k, v in params.items() if k in known))


def _peer_arg(names: PeerNames, entry: PeerName, key: str, where: str) -> Arg:
    """The library's argument ``key`` of ``entry``; a rankwise parameter of the entry's family is read as itself
    (``nDCG(gain=exp2)@10`` keeps its rankwise meaning among ir_measures' names)."""
    arg = entry.args.get(key) or names.args.get(key)
    if arg is None and entry.measure is not None and key in family(read_parts(entry.measure)[0]).param_names().split(
            ", "):  # fmt: skip
        return Arg(key)
    if arg is None:
        known = ", ".join(dict.fromkeys([*entry.args, *names.args])) or "none"
        raise MeasureError(f"{where} has no argument {key!r} that rankwise reads; it reads: {known}")
    return arg


def _peer_args(text: str | None, positional: str | None, whole: str) -> dict[str, str]:
    """``k=10, gains={0:0,1:1}`` → {name: value text}, quotes dropped; a first positional value goes to
    ``positional`` (RePlay's ``NDCG(10)``)."""
    out: dict[str, str] = {}
    if text is None or not text.strip():
        return out
    for i, item in enumerate(_split_top_level(text)):
        key, sep, value = item.partition("=")
        if not sep:
            if i != 0 or positional is None:
                raise MeasureError(f"{_short(whole)}: argument {_short(item.strip())!r} must look like name=value")
            key, value = positional, item
        out[key.strip()] = value.strip().strip("'\"")
    return out


def _peer_number(text: str, whole: str) -> int | float:
    check_cutoff_digits(text, whole)
    try:
        return float(text) if "." in text else int(text)
    except ValueError:
        raise MeasureError(f"{_short(whole)}: {_short(text)!r} must be a number") from None


def _is_rankwise_name(text: str) -> bool:
    try:
        parse_measures(text)
    except MeasureError:
        return False
    return True
