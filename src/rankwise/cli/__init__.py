"""The ``rankwise`` command line (``rankwise``, or ``python -m rankwise``).

Bad input prints one line ``rankwise: error: ...`` on stderr and exits with status 2; notes about queries left out of
the averages go to stderr, results to stdout. The commands live in :mod:`.commands` (evaluation) and :mod:`.ltr`
(learning to rank); :mod:`.common` holds what they share.
"""

from __future__ import annotations

import click

from .. import __version__
from .commands import dialects, evaluate, explain, list_measures
from .compare import compare
from .ltr import ltr
from .recsys import recsys_experiment
from .trec_eval import trec_eval


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="rankwise")
def main() -> None:
    """Exact, named ranking metrics: trec_eval-compatible by default, every variant documented."""


for command in (evaluate, compare, list_measures, explain, dialects, ltr, recsys_experiment, trec_eval):
    main.add_command(command)

__all__ = ["main"]
