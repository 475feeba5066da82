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

The difference, the ratio and the MAD have bootstrap percentile intervals (:func:`gap_intervals`): by default
``stratified``, each group's queries resampled within the group (group sizes fixed), the difference and ratio taken
between the two groups the full data names highest and lowest (so it can change sign, and an interval that excludes
0 says the gap is more than resampling noise); or ``fairlearn``, MetricFrame's own bootstrap (``n_boot``,
``ci_quantiles``, ``random_state``) reproduced draw for draw.
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
from .stats import IntervalMethod, fewest_resamples, mean_intervals
from .stats.distributions import t_quantile
from .stats.resampling import CHUNK_CELLS, MEANS_CELLS, bootstrap_means, draw_counts
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
    difference_low: float = math.nan
    difference_high: float = math.nan
    ratio_low: float = math.nan
    ratio_high: float = math.nan
    mad_low: float = math.nan
    mad_high: float = math.nan
    excludes_zero: bool | None = None
    """Whether the difference's interval excludes 0 (the gap is more than resampling noise); None without one."""


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
    gap_intervals: str = ""
    """How the gaps' intervals were made (:func:`describe_gap_intervals`); empty without them."""

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
                "gap_intervals": self.gap_intervals, "rows": [finite(asdict(r)) for r in self.rows],
                "gaps": [finite(asdict(g)) for g in self.gaps],
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
    gap_interval: GapInterval | str = "welch",
) -> GroupTable:
    r"""Every measure of ``result`` by its groups (``groups=`` of :func:`rankwise.evaluate`): per group and measure
    :math:`\bar x_g` with its ``confidence`` interval (``interval``: ``t``, ``percentile`` or ``bca`` over the group's
    queries, :func:`rankwise.comparison.stats.mean_intervals`), and per measure the gap between groups (see the
    module docstring for the formulas; they are fairlearn ``MetricFrame``'s, Weerts et al. 2023) with the
    ``confidence`` intervals of its difference (``gap_interval``: ``welch``, the default, Welch's t interval of the
    difference alone, as the means' default t intervals: no resampling), or of its difference, ratio and MAD
    (``stratified``, ``fairlearn``: ``resamples`` bootstrap resamples from ``seed``; their work grows with queries ×
    resamples), or none (``none``; :func:`gap_intervals`). Only measures averaged over
    queries are split (a count, GMAP or a global measure is named in ``notes``)."""
    groups = _groups_of(result)
    method: IntervalMethod = parse_enum(IntervalMethod, interval, "interval")  # type: ignore[assignment]
    if gap_interval not in GAP_INTERVALS:
        raise RankwiseError(f"unknown gap_interval {gap_interval!r}; choose one of {', '.join(GAP_INTERVALS)}")
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
    values = np.array([result.values[i] for i in rows_of], dtype=np.float64).reshape(len(rows_of), -1)
    gaps = gap_intervals(gaps, values, groups.codes, groups.labels, gap_interval, confidence, resamples, seed)
    return GroupTable(groups.name, groups.labels, groups.sizes, keys, tuple(rows), tuple(g for g in gaps if g),
                      describe_intervals(method, confidence, resamples, seed), notes,
                      describe_gap_intervals(gap_interval, confidence, resamples, seed))  # fmt: skip


def gap(measure: str, labels: Sequence[str], per_group: Sequence[np.ndarray]) -> GroupGap | None:
    r"""The gap between groups on ``measure`` from each group's values: the highest and lowest group mean, difference
    :math:`\max_g \bar x_g - \min_g \bar x_g`, ratio :math:`\min_g \bar x_g / \max_g \bar x_g`, and against the mean
    :math:`\bar x` of all values :math:`\max_g |\bar x_g - \bar x|`, :math:`\min_g \min(\bar x_g / \bar x, \bar x /
    \bar x_g)` (fairlearn ``MetricFrame.difference``/``ratio``, Weerts et al. 2023); None when no group has a mean.
    Of tied groups (in ``labels`` order) the first is named highest and the last lowest."""
    means = {label: _mean(values) for label, values in zip(labels, per_group) if values.size}
    if not means:
        return None
    # ties: the first tied group is the highest and the last the lowest, so that two groups are named when two have
    # a mean (equal means too: the stratified interval of their difference is then around 0)
    highest, lowest = max(means, key=means.__getitem__), min(reversed(means), key=means.__getitem__)
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


GapInterval = Literal["welch", "stratified", "fairlearn", "none"]
GAP_INTERVALS: tuple[str, ...] = ("welch", "stratified", "fairlearn", "none")
"""How :func:`group_table` makes the intervals of the gaps (:func:`gap_intervals`)."""


def gap_intervals(
    gaps: Sequence[GroupGap | None],
    values: np.ndarray,
    codes: np.ndarray,
    labels: Sequence[str],
    how: GapInterval | str = "stratified",
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int | None = 0,
) -> list[GroupGap | None]:
    r"""``gaps`` (one per row of ``values``, the measures' per-query values, NaN undefined; ``codes[j]`` the group of
    query ``j``, an index in ``labels``, -1 for none) with the bootstrap percentile intervals of their difference,
    ratio and MAD: the :math:`\alpha/2` and :math:`1 - \alpha/2` quantiles (``numpy.quantile``, linear) of each
    statistic over the ``resamples`` resamples, :math:`\alpha = 1 -` ``confidence``; NaN when the statistic is
    undefined in some resample, or with fewer than :func:`rankwise.comparison.stats.fewest_resamples` resamples.

    - ``stratified``: each group's queries (those with a defined value) are resampled with replacement within the
      group, :func:`rankwise.comparison.stats.resampling.bootstrap_means` from an independent seed per group (spawned
      from ``seed`` by ``numpy.random.SeedSequence``), so every resample keeps the group sizes. The difference is
      :math:`\bar x^*_H - \bar x^*_L` and the ratio :math:`\bar x^*_L / \bar x^*_H` between the groups :math:`H`,
      :math:`L` that the data names highest and lowest (it can fall below 0); the MAD is
      :func:`mean_absolute_difference` of the resampled means (:func:`resampled_gaps`).
    - ``fairlearn``: fairlearn 0.15 ``MetricFrame(n_boot=resamples, ci_quantiles=[α/2, 1 − α/2],
      random_state=seed)``'s ``difference_ci()``/``ratio_ci()``, draw for draw (fairlearn/metrics/_bootstrap.py:
      ``generate_bootstrap_samples`` draws one uint32 seed per resample from ``numpy.random.default_rng(seed)``,
      and ``generate_single_bootstrap_sample`` takes ``data.sample(frac=1, replace=True, random_state=s)``, which
      is ``RandomState(s).randint(0, N, N)`` over the :math:`N` queries with a group): every grouped query resampled
      across groups, so group sizes vary and a group may be missing; per resample :math:`\max_g \bar x^*_g -
      \min_g \bar x^*_g` and :math:`\min / \max` over the groups present (:math:`\ge 0`; the interval excludes 0
      when its low end is above 0), MAD likewise. One ``RandomState`` per resample, as fairlearn.
    - ``welch``: no resampling; the difference's interval alone, Welch's (unequal variances) t interval of
      :math:`\bar x_H - \bar x_L`: :math:`\pm t_{1-\alpha/2,\nu} \sqrt{s_H^2/n_H + s_L^2/n_L}`, :math:`s^2` the
      sample variances of the groups' defined values, :math:`\nu` the Welch–Satterthwaite degrees of freedom (Welch,
      Biometrika 1947; ``scipy.stats.ttest_ind(equal_var=False).confidence_interval``); NaN with fewer than two
      values in either group.
    - ``none``: no intervals."""
    if how == "welch":
        return [_welch(found, values[m], codes, labels, confidence) for m, found in enumerate(gaps)]
    if how == "none" or resamples < fewest_resamples(confidence):
        return list(gaps)
    alpha, groups = (1.0 - confidence) / 2.0, len(labels)
    out = list(gaps)
    per_block = max(1, MEANS_CELLS // max(groups * resamples, 1))
    for start in range(0, len(gaps), per_block):
        block = slice(start, start + per_block)
        if how == "stratified":
            means = _stratified_means(values[block], codes, groups, resamples, seed)
        else:
            means = _fairlearn_means(values[block], codes, groups, resamples, seed)
        for m, means_of in enumerate(means, start):
            found = gaps[m]
            if found is None:
                continue
            pair = (labels.index(found.highest), labels.index(found.lowest)) if how == "stratified" else None
            statistics = resampled_gaps(means_of, pair)
            bounds = np.quantile(statistics, [alpha, 1.0 - alpha], axis=1)
            (d_low, r_low, m_low), (d_high, r_high, m_high) = bounds.tolist()
            excludes = None if math.isnan(d_low + d_high) else bool(d_low > 0 or d_high < 0)
            out[m] = dataclasses.replace(found, difference_low=d_low, difference_high=d_high, ratio_low=r_low,
                                         ratio_high=r_high, mad_low=m_low, mad_high=m_high,
                                         excludes_zero=excludes)  # fmt: skip
    return out


def _welch(found: GroupGap | None, values: np.ndarray, codes: np.ndarray, labels: Sequence[str], confidence: float
           ) -> GroupGap | None:  # fmt: skip
    """``found`` with Welch's t interval of its difference (see :func:`gap_intervals`)."""
    if found is None:
        return None
    high, low = (values[(codes == labels.index(name)) & ~np.isnan(values)] for name in (found.highest, found.lowest))
    if high.size < 2 or low.size < 2:
        return found
    a, b = high.var(ddof=1) / high.size, low.var(ddof=1) / low.size
    se = math.sqrt(a + b)
    if se == 0:
        d_low = d_high = found.difference
    else:
        share_a, share_b = a / (a + b), b / (a + b)  # in shares: squares of tiny variances underflow to 0 / 0
        df = 1.0 / (share_a**2 / (high.size - 1) + share_b**2 / (low.size - 1))
        half = t_quantile(1.0 - (1.0 - confidence) / 2.0, df) * se
        d_low, d_high = found.difference - half, found.difference + half
    return dataclasses.replace(found, difference_low=d_low, difference_high=d_high,
                               excludes_zero=bool(d_low > 0 or d_high < 0))  # fmt: skip


def resampled_gaps(means: np.ndarray, pair: tuple[int, int] | None = None) -> np.ndarray:
    r"""Difference, ratio and MAD of each resample from the resampled group means (``G × B``, NaN for a group
    without a mean): a ``3 × B`` array. With ``pair`` (the indices of the highest and the lowest group),
    :math:`\bar x^*_H - \bar x^*_L` and :math:`\bar x^*_L / \bar x^*_H`; without, max − min and min / max over the
    groups present in each resample. A ratio is NaN unless the larger mean is above 0 and the smaller not below. The
    MAD over the :math:`k` present means sorted, :math:`x_{(1)} \le \dots \le x_{(k)}`, is
    :math:`\binom{k}{2}^{-1} \sum_i (2i - k - 1)\, x_{(i)}` (each pair's :math:`|x_g - x_h|` counted once)."""
    present = ~np.isnan(means)
    k = present.sum(axis=0)
    if pair is not None:
        high, low = means[pair[0]], means[pair[1]]
    else:
        high = np.where(present, means, -np.inf).max(axis=0)
        low = np.where(present, means, np.inf).min(axis=0)
        high, low = np.where(k > 0, high, np.nan), np.where(k > 0, low, np.nan)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = np.where((high > 0) & (low >= 0), low / high, np.nan)
        ordered = np.sort(means, axis=0)  # NaN last
        rank = np.arange(means.shape[0])[:, None]
        weights = np.where(rank < k, 2 * rank - k + 1, 0)
        pairs = k * (k - 1) / 2.0
        mad = np.where(k >= 2, (weights * np.where(rank < k, ordered, 0.0)).sum(axis=0) / pairs, np.nan)
    return np.stack((high - low, ratio, mad))


def _stratified_means(values: np.ndarray, codes: np.ndarray, groups: int, resamples: int, seed: int | None
                      ) -> np.ndarray:  # fmt: skip
    """``M × G × B`` bootstrap means, each group's defined values resampled within the group (vectors of one length
    in a group share its resamples, :func:`bootstrap_means`)."""
    means = np.full((values.shape[0], groups, resamples), np.nan)
    seeds = np.random.SeedSequence(seed).generate_state(max(groups, 1), np.uint64)
    for g in range(groups):
        in_group = values[:, codes == g]
        defined = ~np.isnan(in_group)
        lengths = defined.sum(axis=1)
        for length in np.unique(lengths[lengths > 0]).tolist():
            rows = np.flatnonzero(lengths == length)
            block = np.stack([in_group[m][defined[m]] for m in rows])
            means[rows, g] = bootstrap_means(block, resamples, int(seeds[g]))
    return means


def _fairlearn_means(values: np.ndarray, codes: np.ndarray, groups: int, resamples: int, seed: int | None
                     ) -> np.ndarray:  # fmt: skip
    """``M × G × B`` group means of fairlearn's resamples (see :func:`gap_intervals`): a resample's count of each
    grouped query, times the query's value in its group, summed by one matrix product per chunk of resamples."""
    kept = codes >= 0
    x, c = values[:, kept], codes[kept]
    n = x.shape[1]
    count = x.shape[0] * groups
    means = np.full((x.shape[0], groups, resamples), np.nan)
    if n == 0:
        return means
    rng = np.random.default_rng() if seed is None else np.random.default_rng(seed=int(seed))
    seeds = rng.integers(low=0, high=np.iinfo(np.uint32).max, size=resamples, dtype=np.uint32)
    member = (~np.isnan(x))[:, None, :] & (c[None, None, :] == np.arange(groups)[None, :, None])
    weights = member.reshape(count, n).astype(np.float64)
    sums = weights * np.nan_to_num(np.repeat(x, groups, axis=0))
    chunk = max(1, CHUNK_CELLS // n)
    for start in range(0, resamples, chunk):
        drawn = np.stack([np.random.RandomState(s).randint(0, n, n) for s in seeds[start : start + chunk]])
        counts = draw_counts(drawn, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            block = (counts @ sums.T).T / (counts @ weights.T).T  # counts first, as bootstrap_means
        means[:, :, start : start + drawn.shape[0]] = block.reshape(x.shape[0], groups, -1)
    return means


def describe_gap_intervals(how: GapInterval | str, confidence: float, resamples: int, seed: int | None) -> str:
    """``95% stratified bootstrap intervals of the gaps (10000 resamples, seed 0)``; empty for ``none``."""
    if how == "none":
        return ""
    if how == "welch":
        return f"{confidence:.0%} Welch t intervals of the differences"
    kind = "stratified bootstrap" if how == "stratified" else "bootstrap (fairlearn MetricFrame's)"
    return f"{confidence:.0%} {kind} intervals of the gaps ({resamples} resamples, seed {seed})"


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
    "GAP_INTERVALS",
    "GapInterval",
    "GroupComparison",
    "GroupGap",
    "GroupRow",
    "GroupTable",
    "compare_groups",
    "describe_gap_intervals",
    "finite",
    "gap",
    "gap_intervals",
    "group_table",
    "mean_absolute_difference",
    "resampled_gaps",
]
