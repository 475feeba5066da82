"""What the kernels of several measure families share: the :data:`Kernel` type, the one check of a parameter value
(:func:`choice`), the cutoff and rank a row is scored at, R per query and the ``empty`` policy, the list
length |L[:k]|, tie groups, and running sums within each query.

Every helper takes the :class:`~rankwise.engine.aligned.Aligned` arrays and the measure as the kernels do; none knows
a measure family.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.aligned import Aligned
from ..engine.rowops import run_starts
from ..engine.training import popularity_labels, training_index
from ..errors import MeasureError
from ..io.table import DOCID
from ..measures.spec import Measure, ParamValue

Kernel = Callable[[Aligned, Measure, int], np.ndarray]
"""A kernel: (aligned data, measure, resolved relevance threshold) → one float64 per evaluated query, NaN where the
measure is undefined for that query."""


def divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def choice(m: Measure, name: str, known: tuple[str, ...]) -> ParamValue | None:
    """``m``'s value of parameter ``name`` (None when its family has none), refusing a value the calling kernel
    does not implement: a kernel never falls through to another variant's formula."""
    value = m.option(name)
    if value is not None and value not in known:
        raise MeasureError(f"{m}: no kernel for {name}={value!r} (implemented: {', '.join(known)})")
    return value


def check_choices(m: Measure, choices: Mapping[str, tuple[str, ...]]) -> None:
    """:func:`choice` for each parameter of ``choices`` (name → the values the kernel implements), in order."""
    for name, known in choices.items():
        choice(m, name, known)


def in_cutoff(a: Aligned, m: Measure, rank: np.ndarray | None = None) -> np.ndarray | None:
    """Rows within the cutoff (None without one): rank ≤ k, or ≤ k + 1 with ``within=k_plus_1``; ``rank`` is
    the rank each row is scored at (its position unless :func:`scored_rank` says otherwise)."""
    extra = 1 if choice(m, "within", ("k", "k_plus_1")) == "k_plus_1" else 0
    if m.cutoff is None:
        return None
    limit = m.cutoff + extra
    return (a.rank if rank is None else rank) <= limit


def scored_rank(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """The rank each row is scored at, per ``rank``: its position; ``optimistic``: 1 + the rows of its query
    scored strictly higher; ``among_nonrelevant``: 1 + the non-relevant rows scored strictly higher (meaningful
    for relevant rows, the only ones these measures score)."""
    basis = choice(m, "rank", ("position", "optimistic", "among_nonrelevant"))
    if basis is None or basis == "position" or not len(a.rank):
        return a.rank
    starts = run_starts(a.qidx, a.score)
    group_start = np.maximum.accumulate(np.where(starts, np.arange(len(starts)), 0))
    if basis == "optimistic":
        return a.rank[group_start]
    nonrelevant = ~a.relevant(rel)
    before = a.cumulative_within_query(nonrelevant) - nonrelevant  # non-relevant rows strictly before each row
    return 1 + before[group_start]


def relevant_count(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """R per query: judged documents with grade >= rel, or with ``universe=retrieved`` only those ranked."""
    if choice(m, "universe", ("judged", "retrieved")) == "retrieved":
        return a.per_query_sum(a.relevant(rel).astype(np.float64))
    return a.num_relevant(rel)


def apply_empty_policy(a: Aligned, m: Measure, rel: int, values: np.ndarray) -> np.ndarray:
    """Per ``empty``: a query without relevant documents (R = 0) scores 0 (as computed), 1, or is skipped (NaN)."""
    policy = choice(m, "empty", ("zero", "one", "skip"))
    if policy is None or policy == "zero":
        return values
    out = values.copy()
    out[relevant_count(a, m, rel) == 0] = 1.0 if policy == "one" else np.nan
    return out


def list_length(a: Aligned, m: Measure) -> np.ndarray:
    """|L[:k]| per query: the length of the top-k list (of the whole ranking without a cutoff)."""
    return a.num_retrieved() if m.cutoff is None else np.minimum(float(m.cutoff), a.num_retrieved())


def tie_group_ends(a: Aligned, m: Measure) -> np.ndarray:
    """For each row, the row index of the last row of its group of equal scores within its query (and within
    the top k: a group cut by k ends at k). Rows beyond k map to themselves."""
    ends = np.arange(len(a.qidx))
    keep = in_cutoff(a, m)
    rows = ends if keep is None else np.flatnonzero(keep)
    if not len(rows):
        return ends
    starts = run_starts(a.qidx[rows], a.score[rows], rows - np.arange(len(rows)))  # a gap in rows: beyond k
    group = np.cumsum(starts) - 1
    last = np.append(np.flatnonzero(starts)[1:], len(rows)) - 1
    ends[rows] = rows[last[group]]
    return ends


def within_query_accumulate(ufunc: np.ufunc, values: np.ndarray, qidx: np.ndarray, num_queries: int) -> np.ndarray:
    """``ufunc.accumulate`` of ``values`` within each query (rows grouped by query, in rank order), inclusive of
    the row itself, computed exactly as a loop over each query's rows would: one operation at a time, in order.

    Queries are grouped by length into power-of-two classes (at most 64 classes, not one pass per query); each
    class is laid out as a dense matrix, one query per line, and accumulated along its lines."""
    out = np.empty_like(values)
    if not len(values):
        return out
    counts = np.bincount(qidx, minlength=num_queries)
    position = np.arange(len(values)) - (np.cumsum(counts) - counts)[qidx]
    width_class = np.ceil(np.log2(np.maximum(counts, 1))).astype(np.int64)[qidx]
    for klass in np.unique(width_class):
        rows = np.flatnonzero(width_class == klass)
        queries, line = np.unique(qidx[rows], return_inverse=True)
        grid = np.zeros((len(queries), 1 << int(klass)), dtype=values.dtype)
        grid[line, position[rows]] = values[rows]
        ufunc.accumulate(grid, axis=1, out=grid)
        out[rows] = grid[line, position[rows]]
    return out


# Item groups (item_groups=, or groups=popularity), read by the fairness and exposure families.


def _labels(values: set[str]) -> tuple[str, ...]:
    """Group labels in numeric order when every one is a number, else as text (the order of ``groups=``)."""
    try:
        return tuple(sorted(values, key=float))
    except ValueError:
        return tuple(sorted(values))


def _mapping(a: Aligned, m: Measure) -> dict[str, str | None]:
    """``{item: label}`` of the measure's groups: the given item groups, or with groups=popularity the popularity
    split of the training items (:func:`rankwise.engine.training.popularity_labels`)."""
    if m.option("groups") == "popularity":
        share = float(m.get("head_share"))  # type: ignore[arg-type]  # a float with a default
        index = training_index(a, str(m))
        return a.training.memo(("popularity_groups", share), lambda: popularity_labels(index, share))  # type: ignore[no-any-return,union-attr]
    given = a.training.item_groups if a.training is not None else None
    if given is None:
        raise MeasureError(f"{m} needs item groups: pass item_groups= (--item-groups FILE:COLUMN, or popularity)")
    return dict(given)


def item_group_codes(a: Aligned, m: Measure) -> tuple[tuple[str, ...], np.ndarray, dict[str, str | None]]:
    """(labels G, per distinct doc code: the index of its group in G or −1 for an item in no group, the mapping)."""
    mapping = _mapping(a, m)
    labels = _labels({label for label in mapping.values() if label is not None})
    index = {label: g for g, label in enumerate(labels)}
    key = ("item_group_codes", m.option("groups"), m.option("head_share"))
    if key not in a._cache:
        frame = pl.DataFrame({DOCID: list(mapping), "code": [index.get(v or "", -1) for v in mapping.values()]},
                             schema={DOCID: pl.String, "code": pl.Int64})  # fmt: skip
        docs = pl.DataFrame({DOCID: a.doc_id_series().cast(pl.String)})
        joined = docs.join(frame, on=DOCID, how="left", maintain_order="left")
        a._cache[key] = joined.get_column("code").fill_null(-1).to_numpy()
    return labels, a._cache[key], mapping
