"""Measure names: canonical round trip, trec_eval name expansion, aliases and errors."""

from __future__ import annotations

import pytest

import rankwise
from rankwise import Measure, MeasureError, parse_measure, parse_measures
from rankwise.measures.catalog import FAMILIES

# example values for every parameter kind
INT_VALUES = (0, 1, 2, 3)
GAIN_MAPS = ("{1:1,2:3}", "{1:1,2:3,3:7}", "{0:0.5,2:2.25}", "{3:7,1:1}")
RANK_CUTOFFS = (1, 5, 10, 1000)
RECALL_CUTOFFS = ("0", "0.1", "0.25", "0.5", "1")


def _param_texts(param) -> list[str]:
    if param.kind == "int":
        return [str(v) for v in INT_VALUES if param.minimum is None or v >= param.minimum]
    if param.kind == "float":
        return [v for v in ("0.5", "1", "2.25") if param.maximum is None or float(v) <= param.maximum]
    if param.kind == "floats":
        return ["{0.25,0.5}", "{0,0.5,1}"]
    values = list(param.choices)
    if param.kind == "gain":
        values += list(GAIN_MAPS)
    return values


def _cutoff_texts(spec) -> list[str | None]:
    options: list[str | None] = [] if spec.cutoff_required else [None]
    if spec.cutoff == "rank":
        options += [str(k) for k in RANK_CUTOFFS]
    elif spec.cutoff == "recall":
        options += list(RECALL_CUTOFFS)
    return options


def _all_measure_strings() -> list[str]:
    """Every family x (no parameter, each parameter value alone, all parameters together in rotation)
    x every cutoff form. (The full product of parameter values grows too fast as families gain parameters.)"""
    out = []
    for spec in FAMILIES:
        options = [_param_texts(p) for p in spec.params]
        combos: list[list[str]] = [[]]
        combos += [[f"{p.name}={v}"] for p, values in zip(spec.params, options) for v in values]
        widest = max((len(values) for values in options), default=0)
        together = [(p, values) for p, values in zip(spec.params, options) if p.name not in spec.exclusive[1:]]
        if len(together) > 1:  # of alternative parameters (spec.exclusive) only the first
            combos += [[f"{p.name}={values[i % len(values)]}" for p, values in together] for i in range(widest)]
        for given in combos:
            for cutoff in _cutoff_texts(spec):
                text = spec.name + (f"({','.join(given)})" if given else "")
                out.append(text + ("" if cutoff is None else f"@{cutoff}"))
    return out


ALL_STRINGS = _all_measure_strings()


def test_every_family_is_covered():
    names = {s.split("(")[0].split("@")[0] for s in ALL_STRINGS}
    assert names == {spec.name for spec in FAMILIES}
    assert len(FAMILIES) == 32 + 2 + 7 + 13 + 9 + 5 + 3 + 3 + 5 + 2  # + ERR, nERR; + Coverage, Gini, Entropy, Novelty,
    # SelfInformation, ARP, LongTail; + INST, INSQ, BPM, NERR8-11, SDCG, Compat, CoverageError, LabelRankingLoss,
    # FallOut, RecallAtPrecision; + alpha-DCG, alpha-nDCG, ERR-IA, nERR-IA, NRBP, nNRBP, AP-IA, P-IA, StRecall;
    # + trec_eval's G, IDCG (ideal_dcg), nDCGRel (ndcg_rel), RnDCG (Rndcg), YAAP (yaap); + ILD, Serendipity,
    # Unexpectedness; + EE-L, EE-D, EE-R; + AWRF, nDCG-AWRF, RSP, REO, ItemMAD; + RBO, LIP
    assert len(ALL_STRINGS) > 300


@pytest.mark.parametrize("text", ALL_STRINGS)
def test_round_trip(text):
    m = parse_measure(text)
    assert isinstance(m, Measure)
    assert parse_measure(str(m)) == m
    assert str(parse_measure(str(m))) == str(m)
    assert hash(parse_measure(str(m))) == hash(m)
    # explicit parameters survive with their values; defaults are not invented
    assert len(m.params) == text.count("=")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("nDCG@10", "nDCG@10"),
        ("ndcg@10", "nDCG@10"),
        ("NDCG@10", "nDCG@10"),
        ("P(rel=2)@5", "P(rel=2)@5"),
        ("precision(rel=2)@5", "P(rel=2)@5"),
        ("AP(denom=min_k_R)@20", "AP(denom=min_k_R)@20"),
        ("AP(denom=k,rel=2)@5", "AP(rel=2,denom=k)@5"),  # parameters in the family's declared order
        ("nDCG(gain=exp2)@10", "nDCG(gain=exp2)@10"),
        ("nDCG(gain={2:3,1:1})@3", "nDCG(gain={1:1,2:3})@3"),  # grade map sorted
        ("nDCG(gain={1:1.0,2:3.50})@3", "nDCG(gain={1:1,2:3.5})@3"),  # numbers in shortest form
        ("nDCG( gain = exp2 )@ 10", "nDCG(gain=exp2)@10"),
        ("RR@5", "RR@5"),
        ("MRR@10", "RR@10"),
        ("RecipRank", "RR"),
        ("HitRate@10", "HitRate@10"),
        ("Success@10", "HitRate@10"),
        ("success@10", "HitRate@10"),
        ("R@10", "R@10"),
        ("Recall@10", "R@10"),
        ("F1@5", "F1@5"),
        ("Rprec", "Rprec"),
        ("R-Precision", "Rprec"),
        ("bpref", "bpref"),
        ("BPref", "bpref"),
        ("MeanRank", "MeanRank"),
        ("KendallTau", "KendallTau"),
        ("NumQ", "NumQ"),
        ("IPrec@0.5", "IPrec@0.5"),
        ("IPrec(round=v9)@0.5", "IPrec(round=v9)@0.5"),
        ("IPrec@1", "IPrec@1"),
        ("IPrec@1.0", "IPrec@1"),
        ("GMAP", "GMAP"),
        ("gmAP", "GMAP"),
        ("DCG@10", "DCG@10"),
        ("MAP", "AP"),
        ("map@100", "AP@100"),
        ("MAP@100", "AP@100"),
        ("P@5.0", "P@5"),
        ("P(rel=1)@5", "P(rel=1)@5"),  # an explicit default is kept: it pins rel against rel_level
    ],
)
def test_canonical_names_and_aliases(text, canonical):
    m = parse_measure(text)
    assert str(m) == canonical
    assert parse_measure(canonical) == m


def test_explicit_rel_differs_from_default():
    assert parse_measure("P(rel=1)@5") != parse_measure("P@5")
    assert parse_measure("P@5").get("rel") is None  # comes from the evaluation's rel_level
    assert parse_measure("nDCG@5").get("rel") == 1  # fixed, as trec_eval
    assert parse_measure("AP@5").get("denom") == "R"
    assert parse_measure("nDCG@5").get("gain") == "linear"
    assert parse_measure("IPrec@0.5").get("round") == "nearest"


def test_measure_objects_are_validated_and_ordered():
    m = Measure("AP", cutoff=10, params=(("denom", "k"), ("rel", 2)))
    assert str(m) == "AP(rel=2,denom=k)@10"
    assert Measure("map", cutoff=10.0) == parse_measure("AP@10")
    assert Measure("ndcg").name == "nDCG"
    with pytest.raises(MeasureError):
        Measure("AP", params=(("gain", "exp2"),))
    with pytest.raises(MeasureError):
        Measure("P", cutoff=2.5)
    with pytest.raises(MeasureError):
        Measure("P")


# ------------------------------------------------------------------------------------------ trec_eval names

DEFAULT_CUTS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")
LEVELS = ("0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("P.5,10", [("P_5", "P@5"), ("P_10", "P@10")]),
        ("P.10,5", [("P_5", "P@5"), ("P_10", "P@10")]),  # trec_eval prints cutoffs in increasing order
        ("ndcg_cut.10,20", [("ndcg_cut_10", "nDCG@10"), ("ndcg_cut_20", "nDCG@20")]),
        ("recall.1,100", [("recall_1", "R@1"), ("recall_100", "R@100")]),
        ("map_cut.3,7", [("map_cut_3", "AP@3"), ("map_cut_7", "AP@7")]),
        ("success.1,5,10", [("success_1", "HitRate@1"), ("success_5", "HitRate@5"), ("success_10", "HitRate@10")]),
        ("iprec_at_recall.0.5,0.1", [("iprec_at_recall_0.10", "IPrec@0.1"), ("iprec_at_recall_0.50", "IPrec@0.5")]),
        ("success", [("success_1", "HitRate@1"), ("success_5", "HitRate@5"), ("success_10", "HitRate@10")]),
        ("P", [(f"P_{k}", f"P@{k}") for k in DEFAULT_CUTS]),
        ("ndcg_cut", [(f"ndcg_cut_{k}", f"nDCG@{k}") for k in DEFAULT_CUTS]),
        ("iprec_at_recall", [(f"iprec_at_recall_{x}", f"IPrec@{float(x):g}") for x in LEVELS]),
    ],
)
def test_trec_sets_expand_to_trec_output_names(text, expected):
    assert [(k, str(m)) for k, m in parse_measures(text)] == expected


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("map", "AP"),
        ("gm_map", "GMAP"),
        ("Rprec", "Rprec"),
        ("bpref", "bpref"),
        ("recip_rank", "RR"),
        ("ndcg", "nDCG"),
        ("num_q", "NumQ"),
        ("num_ret", "NumRet"),
        ("num_rel", "NumRel"),
        ("num_rel_ret", "NumRelRet"),
        ("P_5", "P@5"),
        ("P.5", "P@5"),
        ("recall_100", "R@100"),
        ("map_cut_100", "AP@100"),
        ("ndcg_cut_10", "nDCG@10"),
        ("success_10", "HitRate@10"),
        ("iprec_at_recall_0.10", "IPrec@0.1"),
    ],
)
def test_single_trec_names_are_keyed_by_themselves(text, canonical):
    assert [(k, str(m)) for k, m in parse_measures(text)] == [(text, canonical)]
    assert str(parse_measure(text)) == canonical


def test_official_set():
    pairs = parse_measures("official")
    keys = [k for k, _ in pairs]
    assert len(pairs) == 29
    assert keys == [
        "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
        *(f"iprec_at_recall_{x}" for x in LEVELS),
        *(f"P_{k}" for k in DEFAULT_CUTS),
    ]  # fmt: skip
    assert keys[0] == "num_q" and keys[-1] == "P_1000"
    assert str(dict(pairs)["iprec_at_recall_0.50"]) == "IPrec@0.5"  # trec_eval 10 rounding (the default)


def test_evaluate_keys():
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5}}
    result = rankwise.evaluate(qrels, run, ["P.5,10", "ndcg_cut.10,20", "nDCG@10", "map", "MAP"])
    assert result.keys == ("P_5", "P_10", "ndcg_cut_10", "ndcg_cut_20", "nDCG@10", "map", "MAP")
    # one relevant doc at rank 1: P@5 = 1/5, P@10 = 1/10, nDCG = 1, AP = 1
    assert result.aggregate == {"P_5": 0.2, "P_10": 0.1, "ndcg_cut_10": 1.0, "ndcg_cut_20": 1.0,
                                "nDCG@10": 1.0, "map": 1.0, "MAP": 1.0}  # fmt: skip
    default = rankwise.evaluate(qrels, run)  # no measures: official
    assert default.keys == tuple(k for k, _ in parse_measures("official"))
    # a Measure object is keyed by its canonical name
    assert rankwise.evaluate(qrels, run, parse_measure("precision@5")).keys == ("P@5",)


def test_every_requested_measure_gets_a_result():
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    try:
        result = rankwise.evaluate(qrels, run, ["iprec_at_recall.0.121,0.124"])
    except MeasureError:
        return  # refusing the ambiguous request would be fine too
    assert len(result.keys) == 2
    assert sorted(str(m) for m in result.measures) == ["IPrec@0.121", "IPrec@0.124"]


def test_parse_measure_refuses_sets():
    with pytest.raises(MeasureError, match="names 2 measures"):
        parse_measure("P.5,10")
    with pytest.raises(MeasureError, match="names 29 measures"):
        parse_measure("official")


# ------------------------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "suggested"),
    [
        ("nDGC@10", "nDCG"),
        ("Precison@5", "Precision"),
        ("mapp", "map"),
        ("recip_rnk", "recip_rank"),
        ("bperf", "bpref"),
        ("KendalTau", "KendallTau"),
        ("MeanRnk@5", "MeanRank"),
        ("HitRat@10", "HitRate"),
        ("nDGC(gain=exp2)@10", "nDCG"),
    ],
)
def test_unknown_names_suggest_close_ones(text, suggested):
    with pytest.raises(MeasureError, match="did you mean") as info:
        parse_measure(text)
    message = str(info.value)
    assert "unknown measure" in message
    assert suggested in message.split("did you mean", 1)[1]


def test_unknown_name_far_from_everything_points_to_the_list():
    with pytest.raises(MeasureError, match="rankwise measures"):
        parse_measure("zzzzqqq")


def test_unknown_trec_set_name_suggests_close_ones():
    with pytest.raises(MeasureError, match=r"did you mean.*ndcg_cut"):
        parse_measure("ndcg_cutt.10")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("P(rel=-1)@5", "must be >= 0"),
        ("P(rel=x)@5", "must be an integer"),
        ("P(rel=1.5)@5", "must be an integer"),
        ("AP(denom=foo)@5", "must be one of R, min_k_R, k, hits"),
        ("nDCG(gain=cubic)@5", "must be one of linear, exp2, binary"),
        ("IPrec(round=up)@0.5", "must be one of nearest, v9"),
        ("nDCG(gain={})@3", "gain map is empty"),
        ("nDCG(gain={1:a})@3", "must be GRADE:GAIN"),
        ("nDCG(gain={a:1})@3", "must be GRADE:GAIN"),
        ("nDCG(gain={1:1,1:2})@3", "gives grade 1 twice"),
        ("nDCG(gain={1:inf})@3", "must be a finite number"),
        ("nDCG(gain={1:nan})@3", "must be a finite number"),
        ("nDCG(gain={1:1)@3", "must end with"),
        ("nDCG(foo=1)@3", "has no parameter 'foo'"),
        ("nDCG(rel)@3", "must look like name=value"),
        ("P(rel=1,rel=2)@5", "given twice"),
        ("RR(denom=k)", "has no parameter 'denom'"),
        ("KendallTau(rel=2)", "has no parameter 'rel'"),
        ("Precision", "needs a cutoff"),
        ("P(rel=2)", "needs a cutoff"),
        ("IPrec", "needs a cutoff"),
        ("P@0", "must be an integer >= 1"),
        ("P@5.5", "must be an integer >= 1"),
        ("IPrec@1.5", "must lie in [0, 1]"),
        ("Rprec@5", "takes no cutoff"),
        ("GMAP@10", "takes no cutoff"),
        ("bpref@10", "takes no cutoff"),
        ("KendallTau@5", "takes no cutoff"),
        ("NumQ@5", "takes no cutoff"),
        ("P_x", "unknown measure 'P_x'"),  # a trec_eval name's cutoffs are numbers (P_IA@10 is P-IA@10)
        ("P_1x", "unknown measure 'P_1x'"),
        ("P_1e3", "cutoff '1e3' is not a number"),
        ("P.", "cannot read measure"),
        ("nDCG@", "cannot read measure"),
        ("@5", "cannot read measure"),
    ],
)
def test_bad_measures_raise(text, fragment):
    with pytest.raises(MeasureError) as info:
        parse_measures(text)
    assert fragment in str(info.value)
    assert isinstance(info.value, rankwise.RankwiseError)
    assert isinstance(info.value, ValueError)


def test_evaluate_rejects_bad_measures_and_policies():
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    with pytest.raises(MeasureError, match="did you mean"):
        rankwise.evaluate(qrels, run, ["nDGC@10"])
    with pytest.raises(MeasureError, match="no measures"):
        rankwise.evaluate(qrels, run, [])
    with pytest.raises(MeasureError, match="must be a string or a Measure"):
        rankwise.evaluate(qrels, run, [5])
    with pytest.raises(rankwise.RankwiseError, match="unknown tie policy"):
        rankwise.evaluate(qrels, run, ["P@1"], ties="random")
    with pytest.raises(rankwise.RankwiseError, match="unknown query set"):
        rankwise.evaluate(qrels, run, ["P@1"], queries="all")
    with pytest.raises(rankwise.RankwiseError, match="depth must be a positive integer"):
        rankwise.evaluate(qrels, run, ["P@1"], depth=0)
    with pytest.raises(rankwise.RankwiseError, match="rel_level must be an integer >= 0"):
        rankwise.evaluate(qrels, run, ["P@1"], rel_level=-1)
