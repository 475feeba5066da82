"""A trec_eval run: :func:`run_trec_eval` evaluates a judgments file and a run file under trec_eval's options
(:class:`~rankwise.trec_eval.options.TrecEvalOptions`) and gives trec_eval's output with rankwise's notes on it.

The judgments are read in the format of ``-R`` (:func:`load_judgments`): qrels, judgment groups
(:mod:`rankwise.trec_eval.judgment_groups`) or preferences (:mod:`rankwise.trec_eval.prefs`); a measure the format
cannot give is refused (trec_eval exits at its first query with status 4). The measures of qrels are evaluated by
:func:`rankwise.evaluate` under the query policy of ``-c`` and ``-J``, the depth of ``-M`` and the relevance level of
``-l``; those averaged over judgment groups and the preference measures apart; the output is trec_eval's
(:class:`~rankwise.trec_eval.output.TrecEvalOutput`), z-scores with ``-Z`` (:func:`read_zscores`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..errors import InputError, RankwiseError
from ..io import load_qrels, load_run
from ..io.table import Table
from ..pipeline.evaluate import evaluate
from ..pipeline.result import EvaluationResult
from ..wording import counted
from .judgments import Judgments, judged_only
from .options import TrecEvalOptions
from .output import TrecEvalOutput, relstrings, utility_with_collection, with_placeholders
from .request import TrecEvalMeasure, trec_eval_request

_NO_QUERY = "trec_eval: No queries with both results and relevance info"


@dataclass(frozen=True)
class TrecEvalRun:
    """What :func:`run_trec_eval` gives: the text trec_eval prints, and the notes where rankwise departs from
    trec_eval (one line each, shown on stderr before the text): measures rankwise leaves out, and judged queries
    missing from the run, on which trec_eval 10 stops. On input trec_eval evaluates, there is none: like trec_eval,
    the drop-in says nothing of run queries without judgments, depth cuts, undefined values (printed ``-nan`` as
    trec_eval prints them) or rankings that look like sampled candidates."""

    text: str
    notes: tuple[str, ...]


def run_trec_eval(options: TrecEvalOptions, notes: list[str] | None = None) -> TrecEvalRun:
    """Evaluate as trec_eval would with ``options`` (whose ``files`` are the judgments and the run) and give its
    output and the notes on it.

    ``notes``, when given, receives each note as soon as it is known, so that the notes of a run that then fails
    are not lost (the command line shows them before the error); the result holds them all either way."""
    notes = [] if notes is None else notes
    request = trec_eval_request(options.measures)
    if request.not_computed:
        notes.append(f"trec_eval measures not computed by rankwise, left out: {', '.join(request.not_computed)}")
    request.check_judgments(options.rel_format)
    qrels_path, run_path = options.files
    judgments = load_judgments(qrels_path, options.rel_format)
    qrels = judgments if isinstance(judgments, Table) else judgments.pool()
    run = load_run(run_path) if run_path != STDIN else read_stdin_run()
    depth, placeholders = options.depth, frozenset[str]()
    if options.complete:
        run, placeholders = with_placeholders(qrels, run)
    whole_run = run  # before -J: judgment groups condense it group by group, preferences ignore -J (as trec_eval)
    evaluated = run.distinct_query_ids()
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
            raise RankwiseError(_NO_QUERY) from None
        raise
    if options.judged_only and not options.complete:
        result = _judged_only_accounting(result, evaluated)
    notes.extend(_departures(result))
    strings = relstrings(qrels, run, result, lines, policies)
    zscores = read_zscores(options.zscores) if options.zscores else None
    placeholder = np.array([q in placeholders for q in result.query_ids]) if options.complete else None
    shown = np.array([q in evaluated for q in result.query_ids]) if options.judged_only else None
    if shown is not None and not shown.any():
        raise RankwiseError(_NO_QUERY)
    judged_relevant = int((qrels.frame.get_column("value") > 0).sum()) if options.complete else None
    computed = _computed_apart(judgments, whole_run, lines, result.query_ids, options, policies["queries"])
    emptied = _emptied_num_rel(qrels, run, result.query_ids, options) if options.judged_only else None
    output = TrecEvalOutput(result, lines, strings, zscores, shown, judged_relevant, placeholder, computed, emptied)
    return TrecEvalRun(output.text(per_query=options.per_query, summary=options.summary), tuple(notes))


STDIN = "-"
"""The results file name that means standard input (trec_eval 10's ``trec_eval qrels -``)."""


def read_stdin_run() -> Table:
    """The run on standard input, read to its end and parsed as a run file is (gzip data is decompressed); named
    ``-`` in messages."""
    import sys

    from ..io.trec import gunzip, parse_trec

    data = sys.stdin.buffer.read()
    return parse_trec(gunzip(data, STDIN) if data[:2] == b"\x1f\x8b" else data, "run", STDIN)


def load_judgments(path: str | Path, rel_format: str) -> Table | Judgments:
    """The judgments of ``-R rel_format`` (a key of :data:`rankwise.trec_eval.request.JUDGMENT_FORMATS`): qrels
    (a :class:`~rankwise.io.table.Table`), judgment groups (:class:`JudgmentGroups`) or preferences
    (:class:`Preferences`)."""
    if rel_format == "qrels":
        return load_qrels(path)
    from .judgment_groups import load_judgment_groups  # the formats of -R: imported when asked for
    from .prefs import load_preferences

    return load_judgment_groups(path) if rel_format == "qrels_jg" else load_preferences(path, rel_format)


def read_zscores(path: str | Path) -> dict[tuple[str, str], tuple[float, float]]:
    """The file of ``-Z``, lines ``qid measure mean stddev`` (blank lines skipped), as {(qid, measure): (mean,
    stddev)}; a line with other fields, a mean or stddev that is not a finite number, or a second line for the same
    query and measure (trec_eval keeps whichever its unstable qsort puts last), is an error naming it."""
    out: dict[tuple[str, str], tuple[float, float]] = {}
    first_line: dict[tuple[str, str], int] = {}
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
            key = (fields[0], fields[1])
            if key in first_line:
                raise InputError(f"{path}:{number}: a second z-score line for query {key[0]}, measure {key[1]} (the "
                                 f"first is line {first_line[key]})")  # fmt: skip
            first_line[key] = number
            out[key] = (mean, stddev)
    return out


def _emptied_num_rel(qrels: Table, run: Table, query_ids: Sequence[str], options: TrecEvalOptions) -> np.ndarray:
    """Per query: its number of relevant judged documents (grade >= -l) when ``-J`` left its ranking empty,
    else −1 (:attr:`rankwise.trec_eval.output.TrecEvalOutput.emptied_num_rel`)."""
    ranked = run.distinct_query_ids()
    judged = qrels.with_text_ids().frame.filter(pl.col("value") >= options.rel_level)
    relevant = dict(judged.group_by("query_id").len().iter_rows())
    return np.array([-1 if q in ranked else relevant.get(q, 0) for q in query_ids], dtype=np.int64)


def _computed_apart(
    judgments: Table | Judgments, run: Table, lines: Sequence[TrecEvalMeasure], query_ids: tuple[str, ...],
    options: TrecEvalOptions, queries: str | None,
) -> dict[str, np.ndarray]:  # fmt: skip
    """The values of the lines an ordinary evaluation does not give: the measures averaged over judgment groups and
    the preference measures, per query of ``query_ids``."""
    if isinstance(judgments, Table):
        return {}
    from .judgment_groups import JudgmentGroups, group_averages
    from .prefs import Preferences, evaluate_preferences

    if isinstance(judgments, Preferences):
        return evaluate_preferences(judgments, run, query_ids, depth=options.depth)
    if not isinstance(judgments, JudgmentGroups):
        return {}
    averaged = [line for line in lines if line.judgments == "qrels_jg" and line.measure is not None]
    if not averaged:  # -m num_q or -m runid alone: nothing averaged over judgment groups
        return {}
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


def _departures(result: EvaluationResult) -> list[str]:
    """The evaluation's notes on what trec_eval would not have done: judged queries missing from the run (trec_eval 10
    exits with status 4 at the first, rankwise evaluates the others). Every other note of :meth:`EvaluationResult.notes`
    is about something trec_eval does silently, and is not shown."""
    accounting = dataclasses.replace(result.accounting, run_only=(), scored_empty=(), unjudged_evaluated=(),
                                     no_relevant=(), truncated_rows=0, removed_unjudged=0)  # fmt: skip
    return dataclasses.replace(result, accounting=accounting, caveats=(), undefined={}, globals={},
                               group_accounting=()).notes()  # only the missing judged queries' line


__all__ = ["STDIN", "TrecEvalRun", "load_judgments", "read_stdin_run", "read_zscores", "run_trec_eval"]
