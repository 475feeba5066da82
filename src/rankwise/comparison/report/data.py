"""Every number of a comparison as CSV (one row per system summary and per pair) or JSON (also the per-query
values, the settings and the notes). Undefined values are empty in CSV and null in JSON."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict
from typing import Any

from ..groups import GroupComparison, finite
from ..systems import Comparison
from .groups import group_rows
from .marks import caption

CSV_COLUMNS = ("kind", "system", "against", "measure", "n", "value", "low", "high", "statistic", "p_value",
               "p_adjusted", "significant", "cohens_d", "wins", "ties", "losses", "method", "group")  # fmt: skip
"""``kind`` is ``system`` (value = the mean) or ``pair`` (value = the mean difference system − against); with
groups, ``group_system`` and ``group_pair`` are the same within the ``group``."""


def format_csv(comparison: Comparison, by_group: GroupComparison | None = None) -> str:
    """Every number: a row per system summary and per pair, then (``by_group``) the same within each group."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for s in comparison.summaries:
        row = {"kind": "system", "value": s.mean, **asdict(s)}
        writer.writerow(_csv_text(row.get(c)) for c in CSV_COLUMNS)
    for c in comparison.comparisons:
        row = {"kind": "pair", "value": c.difference, **asdict(c)}
        writer.writerow(_csv_text(row.get(col)) for col in CSV_COLUMNS)
    for row in group_rows(by_group) if by_group is not None else ():
        writer.writerow(_csv_text(row.get(col)) for col in CSV_COLUMNS)
    return out.getvalue()


def _csv_text(value: Any) -> str:
    """Numbers at full precision (``repr``); undefined (None, NaN) as an empty field."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return str(value)


def format_json(comparison: Comparison, by_group: GroupComparison | None = None) -> str:
    """``{"settings", "caption", "systems", "measures", "query_ids", "summaries", "comparisons", "per_query",
    "notes"}``; ``per_query[system][measure]`` lists values in ``query_ids`` order; with groups, ``"groups"``
    (:meth:`rankwise.comparison.groups.GroupComparison.record`)."""
    settings = {k: (v.value if hasattr(v, "value") else v) for k, v in vars(comparison.settings).items()}
    payload = {
        "settings": settings,
        "caption": caption(comparison),
        "systems": list(comparison.systems),
        "measures": list(comparison.keys),
        "query_ids": list(comparison.query_ids),
        "summaries": [finite(asdict(s)) for s in comparison.summaries],
        "comparisons": [finite(asdict(c)) for c in comparison.comparisons],
        "per_query": {
            system: {key: finite(comparison.values[s, m].tolist()) for m, key in enumerate(comparison.keys)}
            for s, system in enumerate(comparison.systems)
        },
        "notes": comparison.notes(),
    }
    if by_group is not None:
        payload["groups"] = by_group.record()
    return json.dumps(payload, ensure_ascii=False, allow_nan=False, indent=1) + "\n"


__all__ = ["CSV_COLUMNS", "format_csv", "format_json"]
