"""The intent-aware measures (ndeval's): α-DCG, α-nDCG, ERR-IA, nERR-IA, NRBP, nNRBP, AP-IA, P-IA, StRecall.

Proven three ways: against ndeval's own C code through pyndeval, per query, on random judgments and runs with
ties (the ``ndeval`` dialect) and against ir_measures' ndeval provider; by hand from the papers' definitions
(Clarke et al. 2008, Chapelle et al. 2011); and by identities with measures checked elsewhere (per-subtopic ERR,
P, AP, HitRate). Plus the reader of subtopic judgments, the refusals, the notes and the command line.
"""

from __future__ import annotations

import gzip
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from conftest import close, run_cli
from rankwise import InputError, MeasureError
from rankwise.cli.explain import explain
from rankwise.io.subtopics import load_subtopic_qrels
from rankwise.pipeline import partitioned

FAMILIES = ("alpha-DCG", "alpha-nDCG", "ERR-IA", "nERR-IA", "P-IA", "StRecall")
UNCUT = ("NRBP", "nNRBP", "AP-IA")
NDEVAL_NAME = {"AP-IA": "MAP-IA", "StRecall": "strec"}
CUTOFFS = (1, 2, 3, 5, 10, 20)
NO_PYNDEVAL = "pyndeval (ndeval's C code, the reference) is not installed: pip install pyndeval, or '.[test]' here"
DOCS = [f"d{i}" for i in range(30)] + ["D7", "a", "zz", "d01"]  # d10 < d2 < d01 in byte order: ties must follow it


def random_case(seed: int) -> tuple[dict, dict]:
    """Subtopic judgments {q: {s: {doc: grade}}} (grades 0-3, some documents judged for no subtopic, some queries
    with no relevant subtopic) and a run {q: {doc: score}} with many tied scores and unjudged documents; a few judged
    queries are missing from the run."""
    rng = np.random.default_rng(seed)
    judgments: dict = {}
    run: dict = {}
    for q in range(1, int(rng.integers(2, 9))):
        pool = rng.choice(DOCS, size=int(rng.integers(1, 25)), replace=False)
        subtopics = {str(s): {str(d): int(rng.choice([0, 0, 1, 1, 2, 3])) for d in pool if rng.random() < 0.8}
                     for s in range(1, int(rng.integers(1, 6)) + 1)}  # fmt: skip
        subtopics = {s: docs for s, docs in subtopics.items() if docs}
        if subtopics:
            judgments[str(q)] = subtopics
        if q == 1 or rng.random() < 0.9:
            ranked = rng.choice(DOCS, size=int(rng.integers(1, 30)), replace=False)
            run[str(q)] = {str(d): float(rng.integers(0, 6)) for d in ranked}
    return judgments or {"1": {"1": {"d0": 1}}}, run


def measure_names(alpha: float, beta: float, rel: int) -> list[tuple[str, str]]:
    """(rankwise name, ndeval name) of every measure at every cutoff, with the parameters written out."""
    out = []
    for family in (*FAMILIES, *UNCUT):
        params = [f"rel={rel}"]
        if family not in ("P-IA", "StRecall", "AP-IA"):
            params.append(f"alpha={alpha}")
        if "NRBP" in family:
            params.append(f"beta={beta}")
        ours = f"{family}({','.join(params)})"
        theirs = NDEVAL_NAME.get(family, family)
        out += [(ours, theirs)] if family in UNCUT else [(f"{ours}@{k}", f"{theirs}@{k}") for k in CUTOFFS]
    return out


def flat(judgments: dict, run: dict) -> tuple[list, list]:
    qrels = [
        (q, s, d, g) for q, subtopics in judgments.items() for s, docs in subtopics.items() for d, g in docs.items()
    ]
    scored = [(q, d, score) for q, docs in run.items() for d, score in docs.items()]
    return qrels, scored


# ------------------------------------------------------------------------------------------ against ndeval
SETTINGS = ((0.5, 0.5, 1), (0.3, 0.8, 1), (0.5, 0.5, 2), (0.9, 0.2, 1), (1.0, 1.0, 1))


@pytest.mark.parametrize("seed", range(40))
def test_the_ndeval_dialect_equals_pyndeval_per_query(seed: int) -> None:
    pyndeval = pytest.importorskip("pyndeval", reason=NO_PYNDEVAL)
    judgments, run = random_case(seed)
    qrels, scored = flat(judgments, run)
    for alpha, beta, rel in SETTINGS:
        names = measure_names(alpha, beta, rel)
        theirs = pyndeval.RelevanceEvaluator(qrels, [n for _, n in names], relevance_level=rel, alpha=alpha,
                                             beta=beta).evaluate(scored)  # fmt: skip
        ours = rankwise.evaluate(None, run, [n for n, _ in names], subtopics=judgments, dialect="ndeval")
        assert set(ours.per_query) == set(theirs)  # the queries judged and ranked, as ndeval evaluates them
        for qid, values in theirs.items():
            for mine, reference in names:
                assert close(ours.per_query[qid][mine], values[reference], rel_tol=1e-12), (qid, mine)


@pytest.mark.parametrize("seed", range(6))
def test_ir_measures_ndeval_provider_agrees(seed: int) -> None:
    pytest.importorskip("pyndeval", reason=NO_PYNDEVAL)  # ir_measures' ndeval provider runs pyndeval
    import ir_measures
    from ir_measures import AP_IA, ERR_IA, NRBP, P_IA, StRecall, alpha_DCG, alpha_nDCG, nERR_IA, nNRBP

    judgments, run = random_case(100 + seed)
    qrels = [ir_measures.Qrel(q, d, g, s) for q, s, d, g in flat(judgments, run)[0]]
    scored = [ir_measures.ScoredDoc(q, d, score) for q, d, score in flat(judgments, run)[1]]
    # default α, β and rel only: measures that need two pyndeval invocations (another α, β or rel) come back 0 in
    # ir_measures 0.4.3, whose run iterator is used up by the first invocation
    theirs = [alpha_DCG @ 5, alpha_nDCG @ 10, ERR_IA @ 5, nERR_IA @ 20, NRBP, nNRBP, AP_IA, P_IA @ 10, StRecall @ 3]
    ours = ["alpha-DCG@5", "alpha-nDCG@10", "ERR-IA@5", "nERR-IA@20", "NRBP", "nNRBP", "MAP-IA", "P-IA@10", "strec@3"]
    result = rankwise.evaluate(None, run, ours, subtopics=judgments, dialect="ndeval")
    checked = 0
    for metric in ir_measures.iter_calc(theirs, qrels, scored):
        if metric.query_id in result.per_query:  # ir_measures also scores judged queries missing from the run
            key = ours[theirs.index(metric.measure)]
            assert close(result.per_query[metric.query_id][key], metric.value, rel_tol=1e-12), (metric, key)
            checked += 1
    assert checked == len(result.per_query) * len(ours)


def test_ndeval_breaks_ties_in_the_ideal_ranking_toward_the_larger_docno() -> None:
    # A = {1, 2}, B = {3, 4}, E = {1, 3}: all gain 2 at rank 1. ndeval takes E (the largest docno), after which A and B
    # each gain 1 + 0.5 = 1.5: ideal gains 2, 1.5. (Taking A first would give 2, 2.) The run A, B gains 2, 2, so its
    # α-nDCG@2 exceeds 1: the greedy ideal is not the best ranking.
    judgments = {"1": {"1": {"A": 1, "E": 1}, "2": {"A": 1}, "3": {"B": 1, "E": 1}, "4": {"B": 1}}}
    run = {"1": {"A": 3.0, "B": 2.0, "E": 1.0}}
    result = rankwise.evaluate(None, run, ["alpha-nDCG@2"], subtopics=judgments)
    expected = (2 + 2 / math.log2(3)) / (2 + 1.5 / math.log2(3))
    assert result.per_query["1"]["alpha-nDCG@2"] == pytest.approx(expected, rel=1e-15) and expected > 1
    pyndeval = pytest.importorskip("pyndeval", reason=NO_PYNDEVAL)
    qrels, scored = flat(judgments, run)
    assert pyndeval.ndeval(qrels, scored, ["alpha-nDCG@2"])["1"]["alpha-nDCG@2"] == pytest.approx(expected, rel=1e-15)


# ------------------------------------------------------------------------------------------ by hand, from the papers
def test_alpha_ndcg_by_hand_clarke_2008() -> None:
    # Subtopics s1-s3; judged: a {s1, s2}, b {s1}, c {s3}, d {s2, s3}, e judged for none; run x (unjudged), a, b, c.
    # α = 0.5, G_i = Σ_s J(d_i, s)·0.5^(documents above relevant to s) (Clarke et al. 2008, Section 4):
    #   x: 0; a: 1 + 1 = 2; b: s1 seen once, 0.5; c: 1.
    # Ideal (greedy): a and d gain 2, d wins (larger doc id); then a: 1 + 0.5 = 1.5; then b 0.5 and c 0.5, c wins;
    # then b 0.5. α-DCG normaliser ("ideal ideal"): S·0.5^(i−1) at rank i, S = 3.
    judgments = {"q": {"s1": {"a": 1, "b": 1, "e": 0}, "s2": {"a": 2, "d": 1}, "s3": {"c": 1, "d": 3}}}
    run = {"q": {"x": 5.0, "a": 4.0, "b": 3.0, "c": 2.0}}
    log2 = math.log2
    run_dcg = 0 + 2 / log2(3) + 0.5 / log2(4) + 1 / log2(5)
    ideal_dcg = 2 + 1.5 / log2(3) + 0.5 / log2(4) + 0.5 / log2(5)
    ideal_ideal = 3 + 1.5 / log2(3) + 0.75 / log2(4) + 0.375 / log2(5)
    result = rankwise.evaluate(None, run, ["alpha-nDCG@4", "alpha-DCG@4", "alpha-nDCG@1", "NRBP", "nNRBP",
                                           "StRecall@2", "P-IA@4", "AP-IA"], subtopics=judgments)  # fmt: skip
    values = result.per_query["q"]
    assert values["alpha-nDCG@4"] == pytest.approx(run_dcg / ideal_dcg, rel=1e-14)
    assert values["alpha-DCG@4"] == pytest.approx(run_dcg / ideal_ideal, rel=1e-14)
    assert values["alpha-nDCG@1"] == 0.0  # x is relevant to nothing
    # NRBP = (1 − (1 − α)β)/S · Σ G_i β^(i−1), α = β = 0.5: (0.75 / 3) · (0 + 2·0.5 + 0.5·0.25 + 1·0.125)
    nrbp = 0.75 / 3 * (2 * 0.5 + 0.5 * 0.25 + 1 * 0.125)
    ideal_nrbp = 0.75 / 3 * (2 + 1.5 * 0.5 + 0.5 * 0.25 + 0.5 * 0.125)
    assert values["NRBP"] == pytest.approx(nrbp, rel=1e-14)
    assert values["nNRBP"] == pytest.approx(nrbp / ideal_nrbp, rel=1e-14)
    assert values["StRecall@2"] == pytest.approx(2 / 3)  # a covers s1 and s2
    assert values["P-IA@4"] == pytest.approx((2 + 1 + 1) / (4 * 3))  # relevant (doc, subtopic) pairs / (k·S)
    # AP per subtopic: s1 (R=2): a at 2, b at 3 -> (1/2 + 2/3)/2; s2 (R=2): a at 2 -> (1/2)/2;
    # s3 (R=2): c at 4 -> (1/4)/2
    assert values["AP-IA"] == pytest.approx(((1 / 2 + 2 / 3) / 2 + (1 / 2) / 2 + (1 / 4) / 2) / 3)


def test_err_ia_by_hand_chapelle_2011() -> None:
    # Two intents, P(s|q) = 1/2; binary grades with g_max = 1 stop the user with R = (2^1 − 1)/2^1 = 1/2 = α.
    # Ranking a {s1}, b {s1, s2}, c {s2}:
    #   ERR_s1 = (1/1)·½ + (1/2)·½·½ = 0.625;  ERR_s2 = (1/2)·½ + (1/3)·½·½ = 1/3;  ERR-IA = ½(0.625 + 1/3).
    # ndeval divides by the same quantity for a ranking relevant to every intent: α Σ_{i≤3} (1 − α)^(i−1)/i.
    judgments = {"q": {"1": {"a": 1, "b": 1}, "2": {"b": 1, "c": 1}}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    chapelle = 0.5 * (0.625 + 1 / 3)
    result = rankwise.evaluate(None, run, ["ERR-IA@3", "nERR-IA@3"], subtopics=judgments)
    assert result.per_query["q"]["ERR-IA@3"] == pytest.approx(chapelle / (0.5 * (1 + 0.5 / 2 + 0.25 / 3)), rel=1e-14)
    assert result.per_query["q"]["ERR-IA@3"] == pytest.approx(0.71875, rel=1e-14)
    # the ideal: b (gain 2) then a and c (0.5 each, c first): Σ G/i = 2 + 0.25 + 0.5/3 against the run's 1 + 0.75 + 1/6
    assert result.per_query["q"]["nERR-IA@3"] == pytest.approx((1 + 0.75 + 1 / 6) / (2 + 0.25 + 0.5 / 3), rel=1e-14)


# ------------------------------------------------------------------------------------------ identities
JUDGMENTS = st.dictionaries(st.sampled_from(["1", "2", "3", "10"]),
                            st.dictionaries(st.sampled_from(list("abcdefgh")), st.integers(-1, 3), min_size=1),
                            min_size=1, max_size=4)  # fmt: skip
RUNS = st.dictionaries(st.sampled_from(list("abcdefghxy")), st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=1)


@settings(max_examples=60, deadline=None)
@given(subtopics=JUDGMENTS, ranked=RUNS, k=st.integers(1, 8), rel=st.integers(1, 2))
def test_intent_aware_measures_are_means_over_subtopics(subtopics: dict, ranked: dict, k: int, rel: int) -> None:
    # ERR-IA (Chapelle's, before ndeval's normaliser), P-IA, AP-IA and StRecall are means over the subtopics with a
    # relevant document of ERR(max_grade=1), P, AP and HitRate on each subtopic's binary judgments.
    relevant = {s: docs for s, docs in subtopics.items() if any(g >= rel for g in docs.values())}
    result = rankwise.evaluate(None, {"q": ranked}, [f"ERR-IA(rel={rel})@{k}", f"P-IA(rel={rel})@{k}",
                                                     f"AP-IA(rel={rel})", f"StRecall(rel={rel})@{k}"],
                               subtopics={"q": subtopics})  # fmt: skip
    values = result.per_query["q"]
    if not relevant:
        assert all(v == 0.0 for v in values.values())
        return
    per_subtopic = [rankwise.evaluate({"q": {d: int(g >= rel) for d, g in docs.items()}}, {"q": ranked},
                                      [f"ERR(max_grade=1)@{k}", f"P@{k}", "AP", f"HitRate@{k}"]).per_query["q"]
                    for docs in relevant.values()]  # fmt: skip
    mean = {m: sum(v[m] for v in per_subtopic) / len(relevant) for m in per_subtopic[0]}
    normaliser = 0.5 * sum(0.5 ** (i - 1) / i for i in range(1, k + 1))
    assert close(values[f"ERR-IA(rel={rel})@{k}"] * normaliser, mean[f"ERR(max_grade=1)@{k}"], rel_tol=1e-12)
    assert close(values[f"P-IA(rel={rel})@{k}"], mean[f"P@{k}"], rel_tol=1e-12)
    assert close(values[f"AP-IA(rel={rel})"], mean["AP"], rel_tol=1e-12)
    assert close(values[f"StRecall(rel={rel})@{k}"], mean[f"HitRate@{k}"], rel_tol=1e-12)


@settings(max_examples=40, deadline=None)
@given(subtopics=JUDGMENTS, ranked=RUNS, beta=st.sampled_from([0.25, 0.5, 0.9]))
def test_with_alpha_1_only_newly_covered_subtopics_gain(subtopics: dict, ranked: dict, beta: float) -> None:
    # α = 1: G_i is the number of subtopics first covered at rank i, and the ideal-ideal normaliser is S at every k,
    # so α-DCG@k = Σ_{i≤k} ΔStRecall@i / log2(i + 1) and NRBP = Σ_i ΔStRecall@i · β^(i−1).
    depth = len(ranked)
    names = [f"StRecall@{i}" for i in range(1, depth + 1)]
    dcg, rbp = f"alpha-DCG(alpha=1)@{depth}", f"NRBP(alpha=1,beta={beta})"
    result = rankwise.evaluate(None, {"q": ranked}, [*names, dcg, rbp], subtopics={"q": subtopics})
    values = result.per_query["q"]
    recall = [0.0] + [values[n] for n in names]
    new = [recall[i] - recall[i - 1] for i in range(1, depth + 1)]
    assert close(values[dcg], sum(x / math.log2(i + 2) for i, x in enumerate(new)))
    assert close(values[rbp], sum(x * beta**i for i, x in enumerate(new)))


# ------------------------------------------------------------------------------------------ conventions and dialect
def test_ndeval_leaves_cutoff_1_unnormalised_and_nnrbp_undefined_without_subtopics() -> None:
    judgments = {"1": {"1": {"a": 1}, "2": {"a": 1}, "3": {"b": 1}}, "2": {"1": {"x": 0}}}
    run = {"1": {"a": 2.0, "b": 1.0}, "2": {"x": 1.0}}
    measures = ["alpha-DCG@1", "ERR-IA@1", "alpha-nDCG@1", "nNRBP"]
    default = rankwise.evaluate(None, run, measures, subtopics=judgments)
    ndeval = rankwise.evaluate(None, run, measures, subtopics=judgments, dialect="ndeval")
    assert default.per_query["1"]["alpha-DCG@1"] == default.per_query["1"]["ERR-IA@1"] == pytest.approx(2 / 3)
    assert ndeval.per_query["1"]["alpha-DCG@1"] == ndeval.per_query["1"]["ERR-IA@1"] == 2.0  # G_1, undivided
    assert default.per_query["1"]["alpha-nDCG@1"] == ndeval.per_query["1"]["alpha-nDCG@1"] == 1.0
    assert default.per_query["2"]["nNRBP"] == 0.0 and math.isnan(ndeval.per_query["2"]["nNRBP"])
    assert ndeval.undefined["nNRBP"] == 1 and ndeval.aggregate["nNRBP"] == 1.0
    assert "nNRBP: undefined for 1 of 2 queries" in " ".join(ndeval.notes())
    assert str(rankwise.get_dialect("ndeval").bind(rankwise.parse_measure("ERR-IA@5"), 1)) == "ERR-IA(norm_at_1=no)@5"


def test_tied_scores_follow_the_tie_policy() -> None:
    # b and a tie: trec_eval's order (doc id descending) ranks b first, ndeval's (pyndeval: ascending) a first.
    judgments = {"q": {"1": {"a": 1}, "2": {"b": 1, "a": 1}}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    default = rankwise.evaluate(None, run, ["alpha-DCG@1"], subtopics=judgments).per_query["q"]["alpha-DCG@1"]
    ndeval = rankwise.evaluate(None, run, ["alpha-DCG@1"], subtopics=judgments, dialect="ndeval")
    assert default == pytest.approx(1 / 2) and ndeval.per_query["q"]["alpha-DCG@1"] == 2.0
    assert ndeval.policies.ties.value == "docno_asc"
    averaged = rankwise.evaluate(None, run, ["alpha-nDCG@1"], subtopics=judgments, ties="average")
    assert any("ties=average is not defined for alpha-nDCG" in n for n in averaged.notes())


def test_names_aliases_and_parameters() -> None:
    for text, canonical in (
        ("alpha_nDCG@20", "alpha-nDCG@20"),
        ("ALPHA-NDCG@5", "alpha-nDCG@5"),
        ("MAP-IA", "AP-IA"),
        ("AP_IA", "AP-IA"),
        ("strec@10", "StRecall@10"),
        ("ERR_IA(alpha=0.25)@20", "ERR-IA(alpha=0.25)@20"),
        ("nERR_IA@5", "nERR-IA@5"),
        ("NRBP(beta=0.8,alpha=0.3)", "NRBP(alpha=0.3,beta=0.8)"),
        ("PIA@10", "P-IA@10"),
    ):
        assert str(rankwise.parse_measure(text)) == canonical
    for text, fragment in (("alpha-nDCG", "needs a cutoff"), ("NRBP@10", "takes no cutoff"),
                           ("alpha-nDCG(alpha=1.5)@5", "must be <= 1"), ("NRBP(beta=0)", "must be > 0"),
                           ("alpha-nDCG(norm_at_1=no)@5", "has no parameter 'norm_at_1'")):  # fmt: skip
        with pytest.raises(MeasureError, match=fragment.replace("(", r"\(")):
            rankwise.parse_measure(text)
    text = explain("alpha-nDCG@20", dialect="ndeval")
    assert "greedy" in text and "Clarke et al., SIGIR 2008" in text


def test_intent_aware_measures_are_refused_without_subtopics() -> None:
    with pytest.raises(MeasureError, match=r"alpha_nDCG@20 is intent-aware and needs subtopic judgments .*--subtopics"):
        rankwise.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["nDCG@20", "alpha_nDCG@20"])


# ------------------------------------------------------------------------------------------ inputs
DIVERSITY = """# TREC Web track 2012 diversity qrels (excerpt)
151 1 clueweb-a 1
151 2 clueweb-a 0
151\t2  clueweb-b 2

151 3 clueweb-c 0
152 1 clueweb-x 1
"""


def test_reading_subtopic_qrels(tmp_path) -> None:
    path = tmp_path / "qrels.diversity.txt"
    path.write_text(DIVERSITY)
    judgments = load_subtopic_qrels(path)
    assert judgments.frame.select("query_id", "subtopic", "doc_id", "value").rows() == [
        ("151", "1", "clueweb-a", 1), ("151", "2", "clueweb-a", 0), ("151", "2", "clueweb-b", 2),
        ("151", "3", "clueweb-c", 0), ("152", "1", "clueweb-x", 1)]  # fmt: skip
    assert judgments.notes == ()
    zipped = tmp_path / "qrels.diversity.gz"
    zipped.write_bytes(gzip.compress(DIVERSITY.encode()))
    assert load_subtopic_qrels(zipped).frame.equals(judgments.frame)
    frame = pl.DataFrame({"topic": [151, 151], "intent": [1, 2], "docno": ["a", "a"], "judgment": [1, 0]})
    assert rankwise.load_subtopic_qrels(frame).frame.select("query_id", "subtopic").rows() == [
        ("151", "1"),
        ("151", "2"),
    ]
    assert load_subtopic_qrels({"q": {"s": {"d": 1}}}).frame.height == 1
    adhoc = judgments.adhoc_qrels().frame.select("query_id", "doc_id", "value").sort("doc_id").rows()
    assert adhoc == [("151", "clueweb-a", 1), ("151", "clueweb-b", 2), ("151", "clueweb-c", 0), ("152", "clueweb-x", 1)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 1 a 1\n1 2 a\n", r"qrels\.txt:2: expected 4 columns \(query_id subtopic doc_id grade\), found 3"),
        ("1 Q0 a 1 0.5 run\n", r"qrels\.txt:1: expected 4 columns .*found 6 \(a run line\?\)"),
        ("1 1 a 1\n\n1 1 b yes\n", r"qrels\.txt:3: relevance grade 'yes' is not an integer"),
        (
            "1 1 a 1\n1 2 a 0\n1 1 a 2\n",
            r"qrels\.txt:3: query '1' subtopic '1' doc 'a' is judged twice \(first at "
            r".*qrels\.txt:1\)",
        ),
        ("# nothing\n\n", r"qrels\.txt: no subtopic judgments"),
        ("1 1 a\x00 1\n", r"qrels\.txt:1: NUL byte"),
    ],
)
def test_bad_subtopic_qrels_name_the_file_and_line(tmp_path, text: str, message: str) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load_subtopic_qrels(path)


def test_a_subtopic_file_is_never_read_as_ordinary_qrels_silently(tmp_path) -> None:
    path = tmp_path / "qrels.diversity.txt"
    path.write_text(DIVERSITY)
    with pytest.raises(InputError, match=r"query '151' doc 'clueweb-a' appears twice"):
        rankwise.load_qrels(path)
    ordinary = tmp_path / "qrels.adhoc.txt"
    ordinary.write_text("151 0 clueweb-a 1\n151 0 clueweb-b 0\n")
    result = rankwise.evaluate(ordinary, {"151": {"clueweb-a": 1.0}}, ["alpha-nDCG@5"], subtopics=ordinary)
    assert any("every query has a single subtopic; is it an ordinary qrels file" in n for n in result.notes())


def test_separate_adhoc_qrels_and_notes(tmp_path) -> None:
    # The evaluation's queries come from the ordinary qrels: 153 has no subtopic judgment (S = 0, scores 0, noted),
    # 152's subtopic judgments are not evaluated (not in the run: noted).
    subtopics = tmp_path / "qrels.diversity.txt"
    subtopics.write_text(DIVERSITY)
    adhoc = {"151": {"clueweb-a": 1, "clueweb-b": 1}, "153": {"z": 1}}
    run = {"151": {"clueweb-b": 2.0, "clueweb-a": 1.0}, "153": {"z": 1.0}}
    result = rankwise.evaluate(adhoc, run, ["alpha-nDCG@2", "nDCG@2"], subtopics=subtopics)
    assert result.per_query["153"] == {"alpha-nDCG@2": 0.0, "nDCG@2": 1.0}
    notes = " | ".join(result.notes())
    assert "1 evaluated query has no subtopic with a relevant document (grade >= 1)" in notes and ": 153" in notes
    assert "1 query of " in notes and "is not evaluated (not in both qrels and run): 152" in notes


def test_partitioned_and_streamed_evaluation_give_the_same_values(tmp_path, monkeypatch) -> None:
    judgments, run = random_case(7)
    names = [n for n, _ in measure_names(0.5, 0.5, 1)]
    whole = rankwise.evaluate(None, run, names, subtopics=judgments)
    run_file = tmp_path / "run.txt"
    run_file.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, docs in run.items() for d, s in docs.items()))
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 7)
    for stream in (False, True):
        parts = rankwise.evaluate(None, run_file, names, subtopics=judgments, stream=stream)
        assert parts.query_ids == whole.query_ids
        assert np.array_equal(parts.values, whole.values, equal_nan=True)


# ------------------------------------------------------------------------------------------ command line
def test_cli_subtopics(tmp_path) -> None:
    subtopics = tmp_path / "qrels.diversity.txt"
    subtopics.write_text(DIVERSITY)
    run = tmp_path / "run.txt"
    run.write_text("151 Q0 clueweb-b 1 2.0 r\n151 Q0 clueweb-a 2 1.0 r\n152 Q0 clueweb-x 1 1.0 r\n")
    code, out, err = run_cli(
        "evaluate",
        str(subtopics),
        str(run),
        "--subtopics",
        str(subtopics),
        "-m",
        "alpha-nDCG@20",
        "-m",
        "MAP-IA",
        "-q",
        "--format",
        "csv",
        "--dialect",
        "ndeval",
    )
    assert code == 0, err
    assert "qrels derived from the subtopic judgments" in err
    rows = dict(((q, m), float(v)) for q, m, v in (line.split(",") for line in out.splitlines()[1:]))
    api = rankwise.evaluate(None, run, ["alpha-nDCG@20", "MAP-IA"], subtopics=subtopics, dialect="ndeval")
    assert rows[("all", "alpha-nDCG@20")] == pytest.approx(api.aggregate["alpha-nDCG@20"], abs=1e-4)
    assert rows[("151", "MAP-IA")] == pytest.approx(api.per_query["151"]["MAP-IA"], abs=1e-4)
    code, out, err = run_cli("evaluate", str(subtopics), str(run), "-m", "nDCG@20")
    assert code == 2 and err.count("\n") == 1 and "appears twice" in err  # read as ordinary qrels: refused
    code, out, err = run_cli("evaluate", str(subtopics), str(run), "-m", "alpha-nDCG@20")  # as one would call ndeval
    assert code == 2 and err.count("\n") == 1 and "needs subtopic judgments" in err and "--subtopics" in err
    adhoc = tmp_path / "qrels.adhoc.txt"
    adhoc.write_text("151 0 clueweb-a 1\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("151 1 a 1\n151 1 a\n")
    code, out, err = run_cli("evaluate", str(adhoc), str(run), "--subtopics", str(bad), "-m", "P-IA@5")
    assert code == 2 and err == f"rankwise: error: {bad}:2: expected 4 columns (query_id subtopic doc_id grade), " \
                                "found 3\n"  # fmt: skip
