"""rankwise.spark: Spark DataFrames evaluated on ``local[2]`` give the local engine's result — per-query values,
query order, aggregates (bit for bit), notes and errors — under every dialect, on random data with ties and on
MovieLens-100K, with 1, 2 and 7 partitions. Where ties are broken in row order (``ties=input_order``), which a Spark
DataFrame does not have, the run's rows are given their order as ``order_column`` (see test_spark_row_order.py).

One SparkSession for the module; the tests skip, saying why, without pyspark or a Java runtime. The reordering
that makes the aggregates exact is also checked without Spark (:func:`test_chunks_in_any_order_aggregate_exactly`).
"""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import numpy as np
import polars as pl
import pytest

from rankwise.dialects import DIALECTS
from rankwise.io.table import QID
from rankwise.pipeline.plan import make_plan
from rankwise.policies import TiePolicy
from recsys_lists import lists, skip_without_data
from spark_checks import on_both_engines, same_result, spark_frame

DIALECT_KEYS = sorted({d.key for d in DIALECTS})
MEASURES = ["P@5", "R@5", "AP", "nDCG@5", "nDCG", "RR", "HitRate@5", "AUC", "bpref", "NumRelRet@5", "Rprec",
            "num_ret", "map", "gm_map"]  # fmt: skip
DIALECT_MEASURES = MEASURES[:11]
PARTITIONS = (1, 2, 7)


def _random(seed: int, *, int_ids: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Qrels and run over ~40 queries: heavy score ties, grades -1..3, some queries only in the run or only judged,
    run rows shuffled (so a query's rows are spread over Spark's input partitions)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(40):
        docs = rng.choice(300, int(rng.integers(1, 30)), replace=False)
        if rng.random() < 0.9:
            judged = dict.fromkeys(docs[: len(docs) // 2 + 1].tolist() + rng.choice(300, 3).tolist())
            qrels += [(q, d, int(rng.integers(-1, 4))) for d in judged]
        if rng.random() < 0.9:
            run += [(q, int(d), int(rng.integers(0, 4)) / 2) for d in docs]
    run = [run[i] for i in rng.permutation(len(run))]

    def ids(rows: list, value: str) -> pl.DataFrame:
        frame = pl.DataFrame(rows, schema=["query_id", "doc_id", value], orient="row")
        if int_ids:
            return frame.with_columns(pl.col("query_id") * 7 + 3)  # integer ids whose text order is not numeric
        return frame.with_columns(pl.format("q{}", "query_id").alias("query_id"),
                                  pl.format("d{}", "doc_id").alias("doc_id"))  # fmt: skip

    return ids(qrels, "relevance"), ids(run, "score")


def in_order_on_both_engines(spark: Any, qrels: pl.DataFrame, run: pl.DataFrame, measures: list[str], partitions: int,
                             train: pl.DataFrame | None = None, **options: Any) -> None:  # fmt: skip
    """:func:`spark_checks.on_both_engines`; where ties are broken in row order, the Spark run carries its row
    numbers as ``order_column="pos"`` (without it, the evaluation is refused)."""
    import rankwise.spark

    plan = make_plan(measures, options.get("dialect"), ties=options.get("ties"))
    if plan.policies.ties is not TiePolicy.INPUT_ORDER:
        on_both_engines(spark, qrels, run, measures, partitions, train=train, **options)
        return
    numbered = run.with_columns(pl.int_range(pl.len()).alias("pos"))
    ours = rankwise.spark.evaluate(spark_frame(spark, qrels), spark_frame(spark, numbered), measures,
                                   train=spark_frame(spark, train) if train is not None else None,
                                   partitions=partitions, chunk_rows=97, order_column="pos", **options)  # fmt: skip
    same_result(ours, rankwise.evaluate(qrels, run, measures, train=train, **options))


@pytest.mark.parametrize("dialect", [None, *DIALECT_KEYS])
def test_every_dialect_equals_the_local_engine(spark: Any, dialect: str | None) -> None:
    """Random data with ties; the partition count cycles through 1, 2 and 7 over the dialects."""
    index = ([None, *DIALECT_KEYS]).index(dialect)
    qrels, run = _random(index)
    train = pl.DataFrame({"user_id": ["q0", "q5"], "item_id": ["none", "d1"]})
    measures = MEASURES if dialect is None else DIALECT_MEASURES
    in_order_on_both_engines(spark, qrels, run, measures, PARTITIONS[index % 3], train=train, catalog=999,
                             dialect=dialect)  # fmt: skip


@pytest.mark.parametrize("partitions", PARTITIONS)
def test_partitions_do_not_change_a_value(spark: Any, partitions: int) -> None:
    qrels, run = _random(11, int_ids=True)
    on_both_engines(spark, qrels, run, MEASURES, partitions)


@pytest.mark.parametrize(("partitions", "options"), [
    (1, {"queries": "qrels"}), (2, {"queries": "run"}), (7, {"ties": "input_order"}), (2, {"depth": 7}),
    (7, {"ties": "average"}), (1, {"queries": "relevant", "rel_level": 2}), (2, {"scores": "float32"}),
    (7, {"cutoffs": [3, 10]}),
])  # fmt: skip
def test_policies(spark: Any, partitions: int, options: dict) -> None:
    qrels, run = _random(7)
    measures = ["P", "nDCG", "AP", "RR"] if "cutoffs" in options else MEASURES
    in_order_on_both_engines(spark, qrels, run, measures, partitions, **options)


@pytest.mark.parametrize("dialect", [None, *DIALECT_KEYS])
def test_movielens_100k(spark: Any, dialect: str | None) -> None:
    """ML-100K popularity top-20 lists (ties inside the lists and across the cut), ratings >= 4 relevant; the
    partition count cycles through 1, 2 and 7."""
    skip_without_data()
    data = lists("popularity")
    index = ([None, *DIALECT_KEYS]).index(dialect)
    run, train = data.recs.select("user_id", "item_id", "score"), data.train.select("user_id", "item_id")
    measures = ["nDCG@10", "AP@10", "P@10", "R@10", "RR@10", "HitRate@10", "AUC@20", "AUC"]
    in_order_on_both_engines(spark, data.truth, run, measures, PARTITIONS[index % 3], train=train, threshold=4,
                             dialect=dialect)  # fmt: skip


ITEM_GROUP_MEASURES = ["AWRF@5", "nDCG-AWRF@5", "AWRF(target=uniform)", "RSP@5", "REO@5", "EE-L(over=groups)",
                       "EE-D(over=groups)", "ItemMAD@5", "ItemMAD(gain=rating)@3", "P@5"]  # fmt: skip


@pytest.mark.parametrize("partitions", PARTITIONS)
def test_item_group_measures_equal_the_local_engine(spark: Any, partitions: int) -> None:
    """``item_groups=`` on Spark: the per-query item-group measures (AWRF, nDCG-AWRF, EE over=groups) and the global
    ones (RSP, REO, ItemMAD, whose per-user numerators and denominators are gathered like any aggregation input),
    with each user's training items, and the notes about items in no group, equal the local engine's bit for bit."""
    qrels, run = _random(5)
    rng = np.random.default_rng(5)
    groups = {f"d{d}": ("red", "green", "blue", "grey")[d % 4] for d in range(250)} | {"d999": "red"}
    train = pl.DataFrame({"user_id": [f"q{q}" for q in rng.integers(0, 40, 200)],
                          "item_id": [f"d{d}" for d in rng.integers(0, 300, 200)]}).unique()  # fmt: skip
    on_both_engines(spark, qrels, run, ITEM_GROUP_MEASURES, partitions, train=train, item_groups=groups)


def test_item_groups_the_tasks_cannot_see_are_refused(spark: Any) -> None:
    """The popularity split reads every training item, which no task holds: refused in one line, as a measure
    needing item groups without them."""
    import rankwise.spark

    qrels, run = _random(6)
    frames = spark_frame(spark, qrels), spark_frame(spark, run)
    with pytest.raises(rankwise.InputError, match=r"^item_groups='popularity' splits all training items"):
        rankwise.spark.evaluate(*frames, ["AWRF@5"], item_groups="popularity")
    with pytest.raises(rankwise.MeasureError, match=r"^AWRF@5: needs item groups"):
        rankwise.spark.evaluate(*frames, ["AWRF@5"])


@pytest.mark.parametrize(("grade_type", "score_type"), [
    (pl.Int8, pl.Float32), (pl.Int16, pl.Int64), (pl.Int32, pl.Int16), (pl.Float64, pl.Int8), (pl.Float32, pl.Int32),
    (pl.String, pl.Float64), (pl.Int64, pl.String), (pl.Decimal(10, 2), pl.Decimal(12, 3)),
])  # fmt: skip
def test_values_of_every_type_come_back_as_given(spark: Any, grade_type: Any, score_type: Any) -> None:
    """Numbers travel as doubles and are turned back into their own type; text and decimals travel as given."""
    qrels, run = _random(4)
    qrels = qrels.with_columns(pl.col("relevance").cast(grade_type))
    run = run.with_columns((pl.col("score") * 2).cast(score_type))  # 0..6: whole numbers, ties kept
    on_both_engines(spark, qrels, run, MEASURES, 2)


def test_integers_a_double_cannot_hold_are_evaluated_as_given(spark: Any, monkeypatch: Any) -> None:
    """Grades of 2^53 and more lose their last bits as doubles: the executors notice, and the job runs again with
    the values as given (rel_level=2^53 + 1 tells such grades apart: as doubles 2^53 + 1 is 2^53, and the values
    would differ)."""
    from rankwise.spark import driver as module
    jobs: list[int] = []
    job = module._evaluated
    monkeypatch.setattr(module, "_evaluated", lambda *args: jobs.append(1) or job(*args))
    qrels, run = _random(8)
    qrels = qrels.with_columns(pl.col("relevance") + 2**53)  # 2^53 - 1 ... 2^53 + 3
    on_both_engines(spark, qrels, run, ["P@5", "AP", "RR", "num_rel"], 2, rel_level=2**53 + 1)
    assert len(jobs) == 2
    jobs.clear()
    on_both_engines(spark, qrels.with_columns(pl.col("relevance") - 2**53), run, ["P@5"], 2)
    assert len(jobs) == 1  # small integers: one job


def test_movielens_runs_from_a_file_spark_reads(spark: Any, tmp_path: Any) -> None:
    """ML-100K as Spark reads it (parquet), integer ids, many input partitions, a rank column instead of scores."""
    skip_without_data()
    import rankwise.spark

    data = lists("ease")
    ints = [pl.col("user_id").cast(pl.Int64), pl.col("item_id").cast(pl.Int64)]
    truth, recs = data.truth.with_columns(ints), data.recs.with_columns(ints).select("user_id", "item_id", "rank")
    truth.write_parquet(tmp_path / "truth.parquet")
    recs.write_parquet(tmp_path / "recs.parquet", row_group_size=1000)
    ours = rankwise.spark.evaluate(spark.read.parquet(str(tmp_path / "truth.parquet")),
                                   spark.read.parquet(str(tmp_path / "recs.parquet")).repartition(5),
                                   ["nDCG@10", "AP@20", "MRR"], threshold=4, partitions=7)  # fmt: skip
    same_result(ours, rankwise.evaluate(truth, recs, ["nDCG@10", "AP@20", "MRR"], threshold=4))
    assert len(ours.query_ids) == truth.get_column("user_id").n_unique() > 100


def _bad(frame: pl.DataFrame, row: int, **values: Any) -> pl.DataFrame:
    """``frame`` with the given columns of one row replaced."""
    return frame.with_columns(
        pl.when(pl.int_range(pl.len()) == row).then(pl.lit(v)).otherwise(pl.col(c)).alias(c) for c, v in values.items()
    )


@pytest.mark.parametrize("case", ["duplicate", "score", "nan", "query", "grade", "qrels_duplicate", "column",
                                  "float_ids", "no_common", "empty_run", "empty_run_as_data"])  # fmt: skip
def test_errors_are_the_local_engine_s(spark: Any, case: str) -> None:
    """The same one-line error, naming the same DataFrame row, however the rows are spread over partitions."""
    qrels, run = _random(3)
    dialect = None
    if case == "duplicate":  # a pair repeated far from its first row: another partition
        run = pl.concat([run, run.slice(5, 1), run.slice(200, 3)])
    elif case == "score":
        run = run.with_columns(pl.col("score").cast(pl.String))
        run = _bad(_bad(run, 150, score="abc"), 40, score="1e999x")
    elif case == "nan":
        run = _bad(run, 77, score=float("nan"))
    elif case == "query":
        run = _bad(run, 31, query_id="")
    elif case == "grade":
        qrels = _bad(qrels.with_columns(pl.col("relevance").cast(pl.Float64)), 12, relevance=1.5)
    elif case == "qrels_duplicate":
        qrels = pl.concat([qrels, qrels.slice(0, 1)])
    elif case == "column":
        run = run.rename({"score": "points"})
    elif case == "float_ids":
        run = run.with_columns(pl.col("query_id").str.slice(1).cast(pl.Float64))
    elif case == "no_common":
        qrels = qrels.with_columns(pl.format("other{}", "query_id").alias("query_id"))
    elif case in ("empty_run", "empty_run_as_data"):
        run = run.clear()
        dialect = "ranx@0.3" if case == "empty_run_as_data" else None
    on_both_engines(spark, qrels, run, ["P@5", "nDCG"], 2, dialect=dialect)


def test_a_query_too_large_for_a_task_is_named(spark: Any) -> None:
    import rankwise.spark

    qrels, run = _random(5)
    big = pl.DataFrame({"query_id": "q9", "doc_id": [f"x{i}" for i in range(300)], "score": 1.0})
    run = pl.concat([run.filter(pl.col("query_id") != "q9"), big])
    with pytest.raises(rankwise.InputError, match=r"query 'q9' has more than 250 rows .* max_query_rows="):
        rankwise.spark.evaluate(spark_frame(spark, qrels), spark_frame(spark, run), ["P@5"], partitions=2,
                                chunk_rows=50, max_query_rows=250)  # fmt: skip
    result = rankwise.spark.evaluate(spark_frame(spark, qrels), spark_frame(spark, run), ["P@5"], partitions=2,
                                     chunk_rows=50)
    assert "q9" in result.query_ids
    # small Arrow batches: the rows held are counted by query each time they double past max_query_rows
    q9_rows = sum(frame.filter(pl.col(QID) == "q9").height for frame in (qrels, run))
    assert run.height + qrels.height > 3 * q9_rows
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "64")
    try:
        within = rankwise.spark.evaluate(spark_frame(spark, qrels), spark_frame(spark, run), ["P@5"], partitions=1,
                                         chunk_rows=50, max_query_rows=q9_rows)  # fmt: skip
        with pytest.raises(rankwise.InputError, match=rf"query 'q9' has more than {q9_rows - 1} rows"):
            rankwise.spark.evaluate(spark_frame(spark, qrels), spark_frame(spark, run), ["P@5"], partitions=1,
                                    max_query_rows=q9_rows - 1)  # fmt: skip
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    same_result(within, rankwise.evaluate(qrels, run, ["P@5"]))
    alone = [spark_frame(spark, frame.filter(pl.col(QID) == "q9")) for frame in (qrels, run)]  # the task's only query
    with pytest.raises(rankwise.InputError, match=r"query 'q9' has more than 250 rows"):
        rankwise.spark.evaluate(*alone, ["P@5"], partitions=1, chunk_rows=50, max_query_rows=250)


def test_per_query_values_as_a_spark_dataframe(spark: Any) -> None:
    import rankwise.spark

    qrels, run = _random(2)
    result = rankwise.spark.evaluate(spark_frame(spark, qrels), spark_frame(spark, run), ["P@5", "AUC"], partitions=2)
    frame = pl.from_pandas(rankwise.spark.to_spark(result, spark).toPandas())
    expected = result.to_polars().with_columns(pl.col("value").fill_nan(None))
    assert frame.sort(QID, "measure").equals(expected.sort(QID, "measure"))
    assert frame.get_column("value").null_count() == int(np.isnan(result.values).sum()) > 0


def test_local_data_is_refused_with_a_pointer(spark: Any) -> None:
    import rankwise.spark

    qrels, run = _random(1)
    with pytest.raises(rankwise.InputError, match=r"takes Spark DataFrames; run is a DataFrame .*rankwise\.evaluate"):
        rankwise.spark.evaluate(spark_frame(spark, qrels), run, ["P@5"])
    with pytest.raises(rankwise.InputError, match="partitions must be a whole number >= 1, not 0"):
        rankwise.spark.evaluate(spark_frame(spark, qrels), spark_frame(spark, run), ["P@5"], partitions=0)


def test_without_pyspark_the_error_says_what_to_install() -> None:
    code = "import sys; sys.modules['pyspark'] = None\nimport rankwise.spark"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0
    assert re.search(r"RankwiseError: rankwise.spark needs pyspark, which is not installed: pip install '\.\[spark\]'",
                     done.stderr)  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_chunks_in_any_order_aggregate_exactly(seed: int) -> None:
    """Without Spark: the queries split into random subsets (as Spark partitions hold them), each computed apart,
    joined in a shuffled order and put back in text order, give the whole evaluation's values and aggregates,
    the pooled AUC's per-row inputs included."""
    from rankwise.pipeline.compute import compute_groups
    from rankwise.pipeline.load import load_inputs
    from rankwise.pipeline.partitioned import concatenate_groups
    from rankwise.pipeline.plan import make_plan
    from rankwise.spark.gather import in_query_order

    rng = np.random.default_rng(seed)
    qrels, run = _random(seed)
    measures = ["AUC(mean=pooled)", "AUC(mean=pooled,unjudged=skip)@5", "AUC(mean=pooled,form=elliot)@5",
                "AUC(mean=positives)", "AUC", "F1@5", "AP", "nDCG@3"]  # fmt: skip
    plan = make_plan(measures, "dl_rs_eval@2019" if seed % 2 else None)
    train = pl.DataFrame({"user_id": ["q1"], "item_id": ["d1"]})
    inputs = load_inputs(plan, qrels, run, train=train)
    whole = compute_groups(plan, inputs, 999)
    queries = np.unique(np.concatenate([qrels.get_column(QID).to_numpy(), run.get_column(QID).to_numpy()]))
    part_of = dict(zip(queries.tolist(), rng.integers(0, 5, len(queries)).tolist()))
    parts = []
    for p in rng.permutation(5):
        pick = [q for q, at in part_of.items() if at == p]
        sub = [t.frame.filter(pl.col(QID).is_in(pick)) for t in (inputs.qrels, inputs.run)]
        sub_inputs = type(inputs)(*(t.__class__(t.kind, f, t.origin) for t, f in zip((inputs.qrels, inputs.run), sub)),
                                  inputs.train)  # fmt: skip
        parts.append(compute_groups(plan, sub_inputs, 999, allow_empty=True))
    for g, group in enumerate(whole):
        joined = in_query_order(concatenate_groups([part[g] for part in parts]))
        assert joined.query_ids == group.query_ids
        assert np.array_equal(joined.values, group.values, equal_nan=True)
        assert joined.accounting == group.accounting
        for ours, theirs in zip(joined.inputs, group.inputs):
            assert ours.keys() == theirs.keys()
            assert all(np.array_equal(ours[k], theirs[k], equal_nan=True) for k in ours)
        assert np.array_equal(joined.aggregates, group.aggregates, equal_nan=True)  # bit for bit
