"""Human-readable definitions: the one-line list of measures and the full explanation of one measure."""

from __future__ import annotations

from typing import Any

from .measures import FAMILIES, Measure, parse_measures, trec_name
from .measures.spec import format_number
from .policies import Policies

AGGREGATES = {
    "mean": "arithmetic mean over evaluated queries (undefined values left out and counted)",
    "sum": "sum over evaluated queries",
    "gmean": "geometric mean over evaluated queries, values floored at 1e-5 (trec_eval)",
    "positives": "mean over evaluated queries weighted by each query's number of relevant documents",
    "pooled": "one value over the rows of all evaluated queries pooled (not a mean of per-query values)",
    "from_means": "the F-measure of the mean precision and the mean recall over evaluated queries (not a mean of "
    "per-query values)",
}


def list_measures() -> str:
    """Every family with its aliases and one-line definition."""
    width = max(len(spec.name) for spec in FAMILIES)
    lines = []
    for spec in FAMILIES:
        cut = {"rank": "@k", "recall": "@x"}.get(spec.cutoff or "", "")
        aliases = f" (also {', '.join(spec.aliases)})" if spec.aliases else ""
        lines.append(f"{spec.name + cut:<{width + 3}}  {spec.summary}{aliases}")
    lines.append("")
    lines.append("trec_eval names are accepted too: official, map, gm_map, ndcg, recip_rank, Rprec, bpref, num_q,")
    lines.append("num_ret, num_rel, num_rel_ret, P_5 / P.5,10, recall_k, ndcg_cut_k, map_cut_k, success_k,")
    lines.append("iprec_at_recall_x. `rankwise explain NAME` prints a full definition.")
    return "\n".join(lines) + "\n"


def explain_measure(measure: Measure, policies: Policies | None = None) -> str:
    """Definition, formula, reference and every parameter value in force for one measure."""
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
    lines.append(f"  ties = {policies.ties.value}, queries = {policies.queries.value}, depth = {depth}    [policies]")
    lines += ["", f"Aggregate: {AGGREGATES[measure.aggregation]}", f"Empty or undefined: {spec.empty}"]
    name = trec_name(measure)
    lines.append(f"trec_eval name: {name}" if name else "trec_eval name: none (not a trec_eval measure)")
    lines.append(f"Reference: {spec.reference}")
    return "\n".join(lines) + "\n"


def explain(text: str, rel_level: int = 1, dialect: str | None = None) -> str:
    """Explain every measure a string names (``nDCG@10``, ``P.5,10``), as ``dialect`` defines it if given."""
    from .dialects import resolve_dialect
    from .pipeline.plan import resolve_policies

    chosen, note = resolve_dialect(dialect) if dialect else (None, None)
    policies = resolve_policies(chosen, rel_level=rel_level)
    parts = []
    for _, measure in parse_measures(text):
        bound = chosen.bind(measure, rel_level) if chosen else measure
        part = explain_measure(bound, policies)
        if chosen:
            part += f"Dialect: {chosen.key} ({chosen.label}) — {chosen.summary}\nFollows: {chosen.source}\n"
            part += "".join(f"Known library bug: {bug}\n" for bug in chosen.known_bugs)
            part += "".join(f"Caveat: {caveat}\n" for caveat in chosen.caveats)
            part += f"Note: {note}\n" if note else ""
        parts.append(part)
    return "\n".join(parts)


def list_dialects() -> str:
    """Every dialect binding: name@version, versions covered, summary, source, and how it is proven."""
    from .dialects import DIALECTS

    lines = []
    for d in DIALECTS:
        lines += [
            f"{d.key:<18} {d.label}: {d.summary}",
            f"{'':<18} follows {d.source}",
            f"{'':<18} proven: {d.verified}",
        ]
    return "\n".join(lines) + "\n"


def dialect_table(qrels: str, run: str, measures: list[str], rel_level: int, **inputs: Any) -> str:
    """The spread of one run over every dialect as a terminal table (rich)."""
    import io

    from rich.console import Console
    from rich.table import Table

    from .compare_dialects import compare_dialects

    comparison = compare_dialects(qrels, run, measures, rel_level=rel_level, **inputs)
    table = Table()
    table.add_column("group", justify="right")
    table.add_column("dialect", style="bold")
    for key in comparison.keys:
        table.add_column(key, justify="right")
    table.add_column("why it differs from trec_eval")
    for row in sorted(comparison.rows, key=lambda r: r.group):
        cells = ["–" if v != v else f"{v:.4f}" for v in (row.values[k] for k in comparison.keys)]
        table.add_row(str(row.group), row.dialect, *cells, "; ".join(row.reasons) or "–")
    buffer = io.StringIO()
    Console(file=buffer, width=160, color_system=None).print(table)
    return buffer.getvalue()
