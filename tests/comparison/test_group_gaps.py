"""The intervals of the gaps between groups (:func:`rankwise.comparison.groups.gap_intervals`): worked by hand,
fairlearn 0.15's own ``MetricFrame(n_boot=, ci_quantiles=, random_state=)`` ``difference_ci()``/``ratio_ci()`` run on
the same per-query values (random data and MovieLens-100K's user attributes from RecBole's ``dataset_example``),
properties of the stratified bootstrap (hypothesis), its coverage over 200 synthetic datasets with a known gap, and
the intervals in the terminal, JSON and CSV renderings of the group table."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import subprocess
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from rankwise.comparison.groups import (
    GroupGap,
    gap,
    gap_intervals,
    group_table,
    mean_absolute_difference,
    resampled_gaps,
)
from rankwise.comparison.report.groups import format_group_text, group_csv, group_json


def _gaps(values: np.ndarray, codes: np.ndarray, labels: tuple[str, ...], how: str = "stratified",
          confidence: float = 0.95, resamples: int = 2000, seed: int | None = 0) -> list[GroupGap]:  # fmt: skip
    """Every row of ``values`` (measures × queries, NaN undefined) as a gap with its intervals."""
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    found = [gap(f"m{m}", labels, [row[(codes == g) & ~np.isnan(row)] for g in range(len(labels))])
             for m, row in enumerate(values)]  # fmt: skip
    out = gap_intervals(found, values, codes, labels, how, confidence, resamples, seed)
    assert all(g is not None for g in out)
    return [g for g in out if g is not None]


def test_constant_groups_give_the_point_as_interval() -> None:
    """A: 0.75 four times, B: 0.25 three times; every resample keeps each group's mean: difference 0.5, ratio 1/3,
    MAD 0.5, each interval that one point, and it excludes 0."""
    codes = np.array([0, 0, 0, 0, 1, 1, 1])
    (found,) = _gaps(np.array([0.75] * 4 + [0.25] * 3), codes, ("A", "B"))
    assert (found.highest, found.lowest) == ("A", "B")
    assert found.difference_low == pytest.approx(0.5, abs=1e-15) and found.difference_high == pytest.approx(0.5)
    assert found.ratio_low == pytest.approx(1 / 3, rel=1e-12) and found.ratio_high == pytest.approx(1 / 3, rel=1e-12)
    assert found.mad_low == pytest.approx(0.5, abs=1e-15) and found.mad_high == pytest.approx(0.5, abs=1e-15)
    assert found.excludes_zero is True


def test_a_two_query_group_by_hand() -> None:
    """A = {0, 1} (mean 1/2), B = {0, 0, 0}. A's resampled mean is 0, 1/2 or 1 with probabilities 1/4, 1/2, 1/4,
    B's always 0: the difference A − B has the 2.5% quantile 0 and the 97.5% quantile 1, so its interval [0, 1]
    does not exclude 0; the MAD (the difference, two groups) the same; the ratio B/A is 0/0 in the quarter of the
    resamples where A's mean is 0, so it has no interval."""
    codes = np.array([0, 0, 1, 1, 1])
    (found,) = _gaps(np.array([0.0, 1.0, 0.0, 0.0, 0.0]), codes, ("A", "B"), resamples=4000)
    assert (found.difference, found.difference_low, found.difference_high) == (0.5, 0.0, 1.0)
    assert (found.mad_low, found.mad_high) == (0.0, 1.0)
    assert found.excludes_zero is False
    assert math.isnan(found.ratio_low) and math.isnan(found.ratio_high)


def test_too_few_resamples_or_none_give_no_interval() -> None:
    codes = np.array([0, 0, 1, 1])
    values = np.array([0.1, 0.2, 0.5, 0.9])
    for found in (_gaps(values, codes, ("A", "B"), resamples=39)[0], _gaps(values, codes, ("A", "B"), "none")[0]):
        assert math.isnan(found.difference_low) and found.excludes_zero is None
        assert found.difference == pytest.approx(0.55)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=7).map(np.array))
def test_resampled_mad_is_elliots_mad(means: np.ndarray) -> None:
    """The sorted-weights MAD of :func:`resampled_gaps` is :func:`mean_absolute_difference`'s pairwise loop."""
    expected = mean_absolute_difference(means)
    assert resampled_gaps(means[:, None])[2, 0] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    with_missing = np.append(means, np.nan)[:, None]
    assert resampled_gaps(with_missing)[2, 0] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def _symmetric(draw: st.DrawFn, centre: float) -> list[float]:
    half = draw(st.lists(st.floats(0.0, 0.5), min_size=3, max_size=12))
    return [centre + d for d in half] + [centre - d for d in half]


@st.composite
def two_symmetric_groups(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    a, b = _symmetric(draw, draw(st.floats(0.0, 1.0))), _symmetric(draw, draw(st.floats(0.0, 1.0)))
    return np.array(a + b), np.array([0] * len(a) + [1] * len(b))


@settings(max_examples=30, deadline=None)
@given(two_symmetric_groups(), st.integers(0, 2**32 - 1))
def test_properties_of_the_stratified_interval(data: tuple[np.ndarray, np.ndarray], seed: int) -> None:
    """Each group symmetric about its mean: the interval of the difference holds the difference; the same seed
    gives the same interval; the data repeated four times (n × 4) gives a narrower one."""
    values, codes = data
    (found,) = _gaps(values, codes, ("A", "B"), seed=seed)
    assert found.difference_low <= found.difference + 1e-12 and found.difference <= found.difference_high + 1e-12
    np.testing.assert_equal(asdict(_gaps(values, codes, ("A", "B"), seed=seed)[0]), asdict(found))
    (bigger,) = _gaps(np.tile(values, 4), np.tile(codes, 4), ("A", "B"), seed=seed)
    assert bigger.difference == pytest.approx(found.difference, abs=1e-12)
    if found.difference_high - found.difference_low > 1e-9:
        assert bigger.difference_high - bigger.difference_low < found.difference_high - found.difference_low


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1.0)), min_size=3, max_size=30), st.integers(0, 2**32 - 1))
def test_identical_groups_give_an_interval_around_0(values: list[float], seed: int) -> None:
    """Two groups holding the same values: the difference's interval holds 0 (and the ratio's 1), whichever group
    the data names highest."""
    codes = np.array([0] * len(values) + [1] * len(values))
    (found,) = _gaps(np.array(values + values), codes, ("A", "B"), seed=seed)
    assert found.difference == 0.0 and found.highest != found.lowest
    assert found.difference_low <= 0.0 <= found.difference_high and found.excludes_zero is not True
    if not math.isnan(found.ratio_low):
        assert found.ratio_low <= 1.0 <= found.ratio_high


def test_coverage_of_a_known_gap() -> None:
    """200 datasets: group A 40 queries from N(0.5, 0.2²), B 60 from N(0.4, 0.2²), the true gap 0.1; the 95%
    stratified interval of A − B should hold 0.1 in 95% of them, within 3 binomial standard errors
    (√(0.95 · 0.05 / 200) = 0.0154: 90.4% to 99.6%). A dataset where B's mean tops A's names B highest; its
    interval is then of B − A, and holds −0.1 when it covers."""
    rng = np.random.default_rng(2024)
    codes = np.array([0] * 40 + [1] * 60)
    covered = 0
    for i in range(200):
        values = np.concatenate((rng.normal(0.5, 0.2, 40), rng.normal(0.4, 0.2, 60)))
        (found,) = _gaps(values, codes, ("A", "B"), resamples=1000, seed=i)
        truth = 0.1 if found.highest == "A" else -0.1
        covered += found.difference_low <= truth <= found.difference_high
    assert abs(covered / 200 - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / 200), covered


def _fairlearn_check(values: np.ndarray, labels: np.ndarray, n_boot: int, quantiles: list[float], seed: int) -> None:
    """fairlearn's MetricFrame over the queries with a group, one metric per row of ``values`` (the mean of its
    defined values), against ``gap_interval="fairlearn"`` with the same resamples, confidence and seed."""
    metrics = pytest.importorskip("fairlearn.metrics")
    names = tuple(sorted(set(labels.tolist())))
    codes = np.searchsorted(np.array(names), labels)
    confidence = quantiles[1] - quantiles[0]
    ours = _gaps(values, codes, names, "fairlearn", confidence, n_boot, seed)
    frame = metrics.MetricFrame(
        metrics={f"m{m}": (lambda y_true, y_pred, m=m: float(np.nanmean(y_pred[:, m]))) for m in range(len(values))},
        y_true=values[0], y_pred=values.T, sensitive_features=labels, n_boot=n_boot, ci_quantiles=quantiles,
        random_state=seed)  # fmt: skip
    (d_low, d_high), (r_low, r_high) = frame.difference_ci(), frame.ratio_ci()
    for found in ours:
        assert found.difference == pytest.approx(frame.difference()[found.measure], rel=1e-12)
        assert found.difference_low == pytest.approx(d_low[found.measure], rel=1e-12, abs=1e-15)
        assert found.difference_high == pytest.approx(d_high[found.measure], rel=1e-12, abs=1e-15)
        assert found.ratio_low == pytest.approx(r_low[found.measure], rel=1e-12, abs=1e-15)
        assert found.ratio_high == pytest.approx(r_high[found.measure], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", [0, 7, 123456])
def test_fairlearn_bootstrap_reproduced_on_random_data(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 150
    values = rng.random((2, n))
    values[1, rng.choice(n, 12, replace=False)] = np.nan  # a measure undefined for some queries
    labels = rng.choice(np.array(["cold", "regular", "heavy"]), n, p=[0.15, 0.35, 0.5])
    _fairlearn_check(values, labels, 120, [0.05, 0.95] if seed else [0.025, 0.975], seed)


def _recbole_users() -> Path:
    """RecBole's ``dataset_example/ml-100k/ml-100k.user`` in the reference env; pytest.skip() without it."""
    python = os.environ.get("RANKWISE_REFERENCE_PYTHON")
    if not python or not Path(python).exists():
        pytest.skip("RANKWISE_REFERENCE_PYTHON (the env with RecBole and its dataset_example) is not set")
    where = subprocess.run([python, "-c", "import recbole, os; print(os.path.dirname(recbole.__file__))"],
                           capture_output=True, text=True, timeout=120).stdout.strip()  # fmt: skip
    path = Path(where) / "dataset_example" / "ml-100k" / "ml-100k.user"
    if not where or not path.exists():
        pytest.skip(f"RecBole's dataset_example/ml-100k/ml-100k.user is not in {python}'s env")
    return path


@pytest.mark.parametrize("attribute", ["gender", "occupation"])
def test_fairlearn_bootstrap_reproduced_on_movielens_users(attribute: str) -> None:
    """943 users of MovieLens-100K with their gender (2 groups) or occupation (21 groups, the smallest 7 users, so
    some resamples miss a group) and two measures of random per-user values."""
    import polars as pl

    users = pl.read_csv(_recbole_users(), separator="\t", infer_schema=False)
    labels = users.get_column(f"{attribute}:token").to_numpy().astype(str)
    rng = np.random.default_rng(100)
    values = rng.beta(0.5, 2.0, (2, labels.size))
    _fairlearn_check(values, labels, 100, [0.025, 0.975], 42)


QRELS = {f"q{i}": {"a": 1 + i % 2, "b": int(i % 3 == 0), "c": 1} for i in range(24)}
RUN = {q: {"a": float(i % 4), "b": 2.0, "c": float(i % 5) / 2, "d": 1.0} for i, q in enumerate(QRELS)}
LABELS = {q: ("x", "y", "z")[i % 3] for i, q in enumerate(QRELS)}


def _numbers(found: GroupGap) -> list[float]:
    return [v for v in asdict(found).values() if isinstance(v, float)]


def test_every_output_holds_the_intervals() -> None:
    result = rankwise.evaluate(QRELS, RUN, ["nDCG@3", "RR"], groups=LABELS)
    table = group_table(result, resamples=500, seed=3, gap_interval="stratified")
    for key in table.keys:  # the table's gaps are gap_intervals' on the measure's per-query values
        row = np.asarray(result.values[result.keys.index(key)])
        codes = np.array([table.labels.index(LABELS[q]) for q in result.query_ids])
        (found,) = _gaps(row, codes, table.labels, resamples=500, seed=3)  # measures batched: equal up to rounding
        np.testing.assert_allclose(_numbers(found), _numbers(table.gap(key)), rtol=1e-12, atol=1e-15)
        assert found.excludes_zero == table.gap(key).excludes_zero
    assert table.gap_intervals == "95% stratified bootstrap intervals of the gaps (500 resamples, seed 3)"
    text = format_group_text(table)
    lines = text.splitlines()
    at = lines.index(table.gap_intervals)
    assert lines[at + 1].split() == ["measure", "difference", "excludes", "0", "ratio", "MAD"]
    for g, line in zip(table.gaps, lines[at + 3 :]):
        assert line.startswith(g.measure)
        assert f"[{g.difference_low:.4f}, {g.difference_high:.4f}]" in line
        assert f"[{g.mad_low:.4f}, {g.mad_high:.4f}]" in line
        assert (" yes " in line) is bool(g.excludes_zero)
    payload = json.loads(group_json(json.dumps({}), result, table))["groups"]
    assert payload["gap_intervals"] == table.gap_intervals
    for record, g in zip(payload["gaps"], table.gaps):
        assert (record["difference_low"], record["ratio_high"], record["mad_low"], record["excludes_zero"]) == (
            g.difference_low, g.ratio_high, g.mad_low, g.excludes_zero)  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(group_csv(result, table, per_query=False))))
    for g in table.gaps:
        for kind, low, high in (("difference", g.difference_low, g.difference_high), ("mad", g.mad_low, g.mad_high)):
            entry = next(r for r in rows if r["kind"] == kind and r["measure"] == g.measure)
            assert (float(entry["low"]), float(entry["high"])) == (low, high)
    assert "intervals of the gaps" not in format_group_text(group_table(result, gap_interval="none"))
    with pytest.raises(rankwise.RankwiseError, match="unknown gap_interval 'paired'"):
        group_table(result, gap_interval="paired")


@settings(max_examples=60, deadline=None)
@given(data=st.lists(st.tuples(st.integers(0, 2), st.floats(0, 1, allow_nan=False)), min_size=4, max_size=60),
       confidence=st.sampled_from([0.9, 0.95, 0.99]))  # fmt: skip
def test_the_default_welch_interval_is_scipy_s(data: list[tuple[int, float]], confidence: float) -> None:
    """The default gap interval (no resampling) is scipy's Welch t interval of the highest minus the lowest group's
    mean (``ttest_ind(equal_var=False).confidence_interval``); ratio and MAD get none."""
    from scipy import stats

    codes = np.array([c for c, _ in data])
    values = np.array([v for _, v in data])
    labels = ("a", "b", "c")
    found = gap("m", labels, [values[codes == g] for g in range(3)])
    assert found is not None
    (welch,) = gap_intervals([found], values[None, :], codes, labels, "welch", confidence)
    assert welch is not None and math.isnan(welch.ratio_low) and math.isnan(welch.mad_high)
    high, low = (values[codes == labels.index(name)] for name in (found.highest, found.lowest))
    if high.size < 2 or low.size < 2:
        assert math.isnan(welch.difference_low)
        return
    if high.var() == 0 and low.var() == 0:
        assert welch.difference_low == welch.difference_high == found.difference
        return
    expected = stats.ttest_ind(high, low, equal_var=False).confidence_interval(confidence)
    assert welch.difference_low == pytest.approx(expected.low, rel=1e-9, abs=1e-12)
    assert welch.difference_high == pytest.approx(expected.high, rel=1e-9, abs=1e-12)
    assert welch.excludes_zero == bool(expected.low > 0 or expected.high < 0)


def test_the_default_is_welch_in_every_output() -> None:
    result = rankwise.evaluate(QRELS, RUN, ["nDCG@3", "RR"], groups=LABELS)
    table = group_table(result)
    assert table.gap_intervals == "95% Welch t intervals of the differences"
    assert all(not math.isnan(g.difference_low) for g in table.gaps)
    assert table.gap_intervals in format_group_text(table)
