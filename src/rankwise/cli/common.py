"""What every rankwise command shares: one-line errors with exit status 2, notes on stderr, result output, and the
options for recommendation inputs."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from typing import Any

import click

from ..errors import RankwiseError


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
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            click.echo(f"rankwise: error: {message}", err=True)
            sys.exit(2)

    return wrapper


@dataclass(frozen=True)
class InputOptions:
    """The recommendation-input options as given on the command line (``-k``, ``--threshold``, ``--truth-cols``,
    ``--rec-cols``, ``--train``, ``--catalog``)."""

    cutoffs: str | None = None
    threshold: float | None = None
    truth_cols: str | None = None
    rec_cols: str | None = None
    train: str | None = None
    catalog: int | None = None

    def as_arguments(self) -> dict[str, Any]:
        """Keyword arguments of :func:`rankwise.evaluate` (errors here are the user's: call inside the command)."""
        from ..io.tabular import columns_from_names

        ks = None
        if self.cutoffs:
            try:
                ks = [int(k) for k in self.cutoffs.split(",") if k.strip()]
            except ValueError:
                raise RankwiseError(f"-k {self.cutoffs!r}: cutoffs must be integers separated by commas") from None
        return {
            "cutoffs": ks,
            "threshold": self.threshold,
            "qrels_columns": columns_from_names(self.truth_cols, "qrels"),
            "run_columns": columns_from_names(self.rec_cols, "run"),
            "train": self.train,
            "catalog": self.catalog,
        }


def recommendation_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Options for (user, item, rating) ground truth and (user, item, score|rank) recommendation tables; the command
    receives them as ``inputs: InputOptions``."""

    @wraps(command)
    def wrapper(*args: Any, cutoffs: str | None, threshold: float | None, truth_cols: str | None,
                rec_cols: str | None, train: str | None, catalog: int | None, **kwargs: Any) -> Any:  # fmt: skip
        inputs = InputOptions(cutoffs, threshold, truth_cols, rec_cols, train, catalog)
        return command(*args, inputs=inputs, **kwargs)

    options = [
        click.option("-k", "--cutoffs", default=None, metavar="K[,K...]",
                     help="Give every measure written without a cutoff each of these cutoffs (-m nDCG -k 10,20)."),
        click.option("--threshold", type=float, default=None,
                     help="Qrels values are ratings: relevant when rating >= THRESHOLD (e.g. 4.5)."),
        click.option("--truth-cols", default=None, metavar="USER,ITEM,RATING",
                     help="Column names of a tabular qrels file (query, document, grade or rating)."),
        click.option("--rec-cols", default=None, metavar="USER,ITEM,SCORE",
                     help="Column names of a tabular run (query, document, score; a third named rank is a rank)."),
        click.option("--train", default=None, metavar="FILE",
                     help="Training interactions (user, item): each user's candidates are the catalogue minus them "
                          "(Elliot's AUC family needs them)."),
        click.option("--catalog", type=int, default=None, metavar="N",
                     help="Number of items in the catalogue [default: the items in --train]."),
    ]  # fmt: skip
    decorated: Callable[..., Any] = wrapper
    for option in reversed(options):
        decorated = option(decorated)
    return decorated


def echo_notes(notes: list[str]) -> None:
    """Each note as one ``rankwise: note: ...`` line on stderr."""
    for note in notes:
        click.echo(f"rankwise: note: {note}", err=True)


def echo_result(result: Any, output_format: str, per_query: bool, with_runid: bool = False) -> None:
    """Notes to stderr, then the result in ``output_format`` (a key of :data:`FORMATS`) to stdout."""
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
    click.echo(text, nl=False)
