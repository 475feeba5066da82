"""The driver of ``rankwise.spark.evaluate(qrels_df, run_df, measures, ...)``: :func:`rankwise.evaluate` on Spark
DataFrames, with the same options, the same result and the same numbers.

1. **Plan and check** (driver): the plan as locally (:func:`rankwise.pipeline.plan.make_plan`); each DataFrame's
   columns found and their types checked as for a local DataFrame (:func:`rankwise.spark.frames.describe`).
2. **Evaluate** (executors, one job): the rows of qrels, run and training interactions as one union in as few and
   as narrow columns as the values allow (:mod:`rankwise.spark.frames`), ``repartition(partitions, query)``, then
   ``mapInArrow``: each task evaluates its partition's rows, in chunks of whole queries, with the local engine
   (:mod:`rankwise.spark.executor`). No sort: the local engine groups rows by query itself. A DataFrame has no row
   order (see below), so where a tie policy reads it (``ties=input_order``) the run gives it in ``order_column`` or
   as ranks, or is refused (:mod:`rankwise.spark.order`). DataFrame API only (no RDD: it runs under
   Spark Connect), Spark >= 3.5. Integer values of 2^53 or more (which a double cannot hold) make the executors ask
   for a second job with the values as given.
3. **Gather** (driver): the chunks' per-query values and aggregation inputs, put in the order of the queries'
   text, give the aggregates of a local evaluation bit for bit (:mod:`rankwise.spark.gather`), and
   :func:`rankwise.pipeline.result.assemble` the result.

Why ``mapInArrow`` and not ``groupBy(query).cogroup(...).applyInArrow``: the grouped form calls Python once per
query (on local[2], 2.8 s for 20,000 users with a function that does nothing: about 140 s for 1M users) and sorts
every row by query first; a chunk of thousands of queries is one vectorised evaluation, and needs no sort.

Row order: locally the rows of every input have an order (a file's lines, a DataFrame's rows, a dict's insertion
order), and ``ties=input_order`` breaks ties in it. A Spark DataFrame has none: a repartition, a join or a union
shuffles its rows, and even with one partition the order rows are read in (their ``monotonically_increasing_id``)
is that of however the DataFrame was computed, which Spark does not promise to keep between two jobs. Every other tie
policy, and everything else computed, reads no row order, so the numbers equal the local engine's however the rows
are spread; under ``input_order`` the order must be given (:mod:`rankwise.spark.order`), never guessed.

Memory: a task holds its partition's rows as Arrow arrays (about 32 bytes a row with integer ids and numeric values)
and evaluates ``chunk_rows`` of them at a time (about 200 bytes a row): give ``partitions`` a number that makes
rows / partitions fit a Python worker. A query with more than ``max_query_rows`` rows (ranked documents + judgments
+ training items) is refused with an error naming it, while the partition is read, instead of failing the
executor. The driver holds the per-query values (as :class:`rankwise.EvaluationResult` does locally) and, for the
pooled AUC, its per-row inputs.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import polars as pl

from ..dialects import Dialect
from ..errors import EmptyInputError, InputError
from ..io.interactions import load_interactions
from ..io.table import DOCID, QID, Kind, Table
from ..kernels.beyond import refuse_on_chunks
from ..pipeline.compute import candidate_counts
from ..pipeline.groups import POPULARITY, GroupSource, item_group_notes, read_item_groups
from ..pipeline.load import load_or_empty
from ..pipeline.options import EvaluationOptions
from ..pipeline.plan import MeasureLike
from ..pipeline.result import EvaluationResult, assemble
from ..policies import QuerySet, ScorePrecision, TiePolicy
from .executor import INEXACT, PAYLOAD, SCHEMA, Task, evaluate_partition
from .frames import KEY, QRELS, RUN, Side, column, describe, describe_train, spark_dataframe, with_common_id_types
from .gather import Payload, gather
from .order import check_order_column, order_run, reads_row_order
from .payload import unpack

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

CHUNK_ROWS = 1_000_000
"""Rows a task evaluates at a time (about: a chunk holds whole queries)."""
MAX_QUERY_ROWS = 5_000_000
"""Rows one query may have (ranked documents, judgments and training items together)."""


def evaluate(
    qrels: DataFrame,
    run: DataFrame,
    measures: MeasureLike | Iterable[MeasureLike] | None = None,
    *,
    dialect: str | Dialect | None = None,
    ties: TiePolicy | str | None = None,
    queries: QuerySet | str | None = None,
    depth: int | None = None,
    rel_level: int = 1,
    scores: ScorePrecision | str | None = None,
    cutoffs: Iterable[int] | None = None,
    threshold: float | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    train: Any = None,
    catalog: int | Iterable[str] | None = None,
    item_groups: Any = None,
    partitions: int | None = None,
    chunk_rows: int = CHUNK_ROWS,
    max_query_rows: int = MAX_QUERY_ROWS,
    order_column: str | None = None,
) -> EvaluationResult:
    """Evaluate the Spark DataFrame ``run`` against the Spark DataFrame ``qrels``: the result, notes and errors of
    :func:`rankwise.evaluate` on the same rows (every option means what it means there), computed on the cluster.

    Columns are found by name as in a local DataFrame (``query_id``/``user_id``, ``doc_id``/``item_id``, ``score``
    or ``rank``, ``relevance``/``rating``; or ``qrels_columns``/``run_columns``). Ids may be strings or integers.
    ``train`` (training interactions, for Elliot's AUC family) is a Spark DataFrame or anything
    :func:`rankwise.evaluate` takes. An error naming a row names it by its position in the DataFrame
    (``run DataFrame row 17``: the 18th row of ``run.collect()``).

    ``item_groups`` (for AWRF, nDCG-AWRF, RSP, REO and EE over=groups) is anything :func:`rankwise.evaluate` takes
    but ``popularity`` (which splits all training items, while each task sees only its users'): read on the driver
    and sent to every task with the plan, so it should fit the driver and each Python worker (a few bytes an item).
    Its notes (ids that are no item of the run or the qrels, ranked items in no group, groups without a ranked item)
    are those of :func:`rankwise.evaluate`, from one more job listing the distinct items.

    ``partitions``: tasks of the evaluation (default: ``spark.sql.shuffle.partitions``; a task holds its share of
    the rows, about 32 bytes a row); ``chunk_rows``: rows a task evaluates at once (about 200 bytes a row);
    ``max_query_rows``: the rows one query may have before it is refused with an error naming it (a query is
    evaluated in one task's memory).

    ``order_column``: a run column whose values (numbers, text, dates or times; distinct within each query) order
    each query's rows, for a tie policy that breaks ties in row order (``ties=input_order``: the default of
    cwl_eval, LightGBM, XGBoost, rs_metrics, Spark MLlib, MS Recommenders, Beta-RecSys and Elliot). Locally that
    order is the order of the rows as given; a Spark DataFrame has none (a repartition, a join or a union reorders
    its rows), so under ``input_order`` the run must give it: ``order_column`` (ties are then broken as
    :func:`rankwise.evaluate` breaks them on the rows sorted by that column), or a rank column instead of scores
    (no two rows of a query may share a rank); otherwise the evaluation is refused with an :class:`InputError`
    that says so. Another ``ties=`` policy reads no row order and needs none.

    The per-query values are on the driver (``result.values``); :func:`to_spark` gives them as a Spark DataFrame.
    Aggregates are computed from all per-query values in query order, as locally, so they are the local engine's
    bit for bit (a Spark ``avg`` would depend on the partitioning).
    """
    options = EvaluationOptions.from_arguments(locals())
    plan = options.plan(measures)
    for name, frame in (("qrels", qrels), ("run", run)):
        if not spark_dataframe(frame):
            raise InputError(f"rankwise.spark.evaluate takes Spark DataFrames; {name} is a {type(frame).__name__} "
                             "(rankwise.evaluate reads it locally)")  # fmt: skip
    for name, limit in (("partitions", partitions), ("chunk_rows", chunk_rows), ("max_query_rows", max_query_rows)):
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise InputError(f"{name} must be a whole number >= 1, not {limit!r}")
    check_order_column(order_column)
    refuse_on_chunks(plan.pairs, item_groups=options.item_groups is not None)
    groups_source = _item_groups(options.item_groups)
    session: SparkSession = run.sparkSession
    sides: dict[str, Side | None] = {}
    empty: dict[str, Table] = {}
    kind: Kind
    for kind, code, frame, columns in (("qrels", QRELS, qrels, options.qrels_columns),
                                       ("run", RUN, run, options.run_columns)):  # fmt: skip
        try:
            sides[kind] = describe(frame, kind, code, columns, plan.threshold if kind == "qrels" else None)
        except EmptyInputError as exc:
            sides[kind], empty[kind] = None, load_or_empty(plan.dialect, kind, functools.partial(_raise, exc))
    row_order = reads_row_order(plan, options.ties)
    if sides["run"] is not None:
        sides["run"] = order_run(sides["run"], run, order_column, row_order)
    train_frame = _train_frame(session, options.train)
    train_side = describe_train(train_frame) if train_frame is not None else None
    present = [s for s in (sides["qrels"], sides["run"], train_side) if s is not None]
    common = dict(zip([s.code for s in present], with_common_id_types(present)))
    task = Task(plan, common.get(QRELS), common.get(RUN), common.get(train_side.code) if train_side else None,
                _catalog(train_frame, train_side, options.catalog), chunk_rows, max_query_rows, row_order,
                groups_source)  # fmt: skip
    frames = {"qrels": qrels, "run": run}
    count = partitions or int(session.conf.get("spark.sql.shuffle.partitions") or 200)
    payloads = _evaluated(task, frames, train_frame, count)
    if any(INEXACT in payload for payload in payloads):  # integers of 2**53 or more: once more, as given
        task = task.with_values_as_given()
        payloads = _evaluated(task, frames, train_frame, count)
    inputs, groups = gather(task, payloads, frames, empty)
    result = assemble(plan, inputs, groups)
    if groups_source is None:
        return result
    notes = item_group_notes(groups_source, *(_distinct_items(frames[kind], task.run if kind == "run" else task.qrels)
                                              for kind in ("run", "qrels")))  # fmt: skip
    return dataclasses.replace(result, caveats=(*result.caveats, *notes))


def _item_groups(item_groups: Any) -> GroupSource | None:
    """The item groups read on the driver (:func:`rankwise.pipeline.groups.read_item_groups`); ``popularity``
    refused: it splits every training item by popularity, and a task sees only its own users' interactions."""
    if item_groups is None:
        return None
    if isinstance(item_groups, str) and item_groups.strip().lower() == POPULARITY and not Path(item_groups).exists():
        raise InputError("item_groups='popularity' splits all training items by popularity, and each Spark task "
                         "sees only its users' interactions: give the groups (a mapping, a table or FILE:COLUMN), "
                         "or use rankwise.evaluate")  # fmt: skip
    return read_item_groups(item_groups)


def _distinct_items(frame: DataFrame, side: Side | None) -> pl.Series:
    """The distinct item ids of a qrels or run DataFrame as text (one job; empty without the input)."""
    if side is None:
        return pl.Series(DOCID, [], dtype=pl.String)
    items = column(frame, side.columns[DOCID]).cast("string")
    distinct = frame.select(items.alias(DOCID)).distinct()
    if hasattr(distinct, "toArrow"):  # Spark >= 4: as Arrow, not a Python object per item (as gather.py reads)
        found = pl.from_arrow(distinct.toArrow()).get_column(DOCID)  # type: ignore[union-attr]
    else:
        found = pl.Series(DOCID, [row[DOCID] for row in distinct.collect()], dtype=pl.String)
    return found.drop_nulls().cast(pl.String)


def _evaluated(task: Task, frames: Mapping[str, DataFrame], train: DataFrame | None, partitions: int) -> list[Payload]:
    """The payloads of every chunk: one job (see module docstring)."""
    parts = [side.select(frames[kind]) for kind, side in (("qrels", task.qrels), ("run", task.run)) if side]
    if task.train is not None and train is not None:
        parts.append(task.train.select(train))
    rows = functools.reduce(lambda a, b: a.unionByName(b, allowMissingColumns=True), parts)
    evaluated = rows.repartition(partitions, KEY).mapInArrow(functools.partial(evaluate_partition, task=task), SCHEMA)
    if hasattr(evaluated, "toArrow"):  # Spark >= 4: the payloads as Arrow buffers, not pickled rows
        return [unpack(payload.as_buffer()) for payload in evaluated.toArrow().column(PAYLOAD)]
    return [unpack(bytes(row[PAYLOAD])) for row in evaluated.collect()]


def _raise(error: Exception) -> NoReturn:
    raise error


def _train_frame(session: SparkSession, train: Any) -> DataFrame | None:
    """Training interactions as a Spark DataFrame: as given, or read locally and sent to the cluster."""
    if train is None or spark_dataframe(train):
        return train
    pairs = load_interactions(train)
    return session.createDataFrame(pairs.to_pandas())


def _catalog(frame: DataFrame | None, side: Side | None, catalog: Any) -> Any:
    """The catalogue the executors count candidates against: as given, or the distinct training items (one job,
    which also refuses training interactions that are empty or lack ids, as locally)."""
    if frame is None or side is None:
        candidate_counts([], None, catalog)  # refuses a catalogue without training interactions
        return catalog
    from pyspark.sql import functions as F

    user, item = (column(frame, side.columns[role]) for role in (QID, DOCID))
    missing = F.count(F.when(user.isNull() | item.isNull(), 1)).alias("missing")
    counted = frame.agg(F.count(F.lit(1)).alias("rows"), missing, F.countDistinct(item.cast("string")).alias("items"))
    stats = counted.first()
    assert stats is not None  # an aggregate without grouping has one row
    if not stats["rows"]:
        raise InputError(f"{side.origin}: no interactions")
    if stats["missing"]:
        raise InputError(f"{side.origin}: {stats['missing']} interactions lack a user or an item id")
    size = stats["items"] if catalog is None else catalog
    candidate_counts([], pl.DataFrame(schema={QID: pl.String, DOCID: pl.String}), size)  # refuses a bad catalog
    return size


def to_spark(result: EvaluationResult, session: SparkSession) -> DataFrame:
    """The per-query values of ``result`` as a Spark DataFrame: one row per query and measure, columns
    ``query_id`` (string), ``measure`` (the key as written) and ``value`` (double; null where undefined)."""
    import pyspark

    frame = result.to_polars().with_columns(pl.col("value").fill_nan(None))
    schema = "query_id string, measure string, value double"
    if int(pyspark.__version__.split(".")[0]) >= 4:
        return session.createDataFrame(frame.to_arrow(), schema=schema)
    return session.createDataFrame(frame.rows(), schema=schema)  # Spark 3.5 takes no Arrow table
