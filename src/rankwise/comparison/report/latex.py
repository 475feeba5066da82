"""The LaTeX table (booktabs): one row per system, the mean of each measure with significance superscripts as
ranx writes them (letters of the systems it is significantly better than, the others as phantoms so the numbers
stay aligned), the best mean in bold, and a caption that states the test, the correction and α."""

from __future__ import annotations

from ..groups import GroupComparison
from ..systems import Comparison
from .marks import beaten, caption, letter, number

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}  # fmt: skip


def escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_SPECIAL.get(ch, ch) for ch in text)


def format_latex(comparison: Comparison, digits: int = 4, label: str = "tab:comparison",
                 by_group: GroupComparison | None = None, title: str = "") -> str:  # fmt: skip
    """A ``table`` environment; needs ``\\usepackage{booktabs}``. With ``by_group``, one more table per group over
    its queries (label ``LABEL-N`` for the N-th group, the group named first in its caption)."""
    systems = comparison.systems
    best = {key: max((comparison.summary(s, key).mean for s in systems), default=float("nan"))
            for key in comparison.keys}  # fmt: skip
    rows = []
    for i, system in enumerate(systems):
        cells = []
        for key in comparison.keys:
            mean = comparison.summary(system, key).mean
            text = number(mean, digits)
            if round(mean, digits) == round(best[key], digits):
                text = rf"\textbf{{{text}}}"
            marks = [letter(j) for j in beaten(comparison, system, key)]
            phantoms = [letter(j) for j in range(len(systems)) if j != i and letter(j) not in marks]
            cell = text + (f"$^{{{''.join(marks)}}}$" if marks else "")
            cell += rf"\hphantom{{$^{{{''.join(phantoms)}}}$}}" if phantoms else ""
            cells.append(cell)
        rows.append(f"{letter(i)} & {escape(system)} & " + " & ".join(cells) + r" \\")
    text = caption(comparison).replace("α", r"$\alpha$")
    header = " & ".join(rf"\textbf{{{escape(k)}}}" for k in comparison.keys)
    return "\n".join([
        r"% needs \usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{escape(title)}{escape_text(text)} The best mean of each measure is in bold.}}",
        rf"\label{{{label}}}",
        r"\begin{tabular}{cl" + "r" * len(comparison.keys) + "}",
        r"\toprule",
        rf"\textbf{{\#}} & \textbf{{System}} & {header} \\",
        r"\midrule",
        *rows,
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}",
    ]) + "\n" + "".join(format_latex(part, digits, f"{label}-{n}", title=f"{heading}. ")
                        for n, (heading, part) in enumerate(by_group.headed() if by_group else (), 1))  # fmt: skip


def escape_text(text: str) -> str:
    """Escape a caption that already holds LaTeX math (``$\\alpha$``): everything outside ``$...$``."""
    parts = text.split("$")
    return "$".join(part if i % 2 else escape(part).replace("−", "--") for i, part in enumerate(parts))


__all__ = ["escape", "format_latex"]
