"""See the spread: one run evaluated under every dialect, equal results grouped, each group with its reason."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..evaluate import MeasureLike, evaluate
from ..io import load_qrels, load_run
from ..policies import Policies
from .catalog import DIALECTS
from .spec import Dialect


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


def differences(dialect: Dialect, measures: Iterable[MeasureLike], rel_level: int = 1) -> tuple[str, ...]:
    """What ``dialect`` changes relative to trec_eval for these measures, in words, from its binding data."""
    from ..evaluate import resolve_measures

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
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> DialectComparison:
    """Evaluate once per dialect (inputs read once) and group dialects that report the same numbers.

    Each row carries the reasons its dialect differs from trec_eval (``AP: denom=min_k_R (...)``).
    """
    from . import get_dialect

    chosen = [get_dialect(d) if isinstance(d, str) else d for d in dialects] if dialects else list(DIALECTS)
    measure_list = [measures] if isinstance(measures, str) else list(measures)
    qrels_table, run_table = load_qrels(qrels, qrels_columns), load_run(run, run_columns)
    results = []
    for dialect in chosen:
        result = evaluate(qrels_table, run_table, measure_list, dialect=dialect, rel_level=rel_level)
        results.append((dialect, result))
    groups: list[dict[str, float]] = []
    rows = []
    for dialect, result in results:
        group = next((i for i, values in enumerate(groups) if _same(values, result.aggregate)), None)
        if group is None:
            groups.append(result.aggregate)
            group = len(groups) - 1
        reasons = differences(dialect, measure_list, rel_level)
        rows.append(DialectRow(dialect.key, dict(result.aggregate), reasons, group + 1))
    keys = results[0][1].keys if results else ()
    return DialectComparison(tuple(keys), tuple(rows))
