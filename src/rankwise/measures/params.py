"""Measure parameters and texts that two or more families share.

A :class:`Param` (or reference text) of one family only is defined next to that family, in its group's module
(:mod:`.precision`, :mod:`.gain`, :mod:`.pairwise`, :mod:`.user_model`, :mod:`.beyond`, :mod:`.intent`); one that a
second family comes to use moves here. Notation: :mod:`rankwise.measures.catalog`.
"""

from __future__ import annotations

from .spec import Param

# shared by families of several modules
TREC_EVAL_REF = "trec_eval v10 (usnistgov/trec_eval)"
REL = Param(
    "rel",
    "int",
    "relevance threshold: a document is relevant when its grade >= rel",
    default=None,
    default_doc="the evaluation's rel_level (trec_eval -l, default 1)",
    minimum=0,
)
UNIVERSE = Param(
    "universe",
    "choice",
    "which documents R and the ideal ranking count",
    default="judged",
    choices={
        "judged": "every judged document, retrieved or not (trec_eval, ranx)",
        "retrieved": "only documents in the ranking (libraries that see only scored items: scikit-learn, "
        "torchmetrics, LightGBM, XGBoost)",
    },
)
EMPTY = Param(
    "empty",
    "choice",
    "what a query without relevant documents (R = 0) scores",
    default="zero",
    choices={
        "zero": "0 (trec_eval, ranx, scikit-learn)",
        "one": "1 (LightGBM, XGBoost ndcg/map)",
        "skip": "undefined: left out of the mean and counted (rs_metrics' NaN, torchmetrics 'skip')",
    },
)
RANK_BASIS = Param(
    "rank",
    "choice",
    "the rank a relevant document is scored at (for the cutoff and the discount)",
    default="position",
    choices={
        "position": "its position in the ranking after the tie policy (trec_eval and nearly everyone)",
        "optimistic": "1 + the documents scored strictly higher: tied documents share the best position (OpenRec tf2)",
        "among_nonrelevant": "1 + the non-relevant documents scored strictly higher: each relevant document is "
        "ranked against the non-relevant ones only, so several can share rank 1 and P or nDCG can exceed 1 "
        "(OpenRec tf1)",
    },
)

# shared by precision families (measures/precision.py)
AP_DENOM = Param(
    "denom",
    "choice",
    "what the sum of precisions at relevant ranks is divided by",
    default="R",
    choices={
        "R": "all relevant judged documents R (trec_eval, ranx, rs_metrics)",
        "min_k_R": "min(k, R) (R without a cutoff; LightGBM, RePlay, RecBole, Spark meanAveragePrecisionAt)",
        "k": "the cutoff k (DaisyRec 1.x, RePlay 0.11-0.12)",
        "hits": "relevant documents retrieved in the top k, H_k (torchmetrics, DaisyRec 2.x)",
        "neurec": "Σ_{i=1..k} min(i, R) (NeuRec's Python evaluator: a cumulative sum where min(k, R) was meant)",
        "min_shown_R": "min(|L[:k]|, R), the length of the top-k list or R (LensKit, DL-RS-Eval, NeuRec 1.0.0)",
    },
)
BPREF_NO_NONREL = Param(
    "no_nonrel",
    "choice",
    "what a retrieved relevant document scores when the query has no judged non-relevant document (N = 0)",
    default="one",
    choices={
        "one": "1: nothing ranks above it (trec_eval's special case)",
        "undefined": "0/0: the query is undefined, left out of the mean and counted (ranx, whose mean becomes NaN)",
    },
)
PRECISION_DENOM = Param(
    "denom",
    "choice",
    "what the hits in the top k are divided by",
    default="k",
    choices={
        "k": "the cutoff k, even for shorter rankings (trec_eval, ranx, RePlay, RecBole)",
        "retrieved": "min(k, |L|), the length of the top-k list; an empty ranking is undefined "
        "(rs_metrics, DaisyRec 2.x, LensKit, torchmetrics adaptive_k)",
        "min_k_R": "min(k, R): the most hits the top k can hold (RecTools r_precision); R = 0 is undefined",
        "min_shown_R": "min(|L[:k]|, R) (DL-RS-Eval PRECISION_RECALL_MIN_DEN); 0/0 is undefined",
    },
)
CUTOFF_INCLUSION = Param(
    "within",
    "choice",
    "which ranks the cutoff k admits",
    default="k",
    choices={
        "k": "ranks 1..k",
        "k_plus_1": "ranks 1..k+1: OpenRec tf1 compares a 0-based rank with <= k (an off-by-one)",
    },
)
GATE = Param(
    "gate",
    "choice",
    "whether a relevant document must also have a positive score to count as a hit",
    default="none",
    choices={
        "none": "no: the grade decides (trec_eval)",
        "positive_score": "yes: a document scored <= 0 is never a hit; R is unchanged (torchmetrics >= 1.7.4)",
    },
)
RECALL_ROUNDING = Param(
    "round",
    "choice",
    "how the recall level x becomes a number of relevant documents c",
    default="nearest",
    choices={
        "nearest": "c = round(x·R), halves up (trec_eval 10, lround)",
        "v9": "c = floor(x·R + 0.9) (trec_eval 9 and earlier; pytrec_eval)",
    },
)

# shared by gain families (measures/gain.py)
REL_FIXED = Param(
    "rel",
    "int",
    "grades below rel give no gain (trec_eval's nDCG ignores -l: only grades > 0 count)",
    default=1,
    minimum=0,
)
GAIN = Param(
    "gain",
    "gain",
    "gain of a document with grade g >= rel (documents below rel gain 0); or a grade map {g:gain,...}: "
    "listed grades get their gain, others the linear gain (as trec_eval's ndcg.1=3,2=9)",
    default="linear",
    choices={
        "linear": "gain = g (trec_eval, ranx ndcg, scikit-learn)",
        "exp2": "gain = 2^g - 1 (Burges et al. 2005; LightGBM, ranx ndcg_burges)",
        "binary": "gain = 1",
        "exp2_rel": "gain = 2^(g - rel + 1) - 1: 1 at the threshold rel (Elliot's DiscountedRelevance)",
    },
)
DISCOUNT = Param(
    "discount",
    "choice",
    "the discount of rank i",
    default="log2",
    choices={
        "log2": "1/log2(i+1) (trec_eval, most libraries)",
        "ln": "1/ln(i+1) (DL-RS-Eval, MS Recommenders loge)",
        "log2_max2": "1/log2(max(i,2)): ranks 1 and 2 both undiscounted (LensKit)",
    },
)
LOG_BASE = Param(
    "log_base",
    "int",
    "the base b of the logarithm of discount=log2: 1/log_b(i + 1) (scikit-learn dcg_score's log_base; base e is "
    "discount=ln)",
    default=2,
    minimum=2,
)

# shared by user-model families (measures/user_model.py)
PERSISTENCE = Param(
    "p",
    "float",
    "persistence: the probability that the user goes on from one rank to the next",
    default=0.9,
    minimum=0,
    maximum=1.0,
)
CWL_REF = "cwl_eval 1.0 (Azzopardi, Thomas & Moffat, SIGIR 2019; run through ir_measures' cwl_eval provider)"
CWL_NOTATION = (
    "C/W/L: the user reads rank 1 and after rank i goes on with probability C_i; EU = Σ_{i≤N} W_i g_i,\n"
    "W_i = P_i / Σ_{j≤N} P_j, P_i = Π_{j<i} C_j; g per scale (0 for unjudged documents and past the ranking's end),\n"
    "N = horizon"
)
CWL_SCALE = Param(
    "scale",
    "floats",
    "the grade scale {min,max}: a judged grade g gains (clip(max(g, 0), min, max) − min) / (max − min) ∈ [0, 1] "
    "(ir_measures' min_rel and max_rel; {0,1}: grades are gains, as in cwl_eval's gain files, and grades above 1 "
    "gain 1)",
    default=(0.0, 1.0),
)
CWL_HORIZON = Param(
    "horizon",
    "int",
    "the depth N the user model runs to: W is normalised over ranks 1..N, ranks past the ranking's end gain 0 and "
    "rows past N are not read (cwl_eval --max_depth, which ir_measures leaves at 1000)",
    default=1000,
    minimum=1,
)
CWL_GOAL = Param("T", "float", "the user's goal: the total gain T they set out to collect", default=1.0, minimum=0)
ERR_MAX_GRADE = Param(
    "max_grade",
    "float",
    "the largest grade of the scale, g_max: a document of grade g stops the user with probability\n"
    "(2^g − 1) / 2^g_max (4 in gdeval, the TREC Web track's scale; any positive real number)",
    default=4.0,
    minimum=0,
)

# shared by beyond-accuracy families (measures/beyond.py)
YES_NO = {"no": "no", "yes": "yes"}
POPULARITY = Param(
    "popularity",
    "choice",
    "the total an item's popularity (its number of training users = its distinct training pairs) is taken of",
    default="users",
    choices={"users": "the number of training users", "interactions": "the number of distinct training pairs"},
)
SIMILARITY_KIND = Param(
    "kind",
    "choice",
    "how two items' similarity is measured",
    default="cooccurrence_cosine",
    choices={
        "cooccurrence_cosine": "cos of the items' training users: |U_a ∩ U_b| / √(|U_a| |U_b|) (needs train=; an "
        "item without training interactions is similar to nothing)",
        "feature_cosine": "cos of the items' feature vectors (needs features=)",
        "feature_hamming": "distance = the number of differing 0/1 features (needs 0/1 features=)",
    },
)

# shared by intent-aware families (measures/intent.py)
NDEVAL_REF = "ndeval 4.5 (TREC Web track novelty and diversity measures; run here through pyndeval)"
INTENT_NOTATION = (
    "J(d, s) = 1 when d's grade for subtopic s is >= rel; S = subtopics with a relevant document;\n"
    "G_i = Σ_s J(L_i, s)·(1 − α)^c_s(i), c_s(i) = documents above rank i relevant to s"
)
INTENT_IDEAL = "ideal: ndeval's greedy ranking of the judged documents (each rank the largest gain; ties: larger docid)"
INTENT_EMPTY = "0 for a query without a relevant subtopic (S = 0); undefined with no_subtopics=skip"
ALPHA = Param(
    "alpha",
    "float",
    "redundancy intolerance α: a document's gain for a subtopic already covered by c documents above it is "
    "(1 − α)^c (ndeval -alpha)",
    default=0.5,
    minimum=0,
    maximum=1.0,
)
BETA = Param(
    "beta", "float", "patience β: the user goes on to the next rank with probability β (ndeval -beta)", default=0.5,
    minimum=0, maximum=1.0,
)  # fmt: skip
NORM_AT_1 = Param(
    "norm_at_1",
    "choice",
    "whether the value at cutoff 1 is normalised as at every other cutoff",
    default="yes",
    choices={
        "yes": "G_1 / S, the formula at every k",
        "no": "G_1 undivided: ndeval's normalising loop starts at rank 2, so its @1 value can exceed 1",
    },
)
NO_SUBTOPICS = Param(
    "no_subtopics",
    "choice",
    "what a query scores when none of its subtopics has a relevant document (S = 0)",
    default="zero",
    choices={
        "zero": "0 (ndeval, for every measure but nNRBP)",
        "skip": "undefined: left out of the mean and counted (ndeval's nNRBP, whose 0/0 is NaN)",
    },
)
