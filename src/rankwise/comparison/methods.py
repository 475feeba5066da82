"""The names of the statistical methods rankwise offers, each with the words a report's caption uses for it."""

from __future__ import annotations

from enum import Enum


class _Named(str, Enum):
    @property
    def label(self) -> str:
        """The method in words (``paired t-test``, ``Holm correction``, ``BCa bootstrap``)."""
        return LABELS[type(self), self.value]  # str enums of equal value are equal: key by class too


class SignificanceTest(_Named):
    """How a difference between two systems' per-query values is tested (two-sided)."""

    T = "t"
    """Paired Student's t-test on the per-query differences."""
    WILCOXON = "wilcoxon"
    """Wilcoxon signed-rank test (zero differences dropped; exact up to 50 non-zero differences, ties included)."""
    SIGN = "sign"
    """Sign test: wins among the queries that differ, against Binomial(n, ½)."""
    RANDOMIZATION = "randomization"
    """Fisher's randomisation (permutation) test of the mean difference: exact up to 20 queries, else seeded
    Monte Carlo."""
    BOOTSTRAP = "bootstrap"
    """Paired bootstrap test of the mean difference (differences shifted to mean 0, seeded)."""
    TUKEY = "tukey"
    """Randomised Tukey HSD across all systems at once (controls the family-wise error itself)."""


class Correction(_Named):
    """How p-values are adjusted for the number of comparisons in a family."""

    NONE = "none"
    HOLM = "holm"
    """Holm's step-down procedure (controls the family-wise error rate)."""
    BONFERRONI = "bonferroni"
    """p × m (controls the family-wise error rate)."""
    BH = "bh"
    """Benjamini–Hochberg step-up procedure (controls the false discovery rate)."""


class IntervalMethod(_Named):
    """How the confidence interval of a mean (or of a mean difference) is made."""

    T = "t"
    """Student's t interval: mean ± t(n−1) · s / √n."""
    PERCENTILE = "percentile"
    """Bootstrap percentile interval."""
    BCA = "bca"
    """Bias-corrected and accelerated bootstrap interval (Efron & Tibshirani 1993, §14.3)."""


LABELS: dict[tuple[type[_Named], str], str] = {
    (SignificanceTest, SignificanceTest.T.value): "paired t-test",
    (SignificanceTest, SignificanceTest.WILCOXON.value): "Wilcoxon signed-rank test",
    (SignificanceTest, SignificanceTest.SIGN.value): "sign test",
    (SignificanceTest, SignificanceTest.RANDOMIZATION.value): "Fisher's randomisation test",
    (SignificanceTest, SignificanceTest.BOOTSTRAP.value): "paired bootstrap test",
    (SignificanceTest, SignificanceTest.TUKEY.value): "randomised Tukey HSD test",
    (Correction, Correction.NONE.value): "no correction",
    (Correction, Correction.HOLM.value): "Holm correction",
    (Correction, Correction.BONFERRONI.value): "Bonferroni correction",
    (Correction, Correction.BH.value): "Benjamini–Hochberg correction",
    (IntervalMethod, IntervalMethod.T.value): "t",
    (IntervalMethod, IntervalMethod.PERCENTILE.value): "bootstrap percentile",
    (IntervalMethod, IntervalMethod.BCA.value): "BCa bootstrap",
}

__all__ = ["LABELS", "Correction", "IntervalMethod", "SignificanceTest"]
