"""Kernels of the beyond-accuracy measures on the :class:`~rankwise.engine.aligned.Aligned` arrays, and the formulas
they share with :mod:`rankwise.recsys.beyond`.

Per-user measures (Novelty, SelfInformation, ARP) return one value per query, as every kernel does. Global measures
(Coverage, Gini, Entropy: ``aggregate="global"``) are defined over all queries at once: their per-query values are
NaN and their aggregate comes from :func:`global_inputs` — one 64-bit item key per counted row (rows in the top k,
in layout order, with :data:`rankwise.kernels.aggregate.ROWS_PER_QUERY`) and the catalogue size with each — which
concatenate across query ranges, so the aggregate of a partitioned evaluation is that of the whole
(:func:`global_aggregate`, one pass over the keys). The formulas are documented in :mod:`rankwise.measures.beyond`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.aligned import Aligned
from ..engine.rowops import concatenated_ranges
from ..engine.similarity import KINDS, item_vectors, paired_dots, pairwise_distance_sums, row_sums
from ..engine.training import (
    Training,
    TrainingIndex,
    cache_of,
    catalogue_size,
    in_items,
    item_keys,
    item_popularity,
    long_tail_mask,
    pairs_present,
    per_row_of_items,
    seen_in_training,
    training_index,
)
from ..errors import MeasureError
from ..io.table import DOCID
from ..measures.spec import Measure
from .common import Kernel, check_choices, in_cutoff, list_length

# ----------------------------------------------------------------------------------------------------------------
# Formulas (also used by rankwise.recsys.beyond)


def coverage_from(covered: int, size: int, over: str) -> float:
    """Coverage = covered / size, or the count itself when ``over="count"``."""
    return float(covered) if over == "count" else covered / size


def gini_from_counts(counts: np.ndarray, size: int) -> float:
    r"""Gini index of recommendation counts over a catalogue of ``size`` items (items not in ``counts`` count 0):

    .. math:: G = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{n \sum_j c_{(j)}}

    with c_(j) the counts sorted ascending; NaN without recommendations."""
    counts = np.sort(np.asarray(counts, dtype=np.float64))
    ranks = np.arange(size - counts.size + 1, size + 1, dtype=np.float64)
    total = counts.sum()
    return float(((2 * ranks - size - 1) * counts).sum() / (size * total)) if total else math.nan


def entropy_from_counts(counts: np.ndarray, base: float, per_item: bool) -> float:
    r"""Shannon entropy H = −Σ p_i log_b p_i, p_i = c_i / Σ c (÷ the number of items when ``per_item``); NaN
    without recommendations."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.size == 0:
        return math.nan
    p = counts / counts.sum()
    value = float(-(p * np.log(p)).sum() / math.log(base))
    return value / counts.size if per_item else value


def self_information_of(counts: np.ndarray, total: int, cold: str, normalise: bool) -> np.ndarray:
    """I = −log2(count / total) per entry; entries with count 0 (cold items) get log2 total (``cold="one_user"``)
    or 0 (``"zero"``); ``normalise`` divides by log2 total (0 when total ≤ 1)."""
    cold_rows = counts == 0
    with np.errstate(divide="ignore"):
        information = -np.log2(np.where(cold_rows, 1.0, counts) / total)
    information[cold_rows] = math.log2(total) if cold == "one_user" else 0.0
    if normalise:
        information = information / math.log2(total) if total > 1 else np.zeros_like(information)
    return information


# ----------------------------------------------------------------------------------------------------------------
# Kernels


def _list_mean(a: Aligned, m: Measure, values: np.ndarray, divide_by_k: bool = False) -> np.ndarray:
    """Σ of per-row ``values`` over each query's top k ÷ |L[:k]| (or ÷ k); NaN for an empty list (0 ÷ k = 0)."""
    shown = in_cutoff(a, m)
    sums = a.per_query_sum(values, shown)
    if divide_by_k:
        return sums / float(m.cutoff)  # type: ignore[arg-type]  # checked by the caller
    length = list_length(a, m)
    out = np.full(a.num_queries, np.nan)
    np.divide(sums, length, out=out, where=length > 0)
    return out


_GLOBAL_CHOICES: dict[str, dict[str, tuple[str, ...]]] = {
    "Coverage": {"over": ("catalog", "train", "count"), "count": ("recommended", "known")},
    "Gini": {"weight": ("count", "geometric")},
    "Entropy": {"log": ("log2", "ln"), "divide": ("none", "items")},
}


def undefined_per_query(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Coverage, Gini and Entropy (global measures) have no per-query value: NaN; their aggregate comes from
    :func:`global_inputs` and :func:`global_aggregate` (formulas: :func:`coverage_from`, :func:`gini_from_counts`,
    :func:`entropy_from_counts`)."""
    check_choices(m, _GLOBAL_CHOICES[m.name])
    return np.full(a.num_queries, np.nan)


def novelty(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Novelty@k = 1 − |L[:k] ∩ T_u| / |L[:k]|, T_u the user's training items (RePlay Novelty)."""
    shown = in_cutoff(a, m)  # only the rows of the top k are looked up (every row without a cutoff)
    seen = np.zeros(len(a.rank), dtype=np.float64)
    seen[slice(None) if shown is None else shown] = seen_in_training(a, str(m), shown)
    return 1.0 - _list_mean(a, m, seen)


def self_information(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """SelfInformation@k = Σ_{i ∈ L[:k]} I(i) / D, I(i) = −log2 p(i) per the measure's options; D = |L[:k]| or
    k (|L| without a cutoff) (Zhou et al., PNAS 2010)."""
    check_choices(m, {"popularity": ("users", "interactions"), "cold": ("one_user", "zero"),
                      "normalise": ("no", "yes"), "divide": ("list", "k"), "mean": ("query", "rows")})  # fmt: skip
    training = a.training
    if training is None:
        raise MeasureError(f"{m} needs the training interactions: pass train= (--train FILE)")
    users, pairs = training.totals(str(m))
    total = users if m.get("popularity") == "users" else pairs
    counts = item_popularity(a, str(m))
    information = self_information_of(counts, total, str(m.get("cold")), m.get("normalise") == "yes")
    divide_by_k = m.get("divide") == "k" and m.get("mean") == "query" and m.cutoff is not None
    return _list_mean(a, m, information, divide_by_k)


def popularity_quantile(users: np.ndarray, training_users: np.ndarray) -> np.ndarray:
    """q(i) = the average 1-based rank (ascending; equal counts share the mean of their ranks) of ``users`` (each
    item's training users) among ``training_users`` (those of every training item) ÷ their number; 0 for 0 users
    (LensKit MeanPopRank: ``pos.rank(method="average") / len(pos)``, zeros reindexed to 0, _pop.py:71-74)."""
    ordered = np.sort(training_users)
    below, upto = np.searchsorted(ordered, users, "left"), np.searchsorted(ordered, users, "right")
    return np.where(users > 0, (below + upto + 1) / 2 / max(len(ordered), 1), 0.0)


def average_popularity(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """ARP@k = Σ_{i ∈ L[:k]} φ(i) / |L[:k]|, φ = training users of i (repeats=each: its training rows, RecBole's
    AveragePopularity; ÷ all users or pairs with share=yes), or with scale=quantile their
    :func:`popularity_quantile` (Abdollahpouri et al. 2019; LensKit MeanPopRank, Ekstrand et al., RecSys 2017)."""
    check_choices(m, {"popularity": ("users", "interactions"), "share": ("no", "yes"), "scale": ("count", "quantile"),
                      "repeats": ("once", "each")})  # fmt: skip
    index = training_index(a, str(m))
    counts = _item_counts(a, m, index)
    phi = per_row_of_items(a, index, counts.astype(np.float64))
    if m.get("scale") == "quantile":
        if m.get("share") == "yes":
            raise MeasureError(f"{m}: share=yes divides counts; scale=quantile is already in [0, 1]")
        return _list_mean(a, m, popularity_quantile(phi, counts))
    if m.get("share") == "yes":
        users, pairs = a.training.totals(str(m))  # type: ignore[union-attr]  # training_index checked it
        if m.get("repeats") == "each":
            pairs = int(counts.sum())
        phi = phi / (users if m.get("popularity") == "users" else pairs)
    return _list_mean(a, m, phi)


def _item_counts(a: Aligned, m: Measure, index: TrainingIndex) -> np.ndarray:
    """Per training item (in ``index``'s code order): its training users, or with repeats=each its training rows
    (a repeated pair counting each time, as RecBole's data.count_items), once per training table."""
    if m.get("repeats") != "each":
        return index.item_users
    pairs = a.training.pairs  # type: ignore[union-attr]  # training_index checked it
    return a.training.memo(("item_rows",), lambda: np.bincount(  # type: ignore[union-attr]
        index.item_codes(pairs.get_column(DOCID)), minlength=len(index.items)))  # type: ignore[union-attr]  # fmt: skip


def long_tail(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """LongTail@k = |L[:k] ∩ Γ| / |L[:k]| (APLT), or |L[:k] ∩ Γ| with count=yes (ACLT); Γ per
    :func:`long_tail_mask` of the training items by their training users (repeats=each: rows, RecBole's
    TailPercentage) (Abdollahpouri, Burke & Mobasher, RecSys 2017)."""
    check_choices(m, {"count": ("no", "yes"), "repeats": ("once", "each")})
    tail_ratio = m.get("tail_ratio")
    head_share = None if tail_ratio is not None else m.get("head_share")
    index = training_index(a, str(m))
    counts = _item_counts(a, m, index)
    in_tail = a.training.memo(("long_tail", head_share, tail_ratio, m.get("repeats")),  # type: ignore[union-attr]
                              lambda: long_tail_mask(index.items, counts, head_share, tail_ratio))  # type: ignore[arg-type]  # fmt: skip
    per_row = per_row_of_items(a, index, in_tail.astype(np.float64))
    if m.get("count") == "yes":
        return a.per_query_sum(per_row, in_cutoff(a, m))
    return _list_mean(a, m, per_row)


def _vectors(a: Aligned, m: Measure, items: pl.Series) -> Any:
    """:func:`rankwise.engine.similarity.item_vectors` of ``items`` with the measure's kind."""
    kind = str(m.get("kind"))
    training = a.training
    index = training.index(str(m)) if training is not None and training.pairs is not None else None
    return item_vectors(kind, items, index if kind == "cooccurrence_cosine" else None,
                        training.features if training is not None else None, str(m))  # fmt: skip


def _shown(a: Aligned, m: Measure) -> np.ndarray:
    """The indices of the rows in the top k."""
    rows = in_cutoff(a, m)
    return np.arange(len(a.qidx)) if rows is None else np.flatnonzero(rows)


def _row_items(a: Aligned, rows: np.ndarray) -> tuple[np.ndarray, pl.Series]:
    """(per row of ``rows``: the index of its item in ``items``, ``items``: their distinct ids as text)."""
    assert a.doc is not None, "aligned without doc ids"
    docs, local = np.unique(a.doc[rows], return_inverse=True)
    return local, a.doc_id_series().gather(docs).cast(pl.String)


def intra_list_diversity(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """ILD@k = Σ_{a<b ∈ L[:k]} d(a, b) / (n(n−1)/2) (:func:`rankwise.engine.similarity.pairwise_distance_sums`); a list
    of fewer than two items is NaN (single=skip) or 0 (single=zero) (Ziegler et al., WWW 2005)."""
    check_choices(m, {"kind": KINDS, "single": ("skip", "zero")})
    rows = _shown(a, m)
    local, items = _row_items(a, rows)
    total, pairs = pairwise_distance_sums(a.qidx[rows], local, a.num_queries, _vectors(a, m, items), str(m.get("kind")))
    out = np.full(a.num_queries, 0.0 if m.get("single") == "zero" else np.nan)
    np.divide(total, pairs, out=out, where=pairs > 0)
    return out


def serendipity(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Serendipity@k = Σ_{i ∈ L[:k]} u(i) · rel(i) / |L[:k]|, u(i) per ``definition`` (see the catalog):
    dissimilarity 1 − Σ_{j ∈ T_u} cos(i, j) / |T_u| (NaN for a user without training items), or RecTools'
    popularity-rank surplus."""
    check_choices(m, {"definition": ("dissimilarity", "popularity_rank"), "kind": KINDS})
    index = training_index(a, str(m))
    relevant = a.relevant(rel).astype(np.float64)
    if m.get("definition") == "popularity_rank":
        size, _ = a.training.catalogue(str(m))  # type: ignore[union-attr]  # training_index checked it
        users_of = per_row_of_items(a, index, index.item_users.astype(np.float64))
        distinct = np.unique(index.item_users).astype(np.float64)[::-1]
        dense = np.searchsorted(-distinct, -users_of) + 1.0
        any_user = np.where(users_of > 0, (size + 1 - dense) / size, 0.0)
        surplus = np.maximum((size + 1 - a.rank) / size - any_user, 0.0)
        return _list_mean(a, m, surplus * relevant)
    rows = _shown(a, m)
    users = index.user_codes(a.query_ids)
    with_history = np.flatnonzero(users >= 0)
    history_sizes = np.diff(index.offsets)[users[with_history]]
    history_query = np.repeat(with_history, history_sizes)
    history_codes = index.user_items[concatenated_ranges(index.offsets[users[with_history]], history_sizes)]
    local, items = _row_items(a, rows)
    history_items, history_local = np.unique(history_codes, return_inverse=True)
    vectors = _vectors(a, m, pl.concat([items, index.items.gather(history_items)]))
    sums = row_sums(history_query, history_local + len(items), a.num_queries, vectors)
    q = a.qidx[rows]
    count = np.zeros(a.num_queries)
    count[with_history] = history_sizes
    similarity = paired_dots(vectors, local, sums, q) / np.maximum(count[q], 1.0)
    per_row = np.zeros(len(a.qidx))
    per_row[rows] = (1.0 - similarity) * relevant[rows]
    out = _list_mean(a, m, per_row)
    out[count == 0] = np.nan
    return out


def unexpectedness(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """Unexpectedness@k = 1 − |L[:k] ∩ B[:k]| / k; 0 for a user without a baseline list (Murakami et al., ECIR
    2008; RePlay Unexpectedness)."""
    k = int(m.cutoff)  # type: ignore[arg-type]  # the family requires a cutoff
    baseline = (a.training or Training(None)).baseline_index(k, str(m))
    shared = a.per_query_sum(pairs_present(a, baseline).astype(np.float64), in_cutoff(a, m))
    return np.where(baseline.user_codes(a.query_ids) >= 0, 1.0 - shared / k, 0.0)


BEYOND_KERNELS: dict[str, Kernel] = {
    "Coverage": undefined_per_query,
    "Gini": undefined_per_query,
    "Entropy": undefined_per_query,
    "Novelty": novelty,
    "SelfInformation": self_information,
    "ARP": average_popularity,
    "ILD": intra_list_diversity,
    "Serendipity": serendipity,
    "Unexpectedness": unexpectedness,
    "LongTail": long_tail,
}
"""The beyond-accuracy families and their kernels (registered in :data:`rankwise.kernels.KERNELS`)."""


# ----------------------------------------------------------------------------------------------------------------
# Global measures: inputs per query range, one aggregate


def global_inputs(a: Aligned, m: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """What a global measure's aggregate needs of these queries (:func:`rankwise.kernels.aggregate.aggregation_inputs`
    names them ``items``, ``size``, ``rows_per_query``, ``weight``): the key of every counted row (rows in the top
    k; for Coverage with count=known only items of the set it divides by), the size with each row (the catalogue size
    or the number of training items, the same for every row; 0 when unused: every input but the values is per row,
    so that query ranges gathered in any order stay aligned), the number of counted rows of each query, and the
    weight of each counted row (Gini with weight=geometric: the exposure p^{r−1} of its rank r; None for the other
    measures, whose rows all weigh 1: ten million ones would be made and gathered for nothing)."""
    rows = in_cutoff(a, m)
    keep = np.ones(len(a.qidx), dtype=bool) if rows is None else rows
    size, known = 0, None
    if m.name == "Gini" or (m.name == "Coverage" and m.get("over") != "count"):
        size, items = _denominator(a, m)
        if m.name == "Coverage" and m.get("count") == "known" and items is not None:
            known = in_items(a, items)  # a catalogue given as a number holds every recommended item
    elif m.name == "Coverage" and m.get("count") == "known":
        raise MeasureError(f"{m}: count=known counts items of the catalogue: give over=catalog or over=train")
    if size >= 2**32:
        raise MeasureError(f"{m}: a catalogue of {size} items is beyond 2^32")
    if known is not None:
        keep &= known
        keys, counted = item_keys(a)[keep], np.bincount(a.qidx[keep], minlength=a.num_queries)
    else:  # the same rows for every global measure at this cutoff: their arrays made (and joined) once
        keys, counted = a.memo(("global rows", m.cutoff, m.option("within")),
                               lambda: (item_keys(a)[keep], np.bincount(a.qidx[keep], minlength=a.num_queries)))
    weight = None
    if m.option("weight") == "geometric":
        weight = float(m.get("p")) ** (a.rank[keep] - 1.0)  # type: ignore[arg-type]  # a float with a default
    sizes = a.memo(("global size", len(keys), size), lambda: np.full(len(keys), size, dtype=np.uint32))
    return keys, sizes, counted, weight


def _denominator(a: Aligned, m: Measure) -> tuple[int, pl.Series | None]:
    """(size, items) of what Coverage divides by or Gini spreads over."""
    if m.name == "Coverage" and m.get("over") == "train":
        if a.training is None:
            raise MeasureError(f"{m} needs the training interactions: pass train= (--train FILE)")
        items = a.training.items(str(m))
        return items.len(), items
    if a.training is None:
        return catalogue_size(None, None, str(m))
    return a.training.catalogue(str(m))


def item_counts(items: np.ndarray) -> np.ndarray:
    """How often each distinct item key occurs in ``items`` (in order of first occurrence). Counted once per array
    (:func:`rankwise.engine.training.cache_of`): the global measures at one cutoff share their items
    (:func:`global_inputs`), and their accounts read them too."""
    cache = cache_of(items)
    if "counts" not in cache:
        cache["counts"] = pl.Series(items).unique_counts().to_numpy()
    return cache["counts"]  # type: ignore[no-any-return]


def global_aggregate(m: Measure, inputs: dict[str, np.ndarray]) -> float:
    """The aggregate of a global measure from :func:`global_inputs` of all queries (concatenated)."""
    counts = item_counts(inputs["items"])
    if m.option("weight") == "geometric":  # each item's exposure summed over the lists
        keys = pl.DataFrame({"key": inputs["items"], "weight": inputs["weight"]})
        counts = keys.group_by("key").agg(pl.col("weight").sum()).get_column("weight").to_numpy()
    sizes = inputs["size"]
    size = int(sizes[0]) if len(sizes) else 0
    if m.name == "Coverage":
        over = str(m.get("over"))
        if over == "catalog" and counts.size > size:
            raise MeasureError(f"{m}: the lists hold {counts.size} distinct items, more than the catalogue's {size}")
        return coverage_from(counts.size, size, over) if len(sizes) else 0.0
    if m.name == "Gini":
        if counts.size > size:
            raise MeasureError(f"{m}: the lists hold {counts.size} distinct items, more than the catalogue's {size}")
        return gini_from_counts(counts, size) if len(sizes) else math.nan
    return entropy_from_counts(counts, 2.0 if m.get("log") == "log2" else math.e, m.get("divide") == "items")


def reads_all_training(m: Measure) -> bool:
    """Whether ``m`` reads statistics of all training interactions (item popularity, the training items, item
    co-occurrence), not only each user's own: SelfInformation, ARP, LongTail, Serendipity, ILD by co-occurrence,
    Coverage over or counting the training items."""
    return (m.name in ("SelfInformation", "ARP", "LongTail", "Serendipity")
            or (m.name == "ILD" and m.get("kind") == "cooccurrence_cosine")
            or (m.name == "Coverage" and (m.get("over") == "train" or m.get("count") == "known")))  # fmt: skip


def refuse_on_chunks(pairs: Iterable[tuple[str, Measure]], *, item_groups: bool = False) -> None:
    """Refuse, on an engine whose tasks see only their own users' training interactions (Spark), a measure that
    reads all of them (:func:`reads_all_training`; RSP and REO with ``groups=popularity``, the training items' head
    and tail), item features or a baseline's lists, which it does not take, or item groups when none are given
    (``item_groups``: whether they are)."""
    for key, measure in pairs:
        if measure.name in ("RSP", "REO") and measure.get("groups") == "popularity":
            raise MeasureError(f"{key}: groups=popularity splits all training items into head and tail, and each "
                               "Spark task sees only its users' interactions: give item_groups=, or use "
                               "rankwise.evaluate")  # fmt: skip
        if reads_all_training(measure):
            raise MeasureError(f"{key}: each Spark task sees only its users' training interactions and this measure "
                               "reads all of them (item popularity, the training items): use rankwise.evaluate")
        if measure.name in ("ILD", "Unexpectedness", "RBO", "LIP"):
            raise MeasureError(f"{key}: rankwise.spark.evaluate takes no item features or baseline lists: use "
                               "rankwise.evaluate")  # fmt: skip
        if measure.name in ("AWRF", "nDCG-AWRF", "RSP", "REO", "ItemMAD") and not item_groups:
            raise MeasureError(f"{key}: needs item groups: give rankwise.spark.evaluate item_groups=")
