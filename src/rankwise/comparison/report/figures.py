"""The numbers behind the report's plots that need more evaluation than the comparison made: measure@k for
k = 1..K, interpolated precision at 11 recall levels, and one measure under every dialect."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass

import numpy as np

from ...errors import RankwiseError
from ...limits import MAX_CURVE_K, at_most
from ...measures import Measure
from ..dialects import compare_dialects
from ..systems import Comparison

RECALL_LEVELS = tuple(round(0.1 * i, 1) for i in range(11))
DEFAULT_MAX_K = 20


@dataclass(frozen=True)
class Curves:
    """``values[s, j]``: system ``s`` at ``x[j]``, one array per named curve (``nDCG``, ``P``, ...)."""

    x: tuple[float, ...]
    values: dict[str, np.ndarray]


def cutoff_curves(comparison: Comparison, max_k: int | None = None) -> Curves:
    """Each compared measure that takes a rank cutoff, at k = 1..K (K: ``max_k``, else the largest cutoff among
    the measures, else 20; at most :data:`~rankwise.limits.MAX_CURVE_K`), as the mean over queries of
    every system (one evaluation per system)."""
    families: dict[str, Measure] = {}
    for measure in comparison.measures:
        if measure.spec.cutoff == "rank":
            label = str(measure).rsplit("@", 1)[0] if measure.cutoff is not None else str(measure)
            families.setdefault(label, measure)
    if not families:
        return Curves((), {})
    cutoffs = [m.cutoff for m in comparison.measures if isinstance(m.cutoff, int)]
    if max_k is not None:
        at_most(max_k, MAX_CURVE_K, "the largest k of the measure@k curves")
    k_max = min(max_k or max(cutoffs, default=DEFAULT_MAX_K), MAX_CURVE_K)
    ks = list(range(1, k_max + 1))
    names = {label: [str(dataclasses.replace(m, cutoff=k)) for k in ks] for label, m in families.items()}
    results = comparison.evaluate_more([key for keys in names.values() for key in keys])
    values = {label: np.array([[r.aggregate[key] for key in keys] for r in results]) for label, keys in names.items()}
    return Curves(tuple(float(k) for k in ks), values)


def precision_recall(comparison: Comparison) -> Curves:
    """Interpolated precision (``IPrec@x``, trec_eval's 11 points) at recall 0, 0.1, ..., 1, mean over queries."""
    keys = [f"IPrec@{x:.1f}" for x in RECALL_LEVELS]
    results = comparison.evaluate_more(keys)
    return Curves(RECALL_LEVELS, {"interpolated precision": np.array([[r.aggregate[k] for k in keys]
                                                                      for r in results])})  # fmt: skip


@dataclass(frozen=True)
class Spread:
    """``values[s]``: ``{dialect: mean}`` of ``measure`` for system ``s``."""

    measure: str
    values: tuple[dict[str, float], ...]


def dialect_spread(comparison: Comparison, measure: str) -> Spread:
    """``measure`` of every system under every dialect (:func:`rankwise.compare_dialects`)."""
    if comparison.sources is None:
        raise RankwiseError("this comparison keeps no inputs to evaluate under other dialects")
    accepted = inspect.signature(compare_dialects).parameters
    options = {k: v for k, v in comparison.sources.options.items() if k in accepted and k != "dialects"}
    per_system = []
    for run in comparison.sources.runs:
        table = compare_dialects(comparison.sources.qrels, run, [measure], **options)
        key = table.keys[0]
        per_system.append({row.dialect: row.values[key] for row in table.rows})
    return Spread(measure, tuple(per_system))


__all__ = ["RECALL_LEVELS", "Curves", "Spread", "cutoff_curves", "dialect_spread", "precision_recall"]
