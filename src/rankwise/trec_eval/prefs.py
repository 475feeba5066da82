"""Preference judgments (trec_eval's ``-R prefs`` and ``-R qrels_prefs``) and the measures that count how many of
them a ranking fulfils (trec_eval 10's ``prefs_*`` measures: form_prefs_counts.c and m_prefs_*.c).

Judgments. ``-R prefs`` reads ``query_id jg jsg doc_id rel_level`` lines. A judgment group (JG: one user's
information need) holds judgment sub-groups (JSG); within a JSG each document is preferred to every document with a
lower rel_level. A JG with one JSG is a set of equivalence classes (ECs: the documents of one level), and every line
counts (a document listed twice at one level counts twice; listed at two levels it is an error). A JG with several
JSGs is the transitive closure of their preferences (A > B in one and B > C in another give A > C), each preference
once; a cycle is an error, and so is a document non-relevant (level 0) in one JSG and relevant in another.
``-R qrels_prefs`` reads a qrels file, ``query_id jg doc_id rel_level``, its iteration column naming the JG, as JGs of
one JSG. A document is relevant to a JG when its level is above 0.

Counting. The judged documents of a query are numbered: the retrieved ones 0 … NJR − 1 in ranking order (after the
depth cut ``-M``; equal scores by doc id ascending, unlike trec_eval's other measures; unjudged documents do not
count), then the others in doc-id byte order. A preference A > B with
numbers a, b is

- ``ful_ret`` (fulfilled, both retrieved) when a < b < NJR; ``poss_ret`` (possible, both retrieved) when a, b < NJR;
- ``ful_imp`` (fulfilled, implied) when a < NJR ≤ b; ``poss_imp`` when exactly one of them is retrieved;
- ``notoccur`` when neither is retrieved.

Measures of a query (each count summed over its JGs; ``avgjg``: the mean over its JGs of each JG's ratio, 0 unless
that sum is positive; a ratio with a zero denominator is 0):

- ``prefs_num_prefs_poss`` = poss_ret + poss_imp + notoccur, ``prefs_num_prefs_ful`` = ful_ret + ful_imp,
  ``prefs_num_prefs_ful_ret`` = ful_ret (counts, summed over queries);
- ``prefs_simp`` = (ful_ret + ful_imp) / (poss_ret + poss_imp + notoccur), ``prefs_simp_ret`` = ful_ret / poss_ret,
  ``prefs_simp_imp`` = (ful_ret + ful_imp) / (poss_ret + poss_imp); ``prefs_avgjg``, ``_ret``, ``_imp``: the same per
  JG, averaged;
- ``prefs_pair``: over the document pairs {a < b} with a preference in some JG, the mean of c(a>b) / (c(a>b) +
  c(b>a)), c counting preferences over all JGs, a pair of unretrieved documents scoring 0; ``prefs_pair_ret``: over
  the pairs of retrieved documents; ``prefs_pair_imp``: over the pairs with a retrieved document;
- ``prefs_avgjg_Rnonrel``: per JG with R relevant and N non-relevant documents, when R ≥ N the JG's fulfilled and
  possible counts plus R − N imagined non-relevant documents below each relevant one (fulfilled for the retrieved
  relevant ones), else the counts with the non-relevant documents cut to the first R; ``prefs_avgjg_Rnonrel_ret``
  the same over retrieved documents. These follow m_prefs_avgjg_Rnonrel.c and m_prefs_avgjg_Rnonrel_ret.c as
  written, including their quirks (the cut EC is the JG's last; the _ret variant adds num_rel · (R − N) possible
  preferences with R − N counted over retrieved documents).

Everything is computed on flat arrays over all queries (queries in chunks of bounded size): pairs of an EC JG are
enumerated as index ranges, the transitive closure of the JGs with several JSGs is a batched boolean matrix product.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.aligned import UNJUDGED, align
from ..engine.rowops import run_starts
from ..errors import InputError
from ..io.table import DOCID, QID, ROW, VALUE, Origin, Table
from ..measures.trec_names import PREFS_MEASURES
from ..policies import Policies, QuerySet, TiePolicy
from .judgments import GROUP, Judgments, read_judgments

JSG, LEVEL = "jsg", "rel_level"
LAYOUTS = {
    "prefs": ((QID, GROUP, JSG, DOCID, LEVEL), "query_id jg jsg doc_id rel_level"),
    "qrels_prefs": ((QID, GROUP, DOCID, LEVEL), "query_id jg doc_id rel_level"),
}
MAX_PAIRS_PER_CHUNK = 1 << 23
"""Queries are counted in chunks of about this many enumerated preferences (memory: ~100 bytes each)."""
# per-JG counts, in this order
FUL_RET, FUL_IMP, NOTOCCUR, UNFUL_RET, UNFUL_IMP = range(5)


@dataclass(frozen=True)
class Preferences(Judgments):
    """Preference judgments: columns ``query_id``, ``jg``, ``jsg``, ``doc_id`` (text), ``rel_level`` (Float64) and
    ``row`` (input position); ``origin`` names the file and its lines."""

    pool_name = "documents with a preference"

    def pool_frame(self) -> pl.DataFrame:
        """Every (query, document) with a preference judgment, grade 0: the judged documents."""
        return self.frame.select(QID, DOCID).unique(maintain_order=True).with_columns(pl.lit(0).alias(VALUE))


def load_preferences(source: str | Path, rel_format: str = "prefs") -> Preferences:
    """Read preference judgments: ``rel_format`` ``prefs`` (``query_id jg jsg doc_id rel_level``) or ``qrels_prefs``
    (``query_id jg doc_id rel_level``, one sub-group per group); errors name the file and line."""
    columns, layout = LAYOUTS[rel_format]
    frame, origin = read_judgments(source, columns, layout, "preference judgments", grade=LEVEL,
                                   grade_name="rel_level", integer=False)  # fmt: skip
    frame = frame.with_columns(pl.col(LEVEL) + 0.0)  # -0.0 is 0
    if JSG not in frame.columns:
        frame = frame.with_columns(pl.lit("0").alias(JSG))  # trec_eval's get_qrels_prefs.c: jsg "0"
    return Preferences(frame.select(QID, GROUP, JSG, DOCID, LEVEL, ROW), origin)


def evaluate_preferences(
    prefs: Preferences, run: Table, query_ids: Sequence[str] | None = None, *, depth: int | None = None
) -> dict[str, np.ndarray]:
    """Every ``prefs_*`` measure (see the module docstring) per query of ``query_ids`` (default: the judged queries
    of the run, in text order), the run cut at ``depth`` documents per query.

    Returns ``{measure name: values}``, one value per query, in the order of ``query_ids``."""
    if query_ids is None:
        ran = run.with_text_ids().frame.get_column(QID).unique()
        query_ids = sorted(set(prefs.frame.get_column(QID).unique().to_list()) & set(ran.to_list()))
    entries, judged_ret = _numbered_entries(prefs, run, list(query_ids), depth)
    parts = [_count(_Chunk.of(entries.slice(start, stop - start), judged_ret, prefs.origin))
             for start, stop in _chunks(entries)]  # fmt: skip
    values = {name: np.zeros(len(query_ids)) for name in PREFS_MEASURES}
    for part in parts:
        for name, (queries, part_values) in part.items():
            values[name][queries] = part_values
    return values


def _numbered_entries(
    prefs: Preferences, run: Table, query_ids: list[str], depth: int | None
) -> tuple[pl.DataFrame, np.ndarray]:
    """The judgment lines of ``query_ids`` with their query's index ``q`` and their document's number ``rank``
    (retrieved judged documents first, in ranking order), sorted by query, JG, JSG, level descending and number (the
    order of trec_eval's form_prefs_counts); and NJR per query."""
    index = pl.DataFrame({QID: query_ids, "q": np.arange(len(query_ids), dtype=np.int64)})
    # form_prefs_counts.c orders equal scores by doc id ascending (form_res_rels.c, for the other measures, descending)
    policies = Policies(ties=TiePolicy.DOCNO_ASC, queries=QuerySet.QRELS, depth=depth)
    aligned = align(prefs.pool(), run, policies, allow_empty=True)
    assert aligned.doc is not None  # align always codes the documents
    judged = aligned.grade != UNJUDGED
    retrieved = pl.DataFrame({
        QID: pl.Series(aligned.query_ids, dtype=pl.String).gather(aligned.qidx[judged]),
        DOCID: aligned.doc_id_series().cast(pl.String).gather(aligned.doc[judged]),
        "rank": (aligned.cumulative_within_query(judged) - 1)[judged].astype(np.int64),
    })  # fmt: skip
    counted = index.join(retrieved.group_by(QID).len(), on=QID, how="left").sort("q")
    judged_ret = counted.get_column("len").fill_null(0).to_numpy().astype(np.int64)
    lines = prefs.frame.join(index, on=QID, how="inner").join(retrieved, on=[QID, DOCID], how="left")
    others = (lines.filter(pl.col("rank").is_null()).select("q", DOCID).unique().sort("q", DOCID)
              .with_columns((pl.int_range(pl.len()).over("q") + pl.col("q").replace_strict(
                  np.arange(len(query_ids)), judged_ret, default=0)).alias("_other")))  # fmt: skip
    lines = (lines.join(others, on=["q", DOCID], how="left")
             .with_columns(pl.coalesce("rank", "_other").cast(pl.Int64).alias("rank"))
             .sort(["q", GROUP, JSG, LEVEL, "rank"], descending=[False, False, False, True, False]))  # fmt: skip
    return lines.select("q", QID, GROUP, JSG, DOCID, LEVEL, "rank", ROW), judged_ret


def _chunks(entries: pl.DataFrame) -> Iterator[tuple[int, int]]:
    """Row ranges of ``entries`` holding whole queries and about :data:`MAX_PAIRS_PER_CHUNK` preferences each (a
    JG of n lines weighs n², an upper bound of its preferences); a query heavier than that is a chunk of its own."""
    q = entries.get_column("q").to_numpy()
    if not len(q):
        return
    group = np.cumsum(run_starts(q, entries.get_column(GROUP).to_numpy())) - 1
    weight = np.cumsum(np.bincount(group)[group].astype(np.float64))
    query_ends = np.flatnonzero(np.r_[q[1:] != q[:-1], True]) + 1
    start = 0
    while start < len(q):
        base = weight[start - 1] if start else 0.0
        later = query_ends[query_ends > start]
        fitting = later[weight[later - 1] - base <= MAX_PAIRS_PER_CHUNK]
        stop = int(fitting[-1]) if len(fitting) else int(later[0])
        yield start, stop
        start = stop


def _run_ends(starts: np.ndarray) -> np.ndarray:
    """Per row, the (exclusive) end of its run, runs beginning where ``starts``."""
    first = np.flatnonzero(starts)
    return np.r_[first[1:], len(starts)][np.cumsum(starts) - 1]


def _level_pairs(group: np.ndarray, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows sorted by ``group`` then ``level`` descending: every pair (a, b) of one group with level_a > level_b,
    as two index arrays (enumerated as ranges: each row pairs with the rest of its group past its own level)."""
    if not len(group):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    group_end = _run_ends(run_starts(group))
    level_end = _run_ends(run_starts(group, level))
    lengths = group_end - level_end
    a = np.repeat(np.arange(len(group)), lengths)
    within = np.arange(len(a)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return a, level_end[a] + within


def _classify(x: np.ndarray, y: np.ndarray, njr: np.ndarray) -> np.ndarray:
    """The count each preference x > y adds to (x, y: document numbers, njr: NJR of its query)."""
    fulfilled = np.where(y < njr, FUL_RET, np.where(x < njr, FUL_IMP, NOTOCCUR))
    unfulfilled = np.where(x < njr, UNFUL_RET, np.where(y < njr, UNFUL_IMP, NOTOCCUR))
    return np.where(x < y, fulfilled, unfulfilled)


def _closure(
    size: np.ndarray, edges: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray | None]:
    """The transitive closure of the directed graphs of the groups with ``size[g] > 0`` nodes (``edges``: group,
    from, to, as node numbers within the group), without self loops, as (group, from, to) arrays; and the first
    pair of nodes (group, i, j) that reach each other (a cycle), or None.

    Groups of similar size are stacked into one array and squared (M ← M·M, M reflexive) until nothing changes, as
    trec_eval multiplies its preference array by itself until it is stable."""
    found: list[np.ndarray] = [np.zeros((3, 0), dtype=np.int64)]
    width_class = np.ceil(np.log2(np.maximum(size, 1))).astype(np.int64)
    edge_group, edge_from, edge_to = edges
    line = np.full(len(size), -1)
    for klass in np.unique(width_class[size > 0]):
        members = np.flatnonzero((width_class == klass) & (size > 0))
        line[:] = -1
        line[members] = np.arange(len(members))
        width, keep = 1 << int(klass), line[edge_group] >= 0
        matrix = np.zeros((len(members), width, width), dtype=np.float32)
        matrix[line[edge_group[keep]], edge_from[keep], edge_to[keep]] = 1.0
        matrix[:, np.arange(width), np.arange(width)] = 1.0
        while True:
            squared = (np.matmul(matrix, matrix) > 0).astype(np.float32)
            if np.array_equal(squared, matrix):
                break
            matrix = squared
        matrix[:, np.arange(width), np.arange(width)] = 0.0
        both = np.argwhere((matrix > 0) & (np.transpose(matrix, (0, 2, 1)) > 0))
        if len(both):
            return found[0], np.array([members[both[0, 0]], both[0, 1], both[0, 2]])
        where = np.nonzero(matrix)
        found.append(np.stack([members[where[0]], where[1], where[2]]).astype(np.int64))
    closed = np.concatenate(found, axis=1)
    return closed, None


@dataclass(frozen=True)
class _Chunk:
    """The numbered judgment lines of the queries of one chunk, as arrays: ``group`` and ``subgroup`` number the
    lines' JGs and JSGs (0-based, consecutive), ``njr`` is NJR of each line's query."""

    frame: pl.DataFrame
    q: np.ndarray
    group: np.ndarray
    subgroup: np.ndarray
    level: np.ndarray
    rank: np.ndarray
    njr: np.ndarray
    origin: Origin

    @classmethod
    def of(cls, frame: pl.DataFrame, judged_ret: np.ndarray, origin: Origin) -> _Chunk:
        q = frame.get_column("q").to_numpy()
        group, subgroup = frame.get_column(GROUP).to_numpy(), frame.get_column(JSG).to_numpy()
        return cls(frame, q, np.cumsum(run_starts(q, group)) - 1, np.cumsum(run_starts(q, group, subgroup)) - 1,
                   frame.get_column(LEVEL).to_numpy(), frame.get_column("rank").to_numpy(), judged_ret[q],
                   origin)  # fmt: skip

    @property
    def num_groups(self) -> int:
        return int(self.group[-1]) + 1 if len(self.group) else 0

    def fail(self, at: int, problem: str) -> None:
        """Raise the error ``problem`` about line ``at`` (index into the chunk), naming its file line, query, JG and
        document."""
        line = self.frame.row(int(at), named=True)
        raise InputError(f"{self.origin.locate(line[ROW])}: query {line[QID]!r} judgment group {line[GROUP]!r}: "
                         f"document {line[DOCID]!r} {problem}")  # fmt: skip


@dataclass(frozen=True)
class _Counted:
    """What the JGs of one kind (one JSG: equivalence classes; several: a closed preference graph) contribute to a
    chunk: their preferences (JG, x, y: x preferred to y, document numbers) and, per JG of the chunk (zeros for JGs
    of the other kind), the columns of :data:`RELEVANT` and of :data:`RECOUNT`."""

    group: np.ndarray
    x: np.ndarray
    y: np.ndarray
    relevant: np.ndarray
    recount: np.ndarray


RELEVANT = ("num_rel", "num_rel_ret", "num_nonrel", "num_nonrel_ret")
RECOUNT = ("ful", "poss", "ful_ret", "poss_ret")
"""The fulfilled and possible preferences of a JG with its non-relevant documents cut to as many as its relevant
ones (m_prefs_avgjg_Rnonrel.c's recalculate), over all documents and over the retrieved ones."""


def _nothing(n: int) -> _Counted:
    """No JG of this kind in the chunk."""
    empty = np.zeros(0, dtype=np.int64)
    return _Counted(empty, empty, empty, np.zeros((n, len(RELEVANT))), np.zeros((n, len(RECOUNT))))


def _per_group(group: np.ndarray, n: int, *weights: np.ndarray) -> np.ndarray:
    """Σ of each of ``weights`` over the rows of each of ``n`` groups (a bool weight counts its true rows): an
    (n, len(weights)) array."""
    sums = [np.bincount(group[w], minlength=n) if w.dtype == bool else np.bincount(group, weights=w, minlength=n)
            for w in weights]  # fmt: skip
    return np.stack(sums, axis=1).astype(np.float64)


def _below(group: np.ndarray, rank: np.ndarray, at_group: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """For each (at_group, limit): how many rows of that group have rank < limit."""
    width = int(rank.max(initial=0)) + 2
    keys = np.sort(group * width + rank)
    base = at_group * width
    return (np.searchsorted(keys, base + limit, "left") - np.searchsorted(keys, base, "left")).astype(np.float64)


def _equivalence_classes(chunk: _Chunk, rows: np.ndarray) -> _Counted:
    """The JGs with one JSG (lines ``rows``): a preference for every two lines at different levels."""
    n = chunk.num_groups
    if not len(rows):
        return _nothing(n)
    group, level, rank, njr = chunk.group[rows], chunk.level[rows], chunk.rank[rows], chunk.njr[rows]
    a, b = _level_pairs(group, level)
    clash = np.flatnonzero(rank[a] == rank[b])
    if len(clash):
        chunk.fail(rows[b[clash[0]]], "has two rel_levels in one judgment sub-group")
    x, y, pair_group, pair_njr = rank[a], rank[b], group[a], njr[a]
    relevant, retrieved = level > 0, rank < njr
    counts = _per_group(group, n, relevant, relevant & retrieved, ~relevant, ~relevant & retrieved)
    # recalculate(): the classes but the last, then every line against the first R lines of the last class
    class_start = run_starts(group, level)
    class_id = np.cumsum(class_start) - 1
    first_class = class_id[np.flatnonzero(run_starts(group))]
    num_classes = np.bincount(group, weights=class_start, minlength=n).astype(np.int64)
    last = class_id - first_class[np.cumsum(run_starts(group)) - 1] == num_classes[group] - 1
    in_class = np.arange(len(rows)) - np.flatnonzero(class_start)[class_id]
    upper = ~last[b]
    both_retrieved = upper & (x < pair_njr) & (y < pair_njr)
    kept = _per_group(pair_group, n, upper & (x < y) & (x < pair_njr), upper, both_retrieved & (x < y),
                      both_retrieved)  # fmt: skip
    last_size = np.bincount(group, weights=last, minlength=n)
    cut = last & (in_class < np.minimum(counts[:, 0], last_size)[group])
    cut_retrieved = last & retrieved & (in_class < np.minimum(counts[:, 1], last_size)[group])
    ful, ful_retrieved = np.zeros(len(rows)), np.zeros(len(rows))
    ful[cut] = _below(group, rank, group[cut], np.minimum(rank, njr)[cut])
    ful_retrieved[cut_retrieved] = _below(group[retrieved], rank[retrieved], group[cut_retrieved],
                                         rank[cut_retrieved])  # fmt: skip
    sizes = _per_group(group, n, np.ones(len(rows)), retrieved, cut, cut_retrieved)
    recount = kept + np.stack([np.bincount(group, weights=ful, minlength=n), sizes[:, 0] * sizes[:, 2],
                               np.bincount(group, weights=ful_retrieved, minlength=n), sizes[:, 1] * sizes[:, 3]],
                              axis=1)  # fmt: skip
    return _Counted(pair_group, x, y, counts, recount)


def _closed_groups(chunk: _Chunk, rows: np.ndarray) -> _Counted:
    """The JGs with several JSGs (lines ``rows``): the transitive closure of their JSGs' preferences, each once."""
    n = chunk.num_groups
    if not len(rows):
        return _nothing(n)
    group, level, rank = chunk.group[rows], chunk.level[rows], chunk.rank[rows]
    by_doc = np.lexsort((np.arange(len(rows)), rank, group))  # each document's lines in trec_eval's order
    same_doc = (group[by_doc][1:] == group[by_doc][:-1]) & (rank[by_doc][1:] == rank[by_doc][:-1])
    before, after = level[by_doc][:-1], level[by_doc][1:]
    mixed = np.flatnonzero(same_doc & (((before > 0) & (after == 0)) | ((before == 0) & (after > 0))))
    if len(mixed):
        chunk.fail(rows[by_doc[mixed[0] + 1]], "has rel_level 0 in one judgment sub-group and above 0 in another")
    doc_start = run_starts(group[by_doc], rank[by_doc])
    doc_of_line = np.empty(len(rows), dtype=np.int64)
    doc_of_line[by_doc] = np.cumsum(doc_start) - 1
    doc_group, doc_rank = group[by_doc][doc_start], rank[by_doc][doc_start]
    doc_level = level[by_doc][np.r_[doc_start[1:], True]]  # the last line's level (trec_eval's rel_array)
    doc_line = rows[by_doc[doc_start]]
    first_doc = np.searchsorted(doc_group, np.arange(n))
    a, b = _level_pairs(chunk.subgroup[rows], level)
    direct = doc_of_line[a] != doc_of_line[b]
    edge_from, edge_to = doc_of_line[a][direct], doc_of_line[b][direct]
    edge_group = doc_group[edge_from]
    closed, cycle = _closure(
        np.bincount(doc_group, minlength=n),
        (edge_group, edge_from - first_doc[edge_group], edge_to - first_doc[edge_group]),
    )
    if cycle is not None:
        first, second = first_doc[cycle[0]] + cycle[1], first_doc[cycle[0]] + cycle[2]
        other = chunk.frame.get_column(DOCID)[int(doc_line[second])]
        chunk.fail(doc_line[first], f"and document {other!r} are each preferred to the other (through its "
                                    "sub-groups' preferences, which must be consistent)")  # fmt: skip
    pair_group, i, j = closed[0], first_doc[closed[0]] + closed[1], first_doc[closed[0]] + closed[2]
    x, y = doc_rank[i], doc_rank[j]
    njr = np.zeros(n, dtype=np.int64)
    njr[chunk.group] = chunk.njr
    doc_njr, pair_njr = njr[doc_group], njr[pair_group]
    relevant, nonrelevant, retrieved = doc_level > 0, doc_level == 0, doc_rank < doc_njr
    counts = _per_group(doc_group, n, relevant, relevant & retrieved, nonrelevant, nonrelevant & retrieved)
    # recalculate(): the non-relevant documents past the first R (by number) are left out
    kept = []
    for only_retrieved in (False, True):
        candidates = nonrelevant & (retrieved if only_retrieved else True)
        position = np.cumsum(candidates) - 1
        position -= np.r_[0, np.cumsum(candidates)][first_doc[doc_group]]
        cut_at = candidates & (position == counts[doc_group, 0])
        cut = np.where(only_retrieved, njr, np.iinfo(np.int64).max)
        cut[doc_group[cut_at]] = doc_rank[cut_at]
        kept.append(~(nonrelevant & (doc_rank >= cut[doc_group])))
    both, both_retrieved = kept[0][i] & kept[0][j], kept[1][i] & kept[1][j] & (x < pair_njr) & (y < pair_njr)
    recount = _per_group(pair_group, n, both & (x < y) & (x < pair_njr), both, both_retrieved & (x < y),
                         both_retrieved)  # fmt: skip
    return _Counted(pair_group, x, y, counts, recount)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (trec_eval leaves the value at 0)."""
    return np.divide(numerator, denominator, out=np.zeros(len(numerator)), where=denominator != 0)


def _mean_over_groups(per_group: np.ndarray, group_query: np.ndarray, queries: int) -> np.ndarray:
    """Σ over each query's JGs of ``per_group`` (in JG order; NaN stays NaN) / its number of JGs, 0 unless the sum
    is positive (trec_eval's ``if (sum > 0.0)``)."""
    total = np.bincount(group_query, weights=per_group, minlength=queries)
    groups = np.bincount(group_query, minlength=queries)
    with np.errstate(invalid="ignore"):
        return np.where(total > 0, total / np.maximum(groups, 1), 0.0)


def _count(chunk: _Chunk) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The ``prefs_*`` measures of the queries of one chunk: {name: (query indices, values)}."""
    n = chunk.num_groups
    group_first_line = np.flatnonzero(run_starts(chunk.group))
    group_query, njr = chunk.q[group_first_line], chunk.njr[group_first_line]
    queries, local = np.unique(group_query, return_inverse=True)
    several = np.bincount(chunk.group, weights=run_starts(chunk.subgroup), minlength=n) > 1
    parts = [_equivalence_classes(chunk, np.flatnonzero(~several[chunk.group])),
             _closed_groups(chunk, np.flatnonzero(several[chunk.group]))]  # fmt: skip
    group = np.concatenate([p.group for p in parts])
    x, y = np.concatenate([p.x for p in parts]), np.concatenate([p.y for p in parts])
    kinds = np.bincount(group * 5 + _classify(x, y, njr[group]), minlength=5 * n).reshape(n, 5).astype(np.float64)
    ful_ret, ful_imp, notoccur = kinds[:, FUL_RET], kinds[:, FUL_IMP], kinds[:, NOTOCCUR]
    poss_ret, poss_imp = ful_ret + kinds[:, UNFUL_RET], ful_imp + kinds[:, UNFUL_IMP]
    relevant, recount = parts[0].relevant + parts[1].relevant, parts[0].recount + parts[1].recount
    num_rel, num_rel_ret, num_nonrel, num_nonrel_ret = relevant.T
    nq = len(queries)

    def total(per_group: np.ndarray) -> np.ndarray:
        return np.bincount(local, weights=per_group, minlength=nq)

    def mean(ful: np.ndarray, poss: np.ndarray) -> np.ndarray:
        return _mean_over_groups(_ratio(ful, poss), local, nq)

    with np.errstate(invalid="ignore", divide="ignore"):  # trec_eval's 0/0: NaN, which leaves the value at 0
        extra = num_rel - num_nonrel
        r_ful = np.where(extra >= 0, ful_ret + ful_imp + num_rel_ret * extra, recount[:, 0])
        r_poss = np.where(extra >= 0, poss_ret + poss_imp + notoccur + num_rel * extra, recount[:, 1])
        extra_ret = num_rel_ret - num_nonrel_ret
        r_ful_ret = np.where(extra_ret >= 0, ful_ret + num_rel_ret * extra_ret, recount[:, 2])
        r_poss_ret = np.where(extra_ret >= 0, poss_ret + num_rel * extra_ret, recount[:, 3])
        rnonrel = _mean_over_groups(r_ful / r_poss, local, nq)
        rnonrel_ret = _mean_over_groups(r_ful_ret / r_poss_ret, local, nq)
    ful, poss = ful_ret + ful_imp, poss_ret + poss_imp + notoccur
    once = np.ones(len(chunk.group), dtype=bool)  # a line that repeats its predecessor (same JG, level, document)
    once[1:] = ~((chunk.group[1:] == chunk.group[:-1]) & (chunk.level[1:] == chunk.level[:-1])
                 & (chunk.rank[1:] == chunk.rank[:-1]))  # fmt: skip
    repeats = np.bincount(chunk.group, weights=~once & ~several[chunk.group], minlength=n) > 0
    simple = (np.bincount(local, minlength=nq) == 1) & (np.bincount(local, weights=repeats, minlength=nq) == 0)
    pairs = _pair_means(local[group], x, y, njr[group], nq, simple)
    values = {
        "prefs_num_prefs_poss": total(poss), "prefs_num_prefs_ful": total(ful),
        "prefs_num_prefs_ful_ret": total(ful_ret),
        "prefs_simp": _ratio(total(ful), total(poss)), "prefs_pair": pairs[0], "prefs_avgjg": mean(ful, poss),
        "prefs_avgjg_Rnonrel": rnonrel,
        "prefs_simp_ret": _ratio(total(ful_ret), total(poss_ret)), "prefs_pair_ret": pairs[1],
        "prefs_avgjg_ret": mean(ful_ret, poss_ret), "prefs_avgjg_Rnonrel_ret": rnonrel_ret,
        "prefs_simp_imp": _ratio(total(ful_ret + ful_imp), total(poss_ret + poss_imp)), "prefs_pair_imp": pairs[2],
        "prefs_avgjg_imp": mean(ful_ret + ful_imp, poss_ret + poss_imp),
    }  # fmt: skip
    return {name: (queries, value) for name, value in values.items()}


def _pair_means(
    q: np.ndarray, x: np.ndarray, y: np.ndarray, njr: np.ndarray, queries: int, simple: np.ndarray
) -> tuple[np.ndarray, ...]:
    """prefs_pair, prefs_pair_ret and prefs_pair_imp per query from every preference (query q, x preferred to y).

    Each document pair {a < b} with preferences counts c(a>b) / (c(a>b) + c(b>a)), summed in trec_eval's order:
    the pairs of retrieved documents, then those of a retrieved and an unretrieved one (a pair of unretrieved
    documents only counts in prefs_pair's denominator). In a ``simple`` query (one JG, no line twice) every pair
    comes once, so each counts 1 or 0 and the sums are counts; the other queries' pairs are gathered by sorting."""
    low, high = np.minimum(x, y), np.maximum(x, y)
    category = np.where(high < njr, 0, np.where(low < njr, 1, 2))
    forward = x < y
    once = simple[q]
    counts = np.stack([np.bincount(q[once & (category == c)], minlength=queries) for c in range(3)], axis=1)
    retrieved = np.bincount(q[once & forward & (category == 0)], minlength=queries).astype(np.float64)
    with_implied = retrieved + np.bincount(q[once & forward & (category == 1)], minlength=queries)
    rest = np.flatnonzero(~once)
    if len(rest):
        order = rest[np.lexsort((high[rest], low[rest], category[rest], q[rest]))]
        starts = run_starts(q[order], low[order], high[order])
        pair = np.cumsum(starts) - 1
        share = np.bincount(pair, weights=forward[order]) / np.bincount(pair)
        first = order[starts]
        pair_q, pair_category = q[first], category[first]
        counts += np.stack([np.bincount(pair_q[pair_category == c], minlength=queries) for c in range(3)], axis=1)
        retrieved += np.bincount(pair_q, weights=np.where(pair_category == 0, share, 0.0), minlength=queries)
        with_implied += np.bincount(pair_q, weights=np.where(pair_category <= 1, share, 0.0), minlength=queries)
    counts = counts.astype(np.float64)
    return (_ratio(with_implied, counts.sum(axis=1)), _ratio(retrieved, counts[:, 0]),
            _ratio(with_implied, counts[:, 0] + counts[:, 1]))  # fmt: skip
