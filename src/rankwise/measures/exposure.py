"""Fairness of exposure: expected exposure (EE-L, EE-D, EE-R) of Diaz et al. (CIKM 2020).

Their kernels: :mod:`rankwise.kernels.exposure`. The notation of the formulas, the order of the families and how to
add a measure: :mod:`rankwise.measures.catalog`.

A ranking gives each of its documents an *exposure*, the probability that a user browsing it reaches the document;
a stochastic ranking (equal scores in a random order, ``--ties average``) gives each document its expected exposure
ε_d. The target ε*_d is the expected exposure of d under the ideal stochastic ranking: the documents sorted by grade,
equal grades in a random order. EE compares the two vectors; each is **per query** (one value per query, a mean
over queries), not global.
"""

from __future__ import annotations

from .params import REL
from .spec import MeasureSpec, Param

EE_REF = ("Diaz, Mitra, Ekstrand, Biega & Carterette, Evaluating Stochastic Rankings with Expected Exposure, "
          "CIKM 2020; reference code diazf/expeval (exposure.py, metrics.py, util.py at 69ab070)")  # fmt: skip
EE_NOTATION = (
    "ε_d = the exposure of retrieved document d, i its 0-based rank in L[:k]: browse=rbp ε = p^i; browse=gerr\n"
    "ε = p^i (1 − u)^{h_<i}, h_<i the relevant documents above it (with ties=average: the expectation over every\n"
    "order of equal scores); ε*_d = the target exposure of each document of T (the relevant documents, or every\n"
    "judged one with judgments=complete): documents of grade g after b that dominate it share\n"
    "(q^b − q^{b+m}) / (m(1 − q)), m of grade g, q = p (rbp), p(1 − u) (gerr, relevant), and for a non-relevant\n"
    "grade under gerr (1 − u)^{R} (p^b − p^{b+m}) / (m(1 − p)), R the relevant documents"
)
BROWSE = Param(
    "browse",
    "choice",
    "the browsing model that turns a rank into exposure (expeval -u)",
    default="gerr",
    choices={
        "gerr": "p^i (1 − u)^{h_<i}: the user goes on with probability p and stops at a relevant document with "
        "probability u (Chapelle et al. CIKM 2009, §7.2; expeval's default)",
        "rbp": "p^i: the user goes on with probability p (Moffat & Zobel, TOIS 2008)",
    },
)
PATIENCE = Param("p", "float", "patience: the probability of going on to the next rank (expeval -p; at 1 the limits)",
                 default=0.5, minimum=0, maximum=1.0)  # fmt: skip
UTILITY = Param("u", "float", "gerr: the probability of stopping at a relevant document (expeval -r)",
                default=0.5, minimum=0, maximum=1.0)  # fmt: skip
JUDGMENTS = Param(
    "judgments",
    "choice",
    "which documents have a target exposure",
    default="incomplete",
    choices={
        "incomplete": "the relevant documents only (grade >= rel; expeval's default, the retrieval setting): "
        "every other document's target is 0",
        "complete": "every judged document (expeval -C, the reranking setting; also the bounds normalise uses)",
    },
)
GRADES = Param(
    "grades",
    "choice",
    "the grades the target exposure sorts by",
    default="graded",
    choices={"graded": "the judged grades", "binary": "1 for a relevant document, else 0 (expeval -B)"},
)
NORMALISE = Param(
    "normalise",
    "choice",
    "whether the value is rescaled by expeval's bounds into (v − lo) / (hi − lo) (expeval's default output; -U: "
    "not); when lo = hi the value is expeval's default (EE-L 0, EE-D 0, EE-R 1)",
    default="no",
    choices={"no": "the raw value (expeval -U)", "yes": "rescaled by expeval's bounds (expeval without -U)"},
)
OVER = Param(
    "over",
    "choice",
    "what has an exposure and a target exposure (expeval -G; the item groups of item_groups=)",
    default="documents",
    choices={
        "documents": "each document",
        "groups": "each item group g of T's documents: ε_g = Σ_{d ∈ T ∩ g} ε_d, ε*_g = Σ_{d ∈ T ∩ g} ε*_d (expeval "
        "-G, group.py); a retrieved document outside T counts for no group, and T's documents in no item group form "
        "one more group together, as expeval puts documents without a group label in group -1 (the note on items "
        "in no group counts them); EE-L = Σ_g (ε_g − ε*_g)², EE-D = Σ_g ε_g², EE-R = Σ_g ε_g ε*_g; with "
        "normalise=yes expeval's group bounds, k the groups of T, R the relevant documents, G(q, n) = Σ_{i<n} q^i: "
        "EE-D [k G(q', R)², k G(p, R)²] (0 when k = 1), EE-R always its default 1 (expeval's upper bound is 0), "
        "EE-L [0, max(Σ_g ε*_g², Σ_g (G(p, R) − ε*_g)²)]; where expeval errs rankwise keeps the formula: a "
        "ranking exposing no group of T scores EE-D 0 (expeval's util.l2 gives ∞), a query without a ranking EE-L "
        "Σ_g ε*_g² (expeval: its group relevance upper bound, 0), and under rbp EE-D's two bounds are one "
        "(normalised: its default 0, where expeval divides by their rounding error)",
    },
)
EE_PARAMS = (REL, BROWSE, PATIENCE, UTILITY, JUDGMENTS, GRADES, NORMALISE, OVER)
EE_EMPTY = ("undefined (left out and counted) without a document with a target exposure (expeval skips the query); "
            "a query of the qrels without a ranking scores expeval's defaults: EE-D its upper bound, EE-R its lower "
            "bound, EE-L ‖ε*‖²")  # fmt: skip
EE_BOUNDS = (
    "\nnormalise=yes (expeval metrics.py), with n = |T| under judgments=complete (else ∞) and q' = p (rbp) or\n"
    "p·u (gerr: metrics.py's q', where exposure.py uses p(1 − u); equal at u = 0.5): "
)

FAMILIES: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "EE-L",
        "Expected exposure loss: squared distance between the ranking's expected exposure and the target's",
        f"EE-L@k = ‖ε − ε*‖² = Σ_d (ε_d − ε*_d)² = EE-D − 2 EE-R + ‖ε*‖², over every document either gives\n"
        f"exposure to. {EE_NOTATION}.{EE_BOUNDS}lo = 0; hi = ‖ε*‖² + 1/(1 − q') (incomplete) or\n"
        "Σ_i (q'^i − t_(i))² (complete; t_(i) the targets ascending). Per query",
        EE_REF,
        params=EE_PARAMS,
        aliases=("ExpectedExposureLoss", "EEL"),
        empty=EE_EMPTY,
        tie_average=True,
    ),
    MeasureSpec(
        "EE-D",
        "Expected exposure disparity: how unequally the ranking spreads exposure (0: evenly)",
        f"EE-D@k = ‖ε‖² = Σ_d ε_d². {EE_NOTATION}.{EE_BOUNDS}hi = Σ_{{i<n}} p^{{2i}}; lo = 0 (incomplete) or\n"
        "(Σ_{i<n} q'^i)² / n (complete). Per query",
        EE_REF,
        params=EE_PARAMS,
        aliases=("ExpectedExposureDisparity",),
        empty=EE_EMPTY,
        tie_average=True,
    ),
    MeasureSpec(
        "EE-R",
        "Expected exposure relevance: exposure given to the documents the target exposes",
        f"EE-R@k = ⟨ε, ε*⟩ = Σ_d ε_d ε*_d. {EE_NOTATION}.{EE_BOUNDS}hi = ‖ε*‖²; lo = 0 (incomplete) or\n"
        "Σ_i q'^i t_(i) (complete); both 0 when T has one grade. Per query",
        EE_REF,
        params=EE_PARAMS,
        aliases=("ExpectedExposureRelevance",),
        empty=EE_EMPTY,
        tie_average=True,
    ),
)
