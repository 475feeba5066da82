"""Recommender-library dialects that do not install here, pinned by hand-computed examples from their source.

One example for all of them. User u1 is shown A, B, C, D, F (scores descending); B, D and F are relevant
(grade 1), so R = 3 and the hits sit at ranks 2, 4 and 5. User u2 is shown Y, Z (2 items); its only relevant
item X is not shown. User u3 has judgments but nothing relevant.
"""

from __future__ import annotations

import math

import pytest

import rankwise

QRELS = {"u1": {"B": 1, "D": 1, "F": 1, "C": 0}, "u2": {"X": 1}, "u3": {"Q": 0}}
RUN = {
    "u1": {"A": 0.9, "B": 0.8, "C": 0.7, "D": 0.6, "F": 0.5},
    "u2": {"Y": 0.9, "Z": 0.8},
    "u3": {"Q": 0.5},
}
L2 = math.log2
LN = math.log


def per_user(dialect: str | None, measure: str) -> dict[str, float]:
    result = rankwise.evaluate(QRELS, RUN, [measure], dialect=dialect)
    return {qid: values[measure] for qid, values in result.per_query.items()}


def test_reference_trec_eval_values() -> None:
    assert per_user(None, "AP@4") == pytest.approx({"u1": (1 / 2 + 2 / 4) / 3, "u2": 0.0, "u3": 0.0})
    dcg4 = 1 / L2(3) + 1 / L2(5)
    assert per_user(None, "nDCG@4")["u1"] == pytest.approx(dcg4 / (1 + 1 / L2(3) + 1 / L2(4)))
    assert per_user(None, "RR@4")["u1"] == pytest.approx(0.5)


def test_rectools_ideal_is_k_hits() -> None:
    # IDCG@4 = Σ_{i=1..4} 1/log2(i+1), whatever R is.
    ideal = 1 + 1 / L2(3) + 1 / L2(4) + 1 / L2(5)
    values = per_user("rectools", "nDCG@4")
    assert values["u1"] == pytest.approx((1 / L2(3) + 1 / L2(5)) / ideal, abs=1e-12)
    assert values["u2"] == 0.0


def test_daisyrec_1() -> None:
    assert per_user("daisyrec@1", "AP@4")["u1"] == pytest.approx((1 / 2 + 2 / 4) / 4)  # ÷ k
    assert per_user("daisyrec@1", "RR@4")["u1"] == pytest.approx(1 / 2 + 1 / 4)  # every hit counts
    # lists are cut to k first (main.py:295-299), so the ideal is built from the hits in the top 4: B and D
    assert per_user("daisyrec@1", "nDCG@4")["u1"] == pytest.approx((1 / L2(3) + 1 / L2(5)) / (1 + 1 / L2(3)), abs=1e-12)
    assert per_user("daisyrec@1", "nDCG@4")["u2"] == 0.0  # nothing relevant shown


def test_daisyrec_2() -> None:
    # users with a relevant item only (u3 has none); P ÷ the list shown
    assert per_user("daisyrec@2", "P@4") == pytest.approx({"u1": 2 / 4, "u2": 0 / 2})
    assert per_user("daisyrec@2", "AP@4")["u1"] == pytest.approx((1 / 2 + 2 / 4) / 2)  # ÷ hits
    # ideal from the hits in the top 4 only (B, D): inflated
    assert per_user("daisyrec@2", "nDCG@4")["u1"] == pytest.approx((1 / L2(3) + 1 / L2(5)) / (1 + 1 / L2(3)))
    assert rankwise.get_dialect("daisyrec").key == "daisyrec@2.3"  # a bare name is the newest binding
    assert rankwise.get_dialect("daisyrec@2").key == "daisyrec@2.3"  # not the benchmark line's 2.0-benchmark
    # the DaisyRec-v2.0 benchmark line sums 1/rank over every hit in MRR; AmazingDD's 2.x takes the first
    assert per_user("daisyrec@2.0-benchmark", "RR@4")["u1"] == pytest.approx(1 / 2 + 1 / 4)
    assert per_user("daisyrec@2", "RR@4")["u1"] == pytest.approx(1 / 2)


def test_dl_rs_eval() -> None:
    # nDCG@2: gain 2^1 - 1 = 1, discount 1/ln(i+1), ideal over all 3 relevant items, not cut at 2.
    ideal = 1 / LN(2) + 1 / LN(3) + 1 / LN(4)
    assert per_user("dl_rs_eval", "nDCG@2")["u1"] == pytest.approx((1 / LN(3)) / ideal, abs=1e-12)
    assert per_user("dl_rs_eval", "HitRate@4") == {"u1": 2.0, "u2": 0.0}  # mean hits, not 0/1; u3: no test item
    assert per_user("dl_rs_eval", "AP@2")["u1"] == pytest.approx((1 / 2) / min(2, 3))


def test_openrec_versions() -> None:
    # tf2: unnormalised DCG over warm users (u3 has nothing relevant)
    assert per_user("openrec", "nDCG@4") == pytest.approx({"u1": 1 / L2(3) + 1 / L2(5), "u2": 0.0})
    assert rankwise.get_dialect("openrec").key == "openrec@tf2"
    # tf1: each positive ranked among the 2 non-positives shown (A, C): B, D, F sit at ranks 2, 3, 3
    assert per_user("openrec@tf1", "P@1")["u1"] == pytest.approx(1 / 1)  # rank <= 2 admitted at k = 1: B
    assert per_user("openrec@tf1", "R@2")["u1"] == pytest.approx(3 / 3)  # ranks <= 3
    ideal = 1 + 1 / L2(3) + 1 / L2(4)  # every positive, not cut at k
    assert per_user("openrec@tf1", "nDCG@2")["u1"] == pytest.approx((1 / L2(3)) / ideal)


def test_lenskit() -> None:
    values = per_user("lenskit", "P@4")
    assert values == pytest.approx({"u1": 2 / 4, "u2": 0 / 2, "u3": 0 / 1})  # ÷ list length
    # every user with a list counts; a user without test items scores 0 (list_summary fills NaN with 0)
    result = rankwise.evaluate({**QRELS, "u4": {"Z": 1}}, RUN, ["P@4", "R@4", "AP@4"], dialect="lenskit")
    assert result.query_ids == ("u1", "u2", "u3") and result.undefined == {"P@4": 0, "R@4": 0, "AP@4": 1}
    assert math.isnan(result.per_query["u3"]["AP@4"])  # LensKit's AP raises for a list without test items
    assert result.per_query["u1"]["R@4"] == pytest.approx(2 / min(3, 4))  # ÷ min(|test|, k)
    assert per_user("lenskit", "R@2")["u1"] == pytest.approx(1 / min(3, 2))
    assert per_user("lenskit", "AP@4")["u2"] == 0.0 and per_user("lenskit", "AP@4")["u1"] == pytest.approx(1 / 3)
    assert per_user("lenskit", "AP@2")["u1"] == pytest.approx((1 / 2) / min(3, 2))  # ÷ min(|test|, |L[:k]|)
    # discount 1/log2(max(i, 2)): B at rank 2 -> 1, D at rank 4 -> 1/2; ideal ranks 1..3 -> 1 + 1 + 1/log2 3
    assert per_user("lenskit", "nDCG@4")["u1"] == pytest.approx(1.5 / (2 + 1 / L2(3)), abs=1e-12)


def test_dialects_disagree_as_the_paper_says() -> None:
    comparison = rankwise.compare_dialects(QRELS, RUN, ["AP@4"])
    values = {row.dialect: row.values["AP@4"] for row in comparison.rows}
    # ÷ R (trec_eval) < ÷ k (daisyrec 1) ... the same run, three different MAP@4 values
    assert len({round(v, 12) for v in values.values()}) >= 3
    assert values["trec_eval@10"] == pytest.approx(((1 / 2 + 2 / 4) / 3 + 0 + 0) / 3)
    assert values["daisyrec@1"] == pytest.approx(((1 / 2 + 2 / 4) / 4) / 2)  # users with a relevant item: u1, u2


@pytest.mark.parametrize(("ranks", "expected"), [((1, 3, 6, 9, 10), 0.54), ((2, 5, 7), 0.30)])
@pytest.mark.parametrize("discount", ["log2", "ln"])
def test_ltr_reference_text_ndcg_with_an_ideal_of_k_perfect_positions(ranks, expected, discount) -> None:
    # The learning-to-rank reference text: IDCG@10 = Σ_{i=1..10} 1/ln(i+1) = 6.55 with a natural-log
    # discount; relevant at ranks {1,3,6,9,10} -> 0.54 and {2,5,7} -> 0.30 (the ratio ignores the log base).
    docs = [f"d{i}" for i in range(1, 11)]
    qrels = {"q": {f"d{r}": 1 for r in ranks}}
    run = {"q": {d: 10.0 - i for i, d in enumerate(docs)}}
    measure = f"nDCG(gain=binary,discount={discount},ideal=k_ones)@10"
    value = rankwise.evaluate(qrels, run, measure).aggregate[measure]
    assert round(value, 2) == expected
    ideal = sum(1 / LN(i + 1) for i in range(1, 11))
    assert round(ideal, 2) == 6.55
    if discount == "ln":
        assert value == pytest.approx(sum(1 / LN(r + 1) for r in ranks) / ideal, abs=1e-12)


def test_replay_versions() -> None:
    # MAP@4 for u1: precisions at hits 1/2 and 2/4 sum to 1. >= 0.13 and 0.4 divide by min(4, 3) = 3, 0.11-0.12 by 4.
    assert per_user("replay", "AP@4")["u1"] == pytest.approx(1 / 3)
    assert per_user("replay@0.12", "AP@4")["u1"] == pytest.approx(1 / 4)
    assert per_user("replay@0.4", "AP@4")["u1"] == pytest.approx(1 / 3)
    with pytest.raises(rankwise.RankwiseError, match=r"no binding for version 0\.1 \("):
        rankwise.get_dialect("replay@0.1")  # versions match by components: "0.1" is neither 0.11 nor 0.13
    assert rankwise.get_dialect("replay@0").key == "replay@0.13"


def test_replay_breaks_ties_by_numeric_item_id_descending() -> None:
    qrels = {"u": {"9": 1, "10": 0}}
    run = {"u": {"9": 1.0, "10": 1.0}}
    # as text "9" > "10", so trec_eval puts 9 first; as numbers 10 > 9, so RePlay puts 10 first
    assert rankwise.evaluate(qrels, run, "P@1").aggregate["P@1"] == 1.0
    assert rankwise.evaluate(qrels, run, "P@1", dialect="replay").aggregate["P@1"] == 0.0


def test_recbole_averages_users_with_a_positive_item() -> None:
    result = rankwise.evaluate(QRELS, RUN, ["AP@4"], dialect="recbole")
    assert set(result.query_ids) == {"u1", "u2"}  # u3 has nothing relevant: not a RecBole test user
    assert result.per_query["u1"]["AP@4"] == pytest.approx(1 / 3)  # ÷ min(k, r) = 3
    assert any("1 judged query has no relevant document and was not evaluated: u3" in note for note in result.notes())


def test_elliot() -> None:
    result = rankwise.evaluate(QRELS, RUN, ["AP@4", "AP@6", "P@4"], dialect="elliot")
    assert result.query_ids == ("u1", "u2")  # u3: nothing relevant; users without recommendations are skipped too
    # MAP = (1/k) Σ_{n≤k} P@n over every rank: P@1..4 = 0, 1/2, 1/3, 2/4
    assert result.per_query["u1"]["AP@4"] == pytest.approx((0 + 1 / 2 + 1 / 3 + 2 / 4) / 4)
    # past the 5-item list P@6 = H_5 / 6 = 3/6
    assert result.per_query["u1"]["AP@6"] == pytest.approx((0 + 1 / 2 + 1 / 3 + 2 / 4 + 3 / 5 + 3 / 6) / 6)
    assert result.per_query["u2"]["AP@4"] == 0.0
    no_recs = rankwise.evaluate({**QRELS, "u4": {"a": 1}}, RUN, ["P@4"], dialect="elliot")
    assert "u4" not in no_recs.query_ids and "missing from the run" in " ".join(no_recs.notes())
    # nDCG gain 2^(g − t + 1) − 1 with t = -l: ratings 5, 4, 3 at t = 4 gain 3, 1, 0
    graded = {"u": {"a": 5, "b": 4, "c": 3}}
    ranking = {"u": {"a": 3.0, "c": 2.0, "b": 1.0}}
    value = rankwise.evaluate(graded, ranking, "nDCG@3", dialect="elliot", rel_level=4).aggregate["nDCG@3"]
    assert value == pytest.approx((3 + 1 / L2(4)) / (3 + 1 / L2(3)), abs=1e-12)


def test_elliot_auc_family() -> None:
    # catalogue of 7 items, u1 trained on 2: Elliot's negatives = 7 − 2 − R + 1 = 3 with R = 3;
    # the hits at ranks 2, 4, 5 have 1, 2, 2 others above
    train = {"u1": ["T1", "T2"], "u2": ["T1"]}
    terms = [1 - 1 / 3, 1 - 2 / 3, 1 - 2 / 3]
    measures = ["AUC", "AUC@4", "AUC(mean=pooled)"]
    result = rankwise.evaluate(QRELS, RUN, measures, dialect="elliot", train=train, catalog=7)
    assert result.per_query["u1"]["AUC"] == pytest.approx(sum(terms) / 3)  # GAUC ÷ R
    assert result.per_query["u2"]["AUC"] == 0.0  # u2's relevant item is not in its list
    assert result.per_query["u1"]["AUC@4"] == pytest.approx(sum(terms[:2]) / min(4, 3))  # LAUC@4
    assert result.aggregate["AUC(mean=pooled)"] == pytest.approx(sum(terms) / 3)  # over every found relevant item
    # the catalogue defaults to the items seen in training (Elliot's num_items): here 2, too few for u1
    with pytest.raises(rankwise.InputError, match="leaves user 'u1' no candidate"):
        rankwise.evaluate(QRELS, RUN, "AUC", dialect="elliot", train=train)
    with pytest.raises(rankwise.MeasureError, match="give the training interactions"):
        rankwise.evaluate(QRELS, RUN, "AUC", dialect="elliot")


def test_neurec() -> None:
    # the C++ evaluator (NeuRec's default): Σ P@i at hits = 1/2 + 2/4 = 1, ÷ min(4, 3)
    assert per_user("neurec", "AP@4")["u1"] == pytest.approx(1 / 3)
    # the Python fallback: ÷ Σ_{i=1..4} min(i, 3) = 1 + 2 + 3 + 3 = 9
    assert per_user("neurec@2020.python", "AP@4")["u1"] == pytest.approx(1 / 9)
    assert per_user("neurec@2020.python", "AP@2")["u1"] == pytest.approx((1 / 2) / (1 + 2))
    assert rankwise.get_dialect("neurec@2020").key == "neurec@2020"  # the plain version, not .python
    # 1.0.0 (PyPI): MRR is 1 only when the first item is relevant; AP ÷ min(|L|, R); ideal over every test item
    assert per_user("neurec@1", "RR@4")["u1"] == 0.0
    assert per_user("neurec@1", "AP@4")["u1"] == pytest.approx(1 / min(4, 3))
    assert per_user("neurec@1", "nDCG@2")["u1"] == pytest.approx((1 / L2(3)) / (1 + 1 / L2(3) + 1 / L2(4)))


def test_recsys_pytorch() -> None:
    result = rankwise.evaluate(QRELS, RUN, ["nDCG@4", "R@4", "P@4"], dialect="recsys_pytorch")
    ndcg = (1 / L2(3) + 1 / L2(5)) / (1 + 1 / L2(3) + 1 / L2(4))  # binary, ideal over min(|T|, k) = 3
    assert result.per_query["u1"]["nDCG@4"] == pytest.approx(ndcg, abs=1e-12)
    assert result.per_query["u1"]["R@4"] == pytest.approx(2 / 3)
    assert math.isnan(result.per_query["u3"]["P@4"])  # no test items: the library crashes; left out, counted
    assert result.undefined == {"nDCG@4": 1, "R@4": 1, "P@4": 1}


def test_auc_flavours() -> None:
    # u1's full list A B C D F with B, D, F relevant: others above the hits 1, 2, 2 -> 5 of 6 pairs wrong
    assert per_user("replay", "AUC@5")["u1"] == pytest.approx(1 - 5 / 6)
    assert per_user("replay", "AUC@5")["u2"] == 0.0  # no hit in the top k: 0
    only_hits = rankwise.evaluate({"u": {"a": 1, "b": 1}}, {"u": {"a": 2.0, "b": 1.0, "c": 0.5}}, "AUC@2",
                                  dialect="replay")  # fmt: skip
    assert only_hits.aggregate["AUC@2"] == 1.0  # no negative in the top k: 1
    # the RePlay docstring example: [N, P, N, P, N] -> 1 − 3/6
    example = {"u": {d: 5.0 - i for i, d in enumerate("npqrs")}}
    assert rankwise.evaluate({"u": {"p": 1, "r": 1}}, example, "AUC@5", dialect="replay").aggregate["AUC@5"] == 0.5
    # DL-RS-Eval: within the list; no negatives -> 1 (checked first), no positives -> 0
    assert per_user("dl_rs_eval", "AUC") == pytest.approx({"u1": 1 / 6, "u2": 0.0})
    # RecBole GAUC: users without both classes dropped, the rest weighted by their positives
    recbole = rankwise.evaluate(QRELS, RUN, "AUC", dialect="recbole")
    assert recbole.aggregate["AUC"] == pytest.approx(1 / 6) and recbole.undefined["AUC"] == 1
    # scikit-learn per query: ties count one half; position-based flavours never tie
    tied = {"u": {"a": 1.0, "b": 1.0}}
    assert rankwise.evaluate({"u": {"a": 1}}, tied, "AUC").aggregate["AUC"] == 0.5
    assert rankwise.evaluate({"u": {"a": 1}}, tied, "AUC(compare=rank)").aggregate["AUC(compare=rank)"] == 0.0
