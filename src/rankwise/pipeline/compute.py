"""Align and compute: each query group's rankings in the aligned form, then every measure's per-query values and
aggregate from the kernels."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.aligned import Aligned, QueryAccounting, align
from ..engine.training import Training
from ..errors import InputError, MeasureError
from ..io.table import Table
from ..kernels import KERNELS, AggregationInputs, aggregate_from, aggregation_inputs, apply_empty_policy
from ..measures import Measure
from ..policies import Policies
from .load import Inputs
from .plan import Plan, QueryGroup
from .samples import attach_samples


@dataclass(frozen=True)
class GroupValues:
    """The values of one query group: ``values[i]`` is measure ``measures[i]`` (row ``group.rows[i]`` of the plan)
    over ``query_ids``; ``inputs[i]`` is what its aggregate is computed from."""

    group: QueryGroup
    query_ids: list[str]
    accounting: QueryAccounting
    measures: tuple[Measure, ...]
    values: np.ndarray
    inputs: tuple[AggregationInputs, ...]
    caveats: tuple[str, ...]

    @property
    def aggregates(self) -> tuple[float, ...]:
        """Each measure's aggregate over the group's queries."""
        return tuple(aggregate_from(m, inputs) for m, inputs in zip(self.measures, self.inputs))


def compute_groups(plan: Plan, inputs: Inputs, catalog: Any = None, *, allow_empty: bool = False) -> list[GroupValues]:
    """Align the inputs once per query group and compute that group's measures (``allow_empty``: see
    :func:`rankwise.engine.aligned.align`)."""
    out = []
    for group in plan.groups:
        aligned = align(inputs.qrels, inputs.run, group.policies, allow_empty=allow_empty)
        pairs = [plan.pairs[i] for i in group.rows]
        item_groups = inputs.item_groups.mapping if inputs.item_groups is not None else None
        aligned = with_candidates(aligned, inputs.train, catalog, [m for _, m in pairs], inputs.features,
                                  inputs.baseline, item_groups)  # fmt: skip
        aligned.subtopics = inputs.subtopics
        if inputs.samples is not None:
            attach_samples(aligned, inputs.samples, group.policies)
        values, aggregation, caveats = compute(aligned, pairs, group.policies)
        if group.policies.queries != plan.policies.queries:
            caveats += tuple(f"{key}: averaged over queries={group.policies.queries.value}" for key, m in pairs
                             if m.aggregation != "global")  # a global measure is not averaged: see result.notes
        sampled = sampled_note(aligned, group.policies.rel_level) if group is plan.groups[0] else None
        caveats += (sampled,) if sampled else ()
        out.append(GroupValues(group, aligned.query_ids, aligned.accounting, tuple(m for _, m in pairs), values,
                               tuple(aggregation), caveats))  # fmt: skip
    return out


SAMPLED_NOTE = "sampled candidates? "
"""How the note of :func:`sampled_note` begins (a query range keeps it only if every range has it)."""


def sampled_note(aligned: Aligned, rel: int) -> str | None:
    """A note when the rankings look like sampled candidates — every query ranks the same number L ≥ 2 of documents
    and every relevant document is among them, as 1 held-out positive + L − 1 sampled negatives per user (RecBole's
    ``uni100``) are — since sampled metrics are not consistent with full-ranking ones (Krichene & Rendle, KDD 2020);
    None otherwise. A top-k list with every relevant item in it for every user is rare enough to be worth the line."""
    if aligned.num_queries < 2:
        return None
    lengths = np.diff(aligned.offsets)
    relevant = aligned.num_relevant(rel)
    if lengths.min() != lengths.max() or lengths[0] < 2 or not (relevant > 0).all():
        return None
    if not np.array_equal(aligned.per_query_sum(aligned.relevant(rel).astype(np.float64)), relevant):
        return None
    return (f"{SAMPLED_NOTE}every query ranks exactly {lengths[0]} documents and all its relevant ones are among them: "
            f"if these are 1 positive + {lengths[0] - 1} sampled negatives (as RecBole's uni100), the values are "
            "sampled metrics, not consistent with full-ranking ones (Krichene & Rendle, KDD 2020); "
            "rankwise.recsys.sampled.sampled_metric gives their corrected estimate")  # fmt: skip


def resolved_rel(measure: Measure, policies: Policies) -> int:
    """The relevance threshold in force: the measure's own ``rel``, else the evaluation's ``rel_level``."""
    value = measure.option("rel")
    return int(value) if isinstance(value, int) else policies.rel_level  # rel is an int parameter


def compute(
    aligned: Aligned, pairs: list[tuple[str, Measure]], policies: Policies
) -> tuple[np.ndarray, list[AggregationInputs], tuple[str, ...]]:
    """Per-query values, one row per measure (each distinct measure computed once), what each aggregate is computed
    from (:func:`rankwise.kernels.aggregate.aggregation_inputs`) and caveats.

    ``ties=average`` is an expectation, defined only for measures linear in per-rank values; any other
    measure is computed on the layout order (tied documents by doc id descending) and says so in a caveat.
    """
    values = np.empty((len(pairs), aligned.num_queries), dtype=np.float64)
    aggregation = []
    done: dict[tuple[Measure, int], np.ndarray] = {}
    caveats = []
    ordered = dataclasses.replace(aligned, tie_group=None) if aligned.tie_group is not None else aligned
    for i, (key, measure) in enumerate(pairs):
        data = aligned
        if aligned.tie_group is not None and not measure.spec.tie_average:
            data = ordered
            if not measure.orders_ties_itself:
                caveats.append(f"{key}: ties=average is not defined for {measure.name} (not linear in per-rank "
                               "values); tied documents were ordered by doc id, descending")  # fmt: skip
        refuse_undefined_on_real_grades(key, measure, aligned)
        rel = resolved_rel(measure, policies)
        done_key = (measure, rel)
        if done_key not in done:
            done[done_key] = apply_empty_policy(data, measure, rel, KERNELS[measure.name](data, measure, rel))
            _refuse_overflow(key, done[done_key], data)
        values[i] = done[done_key]
        aggregation.append(aggregation_inputs(data, measure, rel, values[i]))
    return values, aggregation, tuple(caveats)


def refuse_undefined_on_real_grades(key: str, measure: Measure, aligned: Aligned) -> None:
    """With real-valued grades (``grades="real"``), refuse a measure that does not define them: one whose ``rel``
    threshold (binary relevance, or the grade below which nDCG gains nothing) is not given explicitly — the
    default of 1 would silently drop every grade in (0, 1) — and a grade map, whose keys are integer grades.
    Graded measures without a threshold (ERR, nERR, RBP, Judged, KendallTau) take real grades as they are."""
    if aligned.qrel_grade.dtype.kind != "f":
        return
    given = dict(measure.params)
    example = f"{measure.name}(rel=1)" + (f"@{measure.cutoff:g}" if measure.cutoff is not None else "")
    if any(p.name == "rel" for p in measure.spec.params) and "rel" not in given:
        raise MeasureError(f"{key}: the grades are real numbers and {measure.name} thresholds them: give rel "
                           f"explicitly, e.g. {example} (rel=0 counts every grade above 0 for nDCG)")  # fmt: skip
    if isinstance(given.get("gain"), tuple):
        raise MeasureError(f"{key}: a grade map gives gains to integer grades; the grades are real numbers")


def _refuse_overflow(key: str, values: np.ndarray, aligned: Aligned) -> None:
    """A per-query value beyond float64's range (gains so large their sum overflows) is an error, never a value."""
    infinite = np.flatnonzero(np.isinf(values))
    if len(infinite):
        raise MeasureError(
            f"{key}: the value of query {aligned.query_ids[infinite[0]]!r} overflows float64 (gains too large); "
            f"{len(infinite)} of {aligned.num_queries} queries affected"
        )


def with_candidates(aligned: Aligned, train: pl.DataFrame | None, catalog: Any, measures: Iterable[Measure],
                    features: pl.DataFrame | None = None, baseline: Table | None = None,
                    item_groups: Mapping[str, str | None] | None = None) -> Aligned:  # fmt: skip
    """``aligned`` with each query's candidate count (see :func:`candidate_counts`; with training interactions but
    no catalogue, only for a measure that reads it: Elliot's AUC family) and what the beyond-accuracy
    measures read of the training interactions, the catalogue, item features, a baseline's lists and item groups
    (:class:`rankwise.engine.training.Training`). A catalogue
    without training interactions is refused unless a global measure (Coverage, Gini) of the group's ``measures``
    reads it alone, or the group has no measure (a dialect may put a global measure in a group of its own, leaving
    the evaluation's main group empty)."""
    measures = list(measures)
    alone = train is None and (not measures or any(m.spec.aggregate == "global" for m in measures))
    counted = train is None or catalog is not None or any(m.option("form") == "elliot" for m in measures)
    aligned.num_candidates = None if alone or not counted else candidate_counts(aligned.query_ids, train, catalog)
    given = (train, catalog, features, baseline, item_groups)
    aligned.training = Training(*given) if any(x is not None for x in given) else None
    return aligned


def candidate_counts(query_ids: list[str], train: pl.DataFrame | None, catalog: Any) -> np.ndarray | None:
    """Per query: catalogue size − the user's distinct training items, or None without training interactions.

    ``catalog`` is the number of items or the items themselves; by default the items seen in training (Elliot's
    ``num_items``)."""
    if train is None:
        if catalog is not None:
            raise InputError("catalog= counts each user's candidates against their training items: give train= too")
        return None
    training = Training(train, catalog)
    if catalog is None:
        size = len(training.items("candidate counts"))
    elif isinstance(catalog, int) and not isinstance(catalog, bool):
        size = catalog
    elif isinstance(catalog, Iterable) and not isinstance(catalog, (str, bytes)):
        size = len({str(item) for item in catalog})
    else:
        raise InputError(f"catalog must be a number of items or the items, not {type(catalog).__name__}")
    seen = training.items_per_user(query_ids)
    out = size - seen.astype(np.float64)
    if len(out) and out.min() < 1:
        at = int(np.argmin(out))
        raise InputError(f"a catalogue of {size} items leaves user {query_ids[at]!r} no candidate (it has "
                         f"{int(seen[at])} training items): give catalog= the full item count")  # fmt: skip
    return out
