"""``rankwise recsys-experiment``: the RecSys'21 metric-consistency experiment on a ratings file, one command."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import click

from ..errors import RankwiseError
from ..limits import MAX_SUMMED_CUTOFF
from ..wording import terminal_width, wrap
from .common import echo_notes, fail_cleanly

if TYPE_CHECKING:
    from ..recsys.experiment import Experiment

FORMATS = ("table", "csv", "markdown")


@click.command("recsys-experiment", short_help="Rerun the RecSys'21 metric-consistency experiment on your ratings.")
@click.argument("ratings")
@click.option("--quantile", type=float, default=0.8, show_default=True,
              help="Global timestamp split: the earliest share of interactions trains.")
@click.option("--threshold", type=float, default=4.5, show_default=True,
              help="Test ratings at or above it are the relevant items; the rest are dropped.")
@click.option("-k", "--k", "k", type=click.IntRange(1, MAX_SUMMED_CUTOFF), default=20, show_default=True,
              help="Length of each list and cutoff (at most 10,000,000: RecTools' nDCG sums k discounts).")
@click.option("--model", type=click.Choice(["ease", "itemknn", "popular", "random"]), default="ease",
              show_default=True, help="Baseline that makes the lists.")
@click.option("--lambda", "regularization", type=float, default=500.0, show_default=True, help="EASE's L2 penalty.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random baseline.")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table = for the terminal; csv = one row per dialect; markdown = the paper's table.")
@click.option("--plot", "plot_path", default=None, metavar="FILE.png",
              help="Also draw each metric's values across dialects (needs matplotlib: pip install '.[report]').")
@fail_cleanly
def recsys_experiment(ratings: str, quantile: float, threshold: float, k: int, model: str, regularization: float,
                      seed: int, output_format: str, plot_path: str | None) -> None:  # fmt: skip
    """Load RATINGS (MovieLens u.data / ratings.dat / ratings.csv, RecBole .inter, CSV/TSV/parquet), split it
    globally by time, keep test ratings >= --threshold, recommend top-k with a baseline, and print every accuracy
    metric under every recommender library's dialect (rows: libraries, columns: metrics), the spread of each metric,
    why each library differs, and beyond-accuracy measures of the lists."""  # fmt: skip
    from ..recsys.experiment import recsys21

    experiment = recsys21(ratings, quantile=quantile, threshold=threshold, k=k, model=model,
                          regularization=regularization, seed=seed)  # fmt: skip
    echo_notes([*experiment.split.notes, *experiment.recommendations.notes])
    if output_format == "csv":
        click.echo(experiment.table().write_csv(), nl=False)
    elif output_format == "markdown":
        click.echo(format_markdown(experiment), nl=False)
    else:
        click.echo(format_text(experiment), nl=False)
    if plot_path:
        plot(experiment, plot_path)


def _number(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.4f}"


def _rows(experiment: Experiment) -> tuple[list[str], list[list[str]]]:
    keys = list(experiment.accuracy.keys)
    rows = [[row.dialect, *(_number(row.values[key]) for key in keys)] for row in experiment.accuracy.rows]
    spread = experiment.spread()
    rows.append(["distinct values", *(str(v) for v in spread.get_column("distinct"))])
    rows.append(["spread (max − min)", *(_number(v) for v in spread.get_column("spread"))])
    return ["library", *keys], rows


def _reasons(experiment: Experiment) -> list[str]:
    return [f"{row.dialect}: {'; '.join(row.reasons) or 'as trec_eval'}" for row in experiment.accuracy.rows]


def _settings(experiment: Experiment) -> str:
    return ", ".join(f"{key} {value}" for key, value in experiment.settings.items())


def format_text(experiment: Experiment, width: int | None = None) -> str:
    """Aligned columns for the terminal, fitted to ``width`` (default: the terminal's): the settings, the table (its
    metric columns in blocks that fit, each after the library column, when all of them do not), why each library
    differs and the beyond-accuracy measures, wrapped at spaces under their own start."""
    from ..pipeline.formats import plain_table

    width = width or terminal_width()
    header, rows = _rows(experiment)
    out = wrap(_settings(experiment), width)
    for block in _blocks([max(len(r[i]) for r in [header, *rows]) for i in range(len(header))], width):
        out += ["", *plain_table([header[i] for i in block], [[r[i] for r in rows] for i in block],
                                 [i > 0 for i in block])]  # fmt: skip
    out += ["", "why:"]
    for reason in _reasons(experiment):
        out += wrap(reason, width, "  ", "    ")
    out += ["", "beyond accuracy:"]
    for r in experiment.beyond:
        out += wrap(f"{r.measure}  {_number(r.value)}", width, "  ", "      ")
    return "\n".join(out) + "\n"


def _blocks(widths: list[int], width: int) -> list[list[int]]:
    """The columns after the first (of these ``widths``) in as few runs as fit ``width`` beside the first, two
    spaces apart, the runs as even in count as that allows; a column too wide even alone makes a run of its own."""
    rest = list(range(1, len(widths)))
    if not rest:
        return [[0]]
    for count in range(1, len(rest) + 1):
        size = -(-len(rest) // count)
        blocks = [[0, *rest[i : i + size]] for i in range(0, len(rest), size)]
        if all(sum(widths[i] + 2 for i in block) - 2 <= width for block in blocks):
            return blocks
    return [[0, i] for i in rest]


def format_markdown(experiment: Experiment) -> str:
    """The paper's table as Markdown, then the reasons and the beyond-accuracy measures."""
    header, rows = _rows(experiment)
    out = [f"Settings: {_settings(experiment)}", "", "| " + " | ".join(header) + " |",
           "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]  # fmt: skip
    out += ["| " + " | ".join(r) + " |" for r in rows]
    out += ["", *(f"- {reason}" for reason in _reasons(experiment)), "", "| measure | value |", "|---|---:|"]
    out += [f"| `{r.measure}` | {_number(r.value)} |" for r in experiment.beyond]
    return "\n".join(out) + "\n"


def plot(experiment: Experiment, path: str) -> None:
    """One panel per metric: each dialect's value as a labelled point (matplotlib, written to ``path``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RankwiseError("--plot needs matplotlib, which is not installed: pip install matplotlib "
                            "(from a checkout: pip install '.[report]')") from None  # fmt: skip
    keys = list(experiment.accuracy.keys)
    dialects = [row.dialect for row in experiment.accuracy.rows]
    figure, axes = plt.subplots(1, len(keys), figsize=(2.2 * len(keys), 0.28 * len(dialects) + 1.5), sharey=True)
    for axis, key in zip(axes if len(keys) > 1 else [axes], keys):
        values = [row.values[key] for row in experiment.accuracy.rows]
        axis.scatter(values, range(len(dialects)), s=14)
        axis.set_title(key, fontsize=9)
        axis.tick_params(labelsize=7)
        axis.grid(axis="x", alpha=0.3)
    axes_list = axes if len(keys) > 1 else [axes]
    axes_list[0].set_yticks(range(len(dialects)), dialects)
    axes_list[0].invert_yaxis()
    figure.suptitle(f"One model, every library's metrics ({_settings(experiment)})", fontsize=8)
    figure.tight_layout()
    try:
        figure.savefig(path, dpi=120)
    finally:
        plt.close(figure)
