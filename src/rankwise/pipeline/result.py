"""Report: the result of an evaluation — per-query values over the union of the query groups, aggregates, and an
account of every query left out or treated specially."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.aligned import QueryAccounting
from ..errors import RankwiseError
from ..io.subtopics import SubtopicJudgments
from ..io.table import QID, VALUE, Table
from ..kernels import ROWS_PER_QUERY
from ..kernels.beyond import item_counts
from ..kernels.intent import INTENT_KERNELS
from ..measures import Measure
from ..policies import Policies
from ..wording import counted
from .compute import GroupValues, resolved_rel
from .groups import QueryGroups, read_groups, training_pairs
from .load import Inputs
from .plan import Plan

if TYPE_CHECKING:
    import pandas as pd


ITEM_GROUPS = "item groups"
"""The ``over`` of a global measure over item groups (RSP, REO): ``catalogue`` is the number of groups."""


@dataclass(frozen=True)
class GlobalAccount:
    """What the one value of a global measure (Coverage, Gini, Entropy) was computed over: the top-k lists of
    ``users`` users (the query set ``queries``), holding ``items`` distinct items (those counted: Coverage with
    count=known counts only the items it divides by), and ``catalogue`` — the number it divides by or spreads over
    (``over``: ``"training items"`` or ``"catalogue"``), None when the measure has none (Entropy,
    Coverage(over=count))."""

    users: int
    items: int
    catalogue: int | None
    over: str | None
    queries: str

    def describe(self, key: str, measure: Measure) -> str:
        """One note line: ``Coverage@10: global, one value over the top-10 lists of 943 users (queries=run): 805
        distinct items of 1616 training items; no per-query value``."""
        lists = f"top-{measure.cutoff:g} lists" if measure.cutoff is not None else "lists"
        if self.over == ITEM_GROUPS:
            return (f"{key}: global, one value over the {lists} of {counted(self.users, 'user', 'users')} "
                    f"(queries={self.queries}) and {counted(self.catalogue or 0, 'item group', 'item groups')}; no "
                    "per-query value (left out of per-query output)")  # fmt: skip
        of = f" of {self.catalogue} {self.over}" if self.catalogue is not None and self.over == "training items" else (
            f" of a catalogue of {self.catalogue} items" if self.catalogue is not None else "")  # fmt: skip
        return (f"{key}: global, one value over the {lists} of {counted(self.users, 'user', 'users')} "
                f"(queries={self.queries}): {counted(self.items, 'distinct item', 'distinct items')}{of}; "
                "no per-query value (left out of per-query output)")  # fmt: skip

    def record(self) -> dict[str, int | str | None]:
        """As plain data (``--format json``'s ``global``)."""
        return {"users": self.users, "items": self.items, "catalogue": self.catalogue, "over": self.over,
                "queries": self.queries}  # fmt: skip


@dataclass(frozen=True)
class EvaluationResult:
    """Aggregate and per-query values of one evaluation, with an account of every query.

    ``values[i, j]`` is measure ``keys[i]`` on query ``query_ids[j]`` (NaN where undefined). A global measure
    (Coverage, Gini, Entropy: :attr:`global_keys`) has one value, in ``aggregate`` only: its row of ``values`` is NaN
    throughout and :attr:`per_query`, :meth:`to_polars` and every per-query output leave it out; ``globals`` says what
    it was computed over. ``evaluated[key]`` is the number of queries a measure was computed over (its query set: a
    dialect may average some measures over other queries, ``query_sets[key]``); ``query_ids`` is their union.
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
    evaluated: Mapping[str, int] = field(default_factory=dict)
    query_sets: Mapping[str, str] = field(default_factory=dict)
    globals: Mapping[str, GlobalAccount] = field(default_factory=dict)
    group_accounting: tuple[tuple[tuple[str, ...], QueryAccounting], ...] = ()
    """Per query set other than the evaluation's own (a dialect's, as MS Recommenders' nDCG over queries=relevant):
    its measures and the account of its queries."""
    groups: QueryGroups | None = None
    """The user (query) group of each evaluated query (``groups=`` of :func:`rankwise.evaluate`, or
    :meth:`with_groups`); :func:`rankwise.group_table` splits the per-query values by it."""

    @property
    def global_keys(self) -> tuple[str, ...]:
        """The keys of the global measures: one value each, in ``aggregate`` only."""
        return tuple(key for key, m in zip(self.keys, self.measures) if m.aggregation == "global")

    @property
    def per_query_rows(self) -> tuple[int, ...]:
        """Rows of ``values`` that have per-query values (every measure but the global ones)."""
        return tuple(i for i, m in enumerate(self.measures) if m.aggregation != "global")

    @property
    def per_query(self) -> dict[str, dict[str, float]]:
        """``{query_id: {key: value}}``; global measures (:attr:`global_keys`) have no per-query value and are left
        out."""
        rows = [(i, self.keys[i]) for i in self.per_query_rows]
        return {qid: {key: float(self.values[i, j]) for i, key in rows} for j, qid in enumerate(self.query_ids)}

    def to_polars(self) -> pl.DataFrame:
        """Long table of per-query values: columns query_id, measure, value (global measures left out: their one
        value is in ``aggregate``)."""
        nq = len(self.query_ids)
        rows = list(self.per_query_rows)
        keys = [self.keys[i] for i in rows]
        return pl.DataFrame(
            {
                "query_id": pl.Series(list(self.query_ids) * len(keys), dtype=pl.String),
                "measure": pl.Series(np.repeat(np.array(keys, dtype=object), nq).tolist(), dtype=pl.String),
                "value": pl.Series(self.values[rows].reshape(-1), dtype=pl.Float64),
            }
        )

    def query_count(self, key: str) -> int:
        """The number of queries measure ``key`` was computed over (its query set's evaluated queries)."""
        return self.evaluated.get(key, len(self.query_ids))

    def counts_line(self) -> str:
        """How many queries the measures were computed over: ``"290 queries"`` when every measure has the same,
        else per measure (``"nDCG@10 over 290 queries; Coverage@10, Novelty@10 over 943 queries"``)."""
        by_count: dict[int, list[str]] = {}
        for key in self.keys:
            by_count.setdefault(self.query_count(key), []).append(key)
        if len(by_count) <= 1:
            n = next(iter(by_count), len(self.query_ids))
            return counted(n, "query", "queries")
        return "; ".join(f"{', '.join(keys)} over {counted(n, 'query', 'queries')}" for n, keys in by_count.items())

    def to_pandas(self) -> pd.DataFrame:
        """Long table of per-query values as pandas (needs pandas and pyarrow)."""
        return to_pandas(self.to_polars())

    def notes(self) -> list[str]:
        """One line for every query or document left out of, or treated specially in, the averages; when measures
        were computed over different query sets, each set's account names its measures."""
        main_keys, others = self._main_keys()
        lines = _query_lines(self.accounting, main_keys, others)
        for keys, accounting in self.group_accounting:
            lines += _query_lines(accounting, [k for k in keys if k in self.keys], True)
        acc = self.accounting
        if acc.removed_unjudged:
            lines.append(f"{counted(acc.removed_unjudged, 'unjudged ranked document', 'unjudged ranked documents')} "
                         f"{'was' if acc.removed_unjudged == 1 else 'were'} removed before scoring (judged_only)")
        if acc.truncated_rows:
            lines.append(f"{counted(acc.truncated_rows, 'ranked document', 'ranked documents')} beyond depth "
                         f"{self.policies.depth} {'was' if acc.truncated_rows == 1 else 'were'} ignored")  # fmt: skip
        lines.extend(self.caveats)
        lines.extend(self.groups.notes if self.groups is not None else ())
        for key, count in self.undefined.items():
            if count:
                lines.append(f"{key}: undefined for {count} of {counted(self.query_count(key), 'query', 'queries')}, "
                             "left out of its mean")  # fmt: skip
        lines.extend(self.globals[key].describe(key, m) for key, m in zip(self.keys, self.measures)
                     if key in self.globals)  # fmt: skip
        return lines

    def with_groups(self, groups: Any, train: Any = None) -> EvaluationResult:
        """This result with its queries labelled by ``groups`` (:func:`rankwise.pipeline.groups.read_groups`:
        ``{query_id: label}``, a table, ``"FILE:COLUMN"``, ``"activity"``; ``train``: the training interactions
        activity counts): what :func:`rankwise.evaluate` does with ``groups=``, for a result from another path
        (``rankwise.spark.evaluate``). None leaves the result as it is."""
        if groups is None:
            return self
        return dataclasses.replace(self, groups=read_groups(groups, training_pairs(train)).assign(self.query_ids))

    def _main_keys(self) -> tuple[list[str], bool]:
        """The measures of the evaluation's own query set (what ``accounting`` is about), and whether any measure
        was computed over another query set (a dialect's own, as MS Recommenders' nDCG over queries=relevant)."""
        main = self.policies.queries.value
        keys = [key for key in self.keys if self.query_sets.get(key, main) == main]
        return keys, len(keys) < len(self.keys)


def _query_lines(acc: QueryAccounting, keys: list[str], prefixed: bool) -> list[str]:
    """The account of one query set's queries, prefixed with its measures' keys when measures were computed over
    several sets (nothing for a set without a measure: a dialect may leave the evaluation's own set empty)."""
    if not keys:
        return []
    prefix = f"{', '.join(keys)}: " if prefixed else ""
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
    return [
        f"{prefix}{counted(len(ids), *nouns)} {what.format(was='was' if len(ids) == 1 else 'were')}: {_sample(ids)}"
        for ids, nouns, what in query_groups
        if ids
    ]


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
    evaluated = {plan.pairs[i][0]: len(part.query_ids) for part in parts for i in part.group.rows}
    query_sets = {plan.pairs[i][0]: part.group.policies.queries.value for part in parts for i in part.group.rows}
    accounts = {plan.pairs[i][0]: global_account(m, inputs_, len(part.query_ids), part.group.policies.queries.value)
                for part in parts for i, m, inputs_ in zip(part.group.rows, part.measures, part.inputs)
                if m.aggregation == "global"}  # fmt: skip
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
        evaluated=evaluated,
        query_sets=query_sets,
        globals={key: accounts[key] for key, _ in plan.pairs if key in accounts},
        group_accounting=tuple((tuple(plan.pairs[i][0] for i in part.group.rows), part.accounting)
                               for part in parts[1:]),
    )  # fmt: skip


def global_account(measure: Measure, inputs: Mapping[str, np.ndarray], users: int, queries: str) -> GlobalAccount:
    """What a global measure's value was computed over, from its aggregation inputs
    (:func:`rankwise.kernels.beyond.global_inputs`: the key of every counted row, and the size it divides by; RSP
    and REO: per query and item group a rate's numerator and denominator,
    :func:`rankwise.kernels.fairness.group_rate_inputs`; ItemMAD: :func:`rankwise.kernels.fairness.item_mad_inputs`)."""
    if "mad_groups" in inputs:  # ItemMAD: the number of item groups with each counted row
        groups = inputs["mad_groups"]
        return GlobalAccount(users, 0, int(groups[0]) if len(groups) else 0, ITEM_GROUPS, queries)
    if "items" not in inputs:
        per_query = inputs[ROWS_PER_QUERY]
        return GlobalAccount(users, 0, int(per_query[0]) if len(per_query) else 0, ITEM_GROUPS, queries)
    items = len(item_counts(inputs["items"])) if len(inputs["items"]) else 0
    size = int(inputs["size"][0]) if len(inputs["size"]) else 0
    over: str | None = None
    if measure.name == "Gini" or (measure.name == "Coverage" and measure.get("over") == "catalog"):
        over = "catalogue"
    elif measure.name == "Coverage" and measure.get("over") == "train":
        over = "training items"
    return GlobalAccount(users, items, size if over is not None and len(inputs["size"]) else None, over, queries)


RATING_LIKE_MAX = 10
"""Integer grades from 1 up to at most this, none below 1, look like ratings (1–5 stars, 1–10 scores)."""


def rating_notes(plan: Plan, qrels: Table, evaluated: list[str] | tuple[str, ...]) -> list[str]:
    """What a recommender user reading ratings needs to hear.

    With a threshold: evaluated users none of whose ratings reach it (nothing relevant: they score 0 on most
    measures, and would be left out by a dialect that averages over users with a relevant item). Without one:
    grades that look like ratings (all between 1 and 10, top grade 4 or more) while every grade is at or above the
    relevance level, so every rated item counts as relevant."""
    if qrels.height == 0:
        return []
    level = plan.policies.rel_level
    if plan.threshold is None:
        grades = qrels.values()
        low, high = grades.min().item(), grades.max().item()
        if not (level <= low and low >= 1 and 4 <= high <= RATING_LIKE_MAX):
            return []
        return [
            f"{qrels.origin.name}: grades run from {low} to {high} with none below {level}, so every judged item "
            "counts as relevant; if these are ratings, give a threshold (--threshold 4 / threshold=4: rating >= 4 "
            "is relevant)"
        ]
    best = qrels.frame.group_by(QID).agg(pl.col(VALUE).max()).filter(pl.col(VALUE) < level)
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
