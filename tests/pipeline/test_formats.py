"""The outputs written as text by one template per query (rankwise.pipeline.formats) against the same output written a
number at a time: JSON by ``json.dumps`` of the payload, CSV by :mod:`csv`'s writer, trec_eval's layout a line at a
time — the same bytes for any query ids (quotes, commas, line breaks, ``%``, non-ASCII), counts and real values, NaN
and ±inf, and more queries than one block."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from rankwise.measures import trec_name
from rankwise.measures.trec_names import NOT_PER_QUERY, trec_order
from rankwise.pipeline import formats
from rankwise.pipeline.formats import format_csv, format_json, format_trec

MEASURES = ["nDCG@5", "NumRelRet@5", "P@5", "Coverage@5", "num_rel", "map"]
"""Real measures, counts (one of them trec_eval's, with no per-query line there), and a global one (in ``aggregate``
only)."""


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


def _csv_writer(result: rankwise.EvaluationResult, per_query: bool) -> str:
    """Rows written by csv's writer, a Python number at a time (NaN as an empty field)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["query_id", "measure", "value"])
    text = lambda number: "" if number is None else repr(number)  # noqa: E731
    rows = formats._rows(result)
    if per_query:
        shown = [(key, rows[i]) for i, key in enumerate(result.keys) if result.measures[i].aggregation != "global"]
        for j, qid in enumerate(result.query_ids):
            writer.writerows([qid, key, text(row[j])] for key, row in shown)
    writer.writerows(["all", key, text(v)] for key, v in zip(result.keys, formats._aggregates(result)))
    return out.getvalue()


def _trec_lines(result: rankwise.EvaluationResult) -> str:
    """trec_eval's layout a line at a time: ``name<TAB>qid<TAB>value`` (4 decimals, counts as integers, NaN as nan)."""
    order = sorted(range(len(result.keys)), key=lambda i: trec_order(result.measures[i]))
    names = [trec_name(result.measures[i]) or result.keys[i] for i in order]
    shown = lambda n: "nan" if n is None else str(n) if isinstance(n, int) else f"{n:6.4f}"  # noqa: E731
    rows = formats._rows(result)
    printed = [(name, rows[i]) for i, name in zip(order, names)
               if name not in NOT_PER_QUERY and result.measures[i].aggregation != "global"]  # fmt: skip
    lines = [f"{name:<22}\t{qid}\t{shown(row[j])}" for j, qid in enumerate(result.query_ids) for name, row in printed]
    aggregates = formats._aggregates(result)
    lines.extend(f"{name:<22}\tall\t{shown(aggregates[i])}" for i, name in zip(order, names))
    return "\n".join(lines) + "\n"


def _same_text(result: rankwise.EvaluationResult) -> None:
    assert format_json(result) == _json_dumps(result)
    assert format_csv(result, per_query=True) == _csv_writer(result, per_query=True)
    assert format_csv(result, per_query=False) == _csv_writer(result, per_query=False)
    assert format_trec(result, per_query=True, with_runid=False) == _trec_lines(result)


ID_TEXT = st.text(st.sampled_from('ab1 ,"%\\\r\n\té\u2603'), min_size=1, max_size=6).filter(lambda s: s.strip() == s)
QUERY_IDS = st.lists(ID_TEXT, min_size=1, max_size=8, unique=True)
"""Ids with what each format must quote or escape: commas, quotes, backslashes, line breaks, ``%``, non-ASCII."""


@settings(max_examples=100, deadline=None)
@given(QUERY_IDS, st.data())
def test_json_text_is_what_json_dumps_writes(query_ids: list[str], data: st.DataObject) -> None:
    qrels = {q: {"d1": 1, "d2": 0} for q in query_ids}
    run = {q: {"d1": 0.5, "d2": 0.7, "d3": 0.1} for q in query_ids}
    measures = data.draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=4, unique=True))
    result = rankwise.evaluate(qrels, run, measures, catalog=10 if "Coverage@5" in measures else None)
    _same_text(result)
    special = st.sampled_from([math.nan, math.inf, -math.inf, 0.1, 1e-300, 3.0, -0.0, 1 / 3])
    values = np.array([[data.draw(special) for _ in query_ids] for _ in measures], dtype=np.float64)
    for i, measure in enumerate(result.measures):  # a count holds whole numbers (or NaN)
        if measure.spec.is_count:
            values[i] = np.where(np.isfinite(values[i]), np.round(np.abs(values[i]) * 3), np.nan)
    changed = dataclasses.replace(result, values=values)
    _same_text(changed)
    json.loads(format_json(changed), parse_constant=lambda name: (_ for _ in ()).throw(AssertionError(name)))


def test_more_queries_than_a_block(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Queries written a block at a time: blocks of 3 queries give the text of one block."""
    qrels = {f"q{k}": {"d1": 1, "d2": k % 2} for k in range(10)}
    run = {f"q{k}": {"d1": k / 10, "d2": 0.5, "d3": 0.2} for k in range(10)}
    result = rankwise.evaluate(qrels, run, ["nDCG@5", "NumRelRet@5", "map"])
    values = result.values.copy()
    values[1, 7] = math.nan  # a count with an undefined value in the last block: every block writes it as reals
    changed = dataclasses.replace(result, values=values)
    whole = [(format_json(r), format_csv(r, True), format_trec(r, True, False)) for r in (result, changed)]
    monkeypatch.setattr(formats, "_BLOCK", 3)
    assert [(format_json(r), format_csv(r, True), format_trec(r, True, False)) for r in (result, changed)] == whole
    _same_text(changed)
    assert "NumRelRet@5,1.0" in format_csv(changed, True)


def test_measure_names_with_a_percent_sign() -> None:
    """A name is part of the template: a ``%`` in it is written as it is (and the trec layout pads it to 22: these
    measures have no trec_eval name, so their keys are written)."""
    result = rankwise.evaluate({"q1": {"d1": 1}, "q2": {"d2": 1}}, {"q1": {"d1": 0.3}, "q2": {"d1": 0.2}},
                               ["RR@5", "NumRelRet@5"])  # fmt: skip
    keys = ("R%R@5", "%s%d%%")
    renamed = dataclasses.replace(result, keys=keys, aggregate=dict(zip(keys, result.aggregate.values())))
    _same_text(renamed)
    assert "%s%d%%" in format_csv(renamed, True)
    assert "R%R@5                 \tq1\t1.0000\n" in format_trec(renamed, True, False)
