"""The comparison report of :mod:`rankwise.compat.ranx`: ranx's ``Report`` (``ranx/data_structures/report.py``,
ranx 0.3.21): ``to_table``/``str`` (tabulate's ``simple`` layout, which ranx prints), ``to_latex``, ``to_dict``,
``to_dataframe``, ``save``, written as ranx writes them from the means, p-values and win/tie/loss counts that
:func:`rankwise.compat.ranx.compare` computes with :func:`rankwise.compare`. Superscripts as ranx: a system carries
the letter of every system it is significantly better than (p ≤ ``max_p`` and a higher mean). Reference: ranx
(Bassani, ECIR 2022)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

LETTERS = list("abcdefghijklmnopqrstuvwxyz")
SUPER_LETTERS = list("ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ")  # ranx's: no Unicode superscript q, so ۹

METRIC_LABELS = {
    "hits": "Hits", "hit_rate": "Hit Rate", "precision": "P", "recall": "Recall", "f1": "F1",
    "r-precision": "R-Prec", "mrr": "MRR", "map": "MAP", "dcg": "DCG", "dcg_burges": "DCG Burges", "ndcg": "NDCG",
    "ndcg_burges": "NDCG Burges", "bpref": "BPref", **{f"rbp.{i}": f"RBP.{i}" for i in range(1, 100)},
}  # fmt: skip
"""ranx's column labels of its metric names (``report.py`` ``metric_labels``)."""

STAT_TEST_LABELS = {"fisher": "Fisher's randomization test", "student": "paired Student's t-test",
                    "tukey": "Tukey's HSD test"}  # fmt: skip


class FrozensetDict(dict):  # type: ignore[type-arg]
    """ranx's ``FrozensetDict``: a dict keyed by unordered pairs, ``d[a, b] is d[b, a] is d[{a, b}]``."""

    def __getitem__(self, key: Iterable[Any]) -> Any:
        return super().__getitem__(frozenset(key))

    def __setitem__(self, key: Iterable[Any], value: Any) -> None:
        super().__setitem__(frozenset(key), value)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, Iterable) and super().__contains__(frozenset(key))


class Report:
    """ranx's comparison report: ``results[model][metric]`` the mean, ``comparisons[model, other][metric]`` the
    ``{"p_value", "significant"}`` of the pair, ``win_tie_loss[(model, other)][metric]`` ``{"W", "T", "L"}``
    (queries where ``model`` is higher, equal, lower). Printing and exporting follow ``ranx/data_structures/
    report.py`` (ranx 0.3.21; Bassani, ECIR 2022)."""

    def __init__(self, model_names: list[str], results: dict[str, dict[str, float]], comparisons: FrozensetDict,
                 metrics: list[str], max_p: float, win_tie_loss: dict[tuple[str, str], dict[str, dict[str, int]]],
                 rounding_digits: int = 3, show_percentages: bool = False,
                 stat_test: str = "student") -> None:  # fmt: skip
        self.model_names = model_names
        self.results = results
        self.comparisons = comparisons
        self.metrics = metrics
        self.max_p = max_p
        self.win_tie_loss = win_tie_loss
        self.rounding_digits = rounding_digits
        self.show_percentages = show_percentages
        self.stat_test = stat_test

    def format_score(self, score: float) -> str:
        """The mean rounded to ``rounding_digits`` decimals (as a percentage with two fewer, ``show_percentages``)."""
        if self.show_percentages:
            digits = max(0, self.rounding_digits - 2)
            return f"%.{self.rounding_digits - 2}f" % round(score * 100, digits)
        return f"%.{self.rounding_digits}f" % round(score, self.rounding_digits)

    def _beats(self, model: str, other: str, metric: str) -> bool:
        """Whether ``model`` is significantly better than ``other`` (ranx: significant and a higher mean)."""
        return (model != other and bool(self.comparisons[model, other][metric]["significant"])
                and self.results[model][metric] > self.results[other][metric])  # fmt: skip

    def get_superscript_for_table(self, model: str, metric: str) -> str:
        """Superscript letters of the systems ``model`` beats on ``metric``."""
        return "".join(
            SUPER_LETTERS[j] for j, other in enumerate(self.model_names) if self._beats(model, other, metric)
        )

    def get_superscript_for_latex(self, model: str, metric: str) -> str:
        """Plain letters of the systems ``model`` beats on ``metric``."""
        return "".join(LETTERS[j] for j, other in enumerate(self.model_names) if self._beats(model, other, metric))

    def get_phantoms_for_latex(self, model: str, metric: str) -> str:
        """Letters of the other systems ``model`` does not beat (LaTeX phantoms keep the columns aligned)."""
        return "".join(LETTERS[j] for j, other in enumerate(self.model_names)
                       if other != model and not self._beats(model, other, metric))  # fmt: skip

    def get_metric_label(self, metric: str) -> str:
        """ranx's column label: ``ndcg@10-l2`` → ``NDCG@10-l2``."""
        name, _, level = metric.partition("-l")
        base, at, cutoff = name.partition("@")
        label = METRIC_LABELS[base] + (f"@{cutoff}" if at else "")
        return f"{label}-l{level}" if level else label

    def get_stat_test_label(self, stat_test: str) -> str:
        """The test's name in the LaTeX caption (ranx's ``stat_test_labels``)."""
        return STAT_TEST_LABELS[stat_test]

    def to_table(self) -> str:
        """The report as ranx prints it: ``#``, ``Model`` and one column per metric, each mean with the superscripts
        of the systems it beats, in tabulate's ``simple`` layout."""
        rows = [[LETTERS[i], model] + [self.format_score(score) + self.get_superscript_for_table(model, metric)
                                       for metric, score in scores.items()]
                for i, (model, scores) in enumerate(self.results.items())]  # fmt: skip
        return simple_table(rows, ["#", "Model", *map(self.get_metric_label, self.metrics)])

    def to_latex(self) -> str:
        """The report as ranx's LaTeX table (booktabs): the best mean of each metric in bold, superscripts of the
        systems beaten, phantoms of the others."""
        best: dict[str, str | None] = {}
        for m in self.metrics:
            best_model, best_score = None, 0.0
            for model in self.model_names:
                if best_score < round(self.results[model][m], self.rounding_digits):
                    best_score, best_model = round(self.results[model][m], self.rounding_digits), model
            best[m] = best_model
        preamble = ("========================\n% Add in preamble\n\\usepackage{graphicx}\n\\usepackage{booktabs}\n"
                    "========================\n\n")  # fmt: skip
        prefix = ("% To change the table size, act on the resizebox argument `0.8`.\n\\begin{table*}[ht]\n\\centering\n"
                  "\\caption{\nOverall effectiveness of the models.\nThe best results are highlighted in boldface.\n"
                  "Superscripts denote significant differences in " + self.get_stat_test_label(self.stat_test)
                  + " with $p \\le " + str(self.max_p) + "$.\n}\n\\resizebox{0.8\\textwidth}{!}{\n\\begin{tabular}{c|l"
                  + "|c" * len(self.metrics) + "}\n\\toprule\n\\textbf{\\#}\n& \\textbf{Model}"
                  + "".join(f"\n& \\textbf{{{self.get_metric_label(m)}}}" for m in self.metrics)
                  + " \\\\ \n\\midrule")  # fmt: skip
        content = []
        for i, model in enumerate(self.model_names):
            cells = []
            for m in self.metrics:
                score = self.format_score(self.results[model][m])
                score = f"\\textbf{{{score}}}" if best[m] == model else score
                cells.append(f"{score}$^{{{self.get_superscript_for_latex(model, m)}}}$"
                             f"\\hphantom{{$^{{{self.get_phantoms_for_latex(model, m)}}}$}} &")  # fmt: skip
            cells[-1] = cells[-1][:-1]
            content.append(f"{LETTERS[i]} &\n{model} &\n" + "\n".join(cells) + "\\\\")
        body = "\n".join(content).replace("_", "\\_").replace("$^{}$", "")
        suffix = "\\bottomrule\n\\end{tabular}\n}\n\\label{tab:results}\n\\end{table*}"
        return preamble + "\n" + prefix + "\n" + body + "\n" + suffix

    def to_dict(self) -> dict[str, Any]:
        """ranx's dict: ``stat_test``, ``metrics``, ``model_names``, then per model its ``scores``, its
        ``comparisons`` (p-value per other model and metric) and ``win_tie_loss``."""
        out: dict[str, Any] = {"stat_test": self.stat_test, "metrics": self.metrics, "model_names": self.model_names}
        for m1 in self.model_names:
            entry: dict[str, Any] = {"scores": self.results[m1], "comparisons": {}, "win_tie_loss": {}}
            for m2 in self.model_names:
                if m1 != m2:
                    entry["comparisons"][m2] = {m: self.comparisons[{m1, m2}][m]["p_value"] for m in self.metrics}
                    entry["win_tie_loss"][m2] = {m: self.win_tie_loss[(m1, m2)][m] for m in self.metrics}
            out[m1] = entry
        return out

    def to_dataframe(self) -> Any:
        """A pandas DataFrame: one row per model (``model_names``), one column per metric (needs pandas)."""
        import pandas as pd

        scores = {name: self.results[name] for name in self.model_names}
        frame = pd.DataFrame.from_dict(scores, orient="index")
        return frame.reset_index().rename(columns={"index": "model_names"})

    def save(self, path: str) -> None:
        """:meth:`to_dict` as JSON (indent 4)."""
        with open(path, "w") as f:
            f.write(json.dumps(self.to_dict(), indent=4))

    def print_results(self) -> None:
        """Print ``results`` as JSON (indent 4), as ranx does."""
        print(json.dumps(self.results, indent=4))

    def __repr__(self) -> str:
        return self.to_table()

    def __str__(self) -> str:
        return self.to_table()


def simple_table(rows: Sequence[Sequence[str]], headers: Sequence[str]) -> str:
    """``tabulate(rows, headers)`` in its default ``simple`` format, as ranx prints reports: a column whose cells
    all read as numbers is reformatted by ``format(float, "g")`` (``0.2390`` → ``0.239``), aligned on the decimal
    point and to the right; any other column to the left; every column at least its header's width + 2, columns
    two spaces apart, a dashed rule under the headers (python-tabulate ``_column_type``, ``_align_column``)."""
    columns = [list(col) for col in zip(*rows)] if rows else [[] for _ in headers]
    out_cols, widths, numeric = [], [], []
    for header, cells in zip(headers, columns):
        kind = _column_kind(cells)
        if kind == "float":
            cells = [format(float(c), "g") for c in cells]
        elif kind == "int":
            cells = [str(int(c)) for c in cells]
        if kind != "str":
            after = [_after_point(c) for c in cells]
            most = max(after, default=0)
            cells = [c + " " * (most - a) for c, a in zip(cells, after)]
        width = max([len(header) + 2, *(len(c) for c in cells)])
        out_cols.append([c.rjust(width) if kind != "str" else c.ljust(width) for c in cells])
        widths.append(width)
        numeric.append(kind != "str")
    head = "  ".join(h.rjust(w) if n else h.ljust(w) for h, w, n in zip(headers, widths, numeric))
    lines = [head.rstrip(), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(row).rstrip() for row in zip(*out_cols)]
    return "\n".join(lines)


def _column_kind(cells: Sequence[str]) -> str:
    """tabulate's column type: ``int`` if every cell reads as an integer, ``float`` as a number, else ``str``."""
    if not cells:
        return "str"
    if all(_reads(c, int) for c in cells):
        return "int"
    return "float" if all(_reads(c, float) for c in cells) else "str"


def _reads(text: str, kind: type) -> bool:
    try:
        value = kind(text)
    except ValueError:
        return False
    return not (kind is float and math.isinf(value) and "inf" not in text.lower())


def _after_point(text: str) -> int:
    """Characters after the decimal point (or the exponent's ``e``); -1 for an integer."""
    if _reads(text, int):
        return -1
    pos = text.rfind(".")
    pos = text.lower().rfind("e") if pos < 0 else pos
    return len(text) - pos - 1 if pos >= 0 else -1


__all__ = ["FrozensetDict", "Report", "simple_table"]
