"""``rankwise trec_eval`` as one function of its arguments, with no command-line framework under it.

The drop-in is called as trec_eval is, often once per run file in a loop, so its fixed cost counts: started as
``rankwise trec_eval ...`` it is run by :func:`drop_in` straight from the entry point (``rankwise.__main__.run``),
without importing click or the other commands (measured: ~15 ms of a 0.3 s call). ``rankwise.cli``'s ``trec_eval``
command calls the same function, so both ways give the same bytes, notes and exit status.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO

from ..errors import RankwiseError
from ..wording import error_line, note_lines, terminal_width
from .options import parse_options, usage


def drop_in(arguments: Sequence[str], out: TextIO, err: TextIO) -> int:
    """Run trec_eval 10 on ``arguments`` (its options, then the rel_info_file and the results_file): the output to
    ``out``, notes (``rankwise: note: ...``) to ``err`` before it, and the exit status: 0, or 2 after one line
    ``rankwise: error: ...`` on ``err`` for bad input (the notes known before the error come first)."""
    notes: list[str] = []
    try:
        options = parse_options(arguments)
        if options.help:
            out.write(usage(terminal_width() - 2))
            return 0
        if options.version:
            from .. import __version__

            out.write(f"trec_eval version 10.0 (rankwise {__version__})\n")
            return 0
        if len(options.files) != 2:
            raise RankwiseError("trec_eval: give the rel_info_file and the results_file (rankwise trec_eval -h)")
        if "numpy" not in sys.modules:  # no matrix product here: numpy's OpenBLAS starts no threads to spin idle
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        from .run import run_trec_eval  # numpy and the pipeline: only for an evaluation

        try:
            text = run_trec_eval(options, notes).text
        finally:
            _write(err, note_lines(notes, err))
        out.write(text)
        out.flush()
        return 0
    except (RankwiseError, OSError) as exc:
        _write(err, [error_line(exc)])
        return 2


def _write(stream: TextIO, lines: list[str]) -> None:
    if lines:
        stream.write("".join(f"{line}\n" for line in lines))
        stream.flush()


__all__ = ["drop_in"]
