"""Every number of a comparison as CSV (one row per system summary and per pair) or JSON (also the per-query
values, the settings and the notes). Undefined values are empty in CSV and null in JSON."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict
from typing import Any

from ..systems import Comparison
from .marks import caption

CSV_COLUMNS = ("kind", "system", "against", "measure", "n", "value", "low", "high", "statistic", "p_value",
               "p_adjusted", "significant", "cohens_d", "wins", "ties", "losses", "method")  # fmt: skip
"""``kind`` is ``system`` (value = the mean) or ``pair`` (value = the mean difference system − against)."""


def format_csv(comparison: Comparison) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for s in comparison.summaries:
        row = {"kind": "system", "value": s.mean, **asdict(s)}
        writer.writerow(_csv_text(row.get(c)) for c in CSV_COLUMNS)
    for c in comparison.comparisons:
        row = {"kind": "pair", "value": c.difference, **asdict(c)}
        writer.writerow(_csv_text(row.get(col)) for col in CSV_COLUMNS)
    return out.getvalue()


def _csv_text(value: Any) -> str:
    """Numbers at full precision (``repr``); undefined (None, NaN) as an empty field."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return str(value)


def format_json(comparison: Comparison) -> str:
    """``{"settings", "caption", "systems", "measures", "query_ids", "summaries", "comparisons", "per_query",
    "notes"}``; ``per_query[system][measure]`` lists values in ``query_ids`` order."""
    settings = {k: (v.value if hasattr(v, "value") else v) for k, v in vars(comparison.settings).items()}
    payload = {
        "settings": settings,
        "caption": caption(comparison),
        "systems": list(comparison.systems),
        "measures": list(comparison.keys),
        "query_ids": list(comparison.query_ids),
        "summaries": [_finite(asdict(s)) for s in comparison.summaries],
        "comparisons": [_finite(asdict(c)) for c in comparison.comparisons],
        "per_query": {
            system: {key: _finite(comparison.values[s, m].tolist()) for m, key in enumerate(comparison.keys)}
            for s, system in enumerate(comparison.systems)
        },
        "notes": comparison.notes(),
    }
    return json.dumps(payload, ensure_ascii=False, allow_nan=False, indent=1) + "\n"


def _finite(value: Any) -> Any:
    """NaN and ±inf as None, so the JSON is valid."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


__all__ = ["CSV_COLUMNS", "format_csv", "format_json"]
