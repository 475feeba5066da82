"""The distribution functions the tests and intervals need: Student's t, the normal and the binomial(n, ½), from the
regularised incomplete beta function (a continued fraction) and the standard library's normal quantile.

No SciPy at run time: the tests compare every function here with ``scipy.stats``.
"""

from __future__ import annotations

import math
from statistics import NormalDist

_TINY = 1e-300
_EPSILON = 1e-16
_MAX_TERMS = 100_000
_STANDARD_NORMAL = NormalDist()


def regularized_beta(a: float, b: float, x: float) -> float:
    r"""The regularised incomplete beta function :math:`I_x(a, b)`.

    .. math:: I_x(a, b) = \frac{1}{B(a, b)} \int_0^x t^{a-1} (1 - t)^{b-1} \, dt

    Evaluated with the modified Lentz continued fraction (Numerical Recipes §6.4), on the side of the symmetry
    :math:`I_x(a, b) = 1 - I_{1-x}(b, a)` where the fraction converges fast, so a small result keeps its relative
    precision when ``x < (a + 1) / (a + b + 2)``.

    Parameters
    ----------
    a, b : float
        Positive shape parameters.
    x : float
        The upper limit, in [0, 1].
    """
    if not (a > 0 and b > 0):
        raise ValueError(f"regularized_beta needs a > 0 and b > 0, got a={a}, b={b}")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = a * math.log(x) + b * math.log1p(-x) - log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def log_beta(a: float, b: float) -> float:
    r""":math:`\ln B(a, b) = \ln\Gamma(a) + \ln\Gamma(b) - \ln\Gamma(a + b)`."""
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (modified Lentz)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):  # fmt: skip
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            step = c * d
            h *= step
        if abs(step - 1.0) < _EPSILON:
            return h
    raise ArithmeticError(f"incomplete beta: no convergence for a={a}, b={b}, x={x}")


def t_two_sided_p(t: float, df: float) -> float:
    r"""Two-sided p-value of Student's t with ``df`` degrees of freedom: :math:`P(|T| \ge |t|)`.

    .. math:: P(|T| \ge |t|) = I_{\nu / (\nu + t^2)}(\nu / 2, 1 / 2)

    NaN when ``t`` is NaN; 0 when ``t`` is infinite.
    """
    if math.isnan(t) or not df > 0:
        return math.nan
    if math.isinf(t):
        return 0.0
    return min(1.0, regularized_beta(df / 2.0, 0.5, df / (df + t * t)))


def t_quantile(probability: float, df: float) -> float:
    r"""The quantile :math:`t_{\nu}(q)` of Student's t: the value with ``P(T <= value) = probability``.

    Solved by Newton's method for :math:`t > 0` on the two-sided tail :math:`P(|T| \ge t)` when it is at most
    ½, else on the central probability :math:`P(|T| < t) = I_{t^2 / (\nu + t^2)}(1/2, \nu/2)`, so the
    answer keeps its relative precision at both ends; started at the normal quantile.
    """
    if not 0.0 < probability < 1.0 or not df > 0:
        raise ValueError(f"t_quantile needs 0 < probability < 1 and df > 0, got {probability}, {df}")
    if probability == 0.5:
        return 0.0
    central = 2.0 * abs(probability - 0.5)  # P(|T| < t) at the answer
    tail = 2.0 * min(probability, 1.0 - probability)  # P(|T| >= t)
    start = 0.5 + central / 2.0 if central < 0.5 else tail / 2.0  # the normal quantile of the nearer tail
    t = abs(_STANDARD_NORMAL.inv_cdf(start))
    log_norm = log_beta(df / 2.0, 0.5) + 0.5 * math.log(df)
    for _ in range(500):
        density = math.exp(-(df + 1.0) / 2.0 * math.log1p(t * t / df) - log_norm)  # of |T|, halved
        if tail <= 0.5:
            step = (t_two_sided_p(t, df) - tail) / (2.0 * density)
        else:
            step = (central - regularized_beta(0.5, df / 2.0, t * t / (df + t * t))) / (2.0 * density)
        t = abs(t + step)
        if abs(step) <= 1e-15 * t:
            break
    return math.copysign(t, probability - 0.5)


def normal_cdf(z: float) -> float:
    r""":math:`\Phi(z) = \tfrac12 \operatorname{erfc}(-z / \sqrt 2)` (accurate in both tails)."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def normal_quantile(probability: float) -> float:
    r""":math:`\Phi^{-1}(p)`; ``-inf``/``inf`` at 0 and 1 (Wichura's AS 241 via :class:`statistics.NormalDist`)."""
    if probability <= 0.0:
        return -math.inf
    if probability >= 1.0:
        return math.inf
    return _STANDARD_NORMAL.inv_cdf(probability)


def binomial_half_cdf(k: int, n: int) -> float:
    r""":math:`P(X \le k)` for :math:`X \sim \mathrm{Binomial}(n, 1/2)`: :math:`I_{1/2}(n - k, k + 1)`."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return regularized_beta(n - k, k + 1, 0.5)


__all__ = [
    "binomial_half_cdf",
    "log_beta",
    "normal_cdf",
    "normal_quantile",
    "regularized_beta",
    "t_quantile",
    "t_two_sided_p",
]
