"""The ``rankwise`` command line: ``evaluate``, ``measures``, ``explain``.

Bad input prints one line ``rankwise: error: ...`` on stderr and exits with status 2; notes about queries
left out of the averages go to stderr, results to stdout.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from . import __version__
from .errors import RankwiseError
from .formats import FORMATS
from .policies import QuerySet, TiePolicy


def fail_cleanly(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn rankwise errors and OS errors into one line on stderr and exit status 2."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (RankwiseError, OSError) as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            click.echo(f"rankwise: error: {message}", err=True)
            sys.exit(2)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rankwise")
def main() -> None:
    """Exact, named ranking metrics: trec_eval-compatible by default, every variant documented."""


def _recommendation_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Options for (user, item, rating) ground truth and (user, item, score|rank) recommendation tables."""
    options = [
        click.option("-k", "--cutoffs", default=None, metavar="K[,K...]",
                     help="Give every measure written without a cutoff each of these cutoffs (-m nDCG -k 10,20)."),
        click.option("--threshold", type=float, default=None,
                     help="Qrels values are ratings: relevant when rating >= THRESHOLD (e.g. 4.5)."),
        click.option("--truth-cols", default=None, metavar="USER,ITEM,RATING",
                     help="Column names of a tabular qrels file (query, document, grade or rating)."),
        click.option("--rec-cols", default=None, metavar="USER,ITEM,SCORE",
                     help="Column names of a tabular run (query, document, score; a third named rank is a rank)."),
        click.option("--train", default=None, metavar="FILE",
                     help="Training interactions (user, item): each user's candidates are the catalogue minus them "
                          "(Elliot's AUC family needs them)."),
        click.option("--catalog", type=int, default=None, metavar="N",
                     help="Number of items in the catalogue [default: the items in --train]."),
    ]  # fmt: skip
    for option in reversed(options):
        command = option(command)
    return command


def _input_options(
    cutoffs: str | None,
    threshold: float | None,
    truth_cols: str | None,
    rec_cols: str | None,
    train: str | None,
    catalog: int | None,
) -> dict:
    from .io.tabular import columns_from_names

    ks = None
    if cutoffs:
        try:
            ks = [int(k) for k in cutoffs.split(",") if k.strip()]
        except ValueError:
            raise RankwiseError(f"-k {cutoffs!r}: cutoffs must be integers separated by commas") from None
    return {
        "cutoffs": ks,
        "threshold": threshold,
        "qrels_columns": columns_from_names(truth_cols, "qrels"),
        "run_columns": columns_from_names(rec_cols, "run"),
        "train": train,
        "catalog": catalog,
    }


@main.command()
@click.argument("qrels")
@click.argument("run")
@click.option(
    "-m",
    "--measure",
    "measures",
    multiple=True,
    metavar="MEASURE",
    help="Measure to compute (repeatable): nDCG@10, AP(denom=min_k_R)@20, ndcg_cut.10,20, map, "
    "official ... Default: trec_eval's official set.",
)
@click.option("-q", "--per-query", is_flag=True, help="Also print the value of every query.")
@click.option(
    "-l",
    "--rel-level",
    type=int,
    default=1,
    show_default=True,
    help="Relevance threshold for measures without their own rel (trec_eval -l; nDCG ignores it).",
)
@click.option(
    "-c",
    "--all-queries",
    is_flag=True,
    help="Average over every judged query; queries missing from the run score 0 (trec_eval -c).",
)
@click.option(
    "--queries",
    type=click.Choice([q.value for q in QuerySet]),
    default=None,
    help="Which queries are averaged [default: intersection; -c means qrels].",
)
@click.option("-M", "--depth", type=int, default=None, help="Keep only the top N documents per query (trec_eval -M).")
@click.option(
    "--ties",
    type=click.Choice([t.value for t in TiePolicy]),
    default=None,
    help="Order of documents with equal scores [default: docno_desc, or the dialect's].",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="trec = trec_eval's exact layout; json = {aggregate, per_query}; csv = long rows.",
)
@click.option(
    "--dialect",
    default=None,
    metavar="NAME[@VERSION]",
    help="Compute each measure as this library does (lightgbm, ranx@0.3, ...); `rankwise dialects` lists them.",
)
@_recommendation_options
@fail_cleanly
def evaluate(
    qrels: str,
    run: str,
    measures: tuple[str, ...],
    per_query: bool,
    rel_level: int,
    all_queries: bool,
    queries: str | None,
    depth: int | None,
    ties: str | None,
    output_format: str,
    dialect: str | None,
    cutoffs: str | None,
    threshold: float | None,
    truth_cols: str | None,
    rec_cols: str | None,
    train: str | None,
    catalog: int | None,
) -> None:
    """Evaluate RUN against QRELS (TREC text, .gz, CSV/TSV with a header, or parquet)."""  # fmt: skip
    from .evaluate import evaluate as run_evaluation

    if all_queries and queries not in (None, QuerySet.QRELS.value):
        raise RankwiseError(f"-c contradicts --queries {queries}")
    chosen = QuerySet.QRELS.value if all_queries else queries
    result = run_evaluation(qrels, run, list(measures) or None, ties=ties, queries=chosen, depth=depth,
                            rel_level=rel_level, dialect=dialect,
                            **_input_options(cutoffs, threshold, truth_cols, rec_cols, train, catalog))  # fmt: skip
    echo_result(result, output_format, per_query, with_runid=not measures or "official" in measures)


def echo_notes(notes: list[str]) -> None:
    """Each note as one ``rankwise: note: ...`` line on stderr."""
    for note in notes:
        click.echo(f"rankwise: note: {note}", err=True)


def echo_result(result: Any, output_format: str, per_query: bool, with_runid: bool = False) -> None:
    """Notes to stderr, then the result in ``output_format`` (a key of :data:`FORMATS`) to stdout."""
    from . import formats

    echo_notes(result.notes())
    if output_format == "trec":
        text = formats.format_trec(result, per_query, with_runid)
    elif output_format == "json":
        text = formats.format_json(result)
    elif output_format == "csv":
        text = formats.format_csv(result, per_query)
    else:
        text = formats.format_table(result, per_query)
    click.echo(text, nl=False)


@main.command("measures")
def list_measures() -> None:
    """List every measure with a one-line definition."""
    from .explain import list_measures as text

    click.echo(text(), nl=False)


@main.command()
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


@main.command()
@click.argument("qrels", required=False)
@click.argument("run", required=False)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE", help="Measures to compare (repeatable).")
@click.option("-l", "--rel-level", type=int, default=1, show_default=True, help="Evaluation relevance threshold.")
@_recommendation_options
@fail_cleanly
def dialects(
    qrels: str | None,
    run: str | None,
    measures: tuple[str, ...],
    rel_level: int,
    cutoffs: str | None,
    threshold: float | None,
    truth_cols: str | None,
    rec_cols: str | None,
    train: str | None,
    catalog: int | None,
) -> None:
    """Without files: list the dialects. With QRELS RUN: one row per dialect, equal values grouped, and why."""
    from .explain import dialect_table, list_dialects

    if qrels is None or run is None:
        click.echo(list_dialects(), nl=False)
        return
    if not measures:
        raise RankwiseError("give the measures to compare with -m, e.g. -m AP@10 -m nDCG@10")
    options = _input_options(cutoffs, threshold, truth_cols, rec_cols, train, catalog)
    click.echo(dialect_table(qrels, run, list(measures), rel_level, **options), nl=False)


def _add_ltr() -> None:
    from .ltr.cli import ltr

    main.add_command(ltr)


_add_ltr()

if __name__ == "__main__":  # pragma: no cover
    main()
