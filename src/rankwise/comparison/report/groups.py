"""Measures by group in every output: the group table of one evaluation (``rankwise evaluate --groups``: terminal,
JSON, CSV) and the per-group sections of a comparison's reports (terminal, Markdown, LaTeX, HTML with a plot per
measure by group, CSV and JSON rows)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from ...pipeline.formats import plain_table
from ...pipeline.result import EvaluationResult
from ...wording import terminal_width, wrap
from ..groups import GroupComparison, GroupTable, finite
from .marks import interval, number


def format_group_text(table: GroupTable, width: int | None = None) -> str:
    """The group table as plain text: a row per group (its size, each measure's mean with its interval), then a row
    per measure naming the highest and the lowest group with their difference and ratio, the overall mean, the
    largest distance of a group's mean from it, and the mean absolute difference over every pair of groups (MAD),
    then (with :attr:`GroupTable.gap_intervals`) a row per measure with the intervals of the difference, ratio and
    MAD and whether the difference's interval excludes 0. Fitted to ``width`` (default: the terminal's): a table
    too wide wraps its headers and cells at spaces (:func:`rankwise.pipeline.formats.plain_table`)."""
    width = width or terminal_width()
    heading = wrap(f"by {table.name} ({table.intervals})", width)
    columns = [list(table.labels), [str(table.sizes[g]) for g in table.labels]]
    columns += [[f"{number(r.mean)} {interval(r.low, r.high)}" for r in (table.row(g, key) for g in table.labels)]
                for key in table.keys]  # fmt: skip
    lines = ["", *heading, *plain_table([table.name, "queries", *table.keys], columns, [False] + [True] * (
        len(columns) - 1), width)]  # fmt: skip
    gaps = table.gaps
    lines += ["", *plain_table(
        ["measure", "highest", "lowest", "difference", "ratio", "overall", "max |group − overall|", "MAD"],
        [[g.measure for g in gaps], [g.highest for g in gaps], [g.lowest for g in gaps],
         [number(g.difference) for g in gaps], [number(g.ratio) for g in gaps], [number(g.overall) for g in gaps],
         [number(g.to_overall_difference) for g in gaps], [number(g.mad) for g in gaps]],
        [False, False, False, True, True, True, True, True], width)]  # fmt: skip
    if table.gap_intervals:
        lines += ["", *wrap(table.gap_intervals, width), *plain_table(
            ["measure", "difference", "excludes 0", "ratio", "MAD"],
            [[g.measure for g in gaps], [interval(g.difference_low, g.difference_high) for g in gaps],
             [_yes_no(g.excludes_zero) for g in gaps], [interval(g.ratio_low, g.ratio_high) for g in gaps],
             [interval(g.mad_low, g.mad_high) for g in gaps]],
            [False, True, False, True, True], width)]  # fmt: skip
    return "\n".join(lines) + "\n"


def _yes_no(value: bool | None) -> str:
    return "–" if value is None else "yes" if value else "no"


def group_json(text: str, result: EvaluationResult, table: GroupTable) -> str:
    """``rankwise evaluate --format json`` output ``text`` with ``"groups"``: the table (:meth:`GroupTable.record`)
    and ``{query_id: label}`` (null for a query in no group)."""
    payload = json.loads(text)
    labels = result.groups.label_of() if result.groups is not None else {}
    payload["groups"] = {**table.record(), "query_groups": labels}
    return json.dumps(payload, separators=(",", ":"), allow_nan=False) + "\n"


GROUP_CSV_COLUMNS = ("kind", "query_id", "group", "measure", "n", "value", "low", "high")
"""``kind``: ``query`` (a query's value and its group, with ``-q``), ``all`` (the aggregate), ``group`` (value = the
group's mean, with its interval), ``difference`` / ``ratio`` (between the groups named ``highest/lowest``), ``mad``
(the mean absolute difference between the means of every pair of groups, Elliot's MAD; no group named); ``low`` and
``high`` of these three are their bootstrap intervals (:func:`rankwise.comparison.groups.gap_intervals`)."""


def group_csv(result: EvaluationResult, table: GroupTable, per_query: bool) -> str:
    """``rankwise evaluate --format csv --groups`` output: every number of the result and of the group table as rows
    of :data:`GROUP_CSV_COLUMNS` (undefined as an empty field)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(GROUP_CSV_COLUMNS)
    if per_query:
        labels = result.groups.label_of() if result.groups is not None else {}
        for qid, values in result.per_query.items():
            writer.writerows(_row("query", qid, labels.get(qid), key, None, v) for key, v in values.items())
    writer.writerows(_row("all", "all", None, key, result.query_count(key), v) for key, v in result.aggregate.items())
    writer.writerows(_row("group", None, r.group, r.measure, r.n, r.mean, r.low, r.high) for r in table.rows)
    for g in table.gaps:
        pair = f"{g.highest}/{g.lowest}"
        writer.writerows((_row("difference", None, pair, g.measure, None, g.difference, g.difference_low,
                               g.difference_high),
                          _row("ratio", None, pair, g.measure, None, g.ratio, g.ratio_low, g.ratio_high),
                          _row("mad", None, None, g.measure, None, g.mad, g.mad_low, g.mad_high)))  # fmt: skip
    return out.getvalue()


def _row(*values: Any) -> list[str]:
    return [_text(v) for v in values]


def _text(value: Any) -> str:
    value = finite(value)
    return "" if value is None else repr(value) if isinstance(value, float) else str(value)


def group_rows(by_group: GroupComparison) -> list[dict[str, Any]]:
    """Every per-group number as CSV rows of the comparison report: ``kind`` ``group_system`` (value = the mean)
    or ``group_pair`` (value = the difference), the group in ``group``."""
    rows: list[dict[str, Any]] = []
    for group, part in by_group.parts:
        rows += [{"kind": "group_system", "group": group, "value": s.mean, **vars(s)} for s in part.summaries]
        rows += [{"kind": "group_pair", "group": group, "value": c.difference, **vars(c)} for c in part.comparisons]
    return rows


__all__ = ["GROUP_CSV_COLUMNS", "format_group_text", "group_csv", "group_json", "group_rows"]
