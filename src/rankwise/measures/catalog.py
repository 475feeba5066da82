"""The catalog of measure families: every measure rankwise computes, with its formula and reference.

Notation for one query: the ranking L (after the tie policy and depth cut), L_i its document at rank i
(1-based), g(d) the judged grade of d (unjudged documents are not relevant), h_i = 1 if g(L_i) ≥ rel,
R = number of judged documents with g ≥ rel, k the cutoff (the whole ranking when absent),
H_k = Σ_{i≤k} h_i, P@i = H_i / i.

To add a measure: add a :class:`MeasureSpec` here and a kernel of the same name in ``rankwise.kernels``.
"""

from __future__ import annotations

import difflib
import re

from ..errors import MeasureError
from .spec import MeasureSpec, Param, use_catalog
from .trec_names import all_trec_names

TREC_EVAL_REF = "trec_eval v10 (usnistgov/trec_eval)"

REL = Param(
    "rel",
    "int",
    "relevance threshold: a document is relevant when its grade >= rel",
    default=None,
    default_doc="the evaluation's rel_level (trec_eval -l, default 1)",
    minimum=0,
)
REL_FIXED = Param(
    "rel",
    "int",
    "grades below rel give no gain (trec_eval's nDCG ignores -l: only grades > 0 count)",
    default=1,
    minimum=0,
)
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
AP_PRECISIONS = Param(
    "precisions",
    "choice",
    "which precisions are summed",
    default="relevant",
    choices={
        "relevant": "P@i at the ranks i ≤ k of relevant documents (trec_eval and nearly everyone)",
        "every": "P@n at every rank n = 1..k, relevant or not, P@n = H_n / n even past the list's end (Elliot's "
        "MAP: with denom=k, (1/k) Σ_{n≤k} P@n)",
    },
)
AP_PRECISION_AT = Param(
    "precision_at",
    "choice",
    "where the precision of a relevant document is read",
    default="rank",
    choices={
        "rank": "P@i at its own rank i, after the tie policy (trec_eval and nearly everyone)",
        "tie_end": "P at the last rank of its group of equal scores: a group of tied documents is one threshold "
        "(scikit-learn average_precision_score and label_ranking_average_precision_score; the tie policy does "
        "not matter)",
    },
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
RECALL_DENOM = Param(
    "denom",
    "choice",
    "what the hits in the top k are divided by",
    default="R",
    choices={
        "R": "R, every relevant document (trec_eval and nearly everyone); 0 when R = 0",
        "min_k_R": "min(k, R), so that a perfect top k scores 1 (LensKit Recall); 0 when R = 0",
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
RR_HITS = Param(
    "hits",
    "choice",
    "which relevant documents contribute",
    default="first",
    choices={
        "first": "only the first: 1/rank (trec_eval)",
        "all": "every one in the top k: Σ h_i/i (DaisyRec 1.x MRR, ARHR)",
        "top1": "1 if the first document is relevant, else 0 (NeuRec 1.0.0: its loop returns 0 at the first miss)",
    },
)
HIT_COUNT = Param(
    "count",
    "choice",
    "what a query scores",
    default="any",
    choices={
        "any": "1 if any relevant document is in the top k",
        "hits": "H_k, the number of hits (DL-RS-Eval)",
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
IDEAL = Param(
    "ideal",
    "choice",
    "the ideal DCG nDCG divides by",
    default="sorted",
    choices={
        "sorted": "DCG@k of the documents (per universe) sorted by gain (trec_eval)",
        "uncut": "DCG of all those documents sorted by gain, not cut at k (DL-RS-Eval)",
        "k_ones": "k documents of gain 1: Σ_{i≤k} discount(i) (RecTools default)",
        "hits": "DCG of the relevant documents found in the top k, sorted by gain (DaisyRec 2.x)",
        "none": "1: nDCG is DCG (OpenRec)",
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

RNDCG_REL = Param(
    "rel",
    "int",
    "relevance threshold of R only: a query without a document graded >= rel scores 0 (gains count grades >= 1, "
    "and grade 0 when a grade map names it)",
    default=None,
    default_doc="the evaluation's rel_level (trec_eval -l, default 1)",
    minimum=0,
)
RPREC_MULT = Param(
    "mult",
    "float",
    "the cutoff as a multiple x of R: c = floor(x·R + 0.9) (trec_eval's Rprec_mult_x; x = 1 is R itself)",
    default=1.0,
    minimum=0,
)
IPREC_LEVELS = Param(
    "levels",
    "floats",
    "the recall levels averaged, e.g. {0.25,0.5,0.75}",
    default=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    minimum=0,
)
PERSISTENCE = Param(
    "p",
    "float",
    "persistence: the probability that the user goes on from one rank to the next",
    default=0.9,
    minimum=0,
    maximum=1.0,
)
UTILITY_COEFFICIENTS = tuple(
    Param(name, "float", f"gain of each {what}", default=default)
    for name, what, default in (
        ("rel_ret", "relevant document retrieved (trec_eval's first coefficient)", 1.0),
        ("nonrel_ret", "non-relevant document retrieved (second coefficient)", -1.0),
        ("rel_not_ret", "relevant document not retrieved (third coefficient)", 0.0),
        ("nonrel_not_ret", "non-relevant document not retrieved, of the collection (fourth coefficient)", 0.0),
    )
)
COLLECTION_SIZE = Param(
    "docs",
    "int",
    "number of documents in the collection N (trec_eval -N), for the fourth utility coefficient",
    default=0,
    minimum=0,
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
BPM_STEPS = tuple(
    Param(name, "float", f"BPM-Dynamic: after each document {what} moves by {name}·(g − med) (0: static BPM){extra}",
          default=0.0)
    for name, what, extra in (
        ("hb", "the goal T", ""),
        ("hc", "the patience K", "; cwl_eval 1.0 adds it to T instead, where it has no effect: hc=0 is cwl_eval"),
    )
)  # fmt: skip
BPM_MEDIAN = Param("med", "float", "BPM-Dynamic: the median gain the steps compare each gain with", default=0.5)
RBP_GAIN = Param(
    "gain",
    "choice",
    "the gain of a ranked document",
    default="scaled",
    choices={
        "scaled": "g / G_q, G_q the query's largest judged grade when above 1, else g (trec_eval)",
        "binary": "1 when g >= the evaluation's rel_level (-l), else 0 (ir_measures' RBP(rel=...) through cwl_eval)",
    },
)
RBP_HORIZON = Param(
    "horizon",
    "int",
    "normalise over ranks 1..N: Σ_{i≤N} gain_i p^(i−1) / Σ_{i≤N} p^(i−1), rows past N not read (cwl_eval's RBP, "
    "N = 1000)",
    default=None,
    default_doc="none: (1 − p) Σ_i gain_i p^(i−1) over the whole ranking (trec_eval)",
    minimum=1,
)
COMPAT_PERSISTENCE = Param(
    "p", "float", "persistence of the rank-biased overlap", default=0.95, minimum=0, maximum=1.0,
)  # fmt: skip
COMPAT_NORMALISE = Param(
    "normalise",
    "choice",
    "whether the overlap is divided by that of the ideal ranking with itself (so a perfect ranking scores 1)",
    default="yes",
    choices={"yes": "yes (ir_measures' normalize=True)", "no": "no: the rank-biased overlap itself"},
)
AUC_MAX_FPR = Param(
    "max_fpr",
    "float",
    "partial AUC: the area A under the ROC curve up to this false-positive rate m, McClish-standardised, "
    "½(1 + (A − m²/2) / (m − m²/2)) (scikit-learn roc_auc_score(max_fpr=m)); 1: the whole area",
    default=1.0,
    minimum=0,
    maximum=1.0,
)
LOG_BASE = Param(
    "log_base",
    "int",
    "the base b of the logarithm of discount=log2: 1/log_b(i + 1) (scikit-learn dcg_score's log_base; base e is "
    "discount=ln)",
    default=2,
    minimum=2,
)
MIN_PRECISION = Param(
    "min_precision",
    "float",
    "the precision P@j a cutoff j must reach for its recall to count (torchmetrics' min_precision)",
    default=0.0,
    maximum=1.0,
)
RECALL_AT_PRECISION_MEAN = Param(
    "mean",
    "choice",
    "how the queries combine",
    default="query",
    choices={
        "query": "mean of the per-query values",
        "curve": "the mean P@j and R@j over queries first, then the largest mean R@j whose mean P@j reaches "
        "min_precision (torchmetrics RetrievalRecallAtFixedPrecision); per-query values are each query's own",
    },
)
FALLOUT_NO_NONREL = Param(
    "no_nonrel",
    "choice",
    "what a query without non-relevant documents (N = 0) scores",
    default="zero",
    choices={
        "zero": "0 (torchmetrics retrieval_fall_out)",
        "one": "1 (torchmetrics RetrievalFallOut, empty_target_action='pos')",
        "skip": "undefined: left out of the mean and counted",
    },
)

ERR_MAX_GRADE = Param(
    "max_grade",
    "float",
    "the largest grade of the scale, g_max: a document of grade g stops the user with probability\n"
    "(2^g − 1) / 2^g_max (4 in gdeval, the TREC Web track's scale; any positive real number)",
    default=4.0,
    minimum=0,
)

F_BETA = Param(
    "beta",
    "float",
    "weight of recall against precision: F_β = (1 + β²)·P·R / (β²·P + R)",
    default=1.0,
    minimum=0,
)
F_MEAN = Param(
    "mean",
    "choice",
    "how the F-measure of many queries combines",
    default="query",
    choices={
        "query": "mean of the per-query F values (Elliot, RecTools)",
        "from_means": "F of the mean precision and the mean recall over queries (DL-RS-Eval); per-query values "
        "are each query's own F",
    },
)
AUC_MEAN = Param(
    "mean",
    "choice",
    "how the AUC of many queries combines",
    default="query",
    choices={
        "query": "mean of the per-query AUCs (per-user AUC; queries without both classes left out and counted)",
        "positives": "per-query AUCs weighted by their number of relevant documents (RecBole GAUC)",
        "pooled": "one AUC over all queries' rows pooled, compared by score across queries (stacked AUC: "
        "scikit-learn roc_auc_score on the concatenated rows; RecBole AUC, MS Recommenders)",
    },
)
AUC_ONE_CLASS = Param(
    "one_class",
    "choice",
    "what a query scores when its (top-k) list lacks relevant or non-relevant documents",
    default="undefined",
    choices={
        "undefined": "undefined: left out of the mean and counted (scikit-learn raises; RecBole drops the user)",
        "replay": "0 without a relevant document, else 1 without a non-relevant one (RePlay RocAuc)",
        "dl_rs_eval": "1 without a non-relevant document, else 0 without a relevant one (DL-RS-Eval roc_auc)",
    },
)
AUC_COMPARE = Param(
    "compare",
    "choice",
    "what orders a pair",
    default="score",
    choices={
        "score": "the scores: equal scores count one half (scikit-learn)",
        "rank": "the positions after the tie policy: no pair ties (RePlay, DL-RS-Eval, Elliot)",
        "score_ties_win": "the scores, a tied pair counting as correctly ordered (OpenRec tf1 and tf2)",
    },
)
AUC_UNJUDGED = Param(
    "unjudged",
    "choice",
    "what a ranked document without a judgment is",
    default="negative",
    choices={
        "negative": "a non-relevant document (recommendation lists: every unrated item is a negative)",
        "skip": "left out: only judged ranked documents count (MS Recommenders' inner join of truth and predictions)",
    },
)
AUC_FORM = Param(
    "form",
    "choice",
    "the per-query formula",
    default="pairs",
    choices={
        "pairs": "correctly ordered (relevant, other) pairs / (n⁺ · n⁻)",
        "elliot": "Elliot's GAUC and LAUC@k: Σ_{relevant d in the top k} of 1 − n_d/[C − R + 1], ÷ min(k, R) or "
        "÷ R without a cutoff; n_d = other documents ranked above d, C = the user's candidates (catalogue size − "
        "the user's training items: needs train=); mean=pooled is Elliot's AUC, the mean of those terms over "
        "every (query, relevant d found) pair",
    },
)

YES_NO = {"no": "no", "yes": "yes"}
COVERAGE_OVER = Param(
    "over",
    "choice",
    "what the number of distinct recommended items is divided by",
    default="catalog",
    choices={
        "catalog": "the catalogue size (catalog=, --catalog; by default the items in training): RecBole, rs_metrics",
        "train": "the number of distinct training items (RePlay Coverage, MS Recommenders catalog_coverage)",
        "count": "nothing: the absolute number of distinct recommended items (Elliot ItemCoverage)",
    },
)
COVERAGE_COUNT = Param(
    "count",
    "choice",
    "which recommended items count",
    default="recommended",
    choices={
        "recommended": "every distinct recommended item (RecBole, MS Recommenders, Elliot)",
        "known": "only those in the set divided by, the catalogue's or training items (RePlay, rs_metrics); a "
        "catalogue given only as a number holds every recommended item",
    },
)
ENTROPY_LOG = Param(
    "log", "choice", "the logarithm", default="log2",
    choices={"log2": "base 2, bits (MS Recommenders distributional_coverage)", "ln": "natural, nats (RecBole)"},
)  # fmt: skip
ENTROPY_DIVIDE = Param(
    "divide", "choice", "what H is divided by", default="none",
    choices={"none": "nothing (MS Recommenders)", "items": "the number of distinct recommended items (RecBole)"},
)  # fmt: skip
POPULARITY = Param(
    "popularity",
    "choice",
    "the total an item's popularity (its number of training users = its distinct training pairs) is taken of",
    default="users",
    choices={"users": "the number of training users", "interactions": "the number of distinct training pairs"},
)
POPULARITY_INTERACTIONS = Param(
    "popularity", "choice", POPULARITY.doc, default="interactions", choices=POPULARITY.choices,
)  # fmt: skip
COLD_ITEMS = Param(
    "cold",
    "choice",
    "the self-information of an item without training interactions",
    default="one_user",
    choices={"one_user": "log2 N, as if one user had it (RecTools, rs_metrics, RePlay)", "zero": "0 (MS Recommenders)"},
)
NORMALISE = Param("normalise", "choice", "whether I(i) is divided by log2 N (into [0, 1]; RePlay Surprisal)",
                  default="no", choices=YES_NO)  # fmt: skip
INFO_DIVIDE = Param(
    "divide",
    "choice",
    "what each list's sum is divided by",
    default="list",
    choices={"list": "its length |L[:k]|",
             "k": "the cutoff k (|L| without one), an empty list scoring 0 (RePlay Surprisal)"},
)
INFO_MEAN = Param(
    "mean",
    "choice",
    "how the values of many users combine",
    default="query",
    choices={
        "query": "mean of the per-user values",
        "rows": "Σ_u Σ_i I(i) / Σ_u |L_u[:k]|: every recommended row pooled (MS Recommenders novelty); per-user "
        "values are each list's mean",
    },
)
SHARE = Param("share", "choice", "whether φ(i) is divided by the total (per popularity)", default="no",
              choices=YES_NO)  # fmt: skip
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
SINGLE_ITEM = Param(
    "single",
    "choice",
    "the value of a list with fewer than two items (no pair)",
    default="skip",
    choices={"skip": "undefined: left out of the mean and counted (MS Recommenders)", "zero": "0 (RecTools)"},
)
SERENDIPITY_DEFINITION = Param(
    "definition",
    "choice",
    "what makes a relevant recommendation unexpected",
    default="dissimilarity",
    choices={
        "dissimilarity": "1 − its mean similarity (per kind) to the user's training items (MS Recommenders "
        "serendipity); users without training items are undefined",
        "popularity_rank": "max(0, (n + 1 − r)/n − (n + 1 − ρ(i))/n), r its rank in the list, ρ(i) its dense rank by "
        "training users (1 = most popular; 0 for an item without training interactions), n the catalogue size "
        "(RecTools Serendipity; kind is not used)",
    },
)
HEAD_SHARE = Param(
    "head_share",
    "float",
    "Elliot's short head: training items by training users descending (ties by id: integers as integers, then "
    "text) until their interactions reach head_share · all interactions, the crossing item included; every other "
    "training item is long tail",
    default=0.8,
    minimum=0,
    maximum=1,
)
TAIL_RATIO = Param(
    "tail_ratio",
    "float",
    "RecBole's tail instead of a head share: t > 1: training items with at most t interactions; t ≤ 1: the "
    "max(⌊t · n⌋, 1) least popular of the n training items (ties by id)",
    default=None,
    default_doc="unset: the tail is what head_share leaves",
    minimum=0,
)
TAIL_COUNT = Param("count", "choice", "yes: the number of long-tail items (ACLT) instead of their share (APLT)",
                   default="no", choices=YES_NO)  # fmt: skip

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

FAMILIES: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "P",
        "Precision: share of the top k that is relevant",
        "P@k = H_k / k   (k counts even when fewer than k documents were retrieved)",
        TREC_EVAL_REF + " m_P.c (P_k)",
        params=(REL, PRECISION_DENOM, RANK_BASIS, CUTOFF_INCLUSION, GATE, EMPTY),
        aliases=("Precision",),
        cutoff_required=True,
        tie_average=True,
    ),
    MeasureSpec(
        "R",
        "Recall: share of the relevant documents found in the top k",
        "R@k = H_k / R   (0 when R = 0)",
        TREC_EVAL_REF + " m_recall.c (recall_k)",
        params=(REL, RECALL_DENOM, UNIVERSE, RANK_BASIS, CUTOFF_INCLUSION, GATE, EMPTY),
        aliases=("Recall",),
        tie_average=True,
    ),
    MeasureSpec(
        "HitRate",
        "Hit rate (success): 1 if any relevant document is in the top k",
        "HitRate@k = 1 if H_k > 0 else 0",
        TREC_EVAL_REF + " m_success.c (success_k)",
        params=(REL, HIT_COUNT, EMPTY),
        aliases=("Success",),
    ),
    MeasureSpec(
        "F1",
        "F-measure: weighted harmonic mean of P@k and R@k (β = 1: F1)",
        "F@k = (1 + β²) · P@k · R@k / (β² · P@k + R@k)   (0 when both are 0); P per denom (÷ k by default,\n"
        "÷ |L| without a cutoff), R = H_k / R. mean=from_means: F of the mean P and the mean R",
        "van Rijsbergen (1979); trec_eval m_set_F.c for the uncut form",
        params=(REL, PRECISION_DENOM, F_BETA, F_MEAN, UNIVERSE, EMPTY),
        aliases=("F", "FBeta", "F1Beta"),
    ),
    MeasureSpec(
        "RR",
        "Reciprocal rank of the first relevant document",
        "RR@k = 1 / min{i ≤ k : h_i = 1}   (0 when no relevant document is in the top k)",
        TREC_EVAL_REF + " m_recip_rank.c (recip_rank); MRR is its mean over queries",
        params=(REL, RR_HITS, GATE, EMPTY),
        aliases=("MRR", "RecipRank"),
    ),
    MeasureSpec(
        "AP",
        "Average precision",
        "AP@k = (Σ_{i≤k, h_i=1} P@i) / D   where D is set by denom: R (default), min(k, R), k, H_k or\n"
        "Σ_{i≤k} min(i, R); 0 when D = 0. With precisions=every the sum runs over every rank n ≤ k (Elliot).\n"
        "MAP is its mean over queries",
        TREC_EVAL_REF + " m_map.c (map) and m_map_cut.c (map_cut_k, also ÷ R)",
        params=(REL, AP_DENOM, AP_PRECISIONS, AP_PRECISION_AT, UNIVERSE, GATE, EMPTY),
        aliases=("MAP",),
    ),
    MeasureSpec(
        "GMAP",
        "Geometric mean of average precision over queries",
        "GMAP = exp(mean_q log(max(AP_q, 1e-5)))   (per-query values are AP)",
        TREC_EVAL_REF + " m_gm_map.c (gm_map)",
        params=(REL, AP_DENOM, UNIVERSE),
        aliases=("gmAP",),
        cutoff=None,
        aggregate="gmean",
    ),
    MeasureSpec(
        "DCG",
        "Discounted cumulative gain",
        "DCG@k = Σ_{i≤k} gain(g(L_i)) / log2(i + 1)   (/ log_b(i + 1) with log_base=b)",
        "Järvelin & Kekäläinen, ACM TOIS 20(4), 2002; " + TREC_EVAL_REF + " m_ndcg.c; sklearn.metrics.dcg_score",
        params=(REL_FIXED, GAIN, DISCOUNT, RANK_BASIS, LOG_BASE),
        tie_average=True,
    ),
    MeasureSpec(
        "nDCG",
        "Normalised discounted cumulative gain",
        "nDCG@k = DCG@k / IDCG@k, where IDCG@k is the DCG@k of all judged documents sorted by gain\n"
        "(not limited to the retrieved ones); 0 when IDCG = 0",
        TREC_EVAL_REF + " m_ndcg.c (ndcg) and m_ndcg_cut.c (ndcg_cut_k)",
        params=(REL_FIXED, GAIN, DISCOUNT, RANK_BASIS, IDEAL, UNIVERSE, EMPTY),
        aliases=("NDCG",),
        tie_average=True,
    ),
    MeasureSpec(
        "Rprec",
        "R-precision: precision at rank R",
        "Rprec = H_R / R   (0 when R = 0); with mult = x: H_c / c, c = floor(x·R + 0.9)   (0 when c = 0)",
        TREC_EVAL_REF + " m_Rprec.c; m_Rprec_mult.c (Rprec_mult_x)",
        params=(REL, UNIVERSE, EMPTY, RPREC_MULT),
        aliases=("RPrec", "R-Precision"),
        cutoff=None,
    ),
    MeasureSpec(
        "bpref",
        "Binary preference: how many judged non-relevant documents rank above each relevant one",
        "bpref = (1/R) Σ_{retrieved relevant d} (1 − min(n_d, R) / min(N, R)), where n_d = judged\n"
        "non-relevant documents (0 ≤ g < rel) ranked above d and N = all judged non-relevant documents;\n"
        "a term is 1 when n_d = 0. Unjudged documents and negative grades are skipped",
        "Buckley & Voorhees, SIGIR 2004; " + TREC_EVAL_REF + " m_bpref.c",
        params=(REL, BPREF_NO_NONREL),
        aliases=("Bpref", "BPref"),
        cutoff=None,
    ),
    MeasureSpec(
        "IPrec",
        "Interpolated precision at a recall level",
        "IPrec@x = max{P@i : i ≥ rank of the c-th relevant document}, c = max(1, round(x · R))\n"
        "(rounding per `round`); 0 when fewer than c relevant documents were retrieved",
        TREC_EVAL_REF + " m_iprec_at_recall.c (iprec_at_recall_x)",
        params=(REL, RECALL_ROUNDING),
        cutoff="recall",
        cutoff_required=True,
        cutoff_doc="x: recall level in [0, 1]",
    ),
    MeasureSpec(
        "MeanRank",
        "Rank of the first relevant document (its mean over queries)",
        "MeanRank@k = min{i ≤ k : h_i = 1}   (1-based)",
        "rankwise; the rank behind reciprocal rank",
        params=(REL,),
        empty="undefined (NaN): a query without a relevant document in the top k is left out of the mean "
        "and counted in the report",
    ),
    MeasureSpec(
        "KendallTau",
        "Kendall's tau-b between run scores and judged grades",
        "tau_b = (C − D) / sqrt((n0 − n_s)(n0 − n_g)) over the retrieved judged documents of a query, with\n"
        "C/D concordant/discordant pairs, n0 = n(n−1)/2, n_s / n_g pairs tied in score / grade",
        "Kendall (1945); equal to scipy.stats.kendalltau (variant 'b')",
        cutoff=None,
        empty="undefined (NaN) when fewer than two judged documents were retrieved or all scores or all "
        "grades are equal; left out of the mean and counted in the report",
    ),
    MeasureSpec(
        "AUC",
        "Area under the ROC curve: share of (relevant, non-relevant) pairs ranked in the right order",
        "AUC@k = (Σ_{relevant d} Σ_{non-relevant e} [s_d > s_e] + ½[s_d = s_e]) / (n⁺ · n⁻) over the ranked\n"
        "documents of a query (its top k with a cutoff; unjudged documents are non-relevant; relevant\n"
        "documents missing from the ranking do not count), s the score; equal scores count one half.\n"
        "mean=query averages it over queries, mean=positives weights each query by n⁺, mean=pooled is one\n"
        "AUC over all queries' rows at once. max_fpr=m < 1: the area A under the ROC curve (tied scores one\n"
        "step) up to false-positive rate m, standardised ½(1 + (A − m²/2) / (m − m²/2)) (McClish 1989).\n"
        "compare=rank is ir_measures' Accuracy@k (with its input-order ties)",
        "Hanley & McNeil, Radiology 143(1), 1982; McClish, Medical Decision Making 9(3), 1989; equal to "
        "sklearn.metrics.roc_auc_score (max_fpr too)",
        params=(REL, AUC_MEAN, AUC_ONE_CLASS, AUC_COMPARE, AUC_UNJUDGED, AUC_FORM, AUC_MAX_FPR),
        aliases=("ROCAUC", "RocAuc"),
        empty="per one_class: undefined (left out and counted) or RePlay's 0 / 1",
    ),
    MeasureSpec(
        "SetP",
        "Set precision: share of the retrieved documents that is relevant",
        "SetP = H / |L|   (0 when nothing was retrieved)",
        TREC_EVAL_REF + " m_set_P.c (set_P); ir_measures SetP",
        params=(REL,),
        cutoff=None,
    ),
    MeasureSpec(
        "RelP",
        "Relative precision: hits in the top k over the most the top k can hold",
        "RelP@k = H_k / min(k, R); without a cutoff H / min(|L|, R)   (0 when the denominator is 0)",
        TREC_EVAL_REF + " m_rel_P.c (relative_P_k) and m_set_rel_P.c (set_relative_P)",
        params=(REL,),
    ),
    MeasureSpec(
        "SetMAP",
        "Set average precision: the AP of an unranked set, set precision times recall",
        "SetMAP = (H / |L|) · (H / R) = H² / (|L| · R)   (0 when |L| = 0 or R = 0)",
        TREC_EVAL_REF + " m_set_map.c (set_map)",
        params=(REL,),
        cutoff=None,
    ),
    MeasureSpec(
        "IPrecAvg",
        "Mean interpolated precision over recall levels (11-point average precision by default)",
        "IPrecAvg = (1/|X|) Σ_{x∈X} IPrec@x, X = levels (0, 0.1, ..., 1 by default); IPrec@x as in IPrec:\n"
        "max{P@i : i ≥ rank of the c-th relevant document}, c = round(x · R) (per `round`), the largest\n"
        "precision anywhere when c = 0, and 0 when fewer than c relevant documents were retrieved",
        TREC_EVAL_REF + " m_11pt_avg.c (11pt_avg)",
        params=(REL, IPREC_LEVELS, RECALL_ROUNDING),
        cutoff=None,
    ),
    MeasureSpec(
        "infAP",
        "Inferred average precision: AP estimated from a sampled judgment pool",
        "infAP = (1/R) Σ_{retrieved relevant d at rank i} e_i, e_1 = 1, otherwise\n"
        "e_i = 1/i + ((i−1)/i) · (n_pool / (i−1)) · (n_rel + ε) / (n_rel + n_nonrel + 2ε), where among the i−1\n"
        "documents above d n_rel are relevant, n_nonrel judged non-relevant (0 ≤ g < rel), n_pool = n_rel +\n"
        "n_nonrel + those in the pool but unjudged (negative grades); documents outside the qrels are skipped,\n"
        "ε = 1e-5",
        "Yilmaz & Aslam, CIKM 2006; " + TREC_EVAL_REF + " m_infap.c (infAP)",
        params=(REL,),
        aliases=("InfAP",),
        cutoff=None,
    ),
    MeasureSpec(
        "GMbpref",
        "Geometric mean of bpref over queries",
        "GMbpref = exp(mean_q log(max(bpref_q, 1e-5)))   (per-query values are bpref)",
        TREC_EVAL_REF + " m_gm_bpref.c (gm_bpref)",
        params=(REL, BPREF_NO_NONREL),
        cutoff=None,
        aggregate="gmean",
    ),
    MeasureSpec(
        "binG",
        "Binary G: each relevant document discounted by the non-relevant documents ranked above it",
        "binG = (1/R) Σ_{retrieved relevant d} 1 / log2(2 + n_d), n_d = documents ranked above d that are not\n"
        "relevant (judged or not)",
        TREC_EVAL_REF + " m_binG.c (binG)",
        params=(REL,),
        aliases=("BinG",),
        cutoff=None,
    ),
    MeasureSpec(
        "G",
        "Normalised gain (trec_eval's experimental G): each gain discounted by how far the gain so far lags the ideal",
        "G = Σ_{i: gain_i ≠ 0} gain_i / log2(2 + C_i − S_i) ÷ Σ_j I_j, S_i = Σ_{j≤i} gain_j,\n"
        "C_i = Σ_{j≤i} max(I_j, 1), I_j the j-th largest positive gain among the judged documents (0 past them);\n"
        "0 when there is none",
        TREC_EVAL_REF + " m_G.c (G)",
        params=(REL_FIXED, GAIN),
        aliases=("NormalisedGain", "NormalizedGain"),
        cutoff=None,
    ),
    MeasureSpec(
        "IDCG",
        "Ideal discounted cumulative gain: the DCG of the judged documents sorted by gain",
        "IDCG@k = Σ_{j≤k} I_j / log2(j + 1), I_j the j-th largest positive gain among the judged documents\n"
        "(universe=retrieved: among the ranked ones)",
        "Järvelin & Kekäläinen, ACM TOIS 20(4), 2002; " + TREC_EVAL_REF + " m_ndcg.c (ideal_dcg)",
        params=(REL_FIXED, GAIN, DISCOUNT, UNIVERSE, LOG_BASE),
        aliases=("IdealDCG",),
        tie_average=True,
    ),
    MeasureSpec(
        "nDCGRel",
        "nDCG averaged over the relevant documents (trec_eval's experimental ndcg_rel)",
        "nDCGRel = (1/R⁺) (Σ_{retrieved i: gain_i > 0} DCG@i / IDCG@min(i, R⁺) + (R⁺ − H⁺) · DCG / IDCG), R⁺ the\n"
        "judged documents with a positive gain, H⁺ those retrieved, DCG and IDCG over the whole ranking (0 when the\n"
        "sum is not positive)",
        TREC_EVAL_REF + " m_ndcg_rel.c (ndcg_rel)",
        params=(REL_FIXED, GAIN),
        cutoff=None,
    ),
    MeasureSpec(
        "RnDCG",
        "nDCG averaged at the ranks where the ideal gain changes (trec_eval's experimental Rndcg)",
        "RnDCG = mean over B ∪ X of nDCG: B the ideal ranks j ≤ R⁺ whose next ideal gain differs (I_{j+1} ≠ I_j,\n"
        "I_{R⁺+1} = 0), each giving DCG@min(j, |L|) / IDCG@j; X = {|L|} when |L| > R⁺ + 1, giving DCG / IDCG.\n"
        "R⁺: judged documents with a positive gain (grades ≥ 1; grade 0 too when a grade map names it). 0 when R = 0\n"
        "(no document graded >= rel); undefined (trec_eval's 0/0) when R > 0 but R⁺ = 0",
        TREC_EVAL_REF + " m_Rndcg.c (Rndcg)",
        params=(RNDCG_REL, GAIN),
        cutoff=None,
        empty="0 (R = 0); undefined when R > 0 and no judged document has a positive gain (trec_eval prints -nan)",
    ),
    MeasureSpec(
        "YAAP",
        "Yet another average precision (Robertson): a log-odds form of AP that averages better across queries",
        "YAAP = ln((1 + S) / (1 + R − S)), S = Σ_{retrieved relevant at rank i} H_i / i (AP = S / R)",
        "Robertson, 'On smoothing average precision', ECIR 2012; " + TREC_EVAL_REF + " m_yaap.c (yaap)",
        params=(REL,),
        cutoff=None,
        empty="0 (S = R = 0: ln 1)",
    ),
    MeasureSpec(
        "Utility",
        "Linear utility of the retrieved set",
        "Utility = a·H + b·(|L| − H) + c·(R − H) + d·(N + H − |L| − R), a..d = rel_ret, nonrel_ret,\n"
        "rel_not_ret, nonrel_not_ret (1, −1, 0, 0 by default), N = docs",
        TREC_EVAL_REF + " m_utility.c (utility)",
        params=(REL, *UTILITY_COEFFICIENTS, COLLECTION_SIZE),
        cutoff=None,
    ),
    MeasureSpec(
        "NumNonRelJudgedRet",
        "Number of judged non-relevant documents retrieved",
        "NumNonRelJudgedRet = |{d ∈ L : 0 ≤ g(d) < rel}|; summed",
        TREC_EVAL_REF + " m_num_nonrel_judged_ret.c",
        params=(REL,),
        cutoff=None,
        aggregate="sum",
        is_count=True,
    ),
    MeasureSpec(
        "Judged",
        "Share of the top k that has a judgment",
        "Judged@k = |{d ∈ L[:k] : d in the qrels}| / |L[:k]|   (any grade, negative ones too; 0 for an empty\nranking)",
        "ir_measures Judged (MacAvaney et al.)",
        tie_average=True,
    ),
    MeasureSpec(
        "Unjudged",
        "Share of the top k without a usable judgment (trec_eval's unj)",
        "Unjudged@k = |{d ∈ L[:k] : d not in the qrels, or g(d) < 0}| / k   (k counts even for shorter rankings)",
        TREC_EVAL_REF + " m_unjudged.c (unj_k)",
        cutoff_required=True,
        tie_average=True,
    ),
    MeasureSpec(
        "RBP",
        "Rank-biased precision",
        "RBP = (1 − p) Σ_i gain(L_i) · p^(i−1); gain = g / G_q when the query's largest grade G_q exceeds 1,\n"
        "else g (grades normalised to [0, 1] as trec_eval does); unjudged and negative grades gain 0.\n"
        "gain=binary: 1 when g >= rel_level. horizon=N: Σ_{i≤N} gain(L_i) p^(i−1) / Σ_{i≤N} p^(i−1) (cwl_eval)",
        "Moffat & Zobel, ACM TOIS 27(1), 2008; " + TREC_EVAL_REF + " m_rbp.c (rbp); " + CWL_REF + " RBPCWLMetric",
        params=(PERSISTENCE, RBP_GAIN, RBP_HORIZON),
        cutoff=None,
    ),
    MeasureSpec(
        "RBPResidual",
        "Residual of rank-biased precision: how much RBP could still grow if unjudged documents were relevant",
        "RBPResidual = p^|L| + (1 − p) Σ_{i : L_i unjudged or g < 0} p^(i−1)   (0 when no retrieved document is\n"
        "unjudged, as in trec_eval)",
        "Moffat & Zobel, ACM TOIS 27(1), 2008; " + TREC_EVAL_REF + " m_rbp_resid.c (rbp_resid)",
        params=(PERSISTENCE,),
        cutoff=None,
    ),
    MeasureSpec(
        "INST",
        "INST: expected gain per document of a user who adapts to the goal T still to collect (C/W/L)",
        "INST = EU with C_i = ((i + T + T_i − 1) / (i + T + T_i))², T_i = T − Σ_{j≤i} g_j;\n" + CWL_NOTATION,
        "Moffat, Bailey, Scholer & Thomas, ADCS 2015; " + CWL_REF + " INSTCWLMetric; ir_measures INST",
        params=(CWL_GOAL, CWL_SCALE, CWL_HORIZON),
        cutoff=None,
    ),
    MeasureSpec(
        "INSQ",
        "INSQ: expected gain per document of a user with goal T who does not adapt (C/W/L)",
        "INSQ = EU with C_i = ((i + 2T − 1) / (i + 2T))²;\n" + CWL_NOTATION,
        "Moffat, Scholer & Thomas, ADCS 2012; " + CWL_REF + " INSQCWLMetric; ir_measures INSQ",
        params=(CWL_GOAL, CWL_SCALE, CWL_HORIZON),
        cutoff=None,
    ),
    MeasureSpec(
        "BPM",
        "Bejeweled player model: the user stops once the gain reaches T or K documents are read (C/W/L)",
        "BPM@K = EU with C_i = 1 while, at every rank l ≤ i, Σ_{j≤l} g_j < T_l and l < K_l, else 0;\n"
        "T_l = T + hb Σ_{j<l} (g_j − med), K_l = K + hc Σ_{j<l} (g_j − med) (hb = hc = 0: BPM-Static);\n"
        + CWL_NOTATION,
        "Zhang et al., SIGIR 2017; " + CWL_REF + " BPMCWLMetric (static) and BPMDCWLMetric (dynamic); ir_measures BPM",
        params=(CWL_GOAL, *BPM_STEPS, BPM_MEDIAN, CWL_SCALE, CWL_HORIZON),
        cutoff_required=True,
        cutoff_doc="K: the patience, the most documents the user reads (BPM-Static)",
    ),
    MeasureSpec(
        "NERR8",
        "Not (but nearly) ERR, Eq. 8: the cascade user stops at a document with probability g, at k at the latest",
        "NERR8@k = EU with C_i = 1 − g_i for i < k, 0 from k on;\n" + CWL_NOTATION,
        "Azzopardi, Mackenzie & Moffat, ICTIR 2021 (Eq. 8); " + CWL_REF + " NERReq8CWLMetric; ir_measures NERR8",
        params=(CWL_SCALE, CWL_HORIZON),
        cutoff_required=True,
    ),
    MeasureSpec(
        "NERR9",
        "Not (but nearly) ERR, Eq. 9: NERR8 with a reciprocal-rank patience",
        "NERR9@k = EU with C_i = (i / (i + 1)) (1 − g_i) for i < k, 0 from k on;\n" + CWL_NOTATION,
        "Azzopardi, Mackenzie & Moffat, ICTIR 2021 (Eq. 9); " + CWL_REF + " NERReq9CWLMetric; ir_measures NERR9",
        params=(CWL_SCALE, CWL_HORIZON),
        cutoff_required=True,
    ),
    MeasureSpec(
        "NERR10",
        "Not (but nearly) ERR, Eq. 10: the cascade user with RBP's persistence p",
        "NERR10 = EU with C_i = p (1 − g_i);\n" + CWL_NOTATION,
        "Azzopardi, Mackenzie & Moffat, ICTIR 2021 (Eq. 10); " + CWL_REF + " NERReq10CWLMetric; ir_measures NERR10",
        params=(PERSISTENCE, CWL_SCALE, CWL_HORIZON),
        cutoff=None,
    ),
    MeasureSpec(
        "NERR11",
        "Not (but nearly) ERR, Eq. 11: the cascade user with INSQ's goal T",
        "NERR11 = EU with C_i = ((i + 2T − 1) / (i + 2T))² (1 − g_i);\n" + CWL_NOTATION,
        "Azzopardi, Mackenzie & Moffat, ICTIR 2021 (Eq. 11); " + CWL_REF + " NERReq11CWLMetric; ir_measures NERR11",
        params=(CWL_GOAL, CWL_SCALE, CWL_HORIZON),
        cutoff=None,
    ),
    MeasureSpec(
        "SDCG",
        "Scaled DCG: DCG@k over the DCG@k of k documents of gain 1, as if k relevant documents existed (C/W/L)",
        "SDCG@k = EU with C_i = log(i + 1) / log(i + 2) for i < k, 0 from k on:\n"
        "Σ_{i≤k} g_i / log2(i + 1) ÷ Σ_{i≤min(k,N)} 1 / log2(i + 1); " + CWL_NOTATION,
        "Järvelin & Kekäläinen 2002 in C/W/L form; " + CWL_REF + " NDCGCWLMetric (NDCG-k); ir_measures SDCG",
        params=(CWL_SCALE, CWL_HORIZON),
        cutoff_required=True,
    ),
    MeasureSpec(
        "Compat",
        "Compatibility: rank-biased overlap of the ranking with the ideal ranking closest to it",
        "Compat = RBO(L, I) / RBO(I, I) (normalise=yes; RBO(L, I) with no), RBO(X, Y) = Σ_{d≤D} p^(d−1)\n"
        "|X[:d] ∩ Y[:d]| / d ÷ Σ_{d≤D} p^(d−1), D = max(|L|, |I|); I = every judged document with grade > 0, by\n"
        "grade descending, equal grades in the order of L, unretrieved ones after them; 0 when I is empty",
        "Clarke, Vtyurina & Smucker, ACM TOIS 39(2), 2021; ir_measures Compat (compat provider)",
        params=(COMPAT_PERSISTENCE, COMPAT_NORMALISE),
        cutoff=None,
    ),
    MeasureSpec(
        "CoverageError",
        "Coverage error: how far down the ranking one reads to see every relevant document (ties pessimistic)",
        "CoverageError = max_{ranked relevant d} |{e ∈ L : s_e >= s_d}|   (0 without a relevant ranked document;\n"
        "unjudged documents are not relevant; relevant documents not ranked do not count)",
        "Tsoumakas, Katakis & Vlahavas 2010; equal to sklearn.metrics.coverage_error (a query is a sample, its "
        "ranked documents the labels)",
        params=(REL,),
        cutoff=None,
    ),
    MeasureSpec(
        "LabelRankingLoss",
        "Ranking loss: share of (relevant, non-relevant) pairs ordered wrongly, ties counting as wrong",
        "LabelRankingLoss = |{(d, e) : d relevant, e not, s_d <= s_e}| / (n⁺ · n⁻) over the ranked documents\n"
        "(unjudged ones non-relevant); 0 when either class is missing",
        "Tsoumakas, Katakis & Vlahavas 2010; equal to sklearn.metrics.label_ranking_loss (a query is a sample, its "
        "ranked documents the labels)",
        params=(REL,),
        aliases=("RankingLoss",),
        cutoff=None,
    ),
    MeasureSpec(
        "FallOut",
        "Fall-out: share of the non-relevant documents that the top k retrieves",
        "FallOut@k = |{d ∈ L[:k] : d not relevant}| / N; universe=judged: documents judged below rel (0 <= g < rel),\n"
        "N those in the qrels; universe=retrieved: ranked documents below rel or unjudged, N those in the ranking.\n"
        "N = 0 per no_nonrel",
        "Salton & McGill 1983; torchmetrics RetrievalFallOut (universe=retrieved)",
        params=(REL, UNIVERSE, FALLOUT_NO_NONREL),
        tie_average=True,
    ),
    MeasureSpec(
        "RecallAtPrecision",
        "Recall at a fixed precision: the largest R@j, j ≤ k, whose P@j reaches min_precision",
        "RecallAtPrecision@k = max{H_j / R : j ≤ k, H_j / j >= min_precision}   (0 when no j qualifies or R = 0);\n"
        "mean=curve: max{mean_q R@j : mean_q P@j >= min_precision}",
        "torchmetrics RetrievalRecallAtFixedPrecision (mean=curve, universe=retrieved; it also returns the best j)",
        params=(REL, MIN_PRECISION, UNIVERSE, RECALL_AT_PRECISION_MEAN),
        aliases=("RecallAtFixedPrecision", "RetrievalRecallAtFixedPrecision"),
        cutoff_required=True,
        cutoff_doc="k: the largest cutoff j considered (torchmetrics' max_k)",
    ),
    MeasureSpec(
        "NumQ",
        "Number of queries evaluated",
        "NumQ = 1 per query; summed",
        TREC_EVAL_REF + " m_num_q.c",
        cutoff=None,
        aggregate="sum",
        is_count=True,
        tie_average=True,
    ),
    MeasureSpec(
        "NumRet",
        "Number of documents retrieved (after the depth cut)",
        "NumRet = |L|; summed",
        TREC_EVAL_REF + " m_num_ret.c",
        cutoff=None,
        aggregate="sum",
        is_count=True,
        tie_average=True,
    ),
    MeasureSpec(
        "NumRel",
        "Number of relevant judged documents",
        "NumRel = R; summed",
        TREC_EVAL_REF + " m_num_rel.c",
        params=(REL,),
        cutoff=None,
        aggregate="sum",
        is_count=True,
        tie_average=True,
    ),
    MeasureSpec(
        "NumRelRet",
        "Number of relevant documents retrieved (in the top k)",
        "NumRelRet@k = H_k; summed",
        TREC_EVAL_REF + " m_num_rel_ret.c; ranx hits@k",
        params=(REL,),
        aggregate="sum",
        is_count=True,
        tie_average=True,
    ),
    MeasureSpec(
        "ERR",
        "Expected reciprocal rank: the cascade user stops at rank i with probability r_i",
        "ERR@k = Σ_{i≤k} (r_i / i) Π_{j<i} (1 − r_j),  r_i = (2^g − 1) / 2^max_grade for g = g(L_i) > 0, else 0\n"
        "(unjudged documents and grades ≤ 0 stop no one); a judged grade above max_grade is refused",
        "Chapelle, Metzler, Zhang & Grinberg, CIKM 2009; gdeval.pl (TREC Web track, MAX_JUDGMENT = 4)",
        params=(ERR_MAX_GRADE,),
    ),
    MeasureSpec(
        "nERR",
        "Normalised expected reciprocal rank",
        "nERR@k = ERR@k / ERR@k of the ideal ranking (every judged document sorted by grade, descending);\n"
        "0 when that is 0. r_i as in ERR",
        "Chapelle et al., CIKM 2009; the ideal-ranking normalisation of ndeval's nERR-IA with one subtopic",
        params=(ERR_MAX_GRADE,),
        aliases=("NERR",),
    ),
    MeasureSpec(
        "Coverage",
        "Catalogue coverage: distinct items recommended in the top k of all lists (global, one value)",
        "Coverage@k = |∪_u L_u[:k] ∩ S| / |D|, D per over (catalogue, training items, or no division), S per\n"
        "count (every item, or only D's). Global: per-query values are undefined",
        "Ge, Delgado-Battenfeld & Jannach, RecSys 2010; RePlay Coverage, RecBole ItemCoverage, MS Recommenders "
        "catalog_coverage, rs_metrics coverage, Elliot ItemCoverage (rankwise.recsys.beyond.coverage)",
        params=(COVERAGE_OVER, COVERAGE_COUNT),
        aliases=("ItemCoverage", "CatalogCoverage"),
        aggregate="global",
        empty="no per-query value: one value over all lists",
    ),
    MeasureSpec(
        "Gini",
        "Gini index of how often each catalogue item is recommended (0: evenly; → 1: a few items take all slots)",
        "Gini@k = Σ_{j=1..n} (2j − n − 1) c_(j) / (n Σ_j c_(j)), n the catalogue size (catalog=, else the\n"
        "training items), c_(j) the top-k recommendation counts sorted ascending, unrecommended items 0. Global",
        "LensKit ListGini, RecBole GiniIndex (rankwise.recsys.beyond.gini_index)",
        aliases=("GiniIndex",),
        aggregate="global",
        empty="no per-query value: one value over all lists",
    ),
    MeasureSpec(
        "Entropy",
        "Shannon entropy of how often each item is recommended in the top k (global, one value)",
        "Entropy@k = −Σ_i p_i log p_i, p_i = c_i / Σ_j c_j, c_i the lists holding item i in their top k;\n"
        "log per log, ÷ the distinct items with divide=items. Global",
        "Shannon 1948; MS Recommenders distributional_coverage, RecBole ShannonEntropy "
        "(rankwise.recsys.beyond.shannon_entropy)",
        params=(ENTROPY_LOG, ENTROPY_DIVIDE),
        aliases=("ShannonEntropy", "DistributionalCoverage"),
        aggregate="global",
        empty="no per-query value: one value over all lists",
    ),
    MeasureSpec(
        "Novelty",
        "Novelty: share of the top k the user did not interact with in training (needs train=)",
        "Novelty@k = 1 − |L[:k] ∩ T_u| / |L[:k]|, T_u the user's training items; undefined for an empty list",
        "RePlay Novelty (rankwise.recsys.beyond.unseen_share)",
        aliases=("UnseenShare",),
    ),
    MeasureSpec(
        "SelfInformation",
        "Novelty as self-information (surprisal) of the recommended items (needs train=)",
        "SelfInformation@k = Σ_{i∈L[:k]} I(i) / D, I(i) = −log2 p(i), p(i) = n_users(i) / N (N: training users\n"
        "or pairs per popularity; cold items per cold; ÷ log2 N with normalise=yes), D = |L[:k]| or k (divide)",
        "Zhou et al., PNAS 2010; RecTools MeanInvUserFreq, rs_metrics surprisal, RePlay Surprisal, MS Recommenders "
        "novelty (rankwise.recsys.beyond.self_information)",
        params=(POPULARITY, COLD_ITEMS, NORMALISE, INFO_DIVIDE, INFO_MEAN),
        aliases=("Surprisal", "MeanInvUserFreq"),
    ),
    MeasureSpec(
        "ARP",
        "Average recommendation popularity: mean training popularity of the top k (needs train=)",
        "ARP@k = Σ_{i∈L[:k]} φ(i) / |L[:k]|, φ(i) = the item's training users (÷ N with share=yes, N per\n"
        "popularity); items without training interactions 0",
        "Abdollahpouri et al. 2019; RecTools AvgRecPopularity, RecBole AveragePopularity, Elliot ARP, rs_metrics "
        "popularity (rankwise.recsys.beyond.average_popularity)",
        params=(POPULARITY_INTERACTIONS, SHARE),
        aliases=("AveragePopularity", "AvgRecPopularity"),
    ),
    MeasureSpec(
        "ILD",
        "Intra-list diversity: the mean distance between the items of each top-k list (needs train= or features=)",
        "ILD@k = Σ_{a<b ∈ L[:k]} d(a, b) / (n(n−1)/2), n = |L[:k]|, d = 1 − cos(a, b) per kind (feature_hamming: the\n"
        "number of differing 0/1 features); computed from ‖Σ_a e_a‖² without enumerating pairs. single per single",
        "Ziegler et al., WWW 2005; MS Recommenders diversity/user_diversity, RecTools IntraListDiversity "
        "(rankwise.recsys.beyond.intra_list_diversity)",
        params=(SIMILARITY_KIND, SINGLE_ITEM),
        aliases=("IntraListDiversity", "Diversity"),
        empty="per single (no pair)",
    ),
    MeasureSpec(
        "Serendipity",
        "Serendipity: relevant recommendations that are also unexpected (needs train=)",
        "Serendipity@k = Σ_{i ∈ L[:k]} u(i) · rel(i) / |L[:k]|, rel(i) = 1 when g(i) >= rel, u(i) per definition\n"
        "(1 − mean cos to the user's training items, or the popularity-rank surplus of RecTools)",
        "Ge, Delgado-Battenfeld & Jannach, RecSys 2010; MS Recommenders serendipity, RecTools Serendipity "
        "(rankwise.recsys.beyond.serendipity)",
        params=(REL, SERENDIPITY_DEFINITION, SIMILARITY_KIND),
    ),
    MeasureSpec(
        "Unexpectedness",
        "Unexpectedness: share of the top k not in a baseline model's top k for the user (needs baseline=)",
        "Unexpectedness@k = 1 − |L[:k] ∩ B[:k]| / k, B the baseline's list for the user (score descending, equal\n"
        "scores in input order); 0 for a user without a baseline list",
        "Murakami et al., ECIR 2008 / Adamopoulos & Tuzhilin 2014; RePlay Unexpectedness "
        "(rankwise.recsys.beyond.unexpectedness)",
        cutoff_required=True,
    ),
    MeasureSpec(
        "LongTail",
        "Long-tail share of the top k: recommendations of items outside the popular short head (needs train=)",
        "LongTail@k = |L[:k] ∩ Γ| / |L[:k]| (APLT; count=yes: |L[:k] ∩ Γ|, ACLT), Γ the long-tail training items\n"
        "per head_share or tail_ratio; undefined for an empty list (ACLT: 0)",
        "Abdollahpouri, Burke & Mobasher, RecSys 2017 / FLAIRS 2019; Elliot APLT and ACLT, RecBole TailPercentage "
        "(rankwise.recsys.beyond.long_tail)",
        params=(HEAD_SHARE, TAIL_RATIO, TAIL_COUNT),
        aliases=("APLT", "TailPercentage"),
        exclusive=("head_share", "tail_ratio"),
    ),
    MeasureSpec(
        "alpha-DCG",
        "α-DCG: DCG over subtopics, each repeat of a covered subtopic discounted by 1 − α (needs subtopics=)",
        "alpha-DCG@k = Σ_{i≤k} G_i / log2(i+1) ÷ Σ_{i≤k} S(1 − α)^(i−1) / log2(i+1) (a ranking relevant to every\n"
        "subtopic scores 1);\n" + INTENT_NOTATION,
        "Clarke et al., SIGIR 2008; " + NDEVAL_REF + " computeDCG",
        params=(REL, ALPHA, NORM_AT_1, NO_SUBTOPICS),
        aliases=("alpha_DCG", "AlphaDCG"),
        cutoff_required=True,
        empty=INTENT_EMPTY,
    ),
    MeasureSpec(
        "alpha-nDCG",
        "α-nDCG: novelty- and diversity-aware nDCG over subtopic judgments (needs subtopics=)",
        "alpha-nDCG@k = α-DCG@k ÷ α-DCG@k of the ideal ranking (0 when α-DCG@k = 0);\n" + INTENT_IDEAL + ";\n"
        + INTENT_NOTATION,
        "Clarke et al., SIGIR 2008; " + NDEVAL_REF + " computeDCG, idealResult",
        params=(REL, ALPHA, NO_SUBTOPICS),
        aliases=("alpha_nDCG", "AlphaNDCG"),
        cutoff_required=True,
        empty=INTENT_EMPTY,
    ),
    MeasureSpec(
        "ERR-IA",
        "Intent-aware expected reciprocal rank (needs subtopics=)",
        "ERR-IA@k = Σ_{i≤k} G_i / i ÷ Σ_{i≤k} S(1 − α)^(i−1) / i: Chapelle et al.'s ERR-IA (uniform intents, stop\n"
        "probability α) over its value on a ranking relevant to every subtopic;\n" + INTENT_NOTATION,
        "Chapelle et al., Information Retrieval 14(6), 2011; " + NDEVAL_REF + " computeERR",
        params=(REL, ALPHA, NORM_AT_1, NO_SUBTOPICS),
        aliases=("ERR_IA", "ERRIA"),
        cutoff_required=True,
        empty=INTENT_EMPTY,
    ),
    MeasureSpec(
        "nERR-IA",
        "Intent-aware ERR normalised by the ideal ranking (needs subtopics=)",
        "nERR-IA@k = ERR-IA@k ÷ ERR-IA@k of the ideal ranking (0 when ERR-IA@k = 0);\n" + INTENT_IDEAL + ";\n"
        + INTENT_NOTATION,
        "Chapelle et al., Information Retrieval 14(6), 2011; " + NDEVAL_REF + " computeERR, renormalize",
        params=(REL, ALPHA, NO_SUBTOPICS),
        aliases=("nERR_IA", "nERRIA"),
        cutoff_required=True,
        empty=INTENT_EMPTY,
    ),
    MeasureSpec(
        "NRBP",
        "Novelty- and rank-biased precision (needs subtopics=)",
        "NRBP = (1 − (1 − α)β) / S · Σ_i G_i β^(i−1) over the whole ranking;\n" + INTENT_NOTATION,
        "Clarke, Kolla & Vechtomova, ICTIR 2009; " + NDEVAL_REF + " computeNRBP",
        params=(REL, ALPHA, BETA, NO_SUBTOPICS),
        cutoff=None,
        empty=INTENT_EMPTY,
    ),
    MeasureSpec(
        "nNRBP",
        "NRBP normalised by the ideal ranking (needs subtopics=)",
        "nNRBP = NRBP ÷ NRBP of the ideal ranking of every relevant judged document;\n" + INTENT_IDEAL + ";\n"
        + INTENT_NOTATION,
        "Clarke, Kolla & Vechtomova, ICTIR 2009; " + NDEVAL_REF + " computeNRBP, renormalize",
        params=(REL, ALPHA, BETA, NO_SUBTOPICS),
        cutoff=None,
        empty=INTENT_EMPTY,
    ),
    MeasureSpec(
        "AP-IA",
        "Intent-aware average precision: the mean over subtopics of each subtopic's AP (needs subtopics=)",
        "AP-IA = (1/S) Σ_s (1/R_s) Σ_{i: J(L_i, s)} |{j ≤ i : J(L_j, s)}| / i over the whole ranking, R_s the\n"
        "documents judged relevant to s; MAP-IA is its mean over queries",
        "Agrawal et al., WSDM 2009; " + NDEVAL_REF + " computeMAP (MAP-IA)",
        params=(REL, NO_SUBTOPICS),
        aliases=("MAP-IA", "AP_IA", "MAP_IA"),
        cutoff=None,
        empty=INTENT_EMPTY,
    ),
    MeasureSpec(
        "P-IA",
        "Intent-aware precision: the mean over subtopics of each subtopic's P@k (needs subtopics=)",
        "P-IA@k = Σ_{i≤k} Σ_s J(L_i, s) / (k · S)   (k counts even when fewer than k documents were retrieved)",
        "Agrawal et al., WSDM 2009; " + NDEVAL_REF + " computePrecision",
        params=(REL, NO_SUBTOPICS),
        aliases=("PIA", "P_IA"),
        cutoff_required=True,
        empty=INTENT_EMPTY,
    ),
    MeasureSpec(
        "StRecall",
        "Subtopic recall: share of the subtopics covered by the top k (needs subtopics=)",
        "StRecall@k = |{s : J(L_i, s) = 1 for some i ≤ k}| / S",
        "Zhai, Cohen & Lafferty, SIGIR 2003; " + NDEVAL_REF + " computeSTRecall (strec)",
        params=(REL, NO_SUBTOPICS),
        aliases=("strec", "S-recall", "SubtopicRecall"),
        cutoff_required=True,
        empty=INTENT_EMPTY,
    ),
)

_BY_NAME = {spec.name: spec for spec in FAMILIES}


def _build_lookup() -> dict[str, str]:
    lookup: dict[str, str] = {}
    for spec in FAMILIES:
        for name in (spec.name, *spec.aliases):
            key = name.lower()
            if key in lookup and lookup[key] != spec.name:
                raise RuntimeError(f"measure name {name!r} is ambiguous")
            lookup[key] = spec.name
    return lookup


_LOOKUP = _build_lookup()


def family(name: str) -> MeasureSpec:
    """The family called ``name`` (canonical name or alias, any case)."""
    canonical = _LOOKUP.get(name.lower())
    if canonical is None:
        raise MeasureError(f"unknown measure {name!r}{suggest(name)}")
    return _BY_NAME[canonical]


def canonical_family_name(name: str) -> str | None:
    """Canonical family name for a name or alias (any case), or None."""
    return _LOOKUP.get(name.lower())


def family_names() -> list[str]:
    """Every canonical name and alias, for suggestions."""
    return [n for spec in FAMILIES for n in (spec.name, *spec.aliases)]


def suggest(name: str) -> str:
    """'; did you mean ...?' for the names closest to ``name``, each once (empty when none is close)."""
    candidates = family_names() + all_trec_names()
    base = re.split(r"[(@._]", name, maxsplit=1)[0] or name
    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)
    close += [c for c in difflib.get_close_matches(base, candidates, n=3, cutoff=0.5) if c not in close]
    lowered = [c for c in candidates if c.lower() == base.lower()]  # the same name in another case comes first
    unique: dict[str, str] = {}
    for candidate in lowered + close:
        unique.setdefault(candidate.lower(), candidate)  # each name once, in its first spelling
    shown = list(unique.values())[:3]
    return f"; did you mean {', '.join(shown)}?" if shown else "; `rankwise measures` lists them all"


use_catalog(family)
