"""One self-contained HTML page: the systems table, the comparisons, every plot embedded as a data URI, the
caption and the notes. No scripts, fonts or style sheets from the network. The tables fit the window (1,200 px and
narrower): names and test descriptions wrap at spaces, headers too; numbers stay on one line; a table that cannot fit
even so scrolls inside its own box, not the page."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from ..groups import GroupComparison
from ..systems import Comparison
from .marks import caption, interval, letter, number, p_text, superscript
from .plots import data_uri

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 75em; color: #222; padding: 0 1em; }
table { border-collapse: collapse; margin: 1em 0; max-width: 100%; }
th, td { padding: 0.3em 0.6em; border-bottom: 1px solid #ccc; text-align: right; white-space: nowrap; }
th { white-space: normal; }
td.text { white-space: normal; overflow-wrap: break-word; }
th:first-child, td:first-child, td.text { text-align: left; }
.fit { max-width: 100%; overflow-x: auto; }
tr.significant td { background: #eef6ee; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; } figcaption { color: #555; font-size: 0.9em; }
.caption { color: #444; } .notes { color: #666; font-size: 0.9em; }
"""

FIGURE_CAPTIONS = {
    "intervals": "Each system's mean with its interval, per measure.",
    "cutoffs": "Each measure at cutoffs k = 1..K (mean over queries).",
    "differences": "Per-query differences, sorted: blue where the system is higher, red where it is lower.",
    "precision_recall": "Interpolated precision at 11 recall levels (trec_eval's iprec_at_recall), mean over queries.",
    "dialects": "The first measure as every dialect computes it: how much the number depends on the library.",
    "groups": "Each measure by group: each system's mean over the group's queries with its interval.",
}


def format_html(
    comparison: Comparison,
    figures: dict[str, Figure],
    skipped: list[str] | None = None,
    image_format: str = "png",
    title: str = "rankwise comparison",
    by_group: GroupComparison | None = None,
) -> str:
    """The page, with ``figures`` (from :func:`rankwise.comparison.report.plots.report_figures`) embedded; with
    ``by_group``, the systems and the comparisons within each group after the comparisons."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f'<p class="caption">{escape(caption(comparison))}</p>',
        "<h2>Systems</h2>",
        _systems_table(comparison),
        "<h2>Comparisons</h2>",
        _pairs_table(comparison),
    ]
    for heading, part in by_group.headed() if by_group is not None else ():
        parts += [f"<h2>{escape(heading)}</h2>", _systems_table(part), _pairs_table(part)]
    parts.append("<h2>Plots</h2>")
    for name, figure in figures.items():
        text = FIGURE_CAPTIONS.get(name, name)
        parts.append(f'<figure><img alt="{escape(text)}" src="{data_uri(figure, image_format)}">'
                     f"<figcaption>{escape(text)}</figcaption></figure>")  # fmt: skip
    notes = [*comparison.notes(), *(f"plot left out: {line}" for line in skipped or [])]
    if notes:
        parts += ["<h2>Notes</h2>", '<ul class="notes">', *(f"<li>{escape(n)}</li>" for n in notes), "</ul>"]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _systems_table(comparison: Comparison) -> str:
    head = "".join(f"<th>{escape(k)}</th>" for k in comparison.keys)
    rows = []
    for i, system in enumerate(comparison.systems):
        cells = []
        for key in comparison.keys:
            s = comparison.summary(system, key)
            cells.append(f"<td>{number(s.mean)}<sup>{superscript(comparison, system, key)}</sup> "
                         f"<small>{interval(s.low, s.high)}</small></td>")  # fmt: skip
        rows.append(f'<tr><td>{letter(i)}</td><td class="text">{escape(system)}</td>{"".join(cells)}</tr>')
    return f"<div class=\"fit\"><table><tr><th>#</th><th>system</th>{head}</tr>{''.join(rows)}</table></div>"


def _pairs_table(comparison: Comparison) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("measure", "system", "against", "difference", "interval", "p",
                                            "p adjusted", "Cohen's d", "W/T/L", "test"))  # fmt: skip
    rows = []
    for c in comparison.comparisons:
        row_class = ' class="significant"' if c.significant else ""
        text = [f'<td class="text">{escape(cell)}</td>' for cell in (c.measure, c.system, c.against)]
        numbers = [f"{c.difference:+.4f}", interval(c.low, c.high), p_text(c.p_value), p_text(c.p_adjusted),
                   number(c.cohens_d, 2), f"{c.wins}/{c.ties}/{c.losses}"]  # fmt: skip
        rows.append(f"<tr{row_class}>" + "".join(text) + "".join(f"<td>{cell}</td>" for cell in numbers)
                    + f'<td class="text">{escape(c.method)}</td></tr>')  # fmt: skip
    return f"<div class=\"fit\"><table><tr>{head}</tr>{''.join(rows)}</table></div>"


__all__ = ["FIGURE_CAPTIONS", "format_html"]
