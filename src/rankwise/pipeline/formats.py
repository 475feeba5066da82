"""Writing an :class:`EvaluationResult` as text: trec_eval layout, JSON, CSV, or a terminal table."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..measures import Measure, trec_name
from ..measures.trec_names import NOT_PER_QUERY, RUNID, trec_order
from ..wording import terminal_width, wrap

if TYPE_CHECKING:  # numpy and the result are imported when a result is written, not when FORMATS is read (help)
    import numpy as np

    from .result import EvaluationResult

FORMATS = ("table", "trec", "json", "csv")

_CSV_SPECIAL = re.compile('[,"\r\n]')
"""What makes :mod:`csv` quote a field (the delimiter, the quote, a line break)."""


def _python_numbers(values: np.ndarray, measure: Measure) -> list[float | int | None]:
    """Values as Python numbers: counts as int (:func:`_as_integers`), undefined (NaN) as None."""
    import numpy as np

    numbers = values.astype(np.int64).tolist() if _as_integers(values, measure) else values.tolist()
    for j in np.flatnonzero(np.isnan(values)):
        numbers[j] = None
    return numbers


def _as_integers(values: np.ndarray, measure: Measure) -> bool:
    """Whether a measure's values are written as integers: a count none of whose values is undefined (NaN)."""
    import numpy as np

    return bool(measure.spec.is_count and not np.isnan(values).any())


def _rows(result: EvaluationResult) -> list[list[float | int | None]]:
    """Per-query values of each measure as Python numbers (one list per measure)."""
    return [_python_numbers(result.values[i], m) for i, m in enumerate(result.measures)]


def _aggregates(result: EvaluationResult) -> list[float | int | None]:
    import numpy as np

    return [_python_numbers(np.array([result.aggregate[k]]), m)[0] for k, m in zip(result.keys, result.measures)]


def format_trec(result: EvaluationResult, per_query: bool, with_runid: bool) -> str:
    """trec_eval's layout: ``measure<TAB>qid<TAB>value`` per query (with ``per_query``), then ``all``.

    Measures are in trec_eval's table order under their trec_eval names (others after, under the name the
    user gave); values have 4 decimals, counts are integers, the name is left-aligned in 22 characters.
    """
    order = sorted(range(len(result.keys)), key=lambda i: trec_order(result.measures[i]))
    names = [trec_name(result.measures[i]) or result.keys[i] for i in order]
    lines: list[str] = []

    def shown(number: float | int | None) -> str:
        return "nan" if number is None else str(number) if isinstance(number, int) else f"{number:6.4f}"

    if per_query:  # a global measure (Coverage, Gini, Entropy) has only its `all` line, as a summary-only one and
        # num_q have (trec_eval prints no per-query num_q line)
        printed = [(i, name) for i, name in zip(order, names)
                   if name not in NOT_PER_QUERY and result.measures[i].aggregation != "global"]  # fmt: skip
        template = "".join(_escaped(f"{name:<22}") + "\t%s\t%s\n" for _, name in printed)
        lines.append(_by_query(result, [i for i, _ in printed], template, result.query_ids, _TREC))
    if with_runid and result.run_name is not None:
        lines.append(f"{RUNID:<22}\tall\t{result.run_name}\n")
    aggregates = _aggregates(result)
    lines.extend(f"{name:<22}\tall\t{shown(aggregates[i])}\n" for i, name in zip(order, names))
    return "".join(lines)


@dataclass(frozen=True)
class _Style:
    """How :func:`_by_query` writes a format's values: a real value by the %-format ``real``, a count as its
    integer, NaN (and, with ``nonfinite``, ±inf) as ``undefined``; each query's text once per value or once per
    query (``repeat_query``), queries joined by ``separator``."""

    real: str
    undefined: str
    nonfinite: bool
    repeat_query: bool
    separator: str


_TREC = _Style("%6.4f", "nan", False, True, "")
_CSV = _Style("%r", "", False, True, "")
_JSON = _Style("%r", "null", True, False, ",")  # repr: as json.dumps writes a float; JSON has no NaN or infinity
_BLOCK = 65_536
"""Queries written at a time by :func:`_by_query` (the texts of a block, not of every value, are held at once)."""


def _escaped(text: str) -> str:
    """``text`` inside a %-template."""
    return text.replace("%", "%%")


def _by_query(result: EvaluationResult, measures: Sequence[int], template: str, query_texts: Sequence[str],
              style: _Style) -> str:  # fmt: skip
    """The per-query values of ``measures`` (indexes into ``result.measures``) written by one %-template per query:
    ``template`` takes the query's text then its values (``style.repeat_query``: the query's text before each
    value). Values are as :func:`_python_numbers` gives them (a count as an integer unless one of its values is
    undefined: :func:`_as_integers`, decided over the whole column), turned into text without a Python object kept
    per value — the same text as writing each number."""
    whole = [_as_integers(result.values[i], result.measures[i]) for i in measures]
    parts = []
    for start in range(0, len(query_texts), _BLOCK):
        block = query_texts[start : start + _BLOCK]
        columns = [_value_texts(result.values[i][start : start + _BLOCK], integer, style)
                   for i, integer in zip(measures, whole)]  # fmt: skip
        rows = zip(*[part for column in columns for part in (block, column)]) if style.repeat_query else \
            zip(block, *columns)  # fmt: skip
        parts.append(style.separator.join(template % row for row in rows))
    return style.separator.join(parts)


def _value_texts(values: np.ndarray, integer: bool, style: _Style) -> list[str]:
    import numpy as np

    texts = list(map(str, values.astype(np.int64).tolist())) if integer else \
        list(map(style.real.__mod__, values.tolist()))  # fmt: skip
    for j in np.flatnonzero(~np.isfinite(values) if style.nonfinite else np.isnan(values)):
        texts[j] = style.undefined
    return texts


def _json_number(number: float | int | None) -> float | int | None:
    """JSON has no NaN or infinity: a non-finite value (an overflowed sum) is null, as undefined values are."""
    return None if isinstance(number, float) and not math.isfinite(number) else number


def format_json(result: EvaluationResult) -> str:
    """``{"aggregate": {M: value}, "per_query": {qid: {M: value}}}``; M as the user wrote it, NaN and ±inf as
    null (``allow_nan=False``: the output is always valid JSON, never ``NaN`` or ``Infinity``). A global measure
    (Coverage, Gini, Entropy) is in ``aggregate`` only, and ``"global": {M: {"users", "items", "catalogue", "over",
    "queries"}}`` says what it was computed over (the key is there only when a global measure is).

    The per-query object is written by :func:`_by_query` (keys quoted as ``json.dumps`` quotes them): the same
    bytes as ``json.dumps(payload, separators=(",", ":"))``, in half the time."""
    from json.encoder import encode_basestring_ascii as quoted  # json.dumps' quoting (ensure_ascii)

    shown = [i for i, measure in enumerate(result.measures) if measure.aggregation != "global"]
    template = "%s:{" + ",".join(_escaped(quoted(result.keys[i])) + ":%s" for i in shown) + "}"
    per_query = _by_query(result, shown, template, list(map(quoted, result.query_ids)), _JSON)
    head: dict[str, object] = {"aggregate": {key: _json_number(v) for key, v in zip(result.keys, _aggregates(result))}}
    text = json.dumps(head, separators=(",", ":"), allow_nan=False)[:-1] + ',"per_query":{' + per_query + "}"
    if result.globals:
        record = {key: account.record() for key, account in result.globals.items()}
        text += ',"global":' + json.dumps(record, separators=(",", ":"), allow_nan=False)
    return text + "}\n"


def format_csv(result: EvaluationResult, per_query: bool) -> str:
    """Rows ``query_id,measure,value``: per query (with ``per_query``; a global measure has none), then ``all`` for
    the aggregates. Fields are quoted as :mod:`csv` quotes them (where they hold a comma, a quote or a line break)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["query_id", "measure", "value"])
    if per_query:
        shown = [i for i, measure in enumerate(result.measures) if measure.aggregation != "global"]
        template = "".join("%s," + _escaped(_csv_field(result.keys[i])) + ",%s\n" for i in shown)
        out.write(_by_query(result, shown, template, _csv_fields(result.query_ids), _CSV))
    writer.writerows(["all", key, _csv_text(v)] for key, v in zip(result.keys, _aggregates(result)))
    return out.getvalue()


def _csv_text(number: float | int | None) -> str:
    return "" if number is None else repr(number)


def _csv_fields(texts: Sequence[str]) -> Sequence[str]:
    """``texts`` as :mod:`csv` writes them as fields: as they are unless one holds a comma, a quote or a line break
    (one search over them all), then each such one by :func:`_csv_field`."""
    if not texts or not _CSV_SPECIAL.search("\x00".join(texts)):
        return texts
    return [_csv_field(text) if _CSV_SPECIAL.search(text) else text for text in texts]


def _csv_field(text: str) -> str:
    """One field as :mod:`csv`'s writer writes it (in a row of two fields, the second empty)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([text, ""])
    return out.getvalue()[:-2]


def plain_table(headers: Sequence[str], columns: Sequence[Sequence[str]], right: Sequence[bool],
                width: int | None = None) -> list[str]:  # fmt: skip
    """Lines of a plain text table: a header line, a rule, then one line per row; every column as wide as its
    widest cell (nothing is ever cut), two spaces between columns. ``columns`` holds each column's cells. With
    ``width``, a table wider than that has its cells of several words (the widest columns first) wrapped at spaces
    onto more lines until it fits; a table that cannot fit so (a column is as narrow as its longest word) is written
    as records: each row's first cell, then its other cells, one ``header: cell`` a line, indented and wrapped."""
    widths = _column_widths(headers, columns)
    if width is not None and sum(widths) + 2 * (len(widths) - 1) > width:
        narrowed = _narrowed(headers, columns, widths, width)
        if sum(narrowed) + 2 * (len(widths) - 1) > width:
            return _records(headers, columns, width)
        return _wrapped_table(headers, columns, right, narrowed)
    aligned = [
        [cell.rjust(width) if is_right else cell.ljust(width) for cell in cells]
        for cells, width, is_right in zip(columns, widths, right)
    ]
    head = [h.rjust(w) if r else h.ljust(w) for h, w, r in zip(headers, widths, right)]
    lines = ["  ".join(head).rstrip(), "  ".join("─" * w for w in widths)]
    lines.extend("  ".join(cells).rstrip() for cells in zip(*aligned))
    return lines


def _narrowed(headers: Sequence[str], columns: Sequence[Sequence[str]], widths: list[int], width: int) -> list[int]:
    """Column widths that bring the table to ``width``: the widest column that can still lose a character loses
    one, until the table fits or none can; first down to the widest cell (only headers wrap), then down to the
    longest word (cells wrap too)."""
    words = [max(len(word) for word in (header.split() or [""])) for header in headers]
    cells = [max((len(cell) for cell in cells), default=0) for cells in columns]
    cell_words = [max((len(word) for cell in cells for word in cell.split()), default=0) for cells in columns]
    widths = list(widths)
    excess = sum(widths) + 2 * (len(widths) - 1) - width
    for floors in ([max(w, c) for w, c in zip(words, cells)], [max(w, c) for w, c in zip(words, cell_words)]):
        while excess > 0:
            slack = [i for i in range(len(widths)) if widths[i] > floors[i]]
            if not slack:
                break
            widest = max(slack, key=lambda i: widths[i])
            widths[widest] -= 1
            excess -= 1
    return widths


def _wrapped_table(headers: Sequence[str], columns: Sequence[Sequence[str]], right: Sequence[bool],
                   widths: list[int]) -> list[str]:  # fmt: skip
    """:func:`plain_table`'s lines with every cell wrapped to its column's width (a row as tall as its tallest
    cell)."""

    def lines_of(cells: Sequence[str]) -> list[str]:
        parts = [wrap(cell, w) if len(cell) > w else [cell] for cell, w in zip(cells, widths)]
        height = max(len(part) for part in parts)
        rows = [[part[k] if k < len(part) else "" for part in parts] for k in range(height)]
        return ["  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(row, widths, right)).rstrip()
                for row in rows]  # fmt: skip

    lines = [*lines_of(headers), "  ".join("─" * w for w in widths)]
    for cells in zip(*columns):
        lines += lines_of(cells)
    return lines


def _records(headers: Sequence[str], columns: Sequence[Sequence[str]], width: int) -> list[str]:
    """Each row as a record: its first cell on a line, then each other non-empty cell as ``header: cell``."""
    lines: list[str] = []
    for cells in zip(*columns):
        lines += wrap(cells[0], width, "", "  ")
        for header, cell in zip(headers[1:], cells[1:]):
            lines += wrap(f"{header}: {cell}", width, "    ", "      ") if cell else []
    return lines


def _column_widths(headers: Sequence[str], columns: Sequence[Sequence[str]]) -> list[int]:
    """Each column as wide as its widest cell or its header."""
    return [max(len(header), max((len(cell) for cell in cells), default=0)) for header, cells in zip(headers, columns)]


def table_width(headers: Sequence[str], columns: Sequence[Sequence[str]]) -> int:
    """The width :func:`plain_table` would give these cells."""
    widths = _column_widths(headers, columns)
    return sum(widths) + 2 * (len(widths) - 1)


def format_table(result: EvaluationResult, per_query: bool, width: int | None = None) -> str:
    """A plain table for the terminal, fitted to ``width`` (default: the terminal's) and never cutting a name.

    Without ``per_query``: a row per measure. With it: a row per query and a column per measure when that fits
    the width, else the long layout, a row per (query, measure) — as ``--format csv`` but aligned; a global measure
    (Coverage, Gini, Entropy: one value, no per-query value) is left out of those rows and shown after them, in a
    table of its own. The last line counts the queries the measures were computed over (per measure when a dialect
    computes some over other queries)."""
    width = width or terminal_width()
    counts = result.counts_line()
    heading = "\n".join(wrap(counts + (f"{'; ' if ';' in counts else ', '}run {result.run_name}" if result.run_name
                                   else ""), width))  # fmt: skip
    aggregates = [_cell(v) for v in _aggregates(result)]
    shown = [i for i, m in enumerate(result.measures) if m.aggregation != "global"]
    if not per_query or not shown:
        lines = plain_table(["measure", "value"], [list(result.keys), aggregates], [False, True])
        return "\n".join(lines) + "\n" + heading + "\n"
    rows = _rows(result)
    keys = [result.keys[i] for i in shown]
    cells = [[_cell(v) for v in rows[i]] + [aggregates[i]] for i in shown]
    query_column = [*result.query_ids, "all"]
    if table_width(["query", *keys], [query_column, *cells]) <= width:
        lines = plain_table(["query", *keys], [query_column, *cells], [False] + [True] * len(cells))
    else:
        nq, nm = len(query_column), len(keys)
        queries = [qid for qid in query_column for _ in range(nm)]
        names = keys * nq
        values = [cells[i][j] for j in range(nq) for i in range(nm)]
        lines = plain_table(["query", "measure", "value"], [queries, names, values], [False, False, True])
    global_rows = [i for i in range(len(result.keys)) if i not in set(shown)]
    if global_rows:
        lines += ["", *plain_table(["global measure", "value"], [[result.keys[i] for i in global_rows],
                                                                 [aggregates[i] for i in global_rows]], [False, True])]
    return "\n".join(lines) + "\n" + heading + "\n"


def _cell(number: float | int | None) -> str:
    if number is None:
        return "–"
    return str(number) if isinstance(number, int) else f"{number:.4f}"
