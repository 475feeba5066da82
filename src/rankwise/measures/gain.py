"""Graded-gain families: DCG, nDCG and trec_eval's gain-based measures.

Their kernels: :mod:`rankwise.kernels.gain`. The notation of the formulas, the order of the families and how to
add a measure: :mod:`rankwise.measures.catalog`.
"""

from __future__ import annotations

from .params import DISCOUNT, EMPTY, GAIN, LOG_BASE, RANK_BASIS, REL, REL_FIXED, TREC_EVAL_REF, UNIVERSE
from .spec import MeasureSpec, Param

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
RNDCG_REL = Param(
    "rel",
    "int",
    "relevance threshold of R only: a query without a document graded >= rel scores 0 (gains count grades >= 1, "
    "and grade 0 when a grade map names it)",
    default=None,
    default_doc="the evaluation's rel_level (trec_eval -l, default 1)",
    minimum=0,
)

FAMILIES: tuple[MeasureSpec, ...] = (
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
)
