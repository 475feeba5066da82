"""Kernels of the expected-exposure measures (EE-L, EE-D, EE-R; Diaz et al., CIKM 2020) on the
:class:`~rankwise.engine.aligned.Aligned` arrays.

Each line names the part of the reference implementation, ``diazf/expeval`` at 69ab070, it reproduces:
``exposure.expected`` (the run's exposure per document, averaged over sampled rankings — here over every order of
equal scores with ``ties=average``, in closed form), ``exposure.target`` (the target exposure per grade) and the
``Relevance`` / ``Disparity`` / ``Difference`` classes of ``metrics.py`` (the values and the bounds of
``normalise=yes``). The formulas are documented in :mod:`rankwise.measures.exposure`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..engine.aligned import UNJUDGED, Aligned
from ..measures.spec import Measure
from .common import Kernel, check_choices, in_cutoff, item_group_codes


@dataclass(frozen=True)
class _Model:
    """The browsing model of a measure: rbp or gerr, patience p, utility u."""

    gerr: bool
    p: float
    u: float

    @classmethod
    def of(cls, m: Measure) -> _Model:
        check_choices(m, {"browse": ("gerr", "rbp"), "judgments": ("incomplete", "complete"),
                          "grades": ("graded", "binary"), "normalise": ("no", "yes"),
                          "over": ("documents", "groups")})  # fmt: skip
        return cls(m.get("browse") == "gerr", float(m.get("p")), float(m.get("u")))  # type: ignore[arg-type]


@cache
def _tie_factor(size: int, others_relevant: int, shown: int, p: float, stay: float) -> float:
    """E[p^J (1 − u)^X · [J < shown]] for a document placed uniformly at random among ``size`` tied documents: J the
    tied documents above it (uniform on 0..size−1), X how many of them are relevant, hypergeometric given J (of the
    size − 1 others, ``others_relevant`` relevant); ``stay`` = 1 − u. exposure.expected averaged over every order.

    P(X = x | J = j) by the recurrence of drawing the j-th document above it: relevant with probability
    (K − x) / (N − j), K = ``others_relevant``, N = size − 1."""
    others, relevant = size - 1, others_relevant
    x = np.arange(relevant + 1)
    pmf = np.zeros(relevant + 1)
    pmf[0] = 1.0
    total = 0.0
    for j in range(min(size, shown)):
        total += p**j * float((pmf * stay**x).sum())
        if j < others:
            left = others - j
            draw_relevant = pmf * (relevant - x) / left
            pmf = pmf * (left - (relevant - x)) / left
            pmf[1:] += draw_relevant[:-1]
    return total / size


def run_exposure(a: Aligned, m: Measure, rel: int, model: _Model) -> np.ndarray:
    """ε per row: browse=rbp p^i, browse=gerr p^i (1 − u)^{h_<i} (i the 0-based rank; exposure.expected), 0 past the
    cutoff. With ``ties=average`` the expectation over every order of equal scores (expeval's mean over sampled
    rankings, each order one sample): rbp the mean of p^i over the tie's ranks; gerr p^s (1 − u)^B ·
    E[p^J (1 − u)^X] (:func:`_tie_factor`), s the tie's first rank, B the relevant documents above it. With sampled
    rankings (``a.samples``) each document's mean over its query's S_q samples, 0 in a sample that does not rank it
    (exposure.expected: ``exposures[did] += e_i / numSamples``)."""
    if a.samples is not None:
        each = run_exposure(a.samples.aligned, m, rel, model)
        return np.bincount(a.samples.row, weights=each, minlength=len(a.rank)) / a.samples.count[a.qidx]
    i = (a.rank - 1).astype(np.float64)
    shown = in_cutoff(a, m)
    relevant = a.relevant(rel)
    visible = np.ones(len(i), dtype=bool) if shown is None else shown
    if not model.gerr:
        return a.tie_mean(np.where(visible, model.p**i, 0.0))
    above = a.cumulative_within_query(relevant) - relevant
    if a.tie_group is None:
        return np.where(visible, model.p**i * (1.0 - model.u) ** above, 0.0)
    _, group = np.unique(a.tie_group, return_inverse=True)
    first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    size = np.diff(np.r_[first, len(group)])[group]
    start_row = first[group]
    others = np.bincount(group, weights=relevant).astype(np.int64)[group] - relevant
    limit = np.full(len(i), len(i) + 1) if m.cutoff is None else m.cutoff - a.rank[start_row] + 1
    factor = visible.astype(np.float64)
    tied = np.flatnonzero(size > 1)
    keys, where = np.unique(np.stack([size[tied], others[tied], np.clip(limit[tied], 0, size[tied])]), axis=1,
                            return_inverse=True)  # fmt: skip
    values = [_tie_factor(int(n), int(r), int(k), model.p, 1.0 - model.u) for n, r, k in keys.T]
    factor[tied] = np.asarray(values, dtype=np.float64)[where.reshape(-1)] if len(tied) else factor[tied]
    return model.p ** i[start_row] * (1.0 - model.u) ** above[start_row] * factor


def _geometric(q: float, n: float) -> float:
    """Σ_{i<n} q^i (util.geometricSeries; n = ∞ allowed): n when q = 1 (∞ for n = ∞)."""
    if q == 1:
        return n
    return 1.0 / (1.0 - q) if math.isinf(n) else (1.0 - q**n) / (1.0 - q)


def _share(q: float, b: np.ndarray, m: np.ndarray) -> np.ndarray:
    """(q^b − q^{b+m}) / (m(1 − q)): the mean of q^i over ranks b..b+m−1 (exposure.target); q^b when q = 1."""
    return np.full(len(b), 1.0) if q == 1 else (q**b - q ** (b + m)) / (m * (1 - q))


@dataclass(frozen=True)
class Targets:
    """Target exposures (exposure.target): per run row ``row_target`` (0 outside T) and per query ``norm2`` = ‖ε*‖²,
    ``size`` = |T|, ``levels`` = the distinct grades of T; ``sorted_targets`` and ``query_of`` list every
    document's target per query, ascending (for the bounds of judgments=complete), ``judgment`` the index of each
    among the judgments (``a.qrel_*``); ``row_in_t`` whether a run row is a document of T."""

    row_target: np.ndarray
    norm2: np.ndarray
    size: np.ndarray
    levels: np.ndarray
    sorted_targets: np.ndarray
    query_of: np.ndarray
    judgment: np.ndarray
    row_in_t: np.ndarray


def _levels(grade: np.ndarray, relevant: np.ndarray, binary: bool) -> np.ndarray:
    """The grade each document is sorted by: its grade (integer or real), or 1/0 for relevant/not with binary."""
    return relevant.astype(np.int64) if binary else grade


def targets(a: Aligned, m: Measure, rel: int, model: _Model) -> Targets:
    """ε*: the documents of T sorted by grade; the m documents of a grade after the b that dominate it share
    (q^b − q^{b+m}) / (m(1 − q)) (exposure.target), q = p (rbp) or p(1 − u) (gerr, relevant grades); a non-relevant
    grade under gerr (1 − u)^R (p^b − p^{b+m}) / (m(1 − p)), R the relevant documents of the query (expeval raises
    1 − u to b, the same when no other non-relevant grade dominates it)."""
    complete = m.get("judgments") == "complete"
    binary = m.get("grades") == "binary"
    qrel_relevant = a.qrel_grade >= rel
    keep = np.ones(len(a.qrel_grade), dtype=bool) if complete else qrel_relevant
    q, level, is_rel = a.qrel_qidx[keep], _levels(a.qrel_grade[keep], qrel_relevant[keep], binary), qrel_relevant[keep]
    order = np.lexsort((-level, q))
    q, level, is_rel, judgment = q[order], level[order], is_rel[order], np.flatnonzero(keep)[order]
    new = np.r_[True, (q[1:] != q[:-1]) | (level[1:] != level[:-1])] if len(q) else np.zeros(0, dtype=bool)
    level_of = np.cumsum(new) - 1
    count = np.bincount(level_of).astype(np.float64)
    level_q, level_g, level_rel = q[new], level[new], is_rel[new]
    before = np.cumsum(count) - count
    query_first = np.r_[True, level_q[1:] != level_q[:-1]] if len(level_q) else new
    b = before - before[np.maximum.accumulate(np.where(query_first, np.arange(len(level_q)), 0))]
    relevant_total = np.bincount(q, weights=is_rel, minlength=a.num_queries)[level_q]
    p, u = model.p, model.u
    if not model.gerr:
        te = _share(p, b, count)
    else:
        pp = p * (1 - u)
        te = np.where(level_rel, _share(pp, b, count), (1 - u) ** relevant_total * _share(p, b, count))
    norm2 = np.bincount(level_q, weights=count * te**2, minlength=a.num_queries)
    size = np.bincount(level_q, weights=count, minlength=a.num_queries)
    levels = np.bincount(level_q, minlength=a.num_queries).astype(np.float64)
    per_doc = te[level_of]
    ascending = np.lexsort((per_doc, q))
    # each run row's target: its (query, level) among the levels of T
    row_level = _levels(a.grade, a.relevant(rel), binary)
    in_t = (a.grade != UNJUDGED) & (complete | a.relevant(rel))
    codes = np.unique(np.concatenate([level_g, row_level]), return_inverse=True)[1].reshape(-1)
    span = int(codes.max()) + 1 if len(codes) else 1
    level_key, row_key = level_q * span + codes[: len(level_g)], a.qidx * span + codes[len(level_g) :]
    sorter = np.argsort(level_key, kind="stable")
    at = np.clip(np.searchsorted(level_key[sorter], row_key), 0, max(len(level_key) - 1, 0))
    found = in_t & (level_key[sorter][at] == row_key) if len(level_key) else np.zeros(len(row_key), bool)
    row_target = np.where(found, te[sorter][at] if len(te) else 0.0, 0.0)
    return Targets(row_target, norm2, size, levels, per_doc[ascending], q[ascending], judgment[ascending], in_t)


def _within_query_power_sum(t: Targets, q_prime: float, num_queries: int, square_difference: bool) -> np.ndarray:
    """Per query Σ_i q'^i t_(i) or Σ_i (q'^i − t_(i))², t_(i) the query's targets ascending (metrics.py's complete
    bounds)."""
    starts = np.searchsorted(t.query_of, t.query_of, side="left")
    power = q_prime ** (np.arange(len(t.query_of)) - starts).astype(np.float64)
    terms = (power - t.sorted_targets) ** 2 if square_difference else power * t.sorted_targets
    return np.bincount(t.query_of, weights=terms, minlength=num_queries)


def _normalised(m: Measure, value: np.ndarray, default: float, lo: np.ndarray, hi: np.ndarray, t: Targets
                ) -> np.ndarray:  # fmt: skip
    """(v − lo) / (hi − lo) with normalise=yes, ``default`` when lo = hi (metrics.py Metric.float); NaN for a query
    with an empty T (expeval skips it)."""
    if m.get("normalise") == "yes":
        spread = hi - lo
        value = np.where(spread == 0, default, (value - lo) / np.where(spread == 0, 1.0, spread))
    return np.where(t.size > 0, value, np.nan)


def _expected_exposure(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """EE-L = ‖ε − ε*‖², EE-D = ‖ε‖², EE-R = ⟨ε, ε*⟩ per query (metrics.py Difference, Disparity, Relevance),
    rescaled by metrics.py's bounds with normalise=yes; NaN for a query with an empty T (expeval skips it); a query
    without a ranking scores expeval's defaults (expeval.py: disparity = its upper bound, relevance = its lower
    bound, difference = ‖ε*‖²). Diaz et al., CIKM 2020."""
    model = _Model.of(m)
    epsilon = run_exposure(a, m, rel, model)
    t = targets(a, m, rel, model)
    if m.get("over") == "groups":
        return _over_groups(a, m, rel, model, epsilon, t)
    disparity = a.per_query_sum(epsilon**2)
    relevance = a.per_query_sum(epsilon * t.row_target)
    complete = m.get("judgments") == "complete"
    n = t.size if complete else np.full(a.num_queries, math.inf)
    q_prime = model.p * model.u if model.gerr else model.p  # metrics.py: pp = p if rbp else p * u
    if m.name == "EE-D":
        value, default = disparity, 0.0
        hi = np.array([_geometric(model.p * model.p, x) for x in n])
        lo = np.array([_geometric(q_prime, x) ** 2 / x if not math.isinf(x) else 0.0 for x in n])
    elif m.name == "EE-R":
        value, default = relevance, 1.0
        hi = t.norm2.copy()
        lo = _within_query_power_sum(t, q_prime, a.num_queries, False) if complete else np.zeros(a.num_queries)
        hi[t.levels <= 1], lo[t.levels <= 1] = 0.0, 0.0
    else:
        value, default = disparity - 2 * relevance + t.norm2, 0.0
        lo = np.zeros(a.num_queries)
        hi = (_within_query_power_sum(t, q_prime, a.num_queries, True) if complete
              else t.norm2 + _geometric(q_prime, math.inf))  # fmt: skip
    empty_list = a.num_retrieved() == 0
    if m.name == "EE-D":
        value = np.where(empty_list, hi, value)
    elif m.name == "EE-R":
        value = np.where(empty_list, lo, value)
    return _normalised(m, value, default, lo, hi, t)


def _over_groups(a: Aligned, m: Measure, rel: int, model: _Model, epsilon: np.ndarray, t: Targets) -> np.ndarray:
    """over=groups (expeval -G): ε_g = Σ_{d ∈ T ∩ g} ε_d and ε*_g = Σ_{d ∈ T ∩ g} ε*_d over the groups of T's
    documents (group.py:7-16 for both, expeval.py:47-59 and 79-85; a document outside T counts for no group, and
    the documents of T in no item group form one more group, as expeval's qrels without a group field put them in
    group -1, data.py:18-29); EE-L = Σ_g (ε_g − ε*_g)², EE-D = Σ_g ε_g², EE-R = Σ_g ε_g ε*_g (metrics.py:147-229).
    The bounds of normalise=yes (metrics.py GroupRelevance, GroupDisparity, GroupDifference; group.py:18-23), with k
    the groups of T, R the relevant documents and G(q, n) = Σ_{i<n} q^i: EE-D hi = k G(p, R)², lo = k G(q', R)²
    (both 0 when k = 1); EE-R hi = lo = 0 (expeval's upper bound sums v · ub from ub = 0); EE-L lo = 0,
    hi = max(Σ_g ε*_g², Σ_g (G(p, R) − ε*_g)²). A query without a ranking: EE-D hi, EE-R lo (expeval.py:100-101),
    EE-L Σ_g ε*_g². Diaz et al., CIKM 2020."""
    labels, codes, _ = item_group_codes(a, m)
    assert a.qrel_doc is not None, "aligned without judged doc codes"
    width, nq = len(labels) + 1, a.num_queries  # the last group: T's documents in no item group
    judged = codes[a.qrel_doc[t.judgment]]
    judged_key = t.query_of * width + np.where(judged >= 0, judged, width - 1)
    target = np.bincount(judged_key, weights=t.sorted_targets, minlength=nq * width).reshape(nq, width)
    member = np.bincount(judged_key, minlength=nq * width).reshape(nq, width) > 0
    k = member.sum(axis=1).astype(np.float64)
    row = codes[a.doc]
    row_key = a.qidx * width + np.where(row >= 0, row, width - 1)
    exposed = np.bincount(row_key[t.row_in_t], weights=epsilon[t.row_in_t], minlength=nq * width).reshape(nq, width)
    r = np.bincount(a.qrel_qidx, weights=(a.qrel_grade >= rel), minlength=nq)
    q_prime = model.p * model.u if model.gerr else model.p
    mass = np.array([_geometric(model.p, x) for x in r])
    norm2 = (target**2).sum(axis=1)
    zero = np.zeros(nq)
    empty_list = a.num_retrieved() == 0
    if m.name == "EE-D":
        value, default = (exposed**2).sum(axis=1), 0.0
        hi = np.where(k > 1, k * mass**2, 0.0)
        lo = np.where(k > 1, k * np.array([_geometric(q_prime, x) for x in r]) ** 2, 0.0)
        value = np.where(empty_list, hi, value)
    elif m.name == "EE-R":
        value, default, hi, lo = (exposed * target).sum(axis=1), 1.0, zero, zero
    else:
        value, default, lo = ((exposed - target) ** 2).sum(axis=1), 0.0, zero
        hi = np.maximum(norm2, (np.where(member, mass[:, None] - target, 0.0) ** 2).sum(axis=1))
    return _normalised(m, value, default, lo, hi, t)


EXPOSURE_KERNELS: dict[str, Kernel] = {
    "EE-L": _expected_exposure,
    "EE-D": _expected_exposure,
    "EE-R": _expected_exposure,
}
"""The expected-exposure families and their kernels (registered in :data:`rankwise.kernels.KERNELS`)."""
