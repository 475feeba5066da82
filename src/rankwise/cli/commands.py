"""The evaluation commands: ``rankwise evaluate``, ``measures``, ``explain``, ``dialects``."""

from __future__ import annotations

import click

from ..errors import RankwiseError
from ..io.table import Grades
from ..pipeline.formats import FORMATS
from ..policies import QuerySet, ScorePrecision, TiePolicy
from .common import InputOptions, echo_result, fail_cleanly, progress_bar, recommendation_options


@click.command(short_help="Evaluate a run against qrels.")
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
@click.option("-J", "--judged-only", is_flag=True, default=None,
              help="Remove unjudged documents from each ranking before scoring (trec_eval -J; condensed lists).")
@click.option(
    "--ties",
    type=click.Choice([t.value for t in TiePolicy]),
    default=None,
    help="Order of documents with equal scores [default: docno_desc, or the dialect's].",
)
@click.option(
    "--scores",
    type=click.Choice([p.value for p in ScorePrecision]),
    default=None,
    help="Precision scores are compared at: float32 makes scores closer than float32 precision tie, as "
    "pytrec_eval does [default: float64, or the dialect's].",
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
    help="Compute each measure as this library does (lightgbm, ranx@0.3, ...); 'rankwise dialects' lists them.",
)
@click.option(
    "--stream/--no-stream",
    default=None,
    help="Read the run file in blocks and evaluate it partition by partition, for runs larger than memory (same "
    "numbers) [default: for run files over 1 GiB].",
)
@click.option("--quiet", is_flag=True, help="No progress bar (it is shown only on a terminal, for long work).")
@click.option(
    "--subtopics",
    default=None,
    metavar="FILE",
    help="Subtopic judgments 'query_id subtopic doc_id grade' (TREC Web track diversity qrels) for the intent-aware "
    "measures (alpha-nDCG, ERR-IA, NRBP, P-IA, AP-IA, StRecall). The same file as QRELS: the ordinary judgments are "
    "derived from it (each document's largest grade).",
)
@click.option("--features", default=None, metavar="FILE",
              help="Item features (CSV/TSV/parquet: an item id column and numeric columns) for ILD and Serendipity "
                   "with kind=feature_cosine or feature_hamming.")  # fmt: skip
@click.option("--baseline", default=None, metavar="RUN",
              help="Another model's lists (a run file) for Unexpectedness.")
@click.option("--grades", type=click.Choice(["integer", "real"]), default=None,
              help="Read qrels values as integer grades (trec_eval) or real-valued ones (an LLM judge's 0.73: gains "
                   "as given; measures that threshold grades need rel=) [default: integer].")  # fmt: skip
@recommendation_options
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
    judged_only: bool | None,
    ties: str | None,
    scores: str | None,
    output_format: str,
    dialect: str | None,
    stream: bool | None,
    quiet: bool,
    subtopics: str | None,
    features: str | None,
    baseline: str | None,
    grades: Grades | None,
    inputs: InputOptions,
) -> None:
    """Evaluate RUN against QRELS (TREC text, .gz, CSV/TSV with a header, or parquet)."""  # fmt: skip
    from ..pipeline.evaluate import evaluate as run_evaluation

    if all_queries and queries not in (None, QuerySet.QRELS.value):
        raise RankwiseError(f"-c contradicts --queries {queries}")
    chosen = QuerySet.QRELS.value if all_queries else queries
    with progress_bar(enabled=not quiet) as progress:
        result = run_evaluation(qrels, run, list(measures) or None, ties=ties, queries=chosen, depth=depth,
                                judged_only=judged_only or None,
                                rel_level=rel_level, dialect=dialect, scores=scores, stream=stream,
                                subtopics=subtopics, features=features, baseline=baseline, grades=grades,
                                progress=progress,
                                **inputs.as_arguments())  # fmt: skip
    echo_result(result, output_format, per_query, with_runid=not measures or "official" in measures)


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
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE", help="Measures to compare (repeatable).")
@click.option("-l", "--rel-level", type=int, default=1, show_default=True, help="Evaluation relevance threshold.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
    help="table = fitted to the terminal; json; csv = one row per dialect (and measure).",
)
@recommendation_options
@fail_cleanly
def dialects(
    qrels: str | None,
    run: str | None,
    measures: tuple[str, ...],
    rel_level: int,
    output_format: str,
    inputs: InputOptions,
) -> None:
    """Without files: list the dialects. With QRELS RUN: one row per dialect, equal values grouped, and why."""
    from .explain import show_dialects

    if (qrels is None or run is None) or measures:
        click.echo(show_dialects(output_format, qrels, run, list(measures), rel_level, inputs.as_arguments()), nl=False)
    else:
        raise RankwiseError("give the measures to compare with -m, e.g. -m AP@10 -m nDCG@10")
