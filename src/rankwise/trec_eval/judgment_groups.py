"""Judgment groups: several sets of relevance judgments for one query, one per user or assessor (trec_eval's
``-R qrels_jg``), and the measures averaged over them (``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``).

The file is a TREC qrels file whose second column names the judgment group: ``query_id jg doc_id grade`` (integer
grades, a negative grade is in the pool but unjudged); a document may be judged in several groups, but only once in
each (trec_eval: "duplicate docs"). A measure averaged over judgment groups is, for a query q whose groups are
g_1 … g_n (ordered by their ids' bytes, as trec_eval sorts them),

    M_avgjg(q) = (1/n) Σ_i M(q; the judgments of g_i),

M computed exactly as on ordinary qrels: AP for ``map_avgjg``, P@k for ``P_avgjg_k``, Rprec(mult=x) for
``Rprec_mult_avgjg_x`` (trec_eval m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c). With ``-J`` each group keeps
the documents it judged (the condensed list differs from group to group).

The computation stays on flat arrays: each (query, group) pair becomes a query of its own, the run's rows repeated
once per group of their query; rankwise's kernels evaluate them in one pass, and the values are averaged back per
query.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..errors import InputError
from ..io.table import DOCID, QID, ROW, VALUE, Table
from ..measures.spec import Measure
from ..pipeline.evaluate import evaluate
from .judgments import GROUP, Judgments, read_judgments
from .judgments import judged_only as condensed  # the keyword judged_only is group_averages's

LAYOUT = "query_id jg doc_id grade"
_PAIR = "_pair"


@dataclass(frozen=True)
class JudgmentGroups(Judgments):
    """Judgments of several groups: columns ``query_id``, ``jg``, ``doc_id`` (text), ``value`` (Int64 grade) and
    ``row`` (input position); ``origin`` names the file and its lines."""

    pool_name = "all judgment groups"

    def pool_frame(self) -> pl.DataFrame:
        """Every judged (query, document) with its largest grade over the groups."""
        return self.frame.group_by(QID, DOCID, maintain_order=True).agg(pl.col(VALUE).max())

    def split(self, run: Table) -> GroupSplit:
        """Each (query, group) as a query of its own: the judgments of that group, and the run's ranking of that
        query (repeated once per group)."""
        pairs = (self.frame.select(QID, GROUP).unique().sort([QID, GROUP])
                 .with_row_index(_PAIR).with_columns(pl.col(_PAIR).cast(pl.Int64)))  # fmt: skip
        judged = self.frame.join(pairs, on=[QID, GROUP], how="inner")
        qrels = Table("qrels", judged.select(pl.col(_PAIR).alias(QID), DOCID, VALUE, ROW), self.origin)
        text_run = run.with_text_ids()
        rows = text_run.frame.join(pairs.select(QID, _PAIR), on=QID, how="inner").sort([_PAIR, ROW])
        split_run = dataclasses.replace(text_run, frame=rows.select(pl.col(_PAIR).alias(QID), DOCID, VALUE, ROW))
        return GroupSplit(qrels, split_run, pairs.get_column(QID))


@dataclass(frozen=True)
class GroupSplit:
    """Judgments and run with one query per (query, group): query ``i`` is the i-th pair in (query, group) order,
    and ``query_of[i]`` its query's id."""

    qrels: Table
    run: Table
    query_of: pl.Series

    def averages(self, values: np.ndarray, pair_ids: tuple[str, ...], query_ids: tuple[str, ...]) -> np.ndarray:
        """Per query of ``query_ids``: the mean over its groups of ``values`` (one per pair of ``pair_ids``, as an
        evaluation of :attr:`qrels` and :attr:`run` names its queries), summed in group order as trec_eval sums
        them; 0 for a query none of whose pairs was evaluated."""
        pairs = np.asarray(pair_ids, dtype=np.int64)
        order = np.argsort(pairs, kind="stable")
        index = pl.DataFrame({QID: query_ids, "_index": np.arange(len(query_ids))})
        owners = pl.DataFrame({QID: self.query_of.gather(pairs[order])}).join(index, on=QID, how="left",
                                                                             maintain_order="left")  # fmt: skip
        owner = owners.get_column("_index").fill_null(-1).to_numpy()
        kept = owner >= 0
        total = np.bincount(owner[kept], weights=values[order][kept], minlength=len(query_ids)).astype(np.float64)
        count = np.bincount(owner[kept], minlength=len(query_ids))
        return np.divide(total, count, out=np.zeros(len(query_ids)), where=count > 0)


def load_judgment_groups(source: str | Path) -> JudgmentGroups:
    """Read a judgment-group qrels file (``query_id jg doc_id grade``); errors name the file and line."""
    frame, origin = read_judgments(source, (QID, GROUP, DOCID, VALUE), LAYOUT, "judgments", grade=VALUE,
                                   grade_name="grade", integer=True)  # fmt: skip
    key = pl.struct(QID, GROUP, DOCID)
    repeats = frame.sort(ROW).filter(~key.is_first_distinct()).head(1)
    if repeats.height:  # the earliest line that repeats an earlier one, and that one
        second = repeats.row(0, named=True)
        same = (pl.col(QID) == second[QID]) & (pl.col(GROUP) == second[GROUP]) & (pl.col(DOCID) == second[DOCID])
        first = frame.filter(same).sort(ROW).row(0, named=True)
        raise InputError(f"{origin.locate(second[ROW])}: query {second[QID]!r} doc {second[DOCID]!r} is judged twice "
                         f"in judgment group {second[GROUP]!r} (first at {origin.locate(first[ROW])})")  # fmt: skip
    return JudgmentGroups(frame, origin)


def group_averages(
    groups: JudgmentGroups, run: Table, measures: list[Measure], query_ids: tuple[str, ...], policies: dict[str, Any],
    *, judged_only: bool = False,
) -> dict[Measure, np.ndarray]:  # fmt: skip
    """Per measure, its per-query mean over the judgment groups (for the queries ``query_ids``), evaluated under
    ``policies`` (``depth``, ``rel_level``, ``queries``); with ``judged_only`` (trec_eval ``-J``) each group's
    ranking keeps only the documents that group judged."""
    split = groups.split(run)
    pseudo_run, depth = split.run, policies.get("depth")
    if judged_only:
        pseudo_run, depth = condensed(split.qrels, pseudo_run, depth), None
    chosen = {**policies, "depth": depth, "queries": "qrels" if judged_only else policies.get("queries")}
    result = evaluate(split.qrels, pseudo_run, list(dict.fromkeys(measures)), **chosen)
    return {m: split.averages(result.values[i], result.query_ids, query_ids) for i, m in enumerate(result.measures)}
