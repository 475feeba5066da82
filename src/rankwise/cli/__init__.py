"""The ``rankwise`` command line (``rankwise``, or ``python -m rankwise``).

Bad input prints one line ``rankwise: error: ...`` on stderr and exits with status 2; notes about queries left out of
the averages go to stderr, results to stdout. The commands live in :mod:`.commands` (evaluate, measures, explain,
dialects), :mod:`.compare`, :mod:`.ltr` (learning to rank), :mod:`.recsys` and :mod:`.trec_eval`; :mod:`.explain`
words the definitions, :mod:`.common` holds what they share.
"""

from __future__ import annotations

import click

from .. import __version__
from . import commands, compare, ltr, recsys, trec_eval  # the modules: no command takes a module's name here


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="rankwise")
def main() -> None:
    """Exact, named ranking metrics: trec_eval-compatible by default, every variant documented."""


for command in (commands.evaluate, compare.compare, commands.list_measures, commands.explain, commands.dialects,
                ltr.ltr, recsys.recsys_experiment, trec_eval.trec_eval):
    main.add_command(command)

__all__ = ["main"]
