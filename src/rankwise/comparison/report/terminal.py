"""The terminal report (rich): systems × measures with mean, interval and significance letters, then one row per
pair compared; fitted to the terminal's width (a long layout, one row per system and measure, when the wide one
does not fit)."""

from __future__ import annotations

import io
from typing import Any

from ...wording import terminal_width
from ..groups import GroupComparison
from ..systems import Comparison, PairComparison
from .marks import caption, interval, letter, number, p_text, superscript


def format_terminal(comparison: Comparison, width: int | None = None, by_group: GroupComparison | None = None) -> str:
    """The report as plain text no wider than ``width`` (default: the terminal's, or ``COLUMNS``), then with
    ``by_group`` the same tables within each group; the notes are not part of it (the command line prints them on
    stderr)."""
    from rich.console import Console

    width = width or terminal_width()
    console = Console(file=io.StringIO(), width=width, color_system=None, soft_wrap=False)
    _print_tables(console, comparison, width, "")
    console.print(caption(comparison))
    for heading, part in by_group.headed() if by_group is not None else ():
        _print_tables(console, part, width, f" — {heading}")
    return console.file.getvalue()  # type: ignore[attr-defined]


def _print_tables(console: Any, comparison: Comparison, width: int, suffix: str) -> None:
    """The systems and the pairs tables, wide where they fit, their titles followed by ``suffix``."""
    wide, pairs = _wide_table(comparison), _pairs_table(comparison)
    systems = wide if _natural_width(console, wide) <= width else _long_table(comparison)
    compared = pairs if _natural_width(console, pairs) <= width else _long_pairs_table(comparison)
    for table in (systems, compared):
        table.title = f"{table.title}{suffix}"
        console.print(table)


def _natural_width(console: Any, table: Any) -> int:
    """The width ``table`` takes when nothing is wrapped or cut."""
    from rich.measure import Measurement

    return Measurement.get(console, console.options.update_width(1_000_000), table).maximum


def _wide_table(comparison: Comparison):  # type: ignore[no-untyped-def]
    from rich.table import Table

    table = Table(title="Systems")
    table.add_column("#", no_wrap=True)
    table.add_column("system", no_wrap=True)
    for key in comparison.keys:
        table.add_column(key, justify="right", no_wrap=True)
    for i, system in enumerate(comparison.systems):
        cells = []
        for key in comparison.keys:
            s = comparison.summary(system, key)
            cells.append(f"{number(s.mean)} {interval(s.low, s.high, 3)}{superscript(comparison, system, key)}")
        table.add_row(letter(i), system, *cells)
    return table


def _long_table(comparison: Comparison):  # type: ignore[no-untyped-def]
    from rich.table import Table

    table = Table(title="Systems")
    for name, justify in (("measure", "left"), ("#", "left"), ("system", "left"), ("mean", "right"),
                          ("interval", "right")):  # fmt: skip
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for key in comparison.keys:
        for i, system in enumerate(comparison.systems):
            s = comparison.summary(system, key)
            table.add_row(key, letter(i), system, number(s.mean) + superscript(comparison, system, key),
                          interval(s.low, s.high))  # fmt: skip
    return _whole_words(table)


def _pairs_table(comparison: Comparison):  # type: ignore[no-untyped-def]
    from rich.table import Table

    table = Table(title=_PAIRS_TITLE)
    for name in ("measure", "system", "against", "difference", "interval", "p", "p adj.", "d", "W/T/L"):
        table.add_column(name, justify="left" if name in ("measure", "system", "against") else "right",
                         no_wrap=True)  # fmt: skip
    for c in comparison.comparisons:
        table.add_row(c.measure, c.system, c.against, *_pair_numbers(c))
    return table


def _long_pairs_table(comparison: Comparison):  # type: ignore[no-untyped-def]
    """Two columns, for narrow terminals: which pair, and its numbers on two lines."""
    from rich.table import Table

    table = Table(title=_PAIRS_TITLE, show_lines=True)
    table.add_column("comparison")
    table.add_column("result")
    for c in comparison.comparisons:
        difference, bounds, p, adjusted, d, counts = _pair_numbers(c)
        table.add_row(f"{c.measure}: {c.system} − {c.against}",
                      f"{difference} {bounds}\np {p}, adj. {adjusted}, d {d}, W/T/L {counts}")  # fmt: skip
    return _whole_words(table)


def _whole_words(table: Any) -> Any:
    """``table`` with each column at least as wide as its longest word: rich then wraps a cell at its spaces and
    never cuts or folds a word (a table whose words cannot all fit is wider than the terminal rather than cut)."""
    for column in table.columns:
        words = [word for cell in (column.header, *column.cells) for word in str(cell).split()]
        column.min_width = max(map(len, words), default=1)
    return table


_PAIRS_TITLE = "Comparisons (difference = system − against; * significant)"


def _pair_numbers(c: PairComparison) -> tuple[str, str, str, str, str, str]:
    mark = " *" if c.significant else ""
    return (f"{c.difference:+.4f}", interval(c.low, c.high), p_text(c.p_value), p_text(c.p_adjusted) + mark,
            number(c.cohens_d, 2), f"{c.wins}/{c.ties}/{c.losses}")  # fmt: skip


__all__ = ["format_terminal"]
