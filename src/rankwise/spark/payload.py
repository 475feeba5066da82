"""What an executor sends back for one chunk of queries: named arrays (numbers, booleans or text) packed into one
Arrow IPC message, a single ``binary`` value of the Spark result; and the query groups' values
(:class:`rankwise.pipeline.compute.GroupValues`) as such arrays.

Each array becomes one list column of a one-row record batch, so dtypes travel exactly (float64 stays float64 bit
for bit, booleans stay booleans) and nothing is pickled. A measure's aggregation input ``values`` (its per-query
values, see :func:`rankwise.kernels.aggregate.aggregation_inputs`) is not sent twice: it is a row of the group's values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from ..engine.aligned import QueryAccounting
from ..pipeline.compute import GroupValues
from ..pipeline.plan import Plan

Array = np.ndarray | Sequence[str]
"""A numpy array (one dimension), or text as a list of strings."""


def pack(arrays: Mapping[str, Array]) -> bytes:
    """``arrays`` as one Arrow IPC stream (see module docstring)."""
    columns = []
    for values in arrays.values():
        child = pa.array(values, type=pa.string()) if not isinstance(values, np.ndarray) else pa.array(values)
        columns.append(pa.LargeListArray.from_arrays(pa.array([0, len(child)], type=pa.int64()), child))
    batch = pa.RecordBatch.from_arrays(columns, names=list(arrays))
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


def unpack(data: bytes | pa.Buffer) -> dict[str, Array]:
    """The arrays :func:`pack` packed: numpy arrays, and lists of strings for text."""
    batch = pa.ipc.open_stream(data).read_next_batch()
    out: dict[str, Array] = {}
    for name, column in zip(batch.schema.names, batch.columns):
        child = column.values
        if pa.types.is_string(child.type) or pa.types.is_large_string(child.type):
            out[name] = child.to_pylist()
        else:
            out[name] = child.to_numpy(zero_copy_only=False)
    return out


_ACCOUNTING_TEXT = ("run_only", "qrels_only", "scored_empty", "unjudged_evaluated", "no_relevant")


def encode_groups(groups: Sequence[GroupValues]) -> dict[str, Array]:
    """The query groups' values of one chunk as named arrays (``g{group}.…``; inverse: :func:`decode_groups`)."""
    out: dict[str, Array] = {}
    for g, group in enumerate(groups):
        out[f"g{g}.queries"] = list(group.query_ids)
        out[f"g{g}.values"] = group.values.reshape(-1)
        out[f"g{g}.counts"] = np.array([group.accounting.evaluated, group.accounting.truncated_rows], dtype=np.int64)
        out[f"g{g}.caveats"] = list(group.caveats)
        for field in _ACCOUNTING_TEXT:
            out[f"g{g}.{field}"] = list(getattr(group.accounting, field))
        shared = []
        for i, inputs in enumerate(group.inputs):
            for key, values in inputs.items():
                if key == "values" and _same(values, group.values[i]):
                    shared.append(i)  # the measure's per-query values, already in g{g}.values: not sent twice
                else:
                    out[f"g{g}.m{i}.{key}"] = values
        out[f"g{g}.shared"] = np.array(shared, dtype=np.int64)
    return out


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


def decode_groups(plan: Plan, arrays: Mapping[str, Array]) -> list[GroupValues]:
    """The :class:`GroupValues` of one chunk from :func:`encode_groups`'s arrays."""
    out = []
    for g, group in enumerate(plan.groups):
        query_ids = list(arrays[f"g{g}.queries"])
        evaluated, truncated = (int(n) for n in arrays[f"g{g}.counts"])
        values = np.asarray(arrays[f"g{g}.values"], dtype=np.float64).reshape(len(group.rows), len(query_ids))
        inputs: list[dict[str, np.ndarray]] = [{} for _ in group.rows]
        for i in np.asarray(arrays[f"g{g}.shared"], dtype=np.int64).tolist():
            inputs[i]["values"] = values[i]
        for name, array in arrays.items():
            if name.startswith(f"g{g}.m"):
                measure, key = name[len(f"g{g}.m") :].split(".", 1)
                inputs[int(measure)][key] = np.asarray(array)
        lists: dict[str, Any] = {field: tuple(arrays[f"g{g}.{field}"]) for field in _ACCOUNTING_TEXT}
        accounting = QueryAccounting(evaluated=evaluated, truncated_rows=truncated, **lists)
        out.append(GroupValues(group, query_ids, accounting, tuple(plan.pairs[i][1] for i in group.rows), values,
                               tuple(inputs), tuple(arrays[f"g{g}.caveats"])))  # fmt: skip
    return out
