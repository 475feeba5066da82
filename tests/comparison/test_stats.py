"""rankwise.comparison.stats against scipy.stats on the same vectors (t-test, Wilcoxon, sign test, bootstrap intervals,
permutation test, BH), hand-computed cases, and properties (hypothesis)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special
from scipy import stats as sp

from rankwise.comparison.stats import (
    Correction,
    adjust,
    bootstrap_test,
    cohens_d,
    mean_intervals,
    paired_t_test,
    randomised_tukey_hsd,
    randomization_test,
    sign_test,
    wilcoxon_test,
    win_tie_loss,
)
from rankwise.comparison.stats.distributions import binomial_half_cdf, regularized_beta, t_quantile, t_two_sided_p


def metric_like(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two systems' per-query values as measures give them: many exact ties, zeros and ones, correlated."""
    base = rng.choice([0.0, 0.1, 0.25, 1 / 3, 0.5, 2 / 3, 1.0], size=n)
    other = np.clip(base + rng.choice([-0.25, 0.0, 0.0, 0.1, 1 / 3], size=n), 0, 1)
    return base, other


def continuous(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    a = rng.beta(2, 5, size=n)
    return a, np.clip(a + rng.normal(0.03, 0.1, size=n), 0, 1)


# -- distribution functions ---------------------------------------------------------------------------------------


def test_incomplete_beta_equals_scipy() -> None:
    rng = np.random.default_rng(1)
    for a, b, x in zip(rng.uniform(0.05, 400, 500), rng.uniform(0.05, 400, 500), rng.random(500)):
        expected = special.betainc(a, b, x)
        assert math.isclose(regularized_beta(a, b, x), expected, rel_tol=1e-10, abs_tol=1e-300)


@pytest.mark.parametrize("df", [1, 2, 3, 4.5, 10, 99, 1000])
def test_t_distribution_equals_scipy(df: float) -> None:
    for t in [0.0, 0.05, 1.0, 2.5, 7.0, 30.0, 1e3]:
        assert math.isclose(t_two_sided_p(t, df), 2 * sp.t.sf(t, df), rel_tol=1e-10)
    for q in [1e-10, 0.001, 0.025, 0.3, 0.6, 0.975, 0.995, 1 - 1e-7]:
        assert math.isclose(t_quantile(q, df), sp.t.ppf(q, df), rel_tol=1e-10)


@pytest.mark.parametrize("n", [1, 2, 7, 50, 333, 5000])
def test_binomial_half_cdf_equals_scipy(n: int) -> None:
    for k in {0, 1, n // 3, n // 2, n - 1, n}:
        assert math.isclose(binomial_half_cdf(k, n), sp.binom.cdf(k, n, 0.5), rel_tol=1e-9)


# -- paired tests -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 5, 20, 100, 2000])
@pytest.mark.parametrize("make", [metric_like, continuous])
def test_t_test_equals_scipy_ttest_rel(n: int, make) -> None:
    rng = np.random.default_rng(n)
    x, y = make(rng, n)
    if not (x - y).any():
        x[0] += 0.1
    mine, ref = paired_t_test(y - x), sp.ttest_rel(y, x)
    assert math.isclose(mine.statistic, ref.statistic, rel_tol=1e-9)
    assert math.isclose(mine.p_value, ref.pvalue, rel_tol=1e-9, abs_tol=1e-300)


def test_t_test_edge_cases() -> None:
    assert paired_t_test(np.zeros(5)).p_value == 1.0  # identical systems: no evidence
    constant = paired_t_test(np.full(4, 0.2))
    assert constant.statistic == math.inf and constant.p_value == 0.0
    assert math.isnan(paired_t_test(np.array([0.3])).p_value)
    with pytest.raises(ValueError, match="finite"):
        paired_t_test(np.array([0.1, np.nan]))


def test_wilcoxon_exact_equals_scipy_without_ties() -> None:
    rng = np.random.default_rng(7)
    for n in (2, 4, 9, 25, 50):  # one query: no test (test_one_query_gives_no_p_value)
        x, y = continuous(rng, n)
        mine, ref = wilcoxon_test(y - x), sp.wilcoxon(y, x, method="exact")
        assert "exact" in mine.method
        assert mine.statistic == ref.statistic
        assert math.isclose(mine.p_value, ref.pvalue, rel_tol=1e-12)


def test_wilcoxon_with_ties_and_zeros_equals_scipy_permutation_distribution() -> None:
    """With ties and zeros the exact conditional distribution is what scipy's full permutation test computes."""
    rng = np.random.default_rng(3)
    for n in (6, 12, 17):
        x, y = metric_like(rng, n)
        exhaustive = sp.PermutationMethod(n_resamples=np.inf)
        mine, ref = wilcoxon_test(y - x), sp.wilcoxon(y, x, method=exhaustive)
        if not (y - x).any():
            continue
        assert math.isclose(mine.statistic, ref.statistic)
        assert math.isclose(mine.p_value, ref.pvalue, rel_tol=1e-9), n


@pytest.mark.parametrize("make", [metric_like, continuous])
def test_wilcoxon_normal_approximation_equals_scipy(make) -> None:
    rng = np.random.default_rng(11)
    x, y = make(rng, 400)
    mine, ref = wilcoxon_test(y - x), sp.wilcoxon(y, x, method="asymptotic", correction=False)
    assert "normal" in mine.method
    assert math.isclose(mine.statistic, ref.statistic)
    assert math.isclose(mine.p_value, ref.pvalue, rel_tol=1e-9)


@pytest.mark.parametrize("n", [1, 5, 30, 999])
def test_sign_test_equals_scipy_binomtest(n: int) -> None:
    rng = np.random.default_rng(n)
    x, y = metric_like(rng, n)
    d = y - x
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    mine = sign_test(d)
    expected = sp.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
    assert mine.statistic == wins
    assert math.isclose(mine.p_value, expected, rel_tol=1e-9)


def test_sign_test_by_hand() -> None:
    # 5 wins, 1 loss, 2 ties: p = 2 * (1 + 6) / 2^6 = 0.21875
    assert sign_test(np.array([1, 1, 1, 1, 1, -1, 0, 0.0])).p_value == pytest.approx(0.21875, abs=1e-15)


@pytest.mark.parametrize("n", [2, 4, 10, 16])
def test_exact_randomization_equals_scipy_permutation_test(n: int) -> None:
    rng = np.random.default_rng(100 + n)
    x, y = metric_like(rng, n)
    mine = randomization_test(y - x)
    ref = sp.permutation_test((y, x), lambda a, b: np.mean(a - b), permutation_type="samples",
                              n_resamples=np.inf)  # fmt: skip
    assert mine.method.startswith("exact")
    assert math.isclose(mine.p_value, ref.pvalue, rel_tol=1e-12)


def test_randomization_by_hand() -> None:
    # d = (1, 2, 3): sums of ±1 ±2 ±3 are -6 -4 -2 0 0 2 4 6; |sum| >= 6 in 2 of 8
    assert randomization_test(np.array([1.0, 2.0, 3.0])).p_value == 0.25


def test_monte_carlo_randomization_is_seeded_and_close_to_exact() -> None:
    rng = np.random.default_rng(5)
    x, y = continuous(rng, 18)
    exact = randomization_test(y - x).p_value
    resamples = 20_000
    sampled = randomization_test(y - x, resamples=resamples, seed=3, exact_max=0)
    again = randomization_test(y - x, resamples=resamples, seed=3, exact_max=0)
    assert sampled == again and sampled.method.startswith("Monte Carlo")
    # binomial standard error of a Monte Carlo proportion; 4 SE is exceeded with probability < 1e-4
    assert abs(sampled.p_value - exact) <= 4 * math.sqrt(exact * (1 - exact) / resamples) + 1 / resamples


def test_bootstrap_test_uses_scipy_resamples_of_the_shifted_differences() -> None:
    """Same seed, same resamples as scipy.stats.bootstrap: the p-value counts its bootstrap distribution."""
    rng = np.random.default_rng(9)
    x, y = continuous(rng, 40)
    d = y - x
    mine = bootstrap_test(d, resamples=2000, seed=4)
    ref = sp.bootstrap(((d - d.mean()),), np.mean, n_resamples=2000, rng=np.random.default_rng(4),
                       method="percentile").bootstrap_distribution  # fmt: skip
    expected = (1 + np.count_nonzero(np.abs(ref) >= abs(d.mean()))) / 2001
    assert mine.p_value == pytest.approx(expected, abs=1e-15)


def test_bootstrap_test_detects_a_clear_difference_and_not_noise() -> None:
    rng = np.random.default_rng(1)
    assert bootstrap_test(rng.normal(0.2, 0.1, 50)).p_value < 0.001
    assert bootstrap_test(np.zeros(10)).p_value == 1.0


# -- intervals ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("n", [20, 37, 300])
def test_bootstrap_intervals_equal_scipy_bootstrap(method: str, n: int) -> None:
    """Continuous values, so no bootstrap mean equals the estimate: there scipy's BCa depends on rounding."""
    rng = np.random.default_rng(n)
    a, b = continuous(rng, n)
    mine = mean_intervals([a, b - a], method, confidence=0.9, resamples=3000, seed=12)
    for vector, (low, high) in zip([a, b - a], mine):
        ref = sp.bootstrap((vector,), np.mean, n_resamples=3000, confidence_level=0.9, method=method,
                           rng=np.random.default_rng(12)).confidence_interval  # fmt: skip
        assert low == pytest.approx(ref.low, rel=1e-9, abs=1e-12)
        assert high == pytest.approx(ref.high, rel=1e-9, abs=1e-12)


def test_percentile_interval_equals_scipy_on_tied_metric_values() -> None:
    rng = np.random.default_rng(2)
    values, _ = metric_like(rng, 50)
    (low, high), = mean_intervals([values], "percentile", resamples=2000, seed=1)  # fmt: skip
    ref = sp.bootstrap((values,), np.mean, n_resamples=2000, method="percentile",
                       rng=np.random.default_rng(1)).confidence_interval  # fmt: skip
    assert (low, high) == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_t_interval_equals_scipy() -> None:
    rng = np.random.default_rng(4)
    x, y = continuous(rng, 30)
    (low, high), = mean_intervals([y - x], "t", confidence=0.99)  # fmt: skip
    ref = sp.ttest_rel(y, x).confidence_interval(confidence_level=0.99)
    assert (low, high) == pytest.approx((ref.low, ref.high), rel=1e-10)


def test_intervals_of_degenerate_vectors() -> None:
    out = mean_intervals([np.full(4, 0.5), np.array([]), np.array([0.2])], "bca")
    assert out[0].tolist() == [0.5, 0.5] and np.isnan(out[1:]).all()
    assert np.isnan(mean_intervals([np.array([0.2])], "t")).all()
    with pytest.raises(ValueError):
        mean_intervals([np.ones(3)], "t", confidence=1.0)


# -- corrections --------------------------------------------------------------------------------------------------


def test_corrections_by_hand() -> None:
    p = np.array([0.01, 0.04, 0.03, 0.005, np.nan])
    assert adjust(p, "bonferroni")[:4].tolist() == pytest.approx([0.04, 0.16, 0.12, 0.02])
    # Holm: sorted 0.005 0.01 0.03 0.04 times 4 3 2 1 = 0.02 0.03 0.06 0.04 -> running max 0.02 0.03 0.06 0.06
    assert adjust(p, "holm")[:4].tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # BH: times 4/1 4/2 4/3 4/4 = 0.02 0.02 0.04 0.04 -> running min from the top: 0.02 0.02 0.04 0.04
    assert adjust(p, "bh")[:4].tolist() == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert np.isnan(adjust(p, "holm")[4])


def test_benjamini_hochberg_equals_scipy() -> None:
    p = np.random.default_rng(0).random(40) ** 3
    assert adjust(p, "bh") == pytest.approx(sp.false_discovery_control(p, method="bh"), rel=1e-12)


p_value_lists = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30)


@given(p_value_lists, st.sampled_from(list(Correction)))
@settings(max_examples=200, deadline=None)
def test_adjusted_p_values_are_valid_and_monotone(values: list[float], correction: Correction) -> None:
    p = np.array(values)
    adjusted = adjust(p, correction)
    assert ((adjusted >= p - 1e-15) & (adjusted <= 1)).all()
    order = np.argsort(p, kind="stable")
    assert (np.diff(adjusted[order]) >= -1e-15).all()  # the order of the p-values is kept


@given(p_value_lists, st.floats(0.001, 0.2))
@settings(max_examples=200, deadline=None)
def test_adjusted_p_values_make_the_step_procedures_decisions(values: list[float], alpha: float) -> None:
    """Holm's step-down and BH's step-up rejection sets, computed from their definitions."""
    p = np.array(values)
    m = p.size
    ordered = np.sort(p)
    holm_rejects = 0
    while holm_rejects < m and ordered[holm_rejects] <= alpha / (m - holm_rejects):
        holm_rejects += 1
    passing = [i + 1 for i in range(m) if ordered[i] <= (i + 1) * alpha / m]
    bh_rejects = max(passing, default=0)
    # exclude p-values within rounding of a threshold, where both decisions are right
    near = [abs(v - alpha / k) < 1e-12 or abs(v - k * alpha / m) < 1e-12 for v in p for k in range(1, m + 1)]
    if any(near):
        return
    assert int((adjust(p, "holm") <= alpha).sum()) == holm_rejects
    assert int((adjust(p, "bh") <= alpha).sum()) == bh_rejects


# -- effects and Tukey --------------------------------------------------------------------------------------------


def test_effect_sizes_by_hand() -> None:
    d = np.array([0.1, 0.3, 0.2, 0.0])  # mean 0.15, sd = sqrt(0.05/3)
    assert cohens_d(d) == pytest.approx(0.15 / math.sqrt(0.05 / 3))
    assert math.isnan(cohens_d(np.zeros(3))) and cohens_d(np.full(3, -0.1)) == -math.inf
    assert win_tie_loss(np.array([0.5, 0.2, 0.3 + 1e-15, 0.1]), np.array([0.4, 0.2, 0.3, 0.9])) == (1, 2, 1)


def test_tukey_with_two_systems_is_the_randomization_test() -> None:
    """With two systems the range of the permuted means is |mean difference| under a sign flip."""
    rng = np.random.default_rng(8)
    x, y = continuous(rng, 15)
    exact = randomization_test(y - x).p_value
    resamples = 20_000
    p = randomised_tukey_hsd(np.column_stack((x, y)), resamples=resamples, seed=2)
    assert p[0, 0] == 1 and p[0, 1] == p[1, 0]
    assert abs(p[0, 1] - exact) <= 4 * math.sqrt(exact * (1 - exact) / resamples) + 1 / resamples


def test_tukey_is_more_conservative_than_unadjusted_randomization() -> None:
    rng = np.random.default_rng(2)
    base = rng.beta(2, 5, 60)
    matrix = np.column_stack([np.clip(base + rng.normal(s, 0.1, 60), 0, 1) for s in (0, 0.02, 0.04, 0.06, 0.08)])
    p = randomised_tukey_hsd(matrix, resamples=4000, seed=0)
    for i, j in itertools.combinations(range(5), 2):
        single = randomization_test(matrix[:, j] - matrix[:, i], resamples=4000, seed=0).p_value
        assert p[i, j] >= single - 0.02
    assert p[0, 4] < 0.01


@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=25), st.integers(0, 3))
@settings(max_examples=100, deadline=None)
def test_every_test_gives_p_in_0_1(values: list[float], seed: int) -> None:
    d = np.array(values)
    for result in (paired_t_test(d), wilcoxon_test(d), sign_test(d), randomization_test(d, 500, seed),
                   bootstrap_test(d, 500, seed)):  # fmt: skip
        assert (math.isnan(result.p_value) and d.size < 2) or 0 <= result.p_value <= 1, result


@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=2, max_size=12))
@settings(max_examples=100, deadline=None)
def test_tests_do_not_depend_on_the_sign_or_order_of_the_differences(values: list[float]) -> None:
    d = np.array(values)
    for test in (paired_t_test, wilcoxon_test, sign_test, randomization_test):
        p = test(d).p_value
        assert test(-d).p_value == pytest.approx(p, nan_ok=True, abs=1e-12)
        assert test(d[::-1]).p_value == pytest.approx(p, nan_ok=True, abs=1e-12)
