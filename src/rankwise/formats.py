"""Writing an :class:`EvaluationResult` as text: trec_eval layout, JSON, CSV, or a terminal table."""

from __future__ import annotations

import csv
import io
import json
import math

from .evaluate import EvaluationResult
from .measures import Measure, trec_name
from .measures.trec_names import RUNID, SUMMARY_ONLY, trec_order

FORMATS = ("table", "trec", "json", "csv")


def _number(value: float, measure: Measure) -> float | int | None:
    if math.isnan(value):
        return None
    return int(value) if measure.spec.is_count else float(value)


def format_trec(result: EvaluationResult, per_query: bool, with_runid: bool) -> str:
    """trec_eval's layout: ``measure<TAB>qid<TAB>value`` per query (with ``per_query``), then ``all``.

    Measures are in trec_eval's table order under their trec_eval names (others after, under the name the
    user gave); values have 4 decimals, counts are integers, the name is left-aligned in 22 characters.
    """
    order = sorted(range(len(result.keys)), key=lambda i: trec_order(result.measures[i]))
    names = [trec_name(result.measures[i]) or result.keys[i] for i in order]
    lines = []

    def line(name: str, qid: str, value: float, measure: Measure) -> str:
        shown = str(int(value)) if measure.spec.is_count and not math.isnan(value) else f"{value:6.4f}"
        return f"{name:<22}\t{qid}\t{shown}"

    if per_query:
        for j, qid in enumerate(result.query_ids):
            for i, name in zip(order, names):
                if name not in SUMMARY_ONLY:
                    lines.append(line(name, qid, result.values[i, j], result.measures[i]))
    if with_runid and result.run_name is not None:
        lines.append(f"{RUNID:<22}\tall\t{result.run_name}")
    for i, name in zip(order, names):
        lines.append(line(name, "all", result.aggregate[result.keys[i]], result.measures[i]))
    return "\n".join(lines) + "\n"


def format_json(result: EvaluationResult) -> str:
    """``{"aggregate": {M: value}, "per_query": {qid: {M: value}}}``; M as the user wrote it, NaN as null."""
    payload = {
        "aggregate": {k: _number(result.aggregate[k], m) for k, m in zip(result.keys, result.measures)},
        "per_query": {
            qid: {k: _number(result.values[i, j], m) for i, (k, m) in enumerate(zip(result.keys, result.measures))}
            for j, qid in enumerate(result.query_ids)
        },
    }
    return json.dumps(payload, separators=(",", ":")) + "\n"


def format_csv(result: EvaluationResult, per_query: bool) -> str:
    """Rows ``query_id,measure,value``: per query (with ``per_query``), then ``all`` for the aggregates."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["query_id", "measure", "value"])
    if per_query:
        for j, qid in enumerate(result.query_ids):
            for i, key in enumerate(result.keys):
                writer.writerow([qid, key, _csv_value(result.values[i, j], result.measures[i])])
    for key, measure in zip(result.keys, result.measures):
        writer.writerow(["all", key, _csv_value(result.aggregate[key], measure)])
    return out.getvalue()


def _csv_value(value: float, measure: Measure) -> str:
    number = _number(value, measure)
    return "" if number is None else repr(number)


def format_table(result: EvaluationResult, per_query: bool) -> str:
    """A terminal table (rich): one row per measure; with ``per_query`` a column per query too."""
    from rich.console import Console
    from rich.table import Table

    heading = f"{len(result.query_ids)} queries" + (f", run {result.run_name}" if result.run_name else "")
    table = Table(caption=heading, caption_justify="left")
    table.add_column("measure", style="bold")
    table.add_column("all", justify="right")
    shown_queries = result.query_ids if per_query else ()
    for qid in shown_queries:
        table.add_column(qid, justify="right")
    for i, (key, measure) in enumerate(zip(result.keys, result.measures)):
        cells = [_cell(result.aggregate[key], measure)]
        cells += [_cell(result.values[i, j], measure) for j in range(len(shown_queries))]
        table.add_row(key, *cells)
    buffer = io.StringIO()
    Console(file=buffer, width=max(100, 24 + 10 * (len(shown_queries) + 1)), color_system=None).print(table)
    return buffer.getvalue()


def _cell(value: float, measure: Measure) -> str:
    if math.isnan(value):
        return "–"
    return str(int(value)) if measure.spec.is_count else f"{value:.4f}"
