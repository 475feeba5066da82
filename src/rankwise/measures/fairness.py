"""Fairness to groups of items: the attention-weighted rank fairness of TREC Fair 2022 (AWRF, nDCG-AWRF),
Elliot's ranking-based statistical parity and equal opportunity (RSP, REO; PopRSP and PopREO with the popularity
split) and Elliot's item mean absolute deviation (ItemMAD: ItemMADranking, ItemMADrating).

Their kernels: :mod:`rankwise.kernels.fairness`. The notation of the formulas, the order of the families and how to
add a measure: :mod:`rankwise.measures.catalog`.

Each item is in at most one group: ``item_groups=`` of :func:`rankwise.evaluate` (``--item-groups FILE:COLUMN``), or
``groups=popularity`` (RSP, REO): the short head and long tail of the training items, as LongTail splits them. G is
the set of the groups' labels, |G| their number; an item in no group counts for no group (a note says how many).
AWRF is **per query** (one value per query, a mean over queries); RSP, REO and ItemMAD are **global** (one value
over all users' lists, as Elliot computes them; no per-query value). Elliot's bias disparity (BiasDisparityBS,
BR, BD) is one value per (user group, item group) pair, not a measure: :func:`rankwise.bias_disparity`
(``rankwise bias-disparity``).
"""

from __future__ import annotations

from .beyond import HEAD_SHARE
from .params import REL
from .spec import MeasureSpec, Param

TREC_FAIR_REF = ("Ekstrand, McDonald, Raj & Johnson, Overview of the TREC 2022 Fair Ranking Track (TREC 2022), Task 1; "
                 "Sapiezynski et al., Quantifying the Impact of User Attention on Fair Group Representation in Ranked "
                 "Lists, WWW 2019 (AWRF); reference code fair-trec/trec2022-fair-public at 6fd105f, "
                 "wptrec/metrics/awrf.py:45-127, wptrec/metrics/common.py:12-30")  # fmt: skip
ELLIOT_FAIR_REF = ("Zhu, Wang & Caverlee, Measuring and Mitigating Item Under-Recommendation Bias in Personalized "
                   "Ranking Systems, SIGIR 2020; Elliot (sisinflab/elliot at fc27efe) ")  # fmt: skip
TARGET = Param(
    "target",
    "choice",
    "the target distribution over the groups the ranking's attention is compared with",
    default="relevant",
    choices={
        "relevant": "the groups of the query's relevant documents (grade >= rel), each counted once: TREC Fair "
        "2022's target of the dimensions without a background distribution (Task1Alignment.py:204-229)",
        "uniform": "1/|G| each: every group the same share",
        "mixed": "½ relevant + ½ uniform: TREC Fair 2022's target of geography and gender, their world-population "
        "or equal background replaced by the uniform one (Task1Alignment.py:119-132)",
    },
)
GROUPS = Param(
    "groups",
    "choice",
    "which item groups",
    default="given",
    choices={
        "given": "the item groups given (item_groups=, --item-groups FILE:COLUMN): Elliot RSP and REO with a "
        "clustering_file",
        "popularity": "the short head and long tail of the training items per head_share (needs train=): Elliot "
        "PopRSP and PopREO (bias/pop_rsp/pop_rsp.py, bias/pop_reo/pop_reo.py)",
    },
)
POPULAR_SHARE = Param("head_share", "float", "groups=popularity: " + HEAD_SHARE.doc, default=HEAD_SHARE.default,
                      minimum=0, maximum=1)  # fmt: skip
AWRF_NOTATION = (
    "a_g = Σ_{i ≤ k, g(L_i) = g} d_i / Σ_{i ≤ k, L_i in a group} d_i, d_i = 1 / log2(max(i, 2)) (the positions of\n"
    "items in no group are skipped); t_g the target per target; JS(a, t) = ½ Σ_g a_g ln(a_g / m_g) + ½ Σ_g t_g\n"
    "ln(t_g / m_g), m = (a + t) / 2 (natural log: scipy's jensenshannon, squared)"
)
AWRF_EMPTY = "undefined (left out and counted) without an item of a group in L[:k], or with target=relevant without a "
AWRF_EMPTY += "relevant document in a group"
RATE_NOTATION = (
    "PR_g = Σ_u N_ug / Σ_u D_ug over the evaluated users u; RSP = std_g(PR_g) / mean_g(PR_g), std the population\n"
    "standard deviation (numpy's np.std); T_u the user's training items (none without train=), G_g the items of\n"
    "group g (every id of the item groups)"
)
RATE_EMPTY = "no per-query value: one value over all lists; undefined when a group's denominator is 0"
MAD_GAIN = Param(
    "gain",
    "choice",
    "what an item gains each time it is in a top k",
    default="ranking",
    choices={
        "ranking": "Elliot's discounted relevance 2^(g − rel + 1) − 1 of a relevant item (grade g >= rel), else 0: "
        "ItemMADranking (ItemMADranking.py:46,81; relevance.py:80-82)",
        "rating": "the list's score of a relevant item, else 0: ItemMADrating (ItemMADrating.py:156,191)",
    },
)
ELLIOT_MAD_REF = ("Deldjoo, Anelli, Zamani, Bellogín & Di Noia, A flexible framework for evaluating user and item "
                  "fairness in recommender systems, UMUAI 2021; Zhu, Hu & Caverlee, Fairness-aware tensor-based "
                  "recommendation, CIKM 2018; Elliot (sisinflab/elliot at fc27efe) "
                  "fairness/MAD/ItemMADranking.py:79-106, ItemMADrating.py:189-216")  # fmt: skip

FAMILIES: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "AWRF",
        "Attention-weighted rank fairness: 1 − the squared Jensen-Shannon distance between the groups' shares of "
        "attention in the top k and a target (needs item_groups=)",
        f"AWRF@k = 1 − JS(a, t). {AWRF_NOTATION}. Per query (awrf.py:79-127)",
        TREC_FAIR_REF,
        params=(REL, TARGET),
        empty=AWRF_EMPTY,
    ),
    MeasureSpec(
        "nDCG-AWRF",
        "TREC Fair 2022 Task 1's score: the track's binary nDCG times AWRF (needs item_groups=)",
        "nDCG-AWRF@k = nDCG'@k · AWRF@k, nDCG'@k = Σ_{i ≤ k} h_i d_i / Σ_{i ≤ min(k, R)} d_i with the track's\n"
        f"d_i = 1 / log2(max(i, 2)) (ranks 1 and 2 both 1; awrf.py:45-77, the ideal over min(500, R) there: the\n"
        f"track's runs hold 500 documents, so nDCG-AWRF@500 is its score). {AWRF_NOTATION}. Per query",
        TREC_FAIR_REF,
        params=(REL, TARGET),
        aliases=("FairScore",),
        empty=AWRF_EMPTY + ", or without a relevant document",
    ),
    MeasureSpec(
        "RSP",
        "Ranking-based statistical parity: spread of the groups' probabilities of being ranked in the top k "
        "(0: every group alike; global)",
        f"RSP@k = std_g(PR_g) / mean_g(PR_g), N_ug = |L_u[:k] ∩ G_g|, D_ug = |G_g \\ T_u|. {RATE_NOTATION}. Global "
        "(fairness/rsp/rsp.py:85-121; bias/pop_rsp/pop_rsp.py:68-95)",
        ELLIOT_FAIR_REF + "RSP, PopRSP",
        params=(GROUPS, POPULAR_SHARE),
        aliases=("RankingStatisticalParity",),
        aggregate="global",
        empty=RATE_EMPTY,
    ),
    MeasureSpec(
        "REO",
        "Ranking-based equal opportunity: spread of the groups' probabilities that a relevant item is ranked in "
        "the top k (0: every group alike; global)",
        "REO@k = std_g(PR_g) / mean_g(PR_g), N_ug = |L_u[:k] ∩ G_g ∩ Rel_u|, D_ug = |(G_g ∩ Rel_u) \\ T_u|, Rel_u the\n"
        f"user's relevant items (grade >= rel). {RATE_NOTATION}. Global (fairness/reo/reo.py:89-126;\n"
        "bias/pop_reo/pop_reo.py:71-99)",
        ELLIOT_FAIR_REF + "REO, PopREO",
        params=(REL, GROUPS, POPULAR_SHARE),
        aliases=("RankingEqualOpportunity",),
        aggregate="global",
        empty=RATE_EMPTY,
    ),
    MeasureSpec(
        "ItemMAD",
        "Item mean absolute deviation: how far apart the item groups' mean gains are, each item's gain averaged "
        "over the lists whose top k hold it (0: every group alike; global; needs item_groups=)",
        "ItemMAD@k = mean_{g < h} |m_g − m_h| over the pairs of groups, m_g = mean_{i ∈ G_g, n_i > 0} v_i,\n"
        "v_i = Σ_{u: i ∈ L_u[:k]} gain(u, i) / n_i, n_i = |{u : i ∈ L_u[:k]}|, over the users u with a relevant item\n"
        "(grade >= rel; ItemMADranking.py:89-91); gain per the gain parameter. Items in no group count in no m_g.\n"
        "Global (ItemMADranking.py:93-106, ItemMADrating.py:203-216)",
        ELLIOT_MAD_REF,
        params=(REL, MAD_GAIN),
        aggregate="global",
        empty="no per-query value: one value over all lists; undefined (NaN, as Elliot's 0/0) when a group has no "
        "item in the users' top k, or with fewer than two groups",
    ),
)
