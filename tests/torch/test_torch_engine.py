"""rankwise.torch equals rankwise.evaluate on the same data: every measure × parameter value it computes × tie policy
× dialect, on random slates with many ties, padding, queries without a relevant document and a row without any
document (float64 to 1e-12, float32 within 1e-5); hypothesis on small batches; refusals for what it does not compute."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch_slates import as_inputs, assert_same, engine_values, random_batch

import rankwise
import rankwise.torch as rt
from rankwise.dialects import get_dialect
from rankwise.errors import InputError, MeasureError
from rankwise.torch.ranking import rank_slates


def _grid(name: str, cutoffs: tuple[str, ...], **choices: tuple[str, ...]) -> list[str]:
    """Every combination of the parameter values, at each cutoff ("" = none)."""
    out = []
    for values in itertools.product(*choices.values()):
        params = ",".join(f"{k}={v}" for k, v in zip(choices, values))
        for cutoff in cutoffs:
            out.append(f"{name}({params}){cutoff}" if params else f"{name}{cutoff}")
    return out


EMPTY = ("zero", "one", "skip")
GATE = ("none", "positive_score")
GAINS = ("linear", "exp2", "binary", "exp2_rel")
DISCOUNTS = ("log2", "ln", "log2_max2")
NDCG = _grid("nDCG", ("@5", "", "@30"), gain=GAINS, discount=DISCOUNTS, ideal=("sorted", "uncut", "k_ones", "none"),
             empty=EMPTY)  # fmt: skip
DCG = _grid("DCG", ("@4", ""), gain=GAINS, discount=DISCOUNTS)
MORE_GAINS = ["nDCG(gain={1:3,2:9,3:0.5})@5", "nDCG(rel=2,gain=exp2_rel)@5", "nDCG(rel=0)@6", "DCG(log_base=10)@5",
              "DCG(gain={1:-1,3:7})"]  # fmt: skip
AP = _grid("AP", ("@5", ""), denom=("R", "min_k_R", "k", "hits", "neurec", "min_shown_R"), gate=GATE, empty=EMPTY)
RR = _grid("RR", ("@3", ""), hits=("first", "all", "top1"), gate=GATE, empty=EMPTY)
P = _grid("P", ("@5", "@20"), denom=("k", "retrieved", "min_k_R", "min_shown_R"), within=("k", "k_plus_1"), gate=GATE,
          empty=EMPTY)  # fmt: skip
R = _grid("R", ("@5", ""), denom=("R", "min_k_R"), within=("k", "k_plus_1"), gate=GATE, empty=EMPTY)
HIT = _grid("HitRate", ("@3", ""), count=("any", "hits"), empty=EMPTY)
ERR = ["ERR@5", "ERR", "ERR(max_grade=3)@10", "ERR(max_grade=2000)@5"]
RELS = ["AP(rel=2)@5", "RR(rel=3)", "P(rel=2)@5", "R(rel=2)@5", "HitRate(rel=3)@4", "nDCG(universe=retrieved)@5",
        "AP(universe=retrieved)", "R(universe=retrieved)@3"]  # fmt: skip
AVERAGED = NDCG + DCG + MORE_GAINS + P + R[:16]
EVERY = NDCG + DCG + MORE_GAINS + AP + RR + P + R + HIT + ERR + RELS
ORDERS = ("input_order", "docno_asc", "docno_desc", "docno_desc_numeric")


@pytest.mark.parametrize("ties", [*ORDERS, "average"])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_measure_and_parameter_equals_the_engine(ties: str, seed: int) -> None:
    scores, labels, mask = random_batch(seed)
    measures = AVERAGED if ties == "average" else EVERY
    expected = engine_values(scores, labels, mask, measures, ties=ties)
    assert_same(rt.evaluate(scores, labels, measures, mask, ties=ties, dtype=torch.float64), expected, 1e-12)
    assert_same(rt.evaluate(scores.float(), labels, measures, mask, ties=ties), expected, 1e-4)


def test_rel_level_is_the_default_threshold_as_in_the_engine() -> None:
    scores, labels, mask = random_batch(5)
    measures = ["AP@5", "P@5", "RR", "nDCG@5", "HitRate@3"]  # nDCG keeps its own rel = 1, as in the engine
    expected = engine_values(scores, labels, mask, measures, ties="input_order", rel_level=2)
    assert_same(rt.evaluate(scores, labels, measures, mask, rel_level=2, dtype=torch.float64), expected, 1e-12)


@pytest.mark.parametrize("dialect", ["lightgbm", "xgboost", "sklearn", "torchmetrics", "allrank", "trec_eval", "ranx"])
def test_dialects_bind_as_in_the_engine(dialect: str) -> None:
    scores, labels, mask = random_batch(11, queries=60)
    for measures, ties in ((["nDCG@5", "nDCG", "P@3", "R@5", "DCG@3"], None),
                           (["AP@5", "AP", "RR@3", "RR", "HitRate@2", "ERR@4", "P@5"], "input_order"),
                           (["AP@5", "RR@3", "nDCG@4"], "docno_desc")):  # fmt: skip
        if dialect == "sklearn" and "AP@5" in measures:
            measures = [m for m in measures if not m.startswith("AP")]  # precision_at=tie_end: refused below
        engine_ties = ties or get_dialect(dialect).policies.get("ties", "input_order")  # the default here: the slate's
        expected = engine_values(scores, labels, mask, measures, dialect=dialect, ties=engine_ties)
        got = rt.evaluate(scores, labels, measures, mask, dialect=dialect, ties=ties, dtype=torch.float64)
        assert_same(got, expected, 1e-12)


def test_dialect_names_read_as_the_engine_reads_them() -> None:
    scores, labels, mask = random_batch(3)
    names = {"allrank": ["ndcg@5", "mrr@3", "dcg@4"], "lightgbm": ["ndcg@5", "map@3"], "xgboost": ["ndcg@5-", "pre@3"],
             "torchmetrics": ["RetrievalNormalizedDCG(top_k=5)", "RetrievalPrecision(top_k=3)"]}  # fmt: skip
    for dialect, measures in names.items():
        expected = engine_values(
            scores,
            labels,
            mask,
            measures,
            dialect=dialect,
            ties=get_dialect(dialect).policies.get("ties", "input_order"),
        )
        assert_same(rt.evaluate(scores, labels, measures, mask, dialect=dialect, dtype=torch.float64), expected, 1e-12)


def test_allranks_padding_label_is_padding() -> None:
    scores, labels, mask = random_batch(4)
    padded = torch.where(mask, labels, torch.full_like(labels, -1))
    expected = engine_values(scores, labels, mask, ["ndcg@5", "mrr@5"], dialect="allrank", ties="input_order")
    got = rt.evaluate(scores, padded, ["ndcg@5", "mrr@5"], dialect="allrank", dtype=torch.float64)
    assert_same(got, expected, 1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 5),
    st.integers(1, 7),
    st.data(),
    st.sampled_from([*ORDERS, "average"]),
)
def test_hypothesis_small_batches_equal_the_engine(queries: int, width: int, data: st.DataObject, ties: str) -> None:
    cells = queries * width
    scores = torch.tensor(data.draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, -2.0]), min_size=cells,
                                             max_size=cells))).reshape(queries, width)  # fmt: skip
    grades = data.draw(st.lists(st.integers(-1, 3), min_size=cells, max_size=cells))
    labels = torch.tensor(grades).reshape(queries, width)
    mask = torch.tensor(data.draw(st.lists(st.booleans(), min_size=cells, max_size=cells))).reshape(queries, width)
    pool = AVERAGED if ties == "average" else EVERY
    measures = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6, unique=True))
    if not mask.any():
        assert all(torch.isnan(v).all() for v in rt.evaluate(scores, labels, measures, mask, ties=ties).values())
        return
    expected = engine_values(scores, labels, mask, measures, ties=ties)
    assert_same(rt.evaluate(scores, labels, measures, mask, ties=ties, dtype=torch.float64), expected, 1e-12)


def test_unpadded_batches_need_no_mask() -> None:
    scores, labels, _ = random_batch(8, pad=0.0)
    full = torch.ones_like(scores, dtype=torch.bool)
    expected = engine_values(scores, labels, full, ["nDCG@5", "AP"], ties="input_order")
    assert_same(rt.evaluate(scores, labels, ["nDCG@5", "AP"], dtype=torch.float64), expected, 1e-12)


@pytest.mark.parametrize(
    ("measure", "ties", "said"),
    [
        ("RR@5", "average", "ties=average"),
        ("AP", "average", "ties=average"),
        ("bpref", None, "not computed on tensors"),
        ("nDCG(rank=optimistic)@5", None, "rank=optimistic"),
        ("nDCG(ideal=hits)@5", None, "ideal=hits"),
        ("AP(precision_at=tie_end)", None, "precision_at=tie_end"),
        ("AP(precisions=every)@5", None, "precisions=every"),
    ],
)
def test_what_is_not_computed_is_refused_in_one_line(measure: str, ties: str | None, said: str) -> None:
    with pytest.raises(MeasureError, match=said) as caught:
        rt.evaluate(torch.zeros(1, 3), torch.zeros(1, 3, dtype=torch.long), measure, ties=ties)
    assert "\n" not in str(caught.value)


def test_the_sklearn_dialects_ap_is_refused_not_recomputed() -> None:
    with pytest.raises(MeasureError, match="precision_at=tie_end"):
        rt.evaluate(torch.zeros(1, 3), torch.zeros(1, 3), "AP", dialect="sklearn", ties="input_order")


@pytest.mark.parametrize(
    ("scores", "labels", "mask", "said"),
    [
        (torch.zeros(3), torch.zeros(3), None, "2-d"),
        (torch.zeros(2, 3), torch.zeros(2, 4), None, "shape"),
        (torch.zeros(2, 3), torch.full((2, 3), 0.5), None, "whole numbers"),
        (torch.tensor([[0.0, float("nan")]]), torch.zeros(1, 2), None, "NaN"),
        (torch.zeros(1, 2, dtype=torch.long), torch.zeros(1, 2), None, "floating point"),
        (torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2), "bool"),
    ],
)
def test_bad_tensors_are_refused_in_one_line(scores: torch.Tensor, labels: torch.Tensor, mask: torch.Tensor | None,
                                             said: str) -> None:  # fmt: skip
    with pytest.raises(InputError, match=said) as caught:
        rt.evaluate(scores, labels, "nDCG@5", mask)
    assert "\n" not in str(caught.value)


def test_a_padded_nan_score_is_no_document() -> None:
    scores = torch.tensor([[1.0, float("nan"), 0.5]])
    labels = torch.tensor([[0, 3, 1]])
    got = rt.evaluate(scores, labels, ["RR", "nDCG"], torch.tensor([[True, False, True]]), dtype=torch.float64)
    assert got["RR"].item() == 0.5
    assert got["nDCG"].item() == pytest.approx((1 / np.log2(3)) / 1.0)


def test_an_err_grade_above_max_grade_is_refused_naming_the_row() -> None:
    with pytest.raises(MeasureError, match="row 1 has grade 5, above max_grade=4"):
        rt.evaluate(torch.zeros(2, 2), torch.tensor([[1, 2], [5, 0]]), "ERR@2")


def test_a_document_scored_minus_infinity_still_ranks_before_padding() -> None:
    # the engine refuses infinite scores in a run; on tensors -inf is a score (below every other), padding is nothing
    scores = torch.tensor([[-torch.inf, 7.0, 1.0], [-torch.inf, -torch.inf, 2.0]])
    labels = torch.tensor([[1, 5, 0], [0, 1, 0]])
    mask = torch.tensor([[True, False, True], [True, True, True]])
    got = rt.evaluate(scores, labels, ["RR", "P(denom=retrieved)@3"], mask, dtype=torch.float64)
    assert got["RR"].tolist() == [0.5, 1 / 3]
    assert got["P(denom=retrieved)@3"].tolist() == [0.5, 1 / 3]


@pytest.mark.parametrize("ties", [*ORDERS, "average"])
def test_wide_slates_sort_only_the_candidates_and_equal_the_engine(ties: str) -> None:
    # every measure has a cutoff <= 10 on slates of 80: only the documents scored at least the 10th score are sorted
    scores, labels, mask = random_batch(17, queries=60, width=80, levels=60)
    pool = AVERAGED if ties == "average" else EVERY
    measures = [m for m in pool if "@" in m and int(m.rsplit("@", 1)[1]) <= 10]
    plan = rt.make_tensor_plan(measures, ties=ties)
    valid = mask.clone()
    assert rank_slates(scores, labels, valid, plan.ties, torch.float64, plan.reach).rank.shape[0] < 40
    expected = engine_values(scores, labels, mask, measures, ties=ties)
    assert_same(rt.evaluate(scores, labels, plan, mask, dtype=torch.float64), expected, 1e-12)


def test_num_relevant_gives_trec_evals_judged_universe() -> None:
    # qrels hold relevant documents the slate does not (ids past the slate): R counts them, as trec_eval does
    scores, labels, mask = random_batch(23, queries=50)
    extra = torch.randint(0, 4, (50,), generator=torch.Generator().manual_seed(1))
    qrels, run = as_inputs(scores, labels, mask)
    for b, count in enumerate(extra.tolist()):
        if f"q{b}" in qrels:
            qrels[f"q{b}"].update({f"x{j}": 1 + j % 3 for j in range(count)})
    measures = ["AP", "AP@5", "AP(denom=min_k_R)@5", "R@5", "R(denom=min_k_R)@3", "P(denom=min_k_R)@4",
                "RR(empty=skip)", "HitRate(empty=one)@2", "nDCG(universe=retrieved)@5", "R(universe=retrieved)@5",
                "P@5"]  # fmt: skip
    per_query = rankwise.evaluate(qrels, run, measures, ties="input_order").per_query
    inside = ((labels >= 1) & mask).sum(dim=1)
    got = rt.evaluate(scores, labels, measures, mask, dtype=torch.float64, num_relevant=inside + extra)
    for key in measures:
        expected = np.array([per_query[f"q{b}"][key] if f"q{b}" in per_query else np.nan for b in range(50)])
        assert np.allclose(got[key].numpy(), expected, atol=1e-12, rtol=0, equal_nan=True), key
    with pytest.raises(MeasureError, match="judged universe's ideal"):
        rt.evaluate(scores, labels, "nDCG@5", mask, num_relevant=inside + extra)
    with pytest.raises(InputError, match="num_relevant of row 1"):
        rt.evaluate(scores, labels, "AP", mask, num_relevant=torch.zeros(50))
