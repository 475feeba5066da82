"""``rankwise compare QRELS RUN RUN [RUN ...]``: evaluate several runs, test their differences and write the report
(a terminal table, Markdown, LaTeX, CSV, JSON or a self-contained HTML page; plots as PNG/SVG files).

The evaluation options are ``rankwise evaluate``'s own (the same definitions, :mod:`rankwise.cli.options`), so every
input form, dialect and policy ``evaluate`` takes works here too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..comparison.methods import Correction, IntervalMethod, SignificanceTest
from ..comparison.report import FORMATS
from ..limits import MAX_CURVE_K, MAX_RESAMPLES
from .common import echo_notes, fail_cleanly, format_option
from .options import INPUT_OPTIONS, MEASURES, evaluation_options, to_evaluation_options


@click.command(short_help="Compare runs: paired tests, intervals, effect sizes, reports.")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@evaluation_options(MEASURES, "rel_level", "all_queries", "queries", "depth", "ties", "scores", "dialect")
@click.option(
    "--baseline",
    default=None,
    metavar="NAME|N",
    help="The system the others are compared with: its name or its position (1 = the first run) [default: the first].",
)
@click.option("--all-pairs", is_flag=True, help="Compare every pair of systems instead of each with the baseline.")
@click.option(
    "-t",
    "--test",
    type=click.Choice([t.value for t in SignificanceTest]),
    default="t",
    show_default=True,
    help="Paired test (randomization = Fisher's; tukey = randomised Tukey HSD across all systems).",
)
@click.option(
    "--correction",
    type=click.Choice([c.value for c in Correction]),
    default="holm",
    show_default=True,
    help="Multiple-testing correction over the comparisons of each measure.",
)
@click.option(
    "--correct-across",
    "family",
    type=click.Choice(["measure", "all"]),
    default="measure",
    show_default=True,
    help="Correct over the comparisons of each measure, or over all of them.",
)
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level.")
@click.option(
    "--interval",
    type=click.Choice([i.value for i in IntervalMethod]),
    default="bca",
    show_default=True,
    help="Confidence intervals of means and differences: t, or bootstrap percentile or BCa.",
)
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Confidence level of intervals.")
@click.option(
    "--resamples",
    type=click.IntRange(1, MAX_RESAMPLES),
    default=10_000,
    show_default=True,
    help=f"Bootstrap and Monte Carlo resamples (at most {MAX_RESAMPLES:,}).",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of every resampling.")
@click.option(
    "--missing",
    type=click.Choice(["empty", "drop"]),
    default="empty",
    show_default=True,
    help="A query missing from one run: scored as an empty ranking, or left out of that run's comparisons.",
)
@click.option("--names", default=None, metavar="A,B,...", help="System names, one per run [default: run tags].")
@format_option(FORMATS, "Report format; html is one self-contained page with plots (needs matplotlib).")
@click.option("-o", "--output", default=None, metavar="FILE", help="Write the report to FILE [default: stdout].")
@click.option("--plots", default=None, metavar="DIR", help="Also save every plot in DIR (needs matplotlib).")
@click.option(
    "--plot-format",
    type=click.Choice(["png", "svg"]),
    default="png",
    show_default=True,
    help="Image format of --plots and of the plots inside the HTML page.",
)
@click.option(
    "--curve-k",
    type=click.IntRange(1, MAX_CURVE_K),
    default=None,
    metavar="K",
    help=f"Largest k of the measure@k plots, at most {MAX_CURVE_K} [default: the largest cutoff asked for, or 20].",
)
@click.option(
    "--spread",
    default=None,
    metavar="MEASURE",
    help="Measure plotted under every dialect [default: the first; 'none' leaves the plot out].",
)
@evaluation_options(*INPUT_OPTIONS, "groups")
@fail_cleanly
def compare(qrels: str, runs: tuple[str, ...], evaluation: dict[str, Any], **chosen: Any) -> None:
    """Compare RUNs (two or more) against QRELS: per measure each system's mean with an interval, and each system
    against the baseline (or all pairs) with a paired test, corrected p-values, Cohen's d and win/tie/loss; with
    --groups, the same within each group."""
    from ..comparison.groups import compare_groups
    from ..comparison.report import render
    from ..comparison.systems import compare as run_comparison

    options = to_evaluation_options(evaluation).keywords()
    names = [n.strip() for n in chosen["names"].split(",")] if chosen["names"] else None
    comparison = run_comparison(
        qrels, list(runs), list(chosen["measures"]) or None,
        baseline=chosen["baseline"], pairs="all" if chosen["all_pairs"] else "baseline", test=chosen["test"],
        correction=chosen["correction"], alpha=chosen["alpha"], interval=chosen["interval"],
        confidence=chosen["confidence"], resamples=chosen["resamples"], seed=chosen["seed"],
        missing=chosen["missing"], family=chosen["family"], names=names, **options,
    )  # fmt: skip
    echo_notes(comparison.notes())
    by_group = compare_groups(comparison)
    echo_notes(by_group.caveats if by_group is not None else [])
    spread = "" if (chosen["spread"] or "").lower() == "none" else chosen["spread"]
    report_options: dict[str, Any] = {"by_group": by_group}
    if chosen["output_format"] == "html":
        report_options = {"max_k": chosen["curve_k"], "spread_measure": spread, "image_format": chosen["plot_format"]}
    text = render(comparison, chosen["output_format"], **report_options)
    if chosen["output"]:
        Path(chosen["output"]).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    if chosen["plots"]:
        from ..comparison.report.plots import report_figures, save_figures

        figures, skipped = report_figures(comparison, chosen["curve_k"], spread, by_group)
        echo_notes([f"plot left out: {line}" for line in skipped])
        save_figures(figures, chosen["plots"], chosen["plot_format"])


__all__ = ["compare"]
