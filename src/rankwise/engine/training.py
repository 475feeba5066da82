"""What the training interactions and the catalogue tell the beyond-accuracy measures, looked up per run row.

A :class:`Training` holds the (user, item) training pairs and the catalogue (a number of items or the items) of one
evaluation; it is attached to the :class:`~rankwise.engine.aligned.Aligned` arrays after alignment
(:func:`rankwise.pipeline.compute.with_candidates`). The pairs are indexed once (:class:`TrainingIndex`: ids coded,
each user's items as a sorted slice of one array), shared by every query range. The lookups below give, for every
run row in layout order, what a measure needs of its item: the item's number of training users, whether the row's
user had the item in training, whether the item is in a set of items, and a key of the item that is the same in
every query range. Each lookup codes the distinct doc ids once and gathers by doc code: no per-query loop.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..errors import InputError, MeasureError
from ..io.table import DOCID, QID, ROW, VALUE, Table
from .aligned import Aligned
from .rowops import distinct_items, id_codes, lookup, text_order_codes


def catalogue_size(catalog: Any, items: pl.Series | None, measure: str) -> tuple[int, pl.Series | None]:
    """(catalogue size, its items or None when only the size was given): ``catalog`` is a number of items or the
    items themselves; without it the training items ``items`` (None: no training interactions either, refused)."""
    if catalog is None:
        if items is None:
            raise InputError(f"{measure} needs the catalogue: pass catalog= (a number of items or the items; "
                             "--catalog N) or the training interactions (train=, --train FILE)")  # fmt: skip
        return items.len(), items
    if isinstance(catalog, bool):
        raise InputError(f"catalog={catalog!r}: give a number of items or the items")
    if isinstance(catalog, (int, np.integer)):
        if catalog < 1:
            raise InputError(f"catalog={catalog}: the catalogue must hold at least one item")
        return int(catalog), None
    if isinstance(catalog, (str, bytes)) or not isinstance(catalog, Iterable):
        raise InputError(f"catalog must be a number of items or an iterable of item ids, not {type(catalog).__name__}")
    distinct = pl.Series("item", [str(i) for i in catalog], dtype=pl.String).unique()
    if distinct.len() == 0:
        raise InputError("catalog: no items")
    return distinct.len(), distinct


_SHARED: dict[int, tuple[weakref.ref, dict]] = {}


def cache_of(owner: object | None) -> dict:
    """One cache per object (a training table, an array of item keys), shared by whoever reads that same object —
    every query range of an evaluation makes its own :class:`Training` of the same table, the global measures at one
    cutoff share their items — and released with the object (an empty one, not kept, for None)."""
    if owner is None:
        return {}
    key = id(owner)
    entry = _SHARED.get(key)
    if entry is not None and entry[0]() is owner:
        return entry[1]
    cache: dict = {}
    _SHARED[key] = (weakref.ref(owner, lambda _, key=key: _SHARED.pop(key, None)), cache)  # type: ignore[misc]
    return cache


@dataclass(frozen=True)
class TrainingIndex:
    """The distinct training pairs as flat arrays, built once per training table: ``users`` (distinct user ids
    as text, in text order) and ``items`` (distinct item ids as text, in code order) code the ids; the items of
    user ``u`` are ``user_items[offsets[u]:offsets[u+1]]`` (item codes, ascending, each once, the layout
    :func:`.rowops.lookup` searches); ``item_users[i]`` is the number of training users of item ``i``."""

    users: pl.Series
    items: pl.Series
    offsets: np.ndarray
    user_items: np.ndarray
    item_users: np.ndarray

    @classmethod
    def of(cls, pairs: pl.DataFrame) -> TrainingIndex:
        """Index ``pairs`` (``query_id`` and ``doc_id`` columns of text or integers; repeated pairs count once):
        ids coded once (:func:`.rowops.text_order_codes`, :func:`~.rowops.id_codes`), the pairs
        grouped by user, sorted by item code and their repeats dropped in one pass (:func:`~.rowops.distinct_items`).
        O(pairs); no text is sorted but the distinct user ids."""
        (user,), users = text_order_codes(pairs.get_column(QID))
        (item,), items = id_codes(pairs.get_column(DOCID))
        user_items, offsets = distinct_items(user, len(users), item)
        return cls(_as_text(users), _as_text(items), offsets, user_items, np.bincount(user_items, minlength=len(items)))

    @property
    def num_pairs(self) -> int:
        """The number of distinct training pairs."""
        return len(self.user_items)

    def user_codes(self, query_ids: list[str]) -> np.ndarray:
        """The code of each query id among the training users; −1 for a user without training interactions."""
        wanted = pl.Series(QID, query_ids, dtype=pl.String)
        at = self.users.search_sorted(wanted, side="left").to_numpy().astype(np.int64)
        inside = at < len(self.users)
        found = np.zeros(len(at), dtype=bool)
        found[inside] = (self.users.gather(at[inside]) == wanted.filter(pl.Series(inside))).to_numpy()
        return np.where(found, at, -1)

    def item_codes(self, doc_ids: pl.Series) -> np.ndarray:
        """The code of each doc id among the training items (matched by text); −1 for an item not in training.
        Found once per series of doc ids (kept with it: every query range of an evaluation, and every measure, reads
        the same shared doc ids); not to be written to."""
        cache = cache_of(doc_ids)
        found = cache.get("item_codes")
        if found is not None and found[0] is self:
            return found[1]
        index = pl.DataFrame({DOCID: self.items, "code": np.arange(len(self.items), dtype=np.int64)})
        joined = pl.DataFrame({DOCID: _as_text(doc_ids)}).join(index, on=DOCID, how="left", maintain_order="left")
        codes = joined.get_column("code").fill_null(-1).to_numpy()
        codes.flags.writeable = False  # shared by whoever asks next
        cache["item_codes"] = (self, codes)
        return codes


def _as_text(ids: pl.Series) -> pl.Series:
    return ids if ids.dtype == pl.String else ids.cast(pl.String)


@dataclass
class Training:
    """The training interactions (``query_id``, ``doc_id`` of text or integers, a pair may repeat; None when not
    given) and the catalogue. The :class:`TrainingIndex` of the pairs is built once and shared by all query
    ranges."""

    pairs: pl.DataFrame | None
    catalog: Any = None
    features: Any = None
    """Item features (a table with an item id column; see :func:`~.similarity.feature_matrix`), or None."""
    baseline: Table | None = None
    """Another model's lists (a run table), for unexpectedness, or None."""
    item_groups: Mapping[str, str | None] | None = None
    """Item groups: ``{item id: group label}`` (None: the item is in no group), for the fairness measures, or None."""
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._cache = cache_of(self.pairs)

    def baseline_index(self, k: int, measure: str) -> TrainingIndex:
        """The baseline's top k of each user (score descending, equal scores in input order) indexed as pairs, once
        per k for all query ranges; a one-line error naming the measure when no baseline was given."""
        if self.baseline is None:
            raise MeasureError(f"{measure} compares with another model's lists: pass baseline= (--baseline RUN)")
        cache = cache_of(self.baseline.frame)
        if ("top", k) not in cache:
            frame = self.baseline.frame.sort([QID, VALUE, ROW], descending=[False, True, False])
            top = frame.filter(pl.int_range(pl.len()).over(QID) < k).select(QID, DOCID)
            cache["top", k] = TrainingIndex.of(top)
        return cache["top", k]

    def index(self, measure: str) -> TrainingIndex:
        """The index of the training pairs, or a one-line error naming the measure that needs them."""
        if self.pairs is None:
            raise MeasureError(f"{measure} needs the training interactions: pass train= (--train FILE)")
        if "index" not in self._cache:
            self._cache["index"] = TrainingIndex.of(self.pairs)
        return self._cache["index"]

    def memo(self, key: tuple, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per training table for ``key`` and shared by every query range (what a
        measure derives from the training pairs alone, e.g. the long-tail items)."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def items(self, measure: str) -> pl.Series:
        """The distinct training items (text)."""
        return self.index(measure).items

    def catalogue(self, measure: str) -> tuple[int, pl.Series | None]:
        """See :func:`catalogue_size` (the training items by default)."""
        return catalogue_size(self.catalog, self.items(measure) if self.pairs is not None else None, measure)

    def totals(self, measure: str) -> tuple[int, int]:
        """(training users, distinct training pairs)."""
        index = self.index(measure)
        return len(index.users), index.num_pairs

    def items_per_user(self, query_ids: list[str]) -> np.ndarray:
        """Per query: the user's number of distinct training items (0 without training interactions)."""
        index = self.index("candidate counts")
        codes = index.user_codes(query_ids)
        counts = np.diff(index.offsets)
        return np.where(codes >= 0, counts[np.maximum(codes, 0)] if len(counts) else 0, 0)


def _training(a: Aligned, measure: str) -> Training:
    if a.training is None:
        raise MeasureError(f"{measure} needs the training interactions: pass train= (--train FILE)")
    return a.training


def _doc_text(a: Aligned) -> pl.Series:
    assert a.doc is not None, "aligned without doc ids"
    return a.doc_id_series().cast(pl.String).alias(DOCID)


def item_keys(a: Aligned) -> np.ndarray:
    """Per row: a 64-bit key of its item, the same in every query range and process (the hash of the id's text;
    two distinct ids share a key with probability about n²/2⁶⁵ for n distinct items)."""
    keys = _doc_text(a).hash(seed=0).to_numpy()
    return keys[a.doc]  # type: ignore[index]


def training_index(a: Aligned, measure: str) -> TrainingIndex:
    """The index of the training interactions, or a one-line error naming the measure that needs them."""
    return _training(a, measure).index(measure)


def per_row_of_items(a: Aligned, index: TrainingIndex, per_item: np.ndarray) -> np.ndarray:
    """Per row: ``per_item`` (a float per training item, in code order) of its item; 0 for an item without
    training interactions."""
    codes = index.item_codes(a.doc_id_series())
    per_doc = np.where(codes >= 0, per_item[np.maximum(codes, 0)] if len(per_item) else 0.0, 0.0)
    return per_doc.astype(np.float64)[a.doc]


def item_popularity(a: Aligned, measure: str) -> np.ndarray:
    """Per row: the number of training users of its item (0 for an item without training interactions)."""
    index = training_index(a, measure)
    return per_row_of_items(a, index, index.item_users.astype(np.float64))


def in_items(a: Aligned, items: pl.Series) -> np.ndarray:
    """Per row: whether its item is one of ``items``."""
    return _doc_text(a).is_in(items.cast(pl.String).implode()).to_numpy()[a.doc]


def seen_in_training(a: Aligned, measure: str, rows: np.ndarray | None = None) -> np.ndarray:
    """Per row (of those where ``rows``, a mask, when given): whether the row's user had the row's item in training
    (see :func:`pairs_present`)."""
    return pairs_present(a, training_index(a, measure), rows=rows)


def pairs_present(a: Aligned, index: TrainingIndex, judgments: bool = False, rows: np.ndarray | None = None
                  ) -> np.ndarray:  # fmt: skip
    """Per row (per judgment with ``judgments``; of those where ``rows``, a mask, when given): whether the (user,
    item) pair of the row is one of ``index``'s: a binary search of the item's code among the user's items
    (:func:`.rowops.lookup`), O(rows · log items per user). A user not in the index searches an empty slice past the
    last user's; an item not in it has code −1, which no slice holds (and −2 marks what is not found)."""
    users = index.user_codes(a.query_ids)
    users[users < 0] = len(index.users)
    offsets = np.append(index.offsets, index.offsets[-1])
    qidx, doc = (a.qrel_qidx, a.qrel_doc) if judgments else (a.qidx, a.doc)
    if rows is not None:
        qidx, doc = qidx[rows], doc[rows]  # type: ignore[index]
    item = index.item_codes(a.doc_id_series())[doc]  # type: ignore[index]
    return lookup(users[qidx], item, offsets, index.user_items, index.user_items, -2) == item


def long_tail_mask(items: pl.Series, users: np.ndarray, head_share: float | None, tail_ratio: float | None
                   ) -> np.ndarray:  # fmt: skip
    """Per training item (``items`` as text, ``users`` its number of training users = distinct interactions):
    whether it is in the long tail, by one of two definitions:

    - ``head_share`` = h (Elliot, after Abdollahpouri et al. 2017): items sorted by training users descending
      (ties by item id) form the short head until their interactions reach h · (all interactions), the item that
      crosses included; every other training item is long tail.
    - ``tail_ratio`` = t (RecBole ``TailPercentage``): t > 1: items with at most t interactions; t ≤ 1: the
      max(⌊t · n_items⌋, 1) least popular items (ties by item id).

    Ties by item id: ids that are integers in integer order first, then the others as text."""
    if (head_share is None) == (tail_ratio is None):
        raise MeasureError("long tail: give head_share (Elliot) or tail_ratio (RecBole), one of them")
    counts = pl.DataFrame({"item": items.cast(pl.String), "len": np.asarray(users, dtype=np.int64),
                           "at": np.arange(len(items))})  # fmt: skip
    by_id = [pl.col("item").cast(pl.Int64, strict=False), pl.col("item")]
    mask = np.zeros(len(items), dtype=bool)
    if head_share is not None:
        ordered = counts.sort([pl.col("len"), *by_id], descending=[True, False, False], nulls_last=True)
        before = ordered.get_column("len").cum_sum() - ordered.get_column("len")
        mask[ordered.filter(before >= head_share * float(ordered.get_column("len").sum())).get_column("at")] = True
    elif tail_ratio is not None and tail_ratio > 1:
        mask[counts.filter(pl.col("len") <= tail_ratio).get_column("at").to_numpy()] = True
    elif tail_ratio is not None:
        ordered = counts.sort([pl.col("len"), *by_id], nulls_last=True)
        mask[ordered.head(max(int(ordered.height * tail_ratio), 1)).get_column("at").to_numpy()] = True
    return mask


POPULARITY_LABELS = ("head", "tail")
"""The groups of the built-in popularity split of items (:func:`popularity_labels`)."""


def popularity_labels(index: TrainingIndex, head_share: float) -> dict[str, str]:
    """``{training item: "head" | "tail"}``: the short head and the long tail of :func:`long_tail_mask` with
    ``head_share`` (Elliot's popularity split, elliot/evaluation/popularity_utils/popularity.py:37-53 at fc27efe,
    which PopRSP and PopREO read); items without training interactions are in neither."""
    tail = long_tail_mask(index.items, index.item_users, head_share, None)
    return dict(zip(index.items.to_list(), np.where(tail, POPULARITY_LABELS[1], POPULARITY_LABELS[0]).tolist()))
