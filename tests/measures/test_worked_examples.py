"""Worked examples: small cases whose expected values are derived by hand in the comments.

No expected value here comes from rankwise itself. Runs are written with distinct descending scores unless a
test is about ties, so the ranking is the order in which the documents are listed.
"""

from __future__ import annotations

import math

import pytest

import rankwise


def ranked(*docs: str) -> dict[str, float]:
    """A run for one query ranking ``docs`` in the given order (distinct scores n, n-1, ..., 1)."""
    return {d: float(len(docs) - i) for i, d in enumerate(docs)}


def judged(relevant, nonrelevant=(), grade: int = 1) -> dict[str, int]:
    out = dict.fromkeys(relevant, grade)
    out.update(dict.fromkeys(nonrelevant, 0))
    return out


def approx(x: float) -> object:
    return pytest.approx(x, rel=1e-12, abs=1e-15)


# ------------------------------------------------------------------------------------------- reciprocal rank


def test_rr_at_5_first_relevant_at_rank_2():
    # ranking A B C L Y U F Z, relevant {C, K, B, Z}: within the top 5 (A B C L Y) the first relevant is B at
    # rank 2 -> RR@5 = 1/2.
    qrels = {"u1": judged("CKBZ")}
    run = {"u1": ranked(*"ABCLYUFZ")}
    result = rankwise.evaluate(qrels, run, ["RR@5"])
    assert result.aggregate["RR@5"] == approx(0.5)


def test_mrr_of_two_queries():
    # query 1 as above: RR@5 = 1/2. query 2 ranks N X Y B M, relevant {E, B}: first relevant B at rank 4 ->
    # 1/4. MRR = (1/2 + 1/4) / 2 = 0.375.
    qrels = {"u1": judged("CKBZ"), "u2": judged("EB")}
    run = {"u1": ranked(*"ABCLYUFZ"), "u2": ranked(*"NXYBM")}
    result = rankwise.evaluate(qrels, run, ["RR@5", "MRR@5"])
    assert result.per_query["u1"]["RR@5"] == approx(0.5)
    assert result.per_query["u2"]["RR@5"] == approx(0.25)
    assert result.aggregate["RR@5"] == approx(0.375)
    assert result.aggregate["MRR@5"] == approx(0.375)  # alias of RR


def test_mrr_three_users():
    # first relevant items at ranks 3, 2, 1 -> MRR = (1/3 + 1/2 + 1) / 3 = 11/18 = 0.6111...
    qrels = {"a": judged(["x"]), "b": judged(["x"]), "c": judged(["x"])}
    run = {"a": ranked("p", "q", "x"), "b": ranked("p", "x", "q"), "c": ranked("x", "p", "q")}
    result = rankwise.evaluate(qrels, run, ["RR"])
    assert result.aggregate["RR"] == approx(11 / 18)
    assert round(result.aggregate["RR"], 3) == 0.611


def test_rr_zero_when_first_relevant_is_beyond_the_cutoff():
    # relevant doc at rank 4: RR = 1/4, RR@3 = 0 (no relevant document in the top 3).
    result = rankwise.evaluate({"q": judged(["d"])}, {"q": ranked(*"abcd")}, ["RR", "RR@3"])
    assert result.aggregate["RR"] == approx(0.25)
    assert result.aggregate["RR@3"] == 0.0


# ------------------------------------------------------------------------------------------ average precision

# Query 1: ten documents, relevant at ranks {1, 3, 6, 9, 10}, R = 5.
#   P@1 = 1, P@3 = 2/3, P@6 = 3/6, P@9 = 4/9, P@10 = 5/10
#   AP@10 = (1 + 2/3 + 1/2 + 4/9 + 1/2) / 5 = (28/9) / 5 = 28/45 = 0.6222...
# Query 2: relevant at ranks {2, 5, 7}, R = 3.
#   P@2 = 1/2, P@5 = 2/5, P@7 = 3/7;  AP@10 = (1/2 + 2/5 + 3/7) / 3 = (93/70) / 3 = 31/70 = 0.442857...
# MAP@10 = (28/45 + 31/70) / 2 = (392/630 + 279/630) / 2 = 671/1260 = 0.53254...
AP1, AP2 = 28 / 45, 31 / 70


def _ap_case():
    docs = [f"d{i:02d}" for i in range(1, 11)]
    run = {"q1": ranked(*docs), "q2": ranked(*docs)}
    qrels = {
        "q1": judged([docs[i - 1] for i in (1, 3, 6, 9, 10)], [docs[i - 1] for i in (2, 4, 5, 7, 8)]),
        "q2": judged([docs[i - 1] for i in (2, 5, 7)], [docs[i - 1] for i in (1, 3)]),
    }
    return qrels, run


def test_ap_at_10_and_map():
    qrels, run = _ap_case()
    result = rankwise.evaluate(qrels, run, ["AP@10", "MAP@10", "map_cut_10", "map"])
    assert result.per_query["q1"]["AP@10"] == approx(AP1)
    assert result.per_query["q2"]["AP@10"] == approx(AP2)
    assert round(result.per_query["q1"]["AP@10"], 2) == 0.62
    assert round(result.per_query["q2"]["AP@10"], 2) == 0.44
    assert result.aggregate["AP@10"] == approx(671 / 1260)
    assert round(result.aggregate["MAP@10"], 2) == 0.53
    # the whole ranking is 10 documents, so uncut AP is the same
    assert result.aggregate["map"] == approx(671 / 1260)
    assert result.aggregate["map_cut_10"] == approx(671 / 1260)


def _denom_case():
    # ranking r1 n1 r2 r3 n2 n3 (6 documents), relevant {r1, r2, r3, r4}: R = 4, r4 not retrieved.
    # relevant ranks 1, 3, 4:  P@1 = 1, P@3 = 2/3, P@4 = 3/4.
    return {"q": judged(["r1", "r2", "r3", "r4"], ["n1"])}, {"q": ranked("r1", "n1", "r2", "r3", "n2", "n3")}


@pytest.mark.parametrize(
    ("measure", "expected"),
    [
        # k = 2: only rank 1 is a relevant rank in the top 2 -> sum = 1; H_2 = 1.
        ("AP@2", 1 / 4),  # / R = 4
        ("AP(denom=R)@2", 1 / 4),
        ("AP(denom=min_k_R)@2", 1 / 2),  # / min(2, 4) = 2
        ("AP(denom=k)@2", 1 / 2),  # / k = 2
        ("AP(denom=hits)@2", 1 / 1),  # / H_2 = 1
        # k = 6 (the whole ranking): sum = 1 + 2/3 + 3/4 = 29/12; H_6 = 3.
        ("AP@6", 29 / 48),  # / R = 4
        ("AP(denom=min_k_R)@6", 29 / 48),  # / min(6, 4) = 4
        ("AP(denom=k)@6", 29 / 72),  # / 6
        ("AP(denom=hits)@6", 29 / 36),  # / 3
        # k = 3: relevant ranks 1 and 3 -> sum = 1 + 2/3 = 5/3; H_3 = 2.
        ("AP(denom=min_k_R)@3", 5 / 9),  # / min(3, 4) = 3
        ("AP(denom=hits)@3", 5 / 6),  # / 2
        # k = 20, beyond the ranking: sum = 29/12 as for the whole ranking.
        ("AP(denom=k)@20", 29 / 240),  # / 20: k counts even though only 6 documents were retrieved
        ("AP(denom=min_k_R)@20", 29 / 48),  # / min(20, 4)
        # no cutoff: k is the whole ranking (|L| = 6)
        ("AP", 29 / 48),
        ("AP(denom=k)", 29 / 72),
        ("AP(denom=hits)", 29 / 36),
    ],
)
def test_ap_denominators(measure, expected):
    qrels, run = _denom_case()
    assert rankwise.evaluate(qrels, run, [measure]).aggregate[measure] == approx(expected)


def test_ap_hits_denominator_is_zero_without_hits():
    # no relevant document in the top 1 (n1 first): D = H_1 = 0 -> AP = 0, not NaN.
    result = rankwise.evaluate({"q": judged(["r"], ["n"])}, {"q": ranked("n", "r")}, ["AP(denom=hits)@1"])
    assert result.aggregate["AP(denom=hits)@1"] == 0.0


def test_gmap():
    # q1: relevant at rank 2 of 2, R = 1 -> AP = 1/2. q2: nothing relevant retrieved -> AP = 0, floored to 1e-5.
    # GMAP = exp((log 0.5 + log 1e-5) / 2) = sqrt(0.5e-5); per-query GMAP values are the APs.
    qrels = {"q1": judged(["b"], ["a"]), "q2": judged(["z"], ["a"])}
    run = {"q1": ranked("a", "b"), "q2": ranked("a", "b")}
    result = rankwise.evaluate(qrels, run, ["GMAP", "gm_map", "AP"])
    assert result.aggregate["GMAP"] == approx(math.sqrt(0.5e-5))
    assert result.aggregate["gm_map"] == approx(math.sqrt(0.5e-5))
    assert result.per_query["q1"]["GMAP"] == approx(0.5)
    assert result.per_query["q2"]["GMAP"] == 0.0
    assert result.aggregate["AP"] == approx(0.25)


# ------------------------------------------------------------------------------------------------ nDCG gains

# Ranking a b c d. Grades a:1, b:0, c:2, d:3, and e:2 judged but not retrieved.
# discounts 1/log2(i+1): rank 1 -> 1, rank 2 -> 1/log2(3), rank 3 -> 1/2, rank 4 -> 1/log2(5).
L3 = math.log2(3)
GRADED = {"q": {"a": 1, "b": 0, "c": 2, "d": 3, "e": 2}}
GRADED_RUN = {"q": ranked("a", "b", "c", "d")}


@pytest.mark.parametrize(
    ("measure", "expected"),
    [
        # linear: DCG@3 = 1 + 0 + 2/2 = 2; ideal (3, 2, 2, 1, 0): 3 + 2/log2(3) + 2/2
        ("DCG@3", 2.0),
        ("nDCG@3", 2.0 / (4 + 2 / L3)),
        # exp2: gains a 1, c 3, d 7, e 3. DCG@3 = 1 + 0 + 3/2 = 2.5; ideal (7, 3, 3, 1): 7 + 3/log2(3) + 3/2
        ("DCG(gain=exp2)@3", 2.5),
        ("nDCG(gain=exp2)@3", 2.5 / (8.5 + 3 / L3)),
        # binary: gains 1 for a, c, d, e. DCG@3 = 1 + 0 + 1/2; ideal 1 + 1/log2(3) + 1/2
        ("DCG(gain=binary)@3", 1.5),
        ("nDCG(gain=binary)@3", 1.5 / (1.5 + 1 / L3)),
        # rel=2: only grades >= 2 gain. DCG@3 = 0 + 0 + 2/2 = 1; ideal (d 3, c 2, e 2) = 3 + 2/log2(3) + 1
        ("nDCG(rel=2)@3", 1.0 / (4 + 2 / L3)),
        # uncut linear: DCG = 1 + 0 + 1 + 3/log2(5); ideal over all 4 positive judged docs (3, 2, 2, 1)
        ("nDCG", (2 + 3 / math.log2(5)) / (4 + 2 / L3 + 1 / math.log2(5))),
        # @1: DCG 1 (a); ideal 3 (d)
        ("nDCG@1", 1 / 3),
    ],
)
def test_gain_variants(measure, expected):
    assert rankwise.evaluate(GRADED, GRADED_RUN, [measure]).aggregate[measure] == approx(expected)


def test_ndcg_ignores_rel_level_like_trec_eval():
    # rel_level=2 changes what P/AP call relevant, not nDCG's gains: same value as the linear case above.
    result = rankwise.evaluate(GRADED, GRADED_RUN, ["nDCG@3", "P@3"], rel_level=2)
    assert result.aggregate["nDCG@3"] == approx(2.0 / (4 + 2 / L3))
    assert result.aggregate["P@3"] == approx(1 / 3)  # only c (grade 2) of a b c is relevant at level 2


def test_gain_map():
    # Grades a:1, b:0, c:2, e:2 (e not retrieved; d retrieved but unjudged). gain={1:1,2:3}.
    # DCG@3 = 1 (a) + 0 (b) + 3/2 (c) = 2.5; ideal gains (3, 3, 1): 3 + 3/log2(3) + 1/2.
    qrels = {"q": {"a": 1, "b": 0, "c": 2, "e": 2}}
    measure = "nDCG(gain={1:1,2:3})@3"
    result = rankwise.evaluate(qrels, GRADED_RUN, [measure, "DCG(gain={1:1,2:3})@3"])
    assert result.aggregate[measure] == approx(2.5 / (3.5 + 3 / L3))
    assert result.aggregate["DCG(gain={1:1,2:3})@3"] == approx(2.5)


def test_gain_map_entry_below_rel_gains_nothing():
    # gain={0:5,1:1}, rel 1 (default): grade 0 is below rel so gains 0 (catalog: 'documents below rel gain 0').
    # Ranking a (grade 0), b (grade 1): DCG@2 = 0 + 1/log2(3); ideal = 1 -> nDCG@2 = 1/log2(3).
    qrels = {"q": {"a": 0, "b": 1}}
    run = {"q": ranked("a", "b")}
    result = rankwise.evaluate(qrels, run, ["DCG(gain={0:5,1:1})@2"])
    assert result.aggregate["DCG(gain={0:5,1:1})@2"] == approx(1 / L3)


# --------------------------------------------------------------------------------- bpref, Rprec, F1, HitRate

# Ranking n1 r1 u1 n2 r2 r3 x (u1 unjudged, x grade -1). Relevant r1 r2 r3 r4 (R = 4, r4 not retrieved);
# judged non-relevant n1 n2 n3 (N = 3, n3 not retrieved).
BP_QRELS = {"q": {**judged(["r1", "r2", "r3", "r4"], ["n1", "n2", "n3"]), "x": -1}}
BP_RUN = {"q": ranked("n1", "r1", "u1", "n2", "r2", "r3", "x")}


def test_bpref():
    # min(N, R) = 3. Judged non-relevant above each retrieved relevant doc: r1: 1 (n1); r2: 2; r3: 2.
    # bpref = (1/4) * [(1 - 1/3) + (1 - 2/3) + (1 - 2/3)] = (1/4) * (4/3) = 1/3.
    # u1 (unjudged) and x (grade -1) count neither way.
    assert rankwise.evaluate(BP_QRELS, BP_RUN, ["bpref"]).aggregate["bpref"] == approx(1 / 3)


def test_bpref_negative_grade_above_relevant_is_skipped():
    # x (grade -1) moved to rank 1: still no effect -> 1/3.
    run = {"q": ranked("x", "n1", "r1", "u1", "n2", "r2", "r3")}
    assert rankwise.evaluate(BP_QRELS, run, ["bpref"]).aggregate["bpref"] == approx(1 / 3)


def test_bpref_without_judged_nonrelevant():
    # N = 0: every retrieved relevant doc has no judged non-relevant doc above it -> term 1.
    # R = 2, one retrieved -> bpref = 1/2.
    result = rankwise.evaluate({"q": judged(["a", "b"])}, {"q": ranked("u", "a")}, ["bpref"])
    assert result.aggregate["bpref"] == approx(0.5)


def test_rprec():
    # R = 4: top 4 = n1 r1 u1 n2 contains one relevant -> Rprec = 1/4.
    assert rankwise.evaluate(BP_QRELS, BP_RUN, ["Rprec"]).aggregate["Rprec"] == approx(0.25)


def test_f1():
    # @5: top 5 = n1 r1 u1 n2 r2 -> H = 2; P = 2/5, R = 2/4; F1 = 2 * 0.4 * 0.5 / 0.9 = 4/9.
    # uncut: H = 3 of |L| = 7 retrieved; P = 3/7, R = 3/4; F1 = 2 * (9/28) / (33/28) = 18/33 = 6/11.
    # @1: H = 0 -> P = R = 0 -> F1 = 0.
    result = rankwise.evaluate(BP_QRELS, BP_RUN, ["F1@5", "F1", "F1@1"])
    assert result.aggregate["F1@5"] == approx(4 / 9)
    assert result.aggregate["F1"] == approx(6 / 11)
    assert result.aggregate["F1@1"] == 0.0


def test_hit_rate_precision_recall():
    # first relevant at rank 2: HitRate@1 = 0, HitRate@2 = 1. P@2 = 1/2, P@10 = 3/10 (k counts beyond |L|=7).
    # R@5 = 2/4, R@10 = 3/4. NumRet 7, NumRel 4, NumRelRet 3.
    ms = ["HitRate@1", "HitRate@2", "Success@2", "success_1", "P@2", "P@10", "R@5", "R@10",
          "NumRet", "NumRel", "NumRelRet", "NumQ"]  # fmt: skip
    agg = rankwise.evaluate(BP_QRELS, BP_RUN, ms).aggregate
    assert [agg[m] for m in ms] == [0.0, 1.0, 1.0, 0.0, 0.5, 0.3, 0.5, 0.75, 7.0, 4.0, 3.0, 1.0]


def test_iprec_rounding_nearest_and_v9():
    # relevant at ranks 1 and 4 of 5, R = 4 (two relevant not retrieved). P@1 = 1, P@4 = 2/4.
    # IPrec@x takes the c-th relevant document; after it precision is max(P at later relevant ranks).
    #   x = 0.3: x*R = 1.2 -> nearest c = 1 -> max(1, 0.5) = 1;  v9 c = floor(1.2 + 0.9) = 2 -> 0.5
    #   x = 0.6: x*R = 2.4 -> nearest c = 2 -> 0.5;               v9 c = floor(3.3) = 3 -> only 2 retrieved -> 0
    #   x = 0.625: 2.5 -> nearest (halves up) c = 3 -> 0;          v9 floor(3.4) = 3 -> 0
    #   x = 0: c = max(1, 0) = 1 -> 1 for both
    qrels = {"q": judged(["a", "d", "y", "z"], ["b", "c"])}
    run = {"q": ranked("a", "b", "c", "d", "e")}
    ms = ["IPrec@0.3", "IPrec(round=v9)@0.3", "IPrec@0.6", "IPrec(round=v9)@0.6", "IPrec@0.625",
          "IPrec(round=v9)@0.625", "IPrec@0", "IPrec(round=v9)@0", "iprec_at_recall_0.30"]  # fmt: skip
    agg = rankwise.evaluate(qrels, run, ms).aggregate
    assert [agg[m] for m in ms] == [1.0, 0.5, 0.5, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]


def test_kendall_tau_small():
    # retrieved judged docs (score, grade): a (3, 2), b (2, 0), c (1, 1); u unjudged is left out.
    # pairs: a-b concordant, a-c concordant, b-c discordant; no ties -> tau = (2 - 1) / 3.
    qrels = {"q": {"a": 2, "b": 0, "c": 1}}
    run = {"q": {"a": 3.0, "u": 2.5, "b": 2.0, "c": 1.0}}
    assert rankwise.evaluate(qrels, run, ["KendallTau"]).aggregate["KendallTau"] == approx(1 / 3)


# ------------------------------------------------------------------------------------------------- MeanRank


def test_mean_rank_with_undefined_query():
    # q1: first relevant at rank 2 -> 2. q2: first relevant at rank 3 -> 3. q3: no relevant retrieved -> NaN,
    # left out of the mean: MeanRank = (2 + 3) / 2 = 2.5, and reported.
    qrels = {"q1": judged(["b"]), "q2": judged(["c"]), "q3": judged(["zz"])}
    run = {"q1": ranked("a", "b", "c"), "q2": ranked("a", "b", "c"), "q3": ranked("a", "b", "c")}
    result = rankwise.evaluate(qrels, run, ["MeanRank", "MeanRank@2"])
    assert result.per_query["q1"]["MeanRank"] == 2.0
    assert result.per_query["q2"]["MeanRank"] == 3.0
    assert math.isnan(result.per_query["q3"]["MeanRank"])
    assert result.aggregate["MeanRank"] == approx(2.5)
    assert result.undefined["MeanRank"] == 1
    # @2: q2's first relevant (rank 3) is beyond the cutoff -> NaN as well; only q1 remains.
    assert math.isnan(result.per_query["q2"]["MeanRank@2"])
    assert result.aggregate["MeanRank@2"] == 2.0
    assert result.undefined["MeanRank@2"] == 2
    notes = result.notes()
    assert "MeanRank: undefined for 1 of 3 queries, left out of its mean" in notes
    assert "MeanRank@2: undefined for 2 of 3 queries, left out of its mean" in notes


def test_mean_rank_all_undefined_is_nan():
    result = rankwise.evaluate({"q": judged(["z"])}, {"q": ranked("a")}, ["MeanRank"])
    assert math.isnan(result.aggregate["MeanRank"])
    assert result.undefined["MeanRank"] == 1


# ----------------------------------------------------------------------------------------------- tie policies

# One query, every score equal; run rows in the order b, a, c; only a is relevant.
#   docno_desc: c b a -> P@1 = 0, RR = 1/3
#   docno_asc:  a b c -> P@1 = 1, RR = 1
#   input_order: b a c -> P@1 = 0, RR = 1/2
TIE_RUN = {"q": {"b": 1.0, "a": 1.0, "c": 1.0}}
TIE_QRELS = {"q": judged(["a"], ["b", "c"])}


@pytest.mark.parametrize(
    ("ties", "p1", "rr"), [("docno_desc", 0.0, 1 / 3), ("docno_asc", 1.0, 1.0), ("input_order", 0.0, 0.5)]
)
def test_tie_policies(ties, p1, rr):
    result = rankwise.evaluate(TIE_QRELS, TIE_RUN, ["P@1", "RR"], ties=ties)
    assert result.aggregate["P@1"] == p1
    assert result.aggregate["RR"] == approx(rr)


def test_default_tie_policy_is_docno_desc():
    assert rankwise.evaluate(TIE_QRELS, TIE_RUN, ["RR"]).aggregate["RR"] == approx(1 / 3)


def test_ties_only_reorder_equal_scores_and_use_byte_order():
    # scores: top 2.0 > the rest 1.0 (tied). Byte order of the tied ids: "D1" < "d10" < "d9".
    #   docno_asc:  top D1 d10 d9  -> relevant d9 at rank 4 -> RR = 1/4
    #   docno_desc: top d9 d10 D1  -> d9 at rank 2 -> RR = 1/2
    #   input_order (d10, d9, D1 as listed after top): top d10 d9 D1 -> rank 3 -> RR = 1/3
    run = {"q": {"d10": 1.0, "top": 2.0, "d9": 1.0, "D1": 1.0}}
    qrels = {"q": judged(["d9"], ["top"])}
    got = {t: rankwise.evaluate(qrels, run, ["RR"], ties=t).aggregate["RR"] for t in
           ("docno_asc", "docno_desc", "input_order")}  # fmt: skip
    assert got == {"docno_asc": approx(0.25), "docno_desc": approx(0.5), "input_order": approx(1 / 3)}


def test_input_order_follows_dataframe_rows():
    pl = pytest.importorskip("polars")
    # same tied run as TIE_RUN but rows in the order c, a, b: input_order ranks c a b -> RR = 1/2, P@1 = 0.
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["c", "a", "b"], "score": [1.0, 1.0, 1.0]})
    result = rankwise.evaluate(TIE_QRELS, run, ["RR", "P@1"], ties="input_order")
    assert result.aggregate["RR"] == approx(0.5)
    assert result.aggregate["P@1"] == 0.0


# ---------------------------------------------------------------------------------------------- query policy

# qrels: q1 (a:1, b:0), q2 (c:1, d:1), q3 (e:1). run: q1 (a, b), q2 (c, d), q4 (f).
#   P@2: q1 = 1/2, q2 = 2/2 = 1, q3 (not retrieved) = 0, q4 (no judgments) = 0.
#   intersection: {q1, q2} -> P@2 = 0.75, NumQ 2, NumRel 1 + 2 = 3, NumRet 4
#   qrels:        {q1, q2, q3} -> P@2 = 1.5 / 3 = 0.5, NumQ 3, NumRel 3 + 1 = 4, NumRet 4
#   run:          {q1, q2, q4} -> P@2 = 0.5, NumQ 3, NumRel 3, NumRet 5
QP_QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 1}, "q3": {"e": 1}}
QP_RUN = {"q1": ranked("a", "b"), "q2": ranked("c", "d"), "q4": ranked("f")}


@pytest.mark.parametrize(
    ("queries", "ids", "p2", "numq", "numrel", "numret"),
    [
        ("intersection", ("q1", "q2"), 0.75, 2, 3, 4),
        ("qrels", ("q1", "q2", "q3"), 0.5, 3, 4, 4),
        ("run", ("q1", "q2", "q4"), 0.5, 3, 3, 5),
    ],
)
def test_query_policies(queries, ids, p2, numq, numrel, numret):
    result = rankwise.evaluate(QP_QRELS, QP_RUN, ["P@2", "NumQ", "NumRel", "NumRet", "nDCG", "AP"],
                               queries=queries)  # fmt: skip
    assert result.query_ids == ids
    agg = result.aggregate
    assert (agg["P@2"], agg["NumQ"], agg["NumRel"], agg["NumRet"]) == (approx(p2), numq, numrel, numret)
    assert result.per_query["q1"]["P@2"] == 0.5
    for missing in {"q3", "q4"} & set(ids):
        # a judged query missing from the run, or a run query without judgments, scores 0 everywhere
        assert result.per_query[missing]["P@2"] == 0.0
        assert result.per_query[missing]["nDCG"] == 0.0
        assert result.per_query[missing]["AP"] == 0.0


def test_query_policy_accounting_and_notes():
    inter = rankwise.evaluate(QP_QRELS, QP_RUN, ["P@2"])
    assert inter.accounting.run_only == ("q4",)
    assert inter.accounting.qrels_only == ("q3",)
    assert inter.accounting.evaluated == 2
    notes = " | ".join(inter.notes())
    assert "1 run query has no judgments and was not evaluated: q4" in notes
    assert "1 judged query is missing from the run and was not evaluated" in notes
    qrels_policy = rankwise.evaluate(QP_QRELS, QP_RUN, ["P@2"], queries="qrels")
    assert qrels_policy.accounting.scored_empty == ("q3",)
    assert qrels_policy.accounting.qrels_only == ()
    assert any("was scored as an empty ranking: q3" in n for n in qrels_policy.notes())
    run_policy = rankwise.evaluate(QP_QRELS, QP_RUN, ["P@2"], queries="run")
    assert run_policy.accounting.unjudged_evaluated == ("q4",)
    assert any("was scored with no relevant documents: q4" in n for n in run_policy.notes())


def test_no_common_query_is_an_error():
    with pytest.raises(rankwise.InputError, match="no query in common"):
        rankwise.evaluate({"q1": {"a": 1}}, {"q2": {"a": 1.0}}, ["P@1"])


# ------------------------------------------------------------------------------------------------ depth cut


def test_depth_cut():
    # ranking a b c d e, relevant c and e (R = 2).
    # full: AP = (1/3 + 2/5) / 2 = 11/30; NumRet 5, NumRelRet 2.
    # depth 3 (a b c): AP = (1/3) / 2 = 1/6; NumRet 3; NumRelRet 1; 2 rows cut and reported.
    qrels = {"q": judged(["c", "e"], ["a"])}
    run = {"q": ranked(*"abcde")}
    ms = ["AP", "NumRet", "NumRelRet", "P@5"]
    full = rankwise.evaluate(qrels, run, ms)
    cut = rankwise.evaluate(qrels, run, ms, depth=3)
    assert full.aggregate["AP"] == approx(11 / 30)
    assert (full.aggregate["NumRet"], full.aggregate["NumRelRet"], full.aggregate["P@5"]) == (5, 2, 0.4)
    assert cut.aggregate["AP"] == approx(1 / 6)
    assert (cut.aggregate["NumRet"], cut.aggregate["NumRelRet"], cut.aggregate["P@5"]) == (3, 1, 0.2)
    assert cut.accounting.truncated_rows == 2
    assert "2 ranked documents beyond depth 3 were ignored" in cut.notes()
    assert full.accounting.truncated_rows == 0


@pytest.mark.parametrize(("ties", "kept_relevant"), [("docno_desc", 0), ("docno_asc", 1)])
def test_depth_applies_after_tie_order(ties, kept_relevant):
    # a b c all tied, a relevant; depth 1 keeps c under docno_desc, a under docno_asc.
    qrels = {"q": judged(["a"], ["b", "c"])}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    result = rankwise.evaluate(qrels, run, ["NumRelRet", "NumRet"], depth=1, ties=ties)
    assert result.aggregate["NumRelRet"] == kept_relevant
    assert result.aggregate["NumRet"] == 1


def test_rel_level():
    # grades a:1, b:2, c:0; ranking a b c. rel_level 1: R = 2, AP = (1 + 1)/2 = 1.
    # rel_level 2: R = 1 (b only), b at rank 2 -> AP = (1/2)/1 = 1/2, P@1 = 0.
    qrels = {"q": {"a": 1, "b": 2, "c": 0}}
    run = {"q": ranked("a", "b", "c")}
    one = rankwise.evaluate(qrels, run, ["AP", "P@1", "NumRel"], rel_level=1).aggregate
    two = rankwise.evaluate(qrels, run, ["AP", "P@1", "NumRel", "P(rel=1)@1"], rel_level=2).aggregate
    assert (one["AP"], one["P@1"], one["NumRel"]) == (1.0, 1.0, 2.0)
    assert (two["AP"], two["P@1"], two["NumRel"], two["P(rel=1)@1"]) == (0.5, 0.0, 1.0, 1.0)


def test_result_shapes():
    # values is measures x queries; to_polars is long: one row per (measure, query).
    result = rankwise.evaluate(QP_QRELS, QP_RUN, ["P@2", "NumRet"])
    assert result.keys == ("P@2", "NumRet")
    assert result.values.tolist() == [[0.5, 1.0], [2.0, 2.0]]
    frame = result.to_polars()
    assert frame.columns == ["query_id", "measure", "value"]
    rows = sorted(frame.rows())
    assert rows == [("q1", "NumRet", 2.0), ("q1", "P@2", 0.5), ("q2", "NumRet", 2.0), ("q2", "P@2", 1.0)]
    pytest.importorskip("pandas")
    assert sorted(map(tuple, result.to_pandas().itertuples(index=False))) == rows
