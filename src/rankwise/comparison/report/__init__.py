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
    and ``title`` (html); ``by_group``: the comparison within each group
    (:func:`rankwise.comparison.groups.compare_groups`, made here when not given), a section of every format when the
    comparison has groups (``groups=``)."""
    if output_format not in FORMATS:
        raise RankwiseError(f"unknown report format {output_format!r}; choose one of {', '.join(FORMATS)}")
    from ..groups import compare_groups

    by_group = options.pop("by_group", None) or compare_groups(comparison)
    if output_format == "table":
        from .terminal import format_terminal

        return format_terminal(comparison, by_group=by_group, **options)
    if output_format == "markdown":
        from .markdown import format_markdown

        return format_markdown(comparison, by_group)
    if output_format == "latex":
        from .latex import format_latex

        return format_latex(comparison, by_group=by_group, **options)
    if output_format in ("csv", "json"):
        from .data import format_csv, format_json

        return format_csv(comparison, by_group) if output_format == "csv" else format_json(comparison, by_group)
    from .html import format_html
    from .plots import report_figures

    figures, skipped = report_figures(comparison, options.pop("max_k", None), options.pop("spread_measure", None),
                                      by_group)  # fmt: skip
    return format_html(comparison, figures, skipped, by_group=by_group, **options)


__all__ = ["FORMATS", "render"]
