"""trec_eval 10's command line: its option letters, its usage text, and :func:`parse_options`, which reads
``[-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-R FORMAT] [-Z FILE] [-m MEASURE[.PARAMS]]... QRELS RUN`` as trec_eval's
``getopt_long`` does: flags may be grouped (``-qc``), an option's value glued or separate (``-mndcg_cut.10,20``,
``-m P.5``, ``-M100``, ``-l2``), long names too (``--query_eval_wanted``, ``--measure=P.5``), and options may follow
the files.
"""

from __future__ import annotations

import getopt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import RankwiseError
from ..wording import wrap
from .request import JUDGMENT_FORMATS

SHORT_OPTIONS = "hvqm:cl:nD:JN:M:R:T:oZ:"
"""trec_eval's option letters, as ``getopt`` reads them (a letter followed by ``:`` takes a value)."""
LONG_OPTIONS = {
    "help": "h", "version": "v", "query_eval_wanted": "q", "measure=": "m", "complete_rel_info_wanted": "c",
    "level_for_rel=": "l", "nosummary": "n", "Debug_level=": "D", "Judged_docs_only": "J",
    "Number_docs_in_coll=": "N", "Max_retrieved_per_topic=": "M", "Rel_info_format=": "R",
    "Results_format=": "T", "Output_old_results_format": "o", "Zscore=": "Z",
}  # fmt: skip
"""trec_eval's long option names (``=``: takes a value) and the letter each stands for."""
_LONG_LETTER = {name.rstrip("="): letter for name, letter in LONG_OPTIONS.items()}
_FLAGS = {"q": "per_query", "c": "complete", "J": "judged_only", "h": "help", "v": "version"}
_NUMBERS = {"l": "rel_level", "M": "depth", "N": "collection"}
SYNOPSIS = ("trec_eval [-h] [-q] [-m measure[.params] [-c] [-n] [-l <num>] [-N <num>] [-M <num>] [-R rel_format] [-J] "
            "[-Z zscores_file] rel_info_file  results_file")
"""trec_eval's own usage line (as ``trec_eval -h`` prints it)."""

OPTION_HELP = (
    ("-q", "per-query values too"),
    ("-c", "average over every judged query (missing ones score as empty rankings)"),
    ("-n", "no summary"),
    ("-J", "judged documents only (unjudged ones removed before scoring)"),
    ("-l N", "relevance level (1)"),
    ("-M N", "at most N documents per query"),
    ("-N N", "documents in the collection"),
    ("-m NAME[.PARAMS]", "a measure or a set: official (default), all_trec, set, all_prefs, prefs, qrels_jg; e.g. "
                         "-m ndcg_cut.10,20 -m P.5 -m G.1=3,2=9"),
    ("-R FORMAT", "the judgments: qrels (default), qrels_jg (qid jg docno grade: judgment groups), prefs (qid jg jsg "
                  "docno rel_level: preferences), qrels_prefs (a qrels file read as preferences)"),
    ("-Z FILE", "print z-scores (value − mean) / stddev from FILE's lines 'qid measure mean stddev'"),
)  # fmt: skip
"""Each option ``rankwise trec_eval -h`` describes, with its description."""


def usage(width: int = 78) -> str:
    """What ``rankwise trec_eval -h`` prints, fitted to ``width`` columns: the synopsis, then one option a line, a
    description longer than the line wrapped at spaces under its own start."""
    about = "rankwise's trec_eval: trec_eval 10's options, measures and output."
    lines = [*wrap(SYNOPSIS, width, "", "   "), "", *wrap(about, width)]
    column = max(len(flag) for flag, _ in OPTION_HELP) + 3
    for flag, text in OPTION_HELP:
        hang = " " * (column if width - column >= 30 else 6)
        lines += wrap(text, width, f" {flag:<{column - 3}}  ", hang)
    return "\n".join(lines) + "\n"


USAGE = usage()
"""What ``rankwise trec_eval -h`` prints at 80 columns (:func:`usage` fits it to another width)."""


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's options as read from its command line (:func:`parse_options`); the defaults are trec_eval's."""

    files: tuple[str, ...] = ()
    """The arguments that are not options: the judgments file and the run file, in order."""
    per_query: bool = False
    """``-q``: print each query's values, then the summary."""
    complete: bool = False
    """``-c``: average over every judged query, a query missing from the run scored on an empty ranking."""
    judged_only: bool = False
    """``-J``: the unjudged documents are removed from each ranking before scoring."""
    summary: bool = True
    """Not ``-n``: print the summary over the queries (``all``)."""
    help: bool = False
    """``-h``: print :data:`USAGE` and nothing else."""
    version: bool = False
    """``-v``: print the version and nothing else."""
    rel_level: int = 1
    """``-l N``: a document is relevant when its grade is at least N."""
    depth: int | None = None
    """``-M N``: at most N documents of each ranking are read (None: all)."""
    collection: int | None = None
    """``-N N``: the number of documents in the collection (for ``utility``)."""
    measures: tuple[str, ...] = ()
    """The values of ``-m``, in order (none: trec_eval's official measures)."""
    zscores: str | None = None
    """``-Z FILE``: print z-scores computed from FILE's means and standard deviations."""
    rel_format: str = "qrels"
    """``-R FORMAT``: the judgments' format, a key of :data:`rankwise.trec_eval.request.JUDGMENT_FORMATS`."""


def parse_options(arguments: Sequence[str]) -> TrecEvalOptions:
    """Read trec_eval's command line ``arguments`` (without the program name) as trec_eval does; an option
    rankwise does not support (``-D``, ``-o``, ``-T`` other than ``trec_results``) or a bad value is a
    :class:`~rankwise.errors.RankwiseError` naming it, raised at the first such option."""
    try:
        pairs, files = getopt.gnu_getopt(list(arguments), SHORT_OPTIONS, list(LONG_OPTIONS))
    except getopt.GetoptError as exc:
        raise RankwiseError(f"trec_eval: {exc}") from None
    values: dict[str, Any] = {"files": tuple(files)}
    measures: list[str] = []
    for option, value in pairs:
        letter = _LONG_LETTER[option[2:]] if option.startswith("--") else option[1:]
        if letter == "m":
            measures.append(value)
        else:
            values.update(_read(letter, value))
    return TrecEvalOptions(measures=tuple(measures), **values)


def _read(letter: str, value: str) -> dict[str, Any]:
    """The option ``-letter value`` as the :class:`TrecEvalOptions` field it sets (none for ``-T trec_results``)."""
    if letter in _FLAGS:
        return {_FLAGS[letter]: True}
    if letter == "n":
        return {"summary": False}
    if letter in _NUMBERS:
        return {_NUMBERS[letter]: _whole(value, letter)}
    if letter == "Z":
        return {"zscores": value}
    if letter == "R":
        if value not in JUDGMENT_FORMATS:
            raise RankwiseError(f"trec_eval: -R {value}: the judgment format is one of "
                                f"{', '.join(JUDGMENT_FORMATS)}")  # fmt: skip
        return {"rel_format": value}
    if letter == "T" and value != "trec_results":
        raise RankwiseError(f"trec_eval: -T {value}: rankwise reads only the 'trec_results' run format")
    if letter in ("D", "o"):
        raise RankwiseError(f"trec_eval: -{letter} is not supported by rankwise")
    return {}


def _whole(value: str, letter: str) -> int:
    """The integer value of ``-l``, ``-M`` (positive) or ``-N`` (both >= 0)."""
    try:
        number = int(value)
    except ValueError:
        raise RankwiseError(f"trec_eval: -{letter} {value!r} must be an integer") from None
    if number < (1 if letter == "M" else 0):
        raise RankwiseError(f"trec_eval: -{letter} {value} must be {'positive' if letter == 'M' else '>= 0'}")
    return number


__all__ = ["LONG_OPTIONS", "OPTION_HELP", "SHORT_OPTIONS", "SYNOPSIS", "USAGE", "TrecEvalOptions", "parse_options",
           "usage"]
