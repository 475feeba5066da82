"""Exposure and coverage by item group: who among the providers (or genres, or the head and the tail) the lists
show, and how prominently — the item side of :func:`rankwise.group_table`.

For each item group g of ``item_groups`` (``rankwise item-groups RUN --item-groups FILE:COLUMN``), over every list's
top k (its rows ordered as :func:`rankwise.evaluate` orders them, ties included):

- ``items`` |G_g|: the group's items (every id the item groups give it); ``catalog share`` |G_g| / Σ_h |G_h|;
- ``listed``: its distinct items in some top k; ``coverage`` = listed / items (Ge, Delgado-Battenfeld & Jannach,
  RecSys 2010, per group: the catalogue coverage of one provider);
- ``slots``: its rows in the top k over all lists; ``slot share`` = slots / all rows in the top k;
- ``exposure`` E_g = Σ_{lists} Σ_{i ≤ k, g(L_i) = g} w(i), w the position weight of ``discount``: ``log2``
  1 / log2(i + 1) (the DCG discount, default), ``track`` 1 / log2(max(i, 2)) (TREC Fair 2022's attention, as AWRF
  weighs ranks), ``geometric`` p^{i−1} (RBP's patience p; LensKit's ExposureGini, p = 0.85), ``reciprocal`` 1 / i,
  ``none`` 1; ``exposure share`` = E_g / Σ E over all rows (Singh & Joachims, Fairness of Exposure in Rankings, KDD
  2018: exposure summed over the group's items; Biega, Gummadi & Weikum, SIGIR 2018: attention);
- ``exposure / catalog``: exposure share / catalog share — 1 where the group is shown in proportion to its size
  (disparate exposure; Zehlike et al., Fairness in Ranking, ACM Computing Surveys 2022, §2);
- with ``qrels``: ``relevant`` its judged-relevant (query, item) pairs (grade >= rel_level) and ``exposure /
  relevance``: exposure share / its share of the relevant pairs — 1 where exposure follows merit (Singh & Joachims'
  disparate treatment, over the whole evaluation).

Rows of items in no group form a row ``(no group)`` (slots and exposure, counted in the shares' denominators; no
items, coverage or catalogue share), and a note says how many; groups without a listed item show coverage 0. The
table names the groups with the largest and the smallest exposure / catalog ratio and their quotient. Per-list
measures of the same item groups: AWRF, RSP, REO, EE over=groups (:mod:`rankwise.measures.fairness`).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.aligned import align
from ..errors import InputError
from ..io import load_qrels, load_run
from ..io.table import DOCID, Origin, empty_table
from ..policies import Policies, QuerySet
from ..wording import counted, terminal_width, wrap
from .formats import plain_table
from .groups import item_codes, read_item_groups

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

DISCOUNTS = ("log2", "track", "geometric", "reciprocal", "none")
NO_GROUP = "(no group)"
COLUMNS = ("group", "items", "listed", "coverage", "slots", "slot share", "exp share", "cat share", "exp/cat",
           "relevant", "exp/rel")  # fmt: skip
"""The text table's headings: ``exp share`` the exposure share, ``cat share`` the catalogue share, ``exp/cat`` and
``exp/rel`` exposure / catalog and exposure / relevance (the JSON and CSV keys spell them out)."""


@dataclasses.dataclass(frozen=True)
class ItemGroupRow:
    """One item group's line of :class:`ItemGroupTable` (see the module docstring for each value)."""

    group: str
    items: int | None
    listed: int | None
    coverage: float
    slots: int
    slot_share: float
    exposure: float
    exposure_share: float
    catalog_share: float
    exposure_to_catalog: float
    relevant: int | None
    exposure_to_relevance: float


@dataclasses.dataclass(frozen=True)
class ItemGroupTable:
    """Exposure and coverage per item group (:func:`item_group_table`)."""

    name: str
    k: int | None
    discount: str
    rows: tuple[ItemGroupRow, ...]
    lists: int
    notes: tuple[str, ...]

    @property
    def gap(self) -> tuple[str, str, float] | None:
        """(most over-exposed group, most under-exposed group, the quotient of their exposure / catalog ratios)
        among the groups with items; None with fewer than two."""
        ranked = sorted((r for r in self.rows if r.items and not math.isnan(r.exposure_to_catalog)),
                        key=lambda r: (-r.exposure_to_catalog, r.group))  # fmt: skip
        if len(ranked) < 2:
            return None
        high, low = ranked[0], ranked[-1]
        quotient = high.exposure_to_catalog / low.exposure_to_catalog if low.exposure_to_catalog else math.inf
        return high.group, low.group, quotient

    def record(self) -> dict[str, Any]:
        """The table as JSON-ready data (NaN and infinity as null)."""
        gap = self.gap
        return {"item_groups": self.name, "k": self.k, "discount": self.discount, "lists": self.lists,
                "rows": [{f.name: _finite(getattr(r, f.name)) for f in dataclasses.fields(r)} for r in self.rows],
                "gap": None if gap is None else {"highest": gap[0], "lowest": gap[1], "quotient": _finite(gap[2])},
                "notes": list(self.notes)}  # fmt: skip

    def text(self, width: int | None = None) -> str:
        """The table as plain text (the relevance columns only with judgments), then the gap line; fitted to
        ``width`` (default: the terminal's: :func:`rankwise.pipeline.formats.plain_table` wraps or lists it)."""
        width = width or terminal_width()
        judged = any(r.relevant is not None for r in self.rows)
        shown = len(COLUMNS) if judged else len(COLUMNS) - 2
        cells = [[_cell(getattr(r, f)) for r in self.rows] for f in _FIELDS[:shown]]
        cut = "all ranks" if self.k is None else f"top {self.k}"
        lines = [*wrap(f"by {self.name} ({counted(self.lists, 'list', 'lists')}, {cut}, {self.discount} discount)",
                       width),
                 *plain_table(list(COLUMNS[:shown]), cells, [False] + [True] * (shown - 1), width)]  # fmt: skip
        gap = self.gap
        if gap is not None:
            lines += wrap(f"most exposed for its size: {gap[0]}; least: {gap[1]} ({_cell(gap[2])}× apart)", width)
        return "\n".join(lines) + "\n"

    def csv(self) -> str:
        """One CSV row per group, the columns of :class:`ItemGroupRow`."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([f.name for f in dataclasses.fields(ItemGroupRow)])
        for row in self.rows:
            writer.writerow(["" if v is None or (isinstance(v, float) and not math.isfinite(v)) else v
                             for v in dataclasses.astuple(row)])  # fmt: skip
        return out.getvalue()

    def json(self) -> str:
        return json.dumps(self.record(), separators=(",", ":"), allow_nan=False) + "\n"


_FIELDS = ("group", "items", "listed", "coverage", "slots", "slot_share", "exposure_share", "catalog_share",
           "exposure_to_catalog", "relevant", "exposure_to_relevance")  # fmt: skip


def _finite(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return "–" if math.isnan(value) else "inf" if math.isinf(value) else f"{value:.4f}"
    return str(value)


def position_weights(rank: np.ndarray, discount: str, p: float = 0.85) -> np.ndarray:
    """w(i) of 1-based ranks i per ``discount`` (module docstring)."""
    i = rank.astype(np.float64)
    if discount == "log2":
        return 1.0 / np.log2(i + 1.0)
    if discount == "track":
        return 1.0 / np.log2(np.maximum(i, 2.0))
    if discount == "geometric":
        return p ** (i - 1.0)
    if discount == "reciprocal":
        return 1.0 / i
    return np.ones(len(i))


def item_group_table(
    run: Any,
    item_groups: Any,
    *,
    k: int | None = None,
    qrels: Any = None,
    discount: str = "log2",
    p: float = 0.85,
    rel_level: int = 1,
    ties: Any = None,
    train: Any = None,
    run_columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
) -> ItemGroupTable:
    """Exposure and coverage of each item group over every list's top ``k`` of ``run`` (module docstring):
    ``item_groups`` as :func:`rankwise.evaluate` takes it (``popularity`` needs ``train``), ``discount`` one of
    :data:`DISCOUNTS` (``p`` for ``geometric``), ``qrels`` for the relevance columns, ``ties`` the tie policy of
    :func:`rankwise.evaluate` (default docno_desc)."""
    if discount not in DISCOUNTS:
        raise InputError(f"discount {discount!r}: one of {', '.join(DISCOUNTS)}")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise InputError(f"k must be a whole number >= 1, not {k!r}")
    if not 0 < p <= 1:
        raise InputError(f"p must be in (0, 1], not {p!r}")
    from ..io.interactions import read_interactions

    source = read_item_groups(item_groups, read_interactions(train) if train is not None else None)
    run_table = load_run(run, run_columns)
    judged = (load_qrels(qrels, qrels_columns) if qrels is not None
              else empty_table("qrels", Origin("qrels"), "no qrels"))  # fmt: skip
    policies = Policies(ties=ties or Policies().ties, queries=QuerySet.RUN)
    a = align(judged, run_table, policies, allow_empty=True)
    assert a.doc is not None, "aligned without doc codes"
    shown = np.ones(len(a.rank), dtype=bool) if k is None else a.rank <= k
    labels, item_code = item_codes(source)
    code_of_doc = _doc_codes(item_code, a.doc_id_series())
    width = len(labels) + 1  # the last: no group
    group = np.where(code_of_doc[a.doc] >= 0, code_of_doc[a.doc], width - 1)[shown]
    weights = position_weights(a.rank[shown], discount, p)
    slots = np.bincount(group, minlength=width)
    exposure = np.bincount(group, weights=weights, minlength=width)
    listed_docs = np.unique(a.doc[shown])
    listed = np.bincount(np.where(code_of_doc[listed_docs] >= 0, code_of_doc[listed_docs], width - 1),
                         minlength=width)  # fmt: skip
    grouped = item_code.get_column("code").to_numpy()
    items = np.bincount(grouped[grouped >= 0], minlength=width)
    relevant = None
    if qrels is not None:
        assert a.qrel_doc is not None, "aligned without judged doc codes"
        hit = a.qrel_grade >= rel_level
        judged_group = code_of_doc[a.qrel_doc[hit]]
        relevant = np.bincount(np.where(judged_group >= 0, judged_group, width - 1), minlength=width)
    rows = _rows(labels, items, listed, slots, exposure, relevant)
    notes = [f"{source.origin}: {counted(int(slots[-1]), 'listed row is', 'listed rows are')} of items in no group "
             f"(the row {NO_GROUP})"] if slots[-1] else []  # fmt: skip
    return ItemGroupTable(source.name, k, discount if discount != "geometric" else f"geometric p={p}", rows,
                          a.num_queries, tuple(notes))  # fmt: skip


def _doc_codes(item_code: pl.DataFrame, doc_ids: pl.Series) -> np.ndarray:
    """Per distinct doc code its group's index in ``item_code`` (:func:`rankwise.pipeline.groups.item_codes`), −1
    for none."""
    docs = pl.DataFrame({DOCID: doc_ids.cast(pl.String)})
    joined = docs.join(item_code, on=DOCID, how="left", maintain_order="left")
    return joined.get_column("code").fill_null(-1).to_numpy()


def _rows(labels: Sequence[str], items: np.ndarray, listed: np.ndarray, slots: np.ndarray, exposure: np.ndarray,
          relevant: np.ndarray | None) -> tuple[ItemGroupRow, ...]:  # fmt: skip
    total_slots, total_exposure, total_items = slots.sum(), exposure.sum(), items[:-1].sum()
    total_relevant = relevant.sum() if relevant is not None else 0
    out = []
    for g, label in enumerate([*labels, NO_GROUP]):
        grouped = g < len(labels)
        if not grouped and not slots[g]:
            continue
        exposure_share = _share(exposure[g], total_exposure)
        catalog_share = _share(items[g], total_items) if grouped else math.nan
        relevance_share = _share(relevant[g], total_relevant) if relevant is not None else math.nan
        out.append(ItemGroupRow(
            label, int(items[g]) if grouped else None, int(listed[g]) if grouped else None,
            _share(listed[g], items[g]) if grouped else math.nan, int(slots[g]), _share(slots[g], total_slots),
            float(exposure[g]), exposure_share, catalog_share, _share(exposure_share, catalog_share),
            int(relevant[g]) if relevant is not None else None, _share(exposure_share, relevance_share)))  # fmt: skip
    return tuple(out)


def _share(part: float, whole: float) -> float:
    """part / whole; NaN when whole is 0 or NaN; infinity for a positive part of a zero whole share."""
    if math.isnan(whole) or math.isnan(part):
        return math.nan
    if whole == 0:
        return math.inf if part > 0 else math.nan
    return float(part) / float(whole)


__all__ = ["DISCOUNTS", "ItemGroupRow", "ItemGroupTable", "item_group_table", "position_weights"]
