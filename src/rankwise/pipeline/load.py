"""Load: qrels, run and training interactions into validated tables, as the plan's dialect reads them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..dialects import Dialect
from ..engine.similarity import feature_frame
from ..errors import EmptyInputError
from ..io import load_qrels, load_run
from ..io.interactions import read_interactions
from ..io.subtopics import SubtopicJudgments
from ..io.table import Kind, Origin, Table, empty_table
from .groups import GroupSource, read_item_groups
from .plan import Plan


@dataclass(frozen=True)
class Inputs:
    """The loaded inputs of one evaluation."""

    qrels: Table
    run: Table
    train: pl.DataFrame | None = None
    subtopics: SubtopicJudgments | None = None
    features: pl.DataFrame | None = None
    baseline: Table | None = None
    item_groups: GroupSource | None = None
    samples: Inputs | None = None
    """Sampled rankings (:mod:`rankwise.pipeline.samples`): every (query, sample) a query of its own, with the
    query's judgments; ``run`` then holds each query's documents over its samples, once each."""

    @property
    def notes(self) -> tuple[str, ...]:
        """What reading the files noticed (run words after the tag, empty input read as data)."""
        return (*self.qrels.notes, *self.run.notes, *(self.subtopics.notes if self.subtopics is not None else ()))


def load_inputs(
    plan: Plan,
    qrels: Any,
    run: Any,
    *,
    train: Any = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    subtopics: SubtopicJudgments | None = None,
    features: Any = None,
    baseline: Any = None,
    item_groups: Any = None,
) -> Inputs:
    """Read every input once (see :func:`rankwise.io.load`); training interactions, item features, a baseline
    run and item groups (:func:`rankwise.pipeline.groups.read_item_groups`) only when given; ``subtopics``:
    subtopic judgments already read (:func:`rankwise.io.subtopics.load_subtopic_qrels`)."""
    inputs = Inputs(
        load_or_empty(
            plan.dialect, "qrels", lambda: load_qrels(qrels, qrels_columns, plan.threshold, grades=plan.grades)
        ),
        load_or_empty(plan.dialect, "run", lambda: load_run(run, run_columns)),
        read_interactions(train) if train is not None else None,
        subtopics,
        *load_side_inputs(features, baseline),
    )
    return inputs if item_groups is None else replace(inputs, item_groups=read_item_groups(item_groups, inputs.train))


def load_side_inputs(features: Any, baseline: Any) -> tuple[pl.DataFrame | None, Table | None]:
    """Item features as a table and a baseline's lists as a run table (each None when not given): read once, before
    any query range, so that a bad file is named first."""
    return (feature_frame(features) if features is not None else None,
            load_run(baseline) if baseline is not None else None)  # fmt: skip


def load_or_empty(dialect: Dialect | None, kind: Kind, read: Callable[[], Table]) -> Table:
    """``read()``, or under a dialect that reads empty input as data, an empty table with a note saying so."""
    try:
        return read()
    except EmptyInputError as exc:
        if dialect is None or dialect.empty_input != "data":
            raise
        what = ("every judged query is scored as an empty ranking" if kind == "run"
                else "no query is evaluated and every mean is undefined")  # fmt: skip
        return empty_table(kind, Origin(kind), f"{kind} has no rows ({exc}): under {dialect.key} {what}")
