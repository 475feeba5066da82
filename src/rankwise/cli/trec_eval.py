"""``rankwise trec_eval``: a drop-in for trec_eval 10 — its options, its measure names and its output, byte for byte.

``rankwise trec_eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-R FORMAT] [-m MEASURE[.PARAMS]]... QRELS RUN`` reads
its options as trec_eval's ``getopt_long`` does (:mod:`rankwise.trec_eval.options`) and prints trec_eval's output
(:func:`rankwise.trec_eval.run.run_trec_eval`): per query with ``-q`` (in query order, each query's measures in
trec_eval's table order), then the summary over queries (``all``), ``%-22s\\t%s\\t%6.4f`` per line, counts as
integers, an undefined value (trec_eval's 0/0) ``-nan`` as glibc prints it. ``-R`` reads the other judgment formats:
``qrels_jg`` (judgment groups, :mod:`rankwise.trec_eval.judgment_groups`), ``prefs`` and ``qrels_prefs``
(preferences, :mod:`rankwise.trec_eval.prefs`); a measure the format cannot give is refused with one line
(trec_eval exits at its first query with status 4). Notes go to stderr before the output (and before an error that
stops the run), an error is one line with exit status 2.
"""

from __future__ import annotations

import sys

import click

from ..trec_eval.command import drop_in


@click.command(
    "trec_eval",
    short_help="trec_eval 10's options and output (a drop-in).",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
    add_help_option=False,
)
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED)
def trec_eval(arguments: tuple[str, ...]) -> None:
    """trec_eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-R FORMAT] [-m MEASURE[.PARAMS]]... QRELS RUN"""
    status = drop_in(arguments, sys.stdout, sys.stderr)  # as ``rankwise trec_eval`` runs it without click
    if status:
        sys.exit(status)


__all__ = ["trec_eval"]
