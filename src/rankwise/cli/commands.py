"""The evaluation commands: ``rankwise evaluate``, ``measures``, ``explain``, ``dialects``."""

from __future__ import annotations

import dataclasses
from typing import Any

import click

from ..comparison.methods import IntervalMethod
from ..errors import RankwiseError
from ..limits import MAX_RESAMPLES
from ..pipeline.formats import FORMATS
from .common import echo_result, fail_cleanly, format_option, progress_bar
from .options import INPUT_OPTIONS, MEASURES, evaluation_options, to_evaluation_options


@click.command(short_help="Evaluate a run against qrels.")
@click.argument("qrels")
@click.argument("run")
@evaluation_options(MEASURES)
@click.option("-q", "--per-query", is_flag=True, help="Also print the value of every query.")
@evaluation_options("rel_level", "all_queries", "queries", "depth", "judged_only", "ties", "scores")
@format_option(FORMATS, "trec = trec_eval's exact layout; json = {aggregate, per_query}; csv = long rows.")
@evaluation_options("dialect", "stream")
@click.option("--quiet", is_flag=True, help="No progress bar (it is shown only on a terminal, for long work).")
@evaluation_options("subtopics", "features", "baseline", "grades", *INPUT_OPTIONS, "item_groups", "samples", "groups")
@click.option("--interval", type=click.Choice([i.value for i in IntervalMethod]), default="t", show_default=True,
              help="Intervals of the --groups table's means: t, or bootstrap percentile or BCa (seed 0; its work grows "
                   "with queries x resamples).")
@click.option("--resamples", type=click.IntRange(1, MAX_RESAMPLES), default=10_000, show_default=True,
              help="Bootstrap resamples of the --groups table's intervals.")
@click.option("--gap-interval", type=click.Choice(["welch", "stratified", "fairlearn", "none"]), default="welch",
              show_default=True,
              help="Intervals of the --groups table's gaps: Welch's t interval of the difference, or bootstrap ones "
                   "of the difference, ratio and MAD (groups resampled apart, or fairlearn MetricFrame's resampling; "
                   "their work grows with queries x resamples), or none.")
@fail_cleanly
def evaluate(
    qrels: str,
    run: str,
    measures: tuple[str, ...],
    per_query: bool,
    output_format: str,
    quiet: bool,
    interval: str,
    resamples: int,
    gap_interval: str,
    evaluation: dict[str, Any],
) -> None:
    """Evaluate RUN against QRELS (TREC text, .gz, CSV/TSV with a header, or parquet)."""  # fmt: skip
    from ..pipeline.evaluate import evaluate_with

    options = to_evaluation_options(evaluation)
    if options.groups is not None and output_format == "trec":
        raise RankwiseError("--groups: trec_eval's layout has no place for groups; use --format table, json or csv")
    with progress_bar(enabled=not quiet) as progress:
        result = evaluate_with(qrels, run, list(measures) or None, dataclasses.replace(options, progress=progress))
    echo_result(result, output_format, per_query, with_runid=not measures or "official" in measures,
                group_intervals={"interval": interval, "resamples": resamples,
                                 "gap_interval": gap_interval})  # fmt: skip


@click.command("measures", short_help="List every measure.")
def list_measures() -> None:
    """List every measure with a one-line definition."""
    from .explain import list_measures as text

    click.echo(text(), nl=False)


@click.command(short_help="Define a measure, as rankwise or a dialect computes it.")
@click.argument("measure")
@click.option("-l", "--rel-level", type=int, default=1, show_default=True, help="Evaluation relevance threshold.")
@click.option(
    "--dialect", default=None, metavar="NAME[@VERSION]", help="Explain the measure as this library defines it."
)
@fail_cleanly
def explain(measure: str, rel_level: int, dialect: str | None) -> None:
    """Print MEASURE's full definition, formula and every parameter value in force."""
    from .explain import explain as text

    click.echo(text(measure, rel_level=rel_level, dialect=dialect), nl=False)


@click.command(short_help="List the dialects, or compare a run under every one.")
@click.argument("qrels", required=False)
@click.argument("run", required=False)
@evaluation_options(MEASURES, "rel_level", help_texts={MEASURES: "Measures to compare (repeatable).",
                                                       "rel_level": "Evaluation relevance threshold."})
@format_option(("table", "json", "csv"),
               "table = fitted to the terminal; json; csv = one row per dialect (and measure).")  # fmt: skip
@evaluation_options(*INPUT_OPTIONS)
@fail_cleanly
def dialects(
    qrels: str | None,
    run: str | None,
    measures: tuple[str, ...],
    output_format: str,
    evaluation: dict[str, Any],
) -> None:
    """Without files: list the dialects. With one NAME: the library's own metric names that dialect reads. With QRELS
    RUN: one row per dialect, equal values grouped, and why."""
    from .explain import show_dialects

    if qrels is not None and run is None:  # rankwise dialects NAME: the library's own metric names
        from .explain import show_library_names

        click.echo(show_library_names(output_format, qrels), nl=False)
    elif qrels is None or run is None:  # the list: no input options to read (and no engine to import)
        click.echo(show_dialects(output_format, None, None, [], 1, {}), nl=False)
    elif measures:
        inputs = to_evaluation_options(evaluation).keywords()
        rel_level = inputs.pop("rel_level")
        click.echo(show_dialects(output_format, qrels, run, list(measures), rel_level, inputs), nl=False)
    else:
        raise RankwiseError("give the measures to compare with -m, e.g. -m AP@10 -m nDCG@10")
