"""The report's plots (matplotlib, an optional extra: ``pip install '.[report]'``): per measure the systems with
their intervals, measure@k curves, sorted per-query differences against the other system of each pair,
interpolated precision–recall curves and one measure under every dialect. Figures are made without pyplot (no
global state, no display needed) and can be written as PNG or SVG."""

from __future__ import annotations

import base64
import io
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import RankwiseError
from ...wording import install_hint
from ..groups import GroupComparison, compare_groups
from ..systems import Comparison, SystemSummary
from .figures import Curves, Spread, cutoff_curves, dialect_spread, precision_recall
from .marks import letter

if TYPE_CHECKING:
    from matplotlib.figure import Figure

IMAGE_FORMATS = ("png", "svg")


def new_figure(width: float, height: float) -> Figure:
    """A matplotlib figure, or a clear error naming the install command when matplotlib is missing."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise RankwiseError(f"plots and the HTML report need matplotlib: {install_hint('report')}") from None
    return Figure(figsize=(width, height), layout="constrained")


def plain(text: str) -> str:
    """``text`` as matplotlib shows it literally: each ``$`` escaped, so a name such as ``a$b`` or ``c$^{`` is never
    read as mathtext (matplotlib parses text between two unescaped ``$`` as TeX math, and fails on bad math)."""
    return str(text).replace("$", r"\$")


def _grid(count: int, per_row: int = 3) -> tuple[int, int]:
    columns = min(count, per_row)
    return math.ceil(count / columns), columns


def _axes(figure: Figure, count: int, per_row: int = 3) -> list[Any]:
    rows, columns = _grid(count, per_row)
    return list(np.atleast_1d(figure.subplots(rows, columns, squeeze=False)).ravel())


def intervals_figure(comparison: Comparison) -> Figure:
    """One panel per measure: each system's mean with its interval."""
    rows, columns = _grid(len(comparison.keys))
    figure = new_figure(3.6 * columns, 2.8 * rows)
    axes = _axes(figure, len(comparison.keys))
    x = np.arange(len(comparison.systems))
    for ax, key in zip(axes, comparison.keys):
        _errorbars(ax, x, [comparison.summary(s, key) for s in comparison.systems], capsize=4)
        ax.set_xticks(x, [plain(f"{letter(i)}: {s}") for i, s in enumerate(comparison.systems)], rotation=30,
                      ha="right")  # fmt: skip
        ax.set_title(plain(key))
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[len(comparison.keys) :]:
        ax.set_visible(False)
    return figure


def _errorbars(ax: Any, x: np.ndarray, summaries: list[SystemSummary], **style: Any) -> None:
    """Each summary's mean at ``x`` with its interval as an error bar (none where the interval is undefined; a
    bootstrap interval that leaves out the mean, or one of a constant vector off by rounding, is drawn to the mean)."""
    means = np.array([s.mean for s in summaries])
    below = np.clip(np.nan_to_num(means - np.array([s.low for s in summaries])), 0.0, None)
    above = np.clip(np.nan_to_num(np.array([s.high for s in summaries]) - means), 0.0, None)
    ax.errorbar(x, means, yerr=[below, above], fmt="o", **style)


def curves_figure(curves: Curves, systems: tuple[str, ...], xlabel: str) -> Figure:
    """One panel per curve, a line per system."""
    rows, columns = _grid(len(curves.values))
    figure = new_figure(3.8 * columns, 2.9 * rows)
    axes = _axes(figure, len(curves.values))
    for ax, (name, values) in zip(axes, curves.values.items()):
        for system, row in zip(systems, values):
            ax.plot(curves.x, row, marker="." if len(curves.x) <= 30 else None, label=plain(system))
        ax.set_title(plain(name))
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize="small")
    for ax in axes[len(curves.values) :]:
        ax.set_visible(False)
    return figure


def differences_figure(comparison: Comparison) -> Figure:
    """A row per measure, a panel per pair: the per-query differences (system − against), sorted."""
    pairs = list(dict.fromkeys((c.system, c.against) for c in comparison.comparisons))
    figure = new_figure(3.4 * len(pairs), 2.4 * len(comparison.keys))
    axes = figure.subplots(len(comparison.keys), len(pairs), squeeze=False)
    index = {name: i for i, name in enumerate(comparison.systems)}
    for m, key in enumerate(comparison.keys):
        for p, (system, against) in enumerate(pairs):
            ax = axes[m, p]
            d = comparison.values[index[system], m] - comparison.values[index[against], m]
            d = np.sort(d[~np.isnan(d)])
            ax.bar(np.arange(d.size), d, width=1.0, color=np.where(d >= 0, "tab:blue", "tab:red"))
            ax.axhline(0, color="black", linewidth=0.6)
            ax.set_title(plain(f"{key}: {system} − {against}"), fontsize="small")
            ax.set_xticks([])
    return figure


def spread_figure(spread: Spread, systems: tuple[str, ...]) -> Figure:
    """The measure of each system under every dialect (a dot per dialect; trec_eval's value as a bar)."""
    figure = new_figure(max(4.0, 1.6 * len(systems)), 3.2)
    ax = figure.subplots()
    for i, values in enumerate(spread.values):
        numbers = np.array([v for v in values.values() if not math.isnan(v)])
        jitter = np.linspace(-0.15, 0.15, numbers.size) if numbers.size > 1 else np.zeros(numbers.size)
        ax.scatter(i + jitter, numbers, s=12, alpha=0.7)
        default = next((v for d, v in values.items() if d.startswith("trec_eval")), math.nan)
        ax.hlines(default, i - 0.25, i + 0.25, color="black")
    ax.set_xticks(range(len(systems)), [plain(s) for s in systems], rotation=30, ha="right")
    ax.set_title(plain(f"{spread.measure} under every dialect (bar: trec_eval)"))
    ax.grid(axis="y", alpha=0.3)
    return figure


def groups_figure(by_group: GroupComparison) -> Figure:
    """One panel per measure: each group on the x axis, each system's mean in it with its interval (``by_group``
    with at least one part)."""
    parts = by_group.parts
    keys, systems = parts[0][1].keys, parts[0][1].systems
    rows, columns = _grid(len(keys))
    figure = new_figure(max(3.8, 0.9 * len(parts)) * columns, 3.0 * rows)
    axes = _axes(figure, len(keys))
    x = np.arange(len(parts))
    offsets = np.linspace(-0.2, 0.2, len(systems)) if len(systems) > 1 else np.zeros(len(systems))
    for ax, key in zip(axes, keys):
        for offset, system in zip(offsets, systems):
            summaries = [part.summary(system, key) for _, part in parts]
            _errorbars(ax, x + offset, summaries, capsize=3, label=plain(system))
        ax.set_xticks(x, [plain(g) for g, _ in parts], rotation=30, ha="right")
        ax.set_title(plain(f"{key} by {by_group.name}"))
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize="small")
    for ax in axes[len(keys) :]:
        ax.set_visible(False)
    return figure


def report_figures(
    comparison: Comparison, max_k: int | None = None, spread_measure: str | None = None,
    by_group: GroupComparison | None = None,
) -> tuple[dict[str, Figure], list[str]]:  # fmt: skip
    """Every plot of the report by file name, and a line for each plot that could not be made and why.

    ``max_k``: the largest k of the measure@k curves; ``spread_measure``: the measure shown under every dialect
    (default the first compared; ``""`` leaves the plot out: it evaluates each run once per dialect); ``by_group``:
    the comparison within each group (:func:`rankwise.comparison.groups.compare_groups`, made when not given), a
    plot of each measure by group when the comparison has groups."""
    figures = {"intervals": intervals_figure(comparison), "differences": differences_figure(comparison)}
    by_group = by_group or compare_groups(comparison)
    if by_group is not None and by_group.parts:
        figures["groups"] = groups_figure(by_group)
    skipped = []
    curves = cutoff_curves(comparison, max_k)
    if curves.values:
        figures["cutoffs"] = curves_figure(curves, comparison.systems, "cutoff k")
    else:
        skipped.append("measure@k curves: no compared measure takes a rank cutoff")
    try:
        figures["precision_recall"] = curves_figure(precision_recall(comparison), comparison.systems, "recall")
    except RankwiseError as exc:
        skipped.append(f"precision–recall curves: {exc}")
    measure = comparison.keys[0] if spread_measure is None else spread_measure
    if measure:
        try:
            figures["dialects"] = spread_figure(dialect_spread(comparison, measure), comparison.systems)
        except RankwiseError as exc:
            skipped.append(f"dialect spread: {exc}")
    return figures, skipped


def encode(figure: Figure, image_format: str = "png") -> bytes:
    """The figure as PNG (110 dpi) or SVG bytes."""
    if image_format not in IMAGE_FORMATS:
        raise RankwiseError(f"unknown image format {image_format!r}; choose one of {', '.join(IMAGE_FORMATS)}")
    buffer = io.BytesIO()
    figure.savefig(buffer, format=image_format, dpi=110)
    return buffer.getvalue()


def data_uri(figure: Figure, image_format: str = "png") -> str:
    """The figure as a ``data:`` URI for an ``<img>`` tag (a self-contained page needs no other file)."""
    mime = "image/png" if image_format == "png" else "image/svg+xml"
    return f"data:{mime};base64," + base64.b64encode(encode(figure, image_format)).decode("ascii")


def save_figures(figures: dict[str, Figure], directory: str | Path, image_format: str = "png") -> list[Path]:
    """Write each figure as ``DIRECTORY/NAME.png`` (or ``.svg``); the paths written."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, figure in figures.items():
        path = folder / f"{name}.{image_format}"
        path.write_bytes(encode(figure, image_format))
        written.append(path)
    return written


__all__ = [
    "IMAGE_FORMATS",
    "curves_figure",
    "data_uri",
    "differences_figure",
    "encode",
    "groups_figure",
    "intervals_figure",
    "plain",
    "report_figures",
    "save_figures",
    "spread_figure",
]
