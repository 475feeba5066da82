"""rankwise.spark and row order: a Spark DataFrame has none, so a tie policy that reads it (``ties=input_order``)
gets it from ``order_column`` or a rank column, or the evaluation is refused in one line — never a number that
depends on how Spark happened to shuffle the rows. Every other dialect gives the local engine's numbers however the
rows are shuffled (``repartition``, ``orderBy(rand)``), since nothing else reads the order of the rows."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest

import rankwise
from rankwise.dialects import DIALECTS
from rankwise.pipeline.plan import make_plan
from rankwise.policies import TiePolicy
from spark_checks import same_result, spark_frame

DIALECT_KEYS = sorted({d.key for d in DIALECTS})
MEASURES = ["P@5", "R@5", "AP", "nDCG@5", "RR", "HitRate@5", "AUC"]
TRAIN = pl.DataFrame({"user_id": ["q0", "q5"], "item_id": ["none", "d1"]})


def reads_row_order(dialect: str | None, **policies: Any) -> bool:
    """Whether the dialect's tie policy (or the one given) breaks ties in row order."""
    return make_plan(MEASURES, dialect, **policies).policies.ties is TiePolicy.INPUT_ORDER


def _tied(seed: int, queries: int = 25) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Qrels and a run with heavy score ties; the run's ``pos`` (distinct, a shuffle of the row numbers) orders its
    rows otherwise than they stand."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(queries):
        docs = rng.choice(100, int(rng.integers(2, 16)), replace=False)
        qrels += [(f"q{q}", f"d{d}", int(rng.integers(0, 4))) for d in docs[: len(docs) // 2 + 1]]
        run += [(f"q{q}", f"d{d}", int(rng.integers(0, 3)) / 2) for d in docs]
    run = [run[i] for i in rng.permutation(len(run))]
    frame = pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row")
    pos = pl.Series("pos", rng.permutation(frame.height) * 3 + 1)
    return pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row"), frame.with_columns(pos)


def _shuffled(spark: Any, frame: pl.DataFrame, how: int) -> Any:
    """``frame`` as a Spark DataFrame whose rows a shuffle has reordered."""
    from pyspark.sql import functions as F

    data = spark_frame(spark, frame)
    return data.repartition(3) if how % 2 else data.orderBy(F.rand(how))


def _evaluate(spark: Any, qrels: pl.DataFrame, run: Any, how: int, **options: Any) -> rankwise.EvaluationResult:
    import rankwise.spark

    return rankwise.spark.evaluate(_shuffled(spark, qrels, how + 1), run, MEASURES, train=TRAIN, catalog=999,
                                   partitions=1 + how % 3, chunk_rows=97, **options)  # fmt: skip


def _one_line_refusal(error: pytest.ExceptionInfo, names: str) -> None:
    message = str(error.value)
    assert "\n" not in message and names in message and 'order_column="pos"' in message, message


def test_the_dialects_that_read_row_order() -> None:
    """Found from the dialect data: every dialect whose default tie policy is input_order (the issue's list)."""
    found = {key.split("@")[0] for key in DIALECT_KEYS if reads_row_order(key)}
    assert {"ms_recommenders", "rs_metrics", "lightgbm", "xgboost", "cwl_eval", "elliot"} <= found
    assert not found & {"trec_eval", "replay", "recbole", "daisyrec", "ranx", "sklearn"}


@pytest.mark.parametrize("dialect", [None, *DIALECT_KEYS])
def test_shuffled_rows_give_the_local_numbers_or_the_refusal(spark: Any, dialect: str | None) -> None:
    """Shuffled Spark rows (repartition or orderBy(rand), 1 to 3 partitions): where ties are broken in row order,
    the one-line refusal, and with order_column the local numbers of the rows sorted by that column; elsewhere the
    local numbers, with or without order_column (which orders nothing there; one job per dialect)."""
    how = ([None, *DIALECT_KEYS]).index(dialect)
    qrels, run = _tied(how)
    local = rankwise.evaluate(qrels, run, MEASURES, dialect=dialect, train=TRAIN, catalog=999)
    in_order = rankwise.evaluate(qrels, run.sort("pos"), MEASURES, dialect=dialect, train=TRAIN, catalog=999)
    if reads_row_order(dialect):
        for shuffle in (how, how + 1):  # refused before any job
            with pytest.raises(rankwise.InputError) as error:
                _evaluate(spark, qrels, _shuffled(spark, run, shuffle), shuffle, dialect=dialect)
            _one_line_refusal(error, f"dialect {dialect} breaks ties in row order (ties=input_order)")
        same_result(_evaluate(spark, qrels, _shuffled(spark, run, how), how, dialect=dialect, order_column="pos"),
                    in_order)  # fmt: skip
        return
    same_result(in_order, local)  # the row order changes nothing
    order = {"order_column": "pos"} if how % 2 else {}
    same_result(_evaluate(spark, qrels, _shuffled(spark, run, how), how, dialect=dialect, **order), local)


def test_the_issue_ratings_with_ties_on_two_partitions(spark: Any) -> None:
    """The issue at a small scale: recommendations with scores of 2 decimals, ratings 1-5, threshold 4, six measures
    @10, ``createDataFrame(pandas).repartition(2)``: the dialects that order ties by id give the local numbers;
    ms_recommenders is refused, and given ``pos`` gives the local numbers of the rows in that order."""
    import rankwise.spark

    rng = np.random.default_rng(21)
    users, k = 300, 20
    recs = pl.DataFrame({
        "user_id": np.repeat(np.arange(users), k).astype(str),
        "item_id": np.concatenate([rng.choice(400, k, replace=False) for _ in range(users)]).astype(str),
        "score": np.round(rng.random(users * k), 2),
    }).with_row_index("pos").with_columns(pl.col("pos").cast(pl.Int64))  # fmt: skip
    truth = pl.DataFrame({
        "user_id": np.repeat(np.arange(users), 8).astype(str),
        "item_id": np.concatenate([rng.choice(400, 8, replace=False) for _ in range(users)]).astype(str),
        "rating": rng.integers(1, 6, users * 8),
    })  # fmt: skip
    measures = ["nDCG@10", "AP@10", "P@10", "R@10", "RR@10", "HitRate@10"]

    def on_spark(run: pl.DataFrame, **options: Any) -> rankwise.EvaluationResult:
        return rankwise.spark.evaluate(spark.createDataFrame(truth.to_pandas()).repartition(2),
                                       spark.createDataFrame(run.to_pandas()).repartition(2), measures, threshold=4,
                                       partitions=2, **options)  # fmt: skip

    for dialect in ("trec_eval", "replay", "recbole", "daisyrec@1"):
        same_result(on_spark(recs, dialect=dialect), rankwise.evaluate(truth, recs, measures, threshold=4,
                                                                       dialect=dialect))  # fmt: skip
    with pytest.raises(rankwise.InputError) as error:
        on_spark(recs, dialect="ms_recommenders")
    _one_line_refusal(error, "dialect ms_recommenders@1.2 breaks ties in row order")
    backwards = recs.with_columns(-pl.col("pos").cast(pl.Int64))  # an order the rows do not stand in
    local = rankwise.evaluate(truth, backwards.sort("pos"), measures, threshold=4, dialect="ms_recommenders")
    assert not np.array_equal(local.values, rankwise.evaluate(truth, recs, measures, threshold=4,
                                                              dialect="ms_recommenders").values)  # fmt: skip
    same_result(on_spark(backwards, dialect="ms_recommenders", order_column="pos"), local)


def test_ties_given_decide_not_the_dialect_s(spark: Any) -> None:
    """ties=input_order given is refused under any dialect; another ties= given under an input_order dialect reads
    no row order and is not."""
    qrels, run = _tied(40)
    with pytest.raises(rankwise.InputError) as error:
        _evaluate(spark, qrels, _shuffled(spark, run, 1), 1, ties="input_order")
    _one_line_refusal(error, "ties=input_order breaks ties in row order")
    with pytest.raises(rankwise.InputError, match="ties=input_order breaks ties in row order"):
        _evaluate(spark, qrels, _shuffled(spark, run, 1), 1, dialect="trec_eval", ties="input_order")
    for ties in ("docno_asc", "average"):
        ours = _evaluate(spark, qrels, _shuffled(spark, run, 2), 2, dialect="ms_recommenders", ties=ties)
        same_result(ours, rankwise.evaluate(qrels, run, MEASURES, dialect="ms_recommenders", ties=ties, train=TRAIN,
                                            catalog=999))  # fmt: skip


def test_a_rank_column_gives_the_order(spark: Any) -> None:
    """Ranks leave no ties: nothing to order, the local numbers; two rows of a query at the same rank are refused
    in one line naming them, unless order_column orders them."""
    qrels, run = _tied(41)
    ranked = run.sort("pos").select("query_id", "doc_id", pl.int_range(1, pl.len() + 1).over("query_id").alias("rank"),
                                    "pos")  # fmt: skip
    for dialect in ("lightgbm", "elliot", None):
        ours = _evaluate(spark, qrels, _shuffled(spark, ranked, 3), 3, dialect=dialect, ties="input_order")
        same_result(ours, rankwise.evaluate(qrels, ranked.sample(fraction=1.0, shuffle=True, seed=1), MEASURES,
                                            dialect=dialect, ties="input_order", train=TRAIN, catalog=999))  # fmt: skip
    tied = ranked.with_columns(pl.col("rank").clip(upper_bound=4))
    with pytest.raises(rankwise.InputError) as error:
        _evaluate(spark, qrels, _shuffled(spark, tied, 4), 4, dialect="rs_metrics")
    message = str(error.value)
    assert "\n" not in message and "share rank 4" in message and "order_column=" in message, message
    assert message.startswith("run DataFrame: query 'q0': docs ")  # the earliest query by the text of its id
    ours = _evaluate(spark, qrels, _shuffled(spark, tied, 5), 5, dialect="rs_metrics", order_column="pos")
    same_result(ours, rankwise.evaluate(qrels, tied.sort("pos"), MEASURES, dialect="rs_metrics", train=TRAIN,
                                        catalog=999))  # fmt: skip


@pytest.mark.parametrize("case", ["missing", "type", "null", "repeated", "name"])
def test_an_order_column_that_orders_nothing_is_refused(spark: Any, case: str) -> None:
    qrels, run = _tied(42)
    order: Any = "pos"
    if case == "name":
        order = 3
    elif case == "missing":
        order = "position_in_list"
    elif case == "type":
        run = run.with_columns(pl.col("pos") % 2 == 0)
    elif case == "null":
        run = run.with_columns(pl.when(pl.col("query_id") == "q3").then(None).otherwise(pl.col("pos")).alias("pos"))
    elif case == "repeated":
        run = run.with_columns(pl.col("pos") // 1000)
    messages = {
        "missing": "run DataFrame: order_column 'position_in_list' is not a column; columns are ['query_id', "
                   "'doc_id', 'score', 'pos']",
        "type": "run DataFrame: order_column 'pos' must hold numbers, text, dates or times, not Boolean",
        "null": "run DataFrame: query 'q3': order column 'pos' is null for doc ",
        "repeated": "run DataFrame: query 'q0': order column 'pos' has the value 0 for docs ",
        "name": "order_column must be the name of a run column, not 3",
    }  # fmt: skip
    with pytest.raises(rankwise.InputError) as error:
        _evaluate(spark, qrels, _shuffled(spark, run, 1), 1, dialect="elliot", order_column=order)
    assert "\n" not in str(error.value) and str(error.value).startswith(messages[case]), str(error.value)


def test_an_order_column_of_text_or_dates_orders_as_locally(spark: Any) -> None:
    """The rows sorted by the column's values as polars sorts them locally (text in byte order)."""
    qrels, run = _tied(43)
    texts = run.with_columns(pl.format("p{}", "pos").alias("pos"))  # "p100" < "p25": not the numbers' order
    dates = run.with_columns(pl.date(2020, 1, 1) + pl.duration(days=pl.col("pos")))
    for frame in (texts, dates):
        ours = _evaluate(spark, qrels, _shuffled(spark, frame, 2), 2, dialect="xgboost", order_column="pos")
        same_result(ours, rankwise.evaluate(qrels, frame.sort("pos"), MEASURES, dialect="xgboost", train=TRAIN,
                                            catalog=999))  # fmt: skip
