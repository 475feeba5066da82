"""Help at the terminal's width: click's help layout (usage, paragraphs, option and command lists) laid out for
:func:`rankwise.wording.terminal_width` when it is printed, not for 80 columns, and wrapped at spaces only (click's
own wrapping cuts a word longer than its column and breaks after a hyphen: ``--per-`` / ``query``)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence

import click

from ..wording import fit, terminal_width, wrap

MARGIN = 2
"""Columns help leaves free at the right edge of the terminal, as click does."""


def paragraphs(text: str, width: int, indent: str) -> list[str]:
    """``text`` laid out as click lays out help: paragraphs apart at blank lines, each wrapped to ``width`` after
    ``indent`` and its first line's own indent; a paragraph whose first line is ``\\b`` keeps its lines as written,
    a line longer than the width wrapped at its spaces with its later lines indented 4 more (a command line in an
    example stays readable)."""
    out: list[str] = []
    for block in re.split(r"\n[ \t]*\n", text.expandtabs().strip("\n")):
        lines = block.splitlines()
        if out:
            out.append("")
        if lines and lines[0].strip() == "\b":
            out += fit("\n".join(indent + line for line in lines[1:]), width).split("\n")
        elif lines:
            own = indent + lines[0][: len(lines[0]) - len(lines[0].lstrip())]
            out += wrap(" ".join(line.strip() for line in lines), width, own)
    return out


class HelpFormatter(click.HelpFormatter):
    """:class:`click.HelpFormatter` at the terminal's width (less :data:`MARGIN`; at most ``max_width`` when one is
    given), wrapping at spaces only."""

    def __init__(self, indent_increment: int = 2, width: int | None = None, max_width: int | None = None) -> None:
        width = width or min(terminal_width(), max_width or sys.maxsize) - MARGIN
        super().__init__(indent_increment, width, max_width)

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        prefix = "Usage: " if prefix is None else prefix
        head = f"{prefix:>{self.current_indent}}{prog}"
        if not args:
            lines = [head]
        elif self.width - len(head) - 1 >= 20:  # the arguments beside the program's name
            lines = wrap(args, self.width, head + " ", " " * (len(head) + 1))
        else:
            lines = [head, *wrap(args, self.width, " " * (max(self.current_indent, len(prefix)) + 4))]
        self.write("\n".join(lines) + "\n")

    def write_text(self, text: str) -> None:
        self.write("\n".join(paragraphs(text, self.width, " " * self.current_indent)) + "\n")

    def write_dl(self, rows: Sequence[tuple[str, str]] | Iterable[tuple[str, str]], col_max: int = 30,
                 col_spacing: int = 2) -> None:  # fmt: skip
        rows = list(rows)
        column = min(max((len(first) for first, _ in rows), default=0), col_max) + col_spacing
        hang = " " * (self.current_indent + column)
        for first, second in rows:
            term = " " * self.current_indent + first
            body = paragraphs(second, self.width, hang) if second else []
            if body and len(first) <= column - col_spacing:
                body[0] = term.ljust(len(hang)) + body[0][len(hang):]
            else:
                body.insert(0, term)
            self.write("\n".join(body) + "\n")


class Context(click.Context):
    """A click context whose help is laid out by :class:`HelpFormatter`."""

    formatter_class = HelpFormatter


def use_context(command: click.Command) -> click.Command:
    """``command`` (and, for a group, each of its commands) made to lay out its help with :class:`Context`."""
    command.context_class = Context
    for sub in command.commands.values() if isinstance(command, click.Group) else ():
        use_context(sub)
    return command


__all__ = ["MARGIN", "Context", "HelpFormatter", "paragraphs", "use_context"]
