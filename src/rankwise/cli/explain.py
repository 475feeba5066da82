"""Human-readable definitions: the one-line list of measures and the full explanation of one measure."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..measures import FAMILIES, Measure, trec_name
from ..measures.spec import format_number
from ..policies import Policies
from ..wording import fit, terminal_width, wrap

if TYPE_CHECKING:
    from ..comparison.dialects import DialectComparison

AGGREGATES = {
    "mean": "arithmetic mean over evaluated queries (undefined values left out and counted)",
    "sum": "sum over evaluated queries",
    "gmean": "geometric mean over evaluated queries, values floored at 1e-5 (trec_eval)",
    "positives": "mean over evaluated queries weighted by each query's number of relevant documents",
    "pooled": "one value over the rows of all evaluated queries pooled (not a mean of per-query values)",
    "from_means": "the F-measure of the mean precision and the mean recall over evaluated queries (not a mean of "
    "per-query values)",
    "global": "one value from the top-k lists of all evaluated queries at once (no per-query value)",
    "rows": "mean over evaluated queries weighted by each list's length |L[:k]| (every recommended row pooled)",
    "curve": "the largest mean R@j whose mean P@j over evaluated queries reaches min_precision (torchmetrics; not a "
    "mean of per-query values)",
}


def list_measures(width: int | None = None) -> str:
    """Every family with its aliases and one-line definition, fitted to ``width`` (default: the terminal's): a
    definition wraps under its own start (under its name, indented, when beside it would leave fewer than 30
    columns)."""
    width = width or terminal_width()
    column = max(len(spec.name) for spec in FAMILIES) + 5
    beside = width - column >= 30  # else each name on a line of its own, its definition under it
    lines = []
    for spec in FAMILIES:
        cut = {"rank": "@k", "recall": "@x"}.get(spec.cutoff or "", "")
        aliases = f" (also {', '.join(spec.aliases)})" if spec.aliases else ""
        text = f"{spec.summary}{aliases}"
        if beside:
            lines += wrap(text, width, f"{spec.name + cut:<{column - 2}}  ", " " * column)
        else:
            lines += [spec.name + cut, *wrap(text, width, "    ")]
    lines.append("")
    lines += wrap("trec_eval names are accepted too: official, map, gm_map, ndcg, recip_rank, Rprec, bpref, num_q, "
                  "num_ret, num_rel, num_rel_ret, P_5 / P.5,10, recall_k, ndcg_cut_k, map_cut_k, success_k, "
                  "iprec_at_recall_x. `rankwise explain NAME` prints a full definition.", width)  # fmt: skip
    return "\n".join(lines) + "\n"


GLOBAL_REPORTED = ("once, in the aggregate, with what it was computed over (users, distinct items, catalogue: a "
                   "note, and \"global\" in --format json); every per-query output (the per-query rows of each "
                   "--format, per_query, to_polars/to_pandas) leaves it out")
"""How a global measure (Coverage, Gini, Entropy) is reported (``explain``'s ``Reported:`` line)."""


def explain_measure(measure: Measure, policies: Policies | None = None, main_queries: str | None = None) -> str:
    """Definition, formula, reference and every parameter value in force for one measure; ``policies`` are those
    it is computed under (its query set's: a dialect may average some measures over their own queries, and then
    ``main_queries`` is the evaluation's own query set)."""
    policies = policies or Policies()
    spec = measure.spec
    lines = [f"{measure} — {spec.summary}", "", "Formula:"]
    lines += [f"  {row}" for row in spec.formula.splitlines()]
    lines += ["", "Parameters in force:"]
    if spec.cutoff is not None:
        cutoff = "none (the whole ranking)" if measure.cutoff is None else format_number(measure.cutoff)
        lines.append(f"  cutoff = {cutoff}    [{spec.cutoff_doc}]")
    for param in spec.params:
        value = measure.get(param.name)
        if value is None:
            shown = f"{policies.rel_level} (from {param.default_doc})"
        else:
            shown = param.format(value) + ("" if any(k == param.name for k, _ in measure.params) else " (default)")
        lines.append(f"  {param.name} = {shown}    [{param.doc}]")
        for choice, meaning in param.choices.items():
            lines.append(f"      {choice}: {meaning}")
    depth = policies.depth or "all"
    judged = ", judged only" if policies.judged_only else ""
    own = (f" (this dialect's query set for {measure.name}; its other measures: queries = {main_queries})"
           if main_queries is not None and main_queries != policies.queries.value else "")  # fmt: skip
    lines.append(f"  ties = {policies.ties.value}, queries = {policies.queries.value}{own}, depth = {depth}{judged}    "
                 "[policies]")
    lines += ["", f"Aggregate: {AGGREGATES[measure.aggregation]}"]
    if measure.aggregation == "global":
        lines.append(f"Reported: {GLOBAL_REPORTED}")
    lines.append(f"Empty or undefined: {spec.empty}")
    name = trec_name(measure)
    lines.append(f"trec_eval name: {name}" if name else "trec_eval name: none (not a trec_eval measure)")
    lines.append(f"Reference: {spec.reference}")
    return "\n".join(lines) + "\n"


def explain(text: str, rel_level: int = 1, dialect: str | None = None, width: int | None = None) -> str:
    """Explain every measure a string names (``nDCG@10``, ``P.5,10``), as ``dialect`` defines it if given: with the
    policies ``rankwise evaluate`` computes it under, its query set included (the plan's, so a measure a dialect
    averages over its own queries is explained with them); fitted to ``width`` (default: the terminal's), a long
    line wrapped at spaces and indented under its own start."""
    from ..pipeline.plan import make_plan

    plan = make_plan(text, dialect, rel_level=rel_level)
    chosen = plan.dialect
    note = plan.notes[0] if plan.notes else None
    group_of = {i: group.policies for group in plan.groups for i in group.rows}
    parts = []
    for i, (_, bound) in enumerate(plan.pairs):
        part = explain_measure(bound, group_of[i], plan.policies.queries.value)
        if chosen:
            part += f"Dialect: {chosen.key} ({chosen.label}) — {chosen.summary}\nFollows: {chosen.source}\n"
            part += "".join(f"Known library bug: {bug}\n" for bug in chosen.known_bugs)
            part += "".join(f"Caveat: {caveat}\n" for caveat in chosen.caveats)
            part += f"Note: {note}\n" if note else ""
        parts.append(part)
    return fit("\n".join(parts), width or terminal_width())


def list_dialects(width: int | None = None) -> str:
    """Every dialect binding: name@version, summary, source and how it is proven, wrapped to ``width`` (default:
    the terminal's); words are never split, so a path longer than the room moves left on a line of its own."""
    from ..dialects import DIALECTS

    width = width or terminal_width()
    indent = 19 if width >= 60 else 4
    pad = " " * indent
    lines = []
    for d in DIALECTS:
        head = f"{d.key:<{indent - 1}} " if len(d.key) < indent - 1 and indent > 4 else pad
        if head == pad:  # a key too long for its column: on a line of its own
            lines.append(d.key)
        lines += wrap(f"{d.label}: {d.summary}", width, head, pad)
        lines += wrap(f"follows {d.source}", width, pad)
        lines += wrap(f"proven: {d.verified}", width, pad)
    return "\n".join(lines) + "\n"


def dialects_records() -> list[dict[str, Any]]:
    """Every dialect binding as a plain record (for ``rankwise dialects --format json|csv``)."""
    from ..dialects import DIALECTS

    return [
        {"dialect": d.key, "name": d.name, "versions": ",".join(d.versions), "label": d.label, "summary": d.summary,
         "follows": d.source, "proven": d.verified}
        for d in DIALECTS
    ]  # fmt: skip


def show_library_names(output_format: str, name: str, width: int | None = None) -> str:
    """``rankwise dialects NAME``: the library's own metric names the dialect reads, each with the rankwise measure
    it computes (before the dialect's bindings) or why it is not supported (:func:`rankwise.dialects.library_names`),
    as a table (fitted to ``width``, default the terminal's: the notes wrap), json or csv."""
    import json

    from ..dialects import get_dialect, library_names
    from ..pipeline.formats import plain_table

    dialect = get_dialect(name)
    rows = library_names(name)
    if output_format == "json":
        return json.dumps(rows, separators=(",", ":"), ensure_ascii=False) + "\n"
    if output_format == "csv":
        return records_csv(rows)  # type: ignore[arg-type]
    if dialect.names is None:
        return fit(f"{dialect.key} reads rankwise's own names (`rankwise measures`); its bindings: "
                   f"`rankwise explain MEASURE --dialect {dialect.name}`\n", width or terminal_width())  # fmt: skip
    width = width or terminal_width()
    head = wrap(f"{dialect.names.title} names under --dialect {dialect.name} (from {dialect.names.source}); the "
                f"measure before the dialect's bindings (`rankwise explain NAME --dialect {dialect.name}` gives them "
                "all):", width)  # fmt: skip
    columns = ["name", "measure", "arguments", "note"]
    table = plain_table(columns, [[row[c] for row in rows] for c in columns], [False] * 4, width)
    return "\n".join(head + table) + "\n"


def show_dialects(
    output_format: str, qrels: Any, run: Any, measures: list[str], rel_level: int, inputs: dict[str, Any]
) -> str:
    """``rankwise dialects`` in ``output_format`` (table, json, csv): the list of dialects without ``qrels`` and
    ``run``, else the comparison of the run under every dialect."""
    import json

    if qrels is None or run is None:
        if output_format == "table":
            return list_dialects()
        records = dialects_records()
        return json.dumps(records, separators=(",", ":")) + "\n" if output_format == "json" else records_csv(records)
    from ..comparison.dialects import compare_dialects

    comparison = compare_dialects(qrels, run, measures, rel_level=rel_level, **inputs)
    if output_format == "json":
        return comparison_json(comparison)
    if output_format == "csv":
        return records_csv(comparison_records(comparison))
    return format_comparison(comparison)


def dialect_table(qrels: str, run: str, measures: list[str], rel_level: int, **inputs: Any) -> str:
    """The spread of one run over every dialect as a terminal table (see :func:`format_comparison`)."""
    from ..comparison.dialects import compare_dialects

    return format_comparison(compare_dialects(qrels, run, measures, rel_level=rel_level, **inputs))


def format_comparison(comparison: DialectComparison, width: int | None = None) -> str:
    """A dialect comparison fitted to ``width`` (default: the terminal's): group, dialect and a column per measure
    (or, when those columns would not fit, a row per dialect and measure), then why each dialect differs from
    trec_eval, wrapped. Names and values are never cut."""
    from ..pipeline.formats import plain_table, table_width

    width = width or terminal_width()
    rows = sorted(comparison.rows, key=lambda r: r.group)
    groups = [str(row.group) for row in rows]
    dialects = [row.dialect for row in rows]
    values = [["–" if row.values[k] != row.values[k] else f"{row.values[k]:.4f}" for row in rows]
              for k in comparison.keys]  # fmt: skip
    headers = ["group", "dialect", *comparison.keys]
    if table_width(headers, [groups, dialects, *values]) <= width:
        lines = plain_table(headers, [groups, dialects, *values], [True, False] + [True] * len(values))
    else:
        n = len(comparison.keys)
        long = [
            [g for g in groups for _ in range(n)],
            [d for d in dialects for _ in range(n)],
            list(comparison.keys) * len(rows),
            [values[i][j] for j in range(len(rows)) for i in range(n)],
        ]
        lines = plain_table(["group", "dialect", "measure", "value"], long, [True, False, False, True], width)
    lines += ["", "Why each differs from trec_eval:"]
    for row in rows:
        lines += wrap(f"{row.dialect}: {'; '.join(row.reasons) or '–'}", width, "  ", "    ")
    return "\n".join(lines) + "\n"


def comparison_json(comparison: DialectComparison) -> str:
    """``{"measures": [...], "dialects": [{"dialect", "group", "values": {M: v}, "why": [...]}]}``; values not
    defined are null."""
    import json
    import math

    payload = {
        "measures": list(comparison.keys),
        "dialects": [
            {"dialect": row.dialect, "group": row.group,
             "values": {k: (None if not math.isfinite(v) else v) for k, v in row.values.items()},
             "why": list(row.reasons)}
            for row in comparison.rows
        ],
    }  # fmt: skip
    return json.dumps(payload, separators=(",", ":"), allow_nan=False) + "\n"


def records_csv(records: list[dict[str, Any]]) -> str:
    """Plain records as CSV with a header (every record has the same keys)."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(records[0]) if records else [], lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return out.getvalue()


def comparison_records(comparison: DialectComparison) -> list[dict[str, Any]]:
    """One record per (dialect, measure): dialect, group, measure, value (empty when undefined), why."""
    return [
        {"dialect": row.dialect, "group": row.group, "measure": key,
         "value": "" if row.values[key] != row.values[key] else repr(row.values[key]), "why": "; ".join(row.reasons)}
        for row in comparison.rows
        for key in comparison.keys
    ]  # fmt: skip
