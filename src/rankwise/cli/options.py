"""The evaluation options on the command line, each defined once: ``rankwise evaluate``, ``compare`` and ``dialects``
add those they take with :func:`evaluation_options`, and :func:`to_evaluation_options` turns what was given into the
one value :class:`rankwise.pipeline.options.EvaluationOptions` (the API's keywords)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import wraps
from typing import TYPE_CHECKING, Any

import click

from ..errors import RankwiseError
from ..policies import QuerySet, ScorePrecision, TiePolicy

if TYPE_CHECKING:
    from ..pipeline.options import EvaluationOptions

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]
"""What adds options to a click command (``click.option(...)``, :func:`evaluation_options`)."""


@dataclass(frozen=True)
class CommandLineOption:
    """One shared option as click declares it: ``click.option(*declarations, **attributes)``."""

    declarations: tuple[str, ...]
    attributes: Mapping[str, Any]

    def decorator(self, help_text: str | None = None) -> Decorator:
        """The click decorator adding this option (with ``help_text`` instead of its own help, when given)."""
        return click.option(*self.declarations, **{**self.attributes, **({"help": help_text} if help_text else {})})


def _option(*declarations: str, **attributes: Any) -> CommandLineOption:
    return CommandLineOption(declarations, attributes)


OPTIONS: dict[str, CommandLineOption] = {
    "measures": _option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
                        help="Measure to compute (repeatable): nDCG@10, AP(denom=min_k_R)@20, ndcg_cut.10,20, map, "
                             "official ... Default: trec_eval's official set."),
    "rel_level": _option("-l", "--rel-level", type=int, default=1, show_default=True,
                         help="Relevance threshold for measures without their own rel (trec_eval -l; nDCG ignores "
                              "it)."),
    "all_queries": _option("-c", "--all-queries", is_flag=True,
                           help="Average over every judged query; queries missing from the run score 0 (trec_eval "
                                "-c)."),
    "queries": _option("--queries", type=click.Choice([q.value for q in QuerySet]), default=None,
                       help="Which queries are averaged [default: intersection; -c means qrels]."),
    "depth": _option("-M", "--depth", type=int, default=None,
                     help="Keep only the top N documents per query (trec_eval -M)."),
    "judged_only": _option("-J", "--judged-only", is_flag=True, default=None,
                           help="Remove unjudged documents from each ranking before scoring (trec_eval -J; condensed "
                                "lists)."),
    "ties": _option("--ties", type=click.Choice([t.value for t in TiePolicy]), default=None,
                    help="Order of documents with equal scores [default: docno_desc, or the dialect's]."),
    "scores": _option("--scores", type=click.Choice([p.value for p in ScorePrecision]), default=None,
                      help="Precision scores are compared at: float32 makes scores closer than float32 precision "
                           "tie, as pytrec_eval does [default: float64, or the dialect's]."),
    "dialect": _option("--dialect", default=None, metavar="NAME[@VERSION]",
                       help="Compute each measure as this library does (lightgbm, ranx@0.3, ...); 'rankwise "
                            "dialects' lists them."),
    "stream": _option("--stream/--no-stream", default=None,
                      help="Read the run file in blocks and evaluate it partition by partition, for runs larger than "
                           "memory (same numbers) [default: for run files over 1 GiB]."),
    "subtopics": _option("--subtopics", default=None, metavar="FILE",
                         help="Subtopic judgments 'query_id subtopic doc_id grade' (TREC Web track diversity qrels) "
                              "for the intent-aware measures (alpha-nDCG, ERR-IA, NRBP, P-IA, AP-IA, StRecall). The "
                              "same file as QRELS: the ordinary judgments are derived from it (each document's "
                              "largest grade)."),
    "features": _option("--features", default=None, metavar="FILE",
                        help="Item features (CSV/TSV/parquet: an item id column and numeric columns) for ILD and "
                             "Serendipity with kind=feature_cosine or feature_hamming."),
    "baseline": _option("--baseline", default=None, metavar="RUN",
                        help="Another model's lists (a run file) for Unexpectedness, RBO and LIP."),
    "grades": _option("--grades", type=click.Choice(["integer", "real"]), default=None,
                      help="Read qrels values as integer grades (trec_eval) or real-valued ones (an LLM judge's 0.73: "
                           "gains as given; measures that threshold grades need rel=) [default: integer]."),
    "cutoffs": _option("-k", "--cutoffs", default=None, metavar="K[,K...]",
                       help="Give every measure written without a cutoff each of these cutoffs (-m nDCG -k 10,20)."),
    "threshold": _option("--threshold", type=float, default=None,
                         help="Qrels values are ratings: relevant when rating >= THRESHOLD (e.g. 4.5)."),
    "truth_cols": _option("--truth-cols", default=None, metavar="USER,ITEM,RATING",
                          help="Column names of a tabular qrels file (query, document, grade or rating)."),
    "rec_cols": _option("--rec-cols", default=None, metavar="USER,ITEM,SCORE",
                        help="Column names of a tabular run (query, document, score; a third named rank is a rank)."),
    "train": _option("--train", default=None, metavar="FILE",
                     help="Training interactions (user, item): each user's candidates are the catalogue minus them "
                          "(Elliot's AUC family needs them)."),
    "catalog": _option("--catalog", type=int, default=None, metavar="N",
                       help="Number of items in the catalogue [default: the items in --train]."),
    "item_groups": _option("--item-groups", default=None, metavar="FILE:COLUMN|popularity",
                           help="Item groups for AWRF, FairScore, RSP and REO: a column of a CSV/TSV/parquet file or "
                                "RecBole .item file (ml-100k.item:class; one label per item), or popularity (the "
                                "head/tail split of the --train items, 0.8 of the interactions in the head)."),
    "samples": _option("--samples", default=None, is_flag=False, flag_value="", metavar="[COLUMN]",
                       help="The run holds several sampled rankings per query (a stochastic ranking policy), for "
                            "EE-L, EE-D and EE-R: alone, a TREC run's second field names the sample (expeval's "
                            "format, each sample ordered by rank); with COLUMN, a tabular run's sample column."),
    "groups": _option("--groups", default=None, metavar="FILE:COLUMN|activity",
                      help="Split every measure by user (query) group: a column of a CSV/TSV/parquet file or RecBole "
                           ".user file (ml-100k.user:gender), or activity (training interactions per user from "
                           "--train: cold/regular/heavy at the 1/3 and 2/3 quantiles; activity:thresholds=5,50 or "
                           "activity:quantiles=0.2,0.8)."),
}  # fmt: skip
"""Every shared option by the name click passes its value by, in the order of ``rankwise evaluate --help``."""

MEASURES = "measures"
"""The one shared option that is no evaluation option: the command receives it as ``measures``."""

INPUT_OPTIONS = ("cutoffs", "threshold", "truth_cols", "rec_cols", "train", "catalog")
"""The options for (user, item, rating) ground truth and (user, item, score|rank) recommendation tables, last in every
command that evaluates."""

EVALUATION = "evaluation"
"""The keyword a command receives the values of its shared options by (all but ``measures``), for
:func:`to_evaluation_options`."""


def evaluation_options(*names: str, help_texts: Mapping[str, str] | None = None) -> Decorator:
    """Add the shared options ``names`` (keys of :data:`OPTIONS`) to a command, in this order, with
    ``help_texts[name]`` instead of an option's own help where given. The command receives ``measures`` as itself and
    the values of the others by name in one dict, ``evaluation`` (with those of every other use of this decorator on
    it): give it to :func:`to_evaluation_options` inside the command, where its errors are the user's."""
    unknown = [name for name in names if name not in OPTIONS]
    if unknown:
        raise ValueError(f"no shared option {unknown[0]!r}; the shared options are {', '.join(OPTIONS)}")
    collected = [name for name in names if name != MEASURES]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            given = {**kwargs.pop(EVALUATION, {}), **{name: kwargs.pop(name) for name in collected}}
            return command(*args, **kwargs, **{EVALUATION: given})

        decorated: Callable[..., Any] = wrapper
        for name in reversed(names):
            decorated = OPTIONS[name].decorator((help_texts or {}).get(name))(decorated)
        return decorated

    return decorate


def to_evaluation_options(given: Mapping[str, Any]) -> EvaluationOptions:
    """The evaluation options from the values of the shared options a command took (``evaluation``; an option the
    command does not take stays at its default): ``-c`` with ``--queries`` gives ``queries``, ``-k`` the cutoffs,
    ``--truth-cols`` and ``--rec-cols`` the column mappings, ``-J`` True or None; the others are the fields of the same
    name. Errors here are the user's: call it inside the command."""
    from ..io.tabular import columns_from_names
    from ..pipeline.options import EvaluationOptions

    all_queries, queries = given.get("all_queries"), given.get("queries")
    if all_queries and queries not in (None, QuerySet.QRELS.value):
        raise RankwiseError(f"-c contradicts --queries {queries}")
    return EvaluationOptions.from_arguments({
        **given,
        "queries": QuerySet.QRELS.value if all_queries else queries,
        "judged_only": given.get("judged_only") or None,
        "cutoffs": _cutoffs(given.get("cutoffs")),
        "qrels_columns": columns_from_names(given.get("truth_cols"), "qrels"),
        "run_columns": columns_from_names(given.get("rec_cols"), "run"),
        "samples": True if given.get("samples") == "" else given.get("samples"),
    })  # fmt: skip


def _cutoffs(text: str | None) -> list[int] | None:
    """``-k 10,20`` as ``[10, 20]`` (None when not given)."""
    if not text:
        return None
    try:
        return [int(k) for k in text.split(",") if k.strip()]
    except ValueError:
        raise RankwiseError(f"-k {text!r}: cutoffs must be integers separated by commas") from None


__all__ = ["INPUT_OPTIONS", "OPTIONS", "CommandLineOption", "evaluation_options", "to_evaluation_options"]
