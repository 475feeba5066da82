"""Compare systems: evaluate several runs on the same qrels, align their per-query values over the union of their
queries, and report for every measure each system's mean with a confidence interval, and for every pair compared
(each system against a baseline, or all pairs) the mean difference with its interval, a paired test, the p-value
corrected for the number of comparisons, Cohen's d and win/tie/loss counts (:mod:`rankwise.comparison.stats`)."""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import polars as pl

from ..errors import MeasureError, RankwiseError
from ..limits import MAX_RESAMPLES, at_most
from ..measures import Measure
from ..pipeline.evaluate import EvaluationResult, evaluate, evaluate_with
from ..pipeline.options import EvaluationOptions
from ..pipeline.plan import MeasureLike
from ..policies import QuerySet, parse_enum
from ..wording import counted
from .stats import (
    Correction,
    IntervalMethod,
    SignificanceTest,
    adjust,
    cohens_d,
    fewest_resamples,
    mean_intervals,
    paired_test,
    randomised_tukey_hsd,
    smallest_p,
    win_tie_loss,
)

if TYPE_CHECKING:
    import pandas as pd


class MissingQueries(str, Enum):
    """What a query evaluated for some systems but missing from another system's run becomes."""

    EMPTY = "empty"
    """Scored as an empty ranking for that system (as trec_eval ``-c``; ranx's ``make_comparable``)."""
    DROP = "drop"
    """Left out of that system's mean and of every comparison with that system."""


class Pairs(str, Enum):
    """Which pairs of systems are compared."""

    BASELINE = "baseline"
    """Every system against the baseline."""
    ALL = "all"
    """Every pair of systems (the later system against the earlier)."""


class Family(str, Enum):
    """Which comparisons form one family for the multiple-testing correction."""

    MEASURE = "measure"
    """The comparisons of one measure."""
    ALL = "all"
    """Every comparison of every measure."""


@dataclass(frozen=True)
class Settings:
    """How a comparison was made."""

    test: SignificanceTest
    correction: Correction
    alpha: float
    interval: IntervalMethod
    confidence: float
    resamples: int
    seed: int | None
    baseline: str | None
    """The baseline system; None when all pairs are compared."""
    missing: MissingQueries
    family: Family

    def describe(self) -> str:
        """One sentence a caption can use: test, correction, α, intervals."""
        family = "per measure" if self.family is Family.MEASURE else "across all measures"
        correction = self.correction.label + ("" if self.correction is Correction.NONE else f" {family}")
        against = f"against {self.baseline}" if self.baseline is not None else "between all pairs of systems"
        resampled = self.interval is not IntervalMethod.T
        interval = (f"{self.confidence:.0%} {self.interval.label} intervals"
                    + (f" ({self.resamples} resamples, seed {self.seed})" if resampled else ""))  # fmt: skip
        return f"{self.test.label} {against}, {correction}, α = {self.alpha:g}; {interval}."


@dataclass(frozen=True)
class SystemSummary:
    """One system's mean of one measure over the ``n`` queries where it has a value, with its interval."""

    system: str
    measure: str
    n: int
    mean: float
    low: float
    high: float


@dataclass(frozen=True)
class PairComparison:
    """``system`` against ``against`` on one measure, over the ``n`` queries where both have a value.

    ``difference`` is the mean of system − against, with its interval; ``p_adjusted`` the p-value after the
    correction; ``significant`` whether it is at most α; wins/ties/losses count queries where ``system`` is higher,
    equal (within 1e-12) or lower."""

    system: str
    against: str
    measure: str
    n: int
    difference: float
    low: float
    high: float
    statistic: float
    p_value: float
    p_adjusted: float
    significant: bool
    cohens_d: float
    wins: int
    ties: int
    losses: int
    method: str


@dataclass(frozen=True)
class Sources:
    """The inputs of a comparison, kept so more measures can be computed on them (report plots)."""

    qrels: Any
    runs: tuple[Any, ...]
    options: Mapping[str, Any]


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`.

    ``values[s, m, q]`` is system ``systems[s]`` on measure ``keys[m]`` and query ``query_ids[q]`` (NaN where the
    measure is undefined or the query is missing for that system under ``missing="drop"``).
    """

    systems: tuple[str, ...]
    keys: tuple[str, ...]
    measures: tuple[Measure, ...]
    query_ids: tuple[str, ...]
    values: np.ndarray
    summaries: tuple[SystemSummary, ...]
    comparisons: tuple[PairComparison, ...]
    settings: Settings
    evaluations: tuple[EvaluationResult, ...]
    caveats: tuple[str, ...] = ()
    sources: Sources | None = field(default=None, repr=False, compare=False)

    def summary(self, system: str, measure: str) -> SystemSummary:
        """The summary of ``system`` on ``measure``."""
        return next(s for s in self.summaries if s.system == system and s.measure == measure)

    def pair(self, system: str, against: str, measure: str) -> PairComparison:
        """The comparison of ``system`` against ``against`` on ``measure``."""
        return next(c for c in self.comparisons if (c.system, c.against, c.measure) == (system, against, measure))

    def notes(self) -> list[str]:
        """Each system's evaluation notes (prefixed by its name), then what the comparison left out or changed."""
        lines = [f"{name}: {note}" for name, result in zip(self.systems, self.evaluations) for note in result.notes()]
        return lines + list(self.caveats)

    def to_polars(self, table: Literal["systems", "pairs", "per_query"] = "pairs") -> pl.DataFrame:
        """One of three long tables: ``systems`` (system, measure, n, mean, low, high), ``pairs`` (every field of
        :class:`PairComparison`) or ``per_query`` (system, query_id, measure, value)."""
        if table == "systems":
            return pl.DataFrame([vars(s) for s in self.summaries], schema=_SYSTEM_SCHEMA)
        if table == "pairs":
            return pl.DataFrame([vars(c) for c in self.comparisons], schema=_PAIR_SCHEMA)
        if table == "per_query":
            s, m, q = self.values.shape
            return pl.DataFrame(
                {
                    "system": np.repeat(np.array(self.systems, dtype=object), m * q).tolist(),
                    "query_id": np.tile(np.array(self.query_ids, dtype=object), s * m).tolist(),
                    "measure": np.tile(np.repeat(np.array(self.keys, dtype=object), q), s).tolist(),
                    "value": self.values.reshape(-1),
                },
                schema={"system": pl.String, "query_id": pl.String, "measure": pl.String, "value": pl.Float64},
            )
        raise RankwiseError(f"unknown table {table!r}; choose one of systems, pairs, per_query")

    def to_pandas(self, table: Literal["systems", "pairs", "per_query"] = "pairs") -> pd.DataFrame:
        """:meth:`to_polars` as pandas (needs pandas and pyarrow)."""
        return self.to_polars(table).to_pandas()

    def evaluate_more(self, measures: Iterable[MeasureLike], **overrides: Any) -> list[EvaluationResult]:
        """Evaluate every system's run on the same inputs and options (``overrides`` replace options) with other
        measures, one result per system in order."""
        if self.sources is None:
            raise RankwiseError("this comparison keeps no inputs to evaluate more measures on")
        options = {**self.sources.options, **overrides}
        return [evaluate(self.sources.qrels, run, list(measures), **options) for run in self.sources.runs]


_SYSTEM_SCHEMA = {"system": pl.String, "measure": pl.String, "n": pl.Int64, "mean": pl.Float64, "low": pl.Float64,
                  "high": pl.Float64}  # fmt: skip
_PAIR_SCHEMA = {"system": pl.String, "against": pl.String, "measure": pl.String, "n": pl.Int64,
                "difference": pl.Float64, "low": pl.Float64, "high": pl.Float64, "statistic": pl.Float64,
                "p_value": pl.Float64, "p_adjusted": pl.Float64, "significant": pl.Boolean, "cohens_d": pl.Float64,
                "wins": pl.Int64, "ties": pl.Int64, "losses": pl.Int64, "method": pl.String}  # fmt: skip
EVALUATE_OPTIONS = tuple(
    name for name, p in inspect.signature(evaluate).parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY
)
"""The keyword options of :func:`rankwise.evaluate`, which :func:`compare` passes on."""


def compare(
    qrels: Any,
    runs: Sequence[Any] | Mapping[str, Any],
    measures: MeasureLike | Iterable[MeasureLike] | None = None,
    *,
    baseline: str | int | None = None,
    pairs: Pairs | str = Pairs.BASELINE,
    test: SignificanceTest | str = SignificanceTest.T,
    correction: Correction | str = Correction.HOLM,
    alpha: float = 0.05,
    interval: IntervalMethod | str = IntervalMethod.BCA,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int | None = 0,
    missing: MissingQueries | str = MissingQueries.EMPTY,
    family: Family | str = Family.MEASURE,
    names: Sequence[str] | None = None,
    **options: Any,
) -> Comparison:
    r"""Evaluate each run in ``runs`` against ``qrels`` and compare them, measure by measure.

    Parameters
    ----------
    qrels, measures
        As :func:`rankwise.evaluate`; every measure must average per-query values (not GMAP or counts).
    runs
        Two or more runs (paths, DataFrames, dicts), or a mapping ``{name: run}``. Without names a system is called
        by its run tag when the tags differ, else by its file name, else ``run1``, ``run2``, ...
    baseline
        The system every other is compared with (a name or an index; default the first). Ignored when
        ``pairs="all"``.
    pairs
        ``baseline`` (each system against the baseline) or ``all`` (every pair: the later against the earlier).
    test
        ``t`` (paired t-test), ``wilcoxon``, ``sign``, ``randomization`` (Fisher; exact up to 20 queries),
        ``bootstrap`` or ``tukey`` (randomised Tukey HSD across all systems; no further correction).
    correction, family
        ``holm``, ``bonferroni``, ``bh`` or ``none``, applied over the comparisons of each measure
        (``family="measure"``) or over all of them (``"all"``).
    alpha
        Significance level: a comparison is significant when its corrected p-value is at most ``alpha``.
    interval, confidence, resamples, seed
        Intervals of means and mean differences: ``t``, ``percentile`` or ``bca`` (bootstrap over queries with
        ``resamples`` resamples from ``numpy.random.default_rng(seed)``); ``seed`` also seeds the Monte Carlo tests.
    missing
        ``empty``: a query evaluated for some system but absent from another's run is scored for that system as an
        empty ranking; ``drop``: it is left out of that system's mean and of its comparisons. Either way the notes
        count them. Undefined values (NaN) are always left out, pair by pair.
    **options
        Every keyword option of :func:`rankwise.evaluate` (``dialect``, ``ties``, ``queries``, ``depth``,
        ``rel_level``, ``cutoffs``, ``threshold``, columns, ``train``, ``catalog``, ...); with ``groups``,
        :func:`rankwise.comparison.groups.compare_groups` compares the systems within each user group.

    Notes
    -----
    For a pair (s, t) on measure m over the queries Q where both have a value, with :math:`d_q = x_{s,q} -
    x_{t,q}`: the difference is :math:`\bar d`, its interval the ``interval`` method on :math:`d`, the effect size
    Cohen's :math:`d_z = \bar d / s_d`. Tests and intervals are in :mod:`rankwise.comparison.stats`.
    """
    unknown = sorted(set(options) - set(EVALUATE_OPTIONS))
    if unknown:
        raise RankwiseError(f"compare: unknown option {unknown[0]!r}; evaluate's options are "
                            + ", ".join(EVALUATE_OPTIONS))  # fmt: skip
    run_list = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    if len(run_list) < 2:
        raise RankwiseError(f"compare needs at least two runs, got {len(run_list)}")
    settings_ = _settings(test, correction, alpha, interval, confidence, resamples, seed, missing, family)
    pairs = parse_enum(Pairs, pairs, "pairs")  # type: ignore[assignment]
    evaluation = EvaluationOptions.from_arguments(options)
    evaluations = [evaluate_with(qrels, run, measures, evaluation) for run in run_list]
    caveats: list[str] = []
    keep = _mean_measures(evaluations[0], explicit=measures is not None, caveats=caveats)
    keys = [evaluations[0].keys[i] for i in keep]
    measure_list = [evaluations[0].measures[i] for i in keep]
    evaluations = [dataclasses.replace(r, keys=tuple(keys), measures=tuple(measure_list), values=r.values[keep],
                                       aggregate={k: r.aggregate[k] for k in keys}) for r in evaluations]  # fmt: skip
    systems = _system_names(names, runs, run_list, evaluations)
    base = _baseline_index(baseline, systems) if pairs is Pairs.BASELINE else None
    settings_ = _with(settings_, baseline=systems[base] if base is not None else None)
    if settings_.test is SignificanceTest.TUKEY and settings_.correction is not Correction.NONE:
        caveats.append(f"randomised Tukey HSD controls the family-wise error rate itself: "
                       f"{settings_.correction.label} not applied")  # fmt: skip
        settings_ = _with(settings_, correction=Correction.NONE)
    query_ids, values = _aligned_values(evaluations, systems, keys, qrels, run_list, measures, evaluation,
                                        settings_.missing, caveats)  # fmt: skip
    summaries = _summaries(systems, keys, values, settings_)
    pair_indices = ([(s, base) for s in range(len(systems)) if s != base] if base is not None
                    else [(j, i) for i, j in itertools.combinations(range(len(systems)), 2)])  # fmt: skip
    comparisons = _comparisons(systems, keys, values, pair_indices, settings_, caveats)
    _interval_caveats(summaries, comparisons, settings_, caveats)
    return Comparison(
        systems=tuple(systems),
        keys=tuple(keys),
        measures=tuple(measure_list),
        query_ids=tuple(query_ids),
        values=values,
        summaries=tuple(summaries),
        comparisons=tuple(comparisons),
        settings=settings_,
        evaluations=tuple(evaluations),
        caveats=tuple(caveats),
        sources=Sources(qrels, tuple(run_list), dict(options)),
    )


def _settings(test: Any, correction: Any, alpha: float, interval: Any, confidence: float, resamples: int,
              seed: int | None, missing: Any, family: Any) -> Settings:  # fmt: skip
    """Checked settings (the baseline is filled in later)."""
    for name, level in (("alpha", alpha), ("confidence", confidence)):
        if isinstance(level, bool) or not isinstance(level, (int, float)):
            raise RankwiseError(f"{name} must be a number, got {level!r} ({type(level).__name__})")
        if not 0.0 < level < 1.0:
            raise RankwiseError(f"{name} must lie in (0, 1), got {level}")
    at_most(resamples, MAX_RESAMPLES, "resamples")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise RankwiseError(f"seed must be a non-negative integer or None, got {seed!r}")
    return Settings(
        test=parse_enum(SignificanceTest, test, "test"),  # type: ignore[arg-type]
        correction=parse_enum(Correction, correction, "correction"),  # type: ignore[arg-type]
        alpha=float(alpha),
        interval=parse_enum(IntervalMethod, interval, "interval"),  # type: ignore[arg-type]
        confidence=float(confidence),
        resamples=resamples,
        seed=seed,
        baseline=None,
        missing=parse_enum(MissingQueries, missing, "missing-query policy"),  # type: ignore[arg-type]
        family=parse_enum(Family, family, "correction family"),  # type: ignore[arg-type]
    )


def _with(settings: Settings, **changes: Any) -> Settings:
    return Settings(**{**vars(settings), **changes})


def _mean_measures(result: EvaluationResult, explicit: bool, caveats: list[str]) -> list[int]:
    """Rows of the measures whose aggregate is a mean of per-query values. Another measure asked for explicitly is
    an error; from the default set (trec_eval's official, with counts and GMAP) it is left out with a note."""
    keep = [i for i, m in enumerate(result.measures) if m.aggregation == "mean"]
    others = [i for i in range(len(result.keys)) if i not in keep]
    if others and explicit:
        key, how = result.keys[others[0]], result.measures[others[0]].aggregation
        raise MeasureError(f"{key}: compare tests means of per-query values, but {key} aggregates by {how}; "
                           "compare a measure averaged over queries (AP for GMAP, not counts)")  # fmt: skip
    if others:
        caveats.append(f"{counted(len(others), 'measure', 'measures')} of the default set left out (not a mean of "
                       f"per-query values): {', '.join(result.keys[i] for i in others)}")  # fmt: skip
    return keep


def _system_names(names: Sequence[str] | None, runs: Any, run_list: list[Any],
                  evaluations: list[EvaluationResult]) -> list[str]:  # fmt: skip
    """Given names, mapping keys, distinct run tags, file names, or run1, run2, ... — made unique."""
    if names is not None:
        chosen = [str(n) for n in names]
        if any(not name.strip() for name in chosen):
            raise RankwiseError(f"system names must not be empty: {', '.join(map(repr, chosen))}")
        if len(chosen) != len(run_list):
            raise RankwiseError(f"{len(chosen)} names for {len(run_list)} runs")
    elif isinstance(runs, Mapping):
        chosen = [str(k) for k in runs]
    else:
        tags = [r.run_name for r in evaluations]
        files = [Path(str(r)).name if isinstance(r, (str, Path)) else None for r in run_list]
        if all(tags) and len(set(tags)) == len(tags):
            chosen = [str(t) for t in tags]
        elif all(files) and len(set(files)) == len(files):
            chosen = [str(f) for f in files]
        else:
            chosen = [tag or file or f"run{i + 1}" for i, (tag, file) in enumerate(zip(tags, files))]
    if len(set(chosen)) != len(chosen):
        if names is not None:
            raise RankwiseError(f"system names must differ: {', '.join(chosen)}")
        chosen = [f"{name}#{i + 1}" if chosen.count(name) > 1 else name for i, name in enumerate(chosen)]
    return chosen


def _baseline_index(baseline: str | int | None, systems: list[str]) -> int:
    if baseline is None:
        return 0
    if isinstance(baseline, int) and not isinstance(baseline, bool):
        if not 0 <= baseline < len(systems):
            raise RankwiseError(f"baseline index {baseline} is out of range for {len(systems)} systems")
        return baseline
    if str(baseline) in systems:
        return systems.index(str(baseline))
    if str(baseline).isdigit() and 1 <= int(baseline) <= len(systems):  # the CLI's 1-based position
        return int(baseline) - 1
    raise RankwiseError(f"baseline {baseline!r} is not one of the systems: {', '.join(systems)}")


def _aligned_values(
    evaluations: list[EvaluationResult],
    systems: list[str],
    keys: Sequence[str],
    qrels: Any,
    runs: list[Any],
    measures: Any,
    options: EvaluationOptions,
    missing: MissingQueries,
    caveats: list[str],
) -> tuple[list[str], np.ndarray]:
    """Per-query values of every system over the union of evaluated queries (systems × measures × queries)."""
    union = np.unique(np.concatenate([np.asarray(r.query_ids, dtype=str) for r in evaluations]))
    values = np.full((len(evaluations), len(keys), union.size), np.nan)
    present = np.zeros((len(evaluations), union.size), dtype=bool)
    for s, result in enumerate(evaluations):
        positions = np.searchsorted(union, np.asarray(result.query_ids, dtype=str))
        values[s][:, positions] = result.values
        present[s, positions] = True
    for s in np.flatnonzero(~present.all(axis=1)).tolist():
        absent = ~present[s]
        if missing is MissingQueries.EMPTY:
            every_judged = dataclasses.replace(options, queries=QuerySet.QRELS.value)
            rescored = evaluate_with(qrels, runs[s], measures, every_judged)
            ids = np.asarray(rescored.query_ids, dtype=str)
            positions = np.searchsorted(union, ids).clip(0, union.size - 1)
            known = union[positions] == ids
            fill = known & absent[positions]
            values[s][:, positions[fill]] = rescored.values[:, fill]
            present[s, positions[fill]] = True
            if fill.any():
                caveats.append(f"{systems[s]}: {int(fill.sum())} queries evaluated for other systems but missing "
                               f"from this run were scored as empty rankings: {_sample(ids[fill])}")  # fmt: skip
        left = ~present[s]
        if left.any():
            why = "are unjudged, so cannot be scored as empty rankings" if missing is MissingQueries.EMPTY else ""
            caveats.append(f"{systems[s]}: {int(left.sum())} queries evaluated for other systems are missing from "
                           f"this run{' and ' + why if why else ''}; left out of its mean and comparisons "
                           f"(missing={missing.value}): {_sample(union[left])}")  # fmt: skip
    return union.tolist(), values


def _sample(ids: np.ndarray, shown: int = 5) -> str:
    text = ", ".join(ids[:shown].tolist())
    return text + (f", … ({ids.size - shown} more)" if ids.size > shown else "")


def _summaries(systems: list[str], keys: Sequence[str], values: np.ndarray, settings: Settings) -> list[SystemSummary]:
    cells = [(s, m) for s in range(len(systems)) for m in range(len(keys))]
    vectors = [values[s, m][~np.isnan(values[s, m])] for s, m in cells]
    bounds = mean_intervals(vectors, settings.interval, settings.confidence, settings.resamples, settings.seed)
    return [
        SystemSummary(systems[s], keys[m], v.size, float(v.mean()) if v.size else math.nan, float(lo), float(hi))
        for (s, m), v, (lo, hi) in zip(cells, vectors, bounds)
    ]


def _comparisons(
    systems: list[str],
    keys: Sequence[str],
    values: np.ndarray,
    pair_indices: list[tuple[int, int]],
    settings: Settings,
    caveats: list[str],
) -> list[PairComparison]:
    """Every pair on every measure: differences, intervals, tests, corrected p-values, effect sizes."""
    cells = [(m, s, t) for m in range(len(keys)) for s, t in pair_indices]
    defined = ~np.isnan(values)
    masks = [defined[s, m] & defined[t, m] for m, s, t in cells]
    differences = [values[s, m][mask] - values[t, m][mask] for (m, s, t), mask in zip(cells, masks)]
    bounds = mean_intervals(differences, settings.interval, settings.confidence, settings.resamples, settings.seed)
    tukey = _tukey_p_values(keys, values, settings, caveats) if settings.test is SignificanceTest.TUKEY else None
    raw: list[tuple[float, float, str]] = []
    for (m, s, t), d in zip(cells, differences):
        if tukey is not None:
            raw.append((float(d.mean()) if d.size else math.nan, float(tukey[m][s, t]), "randomised Tukey HSD, "
                        f"{settings.resamples} resamples"))  # fmt: skip
        else:
            result = paired_test(settings.test, d, settings.resamples, settings.seed)
            raw.append((result.statistic, result.p_value, result.method))
    p_values = np.array([p for _, p, _ in raw])
    _resolution_caveats(keys, cells, differences, p_values, values.shape[0], settings, caveats)
    adjusted = np.empty_like(p_values)
    groups = [np.array([i for i, (m, _, _) in enumerate(cells) if m == k]) for k in range(len(keys))]
    for group in groups if settings.family is Family.MEASURE else [np.arange(len(cells))]:
        if group.size:
            adjusted[group] = adjust(p_values[group], settings.correction)
    out = []
    for i, ((m, s, t), d, mask) in enumerate(zip(cells, differences, masks)):
        left_out = int((defined[s, m] | defined[t, m]).sum() - mask.sum())
        if left_out:
            caveats.append(f"{keys[m]}: {left_out} queries left out of {systems[s]} vs {systems[t]} "
                           "(a value undefined or missing for one of them)")  # fmt: skip
        wins, ties, losses = win_tie_loss(values[s, m][mask], values[t, m][mask])
        out.append(PairComparison(
            system=systems[s], against=systems[t], measure=keys[m], n=int(d.size),
            difference=float(d.mean()) if d.size else math.nan, low=float(bounds[i, 0]), high=float(bounds[i, 1]),
            statistic=float(raw[i][0]), p_value=float(p_values[i]), p_adjusted=float(adjusted[i]),
            significant=bool(adjusted[i] <= settings.alpha), cohens_d=cohens_d(d),
            wins=wins, ties=ties, losses=losses, method=raw[i][2],
        ))  # fmt: skip
    return out


def _interval_caveats(summaries: list[SystemSummary], comparisons: list[PairComparison], settings: Settings,
                      caveats: list[str]) -> None:  # fmt: skip
    """Why intervals of two or more values are blank: too few resamples, or BCa undefined (every bootstrap mean on
    one side of the estimate)."""
    bounds = [(s.n, s.low) for s in summaries] + [(c.n, c.low) for c in comparisons]
    blank = sum(math.isnan(low) for n, low in bounds if n >= 2)
    if not blank or settings.interval is IntervalMethod.T:
        return
    fewest = fewest_resamples(settings.confidence)
    if settings.resamples < fewest:
        caveats.append(f"intervals left blank: a {settings.confidence:.0%} bootstrap interval needs at least {fewest} "
                       f"resamples (one beyond each end), got {settings.resamples}")  # fmt: skip
    else:
        caveats.append(f"{counted(blank, 'interval', 'intervals')} left blank: the BCa interval is undefined when "
                       "every bootstrap mean lies on one side of the estimate (use --interval percentile or t)")


def _resolution_caveats(keys: Sequence[str], cells: list[tuple[int, int, int]], differences: list[np.ndarray],
                        p_values: np.ndarray, systems: int, settings: Settings,
                        caveats: list[str]) -> None:  # fmt: skip
    """Per measure, what the test could not do: pairs over fewer than two queries (no p-value), and pairs too few
    queries to reach α however large the difference (``smallest_p`` above α; see
    :mod:`rankwise.comparison.stats.paired_tests`, *Resolution*)."""
    label = settings.test.label
    for m, key in enumerate(keys):
        mine = [i for i, cell in enumerate(cells) if cell[0] == m]
        untested = [i for i in mine if differences[i].size and math.isnan(p_values[i])]
        if untested:
            caveats.append(f"{key}: {counted(len(untested), 'comparison', 'comparisons')} over fewer than two "
                           f"queries: no p-value (the {label} needs two)")  # fmt: skip
        sizes = sorted({differences[i].size for i in mine if not math.isnan(p_values[i])})
        floors = {n: smallest_p(settings.test, n, settings.resamples, systems) for n in sizes}
        weak = [n for n in sizes if floors[n] > settings.alpha]
        if weak:
            n = max(weak)
            caveats.append(f"{key}: with {n} queries or fewer the {label} cannot give p below {floors[n]:.3g}, "
                           f"so no comparison over them can be significant at α = {settings.alpha:g}")  # fmt: skip


def _tukey_p_values(keys: Sequence[str], values: np.ndarray, settings: Settings,
                    caveats: list[str]) -> list[np.ndarray]:  # fmt: skip
    """Per measure, the randomised Tukey HSD p-values over the queries where every system has a value."""
    out = []
    for m, key in enumerate(keys):
        complete = ~np.isnan(values[:, m]).any(axis=0)
        if not complete.all():
            caveats.append(f"{key}: randomised Tukey HSD uses the {int(complete.sum())} of {complete.size} queries "
                           "where every system has a value")  # fmt: skip
        out.append(randomised_tukey_hsd(values[:, m][:, complete].T, settings.resamples, settings.seed))
    return out


__all__ = [
    "EVALUATE_OPTIONS",
    "Comparison",
    "Family",
    "MissingQueries",
    "PairComparison",
    "Pairs",
    "Settings",
    "SystemSummary",
    "compare",
]
