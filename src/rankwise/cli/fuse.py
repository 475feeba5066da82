"""``rankwise fuse RUN RUN ...``: fuse runs into one (every method and normalisation of ranx), or search the best
fusion for a measure (``--optimize MEASURE --qrels QRELS``, cross-validated with ``--folds``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..errors import RankwiseError
from ..fusion.catalog import METHODS, NORMALISATIONS
from .common import echo_notes, fail_cleanly

METHOD_NAMES = ", ".join(m.name for m in METHODS)
NORM_NAMES = ", ".join(n.name for n in NORMALISATIONS)


def parse_weights(text: str | None) -> list[float] | None:
    """``0.3,0.7`` → [0.3, 0.7]; a word that is not a number is one line naming it."""
    if text is None:
        return None
    values = []
    for part in text.split(","):
        try:
            values.append(float(part))
        except ValueError:
            raise RankwiseError(f"--weights: {part.strip()!r} is not a number (give e.g. 0.3,0.7)") from None
    return values


def parse_params(items: tuple[str, ...], lists: bool) -> dict[str, Any]:
    """``k=60`` → {"k": 60}; with ``lists`` (the search), ``k=20,60`` → {"k": [20, 60]}."""
    params: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise RankwiseError(f"--param {item!r}: write NAME=VALUE (e.g. k=60)")
        try:
            numbers = [float(v) if any(c in v for c in ".eE") else int(v) for v in value.split(",")]
        except ValueError:
            raise RankwiseError(f"--param {item!r}: {value!r} is not a number") from None
        if len(numbers) > 1 and not lists:
            raise RankwiseError(f"--param {item!r}: one value when fusing (lists of values are searched by --optimize)")
        params[name.strip()] = numbers if len(numbers) > 1 else numbers[0]
    return params


def _names(values: tuple[str, ...]) -> list[str]:
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


@click.command(short_help="Fuse runs (RRF, CombSUM, weighted sums, ...), or search the best fusion.",
               epilog=f"Methods: {METHOD_NAMES}. Normalisations: {NORM_NAMES}. "
                      "'rankwise fuse --explain NAME' prints a method's or normalisation's formula, parameters and "
                      "reference.")  # fmt: skip
@click.argument("runs", nargs=-1)
@click.option("-m", "--method", "methods", multiple=True, metavar="METHOD",
              help="Fusion method [default: wsum]; with --optimize, several (repeated, comma-separated, or all).")
@click.option("--norm", "norms", multiple=True, metavar="NORM",
              help="Normalisation of each run per query [default: min-max]; with --optimize, several or all.")
@click.option("-w", "--weights", default=None, metavar="W,W,...", help="One weight per run (weighted methods).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A method's parameter (k=60); repeatable; with --optimize NAME=V,V,... searches those values.")
@click.option("-M", "--depth", type=int, default=None, help="Fuse only the top N of each run.")
@click.option("--missing", type=click.Choice(["default", "zero", "run_min"]), default="default", show_default=True,
              help="What a run that missed a document adds (score-based methods).")
@click.option("--queries", type=click.Choice(["union", "intersection"]), default="union", show_default=True,
              help="Queries some runs lack: fused over the runs that hold them, or left out.")
@click.option("--ties", type=click.Choice(["docno_desc", "docno_asc", "docno_desc_numeric", "input_order"]),
              default="docno_desc", show_default=True, help="Order of equal scores, in each run and in the result.")
@click.option("--qrels", default=None, help="Judgments: training for the methods that learn; needed by --optimize.")
@click.option("-l", "--rel-level", type=int, default=1, show_default=True, help="Relevant at grade >= N.")
@click.option("-o", "--output", default=None, help="Write the fused run here (TREC; .csv/.tsv/.parquet tables).")
@click.option("--tag", default=None, help="The run tag of a TREC output [default: the method's name].")
@click.option("--optimize", "measure", default=None, metavar="MEASURE",
              help="Search weights, parameters, methods and normalisations for the best mean MEASURE (nDCG@10).")
@click.option("--folds", type=int, default=None, help="With --optimize: K-fold cross-validation over queries.")
@click.option("--seed", type=int, default=0, show_default=True, help="With --folds: the seed of the split.")
@click.option("--denominator", type=int, default=10, show_default=True,
              help="With --optimize: weights in steps of 1/N summing to 1 (every point).")
@click.option("--top", type=int, default=20, show_default=True, help="With --optimize: configurations shown.")
@click.option("--report", default=None, help="With --optimize: every configuration's value to a CSV/parquet file.")
@click.option("--explain", "explain_name", default=None, metavar="NAME", help="Define a method or normalisation.")
@fail_cleanly
def fuse(runs: tuple[str, ...], methods: tuple[str, ...], norms: tuple[str, ...], weights: str | None,
         params: tuple[str, ...], depth: int | None, missing: str, queries: str, ties: str, qrels: str | None,
         rel_level: int, output: str | None, tag: str | None, measure: str | None, folds: int | None, seed: int,
         denominator: int, top: int, report: str | None, explain_name: str | None) -> None:  # fmt: skip
    """Fuse RUN RUN ... (TREC text, .gz, CSV/TSV/parquet) into one run, printed as TREC lines or written to -o.

    \b
    rankwise fuse bm25.txt dense.txt -m rrf --param k=60 -o fused.txt
    rankwise fuse bm25.txt dense.txt -m wsum --norm min-max -w 0.3,0.7 -M 1000 -o fused.txt
    rankwise fuse bm25.txt dense.txt -m wsum,rrf --optimize nDCG@10 --qrels qrels.txt --folds 5 -o best.txt
    """
    from ..fusion import explain, optimize_fusion
    from ..fusion.fused import fuse_with_notes, write_run

    if explain_name is not None:
        click.echo(explain(explain_name), nl=False)
        return
    if len(runs) < 2:
        raise RankwiseError(f"fusion needs at least two runs, got {len(runs)}")
    method_list, norm_list = _names(methods) or ["wsum"], _names(norms) or ["min-max"]
    common: dict[str, Any] = {"depth": depth, "missing": missing, "queries": queries, "ties": ties}
    if measure is None:
        if len(method_list) > 1 or len(norm_list) > 1:
            raise RankwiseError("one -m and one --norm when fusing (several are searched by --optimize)")
        frame, notes, config = fuse_with_notes(list(runs), method_list[0], norm_list[0], parse_weights(weights),
                                               parse_params(params, False), qrels=qrels, rel_level=rel_level,
                                               **common)  # fmt: skip
        echo_notes(notes)
        _emit(frame, output, tag or config.method.name, write_run)
        return
    if qrels is None:
        raise RankwiseError("--optimize needs --qrels (the judgments the measure is computed on)")
    if weights is not None:
        raise RankwiseError("--optimize searches the weights: leave out -w")
    search = optimize_fusion(qrels, list(runs), method_list if methods != ("all",) else "all",
                             norm_list if norms != ("all",) else "all", measure, denominator=denominator,
                             params=parse_params(params, True), folds=folds, seed=seed, rel_level=rel_level,
                             **common)  # fmt: skip
    echo_notes(search.notes)
    click.echo(search.table(top=top), nl=False)
    if report is not None:
        search.write(report)
    if output is not None:
        best = search.best_arguments()
        frame, _, config = fuse_with_notes(list(runs), best["method"], best["norm"], best.get("weights"),
                                           best.get("params"), qrels=qrels, rel_level=rel_level, **common)
        _emit(frame, output, tag or config.method.name, write_run)


def _emit(frame: Any, output: str | None, tag: str, write_run: Any) -> None:
    """The fused run to ``output``, or as TREC lines on stdout."""
    if output is not None:
        write_run(frame, output, tag)
        return
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fused.txt"
        write_run(frame, path, tag)
        click.echo(path.read_text(), nl=False)
