"""Reports of a :class:`rankwise.comparison.systems.Comparison`: a terminal table, Markdown, LaTeX (booktabs), CSV
and JSON of every number, and a self-contained HTML page with plots (matplotlib: ``pip install '.[report]'``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import RankwiseError

if TYPE_CHECKING:  # FORMATS is read without the engine (``rankwise compare -h``)
    from ..systems import Comparison

FORMATS = ("table", "markdown", "latex", "csv", "json", "html")


def render(comparison: Comparison, output_format: str = "table", **options: Any) -> str:
    """The comparison as text in ``output_format`` (one of :data:`FORMATS`).

    Options: ``width`` (table), ``digits`` and ``label`` (latex), ``max_k``, ``spread_measure``, ``image_format``
    and ``title`` (html)."""
    if output_format == "table":
        from .terminal import format_terminal

        return format_terminal(comparison, **options)
    if output_format == "markdown":
        from .markdown import format_markdown

        return format_markdown(comparison)
    if output_format == "latex":
        from .latex import format_latex

        return format_latex(comparison, **options)
    if output_format in ("csv", "json"):
        from .data import format_csv, format_json

        return format_csv(comparison) if output_format == "csv" else format_json(comparison)
    if output_format == "html":
        from .html import format_html
        from .plots import report_figures

        figures, skipped = report_figures(comparison, options.pop("max_k", None), options.pop("spread_measure", None))
        return format_html(comparison, figures, skipped, **options)
    raise RankwiseError(f"unknown report format {output_format!r}; choose one of {', '.join(FORMATS)}")


__all__ = ["FORMATS", "render"]
