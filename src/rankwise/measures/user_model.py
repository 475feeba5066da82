"""User-model families: RBP, ERR, the C/W/L measures and Compat.

Their kernels: :mod:`rankwise.kernels.user_model`. The notation of the formulas, the order of the families and how to
add a measure: :mod:`rankwise.measures.catalog`.
"""

from __future__ import annotations

from .params import CWL_GOAL, CWL_HORIZON, CWL_NOTATION, CWL_REF, CWL_SCALE, ERR_MAX_GRADE, PERSISTENCE, TREC_EVAL_REF
from .spec import MeasureSpec, Param

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

FAMILIES: tuple[MeasureSpec, ...] = (
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
)
