"""Bias disparity (Tsintzou, Pitoura & Tsaparas, *Bias Disparity in Recommendation Systems*, RMSE workshop at RecSys
2018, arXiv 1811.01461), as Elliot computes it: one value per (user group, item group) pair, not one number, so no
measure of :func:`rankwise.evaluate` but :func:`bias_disparity` (``rankwise bias-disparity``).

For a user group G and an item group (category) C:

- :math:`PR_S(G, C) = \\frac{|\\{(u, i) \\in S : u \\in G, i \\in C\\}|}{|\\{(u, i) \\in S : u \\in G, i
  \\text{ in a group}\\}|}` over the distinct training pairs S (every training user), and :math:`PR_R(G, C)` the
  same over the recommendations R: the pairs (u, i) with i in the top k of u's list (every user with a list);
- :math:`P(C) = |C| / |\\{i : i \\text{ in a group}\\}|`: the share of the item-group table's items in C — of
  every item it names, recommended, trained on or neither (Elliot: ``clustering_count.get(c, 0) /
  len(self._item_clustering)``);
- :math:`B_S = PR_S / P(C)` (BiasDisparityBS.py:94-106), :math:`B_R = PR_R / P(C)` (BiasDisparityBR.py:94-108,
  the list cut at k: ``user_recommendations[:cutoff]``), :math:`BD = (B_R - B_S) / B_S` (BiasDisparityBD.py:100-103).

Pairs whose user is in no user group, or whose item is in no item group, are skipped (Elliot:
``self._user_clustering.get(user, None)``, ``self._item_clustering.get(i, None)``), and counted in the notes.

Where Elliot's arithmetic is undefined rankwise says so instead of carrying numpy's result: a user group without a
grouped training pair (or without a grouped recommendation) has B_S (B_R) NaN for every item group — Elliot's 0/0,
also NaN —, and BD is NaN where B_S is 0 or NaN — Elliot's inf (B_R > 0) or nan; each such cell is counted in a note.
Elliot also needs its group ids to be the integers 0..n−1 (it indexes arrays with them: any other label raises
IndexError); rankwise takes any labels, ordered as numbers when all are numbers, else as text.

Reference: sisinflab/elliot at fc27efe, elliot/evaluation/metrics/fairness/BiasDisparity/BiasDisparityBS.py:94-106,
BiasDisparityBR.py:94-108, BiasDisparityBD.py:100-103 (proven against that code by tests/pipeline/
test_bias_disparity.py with RANKWISE_ELLIOT).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.aligned import align
from ..errors import InputError
from ..io import load_run
from ..io.interactions import load_interactions
from ..io.table import DOCID, QID, Origin, empty_table
from ..policies import Policies, QuerySet, TiePolicy, parse_enum
from ..wording import counted
from .groups import GroupSource, _sample, item_codes, read_groups, read_item_groups

COLUMNS = ("user_group", "item_group", "BS", "BR", "BD")
"""The columns of :meth:`BiasDisparity.to_polars` and of ``--format csv``."""


@dataclass(frozen=True)
class BiasDisparity:
    """B_S, B_R and BD of every (user group, item group) pair (see the module docstring): ``source[g, c]``,
    ``recommended[g, c]``, ``disparity[g, c]`` for user group ``user_groups[g]`` and item group ``item_groups[c]``;
    ``share[c]`` is P(C); ``training_users`` / ``recommended_users`` the users of each user group counted on each
    side; ``notes`` what was skipped or is undefined, counted."""

    user_attribute: str
    item_attribute: str
    user_groups: tuple[str, ...]
    item_groups: tuple[str, ...]
    source: np.ndarray
    recommended: np.ndarray
    disparity: np.ndarray
    share: np.ndarray
    cutoff: int
    training_users: tuple[int, ...]
    recommended_users: tuple[int, ...]
    notes: tuple[str, ...] = ()

    def rows(self) -> list[dict[str, Any]]:
        """One dict per (user group, item group) pair, user groups outer: ``user_group``, ``item_group``, ``BS``,
        ``BR``, ``BD`` (NaN where undefined)."""
        return [{"user_group": u, "item_group": c, "BS": float(self.source[g, j]), "BR": float(self.recommended[g, j]),
                 "BD": float(self.disparity[g, j])}
                for g, u in enumerate(self.user_groups) for j, c in enumerate(self.item_groups)]  # fmt: skip

    def to_polars(self) -> pl.DataFrame:
        """:meth:`rows` as a polars DataFrame (columns :data:`COLUMNS`)."""
        return pl.DataFrame(self.rows(), schema={"user_group": pl.String, "item_group": pl.String,
                                                 "BS": pl.Float64, "BR": pl.Float64, "BD": pl.Float64})  # fmt: skip

    def to_pandas(self) -> pandas.DataFrame:
        """:meth:`rows` as a pandas DataFrame."""
        return self.to_polars().to_pandas()

    def value(self, measure: str, user_group: str, item_group: str) -> float:
        """One cell: ``measure`` is ``BS``, ``BR`` or ``BD``."""
        table = {"BS": self.source, "BR": self.recommended, "BD": self.disparity}.get(measure)
        if table is None:
            raise KeyError(f"{measure!r}: one of BS, BR, BD")
        return float(table[self.user_groups.index(user_group), self.item_groups.index(item_group)])

    def record(self) -> dict[str, Any]:
        """As plain data (``--format json``): NaN as None."""
        clean = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
                 for row in self.rows()]  # fmt: skip
        return {"measure": "BiasDisparity", "k": self.cutoff, "user_attribute": self.user_attribute,
                "item_attribute": self.item_attribute, "item_group_share": dict(zip(self.item_groups,
                                                                                    self.share.tolist())),
                "training_users": dict(zip(self.user_groups, self.training_users)),
                "recommended_users": dict(zip(self.user_groups, self.recommended_users)),
                "rows": clean, "notes": list(self.notes)}  # fmt: skip


def bias_disparity(
    recommendations: Any,
    train: Any,
    *,
    k: int,
    groups: Any,
    item_groups: Any,
    ties: TiePolicy | str = TiePolicy.DOCNO_DESC,
    run_columns: dict[str, str] | None = None,
) -> BiasDisparity:
    """Elliot's bias disparity B_S, B_R and BD per (user group, item group) pair (module docstring).

    ``recommendations``: a run (path, table or ``{user: {item: score}}``, as :func:`rankwise.evaluate` reads it),
    each user's list ordered by score, ties per ``ties``, cut at ``k``; ``train``: the training interactions (as
    ``train=`` of :func:`rankwise.evaluate`); ``groups``: the user groups (as ``groups=``: ``{user: label}``, a table,
    ``"FILE:COLUMN"``, ``"activity"``); ``item_groups``: the item groups (as ``item_groups=``, ``"popularity"``
    too). Bad input is an :class:`InputError` of one line."""
    if train is None:
        raise InputError("bias_disparity: B_S counts the training interactions: give train= (--train FILE)")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"bias_disparity: k must be a positive integer, got {k!r}")
    pairs = load_interactions(train)
    items = read_item_groups(item_groups, pairs)
    ranked = _top_k(recommendations, k, ties, run_columns)
    users = pl.concat([pairs.get_column(QID), ranked.get_column(QID)]).unique().sort().to_list()
    user_source = read_groups(groups, pairs)
    assigned = user_source.assign(users)
    user_code = pl.DataFrame({QID: list(assigned.query_ids), "g": assigned.codes},
                             schema={QID: pl.String, "g": pl.Int64})  # fmt: skip
    labels, item_code = item_codes(items, "c")
    sizes = (len(assigned.labels), len(labels))
    notes = _source_notes(user_source, assigned.labels, set(users), items, labels)
    source, trained, skipped_train = _bias(pairs, user_code, item_code, sizes)
    recommended, listed, skipped_recs = _bias(ranked, user_code, item_code, sizes)
    grouped = item_code.get_column("c").to_numpy()
    members = np.bincount(grouped[grouped >= 0], minlength=sizes[1])
    share = members / max(int(members.sum()), 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        source, recommended = source / share, recommended / share
        disparity = np.where(source > 0, (recommended - source) / source, np.nan)
    notes += _skip_notes("training", skipped_train, "B_S") + _skip_notes("recommended", skipped_recs, "B_R")
    notes += _undefined_notes(assigned.labels, trained, listed, source, disparity)
    return BiasDisparity(user_source.name, items.name, tuple(assigned.labels), labels, source, recommended,
                         disparity, share, k, tuple(int(n) for n in trained), tuple(int(n) for n in listed),
                         tuple(notes))  # fmt: skip


def _top_k(recommendations: Any, k: int, ties: TiePolicy | str, columns: dict[str, str] | None) -> pl.DataFrame:
    """The (user, item) pairs of each user's top k, ids as text: the run ordered as :func:`rankwise.evaluate` orders
    it (by score descending, ties per ``ties``)."""
    run = load_run(recommendations, columns)
    qrels = empty_table("qrels", Origin("no judgments"), "bias disparity reads no judgments")
    order = parse_enum(TiePolicy, ties, "tie policy")
    a = align(qrels, run, Policies(ties=order, queries=QuerySet.RUN), allow_empty=True)  # type: ignore[arg-type]
    keep = a.rank <= k
    assert a.doc is not None, "aligned without doc codes"
    query_ids = pl.Series(QID, a.query_ids, dtype=pl.String)
    docs = a.doc_id_series().cast(pl.String)
    return pl.DataFrame({QID: query_ids.gather(a.qidx[keep]), DOCID: docs.gather(a.doc[keep])})


def _bias(pairs: pl.DataFrame, user_code: pl.DataFrame, item_code: pl.DataFrame, sizes: tuple[int, int]
          ) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:  # fmt: skip
    """PR(G, C) of the distinct ``pairs`` (rows: user groups, columns: item groups; NaN rows for a user group
    without a grouped pair), the users counted per user group, and (pairs whose user is in no group, pairs of a
    grouped user whose item is in no group)."""
    frame = (pairs.select(pl.col(QID).cast(pl.String), pl.col(DOCID).cast(pl.String)).unique()
             .join(user_code, on=QID, how="left").join(item_code, on=DOCID, how="left")
             .with_columns(pl.col("g").fill_null(-1), pl.col("c").fill_null(-1)))  # fmt: skip
    grouped_user = frame.filter(pl.col("g") >= 0)
    counted_pairs = grouped_user.filter(pl.col("c") >= 0)
    g, c = counted_pairs.get_column("g").to_numpy(), counted_pairs.get_column("c").to_numpy()
    counts = np.bincount(g * sizes[1] + c, minlength=sizes[0] * sizes[1]).reshape(sizes).astype(np.float64)
    total = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = counts / total
    users = counted_pairs.select("g", QID).unique().get_column("g").to_numpy()
    skipped = (frame.height - grouped_user.height, grouped_user.height - counted_pairs.height)
    return shares, np.bincount(users, minlength=sizes[0]), skipped


def _source_notes(user_source: GroupSource, user_labels: Sequence[str], users: set[str], items: GroupSource,
                  item_labels: Sequence[str]) -> list[str]:  # fmt: skip
    """Ids of the user groups that are no user of the training pairs or the lists; items of the item groups
    without a label."""
    notes = []
    unknown = sorted((u for u in user_source.mapping if u not in users), key=str.encode)
    if unknown:
        notes.append(f"{user_source.origin}: {counted(len(unknown), 'id is', 'ids are')} no user of the training "
                     f"interactions or the lists (not used): {_sample(unknown)}")  # fmt: skip
    unlabelled = sorted((i for i, v in items.mapping.items() if v is None), key=str.encode)
    if unlabelled:
        notes.append(f"{items.origin}: {counted(len(unlabelled), 'item has', 'items have')} no label (in no item "
                     f"group, outside P(C)): {_sample(unlabelled)}")  # fmt: skip
    if not user_labels:
        notes.append(f"{user_source.origin}: no user group")
    if not item_labels:
        notes.append(f"{items.origin}: no item group")
    return notes


def _skip_notes(side: str, skipped: tuple[int, int], measure: str) -> list[str]:
    """The pairs left out of one side, as Elliot leaves them out."""
    no_user, no_item = skipped
    notes = []
    if no_user:
        notes.append(f"{counted(no_user, f'{side} pair is', f'{side} pairs are')} of a user in no user group "
                     f"(left out of {measure}, as Elliot skips them)")  # fmt: skip
    if no_item:
        notes.append(f"{counted(no_item, f'{side} pair is', f'{side} pairs are')} of an item in no item group "
                     f"(left out of {measure}, as Elliot skips them)")  # fmt: skip
    return notes


def _undefined_notes(labels: Sequence[str], trained: np.ndarray, listed: np.ndarray, source: np.ndarray,
                     disparity: np.ndarray) -> list[str]:  # fmt: skip
    """User groups without a counted pair on a side (their row NaN) and BD cells undefined for B_S = 0."""
    notes = []
    for side, users, measure in (("training", trained, "B_S"), ("recommended", listed, "B_R")):
        empty = [label for label, n in zip(labels, users.tolist()) if n == 0]
        if empty:
            notes.append(f"{counted(len(empty), 'user group has', 'user groups have')} no {side} pair of a grouped "
                         f"item: {measure} and BD undefined (NaN; Elliot: 0/0, nan) for {_sample(empty)}")  # fmt: skip
    zero = int((source == 0).sum())
    if zero:
        notes.append(f"{counted(zero, 'pair has', 'pairs have')} B_S = 0 (no training pair of the user group in the "
                     "item group): BD undefined (NaN; Elliot: inf where B_R > 0, else nan)")  # fmt: skip
    return notes


__all__ = ["COLUMNS", "BiasDisparity", "bias_disparity"]
