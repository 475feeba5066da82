"""Spark checks shared by the Spark tests and the beyond-accuracy tests: a polars frame as a Spark DataFrame, and one
evaluation through both engines (``rankwise.spark.evaluate`` and ``rankwise.evaluate``) held equal bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

import rankwise


def spark_frame(spark: Any, frame: pl.DataFrame) -> Any:
    """``frame`` as a Spark DataFrame, rows in the same order, NaN and null kept apart (an Arrow table: Spark >= 4;
    Spark 3.5 reads pandas, where NaN becomes null)."""
    import pyspark

    return spark.createDataFrame(frame.to_arrow() if int(pyspark.__version__.split(".")[0]) >= 4 else frame.to_pandas())


def same_result(ours: rankwise.EvaluationResult, local: rankwise.EvaluationResult) -> None:
    """Two results equal bit for bit: query order, values, aggregates, notes, accounting, keys and dialect."""
    assert ours.query_ids == local.query_ids
    assert np.array_equal(ours.values, local.values, equal_nan=True)
    assert list(ours.aggregate) == list(local.aggregate)
    for key, value in local.aggregate.items():  # bit for bit, not approximately
        assert ours.aggregate[key] == value or (np.isnan(value) and np.isnan(ours.aggregate[key])), key
    assert ours.notes() == local.notes()
    assert ours.accounting == local.accounting
    assert ours.keys == local.keys and ours.dialect == local.dialect


def on_both_engines(spark: Any, qrels: pl.DataFrame, run: pl.DataFrame, measures: list[str], partitions: int,
                    train: pl.DataFrame | None = None, **options: Any) -> None:  # fmt: skip
    """rankwise.spark.evaluate and rankwise.evaluate on the same rows: the same result, or the same error."""
    import rankwise.spark

    def local() -> rankwise.EvaluationResult | str:
        try:
            return rankwise.evaluate(qrels, run, measures, train=train, **options)
        except rankwise.RankwiseError as exc:
            return f"{type(exc).__name__}: {exc}"

    def on_spark() -> rankwise.EvaluationResult | str:
        spark_train = spark_frame(spark, train) if train is not None else None
        try:
            return rankwise.spark.evaluate(spark_frame(spark, qrels), spark_frame(spark, run), measures,
                                           train=spark_train, partitions=partitions, chunk_rows=97,
                                           **options)  # fmt: skip
        except rankwise.RankwiseError as exc:
            return f"{type(exc).__name__}: {exc}"

    expected, ours = local(), on_spark()
    if isinstance(expected, str) or isinstance(ours, str):
        assert ours == expected
    else:
        same_result(ours, expected)
