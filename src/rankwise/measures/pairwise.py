"""Pairwise families: rank correlation, ROC AUC and the label-ranking measures.

Their kernels: :mod:`rankwise.kernels.pairwise`. The notation of the formulas, the order of the families and how to
add a measure: :mod:`rankwise.measures.catalog`.
"""

from __future__ import annotations

from .params import REL
from .spec import MeasureSpec, Param

AUC_MAX_FPR = Param(
    "max_fpr",
    "float",
    "partial AUC: the area A under the ROC curve up to this false-positive rate m, McClish-standardised, "
    "½(1 + (A − m²/2) / (m − m²/2)) (scikit-learn roc_auc_score(max_fpr=m)); 1: the whole area",
    default=1.0,
    minimum=0,
    maximum=1.0,
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

FAMILIES: tuple[MeasureSpec, ...] = (
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
)
