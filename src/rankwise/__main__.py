"""``python -m rankwise`` and the ``rankwise`` command: the command line.

``rankwise trec_eval ...`` goes straight to the drop-in (:func:`rankwise.trec_eval.command.drop_in`), without
importing click or the other commands: trec_eval is run once per run file in a loop, and its start-up counts (issue
#22). Every other command goes through :mod:`rankwise.cli`; ``rankwise.cli``'s ``trec_eval`` command calls the same
function.
"""

from __future__ import annotations

import sys


def run() -> None:
    """The ``rankwise`` entry point: the command line on ``sys.argv``."""
    if sys.argv[1:2] == ["trec_eval"]:
        from .trec_eval.command import drop_in

        sys.exit(drop_in(sys.argv[2:], sys.stdout, sys.stderr))
    from .cli import main

    main()


if __name__ == "__main__":
    run()
