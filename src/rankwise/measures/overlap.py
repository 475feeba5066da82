"""Overlap with a reference list: how far each user's top k agrees with another model's list for the same user
(rank-biased overlap, RBO) and how far it promotes items the reference ranked low (least item promoted, LIP).

Their kernels: :mod:`rankwise.kernels.overlap`. The notation of the formulas, the order of the families and how to
add a measure: :mod:`rankwise.measures.catalog`.

The reference list B of a user is that user's list in ``baseline=`` (``--baseline RUN``: another model's run, the
same side input as Unexpectedness), ordered by score descending, equal scores in input order; B_j is its item at
position j (1-based). Both measures are **per query** (one value per user, a mean over users), not global. They are
LensKit 2025.8's reranking metrics, ``lenskit.metrics.reranking`` (functions of a reference and a reranked
``ItemList``, src/lenskit/metrics/reranking/_rbo.py and _lip.py).
"""

from __future__ import annotations

from .spec import MeasureSpec, Param

RBO_PATIENCE = Param("p", "float", "patience: the weight of depth d is p^{d−1} (LensKit GeometricRankWeight(p))",
                     default=0.85, minimum=0, maximum=1.0)  # fmt: skip
RBO_NORMALISE = Param(
    "normalise", "choice", "what the weighted sum of agreements is divided by", default="weights",
    choices={
        "weights": "Σ_{d≤k} p^{d−1}, the weights of the k depths summed: 1 when the top k are equal (LensKit "
        "rank_biased_overlap, _rbo.py:41-58)",
        "series": "Σ_{d≥1} p^{d−1} = 1/(1 − p), the whole series: the first k terms of Webber et al.'s infinite "
        "sum (1 − p) Σ_d p^{d−1} A_d, a lower bound of their RBO (needs p < 1)",
    },
)  # fmt: skip

FAMILIES: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "RBO",
        "Rank-biased overlap of the top k with the user's reference list (needs baseline=)",
        "RBO@k = Σ_{d=1..k} w_d A_d / Σ_{d=1..k} w_d (normalise=weights; series: (1 − p) Σ_{d=1..k} w_d A_d),\n"
        "w_d = p^{d−1}, A_d = |L[:d] ∩ B[:d]| / d, B the user's reference list (baseline=); a prefix shorter than d\n"
        "is taken as it is and still divided by d. Per query; 0 for an empty list or a user without a reference\n"
        "list (LensKit's value for an empty reference)",
        "Webber, Moffat & Zobel, A Similarity Measure for Indefinite Rankings, TOIS 28(4), 2010; LensKit 2025.8 "
        "lenskit.metrics.reranking.rank_biased_overlap (src/lenskit/metrics/reranking/_rbo.py:15-58)",
        params=(RBO_PATIENCE, RBO_NORMALISE),
        aliases=("RankBiasedOverlap",),
        cutoff_required=True,
        cutoff_doc="k: the depth to which the prefixes are compared (LensKit's n, 10 by default)",
        empty="0 for an empty list or a user without a reference list",
    ),
    MeasureSpec(
        "LIP",
        "Least item promoted: how far beyond k the reference list ranked the lowest item of the top k (needs "
        "baseline=)",
        "LIP@k = max(0, max_{i ∈ L[:k] ∩ B} π(i) − 1 − k), π(i) the 1-based position of i in the user's whole\n"
        "reference list B (baseline=, not cut at k); items not in B are left out, so a top k without an item of B\n"
        "beyond position k + 1 scores 0 (LensKit counts from a 0-based position: an item at position k + 1 scores\n"
        "0, at k + 2 scores 1). Per query; undefined for a user without a reference list",
        "LensKit 2025.8 lenskit.metrics.reranking.least_item_promoted (src/lenskit/metrics/reranking/_lip.py:14-49)",
        aliases=("LeastItemPromoted",),
        cutoff_required=True,
        cutoff_doc="k: the depth of the top k whose items are looked up (LensKit's n, 10 by default)",
        empty="undefined (left out and counted) for a user without a reference list (LensKit: NaN for an empty "
        "reference)",
    ),
)
