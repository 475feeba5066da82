r"""Measures by user (query) group: each group's mean of every measure with its interval, the differences and ratios
between groups with the largest gap named (:func:`group_table`), and systems compared within each group with the
paired tests of :func:`rankwise.compare` (:func:`compare_groups`: is system B better for the cold users?).

The model is fairlearn's ``MetricFrame`` (Weerts et al., *Fairlearn: Assessing and Improving Fairness of AI Systems*,
JMLR 24, 2023), which splits any metric by a sensitive feature: for groups :math:`g` with queries :math:`Q_g` and a
measure's per-query values :math:`x_q` (undefined ones left out),

- the group's mean :math:`\bar x_g = \frac{1}{|Q_g|} \sum_{q \in Q_g} x_q` (``MetricFrame.by_group``), its interval
  :func:`rankwise.comparison.stats.mean_intervals` over :math:`\{x_q : q \in Q_g\}`;
- the overall mean :math:`\bar x` over the queries of every group (``MetricFrame.overall``; the result's aggregate
  when every query has a group);
- between groups: difference :math:`\max_g \bar x_g - \min_g \bar x_g` and ratio :math:`\min_g \bar x_g / \max_g
  \bar x_g` (``difference()``/``ratio()``, ``method="between_groups"``), naming the highest and the lowest group;
- to the overall mean: :math:`\max_g |\bar x_g - \bar x|` and :math:`\min_g \min(\bar x_g / \bar x, \bar x / \bar
  x_g)` (``method="to_overall"``);
- the mean absolute difference over every pair of groups, :math:`\mathrm{MAD} = \binom{n}{2}^{-1} \sum_{g < h}
  |\bar x_g - \bar x_h|` over the :math:`n` groups with a mean (NaN for fewer than two): Elliot's MAD (Deldjoo et
  al., *A flexible framework for evaluating user and item fairness for recommender systems*, UMUAI 31, 2021;
  :func:`mean_absolute_difference` says which Elliot metric it equals).

Groups whose mean is undefined (no query, or no defined value) are left out of the differences and ratios; a ratio
over a zero or negative largest mean is undefined (NaN), and a group mean of 0 gives the ratio to the overall mean 0
(as fairlearn).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..errors import RankwiseError
from ..pipeline.groups import QueryGroups
from ..pipeline.result import EvaluationResult
from ..policies import parse_enum
from .stats import IntervalMethod, mean_intervals
from .systems import Comparison, _comparisons, _summaries

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class GroupRow:
    """One group's mean of one measure over its ``n`` queries with a defined value, with its interval."""

    group: str
    measure: str
    mean: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class GroupGap:
    """How far apart the groups are on one measure: ``highest`` and ``lowest`` group, ``difference`` = highest −
    lowest mean and ``ratio`` = lowest / highest (fairlearn's ``between_groups``), and ``to_overall_difference``,
    ``to_overall_ratio`` against the ``overall`` mean (fairlearn's ``to_overall``), and ``mad``, the mean absolute
    difference between the means of every pair of groups (Elliot's MAD, :func:`mean_absolute_difference`)."""

    measure: str
    highest: str
    lowest: str
    difference: float
    ratio: float
    overall: float
    to_overall_difference: float
    to_overall_ratio: float
    mad: float


@dataclass(frozen=True)
class GroupTable:
    """Every measure by group for one evaluation (:func:`group_table`)."""

    name: str
    """The attribute the queries are grouped by (``gender``, ``activity``)."""
    labels: tuple[str, ...]
    sizes: Mapping[str, int]
    """Evaluated queries per group (empty groups too)."""
    keys: tuple[str, ...]
    rows: tuple[GroupRow, ...]
    gaps: tuple[GroupGap, ...]
    intervals: str
    """How the intervals were made (``95% BCa bootstrap intervals (10000 resamples, seed 0)``)."""
    notes: tuple[str, ...] = ()
    """Measures left out of the table (not a mean of per-query values)."""

    def row(self, group: str, measure: str) -> GroupRow:
        """The row of ``group`` on ``measure``."""
        return next(r for r in self.rows if (r.group, r.measure) == (group, measure))

    def gap(self, measure: str) -> GroupGap:
        """The gap between the groups on ``measure``."""
        return next(g for g in self.gaps if g.measure == measure)

    def to_polars(self, table: Literal["groups", "gaps"] = "groups") -> pl.DataFrame:
        """``groups`` (group, measure, mean, low, high, n) or ``gaps`` (every field of :class:`GroupGap`)."""
        import polars as pl

        if table not in ("groups", "gaps"):
            raise RankwiseError(f"unknown table {table!r}; choose one of groups, gaps")
        rows = self.rows if table == "groups" else self.gaps
        fields = GroupRow.__dataclass_fields__ if table == "groups" else GroupGap.__dataclass_fields__
        return pl.DataFrame([asdict(r) for r in rows], schema=list(fields), orient="row") if rows else \
            pl.DataFrame(schema=list(fields))  # fmt: skip

    def record(self) -> dict[str, Any]:
        """As plain data (``--format json``'s ``groups``; NaN as None)."""
        return {"name": self.name, "sizes": dict(self.sizes), "intervals": self.intervals,
                "rows": [finite(asdict(r)) for r in self.rows], "gaps": [finite(asdict(g)) for g in self.gaps],
                "notes": list(self.notes)}  # fmt: skip


def finite(value: Any) -> Any:
    """NaN and ±inf as None, in numbers, dicts and lists (JSON has neither)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


def group_table(
    result: EvaluationResult,
    *,
    interval: IntervalMethod | str = IntervalMethod.T,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int | None = 0,
) -> GroupTable:
    r"""Every measure of ``result`` by its groups (``groups=`` of :func:`rankwise.evaluate`): per group and measure
    :math:`\bar x_g` with its ``confidence`` interval (``interval``: ``t``, ``percentile`` or ``bca`` over the group's
    queries, :func:`rankwise.comparison.stats.mean_intervals`), and per measure the gap between groups (see the
    module docstring for the formulas; they are fairlearn ``MetricFrame``'s, Weerts et al. 2023). Only measures
    averaged over queries are split (a count, GMAP or a global measure is named in ``notes``)."""
    groups = _groups_of(result)
    method: IntervalMethod = parse_enum(IntervalMethod, interval, "interval")  # type: ignore[assignment]
    rows_of = [i for i, m in enumerate(result.measures) if m.aggregation == "mean"]
    keys = tuple(result.keys[i] for i in rows_of)
    left = [key for key, m in zip(result.keys, result.measures) if m.aggregation != "mean"]
    notes = (f"{', '.join(left)}: not a mean of per-query values, left out of the group table",) if left else ()
    split = [groups.split(result.values[i]) for i in rows_of]
    bounds = mean_intervals([v for per_group in split for v in per_group], method, confidence, resamples, seed)
    rows = []
    for m, (key, per_group) in enumerate(zip(keys, split)):
        for g, (label, values) in enumerate(zip(groups.labels, per_group)):
            low, high = bounds[m * len(groups.labels) + g]
            rows.append(GroupRow(label, key, _mean(values), float(low), float(high), int(values.size)))
    gaps = [gap(key, groups.labels, per_group) for key, per_group in zip(keys, split)]
    return GroupTable(groups.name, groups.labels, groups.sizes, keys, tuple(rows), tuple(g for g in gaps if g),
                      describe_intervals(method, confidence, resamples, seed), notes)  # fmt: skip


def gap(measure: str, labels: Sequence[str], per_group: Sequence[np.ndarray]) -> GroupGap | None:
    r"""The gap between groups on ``measure`` from each group's values: the highest and lowest group mean, difference
    :math:`\max_g \bar x_g - \min_g \bar x_g`, ratio :math:`\min_g \bar x_g / \max_g \bar x_g`, and against the mean
    :math:`\bar x` of all values :math:`\max_g |\bar x_g - \bar x|`, :math:`\min_g \min(\bar x_g / \bar x, \bar x /
    \bar x_g)` (fairlearn ``MetricFrame.difference``/``ratio``, Weerts et al. 2023); None when no group has a mean."""
    means = {label: _mean(values) for label, values in zip(labels, per_group) if values.size}
    if not means:
        return None
    highest, lowest = max(means, key=means.__getitem__), min(means, key=means.__getitem__)
    overall = _mean(np.concatenate(list(per_group)))
    values = np.array(list(means.values()))
    with np.errstate(divide="ignore", invalid="ignore"):
        to_overall = np.minimum(values / overall, overall / values)
    defined = to_overall[~np.isnan(to_overall)]
    nearest = float(defined.min()) if defined.size else math.nan
    return GroupGap(measure, highest, lowest, means[highest] - means[lowest], _ratio(means[lowest], means[highest]),
                    overall, float(np.abs(values - overall).max()), nearest,
                    mean_absolute_difference(values))  # fmt: skip


def mean_absolute_difference(means: np.ndarray) -> float:
    r"""The mean absolute difference between every pair of group means: :math:`\mathrm{MAD} = \binom{n}{2}^{-1}
    \sum_{g < h} |\bar x_g - \bar x_h|` over the :math:`n` means given (in label order); NaN for fewer than two.

    Elliot's MAD (Deldjoo, Anelli, Zamani, Bellogín & Di Noia, UMUAI 31, 2021), as sisinflab/elliot at fc27efe
    computes it: elliot/evaluation/metrics/fairness/MAD/UserMADranking.py:130-135 (and UserMADrating.py:93-98)
    averages each user cluster's values, ``avg = [self._sum[i]/self._n_users[i] ...]``, and returns
    ``np.average`` of ``abs(avg[i] - avg[j])`` for every ``i < j``. So the MAD of the group table's row of a
    measure is **UserMADranking** when the measure is Elliot's nDCG@k (``--dialect elliot``'s ``nDCG@k``: the
    per-user value of UserMADranking.py:91-115 is the code of accuracy/ndcg/ndcg.py:68-92), over Elliot's users
    (those with a relevant item, UserMADranking.py:123: the elliot dialect's query set), and the groups are its user
    clusters (its ``clustering_file``: ``--groups FILE:COLUMN``). UserMADrating averages the predicted scores of each
    top k (UserMADrating.py:78), which is no rankwise measure; ItemMADranking / ItemMADrating group items, not
    users. One difference: a cluster without users makes Elliot's average 0/0, so its MAD NaN; here a group without
    a mean is left out, as in the other gaps."""
    values = np.asarray(means, dtype=np.float64)
    if values.size < 2:
        return math.nan
    # UserMADranking.py:131-135: for i in range(n): for j in range(i + 1, n): differences.append(abs(avg[i] - avg[j]));
    # return np.average(differences)
    first, second = np.triu_indices(values.size, k=1)  # every i < j, in Elliot's order
    return float(np.abs(values[first] - values[second]).mean())


def _ratio(low: float, high: float) -> float:
    return low / high if high > 0 and low >= 0 else math.nan


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if values.size else math.nan


def describe_intervals(method: IntervalMethod, confidence: float, resamples: int, seed: int | None) -> str:
    """``95% BCa bootstrap intervals (10000 resamples, seed 0)`` (no resamples for t intervals)."""
    resampled = method is not IntervalMethod.T
    return (f"{confidence:.0%} {method.label} intervals"
            + (f" ({resamples} resamples, seed {seed})" if resampled else ""))  # fmt: skip


def _groups_of(result: EvaluationResult) -> QueryGroups:
    if result.groups is None:
        raise RankwiseError("this result has no groups: evaluate with groups= (--groups FILE:COLUMN or activity)")
    return result.groups


@dataclass(frozen=True)
class GroupComparison:
    """The systems of a comparison compared within each group (:func:`compare_groups`): per non-empty group, the
    comparison restricted to the group's queries (``parts``), with its systems' summaries and its pairs' paired
    tests made as :func:`rankwise.compare` makes them over all queries."""

    name: str
    labels: tuple[str, ...]
    sizes: Mapping[str, int]
    """Compared queries per group (empty groups too)."""
    parts: tuple[tuple[str, Comparison], ...]

    def headed(self) -> list[tuple[str, Comparison]]:
        """Each part with its heading: ``gender = F (273 queries)``."""
        return [(f"{self.name} = {group} ({self.sizes[group]} queries)", part) for group, part in self.parts]

    def part(self, group: str) -> Comparison:
        """The comparison over the queries of ``group``."""
        return next(c for g, c in self.parts if g == group)

    @property
    def caveats(self) -> list[str]:
        """What each group's tests could not do (too few queries, blank intervals), prefixed by the group."""
        return [f"{self.name}={group}: {line}" for group, part in self.parts for line in part.caveats]

    def record(self) -> dict[str, Any]:
        """As plain data (the JSON report's ``groups``; NaN as None)."""
        return {"name": self.name, "sizes": dict(self.sizes),
                "summaries": [finite({"group": g, **asdict(s)}) for g, part in self.parts for s in part.summaries],
                "comparisons": [finite({"group": g, **asdict(c)}) for g, part in self.parts
                                for c in part.comparisons],
                "notes": self.caveats}  # fmt: skip


def compare_groups(comparison: Comparison) -> GroupComparison | None:
    """Within each group of the compared queries (``groups=`` of :func:`rankwise.compare`, labelled again over the
    union of the systems' queries), every system's mean with its interval and every pair's difference, paired test,
    corrected p-value (the correction over each group's comparisons, as ``family`` says within it), Cohen's d and
    win/tie/loss, as :func:`rankwise.compare` computes them over all queries; None without groups. An empty group
    has no part (the notes name it)."""
    first = comparison.evaluations[0].groups if comparison.evaluations else None
    if first is None:
        return None
    groups = first.source.assign(comparison.query_ids)
    systems, keys, settings = list(comparison.systems), comparison.keys, comparison.settings
    index = {name: i for i, name in enumerate(systems)}
    pair_indices = list(dict.fromkeys((index[c.system], index[c.against]) for c in comparison.comparisons))
    parts = []
    for label in groups.labels:
        mask = groups.mask(label)
        if not mask.any():
            continue
        values = comparison.values[:, :, mask]
        found: list[str] = []
        pairs = _comparisons(systems, keys, values, pair_indices, settings, found)
        parts.append((label, dataclasses.replace(
            comparison, query_ids=tuple(np.asarray(comparison.query_ids, dtype=object)[mask].tolist()),
            values=values, summaries=tuple(_summaries(systems, keys, values, settings)), comparisons=tuple(pairs),
            evaluations=(), caveats=tuple(found))))  # fmt: skip
    return GroupComparison(groups.name, groups.labels, groups.sizes, tuple(parts))


__all__ = [
    "GroupComparison",
    "GroupGap",
    "GroupRow",
    "GroupTable",
    "compare_groups",
    "finite",
    "gap",
    "group_table",
    "mean_absolute_difference",
]
