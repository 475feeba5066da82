"""Report: the result of an evaluation — per-query values over the union of the query groups, aggregates, and an
account of every query left out or treated specially."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ..aligned import QueryAccounting
from ..measures import Measure
from ..policies import Policies
from .compute import GroupValues
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
        return self.to_polars().to_pandas()

    def notes(self) -> list[str]:
        """One line for every query or document left out of, or treated specially in, the averages."""
        acc = self.accounting
        query_groups = (
            (acc.run_only, "run queries have no judgments and were not evaluated"),
            (acc.qrels_only, "judged queries are missing from the run and were not evaluated "
                             "(queries='qrels' / -c scores them 0)"),
            (acc.scored_empty, "judged queries missing from the run were scored as empty rankings"),
            (acc.unjudged_evaluated, "run queries without judgments were scored with no relevant documents"),
            (acc.no_relevant, "judged queries have no relevant document and were not evaluated"),
        )  # fmt: skip
        lines = [f"{len(ids)} {what}: {_sample(ids)}" for ids, what in query_groups if ids]
        if acc.truncated_rows:
            lines.append(f"{acc.truncated_rows} ranked documents beyond depth {self.policies.depth} were ignored")
        lines.extend(self.caveats)
        for key, count in self.undefined.items():
            if count:
                lines.append(f"{key}: undefined for {count} of {len(self.query_ids)} queries, "
                             "left out of its mean")  # fmt: skip
        return lines


def _sample(ids: tuple[str, ...], shown: int = 5) -> str:
    """The first few ids, and how many more there are."""
    text = ", ".join(ids[:shown])
    return text + (f", … ({len(ids) - shown} more)" if len(ids) > shown else "")


def assemble(plan: Plan, inputs: Inputs, parts: list[GroupValues]) -> EvaluationResult:
    """One result from the query groups' values: the evaluation's own group first, others merged in over the union
    of query ids; a measure's undefined values are counted only over the queries its group evaluated."""
    main = parts[0]
    values = np.full((len(plan.pairs), main.aligned.num_queries), np.nan)
    values[list(main.group.rows)] = main.values
    covered = np.zeros(values.shape, dtype=bool)
    covered[list(main.group.rows)] = True
    query_ids = list(main.aligned.query_ids)
    aggregates: dict[str, float] = {}
    for part in parts:
        aggregates.update((plan.pairs[i][0], v) for i, v in zip(part.group.rows, part.aggregates))
        if part is not main:
            values, covered, query_ids = _merge_queries(values, covered, query_ids, list(part.group.rows),
                                                        part.values, list(part.aligned.query_ids))  # fmt: skip
    undefined = {key: int(np.isnan(values[i][covered[i]]).sum()) for i, (key, _) in enumerate(plan.pairs)}
    return EvaluationResult(
        keys=tuple(k for k, _ in plan.pairs),
        measures=tuple(m for _, m in plan.pairs),
        query_ids=tuple(query_ids),
        values=values,
        aggregate={key: aggregates[key] for key, _ in plan.pairs},
        undefined=undefined,
        accounting=main.aligned.accounting,
        policies=plan.policies,
        run_name=inputs.run.run_name,
        dialect=plan.dialect.key if plan.dialect else None,
        caveats=(*plan.notes, *inputs.notes, *(c for part in parts for c in part.caveats)),
    )


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
