"""Resolve: what the user asked (measure strings, a dialect, policies, cutoffs, a rating threshold) becomes a
:class:`Plan` — the bound measures, the policies in force and the query set each measure is averaged over."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

from ..dialects import Dialect, resolve_dialect
from ..errors import InputError, MeasureError, RankwiseError
from ..measures import Measure, parse_measures
from ..measures.parse import distinct_keys, expand_cutoffs, measure_items, not_a_measure
from ..policies import Policies, QuerySet

if TYPE_CHECKING:  # a plan is made without numpy or polars (``rankwise explain`` reads it)
    from ..io.table import Grades

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
    grades: Grades = "integer"
    """How qrels values are read: integer grades, or real-valued ones (``"real"``)."""


def make_plan(
    measures: MeasureLike | Iterable[MeasureLike] | None,
    dialect: str | Dialect | None = None,
    *,
    cutoffs: Iterable[int] | None = None,
    threshold: float | None = None,
    rel_level: int = 1,
    grades: Grades | None = None,
    **policies: Any,
) -> Plan:
    """The plan for an evaluation: dialect resolved, measures parsed and bound, policies in force (explicit, else
    the dialect's, else trec_eval's), and measures grouped by the query set they are averaged over (a dialect may
    average some measures over other queries, as MS Recommenders' nDCG, unless ``queries`` is given)."""
    chosen, note = choose_dialect(dialect)
    threshold, rel_level = rating_threshold(chosen, threshold, rel_level)
    in_force = resolve_policies(chosen, rel_level=rel_level, **policies)
    pairs = resolve_measures(measures, cutoffs, dialect=chosen)
    written = [measures] if isinstance(measures, str) else list(measures) if isinstance(measures, Iterable) else []
    name_notes = [n for m in written if chosen is not None and isinstance(m, str) and (n := chosen.name_note(m))]
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
    if grades not in (None, "integer", "real"):
        raise RankwiseError(f"grades must be 'integer' or 'real', not {grades!r}")
    if grades == "real" and threshold is not None:
        raise RankwiseError("grades='real' keeps the qrels values as grades; a rating threshold makes them binary: "
                            "give one of them")  # fmt: skip
    notes = ((note,) if note else ()) + tuple(name_notes)
    return Plan(tuple(pairs), in_force, chosen, groups, threshold, notes, grades or "integer")


def resolve_measures(
    measures: MeasureLike | Iterable[MeasureLike] | None,
    cutoffs: Iterable[int] | None = None,
    *,
    dialect: Dialect | None = None,
) -> list[tuple[str, Measure]]:
    """``(key, measure)`` pairs for what the user asked; None means trec_eval's ``official`` set.

    Keys are the strings exactly as written (or each trec_eval output name when one string names a set,
    like ``P.5,10``); a :class:`Measure` object is keyed by its canonical name.

    With ``cutoffs``, one rule: a measure written without a cutoff whose family takes a rank cutoff becomes one
    measure per cutoff, keyed as written plus ``@k`` (``P`` → ``P@10``, ``Precision`` → ``Precision@10``,
    ``ndcg_cut`` → ``ndcg_cut@10``, and in a set such as ``official``, ``map`` → ``map@10``). Every such key reads
    back as its measure (``parse_measure("ndcg_cut@10")`` is nDCG@10).

    With ``dialect``, a string that is one of its library's own names (ranx's ``hit_rate@10``, MS Recommenders'
    ``novelty``) is read as the rankwise measure that library computes (:meth:`Dialect.read_name`), keyed as written.
    """
    ks = check_cutoffs(cutoffs)
    pairs: list[tuple[str, Measure]] = []
    for item in measure_items(["official"] if measures is None else measures):
        if isinstance(item, Measure):
            pairs.append((str(item), item))
        elif isinstance(item, str) and dialect is not None and (native := _read_native(dialect, item, ks)) is not None:
            pairs.extend(native)
        elif isinstance(item, str):
            expanded = expand_cutoffs(item, ks) if ks is not None else None
            pairs.extend(expanded if expanded is not None else parse_measures(item))
        else:
            raise not_a_measure(item)
    if ks is not None:
        pairs = _with_cutoffs(pairs, ks)
    if not pairs:
        raise MeasureError("no measures given")
    return distinct_keys(pairs)


def check_cutoffs(cutoffs: Iterable[int] | None) -> list[int] | None:
    """``cutoffs`` as a list of whole numbers >= 1, or a :class:`MeasureError` naming the bad one (a float such as
    2.7 is refused, never truncated; ``cutoffs=5`` is refused: write ``[5]``)."""
    if cutoffs is None:
        return None
    if isinstance(cutoffs, (str, bytes)) or not isinstance(cutoffs, Iterable):
        raise MeasureError(f"cutoffs must be a list of integers such as [10, 20], not {cutoffs!r}")
    ks = []
    for k in cutoffs:
        whole = isinstance(k, Integral) and not isinstance(k, bool)  # numpy integers too
        if not whole and isinstance(k, Real) and math.isfinite(k) and float(k).is_integer():
            whole = True
        if not whole or k < 1:
            raise MeasureError(f"cutoff {k!r} must be an integer >= 1")
        ks.append(int(k))
    if not ks:
        raise MeasureError("cutoffs is empty: give at least one, e.g. [10]")
    return ks


def _read_native(dialect: Dialect, text: str, cutoffs: list[int] | None) -> list[tuple[str, Measure]] | None:
    """``text`` read as one of ``dialect``'s library names (:meth:`Dialect.read_name`), keyed as written; None when it
    is not one. With ``cutoffs`` (``-k``), a library name written without its cutoff is read once per cutoff as
    ``TEXT@k`` (ir_measures' ``P`` needs one); one that cannot take them is left to rankwise's ``-k`` rule."""
    if cutoffs is not None:
        text = text.strip()
        try:
            each = [(f"{text}@{k}", dialect.read_name(f"{text}@{k}")) for k in cutoffs]
        except MeasureError:
            each = []
        if each and all(measure is not None for _, measure in each):
            return [(key, measure) for key, measure in each if measure is not None]
        if expand_cutoffs(text, cutoffs) is not None:
            return None
    native = dialect.read_name(text)
    return None if native is None else [(text, native)]


def _with_cutoffs(pairs: list[tuple[str, Measure]], cutoffs: list[int]) -> list[tuple[str, Measure]]:
    """Members of a set (``official``) and :class:`Measure` objects without a cutoff, each cutoff: ``KEY@k``."""
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


def choose_dialect(dialect: object) -> tuple[Dialect | None, str | None]:
    """The dialect ``NAME[@VERSION]`` names (with a note when its version has no binding of its own), a
    :class:`Dialect` as given, or None; anything else is refused."""
    if dialect is None or isinstance(dialect, Dialect):
        return dialect, None
    if not isinstance(dialect, str):
        raise RankwiseError(f"dialect must be a name such as 'ranx@0.3' or a Dialect, not {dialect!r}")
    return resolve_dialect(dialect)


def check_threshold(threshold: object) -> float | None:
    """A rating threshold as a finite float (None stays None); a string, bool, NaN or infinity is refused: NaN
    would make no rating relevant and infinity none, silently."""
    if threshold is None:
        return None
    if isinstance(threshold, bool) or not isinstance(threshold, Real):  # numpy numbers too
        raise InputError(f"threshold must be a number such as 4 or 3.5, not {threshold!r}")
    if not math.isfinite(threshold):
        raise InputError(f"threshold must be a finite number, not {threshold!r}")
    return float(threshold)


def rating_threshold(dialect: Dialect | None, threshold: float | None, rel_level: int) -> tuple[float | None, int]:
    """The threshold the qrels are read with and the rel_level in force. Under a dialect whose ratings are
    ``graded`` (Elliot), ratings stay the grades and an integer threshold becomes the rel_level; otherwise
    ratings at or above the threshold are grade 1."""
    threshold = check_threshold(threshold)
    if threshold is None or dialect is None or dialect.ratings != "graded":
        return threshold, rel_level
    if not float(threshold).is_integer() or threshold < 0:
        raise InputError(
            f"dialect {dialect.name} keeps ratings as graded gains 2^(r − t + 1) − 1, which rankwise computes for a "
            f"whole-number threshold t >= 0 and integer ratings; got threshold {threshold}"
        )
    return None, int(threshold)
