"""``rankwise ltr``: train a ranker on SVMlight/libsvm files, predict a TREC run, evaluate with rankwise measures.

Documents are named by their position in their query (``0``, ``1``, ...), or with ``--doc-ids-from-comments`` by
each row's comment (``#docid = ID``, LETOR's layout), the same in ``ltr qrels`` and ``ltr predict``, so their output
works with ``rankwise evaluate``, every dialect and (with real document ids) the collection's own qrels.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..errors import RankwiseError
from ..ltr.kinds import MODEL_KINDS
from ..ltr.limits import MAX_WIDTH
from ..pipeline.formats import FORMATS
from ..wording import counted
from .common import echo_notes, echo_result, fail_cleanly

if TYPE_CHECKING:  # numpy, polars and the SVMlight reader are imported when a command runs, not for its help
    import numpy as np
    import polars as pl

    from ..ltr.svmlight import LtrData


@dataclass(frozen=True)
class _FileOptions:
    """How the SVMlight files of one command are read (``--zero-based``, ``--any-qid-order``,
    ``--doc-ids-from-comments``, ``--num-features``)."""

    zero_based: bool = False
    any_qid_order: bool = False
    doc_ids_from_comments: bool = False
    num_features: int | None = None

    def read(self, path: str, num_features: int | None = None) -> LtrData:
        """Read ``path`` with ``num_features`` (a model's or the training file's width), else ``--num-features``,
        else the width the data shows."""
        from ..ltr.svmlight import read_svmlight

        width = num_features if num_features is not None else self.num_features
        return read_svmlight(path, zero_based=self.zero_based, num_features=width,
                             qid_order="any" if self.any_qid_order else "increasing",
                             doc_ids="comment" if self.doc_ids_from_comments else "position")  # fmt: skip


def file_options(*, doc_ids: bool, width: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add ``--zero-based``, ``--any-qid-order``, (``doc_ids``) ``--doc-ids-from-comments`` and (``width``: the
    command reads its width from the data, not from a model) ``--num-features``; the command receives them as
    ``files: _FileOptions``."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def wrapper(*args: Any, zero_based: bool, any_qid_order: bool, doc_ids_from_comments: bool = False,
                    num_features: int | None = None, **kwargs: Any) -> Any:  # fmt: skip
            files = _FileOptions(zero_based, any_qid_order, doc_ids_from_comments, num_features)
            return command(*args, files=files, **kwargs)

        options = [
            click.option("--zero-based", is_flag=True, help="Feature indices start at 0 (default: 1)."),
            click.option(
                "--any-qid-order", is_flag=True, help="Accept qid: groups in any order (default: qids must increase)."
            ),
        ]
        if doc_ids:
            options.append(click.option("--doc-ids-from-comments", is_flag=True,
                                        help="Name documents by each row's comment (#docid = ID, or # ID ...) "
                                        "instead of their position in the query."))  # fmt: skip
        if width:
            options.append(click.option("--num-features", type=click.IntRange(0, MAX_WIDTH), default=None, metavar="N",
                                        help="The width (features) of the data [default: its largest index, up to "
                                        "65536 or the number of index:value entries]."))  # fmt: skip
        for option in options:
            wrapper = option(wrapper)
        return wrapper

    return decorate


def _params(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``key=value`` texts to a dict; values that read as numbers become numbers."""
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise RankwiseError(f"-p {pair!r}: parameters are KEY=VALUE")
        params[key.strip()] = _number_or_text(value.strip())
    return params


def _number_or_text(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _cutoffs(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise RankwiseError(f"--eval-at {text!r}: cutoffs must be integers separated by commas") from None
    if not values or min(values) < 1:
        raise RankwiseError(f"--eval-at {text!r}: give positive cutoffs, e.g. 1,3,5")
    return values


def _check_run_name(run_name: str) -> None:
    """A run name is the last field of a TREC run line: one word, or it could not be read back as written."""
    if not run_name or any(c.isspace() for c in run_name):
        raise RankwiseError(f"--run-name {run_name!r}: a run name is one word (no spaces, tabs or line breaks)")


def _check_doc_ids(data: LtrData) -> None:
    """TREC files are split on white space: a document id that holds some (or is empty) could not be read back as
    written."""
    import numpy as np

    ids = data.doc_ids()
    unwritable = (ids.str.contains(r"\s") | (ids.str.len_chars() == 0)).to_numpy()
    if unwritable.any():
        row = int(np.argmax(unwritable))
        raise RankwiseError(f"{data.source}: document id {ids[row]!r} of row {row + 1} cannot be a TREC field "
                            "(empty or with white space)")  # fmt: skip


def trec_run(data: LtrData, scores: np.ndarray, run_name: str) -> pl.DataFrame:
    """A TREC run (``qid Q0 docno rank score tag``): queries in file order, each one's rows by score descending,
    ties in row order (as LightGBM and XGBoost rank them). The run name and the document ids must be single words
    (they are written as they are, never quoted)."""
    import polars as pl

    _check_run_name(run_name)
    _check_doc_ids(data)
    frame = data.to_run(scores).with_columns(group=pl.Series(data.row_groups()), row=pl.int_range(pl.len()))
    frame = frame.sort(["group", "score", "row"], descending=[False, True, False])
    return frame.select(
        "query_id",
        pl.lit("Q0").alias("q0"),
        "doc_id",
        (pl.int_range(pl.len()).over("query_id") + 1).alias("rank"),
        "score",
        pl.lit(run_name).alias("tag"),
    )


def _write(frame: pl.DataFrame, output: str | None) -> None:
    """Space-separated fields written as they are (TREC readers know no quoting)."""
    text = frame.write_csv(separator=" ", include_header=False, quote_style="never")
    if output is None:
        click.echo(text, nl=False)
    else:
        Path(output).write_text(text)


@click.group("ltr", short_help="Learning to rank: train, predict, evaluate.")
def ltr() -> None:
    """Learning to rank on SVMlight/libsvm files (qid: or FILE.query): train, predict, evaluate; qrels and
    relabel turn labels into TREC judgments and back."""


@ltr.command("train", short_help="Train a ranker and save it to a directory.")
@click.argument("train_file", metavar="TRAIN")
@click.option("--valid", "valid_file", default=None, help="Validation file: early stopping and progress.")
@click.option("--model", "kind", type=click.Choice(list(MODEL_KINDS)), default="lightgbm", show_default=True,
              help="lightgbm / xgboost: LambdaMART; linear / mlp / transformer (self-attention over each query's "
              "documents): PyTorch scorers trained with --loss.")  # fmt: skip
@click.option("--loss", default=None, help="Neural loss: mse, sigmoid_ce, sigmoid_ce_graded, ranknet, listnet, "
              "listmle, lambdarank, approxndcg [default: lambdarank].")  # fmt: skip
@click.option("-p", "--param", "param_pairs", multiple=True, metavar="KEY=VALUE",
              help="Library parameter (LightGBM/XGBoost names; neural: hidden=64,32, learning_rate=...; "
              "transformer: d_model=64, heads=2, blocks=2, ff=128, its defaults).")  # fmt: skip
@click.option("--rounds", type=int, default=100, show_default=True, help="Boosting rounds or epochs.")
@click.option("--early-stopping", type=int, default=None, help="Stop after N rounds without a better validation nDCG.")
@click.option("--eval-at", default="1,3,5", show_default=True, help="Validation nDCG cutoffs.")
@click.option("--seed", type=int, default=None, help="Random seed [default: each library's].")
@file_options(doc_ids=False, width=True)
@click.option("-o", "--output", required=True, help="Directory to save the model in.")
@click.option("--quiet", is_flag=True, help="No progress lines.")
@fail_cleanly
def train(train_file: str, valid_file: str | None, kind: str, loss: str | None, param_pairs: tuple[str, ...],
          rounds: int, early_stopping: int | None, eval_at: str, seed: int | None, files: _FileOptions, output: str,
          quiet: bool) -> None:  # fmt: skip
    """Train a ranker on TRAIN and save it to a directory (-o)."""
    from ..ltr.models import train_ranker

    params = _params(param_pairs)
    if loss is not None:
        if kind in ("lightgbm", "xgboost"):
            raise RankwiseError(f"--loss is for the neural models; {kind} takes -p objective=...")
        params["loss"] = loss
    data = files.read(train_file)
    valid = files.read(valid_file, data.num_features) if valid_file else None

    def progress(iteration: int, values: Any) -> None:
        click.echo(f"[{iteration:>4}] {_metrics(values)}", err=True)

    ranker = train_ranker(kind, data, valid, params=params, rounds=rounds, early_stopping=early_stopping,
                          eval_at=_cutoffs(eval_at), seed=seed, on_progress=None if quiet else progress)  # fmt: skip
    ranker.save(output)
    used = f" ({ranker.used_features} used)" if ranker.used_features is not None else ""
    trained = getattr(ranker.model, "training", None)  # a neural model: its device, batch size and precision
    if trained:
        used += f" (on {trained['device']}: batch_groups={trained['batch_groups']}, {trained['precision']})"
    if valid is not None:
        kept = f"best iteration {ranker.best_iteration} of {len(ranker.history)}: {_metrics(ranker.best_metrics)}"
    else:
        kept = f"{counted(ranker.best_iteration or 0, 'iteration', 'iterations')} (no --valid: the last is kept)"
    sizes = (counted(data.num_rows, "row", "rows"), counted(data.num_groups, "query", "queries"),
             counted(data.num_features, "feature", "features"))  # fmt: skip
    click.echo(f"{kind}: {', '.join(sizes)}{used}; {kept}; saved to {output}", err=True)


def _metrics(values: Any) -> str:
    return "  ".join(f"{name}={value:.6f}" for name, value in values.items())


@ltr.command("predict", short_help="Score data with a saved model: a TREC run.")
@click.argument("model_dir", metavar="MODEL")
@click.argument("data_file", metavar="DATA")
@click.option("-o", "--output", default=None, help="Write the run here [default: stdout].")
@click.option("--run-name", default="rankwise", show_default=True, help="The run's tag (last column).")
@file_options(doc_ids=True)
@fail_cleanly
def predict(model_dir: str, data_file: str, output: str | None, run_name: str, files: _FileOptions) -> None:
    """Score DATA with a saved MODEL and write a TREC run (documents named by their position in the query, or by
    their comments with --doc-ids-from-comments)."""
    from ..ltr.models import Ranker

    _check_run_name(run_name)
    ranker = Ranker.load(model_dir)
    data = files.read(data_file, ranker.num_features)
    _write(trec_run(data, ranker.predict(data), run_name), output)


@ltr.command("qrels", short_help="Write the labels as TREC qrels.")
@click.argument("data_file", metavar="DATA")
@click.option("-o", "--output", default=None, help="Write the qrels here [default: stdout].")
@file_options(doc_ids=True, width=True)
@fail_cleanly
def qrels(data_file: str, output: str | None, files: _FileOptions) -> None:
    """Write the labels of DATA as TREC qrels ("qid 0 docno grade" lines)."""
    import polars as pl

    data = files.read(data_file)
    _check_doc_ids(data)
    frame = data.to_qrels()
    _write(frame.select("query_id", pl.lit("0").alias("iter"), "doc_id", "grade"), output)


@ltr.command("relabel", short_help="Replace labels by grades from judgments.")
@click.argument("data_file", metavar="DATA")
@click.argument("qrels_file", metavar="QRELS")
@click.option("-o", "--output", required=True, help="Write the relabelled SVMlight file here.")
@click.option("--unjudged", type=int, default=None, help="Grade of a row QRELS does not judge [default: an error].")
@click.option("--threshold", type=float, default=None, help="QRELS values are ratings: relevant when >= this.")
@click.option("--query-file", "write_query_file", is_flag=True,
              help="Write groups to OUTPUT.query instead of qid: tokens (LightGBM's layout).")  # fmt: skip
@file_options(doc_ids=True, width=True)
@fail_cleanly
def relabel_command(data_file: str, qrels_file: str, output: str, unjudged: int | None, threshold: float | None,
                    write_query_file: bool, files: _FileOptions) -> None:  # fmt: skip
    """Write DATA with each row's label replaced by its grade in QRELS (matched on qid and document id)."""
    from ..ltr.judgments import relabel
    from ..ltr.svmlight import write_svmlight

    done = relabel(files.read(data_file), qrels_file, unjudged=unjudged, threshold=threshold)
    echo_notes(done.notes())
    write_svmlight(done.data, output, query_file=write_query_file, zero_based=files.zero_based)


@ltr.command("evaluate", short_help="Score data with a saved model and evaluate it.")
@click.argument("model_dir", metavar="MODEL")
@click.argument("data_file", metavar="DATA")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measures (repeatable) [default: nDCG@1,3,5,10 and AP].")  # fmt: skip
@click.option("--dialect", default=None, metavar="NAME[@VERSION]", help="Compute measures as this library does.")
@click.option("-q", "--per-query", is_flag=True, help="Also print per-query values.")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default="table", show_default=True)
@file_options(doc_ids=True)
@fail_cleanly
def evaluate_model(model_dir: str, data_file: str, measures: tuple[str, ...], dialect: str | None, per_query: bool,
                   output_format: str, files: _FileOptions) -> None:  # fmt: skip
    """Score DATA with a saved MODEL and evaluate the ranking against DATA's labels."""
    from ..ltr.models import Ranker
    from ..pipeline.evaluate import evaluate

    ranker = Ranker.load(model_dir)
    data = files.read(data_file, ranker.num_features)
    chosen = list(measures) or ["nDCG@1", "nDCG@3", "nDCG@5", "nDCG@10", "AP"]
    result = evaluate(data.to_qrels(), data.to_run(ranker.predict(data)), chosen, dialect=dialect)
    echo_result(result, output_format, per_query)
