"""What the training interactions and the catalogue tell the beyond-accuracy measures, looked up per run row.

A :class:`Training` holds the distinct (user, item) training pairs and the catalogue (a number of items or the
items) of one evaluation; it is attached to the :class:`~rankwise.aligned.Aligned` arrays after alignment
(:func:`rankwise.pipeline.compute.with_candidates`). The lookups below give, for every run row in layout order,
what a measure needs of its item: the item's number of training users, whether the row's user had the item in
training, whether the item is in a set of items, and a key of the item that is the same in every query range.
Each lookup joins the distinct doc ids once and gathers by doc code: O(rows), no per-query loop.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from .aligned import Aligned, _judgments_by_doc
from .errors import InputError, MeasureError
from .io.table import DOCID, QID
from .rowops import lookup


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


def _shared_cache(pairs: pl.DataFrame | None) -> dict:
    """One cache per training table, shared by every query range of an evaluation (each range makes its own
    :class:`Training` of the same table) and released with the table."""
    if pairs is None:
        return {}
    key = id(pairs)
    entry = _SHARED.get(key)
    if entry is not None and entry[0]() is pairs:
        return entry[1]
    cache: dict = {}
    _SHARED[key] = (weakref.ref(pairs, lambda _, key=key: _SHARED.pop(key, None)), cache)  # type: ignore[misc]
    return cache


@dataclass
class Training:
    """Distinct training pairs (``query_id``, ``doc_id`` as text; None when not given) and the catalogue. What is
    computed from the pairs alone is cached with the table, once for all query ranges."""

    pairs: pl.DataFrame | None
    catalog: Any = None
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._cache = _shared_cache(self.pairs)

    def need_pairs(self, measure: str) -> pl.DataFrame:
        """The training pairs, or a one-line error naming the measure that needs them."""
        if self.pairs is None:
            raise MeasureError(f"{measure} needs the training interactions: pass train= (--train FILE)")
        return self.pairs

    def items(self, measure: str) -> pl.Series:
        """The distinct training items."""
        if "items" not in self._cache:
            self._cache["items"] = self.need_pairs(measure).get_column(DOCID).unique()
        return self._cache["items"]

    def catalogue(self, measure: str) -> tuple[int, pl.Series | None]:
        """See :func:`catalogue_size` (the training items by default)."""
        return catalogue_size(self.catalog, self.items(measure) if self.pairs is not None else None, measure)

    def totals(self, measure: str) -> tuple[int, int]:
        """(training users, training pairs)."""
        pairs = self.need_pairs(measure)
        if "users" not in self._cache:
            self._cache["users"] = pairs.get_column(QID).n_unique()
        return self._cache["users"], pairs.height

    def of_users(self, query_ids: list[str], measure: str) -> pl.DataFrame:
        """The pairs whose user lies between the least and the greatest of ``query_ids`` (by text): a query range's
        users and few others, cut from the pairs sorted by user once."""
        if "by_user" not in self._cache:
            self._cache["by_user"] = self.need_pairs(measure).sort(QID)
        ordered: pl.DataFrame = self._cache["by_user"]
        if not query_ids:
            return ordered.clear()
        users = ordered.get_column(QID)
        low, high = users.search_sorted(min(query_ids), side="left"), users.search_sorted(max(query_ids), side="right")
        return ordered.slice(int(low), int(high) - int(low))

    def item_users(self, measure: str) -> pl.DataFrame:
        """doc_id → number of training users (= training pairs, the pairs being distinct)."""
        if "item_users" not in self._cache:
            self._cache["item_users"] = self.need_pairs(measure).group_by(DOCID).len()
        return self._cache["item_users"]


def _training(a: Aligned, measure: str) -> Training:
    if a.training is None:
        raise MeasureError(f"{measure} needs the training interactions: pass train= (--train FILE)")
    return a.training


def _doc_text(a: Aligned) -> pl.Series:
    assert a.doc_ids is not None and a.doc is not None, "aligned without doc ids"
    return a.doc_ids.cast(pl.String).alias(DOCID)


def item_keys(a: Aligned) -> np.ndarray:
    """Per row: a 64-bit key of its item, the same in every query range and process (the hash of the id's text;
    two distinct ids share a key with probability about n²/2⁶⁵ for n distinct items)."""
    keys = _doc_text(a).hash(seed=0).to_numpy()
    return keys[a.doc]  # type: ignore[index]


def item_popularity(a: Aligned, measure: str) -> np.ndarray:
    """Per row: the number of training users of its item (0 for an item without training interactions)."""
    counts = _training(a, measure).item_users(measure)
    joined = pl.DataFrame({DOCID: _doc_text(a)}).join(counts, on=DOCID, how="left", maintain_order="left")
    return joined.get_column("len").fill_null(0).to_numpy().astype(np.float64)[a.doc]


def in_items(a: Aligned, items: pl.Series) -> np.ndarray:
    """Per row: whether its item is one of ``items``."""
    return _doc_text(a).is_in(items.cast(pl.String).implode()).to_numpy()[a.doc]


def seen_in_training(a: Aligned, measure: str) -> np.ndarray:
    """Per row: whether the row's user had the row's item in training (looked up as grades are, by doc code
    within each query)."""
    pairs = _training(a, measure).of_users(a.query_ids, measure)
    query_index = pl.DataFrame({QID: a.query_ids, "_q": np.arange(a.num_queries)}, schema={QID: pl.String,
                                                                                           "_q": pl.Int64})  # fmt: skip
    doc_index = pl.DataFrame({DOCID: _doc_text(a), "_d": np.arange(len(a.doc_ids))})  # type: ignore[arg-type]
    known = pairs.join(query_index, on=QID).join(doc_index, on=DOCID)
    order, docs, offsets = _judgments_by_doc(known.get_column("_q").to_numpy(), known.get_column("_d").to_numpy(),
                                             a.num_queries)  # fmt: skip
    return lookup(a.qidx, a.doc, offsets, docs, np.ones(len(order), dtype=np.int64), 0) == 1  # type: ignore[arg-type]
