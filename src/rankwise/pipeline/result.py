"""Report: the result of an evaluation — per-query values over the union of the query groups, aggregates, and an
account of every query left out or treated specially."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ..engine.aligned import QueryAccounting
from ..errors import RankwiseError
from ..io.subtopics import SubtopicJudgments
from ..io.table import QID, VALUE, Table
from ..kernels.intent import INTENT_KERNELS
from ..measures import Measure
from ..policies import Policies
from ..wording import counted
from .compute import GroupValues, resolved_rel
from .load import Inputs
from .plan import Plan

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class EvaluationResult:
    """Aggregate and per-query values of one evaluation, with an account of every query.

    ``values[i, j]`` is measure ``keys[i]`` on query ``query_ids[j]`` (NaN where undefined).
    """

    keys: tuple[str, ...]
    measures: tuple[Measure, ...]
    query_ids: tuple[str, ...]
    values: np.ndarray
    aggregate: dict[str, float]
    undefined: dict[str, int]
    accounting: QueryAccounting
    policies: Policies
    run_name: str | None = None
    dialect: str | None = None
    caveats: tuple[str, ...] = ()

    @property
    def per_query(self) -> dict[str, dict[str, float]]:
        """``{query_id: {key: value}}``."""
        return {
            qid: {key: float(self.values[i, j]) for i, key in enumerate(self.keys)}
            for j, qid in enumerate(self.query_ids)
        }

    def to_polars(self) -> pl.DataFrame:
        """Long table of per-query values: columns query_id, measure, value."""
        nq = len(self.query_ids)
        return pl.DataFrame(
            {
                "query_id": pl.Series(list(self.query_ids) * len(self.keys), dtype=pl.String),
                "measure": pl.Series(np.repeat(np.array(self.keys, dtype=object), nq).tolist(), dtype=pl.String),
                "value": pl.Series(self.values.reshape(-1), dtype=pl.Float64),
            }
        )

    def to_pandas(self) -> pd.DataFrame:
        """Long table of per-query values as pandas (needs pandas and pyarrow)."""
        return to_pandas(self.to_polars())

    def notes(self) -> list[str]:
        """One line for every query or document left out of, or treated specially in, the averages."""
        acc = self.accounting
        query_groups = (
            (acc.run_only, ("run query has", "run queries have"), "no judgments and {was} not evaluated"),
            (acc.qrels_only, ("judged query is", "judged queries are"), "missing from the run and {was} not evaluated "
                             "(queries='qrels' / -c scores them 0)"),
            (acc.scored_empty, ("judged query", "judged queries"), "missing from the run {was} scored as an empty "
                               "ranking"),
            (acc.unjudged_evaluated, ("run query", "run queries"), "without judgments {was} scored with no relevant "
                                     "documents"),
            (acc.no_relevant, ("judged query has", "judged queries have"), "no relevant document and {was} not "
                              "evaluated"),
        )  # fmt: skip
        lines = [
            f"{counted(len(ids), *nouns)} {what.format(was='was' if len(ids) == 1 else 'were')}: {_sample(ids)}"
            for ids, nouns, what in query_groups
            if ids
        ]
        if acc.removed_unjudged:
            lines.append(f"{counted(acc.removed_unjudged, 'unjudged ranked document', 'unjudged ranked documents')} "
                         f"{'was' if acc.removed_unjudged == 1 else 'were'} removed before scoring (judged_only)")
        if acc.truncated_rows:
            lines.append(f"{counted(acc.truncated_rows, 'ranked document', 'ranked documents')} beyond depth "
                         f"{self.policies.depth} {'was' if acc.truncated_rows == 1 else 'were'} ignored")  # fmt: skip
        lines.extend(self.caveats)
        for key, count in self.undefined.items():
            if count:
                lines.append(f"{key}: undefined for {count} of {counted(len(self.query_ids), 'query', 'queries')}, "
                             "left out of its mean")  # fmt: skip
        return lines


def to_pandas(frame: pl.DataFrame) -> pd.DataFrame:
    """``frame`` as pandas, or one line saying what to install when pandas or pyarrow is missing."""
    try:
        return frame.to_pandas()
    except ImportError as exc:
        missing = exc.name or "pandas and pyarrow"
        raise RankwiseError(
            f"to_pandas() needs {missing}: pip install pandas pyarrow (from a checkout: pip install '.[pandas]')"
        ) from None


def _sample(ids: tuple[str, ...], shown: int = 5) -> str:
    """The first few ids, and how many more there are."""
    text = ", ".join(ids[:shown])
    return text + (f", … ({len(ids) - shown} more)" if len(ids) > shown else "")


def assemble(plan: Plan, inputs: Inputs, parts: list[GroupValues]) -> EvaluationResult:
    """One result from the query groups' values: the evaluation's own group first, others merged in over the union
    of query ids; a measure's undefined values are counted only over the queries its group evaluated."""
    main = parts[0]
    values = np.full((len(plan.pairs), len(main.query_ids)), np.nan)
    values[list(main.group.rows)] = main.values
    covered = np.zeros(values.shape, dtype=bool)
    covered[list(main.group.rows)] = True
    query_ids = list(main.query_ids)
    aggregates: dict[str, float] = {}
    for part in parts:
        aggregates.update((plan.pairs[i][0], v) for i, v in zip(part.group.rows, part.aggregates))
        if part is not main:
            values, covered, query_ids = _merge_queries(values, covered, query_ids, list(part.group.rows),
                                                        part.values, list(part.query_ids))  # fmt: skip
    undefined = {key: 0 if m.aggregation == "global" else int(np.isnan(values[i][covered[i]]).sum())
                 for i, (key, m) in enumerate(plan.pairs)}  # a global measure has no per-query value  # fmt: skip
    return EvaluationResult(
        keys=tuple(k for k, _ in plan.pairs),
        measures=tuple(m for _, m in plan.pairs),
        query_ids=tuple(query_ids),
        values=values,
        aggregate={key: aggregates[key] for key, _ in plan.pairs},
        undefined=undefined,
        accounting=main.accounting,
        policies=plan.policies,
        run_name=inputs.run.run_name,
        dialect=plan.dialect.key if plan.dialect else None,
        caveats=(*plan.notes, *inputs.notes, *rating_notes(plan, inputs.qrels, main.query_ids),
                 *subtopic_notes(plan, inputs.subtopics, main.query_ids),
                 *(c for part in parts for c in part.caveats)),
    )  # fmt: skip


RATING_LIKE_MAX = 10
"""Integer grades from 1 up to at most this, none below 1, look like ratings (1–5 stars, 1–10 scores)."""


def rating_notes(plan: Plan, qrels: Table, evaluated: list[str] | tuple[str, ...]) -> list[str]:
    """What a recommender user reading ratings needs to hear.

    With a threshold: evaluated users none of whose ratings reach it (nothing relevant: they score 0 on most
    measures, and would be left out by a dialect that averages over users with a relevant item). Without one:
    grades that look like ratings (all between 1 and 10, top grade 4 or more) while every grade is at or above the
    relevance level, so every rated item counts as relevant."""
    frame = qrels.frame
    if frame.height == 0:
        return []
    level = plan.policies.rel_level
    if plan.threshold is None:
        low, high = frame.select(pl.col(VALUE).min().alias("low"), pl.col(VALUE).max().alias("high")).row(0)
        if not (level <= low and low >= 1 and 4 <= high <= RATING_LIKE_MAX):
            return []
        return [
            f"{qrels.origin.name}: grades run from {low} to {high} with none below {level}, so every judged item "
            "counts as relevant; if these are ratings, give a threshold (--threshold 4 / threshold=4: rating >= 4 "
            "is relevant)"
        ]
    best = frame.group_by(QID).agg(pl.col(VALUE).max()).filter(pl.col(VALUE) < level)
    if best.height == 0:
        return []
    ids = best.get_column(QID).cast(pl.String)
    below = ids.filter(ids.is_in(pl.Series(list(evaluated), dtype=pl.String).implode())).sort().to_list()
    if not below:
        return []
    return [
        f"{counted(len(below), 'evaluated query has', 'evaluated queries have')} no rating >= {plan.threshold:g} "
        f"(nothing relevant) and {'is' if len(below) == 1 else 'are'} scored with no relevant item (0 on most "
        f"measures): {_sample(tuple(below))}"
    ]


def subtopic_notes(plan: Plan, judgments: SubtopicJudgments | None, evaluated: list[str] | tuple[str, ...]
                   ) -> list[str]:  # fmt: skip
    """For the intent-aware measures: evaluated queries with no subtopic that has a relevant document (S = 0: they
    score 0, or are undefined with no_subtopics=skip), per relevance threshold in use; and queries of the subtopic
    judgments that are not evaluated."""
    levels = sorted({resolved_rel(m, plan.policies) for _, m in plan.pairs if m.name in INTENT_KERNELS})
    if judgments is None or not levels:
        return []
    frame, name = judgments.frame, judgments.origin.name
    evaluated_ids = pl.Series(QID, list(evaluated), dtype=pl.String)
    notes = []
    for level in levels:
        judged = frame.filter(pl.col(VALUE) >= level).get_column(QID).implode()
        without = tuple(evaluated_ids.filter(~evaluated_ids.is_in(judged)).to_list())
        if without:
            notes.append(f"{counted(len(without), 'evaluated query has', 'evaluated queries have')} no subtopic with a "
                         f"relevant document (grade >= {level}) in {name}: the intent-aware measures score "
                         f"{'it' if len(without) == 1 else 'them'} 0 (undefined with no_subtopics=skip): "
                         f"{_sample(without)}")  # fmt: skip
    ids = frame.get_column(QID).unique().sort()
    outside = tuple(ids.filter(~ids.is_in(evaluated_ids.implode())).to_list())
    if outside:
        notes.append(f"{counted(len(outside), 'query', 'queries')} of {name} {'is' if len(outside) == 1 else 'are'} "
                     f"not evaluated (not in both qrels and run): {_sample(outside)}")  # fmt: skip
    return notes


def _merge_queries(
    values: np.ndarray,
    covered: np.ndarray,
    query_ids: list[str],
    rows: list[int],
    other_values: np.ndarray,
    other_ids: list[str],
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Put ``other_values`` (for measure rows ``rows``, over ``other_ids``) into a table over the union of
    query ids; ``covered`` marks which (measure, query) cells each measure actually evaluated."""
    union = sorted(set(query_ids) | set(other_ids), key=lambda q: q.encode())
    position = {q: j for j, q in enumerate(union)}
    merged = np.full((values.shape[0], len(union)), np.nan)
    merged_covered = np.zeros(merged.shape, dtype=bool)
    old = [position[q] for q in query_ids]
    merged[:, old], merged_covered[:, old] = values, covered
    new = [position[q] for q in other_ids]
    merged[rows, :], merged_covered[rows, :] = np.nan, False
    merged[np.ix_(rows, new)], merged_covered[np.ix_(rows, new)] = other_values, True
    return merged, merged_covered, union
