"""What every rankwise command shares: one-line errors with exit status 2, notes on stderr, result output, a progress
bar (the evaluation options the commands share are in :mod:`.options`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import wraps
from typing import Any

import click

from ..errors import RankwiseError
from ..wording import error_line, note_lines


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[Callable[[str, int, int], None] | None]:
    """A progress callback ``(stage, done, total)`` drawing a bar per stage on stderr, or None when stderr is not a
    terminal or ``enabled`` is false (``--quiet``). Only long work (a streamed run) reports progress."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskID, TaskProgressColumn, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, TaskID] = {}

        def report(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield report


def fail_cleanly(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn rankwise errors and OS errors into one line on stderr and exit status 2."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (RankwiseError, OSError) as exc:
            click.echo(error_line(exc), err=True)
            sys.exit(2)

    return wrapper


def format_option(formats: Sequence[str], help_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The ``--format`` option of a command (passed as ``output_format``): one of ``formats``, ``table`` by default."""
    return click.option("--format", "output_format", type=click.Choice(formats), default="table", show_default=True,
                        help=help_text)  # fmt: skip


def echo_notes(notes: list[str]) -> None:
    """Each note as ``rankwise: note: ...`` on stderr: on a terminal, wrapped at its width (later lines indented 4);
    else one line a note, so that a log read with ``grep 'rankwise: note:'`` has every note whole."""
    for line in note_lines(notes, sys.stderr):
        click.echo(line, err=True)


def echo_result(result: Any, output_format: str, per_query: bool, with_runid: bool = False,
                group_intervals: Mapping[str, Any] | None = None) -> None:  # fmt: skip
    """Notes to stderr, then the result in ``output_format`` (a key of :data:`FORMATS`) to stdout; a result with
    groups also its group table (:func:`rankwise.comparison.groups.group_table` with ``group_intervals``)."""
    from ..pipeline import formats

    echo_notes(result.notes())
    if output_format == "trec":
        text = formats.format_trec(result, per_query, with_runid)
    elif output_format == "json":
        text = formats.format_json(result)
    elif output_format == "csv":
        text = formats.format_csv(result, per_query)
    else:
        text = formats.format_table(result, per_query)
    if getattr(result, "groups", None) is not None:
        text = _with_group_table(result, output_format, per_query, text, group_intervals or {})
    click.echo(text, nl=False)


def _with_group_table(result: Any, output_format: str, per_query: bool, text: str,
                      intervals: Mapping[str, Any]) -> str:  # fmt: skip
    """The output ``text`` with the result's group table (``--groups``): after the table, inside the JSON
    (``"groups"``), or as the CSV of every number with each row's group."""
    from ..comparison.groups import group_table
    from ..comparison.report import groups

    table = group_table(result, **intervals)
    echo_notes(list(table.notes))
    if output_format == "json":
        return groups.group_json(text, result, table)
    if output_format == "csv":
        return groups.group_csv(result, table, per_query)
    return text + groups.format_group_text(table)
