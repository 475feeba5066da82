"""What the probabilistic fusion methods learn from judgments, on flat arrays: each run's hit list (its list's
documents in order, 1 where judged relevant) over the training queries, and from it the probabilities of relevance
by position (PosFuse, SlideFuse), by segment (ProbFuse, SegFuse), the log-odds by segment (BayesFuse) and each run's
MAP (MAPFuse). Definitions as ranx's ``*_train`` functions (ranx/fusion/common.py ``estimate_probs``, probfuse.py,
segfuse.py, bayesfuse.py, mapfuse.py), read, not copied; ranx aligns runs and qrels by position in two lists,
rankwise by query id."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.rowops import id_codes
from ..io import Table
from ..io.table import DOCID, QID
from .normalisations import Scored
from .pool import Pool

MIN_LOG_ODDS = float(np.log(0.001 / 0.999))
"""BayesFuse's log-odds of a document a run did not retrieve (ranx's ``min_odd``)."""
BAYES_CUTS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
"""BayesFuse's segments of positions: [0, 5), [5, 10), ..., [500, 1000)."""
SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
"""SegFuse's segments: [0, 5), [5, 15), [15, 35), ..., [2555, 5115) (sizes 10 · 2^(k−1) − 5, Shokouhi 2007)."""
UNJUDGED = np.iinfo(np.int64).min


@dataclass(frozen=True)
class Judgments:
    """Judgments aligned with a pool: ``grade`` per candidate (``UNJUDGED`` where not judged), ``judged`` per pool
    query, ``relevant`` per pool query (judged documents with grade >= the relevance level), and the qrels rows of
    the pool's queries (``row_query``: their pool query, ``row_doc``, ``row_grade``) for evaluation; ``qrels_only``:
    judged queries no run holds."""

    grade: np.ndarray
    judged: np.ndarray
    row_query: np.ndarray
    row_doc: np.ndarray
    row_grade: np.ndarray
    qrels_only: tuple[str, ...]

    def relevant(self, num_queries: int, rel_level: int) -> np.ndarray:
        """R per pool query: its judged documents with grade >= ``rel_level``."""
        hits = self.row_query[self.row_grade >= rel_level]
        return np.bincount(hits, minlength=num_queries).astype(np.float64)


def align_judgments(pool: Pool, qrels: Table) -> Judgments:
    """``qrels`` coded with the pool's ids (text on both sides where the types differ) and each candidate's grade
    looked up by (query, doc) on one int64 key."""
    frame = qrels.frame
    query_ids, doc_ids = pool.query_ids, pool.doc_ids
    qcol, dcol = frame.get_column(QID), frame.get_column(DOCID)
    if qcol.dtype != query_ids.dtype:
        qcol, query_ids = qcol.cast(pl.String), query_ids.cast(pl.String)
    if dcol.dtype != doc_ids.dtype:
        dcol, doc_ids = dcol.cast(pl.String), doc_ids.cast(pl.String)
    (pool_q, qrels_q), distinct_q = id_codes(query_ids, qcol)
    (pool_d, qrels_d), distinct_d = id_codes(doc_ids, dcol)
    to_pool = np.full(len(distinct_q), -1, dtype=np.int64)
    to_pool[pool_q] = np.arange(len(pool_q), dtype=np.int64)
    row_query = to_pool[qrels_q]
    inside = row_query >= 0
    only = np.unique(qrels_q[~inside])
    qrels_only = tuple(sorted(distinct_q.gather(only).cast(pl.String).to_list()))
    span = len(distinct_d) + 1
    grade = frame.get_column("value").to_numpy().astype(np.int64)
    key = row_query[inside] * span + qrels_d[inside]
    order = np.argsort(key)
    key, sorted_grade = key[order], grade[inside][order]
    cand_key = pool.query * span + pool_d[pool.doc]
    at = np.minimum(np.searchsorted(key, cand_key), max(len(key) - 1, 0))
    found = (key[at] == cand_key) if len(key) else np.zeros(len(cand_key), dtype=bool)
    cand_grade = np.where(found, sorted_grade[at] if len(key) else 0, UNJUDGED)
    judged = np.zeros(pool.num_queries, dtype=bool)
    judged[row_query[inside]] = True
    return Judgments(cand_grade, judged, row_query[inside], qrels_d[inside], grade[inside], qrels_only)


@dataclass(frozen=True)
class Trained:
    """A run's training entries (``position``, ``hit``, the list's ``length``) over ``num_lists`` training queries,
    and the estimates the methods read (computed on first use)."""

    position: tuple[np.ndarray, ...]
    hit: tuple[np.ndarray, ...]
    length: tuple[np.ndarray, ...]
    ap: np.ndarray
    num_lists: int
    _segments: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def position_probs(self) -> list[np.ndarray]:
        """Per run, P(p): the share of training lists reaching position p whose document there is relevant
        (ranx/fusion/common.py ``estimate_probs``; PosFuse, SlideFuse)."""
        return [np.bincount(p, weights=h) / np.maximum(np.bincount(p), 1) for p, h in zip(self.position, self.hit)]

    @cached_property
    def map(self) -> np.ndarray:
        """Per run, its MAP over the training queries (MAPFuse)."""
        return self.ap

    @cached_property
    def log_odds(self) -> list[np.ndarray]:
        """Per run, BayesFuse's log-odds per position 0..999: ln(P / (1 − P)), P the mean over training lists of
        the precision of the position's segment of :data:`BAYES_CUTS` (0 and 1 moved by 0.001)."""
        sizes = np.diff(BAYES_CUTS)
        odds = []
        for p, h in zip(self.position, self.hit):
            inside = p < BAYES_CUTS[-1]
            k = np.searchsorted(BAYES_CUTS, p[inside], side="right") - 1
            precision = np.bincount(k, weights=h[inside], minlength=len(sizes)) / sizes / max(self.num_lists, 1)
            precision = np.where(precision == 0, 0.001, precision)
            rest = 1 - precision
            rest = np.where(rest == 0, 0.001, rest)
            odds.append(np.repeat(np.log(precision / rest), sizes))
        return odds

    @cached_property
    def segfuse_probs(self) -> list[np.ndarray]:
        """Per run, SegFuse's P(k): the mean over training lists of segment k's relevant documents / its size."""
        sizes = np.diff(SEGFUSE_BOUNDS)
        out = []
        for p, h in zip(self.position, self.hit):
            inside = p < SEGFUSE_BOUNDS[-1]
            k = np.searchsorted(SEGFUSE_BOUNDS, p[inside], side="right") - 1
            out.append(np.bincount(k, weights=h[inside], minlength=len(sizes)) / sizes / max(self.num_lists, 1))
        return out

    def segment_probs(self, run: int, n_segments: int) -> np.ndarray:
        """ProbFuse's P(k) for run ``run`` with ``n_segments`` segments: each training list cut into segments of
        ⌈|r| / S⌉ positions, P(k) the mean over training lists of segment k's precision (an empty segment 0)."""
        key = (run, n_segments)
        if key not in self._segments:
            p, h, length = self.position[run], self.hit[run], self.length[run]
            size = np.ceil(length / n_segments).astype(np.int64)
            k = p // np.maximum(size, 1)
            actual = np.minimum(size, length - k * size)
            probs = np.bincount(k, weights=h / actual, minlength=n_segments)[:n_segments] / max(self.num_lists, 1)
            self._segments[key] = probs
        return self._segments[key]  # type: ignore[no-any-return]


def train(pool: Pool, scored: Scored, judgments: Judgments, queries: np.ndarray, rel_level: int = 1) -> Trained:
    """The hit lists of every run over the training ``queries`` (a bool per pool query, judged ones only) on the
    normalised runs' positions, and each run's mean AP over those queries (AP = Σ_{relevant at p} (hits in
    0..p) / (p + 1) / R, 0 where R = 0; trec_eval's and ranx's)."""
    queries = queries & judgments.judged
    num_lists = int(queries.sum())
    relevant = judgments.relevant(pool.num_queries, rel_level)
    hit_all = judgments.grade >= rel_level
    positions, hits, lengths, ap = [], [], [], np.zeros(pool.num_runs)
    for r in range(pool.num_runs):
        rows = np.flatnonzero(scored.present[:, r] & queries[pool.query])
        p, h, q = scored.position[rows, r], hit_all[rows].astype(np.float64), pool.query[rows]
        positions.append(p)
        hits.append(h)
        lengths.append(scored.length[q, r])
        order = np.lexsort((p, q))
        q_sorted, h_sorted, p_sorted = q[order], h[order], p[order]
        cumulative = np.cumsum(h_sorted)
        starts = np.searchsorted(q_sorted, q_sorted, side="left")
        before = np.concatenate(([0.0], cumulative))[starts]
        precision = (cumulative - before) / (p_sorted + 1.0)
        per_query = np.bincount(q_sorted, weights=precision * h_sorted, minlength=pool.num_queries)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(relevant > 0, per_query / relevant, 0.0)
        ap[r] = value[queries].sum() / max(num_lists, 1)
    return Trained(tuple(positions), tuple(hits), tuple(lengths), ap, num_lists)


__all__ = ["BAYES_CUTS", "MIN_LOG_ODDS", "SEGFUSE_BOUNDS", "Judgments", "Trained", "align_judgments", "train"]
