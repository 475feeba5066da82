"""Notes and messages in words that agree with their numbers ("1 judged query is", "2 judged queries are"), and
human text fitted to the terminal: its width, and lines wrapped at word boundaries only."""

from __future__ import annotations

import os
import shutil
import textwrap
from typing import TextIO

DEFAULT_WIDTH = 100
"""The width of human text when neither ``COLUMNS`` nor a terminal gives one (output to a file or a pipe)."""

MIN_WIDTH = 40
"""The narrowest width text is laid out for (a smaller ``COLUMNS`` is read as this)."""


def counted(number: int, singular: str, plural: str) -> str:
    """``number`` followed by ``singular`` when it is 1, else ``plural``: ``counted(1, "query is", "queries are")``
    is ``"1 query is"``. Both forms are written out in full, verbs included, so every sentence agrees."""
    return f"{number} {singular if number == 1 else plural}"


def shorten(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters with a count of the rest, to echo user input on one short line."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def install_hint(extra: str) -> str:
    """The command that installs an optional extra. rankwise is not on PyPI, so it is installed from a checkout:
    ``pip install '.[extra]'`` in the repository's directory. PyTorch's default wheels pull the CUDA build (about
    20 nvidia packages); the hint for the torch extras says how to get the CPU build first."""
    hint = f"pip install '.[{extra}]' (in a rankwise checkout)"
    if extra in ("torch", "ltr"):
        hint += f"; for the CPU-only build of PyTorch run first: pip install torch --index-url {TORCH_CPU_INDEX}"
    return hint


def terminal_width(default: int = DEFAULT_WIDTH, stream: TextIO | None = None) -> int:
    """The width human text (tables, notes, help, explanations) is laid out for: ``COLUMNS`` when set, else the
    columns of the terminal ``stream`` writes to (standard output by default: :func:`shutil.get_terminal_size`),
    else ``default``; at least :data:`MIN_WIDTH`. Data formats (CSV, JSON, TREC lines) are never fitted to it."""
    if stream is not None and not os.environ.get("COLUMNS", "").isdigit():
        try:
            return max(MIN_WIDTH, os.get_terminal_size(stream.fileno()).columns or default)
        except (AttributeError, ValueError, OSError):  # no file descriptor, or not a terminal
            pass
    return max(MIN_WIDTH, shutil.get_terminal_size((default, 24)).columns)


def wrap(text: str, width: int, indent: str = "", hang: str | None = None) -> list[str]:
    """``text`` (one paragraph) as lines of at most ``width`` characters, the first after ``indent``, the others
    after ``hang`` (default: ``indent``), broken at spaces only: never inside a word, nor after a hyphen. A word
    longer than the room after the indent is moved left on a line of its own (less indent) so that it fits; one
    longer than ``width`` itself is left whole on its own line (a path or a name is never cut)."""
    hang = indent if hang is None else hang
    lines = textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=hang, break_long_words=False,
                          break_on_hyphens=False) or [indent.rstrip()]  # fmt: skip
    return [f"{line.strip():>{width}}" if len(line) > width and " " not in line.strip() else line for line in lines]


def fit(text: str, width: int, hang: int = 4) -> str:
    """Every line of ``text`` longer than ``width`` wrapped by :func:`wrap`, its later lines indented ``hang``
    spaces more than the line itself; shorter lines unchanged."""
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        out += wrap(line.strip(), width, indent, indent + " " * hang)
    return "\n".join(out)


def error_line(exc: BaseException) -> str:
    """The one line a command prints for a bad input or a file it cannot read: ``rankwise: error: `` and the
    error's first line (its type's name when it has no message)."""
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"rankwise: error: {message}"


def note_lines(notes: list[str], stream: TextIO) -> list[str]:
    """Each note as ``rankwise: note: ...`` for ``stream``: on a terminal, wrapped at its width (later lines indented
    4); else one line a note, so that a log read with ``grep 'rankwise: note:'`` has every note whole."""
    width = terminal_width(stream=stream) if stream.isatty() else None
    texts = [f"rankwise: note: {note}" for note in notes]
    return texts if width is None else ["\n".join(wrap(text, width, "", "    ")) for text in texts]


__all__ = ["DEFAULT_WIDTH", "MIN_WIDTH", "TORCH_CPU_INDEX", "counted", "error_line", "fit", "install_hint",
           "note_lines", "shorten", "terminal_width", "wrap"]
