"""Intent-aware families over subtopic judgments: novelty and diversity (ndeval).

Their kernels: :mod:`rankwise.kernels.intent`. The notation of the formulas, the order of the families and how to
add a measure: :mod:`rankwise.measures.catalog`.
"""

from __future__ import annotations

from .params import ALPHA, BETA, INTENT_EMPTY, INTENT_IDEAL, INTENT_NOTATION, NDEVAL_REF, NO_SUBTOPICS, NORM_AT_1, REL
from .spec import MeasureSpec

FAMILIES: tuple[MeasureSpec, ...] = (
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
