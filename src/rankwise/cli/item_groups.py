"""``rankwise item-groups``: exposure and coverage by item group over every list's top k
(:func:`rankwise.item_group_table`)."""

from __future__ import annotations

import click

from ..pipeline.item_table import DISCOUNTS
from ..policies import TiePolicy
from .common import echo_notes, fail_cleanly, format_option


@click.command("item-groups", short_help="Exposure and coverage by item group (providers, genres, head and tail).")
@click.argument("run")
@click.option("--item-groups", "groups", required=True, metavar="FILE:COLUMN|popularity",
              help="The item groups: a column of a CSV/TSV/parquet file or RecBole .item file, or popularity (the "
                   "head/tail split of the --train items).")  # fmt: skip
@click.option("-k", "cutoff", type=click.IntRange(1), default=None, help="Each list cut at k [default: whole lists].")
@click.option("--qrels", default=None, metavar="QRELS", help="Judgments: each group's relevant pairs and exposure / "
              "relevance.")  # fmt: skip
@click.option("-l", "--rel-level", type=int, default=1, show_default=True, help="Relevant: grade >= this (--qrels).")
@click.option("--discount", type=click.Choice(DISCOUNTS), default="log2", show_default=True,
              help="The weight of rank i: 1/log2(i+1), 1/log2(max(i,2)) (TREC Fair), p^(i-1), 1/i, or 1.")
@click.option("-p", "patience", type=click.FloatRange(0, 1, min_open=True), default=0.85, show_default=True,
              help="p of --discount geometric.")
@click.option("--ties", type=click.Choice([t.value for t in TiePolicy if t is not TiePolicy.AVERAGE]),
              default=TiePolicy.DOCNO_DESC.value, show_default=True, help="The order of equal scores.")
@click.option("--train", default=None, metavar="FILE", help="Training interactions (for --item-groups popularity).")
@format_option(("table", "json", "csv"), "table = a line per group; json; csv = a row per group.")
@fail_cleanly
def item_groups(run: str, groups: str, cutoff: int | None, qrels: str | None, rel_level: int, discount: str,
                patience: float, ties: str, train: str | None, output_format: str) -> None:  # fmt: skip
    """Per item group of RUN's lists: its items, those listed and the coverage, its slots and share of the top k,
    its share of the exposure against its share of the items (and of the relevant pairs with --qrels)."""
    from ..pipeline.item_table import item_group_table

    table = item_group_table(run, groups, k=cutoff, qrels=qrels, discount=discount, p=patience, rel_level=rel_level,
                             ties=ties, train=train)  # fmt: skip
    echo_notes(list(table.notes))
    text = table.json() if output_format == "json" else table.csv() if output_format == "csv" else table.text()
    click.echo(text, nl=False)
