"""``rankwise trec_eval``: a drop-in for trec_eval 10 — its options, its measure names and its output, byte for byte.

``rankwise trec_eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-R FORMAT] [-m MEASURE[.PARAMS]]... QRELS RUN`` reads
options as
trec_eval's ``getopt_long`` does: flags may be grouped (``-qc``), an option's value glued or separate
(``-mndcg_cut.10,20``, ``-m P.5``, ``-M100``, ``-l2``), long names too (``--query_eval_wanted``), and options may
follow the files. The output is trec_eval's: per query with ``-q`` (in query order, each query's measures in
trec_eval's table order), then the summary over queries (``all``), ``%-22s\\t%s\\t%6.4f`` per line, counts as
integers, an undefined value (trec_eval's 0/0) ``-nan`` as glibc prints it. ``-R`` reads the other judgment formats:
``qrels_jg`` (judgment groups, :mod:`rankwise.trec_eval.judgment_groups`), ``prefs`` and ``qrels_prefs``
(preferences, :mod:`rankwise.trec_eval.prefs`); a measure the format cannot give is refused with one line
(trec_eval exits at its first query with status 4).
"""

from __future__ import annotations

import dataclasses
import getopt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click
import numpy as np

from ..errors import InputError, RankwiseError
from ..trec_eval.request import JUDGMENT_FORMATS
from ..wording import counted
from .common import echo_notes, fail_cleanly

if TYPE_CHECKING:
    from ..io.table import Table
    from ..pipeline.result import EvaluationResult
    from ..trec_eval.judgment_groups import JudgmentGroups
    from ..trec_eval.prefs import Preferences
    from ..trec_eval.request import TrecEvalMeasure

_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = {
    "help": "h", "version": "v", "query_eval_wanted": "q", "measure=": "m", "complete_rel_info_wanted": "c",
    "level_for_rel=": "l", "nosummary": "n", "Debug_level=": "D", "Judged_docs_only": "J",
    "Number_docs_in_coll=": "N", "Max_retrieved_per_topic=": "M", "Rel_info_format=": "R",
    "Results_format=": "T", "Output_old_results_format": "o", "Zscore=": "Z",
}  # fmt: skip
_LONG_LETTER = {name.rstrip("="): letter for name, letter in _LONG.items()}
USAGE = """trec_eval [-h] [-q] [-m measure[.params] [-c] [-n] [-l <num>]
   [-N <num>] [-M <num>] [-R rel_format] [-J] [-Z zscores_file] rel_info_file  results_file

rankwise's trec_eval: trec_eval 10's options, measures and output.
 -q  per-query values too        -c  average over every judged query (missing ones score as empty rankings)
 -n  no summary                  -J  judged documents only (unjudged ones removed before scoring)
 -l N  relevance level (1)       -M N  at most N documents per query     -N N  documents in the collection
 -m NAME[.PARAMS]  a measure or a set: official (default), all_trec, set, all_prefs, prefs, qrels_jg;
                   e.g. -m ndcg_cut.10,20 -m P.5 -m G.1=3,2=9
 -R FORMAT  the judgments: qrels (default), qrels_jg (qid jg docno grade: judgment groups), prefs
            (qid jg jsg docno rel_level: preferences), qrels_prefs (a qrels file read as preferences)
 -Z FILE  print z-scores (value − mean) / stddev from FILE's lines 'qid measure mean stddev'
"""


class _Options:
    """trec_eval's options as read from the command line."""

    def __init__(self, arguments: Sequence[str]) -> None:
        try:
            pairs, files = getopt.gnu_getopt(list(arguments), _SHORT, list(_LONG))
        except getopt.GetoptError as exc:
            raise RankwiseError(f"trec_eval: {exc}") from None
        self.per_query = self.complete = self.judged_only = self.help = self.version = False
        self.summary = True
        self.rel_level = 1
        self.depth: int | None = None
        self.collection: int | None = None
        self.measures: list[str] = []
        self.zscores: str | None = None
        self.rel_format = "qrels"
        for option, value in pairs:
            self._take(_LONG_LETTER[option[2:]] if option.startswith("--") else option[1:], value)
        self.files = files

    def _take(self, letter: str, value: str) -> None:
        if letter in ("h", "v"):
            setattr(self, "help" if letter == "h" else "version", True)
        elif letter in ("q", "c", "J", "n"):
            name = {"q": "per_query", "c": "complete", "J": "judged_only", "n": "summary"}[letter]
            setattr(self, name, letter != "n")
        elif letter == "m":
            self.measures.append(value)
        elif letter in ("l", "M", "N"):
            number = _whole(value, letter)
            if letter == "l":
                self.rel_level = number
            elif letter == "M":
                self.depth = number
            else:
                self.collection = number
        elif letter == "Z":
            self.zscores = value
        elif letter == "R":
            if value not in JUDGMENT_FORMATS:
                raise RankwiseError(f"trec_eval: -R {value}: the judgment format is one of "
                                    f"{', '.join(JUDGMENT_FORMATS)}")  # fmt: skip
            self.rel_format = value
        elif letter == "T" and value != "trec_results":
            raise RankwiseError(f"trec_eval: -T {value}: rankwise reads only the 'trec_results' run format")
        elif letter in ("D", "o"):
            raise RankwiseError(f"trec_eval: -{letter} is not supported by rankwise")


def _whole(value: str, letter: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise RankwiseError(f"trec_eval: -{letter} {value!r} must be an integer") from None
    if number < (1 if letter == "M" else 0):
        raise RankwiseError(f"trec_eval: -{letter} {value} must be {'positive' if letter == 'M' else '>= 0'}")
    return number


@click.command(
    "trec_eval",
    short_help="trec_eval 10's options and output (a drop-in).",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
    add_help_option=False,
)
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED)
@fail_cleanly
def trec_eval(arguments: tuple[str, ...]) -> None:
    """trec_eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-R FORMAT] [-m MEASURE[.PARAMS]]... QRELS RUN"""
    options = _Options(arguments)
    if options.help:
        click.echo(USAGE, nl=False)
        return
    if options.version:
        from .. import __version__

        click.echo(f"trec_eval version 10.0 (rankwise {__version__})")
        return
    if len(options.files) != 2:
        raise RankwiseError("trec_eval: give the rel_info_file and the results_file (rankwise trec_eval -h)")
    click.echo(run_trec_eval(options), nl=False)


def run_trec_eval(options: _Options) -> str:
    """Evaluate as trec_eval would with ``options`` and return its output."""
    from ..io import load_run
    from ..io.table import Table
    from ..pipeline.evaluate import evaluate
    from ..trec_eval.output import TrecEvalOutput, judged_only, relstrings, utility_with_collection, with_placeholders
    from ..trec_eval.request import trec_eval_request

    request = trec_eval_request(options.measures)
    if request.not_computed:
        echo_notes([f"trec_eval measures not computed by rankwise, left out: {', '.join(request.not_computed)}"])
    request.check_judgments(options.rel_format)
    qrels_path, run_path = options.files
    judgments = _load_judgments(qrels_path, options.rel_format)
    qrels = judgments if isinstance(judgments, Table) else judgments.pool()
    run = load_run(run_path)
    depth, placeholders = options.depth, frozenset[str]()
    if options.complete:
        run, placeholders = with_placeholders(qrels, run)
    whole_run = run  # before -J: judgment groups condense it group by group, preferences ignore -J (as trec_eval)
    evaluated = set(run.with_text_ids().frame.get_column("query_id").unique().to_list())
    if options.judged_only:  # a query may be left with no judged document: evaluate every judged query, show these
        run = judged_only(qrels, run, depth)
        depth = None
    lines = utility_with_collection(request.measures, options.collection)
    measures = list(dict.fromkeys(line.measure for line in lines if line.judgments in (None, "qrels")
                                  and line.measure is not None))  # fmt: skip
    policies: dict[str, Any] = {"queries": "qrels" if options.complete or options.judged_only else None, "depth": depth,
                                "rel_level": options.rel_level}  # fmt: skip
    try:
        result = evaluate(qrels, run, measures or ["NumQ"], **policies)
    except InputError as exc:
        if "no query" in str(exc).lower() or "share no" in str(exc).lower():
            raise RankwiseError("trec_eval: No queries with both results and relevance info") from None
        raise
    if options.judged_only and not options.complete:
        result = _judged_only_accounting(result, evaluated)
    echo_notes(_notes(result))
    strings = relstrings(qrels, run, result, lines, policies)
    zscores = _read_zscores(options.zscores) if options.zscores else None
    placeholder = np.array([q in placeholders for q in result.query_ids]) if options.complete else None
    shown = np.array([q in evaluated for q in result.query_ids]) if options.judged_only else None
    if shown is not None and not shown.any():
        raise RankwiseError("trec_eval: No queries with both results and relevance info")
    judged_relevant = int((qrels.frame.get_column("value") > 0).sum()) if options.complete else None
    computed = _computed_apart(judgments, whole_run, lines, result.query_ids, options, policies["queries"])
    emptied = _emptied_num_rel(qrels, run, result.query_ids, options) if options.judged_only else None
    output = TrecEvalOutput(result, lines, strings, zscores, shown, judged_relevant, placeholder, computed, emptied)
    return output.text(per_query=options.per_query, summary=options.summary)


def _emptied_num_rel(qrels: Table, run: Table, query_ids: Sequence[str], options: _Options) -> np.ndarray:
    """Per query: its number of relevant judged documents (grade >= -l) when ``-J`` left its ranking empty,
    else −1 (:attr:`rankwise.trec_eval.output.TrecEvalOutput.emptied_num_rel`)."""
    import polars as pl

    ranked = set(run.with_text_ids().frame.get_column("query_id").unique().to_list())
    judged = qrels.with_text_ids().frame.filter(pl.col("value") >= options.rel_level)
    relevant = dict(judged.group_by("query_id").len().iter_rows())
    return np.array([-1 if q in ranked else relevant.get(q, 0) for q in query_ids], dtype=np.int64)


def _load_judgments(path: str, rel_format: str) -> Table | JudgmentGroups | Preferences:
    """The judgments of ``-R rel_format``: qrels, judgment-group qrels or preferences."""
    from ..io import load_qrels
    from ..trec_eval.judgment_groups import load_judgment_groups
    from ..trec_eval.prefs import load_preferences

    if rel_format == "qrels":
        return load_qrels(path)
    return load_judgment_groups(path) if rel_format == "qrels_jg" else load_preferences(path, rel_format)


def _computed_apart(
    judgments: Table | JudgmentGroups | Preferences, run: Table, lines: Sequence[TrecEvalMeasure],
    query_ids: tuple[str, ...], options: _Options, queries: str | None,
) -> dict[str, np.ndarray]:  # fmt: skip
    """The values of the lines an ordinary evaluation does not give: the measures averaged over judgment groups and
    the preference measures, per query of ``query_ids``."""
    from ..trec_eval.judgment_groups import JudgmentGroups, group_averages
    from ..trec_eval.prefs import Preferences, evaluate_preferences

    if isinstance(judgments, Preferences):
        return evaluate_preferences(judgments, run, query_ids, depth=options.depth)
    if not isinstance(judgments, JudgmentGroups):
        return {}
    averaged = [line for line in lines if line.judgments == "qrels_jg" and line.measure is not None]
    policies = {"depth": options.depth, "rel_level": options.rel_level, "queries": queries}
    values = group_averages(judgments, run, [line.measure for line in averaged if line.measure is not None],
                            query_ids, policies, judged_only=options.judged_only)  # fmt: skip
    return {line.name: values[line.measure] for line in averaged if line.measure is not None}


def _judged_only_accounting(result: EvaluationResult, evaluated: set[str]) -> EvaluationResult:
    """Under ``-J`` (without ``-c``) every judged query is evaluated and only those of the run are shown: a judged
    query missing from the run is left out (as trec_eval does), and one whose documents ``-J`` removed is named as
    such, not as a query missing from the run."""
    accounting = result.accounting
    missing = tuple(q for q in accounting.scored_empty if q not in evaluated)
    emptied = tuple(q for q in accounting.scored_empty if q in evaluated)
    accounting = dataclasses.replace(accounting, scored_empty=(), qrels_only=(*accounting.qrels_only, *missing))
    caveats = result.caveats
    if emptied:
        caveats += (f"-J removed every ranked document of {counted(len(emptied), 'query', 'queries')} (none was "
                    f"judged), scored as an empty ranking: {', '.join(emptied)}",)  # fmt: skip
    return dataclasses.replace(result, accounting=accounting, caveats=caveats)


def _notes(result: EvaluationResult) -> list[str]:
    """The evaluation's notes, where an undefined value (trec_eval's 0/0) is printed, not left out of a mean."""
    notes = dataclasses.replace(result, undefined={}).notes()
    queries = counted(len(result.query_ids), "query", "queries")
    return notes + [f"{key}: undefined (0/0) for {count} of {queries}: printed -nan, its mean too, as trec_eval "
                    "prints them" for key, count in result.undefined.items() if count]  # fmt: skip


def _read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """``qid measure mean stddev`` lines → {(qid, measure): (mean, stddev)}."""
    out: dict[tuple[str, str], tuple[float, float]] = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 4:
                raise InputError(f"{path}:{number}: a z-score line is 'qid measure mean stddev'")
            try:
                mean, stddev = float(fields[2]), float(fields[3])
            except ValueError:
                raise InputError(f"{path}:{number}: mean and stddev must be numbers") from None
            if not (np.isfinite(mean) and np.isfinite(stddev)):
                raise InputError(f"{path}:{number}: mean and stddev must be finite")
            out[(fields[0], fields[1])] = (mean, stddev)
    return out


__all__ = ["USAGE", "run_trec_eval", "trec_eval"]
