"""Two-sided paired tests on per-query differences :math:`d_i = x_i - y_i` (system minus the one it is compared
with): the t-test, Wilcoxon's signed-rank test, the sign test, Fisher's randomisation test and the bootstrap test.

Conventions shared by every test: differences that are all zero give p = 1 (no evidence of a difference); otherwise
fewer than :data:`MIN_QUERIES` (two) differences give NaN, method "needs two queries" (one query's difference says
nothing about its spread: no test can tell it from noise). Monte Carlo p-values are :math:`(1 + \\#\\{\\text{resamples
at least as extreme}\\}) / (1 + B)`, never 0 (Phipson & Smyth 2010).

**Resolution.** No test reports a p-value finer than it can resolve (:func:`smallest_p`). The tests built on the
paired null hypothesis "each query's two values are exchangeable" (sign flips: the sign, signed-rank, randomisation
and bootstrap tests) cannot give less than the exact randomisation minimum :math:`2 / 2^n` for :math:`n` queries
(the observed sign vector and its opposite are always at least as extreme, two of the :math:`2^n`); the exact tests
respect it by construction, and the Monte Carlo randomisation test and the bootstrap test have their p raised to
:math:`\\max(1/(B+1),\\ 2/2^n)` (the method says so). Without this floor the paired bootstrap, whose resamples of
a few shifted differences rarely reach :math:`|\\bar d|`, gives :math:`p \\approx 1/(B+1)` from three queries, where
only eight sign assignments exist and the exact test's smallest p is 0.25; Smucker, Allan & Carterette (CIKM 2007)
found the bootstrap test's p-values too small against the randomisation test's on TREC runs, and Efron & Tibshirani
(1993, §15-16) present both as approximations of the same permutation null. The t-test's p is continuous and has no
floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..methods import SignificanceTest
from .distributions import binomial_half_cdf, normal_cdf, t_two_sided_p
from .resampling import (
    at_least_as_extreme,
    bootstrap_means,
    random_sign_flip_sums,
    sign_flip_sums,
)

EXACT_RANDOMIZATION_MAX = 20
"""Up to this many queries the randomisation test enumerates all 2^n sign vectors."""
EXACT_WILCOXON_MAX = 50
"""Up to this many non-zero differences the signed-rank test uses its exact null distribution."""
MIN_QUERIES = 2
"""Fewer (non-zero) paired differences than this give no p-value (NaN, "needs two queries")."""
_TOO_FEW = "needs two queries"


@dataclass(frozen=True)
class TestResult:
    """A test's statistic, two-sided p-value, the number of queries it used, and how p was obtained."""

    statistic: float
    p_value: float
    n: int
    method: str


def paired_t_test(differences: np.ndarray) -> TestResult:
    r"""Paired Student's t-test.

    .. math:: t = \frac{\bar d}{s_d / \sqrt n}, \quad p = P(|T_{n-1}| \ge |t|)

    with :math:`s_d` the standard deviation of the differences (:math:`n - 1` in the denominator). NaN for
    :math:`n < 2`; :math:`t = \pm\infty`, p = 0 when every difference is the same non-zero value.
    """
    d = _checked(differences)
    n = d.size
    if n and not d.any():
        return TestResult(math.nan, 1.0, n, "no difference on any query")
    if n < MIN_QUERIES:
        return TestResult(math.nan, math.nan, n, _TOO_FEW)
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    t = math.copysign(math.inf, mean) if np.ptp(d) == 0.0 or sd == 0.0 else mean / (sd / math.sqrt(n))
    return TestResult(t, t_two_sided_p(t, n - 1), n, f"t distribution, {n - 1} degrees of freedom")


def wilcoxon_test(differences: np.ndarray, exact_max: int = EXACT_WILCOXON_MAX) -> TestResult:
    r"""Wilcoxon's signed-rank test; zero differences are dropped (Wilcoxon's method).

    The :math:`m` non-zero :math:`|d_i|` get ranks (midranks for ties); :math:`R^+` sums the ranks of positive
    differences and the statistic is :math:`\min(R^+, R^-)`. Up to ``exact_max`` non-zero differences the p-value
    comes from the exact null distribution of :math:`R^+` given these ranks (each sign ± with probability ½):
    :math:`p = \min(1, 2 \min(P(R^+ \le r), P(R^+ \ge r)))`; beyond, from the normal approximation with the tie
    correction and no continuity correction:

    .. math:: z = \frac{R^+ - m(m+1)/4}{\sqrt{(m(m+1)(2m+1) - \tfrac12 \sum_g (t_g^3 - t_g)) / 24}}, \quad
              p = 2 \Phi(-|z|)

    (:math:`t_g` the sizes of groups of tied :math:`|d_i|`).
    """
    d = _checked(differences)
    nonzero = d[d != 0]
    m = nonzero.size
    if d.size == 0:
        return TestResult(math.nan, math.nan, 0, "no queries")
    if m == 0:
        return TestResult(0.0, 1.0, d.size, "no difference on any query")
    if d.size < MIN_QUERIES:
        return TestResult(math.nan, math.nan, d.size, _TOO_FEW)
    ranks, tie_sizes = _midranks(np.abs(nonzero))
    r_plus = float(ranks[nonzero > 0].sum())
    statistic = min(r_plus, m * (m + 1) / 2 - r_plus)
    if m <= exact_max:
        doubled = np.rint(2 * ranks).astype(np.int64)  # midranks are multiples of ½
        null = _signed_rank_distribution(doubled)
        observed = round(2 * r_plus)
        p = 2 * min(null[: observed + 1].sum(), null[observed:].sum())
        return TestResult(statistic, min(1.0, float(p)), d.size, f"exact, {m} non-zero differences")
    spread = math.sqrt((m * (m + 1) * (2 * m + 1) - float((tie_sizes**3 - tie_sizes).sum()) / 2) / 24)
    z = (r_plus - m * (m + 1) / 4) / spread
    p = max(2 * normal_cdf(-abs(z)), sign_flip_minimum(m))
    return TestResult(statistic, p, d.size, f"normal approximation, {m} non-zero differences")


def sign_test(differences: np.ndarray) -> TestResult:
    r"""Sign test: with :math:`w` positive and :math:`l` negative differences (zeros dropped), :math:`n = w + l`,

    .. math:: p = \min(1, 2 P(X \le \min(w, l))), \quad X \sim \mathrm{Binomial}(n, 1/2)

    (equal to the two-sided ``scipy.stats.binomtest(w, n)``: the binomial(n, ½) is symmetric). The statistic is w.
    """
    d = _checked(differences)
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    if d.size == 0:
        return TestResult(math.nan, math.nan, 0, "no queries")
    n = wins + losses
    if n == 0:
        return TestResult(0.0, 1.0, d.size, "no difference on any query")
    if d.size < MIN_QUERIES:
        return TestResult(math.nan, math.nan, d.size, _TOO_FEW)
    p = min(1.0, 2 * binomial_half_cdf(min(wins, losses), n))
    return TestResult(float(wins), p, d.size, f"exact binomial, {n} queries that differ")


def randomization_test(
    differences: np.ndarray,
    resamples: int = 10_000,
    seed: int | None = 0,
    exact_max: int = EXACT_RANDOMIZATION_MAX,
) -> TestResult:
    r"""Fisher's randomisation test of the mean difference (paired: under the null hypothesis each query's two
    values are exchangeable, so each :math:`d_i` keeps or flips its sign with probability ½).

    .. math:: p = P\left(\left|\textstyle\sum_i s_i d_i\right| \ge \left|\textstyle\sum_i d_i\right|\right),
              \quad s_i \in \{-1, 1\}

    Exact over all :math:`2^n` sign vectors when :math:`n \le` ``exact_max``; else from ``resamples`` random sign
    vectors drawn with ``seed``, :math:`p = \max((1 + \#) / (1 + B),\ 2/2^n)` (the exact minimum: see the module's
    *Resolution*). The statistic is :math:`\bar d`; NaN for one query that differs.
    """
    d = _checked(differences)
    n = d.size
    if (untested := _too_few(d)) is not None:
        return untested
    observed, scale = float(d.sum()), float(np.abs(d).sum())
    if n <= exact_max:
        extreme = at_least_as_extreme(sign_flip_sums(d), observed, scale)
        return TestResult(observed / n, float(extreme.mean()), n, f"exact, all {2**n} sign assignments")
    count = int(at_least_as_extreme(random_sign_flip_sums(d, resamples, seed), observed, scale).sum())
    p, method = _floored((1 + count) / (1 + resamples), n, f"Monte Carlo, {resamples} resamples")
    return TestResult(observed / n, p, n, method)


def bootstrap_test(differences: np.ndarray, resamples: int = 10_000, seed: int | None = 0) -> TestResult:
    r"""Paired bootstrap test of the mean difference (Efron & Tibshirani 1993, §16.4; Sakai 2006): the
    differences are shifted to mean 0 (the null hypothesis), resampled ``resamples`` times with ``seed``, and

    .. math:: p = \max\left(\frac{1 + \#\{b : |\bar d^*_b| \ge |\bar d|\}}{1 + B},\ \frac{2}{2^n}\right)

    (the floor is the exact randomisation minimum for n queries: see the module's *Resolution*). The statistic is
    :math:`\bar d`; NaN for one query that differs.
    """
    d = _checked(differences)
    n = d.size
    if (untested := _too_few(d)) is not None:
        return untested
    observed = float(d.mean())
    null = bootstrap_means((d - observed)[None, :], resamples, seed)[0]
    count = int(at_least_as_extreme(null, observed, float(np.abs(d).mean())).sum())
    p, method = _floored((1 + count) / (1 + resamples), n, f"bootstrap, {resamples} resamples")
    return TestResult(observed, p, n, method)


def sign_flip_minimum(n: int) -> float:
    r"""The smallest two-sided p-value of a test of the paired null hypothesis by sign flips with ``n`` differences:
    :math:`2 / 2^n` (the exact randomisation test's: the observed sign vector and its opposite are at least as
    extreme; Fisher 1935; Smucker, Allan & Carterette, CIKM 2007). 1 for :math:`n \le 1`."""
    return 1.0 if n <= 1 else math.ldexp(1.0, 1 - n)


def permutation_minimum(n: int, systems: int) -> float:
    r"""The smallest p of the exact test that permutes each of ``n`` queries' values over ``systems`` systems
    independently (randomised Tukey HSD's null): :math:`(m!)^{1-n}`, since the :math:`m!` permutations applying one
    same order to every query keep the range of the means. :func:`sign_flip_minimum` for two systems."""
    m = max(int(systems), 2)
    if n <= 1:
        return 1.0
    if (n - 1) * math.lgamma(m + 1) > 745:  # below the smallest float64
        return 0.0
    return 1.0 / math.factorial(m) ** (n - 1)


def smallest_p(test: SignificanceTest | str, n: int, resamples: int = 10_000, systems: int = 2) -> float:
    r"""The smallest p-value ``test`` can report with ``n`` queries (non-zero differences for the sign and
    signed-rank tests), ``resamples`` Monte Carlo or bootstrap resamples and, for Tukey's, ``systems`` systems:

    - ``t``: 0 (continuous);
    - ``wilcoxon``, ``sign``, ``randomization`` (exact, :math:`n \le 20`): :func:`sign_flip_minimum`, :math:`2/2^n`;
    - ``randomization`` (Monte Carlo), ``bootstrap``: :math:`\max(1/(B+1),\ 2/2^n)`;
    - ``tukey``: :math:`\max(1/(B+1),\ (m!)^{1-n})` for :math:`m` systems (permuting every query's row by one same
      permutation leaves the range of the means as it is: :math:`m!` of the :math:`(m!)^n` permutations).

    NaN for fewer than :data:`MIN_QUERIES` queries (no test is made)."""
    test = SignificanceTest(test)
    if n < MIN_QUERIES:
        return math.nan
    if test is SignificanceTest.T:
        return 0.0
    monte_carlo = 1.0 / (1.0 + resamples)
    if test is SignificanceTest.TUKEY:
        return max(monte_carlo, permutation_minimum(n, systems))
    exact = sign_flip_minimum(n)
    if test is SignificanceTest.BOOTSTRAP or (test is SignificanceTest.RANDOMIZATION and n > EXACT_RANDOMIZATION_MAX):
        return max(monte_carlo, exact)
    return exact


def _floored(p: float, n: int, method: str) -> tuple[float, str]:
    """``p`` raised to the exact randomisation minimum for ``n`` differences; the method says when it was."""
    floor = sign_flip_minimum(n)
    if p >= floor:
        return p, method
    return floor, f"{method}; p raised to 2/2^{n} = {floor:.3g}, the exact randomisation minimum"


def paired_test(
    test: SignificanceTest | str, differences: np.ndarray, resamples: int = 10_000, seed: int | None = 0
) -> TestResult:
    """Run ``test`` (a :class:`SignificanceTest` other than Tukey's, which compares all systems at once) on the
    differences; ``resamples`` and ``seed`` are used by the randomisation and bootstrap tests."""
    test = SignificanceTest(test)
    if test is SignificanceTest.T:
        return paired_t_test(differences)
    if test is SignificanceTest.WILCOXON:
        return wilcoxon_test(differences)
    if test is SignificanceTest.SIGN:
        return sign_test(differences)
    if test is SignificanceTest.RANDOMIZATION:
        return randomization_test(differences, resamples, seed)
    if test is SignificanceTest.BOOTSTRAP:
        return bootstrap_test(differences, resamples, seed)
    raise ValueError(
        f"{test.value} is not a test of one pair: it compares all systems (see rankwise.comparison.stats.tukey)"
    )


def _too_few(d: np.ndarray) -> TestResult | None:
    """No test on no query, or on one query that differs (NaN, "needs two queries"); None otherwise."""
    if d.size == 0:
        return TestResult(math.nan, math.nan, 0, "no queries")
    if d.size < MIN_QUERIES and d.any():
        return TestResult(math.nan, math.nan, d.size, _TOO_FEW)
    return None


def _checked(differences: np.ndarray) -> np.ndarray:
    d = np.asarray(differences, dtype=np.float64).ravel()
    if not np.isfinite(d).all():
        raise ValueError("paired tests need finite differences (drop undefined queries first)")
    return d


def _midranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks 1..m of ``values`` with tied values sharing their mean rank, and the sizes of the tie groups."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    sizes = np.diff(np.r_[starts, ordered.size])
    group_rank = starts + (sizes + 1) / 2.0  # mean of ranks start+1 .. start+size
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(group_rank, sizes)
    return ranks, sizes.astype(np.float64)


def _signed_rank_distribution(weights: np.ndarray) -> np.ndarray:
    r"""Null distribution of :math:`\sum_i s_i w_i` with :math:`s_i \in \{0, 1\}` fair coins: probabilities of
    each total 0..Σw (one shifted add per weight)."""
    distribution = np.zeros(int(weights.sum()) + 1)
    distribution[0] = 1.0
    reach = 0
    for w in weights.tolist():
        distribution[w : reach + w + 1] += distribution[: reach + 1].copy()
        distribution[: reach + w + 1] /= 2
        reach += w
    return distribution


__all__ = [
    "EXACT_RANDOMIZATION_MAX",
    "EXACT_WILCOXON_MAX",
    "MIN_QUERIES",
    "TestResult",
    "bootstrap_test",
    "paired_t_test",
    "paired_test",
    "permutation_minimum",
    "randomization_test",
    "sign_flip_minimum",
    "sign_test",
    "smallest_p",
    "wilcoxon_test",
]
