"""``rankwise bias-disparity``: Elliot's bias disparity B_S, B_R and BD per (user group, item group) pair
(:func:`rankwise.bias_disparity`)."""

from __future__ import annotations

import csv
import io
import json
import math

import click

from ..pipeline import bias_disparity as computing
from ..pipeline.bias_disparity import COLUMNS, BiasDisparity
from ..policies import TiePolicy
from .common import echo_notes, fail_cleanly, format_option


@click.command("bias-disparity", short_help="Bias disparity per user group and item group (Elliot's BS, BR, BD).")
@click.argument("recommendations", metavar="RECS")
@click.option("--train", required=True, metavar="FILE", help="Training interactions (user, item): B_S counts them.")
@click.option("--groups", required=True, metavar="FILE:COLUMN|activity", help="The user groups.")
@click.option("--item-groups", required=True, metavar="FILE:COLUMN|popularity", help="The item groups.")
@click.option("-k", "cutoff", type=click.IntRange(1), required=True, help="Each user's list is cut at k (B_R).")
@click.option("--ties", type=click.Choice([t.value for t in TiePolicy if t is not TiePolicy.AVERAGE]),
              default=TiePolicy.DOCNO_DESC.value, show_default=True, help="The order of equal scores.")
@format_option(("table", "json", "csv"), "table = one line per pair; json; csv = columns " + ", ".join(COLUMNS) + ".")
@fail_cleanly
def bias_disparity(recommendations: str, train: str, groups: str, item_groups: str, cutoff: int, ties: str,
                   output_format: str) -> None:  # fmt: skip
    """B_S (training data), B_R (the top k of RECS) and BD = (B_R - B_S) / B_S for every pair of a user group and
    an item group (Tsintzou, Pitoura & Tsaparas 2018; Elliot's BiasDisparityBS/BR/BD)."""
    result = computing.bias_disparity(recommendations, train, k=cutoff, groups=groups, item_groups=item_groups,
                                      ties=ties)  # fmt: skip
    echo_notes(list(result.notes))
    if output_format == "json":
        click.echo(json.dumps(result.record(), indent=2))
    elif output_format == "csv":
        click.echo(_csv(result), nl=False)
    else:
        click.echo(_table(result), nl=False)


def _csv(result: BiasDisparity) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in result.rows():
        writer.writerow({key: ("" if isinstance(v, float) and math.isnan(v) else v) for key, v in row.items()})
    return out.getvalue()


def _table(result: BiasDisparity) -> str:
    rows = [(str(r["user_group"]), str(r["item_group"]), *(_number(r[m]) for m in ("BS", "BR", "BD")))
            for r in result.rows()]  # fmt: skip
    heading = (f"users: {result.user_attribute}", f"items: {result.item_attribute}", "BS", "BR", "BD")
    widths = [max(len(cell) for cell in column) for column in zip(heading, *rows)]
    lines = [f"bias disparity @{result.cutoff}"]
    for cells in (heading, *rows):
        lines.append("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))))
    return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.4f}"
