"""The JSON output written as text (rankwise.pipeline.formats.format_json) against ``json.dumps`` of the same payload:
the same bytes for any query ids (quotes, backslashes, ``%``, non-ASCII), counts and real values, NaN and ±inf."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from rankwise.pipeline.formats import format_json

MEASURES = ["nDCG@5", "NumRelRet@5", "P@5", "Coverage@5"]
"""A real measure, a count, another real one, and a global one (in ``aggregate`` only)."""


def _json_dumps(result: rankwise.EvaluationResult) -> str:
    """The payload as a dict, written by the json module (NaN and ±inf as null; counts as integers)."""

    def number(value: float, count: bool) -> float | int | None:
        return None if not math.isfinite(value) else int(value) if count else float(value)

    per_measure = {}
    for i, (key, measure) in enumerate(zip(result.keys, result.measures)):
        count = measure.spec.is_count and not np.isnan(result.values[i]).any()
        per_measure[key] = [number(v, count) for v in result.values[i].tolist()]
    shown = [k for k, m in zip(result.keys, result.measures) if m.aggregation != "global"]
    aggregate = {}
    for key, measure in zip(result.keys, result.measures):
        aggregate[key] = number(result.aggregate[key], measure.spec.is_count and not math.isnan(result.aggregate[key]))
    per_query = {q: {k: per_measure[k][j] for k in shown} for j, q in enumerate(result.query_ids)}
    payload: dict[str, object] = {"aggregate": aggregate, "per_query": per_query}
    if result.globals:
        payload["global"] = {key: account.record() for key, account in result.globals.items()}
    return json.dumps(payload, separators=(",", ":"), allow_nan=False) + "\n"


QUERY_IDS = st.lists(st.text(min_size=1, max_size=6).filter(lambda s: s.strip() == s and "\x00" not in s), min_size=1,
                     max_size=8, unique=True)
"""Any text: quotes, backslashes, ``%``, non-ASCII (the dict input keeps ids as they are)."""


@settings(max_examples=100, deadline=None)
@given(QUERY_IDS, st.data())
def test_json_text_is_what_json_dumps_writes(query_ids: list[str], data: st.DataObject) -> None:
    qrels = {q: {"d1": 1, "d2": 0} for q in query_ids}
    run = {q: {"d1": 0.5, "d2": 0.7, "d3": 0.1} for q in query_ids}
    measures = data.draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=4, unique=True))
    result = rankwise.evaluate(qrels, run, measures, catalog=10 if "Coverage@5" in measures else None)
    assert format_json(result) == _json_dumps(result)
    special = st.sampled_from([math.nan, math.inf, -math.inf, 0.1, 1e-300, 3.0, -0.0, 1 / 3])
    values = np.array([[data.draw(special) for _ in query_ids] for _ in measures], dtype=np.float64)
    for i, measure in enumerate(result.measures):  # a count holds whole numbers (or NaN)
        if measure.spec.is_count:
            values[i] = np.where(np.isfinite(values[i]), np.round(np.abs(values[i]) * 3), np.nan)
    changed = dataclasses.replace(result, values=values)
    assert format_json(changed) == _json_dumps(changed)
    json.loads(format_json(changed), parse_constant=lambda name: (_ for _ in ()).throw(AssertionError(name)))
