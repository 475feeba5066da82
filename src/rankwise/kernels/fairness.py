"""Kernels of the item-group fairness measures (AWRF, nDCG-AWRF, RSP, REO, ItemMAD) on the
:class:`~rankwise.engine.aligned.Aligned` arrays.

Each line names the part of the reference implementation it reproduces: for AWRF and nDCG-AWRF
``fair-trec/trec2022-fair-public`` at 6fd105f (``wptrec/metrics/awrf.py``, ``common.py``), for RSP and REO Elliot at
fc27efe (``elliot/evaluation/metrics/fairness/rsp/rsp.py``, ``reo/reo.py``, ``bias/pop_rsp/pop_rsp.py``,
``bias/pop_reo/pop_reo.py``) and for ItemMAD ``fairness/MAD/ItemMADranking.py``, ``ItemMADrating.py``. AWRF is per
query; RSP and REO are global: their per-query values are NaN and their aggregate comes from
:func:`group_rate_inputs` (per query and group a numerator and a denominator, which concatenate across query ranges)
and :func:`group_rate_aggregate`; ItemMAD's from :func:`item_mad_inputs` (per counted row its item's key, group and
gain) and :func:`item_mad_aggregate`. The formulas are documented in :mod:`rankwise.measures.fairness`.
"""

from __future__ import annotations

import numpy as np

from ..engine.aligned import Aligned
from ..engine.rowops import concatenated_ranges
from ..engine.training import item_keys, pairs_present, training_index
from ..measures.spec import Measure
from .common import Kernel, check_choices, choice, in_cutoff, item_group_codes

GROUP_RATES = ("RSP", "REO")
"""The global item-group measures, aggregated by :func:`group_rate_aggregate`."""
ITEM_MAD = ("ItemMAD",)
"""The global item-group measures aggregated by :func:`item_mad_aggregate` from :func:`item_mad_inputs`."""


def track_discount(rank: np.ndarray) -> np.ndarray:
    """d_i = 1 / log2(max(i, 2)) of 1-based ranks i (common.py:12-30, in float64 where the track uses float32)."""
    return 1.0 / np.log2(np.maximum(rank.astype(np.float64), 2.0))


def _rel_entr(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x ln(x / y), 0 where x = 0 (scipy.special.rel_entr on distributions)."""
    out = np.zeros_like(x)
    np.multiply(x, np.log(np.where(x > 0, x, 1.0) / np.where(x > 0, y, 1.0)), out=out, where=x > 0)
    return out


def awrf(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """AWRF@k = 1 − JS(a, t): a_g the discounted share of group g among the grouped items of L[:k] (d_i = 1 /
    log2(max(i, 2)); awrf.py:96-121, agg_alignments 'mean' with weights), t the target per ``target``, JS the
    squared Jensen-Shannon distance in nats (awrf.py:124-127, scipy's jensenshannon); NaN without a grouped item in
    L[:k] or a target (Sapiezynski et al., WWW 2019; TREC Fair 2022 Task 1)."""
    check_choices(m, {"target": ("relevant", "uniform", "mixed")})
    labels, codes, _ = item_group_codes(a, m)
    size, nq = len(labels), a.num_queries
    shown = in_cutoff(a, m)
    group = codes[a.doc]
    keep = (group >= 0) & (np.ones(len(group), dtype=bool) if shown is None else shown)
    attention = np.bincount(a.qidx[keep] * size + group[keep], weights=track_discount(a.rank[keep]),
                            minlength=nq * size).reshape(nq, size).astype(np.float64)  # fmt: skip (int zeros when none)
    uniform = np.full((nq, size), 1.0 / max(size, 1))
    target = uniform
    if m.get("target") != "uniform":
        assert a.qrel_doc is not None, "aligned without judged doc codes"
        judged = codes[a.qrel_doc]
        relevant = (a.qrel_grade >= rel) & (judged >= 0)
        counts = np.bincount(a.qrel_qidx[relevant] * size + judged[relevant], minlength=nq * size).reshape(nq, size)
        target = _shares(counts.astype(np.float64))
        target = target if m.get("target") == "relevant" else 0.5 * target + 0.5 * uniform
    p = _shares(attention)
    middle = (p + target) / 2
    js = 0.5 * _rel_entr(p, middle).sum(axis=1) + 0.5 * _rel_entr(target, middle).sum(axis=1)
    defined = (attention.sum(axis=1) > 0) & ~np.isnan(target).any(axis=1) if size else np.zeros(nq, dtype=bool)
    return np.where(defined, 1.0 - js, np.nan)


def _shares(counts: np.ndarray) -> np.ndarray:
    """Each row divided by its sum; NaN rows where the sum is 0."""
    total = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, total, out=np.full_like(counts, np.nan), where=total > 0)


def ndcg_awrf(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """nDCG-AWRF@k = nDCG'@k · AWRF@k, nDCG'@k = Σ_{i ≤ k} h_i d_i / Σ_{i ≤ min(k, R)} d_i with d_i = 1 /
    log2(max(i, 2)) (awrf.py:45-77 qr_ndcg, awrf.py:139-150 Score = nDCG × AWRF); NaN when R = 0 or AWRF is
    undefined (TREC Fair 2022 Task 1)."""
    shown = in_cutoff(a, m)
    gains = np.where(a.relevant(rel), track_discount(a.rank), 0.0)
    dcg = a.per_query_sum(gains, shown)
    r = a.num_relevant(rel).astype(np.int64)
    depth = r if m.cutoff is None else np.minimum(r, int(m.cutoff))
    ideal_prefix = np.concatenate([[0.0], np.cumsum(track_discount(np.arange(1, int(depth.max(initial=0)) + 1)))])
    ideal = ideal_prefix[depth]
    ndcg = np.divide(dcg, ideal, out=np.full(a.num_queries, np.nan), where=ideal > 0)
    return ndcg * awrf(a, m, rel)


def undefined_per_query(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """RSP, REO and ItemMAD are global: no per-query value (NaN); their value comes from :func:`group_rate_inputs`
    and :func:`group_rate_aggregate` (:func:`item_mad_inputs`, :func:`item_mad_aggregate`)."""
    check_choices(m, {"groups": ("given", "popularity"), "gain": ("ranking", "rating")})
    return np.full(a.num_queries, np.nan)


def group_rate_inputs(a: Aligned, m: Measure, rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query u and group g (flattened query by query, |G| entries each) N_ug and D_ug, and |G| per query:
    RSP N_ug = |L_u[:k] ∩ G_g|, D_ug = |G_g \\ T_u| (rsp.py:93-97, pop_rsp.py:76-81); REO N_ug = |L_u[:k] ∩ G_g ∩
    Rel_u|, D_ug = |(G_g ∩ Rel_u) \\ T_u| (reo.py:97-101, pop_reo.py:79-84). T_u the user's training items (empty
    without train=), Rel_u the judged items with grade >= rel."""
    labels, codes, mapping = item_group_codes(a, m)
    size, nq = len(labels), a.num_queries
    shown = in_cutoff(a, m)
    group = codes[a.doc]
    keep = (group >= 0) & (np.ones(len(group), dtype=bool) if shown is None else shown)
    if m.name == "REO":
        keep &= a.relevant(rel)
    numerator = np.bincount(a.qidx[keep] * size + group[keep], minlength=nq * size).astype(np.float64)
    seen = _training_per_group(a, m, mapping, labels)
    if m.name == "RSP":
        members = np.bincount([labels.index(v) for v in mapping.values() if v is not None], minlength=size)
        denominator = (members[None, :] - seen).reshape(-1).astype(np.float64)
    else:
        assert a.qrel_doc is not None, "aligned without judged doc codes"
        judged = codes[a.qrel_doc]
        relevant = (a.qrel_grade >= rel) & (judged >= 0) & ~_judged_in_training(a, m)
        denominator = np.bincount(a.qrel_qidx[relevant] * size + judged[relevant], minlength=nq * size)
        denominator = denominator.astype(np.float64)
    return numerator, denominator, np.full(nq, size, dtype=np.int64)


def _training_per_group(a: Aligned, m: Measure, mapping: dict[str, str | None], labels: tuple[str, ...]
                        ) -> np.ndarray:  # fmt: skip
    """Per query and group: the user's distinct training items in the group, |G_g ∩ T_u| (0 without train=)."""
    nq, size = a.num_queries, len(labels)
    if a.training is None or a.training.pairs is None:
        return np.zeros((nq, size), dtype=np.int64)
    index = training_index(a, str(m))
    position = {label: g for g, label in enumerate(labels)}
    item_group = np.array([position.get(mapping.get(i) or "", -1) for i in index.items.to_list()], dtype=np.int64)
    users = index.user_codes(a.query_ids)
    has = np.flatnonzero(users >= 0)
    sizes = np.diff(index.offsets)[users[has]]
    items = index.user_items[concatenated_ranges(index.offsets[users[has]], sizes)]
    query = np.repeat(has, sizes)
    grouped = item_group[items] >= 0
    flat = query[grouped] * size + item_group[items][grouped]
    return np.bincount(flat, minlength=nq * size).reshape(nq, size)


def _judged_in_training(a: Aligned, m: Measure) -> np.ndarray:
    """Per judgment: whether its (user, item) pair is among the training pairs (False without train=)."""
    if a.training is None or a.training.pairs is None:
        return np.zeros(len(a.qrel_qidx), dtype=bool)
    return pairs_present(a, training_index(a, str(m)), judgments=True)


def group_rate_aggregate(m: Measure, inputs: dict[str, np.ndarray], rows_per_query: np.ndarray) -> float:
    """RSP or REO = std_g(PR_g) / mean_g(PR_g), PR_g = Σ_u N_ug / Σ_u D_ug (rsp.py:111-121, reo.py:116-126,
    pop_rsp.py:92-95, pop_reo.py:96-99; np.std, the population standard deviation); NaN without a query, or when a
    group's denominator is 0 (Elliot: a 0/0 that numpy makes nan, or an infinity)."""
    if not len(rows_per_query):
        return float("nan")
    size = int(rows_per_query[0])
    numerator = inputs["num"].reshape(-1, size).sum(axis=0)
    denominator = inputs["den"].reshape(-1, size).sum(axis=0)
    if size == 0 or (denominator == 0).any():
        return float("nan")
    rates = numerator / denominator
    mean = rates.mean()
    return float(rates.std() / mean) if mean > 0 else float("nan")


def item_mad_inputs(a: Aligned, m: Measure, rel: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Per counted row (a row of L_u[:k] whose item is in a group, of a user u with a relevant item: Elliot's
    ``if len(self._relevance.get_user_rel(u))``, ItemMADranking.py:89-91), in layout order: ``mad_item`` its item's
    64-bit key, ``mad_group`` the index of its item's group in G, ``mad_gain`` its gain — gain=ranking
    2^(g − rel + 1) − 1 for a relevant item (grade g >= rel), else 0 (ItemMADranking.py:81 with relevance.py:80-82),
    gain=rating the list's score of a relevant item, else 0 (ItemMADrating.py:191) — and ``mad_groups`` |G|; and
    per query its number of counted rows. Rows of an item in no group are left out: Elliot counts them
    for no group (ItemMADranking.py:95-99)."""
    labels, codes, _ = item_group_codes(a, m)
    shown = in_cutoff(a, m)
    group = codes[a.doc]
    keep = (group >= 0) & (a.num_relevant(rel) > 0)[a.qidx]
    keep &= np.ones(len(group), dtype=bool) if shown is None else shown
    relevant = a.relevant(rel)[keep]
    if choice(m, "gain", ("ranking", "rating")) == "rating":
        gain = np.where(relevant, a.score[keep].astype(np.float64), 0.0)
    else:
        grade = np.where(relevant, a.grade[keep], rel).astype(np.float64)
        gain = np.where(relevant, np.exp2(grade - rel + 1.0) - 1.0, 0.0)
    per_row = {"mad_item": item_keys(a)[keep], "mad_group": group[keep], "mad_gain": gain,
               "mad_groups": np.full(int(keep.sum()), len(labels), dtype=np.int64)}  # fmt: skip
    return per_row, np.bincount(a.qidx[keep], minlength=a.num_queries)


def item_mad_aggregate(inputs: dict[str, np.ndarray]) -> float:
    """ItemMAD = mean_{g < h} |m_g − m_h| over the pairs of the |G| groups, m_g = mean of v_i over the items of
    group g with a counted row, v_i = Σ gain / n_i over item i's n_i counted rows (ItemMADranking.py:93-106,
    ItemMADrating.py:203-216: ``gain/self._item_count[item]``, the groups' ``self._sum[i]/self._n_items[i]`` and
    ``np.average`` of the pairwise ``abs(avg[i] - avg[j])``); NaN when a group has no counted item (Elliot's 0/0
    nan) or with fewer than two groups (Elliot's np.average of no difference)."""
    items, groups = inputs["mad_item"], inputs["mad_group"]
    size = int(inputs["mad_groups"][0]) if len(inputs["mad_groups"]) else 0
    if size < 2:
        return float("nan")
    keys, first, item = np.unique(items, return_index=True, return_inverse=True)
    count = np.bincount(item, minlength=len(keys)).astype(np.float64)
    per_item = np.bincount(item, weights=inputs["mad_gain"], minlength=len(keys)) / count
    item_group = groups[first]
    members = np.bincount(item_group, minlength=size)
    if (members == 0).any():
        return float("nan")
    means = np.bincount(item_group, weights=per_item, minlength=size) / members
    upper = np.triu_indices(size, k=1)
    return float(np.abs(means[:, None] - means[None, :])[upper].mean())


FAIRNESS_KERNELS: dict[str, Kernel] = {
    "AWRF": awrf,
    "nDCG-AWRF": ndcg_awrf,
    "RSP": undefined_per_query,
    "REO": undefined_per_query,
    "ItemMAD": undefined_per_query,
}
"""The item-group fairness families and their kernels (registered in :data:`rankwise.kernels.KERNELS`)."""
