"""Resolve: what the user asked (measure strings, a dialect, policies, cutoffs, a rating threshold) becomes a
:class:`Plan` — the bound measures, the policies in force and the query set each measure is averaged over."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..dialects import Dialect, resolve_dialect
from ..errors import InputError, MeasureError
from ..measures import Measure, parse_measures
from ..measures.trec_names import CUTOFF_FAMILIES
from ..policies import Policies, QuerySet

MeasureLike = str | Measure


@dataclass(frozen=True)
class QueryGroup:
    """Measures (rows of the plan) averaged over one query set."""

    policies: Policies
    rows: tuple[int, ...]


@dataclass(frozen=True)
class Plan:
    """Everything decided before any data is read.

    ``pairs``: (key as written, measure with the dialect's parameters bound); ``groups``: the query sets, the
    evaluation's own first; ``threshold``: what the qrels are read with; ``notes``: what resolving decided that the
    user should hear (a dialect version without its own binding).
    """

    pairs: tuple[tuple[str, Measure], ...]
    policies: Policies
    dialect: Dialect | None
    groups: tuple[QueryGroup, ...]
    threshold: float | None
    notes: tuple[str, ...] = ()


def make_plan(
    measures: MeasureLike | Iterable[MeasureLike] | None,
    dialect: str | Dialect | None = None,
    *,
    cutoffs: Iterable[int] | None = None,
    threshold: float | None = None,
    rel_level: int = 1,
    **policies: Any,
) -> Plan:
    """The plan for an evaluation: dialect resolved, measures parsed and bound, policies in force (explicit, else
    the dialect's, else trec_eval's), and measures grouped by the query set they are averaged over (a dialect may
    average some measures over other queries, as MS Recommenders' nDCG, unless ``queries`` is given)."""
    chosen, note = resolve_dialect(dialect) if isinstance(dialect, str) else (dialect, None)
    threshold, rel_level = rating_threshold(chosen, threshold, rel_level)
    in_force = resolve_policies(chosen, rel_level=rel_level, **policies)
    pairs = resolve_measures(measures, cutoffs)
    if chosen is not None:
        pairs = [(key, chosen.bind(measure, in_force.rel_level)) for key, measure in pairs]
    overrides = chosen.measure_queries if chosen is not None and policies.get("queries") is None else {}
    by_set: dict[str, list[int]] = {in_force.queries.value: []}
    for i, (_, measure) in enumerate(pairs):
        by_set.setdefault(overrides.get(measure.name, in_force.queries.value), []).append(i)
    main = in_force.queries.value
    others = sorted(name for name, rows in by_set.items() if name != main and rows)
    groups = tuple(
        QueryGroup(dataclasses.replace(in_force, queries=QuerySet(name)), tuple(by_set[name]))
        for name in [main, *others]
    )
    return Plan(tuple(pairs), in_force, chosen, groups, threshold, (note,) if note else ())


def resolve_measures(
    measures: MeasureLike | Iterable[MeasureLike] | None, cutoffs: Iterable[int] | None = None
) -> list[tuple[str, Measure]]:
    """``(key, measure)`` pairs for what the user asked; None means trec_eval's ``official`` set.

    With ``cutoffs``, a measure written without a cutoff whose family takes a rank cutoff becomes one measure
    per cutoff, keyed ``TEXT@k``.

    Keys are the strings exactly as written (or each trec_eval output name when one string names a set,
    like ``P.5,10``); a :class:`Measure` object is keyed by its canonical name.
    """
    if measures is None:
        measures = ["official"]
    elif isinstance(measures, (str, Measure)):
        measures = [measures]
    pairs: list[tuple[str, Measure]] = []
    for item in measures:
        if isinstance(item, Measure):
            pairs.append((str(item), item))
        elif isinstance(item, str):
            text = item.strip()
            if cutoffs is not None and CUTOFF_FAMILIES.get(text, ("", ()))[0] not in ("", "IPrec"):
                text = f"{text}.{','.join(str(int(k)) for k in cutoffs)}"  # -m P -k 10,20: P_10, P_20
            pairs.extend(parse_measures(text))
        else:
            raise MeasureError(f"a measure must be a string or a Measure, not {type(item).__name__}")
    if cutoffs is not None:
        pairs = _with_cutoffs(pairs, [int(k) for k in cutoffs])
    if not pairs:
        raise MeasureError("no measures given")
    unique: dict[str, Measure] = {}
    for key, measure in pairs:
        if unique.get(key, measure) != measure:
            raise MeasureError(f"{key!r} would name two different measures: {unique[key]} and {measure}")
        unique[key] = measure
    return list(unique.items())


def _with_cutoffs(pairs: list[tuple[str, Measure]], cutoffs: list[int]) -> list[tuple[str, Measure]]:
    out = []
    for key, measure in pairs:
        if measure.cutoff is None and measure.spec.cutoff == "rank":
            out += [(f"{key}@{k}", Measure(measure.name, cutoff=k, params=measure.params)) for k in cutoffs]
        else:
            out.append((key, measure))
    return out


def resolve_policies(dialect: Dialect | None, **given: Any) -> Policies:
    """Policies in force: those given explicitly, else the dialect's, else trec_eval's defaults."""
    chosen = {key: value for key, value in given.items() if value is not None}
    return Policies(**{**(dialect.policies if dialect else {}), **chosen})


def rating_threshold(dialect: Dialect | None, threshold: float | None, rel_level: int) -> tuple[float | None, int]:
    """The threshold the qrels are read with and the rel_level in force. Under a dialect whose ratings are
    ``graded`` (Elliot), ratings stay the grades and an integer threshold becomes the rel_level; otherwise
    ratings at or above the threshold are grade 1."""
    if threshold is None or dialect is None or dialect.ratings != "graded":
        return threshold, rel_level
    if not float(threshold).is_integer() or threshold < 0:
        raise InputError(
            f"dialect {dialect.name} keeps ratings as graded gains 2^(r − t + 1) − 1, which rankwise computes for a "
            f"whole-number threshold t >= 0 and integer ratings; got threshold {threshold}"
        )
    return None, int(threshold)
