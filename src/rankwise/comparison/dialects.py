"""See the spread: one run evaluated under every dialect, equal results grouped, each group with its reason."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from ..dialects import DIALECTS, Dialect
from ..errors import InputError, MeasureError, RankwiseError
from ..io import load_qrels, load_run
from ..io.interactions import read_interactions
from ..io.table import Table
from ..measures import Measure
from ..pipeline.evaluate import evaluate_with
from ..pipeline.options import EvaluationOptions
from ..pipeline.plan import MeasureLike, choose_dialect, rating_threshold, resolve_measures
from ..pipeline.result import to_pandas
from ..policies import Policies

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class DialectRow:
    """One dialect's aggregates and why they differ from trec_eval's."""

    dialect: str
    values: dict[str, float]
    reasons: tuple[str, ...]
    group: int


@dataclass(frozen=True)
class DialectComparison:
    """Rows in catalog order; ``group`` numbers rows whose values are all equal (to 1e-12)."""

    keys: tuple[str, ...]
    rows: tuple[DialectRow, ...]

    def to_polars(self) -> pl.DataFrame:
        """Long table, one row per (dialect, measure): columns dialect, group, measure, value (NaN where the
        dialect does not define the measure) and why (what the dialect changes relative to trec_eval, ``; ``
        between reasons)."""
        n = len(self.keys)
        return pl.DataFrame(
            {
                "dialect": [row.dialect for row in self.rows for _ in range(n)],
                "group": [row.group for row in self.rows for _ in range(n)],
                "measure": list(self.keys) * len(self.rows),
                "value": [row.values[key] for row in self.rows for key in self.keys],
                "why": ["; ".join(row.reasons) for row in self.rows for _ in range(n)],
            },
            schema={"dialect": pl.String, "group": pl.Int64, "measure": pl.String, "value": pl.Float64,
                    "why": pl.String},
        )  # fmt: skip

    def to_pandas(self) -> pd.DataFrame:
        """:meth:`to_polars` as pandas (needs pandas and pyarrow)."""
        return to_pandas(self.to_polars())


def differences(dialect: Dialect, measures: Iterable[MeasureLike], rel_level: int = 1) -> tuple[str, ...]:
    """What ``dialect`` changes relative to trec_eval for these measures, in words, from its binding data."""
    reasons = []
    for _, measure in resolve_measures(list(measures)):
        bound = dialect.bind(measure, rel_level)
        for name, value in bound.params:
            if any(name == k for k, _ in measure.params):
                continue
            param = bound.spec.param(name)
            if value == (rel_level if param.default is None else param.default):
                continue
            meaning = param.choices.get(str(value), "").split(" (")[0] if isinstance(value, str) else ""
            reasons.append(f"{measure.name}: {name}={param.format(value)}" + (f" ({meaning})" if meaning else ""))
    defaults = Policies()
    for name, value in dialect.policies.items():
        if getattr(defaults, name).value != value:
            reasons.append(f"{name}={value}")
    return tuple(dict.fromkeys(reasons))


def _same(a: dict[str, float], b: dict[str, float]) -> bool:
    return all((math.isnan(a[k]) and math.isnan(b[k])) or math.isclose(a[k], b[k], rel_tol=0, abs_tol=1e-12) for k in a)


def compare_dialects(
    qrels: Any,
    run: Any,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    dialects: Iterable[str | Dialect] | None = None,
    rel_level: int = 1,
    cutoffs: Iterable[int] | None = None,
    threshold: float | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    train: Any = None,
    catalog: int | Iterable[str] | None = None,
) -> DialectComparison:
    """Evaluate once per dialect (inputs read once) and group dialects that report the same numbers.

    Each row carries the reasons its dialect differs from trec_eval (``AP: denom=min_k_R (...)``).
    """
    options = EvaluationOptions.from_arguments(locals())
    chosen = [d for d in (choose_dialect(d)[0] for d in dialects) if d is not None] if dialects is not None else \
        list(DIALECTS)  # fmt: skip
    if not chosen:
        raise RankwiseError("dialects must name at least one dialect, e.g. ['trec_eval', 'ranx']")
    measure_list = [measures] if isinstance(measures, (str, Measure)) else list(measures)
    run_table = load_run(run, options.run_columns)
    tables: dict[float | None, Table] = {}  # one qrels table per way of reading ratings (binary, or graded for Elliot)
    train_pairs = read_interactions(options.train) if options.train is not None else None
    keys = [key for key, _ in resolve_measures(measure_list, options.cutoffs)]
    groups: list[dict[str, float]] = []
    rows = []
    for dialect in chosen:
        values: dict[str, float] = dict.fromkeys(keys, math.nan)
        undefined: list[str] = []
        try:
            read_with, level = rating_threshold(dialect, options.threshold, options.rel_level)
            if read_with not in tables:
                tables[read_with] = load_qrels(qrels, options.qrels_columns, read_with)
        except InputError as exc:  # e.g. Elliot's graded ratings with a fractional threshold
            undefined.append(f"not computed: {exc}")
            keys_here: list[str] = []
        else:
            keys_here = keys
        for key in keys_here:  # one measure at a time: a dialect may not define every measure
            try:  # inputs read above (the qrels with the threshold), the cutoffs in the keys
                result = evaluate_with(tables[read_with], run_table, [key], EvaluationOptions(
                    dialect=dialect, rel_level=level, train=train_pairs, catalog=options.catalog))  # fmt: skip
                values[key] = result.aggregate[key]
            except MeasureError as exc:
                undefined.append(f"{key}: not defined here ({exc})")
        group = next((i for i, seen in enumerate(groups) if _same(seen, values)), None)
        if group is None:
            groups.append(values)
            group = len(groups) - 1
        reasons = (*differences(dialect, measure_list, options.rel_level), *undefined)
        rows.append(DialectRow(dialect.key, values, reasons, group + 1))
    return DialectComparison(tuple(keys), tuple(rows))
