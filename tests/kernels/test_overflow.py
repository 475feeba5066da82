"""Gains past float64 (issue #27): a value whose true value is finite is computed (nDCG scales each query's gains by
a power of two, which leaves the ratio as it is; ERR's stop probability is formed in exponent space), one that is not
is refused in one line, and no numpy warning ever reaches the user (every test here turns warnings into errors).
Expected values are computed by hand in exponent space, or by the same measure on smaller gains of the same ratios.
A cutoff that asks a kernel to sum k terms is bounded before anything of size k is made."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise
from rankwise.errors import RankwiseError
from rankwise.limits import MAX_SUMMED_CUTOFF

pytestmark = pytest.mark.filterwarnings("error")

RUN = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}


def value(qrels: dict, measure: str, run: dict = RUN) -> float:
    return rankwise.evaluate(qrels, run, [measure]).aggregate[measure]


def test_a_grade_map_of_huge_gains_has_the_ratio_of_equal_gains() -> None:
    """Gains 1e308 (their sum overflows) and gains 1 give the same nDCG: every gain equal, the ratio is the same;
    it used to print 0 (DCG / inf)."""
    qrels = {"q": {"a": 2, "c": 1, "d": 1, "e": 2}}
    huge = value(qrels, "nDCG(gain={1:1e308,2:1e308})@5")
    assert huge == pytest.approx(value(qrels, "nDCG(gain={1:1,2:1})@5"), rel=1e-12) and 0 < huge < 1


def test_exponential_gains_past_float64() -> None:
    """Grade 1025 with gain=exp2: 2^1025 − 1 is not a float64. Ranked second behind grade 1 (c), nDCG =
    (1 + G/log2 3) / (G + 1/log2 3) with G = 2^1025 − 1, which is 1/log2(3) to within 2^-1000 (by hand)."""
    assert value({"q": {"a": 1025, "b": 1}}, "nDCG(gain=exp2)") == pytest.approx(1.0, rel=1e-15)
    assert value({"q": {"b": 1025, "a": 1}}, "nDCG(gain=exp2)") == pytest.approx(1 / math.log2(3), rel=1e-12)
    assert value({"q": {"b": 1025, "a": 1}}, "nDCGRel(gain=exp2)") <= 1.0
    assert 0 < value({"q": {"b": 1025, "a": 1}}, "RnDCG(gain=exp2)") <= 1.0
    with pytest.raises(RankwiseError, match="overflows float64"):  # DCG itself is past float64: refused
        value({"q": {"a": 1025}}, "DCG(gain=exp2)")
    with pytest.raises(RankwiseError, match="overflows float64"):  # an ideal of k ones does not scale with the gains
        value({"q": {"a": 1025}}, "nDCG(gain=exp2,ideal=k_ones)@3")


def test_err_with_a_top_grade_past_float64() -> None:
    """r = (2^g − 1) / 2^max_grade. Grade 1025 first with max_grade 2000: r = 2^-975 − 2^-2000, so ERR = 2^-975 to
    float64 precision (it printed numpy warnings and "undefined"); with max_grade 1025, r rounds to 1: ERR = 1."""
    assert value({"q": {"a": 1025}}, "ERR(max_grade=2000)") == pytest.approx(2.0**-975, rel=1e-12)
    assert value({"q": {"a": 1025, "b": 3}}, "ERR(max_grade=1025)") == 1.0


def test_a_certain_stop_ends_the_cascade_of_its_query_only() -> None:
    """r = 1 (grade 1025 of max_grade 1025: 1 − 2^-1025 rounds to 1) stops the user: later documents add nothing,
    and the next query is unaffected (log(1 − r) = −inf would make the next query's products NaN). q2's grade 1:
    r = 2^(1 − 1025) − 2^-1025 = 2^-1025, exactly (by hand)."""
    qrels = {"q1": {"a": 1025, "b": 1025}, "q2": {"a": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 1.0}}
    result = rankwise.evaluate(qrels, run, ["ERR(max_grade=1025)"])
    values = dict(zip(result.query_ids, result.values[0]))
    assert values["q1"] == 1.0 and values["q2"] == 2.0**-1025


def test_g_refuses_gains_float64_cannot_hold() -> None:
    """G's 2 + C_i − S_i loses the 2 once the sums pass 2^52: a perfect ranking scored 0. Refused in one line."""
    with pytest.raises(RankwiseError, match=r"sum past 2\^52") as caught:
        value({"q": {"a": 10**17, "b": 1}}, "G")
    assert "\n" not in str(caught.value)
    assert value({"q": {"a": 2, "b": 1}}, "G") > 0  # ordinary gains as before


@pytest.mark.parametrize("measure", ["nDCG(ideal=k_ones)@9999999999", "AP(precisions=every)@9999999999"])
def test_a_summed_cutoff_is_bounded_before_allocating(measure: str) -> None:
    """k_ones sums k discounts and precisions=every k precisions whatever the ranking's length: @9999999999 tried
    to allocate 74.5 GiB. One line with the limit, at once."""
    start = time.perf_counter()
    with pytest.raises(RankwiseError, match=f"from 1 to {MAX_SUMMED_CUTOFF:,}, got 9999999999"):
        value({"q": {"a": 1}}, measure)
    assert time.perf_counter() - start < 5


# ------------------------------------------------------------------- the fuzzer, at a budget the suite can afford
GRADES = st.sampled_from([0, 1, 2, 3, 60, 1023, 1024, 1025, 2000, 10**17, 2**62])
MEASURES = st.sampled_from([
    "nDCG", "nDCG(gain=exp2)", "nDCG(gain=exp2)@2", "nDCG(gain=exp2_rel,rel=2)", "DCG(gain=exp2)", "nDCG@3",
    "nDCG(gain={1:1e308,2:1e308,3:5e307})@5", "nDCG(ideal=uncut)@1", "nDCG(ideal=hits,gain=exp2)@2",
    "ERR(max_grade=2000)", "ERR(max_grade=1025)", "nERR(max_grade=2000)", "nDCGRel(gain=exp2)", "RnDCG(gain=exp2)",
    "G", "RBP", "nDCG(ideal=k_ones)@4", "AP(precisions=every)@50",
])  # fmt: skip


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from("abcdef"), GRADES, min_size=1, max_size=6),
       st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=7, unique=True), MEASURES)  # fmt: skip
def test_fuzz_gains_give_a_value_or_one_line(judged: dict, ranked: list, measure: str) -> None:
    """Any grades, any gain: a value (finite, or NaN where undefined; nDCG within [0, 1]) or one error line, never
    a numpy warning (an error here) and never an infinite value."""
    run = {"q": {doc: float(len(ranked) - i) for i, doc in enumerate(ranked)}}
    try:
        result = rankwise.evaluate({"q": judged}, run, [measure])
    except RankwiseError as exc:
        assert "\n" not in str(exc)
        return
    v = result.values[0][0]
    assert not np.isinf(v)
    if measure.startswith("nDCG") and "k_ones" not in measure and not np.isnan(v):  # k ones: not a bound
        assert -1e-12 <= v <= 1 + 1e-12
