"""Significance at small n (issue #27): no test claims significance from one query, and no p-value is finer than the
test can resolve — the exact randomisation minimum 2/2^n for the sign-flip tests (enumerated here by brute force),
1/(B+1) for B resamples, (m!)^(1-n) for randomised Tukey HSD (enumerated too). Then the compare settings that used to
end in a traceback or an unbounded allocation, each one line."""

from __future__ import annotations

import itertools
import math
import tracemalloc

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from rankwise.cli import main
from rankwise.comparison.stats import (
    bootstrap_test,
    fewest_resamples,
    paired_t_test,
    paired_test,
    randomised_tukey_hsd,
    randomization_test,
    sign_flip_minimum,
    sign_test,
    smallest_p,
    wilcoxon_test,
)
from rankwise.limits import MAX_CURVE_K, MAX_RESAMPLES

PAIRED = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
SIGN_FLIP = ("wilcoxon", "sign", "randomization", "bootstrap")


def brute_force_minimum(n: int) -> float:
    """The smallest two-sided p of the exact randomisation test over n differences: for each possible observed
    vector the share of the 2^n sign vectors at least as extreme; minimised over vectors of distinct magnitudes
    (powers of two: every sum is distinct, so only ±observed reach |sum|)."""
    d = np.array([2.0**i for i in range(n)])
    sums = np.array([abs(np.dot(signs, d)) for signs in itertools.product((-1, 1), repeat=n)])
    return float(np.mean(sums >= abs(d.sum())))


@pytest.mark.parametrize("n", range(1, 9))
def test_the_sign_flip_minimum_is_the_exact_randomisation_minimum(n: int) -> None:
    assert sign_flip_minimum(n) == brute_force_minimum(n) == (1.0 if n == 1 else 2 / 2**n)


@pytest.mark.parametrize("test", [*PAIRED, "tukey"])
def test_one_query_gives_no_p_value(test: str) -> None:
    """One query that differs: NaN with "needs two queries", never a p-value (the bootstrap gave 1e-4)."""
    if test == "tukey":
        p = randomised_tukey_hsd(np.array([[0.2, 0.9, 0.5]]))
        assert np.isnan(p[~np.eye(3, dtype=bool)]).all() and (np.diag(p) == 1).all()
        return
    result = paired_test(test, np.array([0.5]))
    assert math.isnan(result.p_value) and result.method == "needs two queries"
    assert paired_test(test, np.array([0.0])).p_value == 1.0  # no difference at all: no evidence of one


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_the_bootstrap_respects_the_randomisation_minimum(n: int) -> None:
    """Identical differences: the bootstrap's shifted resamples are all 0, so its raw p is 1/(B+1); every sign
    assignment but the observed and its opposite is less extreme, so the exact p is 2/2^n, which the bootstrap now
    reports (the method says it was raised)."""
    d = np.full(n, 0.3)
    boot = bootstrap_test(d, resamples=2000, seed=1)
    assert boot.p_value == brute_force_minimum(n) == randomization_test(d).p_value
    assert "raised to 2/2^" in boot.method
    assert sign_test(d).p_value == pytest.approx(brute_force_minimum(n), rel=1e-12)
    assert wilcoxon_test(d).p_value == pytest.approx(brute_force_minimum(n), rel=1e-12)


@given(st.lists(st.floats(-1, 1, allow_nan=False).filter(lambda x: abs(x) > 1e-9), min_size=2, max_size=9),
       st.integers(1, 3000), st.integers(0, 5))  # fmt: skip
@settings(max_examples=60, deadline=None)
def test_no_p_value_is_finer_than_the_test_resolves(values: list[float], resamples: int, seed: int) -> None:
    d = np.array(values)
    for test in PAIRED:
        result = paired_test(test, d, resamples, seed)
        floor = smallest_p(test, d.size, resamples)
        assert result.p_value >= floor * (1 - 1e-12), (test, result, floor)
        if test in SIGN_FLIP:
            assert floor >= brute_force_minimum(d.size) * (1 - 1e-12)
        if test == "bootstrap":
            assert result.p_value >= 1 / (resamples + 1)


def test_tukey_respects_its_exact_minimum() -> None:
    """Three systems, two queries: of the (3!)^2 = 36 within-query permutations, those at least as extreme as the
    largest observed difference are counted by enumeration; the randomised p is never below it (nor below
    1/(B+1)), and (3!)^(1-2) = 1/6 is what smallest_p says."""
    x = np.array([[0.0, 0.5, 1.0], [0.0, 0.5, 1.0]])
    observed = abs(x[:, 2].mean() - x[:, 0].mean())
    ranges = []
    for p1, p2 in itertools.product(itertools.permutations(range(3)), repeat=2):
        means = (x[0, list(p1)] + x[1, list(p2)]) / 2
        ranges.append(means.max() - means.min())
    exact = float(np.mean(np.array(ranges) >= observed - 1e-12))
    assert exact == smallest_p("tukey", 2, 10**9, systems=3) == pytest.approx(1 / 6)
    p = randomised_tukey_hsd(x, resamples=5000, seed=3)
    assert p[0, 2] >= exact - 1e-12 and p[0, 2] >= 1 / 5001


def _write(tmp_path, queries: int, mixed: bool = False) -> tuple[str, str, str]:
    """Two systems over ``queries`` queries: a ranks the relevant document first, b second (AP 1 against 0.5); with
    ``mixed``, b ranks it first too on every third query, a second on every other."""
    qrels, a, b = tmp_path / "qrels.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    qs = [f"q{i}" for i in range(queries)]
    first, second = "{q} Q0 rel 1 2 {t}\n{q} Q0 non 2 1 {t}\n", "{q} Q0 non 1 2 {t}\n{q} Q0 rel 2 1 {t}\n"
    qrels.write_text("".join(f"{q} 0 rel 1\n{q} 0 non 0\n" for q in qs))
    a.write_text("".join((second if mixed and i % 2 else first).format(q=q, t="a") for i, q in enumerate(qs)))
    b.write_text("".join((first if mixed and i % 3 == 0 else second).format(q=q, t="b") for i, q in enumerate(qs)))
    return str(qrels), str(a), str(b)


@pytest.mark.parametrize("test", [*PAIRED, "tukey"])
def test_compare_never_calls_one_query_significant(tmp_path, test: str) -> None:
    qrels, a, b = _write(tmp_path, 1)
    comparison = rankwise.compare(qrels, [a, b], ["AP"], test=test, resamples=500)
    pair = comparison.comparisons[0]
    assert not pair.significant and math.isnan(pair.p_value) and pair.n == 1
    assert any("fewer than two queries: no p-value" in note for note in comparison.notes())


@pytest.mark.parametrize("test", ["bootstrap", "randomization", "sign", "wilcoxon", "tukey"])
def test_three_queries_cannot_be_significant_and_compare_says_so(tmp_path, test: str) -> None:
    """The issue's case: AP 1 against 0.5 on three queries; the bootstrap gave p = 1e-4. Every sign-flip test and
    Tukey's now give at least 2/2^3 = 0.25 (brute force), and the notes say no comparison can reach α."""
    qrels, a, b = _write(tmp_path, 3)
    comparison = rankwise.compare(qrels, [a, b], ["AP"], test=test, resamples=2000)
    pair = comparison.comparisons[0]
    assert pair.p_value >= brute_force_minimum(3) - 1e-12 and not pair.significant
    assert any("cannot give p below 0.25" in note for note in comparison.notes()), comparison.notes()


def test_the_t_test_still_resolves_three_queries(tmp_path) -> None:
    """The t-test is continuous: no floor, no note (its p for constant differences is 0, as t = ±inf)."""
    assert smallest_p("t", 3) == 0.0 and paired_t_test(np.array([0.1, 0.3, 0.2])).p_value < 0.1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": 1.5}, "seed must be a non-negative integer or None, got 1.5"),
        ({"seed": -1}, "seed must be a non-negative integer or None, got -1"),
        ({"seed": True}, "seed must be a non-negative integer"),
        ({"alpha": "0.05"}, "alpha must be a number, got '0.05' (str)"),
        ({"confidence": None}, "confidence must be a number, got None"),
        ({"resamples": MAX_RESAMPLES + 1}, f"resamples must be an integer from 1 to {MAX_RESAMPLES:,}"),
        ({"resamples": 2.0}, "resamples must be an integer"),
        ({"names": ["x", ""]}, "system names must not be empty"),
    ],
)
def test_bad_settings_are_one_line(tmp_path, kwargs: dict, message: str) -> None:
    qrels, a, b = _write(tmp_path, 3)
    with pytest.raises(rankwise.RankwiseError) as caught:
        rankwise.compare(qrels, [a, b], ["AP"], **kwargs)
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "args",
    [["--seed", "-1"], ["--resamples", "100000000"], ["--resamples", "0"], ["--curve-k", "1000000000"],
     ["--curve-k", "0"], ["--names", "x,"], ["--format", "html", "--curve-k", str(MAX_CURVE_K + 1)]],
)  # fmt: skip
def test_bad_options_exit_2_before_allocating(tmp_path, args: list[str]) -> None:
    """Each used to grow without bound, or end in a traceback; now exit 2 with the limit, with little memory."""
    qrels, a, b = _write(tmp_path, 6)
    tracemalloc.start()
    result = CliRunner().invoke(main, ["compare", qrels, a, b, "-m", "AP", *args])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert result.exit_code == 2 and (result.exception is None or isinstance(result.exception, SystemExit))
    assert "Traceback" not in result.output and peak < 64 << 20
    assert ("not in the range" in result.stderr) or ("must not be empty" in result.stderr), result.stderr


def test_too_few_resamples_leave_intervals_blank_with_a_note(tmp_path) -> None:
    """A 95% interval needs a resample beyond each end: ceil(2 / 0.05) = 40 (hand); with 39 the intervals are blank
    and the notes say why; with 40 they are there."""
    qrels, a, b = _write(tmp_path, 6, mixed=True)
    assert fewest_resamples(0.95) == 40 and fewest_resamples(0.9) == 20
    few = rankwise.compare(qrels, [a, b], ["AP"], resamples=39, interval="percentile")
    assert all(math.isnan(s.low) for s in few.summaries)
    assert any("needs at least 40 resamples" in note for note in few.notes())
    enough = rankwise.compare(qrels, [a, b], ["AP"], resamples=40, interval="percentile")
    assert not any(math.isnan(s.low) for s in enough.summaries)
    assert not any("resamples" in note for note in enough.notes())


def test_names_are_text_in_plots(tmp_path) -> None:
    """matplotlib reads text between two '$' as math, and failed on 'c$^{': names are escaped, drawn as written."""
    pytest.importorskip("matplotlib")
    from rankwise.comparison.report.plots import encode, intervals_figure, plain

    assert plain("a$b") == "a\\$b"
    qrels, a, b = _write(tmp_path, 4)
    comparison = rankwise.compare(qrels, [a, b], ["AP"], names=["a$b", "c$^{"], resamples=100)
    assert encode(intervals_figure(comparison), "png").startswith(b"\x89PNG")
    result = CliRunner().invoke(main, ["compare", qrels, a, b, "-m", "AP", "--names", "a$b,c$^{", "--format", "html",
                                       "--resamples", "100", "--spread", "none"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "a$b" in result.stdout and "c$^{" in result.stdout
