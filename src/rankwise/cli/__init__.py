"""The ``rankwise`` command line (``rankwise``, or ``python -m rankwise``).

Bad input prints one line ``rankwise: error: ...`` on stderr and exits with status 2; notes about queries left out of
the averages go to stderr, results to stdout. The commands live in :mod:`.commands` (evaluate, measures, explain,
dialects), :mod:`.compare`, :mod:`.fuse` (run fusion), :mod:`.ltr` (learning to rank), :mod:`.recsys` and
:mod:`.trec_eval`; :mod:`.explain` words the definitions, :mod:`.common` holds what they share.
"""

from __future__ import annotations

import os
import sys

import click

from .. import __version__
from .layout import Context, use_context

SHORT_HELP = {
    "bias-disparity": "Bias disparity per user group and item group (Elliot's BS, BR, BD).",
    "compare": "Compare runs: paired tests, intervals, effect sizes, reports.",
    "dialects": "List the dialects, or compare a run under every one.",
    "evaluate": "Evaluate a run against qrels.",
    "item-groups": "Exposure and coverage by item group (providers, genres, head and tail).",
    "explain": "Define a measure, as rankwise or a dialect computes it.",
    "fuse": "Fuse runs (RRF, CombSUM, weighted sums, ...), or search the best fusion.",
    "ltr": "Learning to rank: train, predict, evaluate.",
    "measures": "List every measure.",
    "recsys-experiment": "Rerun the RecSys'21 metric-consistency experiment on your ratings.",
    "trec_eval": "trec_eval 10's options and output (a drop-in).",
}
"""Each command's one line in ``rankwise --help``, so that listing them imports none (each command's own
``short_help``; a test checks they agree)."""


NO_BLAS_THREADS = ("evaluate",)
"""Commands that make no matrix product worth a thread: numpy's OpenBLAS starts none for them. Its threads, started
when numpy is imported, spin waiting for work before they sleep (OpenBLAS' thread timeout), taking a core from the
compiled passes' own threads (measured: a sixth of ``rankwise trec_eval``'s samples on 2 cores; the drop-in sets it
itself, :func:`rankwise.trec_eval.command.drop_in`, however it is started)."""


def load_command(name: str) -> click.Command | None:
    """The command ``name``, its module imported now: a command pays only for what it uses."""
    if name in NO_BLAS_THREADS and "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if name == "item-groups":
        from .item_groups import item_groups

        return item_groups
    if name == "bias-disparity":
        from .bias_disparity import bias_disparity

        return bias_disparity
    if name == "compare":
        from .compare import compare

        return compare
    if name == "fuse":
        from .fuse import fuse

        return fuse
    if name == "ltr":
        from .ltr import ltr

        return ltr
    if name == "recsys-experiment":
        from .recsys import recsys_experiment

        return recsys_experiment
    if name == "trec_eval":
        from .trec_eval import trec_eval

        return trec_eval
    if name not in SHORT_HELP:
        return None
    from . import commands  # the modules: no command takes a module's name here

    found: click.Command = {"evaluate": commands.evaluate, "measures": commands.list_measures,
                            "explain": commands.explain, "dialects": commands.dialects}[name]
    return found


class LazyGroup(click.Group):
    """A group whose commands are imported only when one runs (``rankwise -V`` and ``--help`` import none); every
    command's help is laid out at the terminal's width (:mod:`.layout`)."""

    context_class = Context

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*SHORT_HELP, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and (command := load_command(cmd_name)) is not None:
            self.add_command(use_context(command), cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """As :class:`click.Group` words it, from :data:`SHORT_HELP` (without importing the commands)."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, self._short_help(ctx, name, limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def _short_help(self, ctx: click.Context, name: str, limit: int) -> str:
        if name in self.commands or name not in SHORT_HELP:
            command = self.get_command(ctx, name)
            return command.get_short_help_str(limit) if command is not None else ""
        return click.Command(name, short_help=SHORT_HELP[name]).get_short_help_str(limit)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="rankwise")
def main() -> None:
    """Exact, named ranking metrics: trec_eval-compatible by default, every variant documented."""


__all__ = ["main"]
