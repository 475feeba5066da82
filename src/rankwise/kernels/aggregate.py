"""Aggregation: from the per-query values of a measure to its one number over the queries.

Most measures combine their per-query values (a mean, a sum, a geometric mean: :func:`aggregate`). Some need more
of each query than its value (:attr:`Measure.aggregation`): weights, the P and R an F-measure combines, per-row
arrays for a pooled AUC, item keys for a global beyond-accuracy measure, curves. :func:`aggregation_inputs` gathers
these :data:`AggregationInputs` from the measure's family module, :func:`aggregate_from` combines them with it; the
inputs of consecutive query ranges concatenate (:func:`concatenate_inputs`), so a partitioned evaluation aggregates
exactly as the whole.

This module sits above the family modules: it imports the few family functions these aggregations need
(:mod:`.precision`, :mod:`.pairwise`, :mod:`.beyond`, :mod:`.fairness`) and no family imports it.
"""

from __future__ import annotations

import numpy as np

from ..engine.aligned import Aligned
from ..errors import MeasureError
from ..measures.spec import Measure
from .beyond import global_aggregate, global_inputs
from .common import list_length
from .fairness import (
    GROUP_RATES,
    ITEM_MAD,
    group_rate_aggregate,
    group_rate_inputs,
    item_mad_aggregate,
    item_mad_inputs,
)
from .pairwise import auc_positives, pooled_auc, pooled_auc_inputs
from .precision import f1_parts, f_beta, precision_recall_curves, recall_at_precision_of_curves

MIN_GEO_MEAN = 1e-5
"""trec_eval's floor for values entering a geometric mean."""


ROWS_PER_QUERY = "rows_per_query"
"""Key of the pooled AUC's inputs giving, per query, its number of per-row entries: every other key but ``values``
holds one entry per row, query after query (in layout order), so the rows of queries computed apart can be put
back in query order."""


AggregationInputs = dict[str, np.ndarray]
"""What a measure's aggregate is computed from, for one set of queries: ``values`` (per query) and, per
:attr:`Measure.aggregation`, per-query weights or P and R, or per-row arrays in layout order (pooled AUC). The
inputs of consecutive query ranges concatenate (:func:`concatenate_inputs`) into those of their union, so an
evaluation split into query partitions aggregates exactly as the whole."""


def aggregation_inputs(a: Aligned, m: Measure, rel: int, values: np.ndarray) -> AggregationInputs:
    """The :data:`AggregationInputs` of measure ``m`` over the queries of ``a``."""
    how = m.aggregation
    if how == "pooled":
        per_row, per_query = pooled_auc_inputs(a, m, rel)
        return {"values": values, **per_row, ROWS_PER_QUERY: per_query}
    if how == "from_means":
        p, r = f1_parts(a, m, rel)
        return {"values": values, "p": p, "r": r}
    if how == "global" and m.name in GROUP_RATES:  # per query and item group N_ug and D_ug (fairness)
        numerator, denominator, per_query = group_rate_inputs(a, m, rel)
        return {"values": values, "num": numerator, "den": denominator, ROWS_PER_QUERY: per_query}
    if how == "global" and m.name in ITEM_MAD:  # per counted row its item's key, group and gain (fairness)
        per_row, per_query = item_mad_inputs(a, m, rel)
        return {"values": values, **per_row, ROWS_PER_QUERY: per_query}
    if how == "global":  # a key per counted row, with the catalogue size (see beyond.global_inputs)
        items, sizes, per_query, weight = global_inputs(a, m)
        weighted = {} if weight is None else {"weight": weight}  # per row only where rows weigh differently
        return {"values": values, "items": items, "size": sizes, ROWS_PER_QUERY: per_query, **weighted}
    if how == "rows":  # SelfInformation(mean=rows): each list's mean weighted by its length
        return {"values": values, "weights": list_length(a, m)}
    if how == "curve":  # RecallAtPrecision(mean=curve): k entries per query
        precision, recall = precision_recall_curves(a, m, rel)
        return {"values": values, "curve_p": precision, "curve_r": recall,
                ROWS_PER_QUERY: np.full(a.num_queries, int(m.cutoff))}  # type: ignore[arg-type]  # fmt: skip
    if how == "positives":
        return {"values": values, "weights": auc_positives(a, m, rel)}
    return {"values": values}


def concatenate_inputs(parts: list[AggregationInputs], joined: dict | None = None) -> AggregationInputs:
    """The inputs of consecutive query ranges joined, in order. ``joined`` (shared by the calls for the measures of
    one evaluation) keeps what was joined: arrays the ranges share between measures (the items of the global
    measures at one cutoff) are joined once, and stay one array."""
    joined = {} if joined is None else joined
    out = {}
    for key in parts[0]:
        arrays = [part[key] for part in parts]
        ids = tuple(id(array) for array in arrays)
        if ids not in joined:
            joined[ids] = (arrays, np.concatenate(arrays))  # the arrays kept: their ids stay theirs
        out[key] = joined[ids][1]
    return out


def aggregate_measure(a: Aligned, m: Measure, rel: int, values: np.ndarray) -> float:
    """The aggregate of one measure over the queries of ``a`` (see :func:`aggregate_from`)."""
    return aggregate_from(m, aggregation_inputs(a, m, rel, values))


def aggregate_from(m: Measure, inputs: AggregationInputs) -> float:
    """The aggregate of one measure, per :attr:`Measure.aggregation`: a mean, sum or geometric mean of the
    per-query values v_q; ``positives``: Σ n⁺_q v_q / Σ n⁺_q over defined queries, n⁺_q the relevant documents a
    query's AUC counted; ``pooled``: one value from all rows at once (:func:`rankwise.kernels.pairwise.pooled_auc`);
    ``from_means``: F_β of the mean P and the mean R over the queries with a defined value (DL-RS-Eval); ``curve``:
    the largest mean R@j whose mean P@j reaches min_precision (torchmetrics); ``global``: one value from the items of
    all lists (:func:`rankwise.kernels.beyond.global_aggregate`; RSP and REO from the groups' rates,
    :func:`rankwise.kernels.fairness.group_rate_aggregate`; ItemMAD from the items' mean gains,
    :func:`rankwise.kernels.fairness.item_mad_aggregate`)."""
    how, values = m.aggregation, inputs["values"]
    if how == "pooled":
        return pooled_auc(m, inputs)
    if how == "global" and m.name in GROUP_RATES:
        return group_rate_aggregate(m, inputs, inputs[ROWS_PER_QUERY])
    if how == "global" and m.name in ITEM_MAD:
        return item_mad_aggregate(inputs)
    if how == "global":
        return global_aggregate(m, inputs)
    if how == "curve":
        return recall_at_precision_of_curves(m, inputs)
    if how == "from_means":
        defined = ~np.isnan(values)
        beta = float(m.get("beta"))  # type: ignore[arg-type]
        mean_p, mean_r = _mean(inputs["p"][defined]), _mean(inputs["r"][defined])
        return float(f_beta(np.array([mean_p]), np.array([mean_r]), beta)[0])
    if how in ("positives", "rows"):
        weights = inputs["weights"]
        defined = ~np.isnan(values) & (weights > 0)
        total = weights[defined].sum()
        return float((values[defined] * weights[defined]).sum() / total) if total else float("nan")
    return aggregate(values, how)


def aggregate(values: np.ndarray, how: str) -> float:
    """Combine per-query values: ``mean`` (NaN left out), ``sum``, or ``gmean`` (floor 1e-5, trec_eval)."""
    defined = values[~np.isnan(values)]
    if how == "sum":
        return float(defined.sum())
    if not len(defined):
        return float("nan")
    if how == "gmean":
        return float(np.exp(np.mean(np.log(np.maximum(defined, MIN_GEO_MEAN)))))
    if how != "mean":
        raise MeasureError(f"no aggregation {how!r} (implemented: mean, sum, gmean, positives, pooled, from_means)")
    return _mean(defined)


def _mean(values: np.ndarray) -> float:
    """The arithmetic mean; when the plain sum would overflow (values near the float64 maximum, e.g. DCG with
    huge gains), the mean of the values scaled by the largest magnitude, scaled back: finite for finite input."""
    with np.errstate(over="ignore"):
        mean = values.mean()
    if np.isfinite(mean) or not np.isfinite(values).all():
        return float(mean)
    scale = float(np.abs(values).max())
    return float((values / scale).mean() * scale)
