"""The Markdown report: the systems table (mean, interval, significance letters), the comparisons, the caption."""

from __future__ import annotations

from ..groups import GroupComparison
from ..systems import Comparison
from .marks import caption, interval, letter, number, p_text, superscript


def format_markdown(comparison: Comparison, by_group: GroupComparison | None = None) -> str:
    """GitHub-flavoured Markdown tables; superscripts are Unicode letters, so the text reads the same raw. With
    ``by_group``, a section per group holds the same tables over the group's queries."""
    lines = ["| # | system | " + " | ".join(comparison.keys) + " |",
             "|---|---|" + "---:|" * len(comparison.keys)]  # fmt: skip
    for i, system in enumerate(comparison.systems):
        cells = []
        for key in comparison.keys:
            s = comparison.summary(system, key)
            cells.append(f"{number(s.mean)}{superscript(comparison, system, key)} {interval(s.low, s.high)}")
        lines.append(f"| {letter(i)} | {_cell(system)} | " + " | ".join(cells) + " |")
    lines += ["", caption(comparison), "",
              "| measure | system | against | difference | interval | p | p adj. | Cohen's d | W/T/L |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for c in comparison.comparisons:
        p_adjusted = f"**{p_text(c.p_adjusted)}**" if c.significant else p_text(c.p_adjusted)
        lines.append(f"| {_cell(c.measure)} | {_cell(c.system)} | {_cell(c.against)} | {c.difference:+.4f} | "
                     f"{interval(c.low, c.high)} | {p_text(c.p_value)} | {p_adjusted} | {number(c.cohens_d, 2)} | "
                     f"{c.wins}/{c.ties}/{c.losses} |")  # fmt: skip
    for heading, part in by_group.headed() if by_group is not None else ():
        lines += ["", f"### {_cell(heading)}", "", format_markdown(part).rstrip("\n")]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


__all__ = ["format_markdown"]
