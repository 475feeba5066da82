"""Beyond-accuracy families of recommendation lists: coverage, concentration, novelty, diversity.

Their kernels: :mod:`rankwise.kernels.beyond`. The notation of the formulas, the order of the families and how to
add a measure: :mod:`rankwise.measures.catalog`.
"""

from __future__ import annotations

from .params import POPULARITY, REL, SIMILARITY_KIND, YES_NO
from .spec import MeasureSpec, Param

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
GINI_WEIGHT = Param(
    "weight",
    "choice",
    "what each list gives the items in its top k",
    default="count",
    choices={
        "count": "1 each: c_i = the lists holding item i (LensKit ListGini, RecBole GiniIndex)",
        "geometric": "its exposure p^{r−1} at rank r: c_i = Σ_u p^{r_u(i)−1} (LensKit ExposureGini with its "
        "default GeometricRankWeight, src/lenskit/metrics/ranking/_gini.py:85-132, which sums float32 exposures)",
    },
)
GINI_PATIENCE = Param("p", "float", "weight=geometric: the patience p of the exposure p^{r−1}", default=0.85,
                      minimum=0, maximum=1.0)  # fmt: skip
POPULARITY_SCALE = Param(
    "scale",
    "choice",
    "what φ(i) is",
    default="count",
    choices={
        "count": "the item's training users (÷ N with share=yes)",
        "quantile": "its popularity rank as a quantile: the average rank (ties share it, ascending) of its training "
        "users among the training items' ÷ their number, 1 for the most popular, 0 without training interactions "
        "(LensKit MeanPopRank, src/lenskit/metrics/ranking/_pop.py:58-78)",
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
    "max(⌊t · n⌋, 1) least popular of the n training items (ties by id) (recbole/evaluator/metrics.py:737-742)",
    default=None,
    default_doc="unset: the tail is what head_share leaves",
    minimum=0,
)
REPEATS = Param(
    "repeats",
    "choice",
    "how a (user, item) pair that the training interactions hold more than once counts in the item's popularity",
    default="once",
    choices={
        "once": "once: φ(i) = the item's training users",
        "each": "each time: φ(i) = the item's training rows, and N of popularity=interactions all training rows "
        "(RecBole data.count_items, a Counter of the training split's item ids: recbole/data/dataset/dataset.py:"
        "1424-1431 item_counter, taken at recbole/evaluator/collector.py:91-92; RecBole keeps repeated rows unless "
        "rm_dup_inter is set)",
    },
)
TAIL_COUNT = Param("count", "choice", "yes: the number of long-tail items (ACLT) instead of their share (APLT)",
                   default="no", choices=YES_NO)  # fmt: skip

FAMILIES: tuple[MeasureSpec, ...] = (
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
        "training items), c_(j) the top-k recommendation counts (weight=geometric: exposures Σ_u p^{r−1}) sorted\n"
        "ascending, unrecommended items 0. Global",
        "LensKit ListGini, RecBole GiniIndex (rankwise.recsys.beyond.gini_index); weight=geometric: LensKit "
        "ExposureGini",
        params=(GINI_WEIGHT, GINI_PATIENCE),
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
        "ARP@k = Σ_{i∈L[:k]} φ(i) / |L[:k]|, φ(i) = the item's training users (rows with repeats=each; ÷ N with\n"
        "share=yes, N per popularity; scale=quantile: its average rank by training users, ascending, ÷ the training\n"
        "items); items without training interactions 0; undefined for an empty list. Per query",
        "Abdollahpouri et al. 2019; RecTools AvgRecPopularity, RecBole AveragePopularity, Elliot ARP, rs_metrics "
        "popularity (rankwise.recsys.beyond.average_popularity); scale=quantile: Ekstrand et al., RecSys 2017 "
        "(obscurity), LensKit MeanPopRank",
        params=(POPULARITY_INTERACTIONS, SHARE, POPULARITY_SCALE, REPEATS),
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
        "per head_share or tail_ratio (popularity: training users, rows with repeats=each); undefined for an empty\n"
        "list (ACLT: 0)",
        "Abdollahpouri, Burke & Mobasher, RecSys 2017 / FLAIRS 2019; Elliot APLT and ACLT, RecBole TailPercentage "
        "(rankwise.recsys.beyond.long_tail)",
        params=(HEAD_SHARE, TAIL_RATIO, TAIL_COUNT, REPEATS),
        aliases=("APLT", "TailPercentage"),
        exclusive=("head_share", "tail_ratio"),
    ),
)
