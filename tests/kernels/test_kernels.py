"""The kernels driven directly on hand-made :class:`Aligned` arrays (no IO, no alignment): three queries — a
graded ranking with an unjudged row and an unretrieved relevant document, a ranking without a relevant row, and an
empty ranking — each value computed by hand in the comments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankwise.engine.aligned import UNJUDGED, Aligned, QueryAccounting
from rankwise.kernels import KERNELS, aggregate_from, aggregation_inputs, apply_empty_policy, concatenate_inputs
from rankwise.measures import parse_measure


def _aligned() -> Aligned:
    """q "a": grades by rank [1, 0, 2, unjudged, 1], judged [1, 0, 2, 1, 3] (R = 4, one relevant not retrieved);
    q "b": grades [0, unjudged], judged [0, 1] (R = 1); q "c": no ranking, judged [2] (R = 1)."""
    unjudged = UNJUDGED
    return Aligned(
        query_ids=["a", "b", "c"],
        offsets=np.array([0, 5, 7, 7]),
        qidx=np.array([0, 0, 0, 0, 0, 1, 1]),
        rank=np.array([1, 2, 3, 4, 5, 1, 2]),
        score=np.array([5.0, 4.0, 3.0, 2.0, 1.0, 2.0, 1.0]),
        grade=np.array([1, 0, 2, unjudged, 1, 0, unjudged]),
        qrel_qidx=np.array([0, 0, 0, 0, 0, 1, 1, 2]),
        qrel_grade=np.array([1, 0, 2, 1, 3, 0, 1, 2]),
        accounting=QueryAccounting(3, run_only=(), qrels_only=(), scored_empty=("c",), unjudged_evaluated=()),
    )


IDCG_3 = 3 + 2 / math.log2(3) + 1 / 2  # judged gains sorted [3, 2, 1, 1, 0], cut at 3
EXPECTED = {
    "P@3": [2 / 3, 0, 0],  # relevant at ranks 1 and 3
    "R@5": [3 / 4, 0, 0],  # ranks 1, 3, 5 of R = 4
    "AP": [(1 + 2 / 3 + 3 / 5) / 4, 0, 0],  # precision at each relevant rank, over R
    "RR": [1, 0, 0],
    "nDCG@3": [(1 + 2 / 2) / IDCG_3, 0, 0],  # DCG = 1/log2(2) + 0 + 2/log2(4)
    "HitRate@3": [1, 0, 0],
    "bpref": [1 / 4, 0, 0],  # rank 1: no judged non-relevant above; ranks 3, 5: the one at rank 2 (N = 1)
    "Rprec": [2 / 4, 0, 0],  # relevant in the top R = 4: ranks 1, 3
    "NumRelRet": [3, 0, 0],
    "num_ret": [5, 2, 0],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_kernel_values_by_hand(name: str) -> None:
    measure = parse_measure(name)
    values = KERNELS[measure.name](_aligned(), measure, 1)
    assert values == pytest.approx(EXPECTED[name], abs=1e-12)


def test_empty_policy_applies_to_queries_without_relevant_documents() -> None:
    a = _aligned()
    a.qrel_grade[5:7] = 0  # q "b" now has no relevant document
    for policy, expected in (("zero", 0.0), ("one", 1.0), ("skip", math.nan)):
        measure = parse_measure(f"P(empty={policy})@3")
        values = apply_empty_policy(a, measure, 1, KERNELS["P"](a, measure, 1))
        assert values[0] == pytest.approx(2 / 3)
        assert values[1] == expected or (math.isnan(expected) and math.isnan(values[1]))


def test_aggregation_inputs_of_two_ranges_concatenate_to_the_whole() -> None:
    """The aggregate from query ranges [a] and [b, c] joined equals the one from all three queries."""
    whole = _aligned()
    first = Aligned(["a"], whole.offsets[:2], whole.qidx[:5], whole.rank[:5], whole.score[:5], whole.grade[:5],
                    whole.qrel_qidx[:5], whole.qrel_grade[:5], whole.accounting)  # fmt: skip
    rest = Aligned(["b", "c"], whole.offsets[1:] - 5, whole.qidx[5:] - 1, whole.rank[5:], whole.score[5:],
                   whole.grade[5:], whole.qrel_qidx[5:] - 1, whole.qrel_grade[5:], whole.accounting)  # fmt: skip
    for name in ("AP", "AUC", "AUC(mean=positives)", "AUC(mean=pooled,unjudged=skip)", "gm_map",
                 "F1(mean=from_means)@3"):  # fmt: skip
        measure = parse_measure(name)
        parts = [aggregation_inputs(x, measure, 1, KERNELS[measure.name](x, measure, 1)) for x in (first, rest)]
        expected = aggregation_inputs(whole, measure, 1, KERNELS[measure.name](whole, measure, 1))
        joined = concatenate_inputs(parts)
        assert joined.keys() == expected.keys()
        for key in expected:
            assert np.array_equal(joined[key], expected[key], equal_nan=True), (name, key)
        total = aggregate_from(measure, expected)
        assert aggregate_from(measure, joined) == total or (math.isnan(total))


def test_arrays_the_measures_share_are_joined_once() -> None:
    """Within one evaluation, an array two measures' inputs share in every range (the items of the global measures
    at one cutoff) is joined once and stays one array; arrays of their own are joined apart, each to the whole."""
    shared = [np.arange(3), np.arange(3, 5)]
    first = [{"items": shared[0], "values": np.array([0.5])}, {"items": shared[1], "values": np.array([1.5])}]
    second = [{"items": shared[0], "values": np.array([2.5])}, {"items": shared[1], "values": np.array([3.5])}]
    joined: dict = {}
    a, b = concatenate_inputs(first, joined), concatenate_inputs(second, joined)  # type: ignore[arg-type]
    assert a["items"] is b["items"] and np.array_equal(a["items"], np.arange(5))
    assert np.array_equal(a["values"], [0.5, 1.5]) and np.array_equal(b["values"], [2.5, 3.5])
    assert concatenate_inputs(first)["items"] is not a["items"]  # without a shared record, joined anew
