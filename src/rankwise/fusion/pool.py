"""The runs to fuse as one pool of candidates on flat arrays.

Each run is read once (:func:`rankwise.io.load_run`: paths, DataFrames, Arrow tables, dicts), its ids coded jointly
with the other runs' (:mod:`rankwise.engine.rowops`), its documents ordered within each query (score descending, or
ascending for a normalisation that inverts; ties by the tie policy) and cut at ``depth``. The candidates of a query
are the documents any run retrieved for it; they are laid out by query (CSR: ``offsets[q]:offsets[q+1]``), and each
run's scores and positions sit in one column of a (candidates × runs) array, NaN / -1 where the run missed the
document.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.rowops import group_order, id_codes, text_order, text_order_codes
from ..errors import InputError, RankwiseError
from ..io import Table, load_run
from ..io.table import DOCID, QID, ROW
from ..policies import TiePolicy, parse_enum
from ..wording import counted


class QueryPolicy(str, Enum):
    """Which queries a fused run holds when the runs' query sets differ."""

    UNION = "union"
    """Every query of any run, fused over the runs that hold it (the others missed all its documents)."""
    INTERSECTION = "intersection"
    """Only the queries every run holds."""


@dataclass(frozen=True)
class Pool:
    """The candidates of every query and each run's view of them (see the module docstring)."""

    names: tuple[str, ...]
    query_ids: pl.Series
    """The distinct query ids, in the byte order of their text (query ``q`` is ``query_ids[q]``)."""
    doc_ids: pl.Series
    """The distinct doc ids (candidate ``c`` is document ``doc_ids[doc[c]]``)."""
    offsets: np.ndarray
    """Candidates of query ``q``: ``offsets[q]:offsets[q+1]``."""
    query: np.ndarray
    """Per candidate: its query."""
    doc: np.ndarray
    """Per candidate: its doc code."""
    score: np.ndarray
    """(candidates × runs): the run's score, NaN where the run missed the candidate."""
    position: np.ndarray
    """(candidates × runs): the candidate's place in the run's list for its query (0 first), -1 where missed."""
    length: np.ndarray
    """(queries × runs): the length of each run's list for each query (after the depth cut)."""
    ties: TiePolicy
    first_seen: np.ndarray | None
    """With ``ties=input_order``, per candidate: the first run holding it, then its row there (its tie key)."""
    inverted: bool
    dropped_queries: tuple[str, ...] = ()
    """Queries left out by the intersection policy."""
    truncated: int = 0
    """Rows cut by ``depth``."""

    @property
    def num_queries(self) -> int:
        return len(self.offsets) - 1

    @property
    def num_runs(self) -> int:
        return self.score.shape[1]

    def tie_keys(self, candidates: np.ndarray) -> np.ndarray:
        """The tie keys of some candidates (smaller first among equal scores): for a doc-id order, their ranks among
        these candidates' doc ids alone (only the tied documents' ids are ever sorted); for ``input_order``, the
        first run holding each, then its row there."""
        if self.first_seen is not None:
            return self.first_seen[candidates]
        return doc_keys(self.doc_ids, self.doc[candidates], self.ties)

    def order(self, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The candidates grouped by query and ordered by ``score`` descending, equal scores by the tie policy:
        (order, offsets)."""
        return ordered(self.query, score, self.num_queries, self.tie_keys)

    def candidates_per_query(self) -> np.ndarray:
        """N, per candidate: the number of candidates of its query."""
        return np.diff(self.offsets)[self.query]

    def notes(self) -> list[str]:
        """What the pool left out, one line each."""
        notes = []
        if self.dropped_queries:
            shown = ", ".join(self.dropped_queries[:5]) + (", ..." if len(self.dropped_queries) > 5 else "")
            notes.append(f"{counted(len(self.dropped_queries), 'query is', 'queries are')} not in every run and "
                         f"left out (queries=intersection): {shown}")  # fmt: skip
        if self.truncated:
            notes.append(f"{counted(self.truncated, 'run row was', 'run rows were')} beyond the depth cut")
        return notes


def read_runs(runs: Any) -> list[Table]:
    """Each run as a :class:`Table` (its rows checked: a duplicate document, a NaN score or a missing id is one line
    naming the file and line, or the row); at least two runs (a dict of name → run names them)."""
    if isinstance(runs, dict) and not _named(runs):
        raise RankwiseError("give the runs as a list, or as a dict of name -> run (one {query: {doc: score}} dict is "
                            "one run)")  # fmt: skip
    sources = list(runs.values()) if isinstance(runs, dict) else list(runs)
    if len(sources) < 2:
        raise RankwiseError(f"fusion needs at least two runs, got {len(sources)}")
    return [load_run(source) for source in sources]


def _named(runs: dict) -> bool:
    """Whether a dict is {name: run} (its values are runs) rather than one run {query: {doc: score}}."""
    return all(not isinstance(v, dict) or all(isinstance(x, dict) for x in v.values()) for v in runs.values())


def run_names(runs: Any, tables: list[Table]) -> tuple[str, ...]:
    """A name per run: a dict's keys, a file's name, else ``run1``, ``run2``, ..."""
    if isinstance(runs, dict) and _named(runs):
        return tuple(str(k) for k in runs)
    return tuple(table.run_name or _origin_name(table, i) for i, table in enumerate(tables))


def _origin_name(table: Table, i: int) -> str:
    name = table.origin.name
    return name if "/" in name or "." in name else f"run{i + 1}"


def build_pool(
    tables: list[Table], names: tuple[str, ...], *, ties: TiePolicy | str = TiePolicy.DOCNO_DESC,
    queries: QueryPolicy | str = QueryPolicy.UNION, depth: int | None = None, inverted: bool = False,
) -> Pool:  # fmt: skip
    """Lay the runs out as one :class:`Pool`: ids coded jointly (query ids in text order), each run's documents
    ordered per query (score descending, ascending when ``inverted``; equal scores by ``ties``), the top ``depth`` of
    each kept, queries chosen by ``queries``, the candidates of each query the union of the runs' documents."""
    tie_policy: TiePolicy = parse_enum(TiePolicy, ties, "tie policy")  # type: ignore[assignment]
    if tie_policy is TiePolicy.AVERAGE:
        raise RankwiseError("ties=average is not an order: fusion needs docno_desc, docno_asc, docno_desc_numeric or "
                            "input_order")  # fmt: skip
    query_policy: QueryPolicy = parse_enum(QueryPolicy, queries, "query policy")  # type: ignore[assignment]
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise RankwiseError(f"depth must be a positive integer, got {depth!r}")
    frames = [t.frame for t in _same_types(tables)]
    query_codes, query_ids = text_order_codes(*(f.get_column(QID) for f in frames))
    doc_codes, doc_ids = id_codes(*(f.get_column(DOCID) for f in frames))
    num_queries, num_docs = len(query_ids), len(doc_ids)
    held = np.zeros((num_queries, len(frames)), dtype=bool)
    for r, codes in enumerate(query_codes):
        held[codes, r] = True
    keep_query = np.asarray(held.all(axis=1) if query_policy is QueryPolicy.INTERSECTION else held.any(axis=1))
    dropped = tuple(query_ids.filter(pl.Series(~keep_query)).cast(pl.String).to_list())
    if not keep_query.any():
        raise InputError("the runs share no query (queries=intersection); use queries=union")
    renumber = np.cumsum(keep_query) - 1  # the kept queries, numbered anew in the same (text) order
    query_ids = query_ids.filter(pl.Series(keep_query))
    num_queries = len(query_ids)
    sign = 1.0 if inverted else -1.0
    by_input = tie_policy is TiePolicy.INPUT_ORDER
    per_run, truncated = [], 0
    for r, frame in enumerate(frames):
        q, d = query_codes[r], doc_codes[r]
        s, row = frame.get_column("value").to_numpy().astype(np.float64), frame.get_column(ROW).to_numpy()
        keep = keep_query[q]
        q, d, s, row = renumber[q[keep]], d[keep], s[keep], row[keep].astype(np.int64)

        def keys(rows: np.ndarray, d: np.ndarray = d, row: np.ndarray = row) -> np.ndarray:
            return row[rows] if by_input else doc_keys(doc_ids, d[rows], tie_policy)

        order, offsets = ordered(q, -sign * s, num_queries, keys)
        q, d, s, row = q[order], d[order], s[order], row[order]
        pos = np.arange(len(q), dtype=np.int64) - offsets[q]
        if depth is not None:
            cut = pos < depth
            truncated += int(len(cut) - cut.sum())
            q, d, s, row, pos = q[cut], d[cut], s[cut], row[cut], pos[cut]
        per_run.append((q, d, s, row, pos))
    pair = np.concatenate([q * num_docs + d for q, d, *_ in per_run])
    distinct, inverse = np.unique(pair, return_inverse=True)
    cand_query, cand_doc = distinct // max(num_docs, 1), distinct % max(num_docs, 1)
    num_cands, num_runs = len(distinct), len(per_run)
    score = np.full((num_cands, num_runs), np.nan)
    position = np.full((num_cands, num_runs), -1, dtype=np.int64)
    length = np.zeros((num_queries, num_runs), dtype=np.int64)
    first_seen = np.full(num_cands, np.iinfo(np.int64).max, dtype=np.int64) if by_input else None
    start = 0
    for r, (q, _, s, row, pos) in enumerate(per_run):
        at = inverse[start : start + len(q)]
        start += len(q)
        score[at, r], position[at, r] = s, pos
        length[:, r] = np.bincount(q, minlength=num_queries)
        if first_seen is not None:  # the first run holding the document, then its row there
            np.minimum.at(first_seen, at, r * (np.int64(2) ** 40) + row)
    offsets = np.zeros(num_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(cand_query, minlength=num_queries), out=offsets[1:])
    return Pool(names, query_ids, doc_ids, offsets, cand_query, cand_doc, score, position, length, tie_policy,
                first_seen, inverted, dropped, truncated)  # fmt: skip


def ordered(
    query: np.ndarray, score: np.ndarray, num_queries: int, keys_of: Callable[[np.ndarray], np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Rows grouped by query, by ``score`` descending, then each run of equal (query, score) rows by the keys
    ``keys_of(rows)`` gives for those rows only (ascending): (order, offsets). One compiled sort of all rows
    (:func:`rankwise.engine.rowops.group_order`, ties in row order), then one of the tied rows alone."""
    order, sorted_score, _, offsets = group_order(query, num_queries, score, None)
    grouped = query[order]
    with_next = (grouped[1:] == grouped[:-1]) & (sorted_score[1:] == sorted_score[:-1])
    if not with_next.any():
        return order, offsets
    after = np.concatenate(([False], with_next))  # the row is tied with the one before it
    tied = np.flatnonzero(after | np.concatenate((with_next, [False])))
    runs_of_ties = np.cumsum(~after[tied]) - 1
    within, _, _, _ = group_order(runs_of_ties, int(runs_of_ties[-1]) + 1, None, keys_of(order[tied]))
    order[tied] = order[tied][within]
    return order, offsets


def _same_types(tables: list[Table]) -> list[Table]:
    """The tables with one type per id column: text when the runs disagree (integer ids in one, text in another)."""
    schemas = [(t.frame.schema[QID], t.frame.schema[DOCID]) for t in tables]
    if len(set(schemas)) == 1:
        return tables
    return [t.with_text_ids() for t in tables]


def doc_keys(doc_ids: pl.Series, codes: np.ndarray, ties: TiePolicy) -> np.ndarray:
    """Per doc code of ``codes``, its place among those documents in the tie order of ``ties`` (smaller first): the
    doc ids' text descending (``docno_desc``, trec_eval's) or ascending (``docno_asc``); ``docno_desc_numeric``: ids
    that read as integers by number descending, before the others by text descending."""
    present, local = np.unique(codes, return_inverse=True)
    return _doc_tie_keys(doc_ids.gather(present), ties)[local]


def _doc_tie_keys(doc_ids: pl.Series, ties: TiePolicy) -> np.ndarray:
    """Per id of ``doc_ids`` (distinct), its place in the tie order of ``ties``."""
    text_rank = np.empty(len(doc_ids), dtype=np.int64)
    text_rank[text_order(doc_ids)] = np.arange(len(doc_ids), dtype=np.int64)
    if ties is TiePolicy.DOCNO_ASC:
        return text_rank
    if ties is not TiePolicy.DOCNO_DESC_NUMERIC:
        return -text_rank
    number = doc_ids.cast(pl.String).cast(pl.Int64, strict=False)
    frame = pl.DataFrame({"number": number, "text": text_rank}).with_row_index("code")
    ordered = frame.sort(["number", "text"], descending=True, nulls_last=True).get_column("code").to_numpy()
    key = np.empty(len(doc_ids), dtype=np.int64)
    key[ordered] = np.arange(len(doc_ids), dtype=np.int64)
    return key


__all__ = ["Pool", "QueryPolicy", "build_pool", "read_runs", "run_names"]
