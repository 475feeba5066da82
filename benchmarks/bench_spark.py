"""Spark benchmark (P3): recommendation lists evaluated on Spark ``local[2]``: rankwise.spark, Spark MLlib's
``RankingEvaluator`` and RePlay's Spark path, in the same run on the same cached DataFrames.

Data: bench_recs.py's P-series files (``--users`` U users × 20 recommended items with random scores, rows shuffled;
1–10 relevant items per user; ``benchmarks/data/``, generated on first use). Both DataFrames are read from parquet,
cached and counted before any timing, so no tool pays for reading the files.

Tools (``--tools``, default all), all at 10:

- ``rankwise``: ``rankwise.spark.evaluate`` with nDCG, AP, RR, HitRate, P and R under ``dialect="replay"``;
- ``rankwise-ndcg``: the same, nDCG@10 alone under ``dialect="spark_mllib"`` (what RankingEvaluator computes);
- ``ranking-evaluator``: ``pyspark.ml.evaluation.RankingEvaluator(metricName="ndcgAtK", k=10)`` on per-user arrays
  (prediction: items by score descending; label: relevant items), built with ``collect_list`` + ``sort_array``,
  joined and cached; the time is the evaluation on the cached arrays, and the preparation is reported beside it;
- ``replay``: RePlay's ``NDCG(10)`` on the Spark DataFrames (its Spark path); ``replay-all``: its
  ``OfflineMetrics`` with NDCG, MAP, MRR, HitRate, Precision and Recall.

Every peer's value must equal rankwise's under the matching dialect (spark_mllib for RankingEvaluator, replay for
RePlay) to 1e-9; a disagreement is printed and makes the exit status 1. Each tool runs ``--repeat`` times (median).
The report (Markdown) goes to stdout, progress to stderr.

Run from the repository root (RePlay is optional: ``pip install --no-deps replay-rec``)::

    python benchmarks/bench_spark.py                      # P3: 1M users × 20 on local[2]
    python benchmarks/bench_spark.py --users 20000        # quick check
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench_recs import ALL_MEASURES, K, data_paths, ensure_data
from bench_trec import processor, version

Values = dict[str, float]
REPLAY_NAMES = {"NDCG": "nDCG", "MAP": "AP", "MRR": "RR", "HitRate": "HitRate", "Precision": "P", "Recall": "R"}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Data:
    """The cached Spark DataFrames: truth (user_id, item_id, rating) and recs (user_id, item_id, score)."""

    spark: Any
    truth: Any
    recs: Any
    partitions: int
    prepared: Any = None
    """RankingEvaluator's per-user arrays, built once (see :func:`ranking_arrays`)."""
    prepare_seconds: float | None = None


@dataclass(frozen=True)
class Tool:
    name: str
    what: str
    dialect: str
    run: Callable[[Data], Values]
    needs: str | None = None


def rankwise_tool(dialect: str, measures: tuple[str, ...]) -> Callable[[Data], Values]:
    def run(data: Data) -> Values:
        import rankwise.spark

        result = rankwise.spark.evaluate(data.truth, data.recs, list(measures), dialect=dialect,
                                         partitions=data.partitions)  # fmt: skip
        return dict(result.aggregate)

    return run


def ranking_arrays(data: Data) -> Any:
    """Per user: prediction = items by score descending, label = relevant items (doubles, as RankingEvaluator
    wants), joined and cached; built once and timed."""
    if data.prepared is None:
        from pyspark.sql import functions as F

        start = time.perf_counter()
        ranked = data.recs.groupBy("user_id").agg(
            F.sort_array(F.collect_list(F.struct((-F.col("score")).alias("s"), F.col("item_id").alias("i"))))
            .alias("pairs")
        )  # fmt: skip
        items = F.transform("pairs", lambda pair: pair["i"].cast("double")).alias("prediction")
        predictions = ranked.select("user_id", items)
        labels = data.truth.groupBy("user_id").agg(F.collect_list(F.col("item_id").cast("double")).alias("label"))
        data.prepared = predictions.join(labels, "user_id").select("prediction", "label").cache()
        data.prepared.count()
        data.prepare_seconds = time.perf_counter() - start
    return data.prepared


def ranking_evaluator(data: Data) -> Values:
    from pyspark.ml.evaluation import RankingEvaluator

    prepared = ranking_arrays(data)
    return {f"nDCG@{K}": float(RankingEvaluator(metricName="ndcgAtK", k=K).evaluate(prepared))}


def replay_frames(data: Data) -> tuple[Any, Any]:
    recs = data.recs.withColumnRenamed("user_id", "query_id").withColumnRenamed("score", "rating")
    return recs, data.truth.select(data.truth["user_id"].alias("query_id"), "item_id")


def replay_ndcg(data: Data) -> Values:
    from replay.metrics import NDCG

    return {f"nDCG@{K}": float(NDCG(K)(*replay_frames(data))[f"NDCG@{K}"])}


def replay_all(data: Data) -> Values:
    from replay import metrics

    result = metrics.OfflineMetrics([getattr(metrics, name)(K) for name in REPLAY_NAMES])(*replay_frames(data))
    return {f"{ours}@{K}": float(result[f"{theirs}@{K}"]) for theirs, ours in REPLAY_NAMES.items()}


TOOLS = (
    Tool("rankwise", "rankwise.spark, nDCG AP RR HitRate P R, dialect replay", "replay",
         rankwise_tool("replay", ALL_MEASURES)),
    Tool("rankwise-ndcg", "rankwise.spark, nDCG alone, dialect spark_mllib", "spark_mllib",
         rankwise_tool("spark_mllib", (f"nDCG@{K}",))),
    Tool("ranking-evaluator", "Spark MLlib RankingEvaluator ndcgAtK (arrays prepared and cached)", "spark_mllib",
         ranking_evaluator),
    Tool("replay", "RePlay Spark path, NDCG alone", "replay", replay_ndcg, "replay"),
    Tool("replay-all", "RePlay Spark path, OfflineMetrics (6 measures)", "replay", replay_all, "replay"),
)  # fmt: skip


def start(users: int, master: str, partitions: int, driver_memory: str) -> Data:
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(master)
        .appName("rankwise-bench-spark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", driver_memory)
        .config("spark.sql.shuffle.partitions", str(partitions))
        .config("spark.driver.maxResultSize", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    truth_path, recs_path = data_paths(users)
    truth = spark.read.parquet(str(truth_path)).cache()
    recs = spark.read.parquet(str(recs_path)).cache()
    log(f"cached {truth.count():,} truth rows and {recs.count():,} recommendations")
    return Data(spark, truth, recs, partitions)


def measure(tool: Tool, data: Data, repeat: int) -> tuple[float, Values]:
    times, values = [], {}
    for _ in range(repeat):
        begin = time.perf_counter()
        values = tool.run(data)
        times.append(time.perf_counter() - begin)
        log(f"  {tool.name}: {times[-1]:.2f} s")
    return statistics.median(times), values


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=8, help="shuffle partitions (rankwise's tasks)")
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--tools", default=",".join(t.name for t in TOOLS))
    args = parser.parse_args()
    chosen = [t for t in TOOLS if t.name in args.tools.split(",")]
    ensure_data(args.users)
    data = start(args.users, args.master, args.partitions, args.driver_memory)
    # warm-up: the first Python worker and Arrow start once for every tool, not in the first one's time
    import rankwise.spark

    few = [frame.filter(frame["user_id"] < 100) for frame in (data.truth, data.recs)]
    rankwise.spark.evaluate(*few, [f"nDCG@{K}"], partitions=2)
    results: dict[str, tuple[float, Values]] = {}
    for tool in chosen:
        if tool.needs and importlib.util.find_spec(tool.needs) is None:
            log(f"{tool.name}: {tool.needs} is not installed, skipped")
            continue
        log(f"{tool.name} …")
        if tool.run is ranking_evaluator:
            ranking_arrays(data)  # built and timed apart: the evaluator's own time is on the cached arrays
        results[tool.name] = measure(tool, data, args.repeat)
    reference = {t.dialect: results[t.name][1] for t in chosen if t.name.startswith("rankwise") and t.name in results}
    status = 0
    print(f"## P3: {args.users:,} users × 20 on Spark {args.master}, {args.partitions} partitions\n")
    print(f"{platform.platform()}; {processor()}; {os.cpu_count()} cores; Python {platform.python_version()}; "
          f"pyspark {version('pyspark')}; replay {version('replay-rec')}\n")  # fmt: skip
    print("| tool | what | measures | seconds | time / rankwise's | agrees |")
    print("|---|---|---:|---:|---:|---|")
    ours = results.get("rankwise")
    for tool in chosen:
        if tool.name not in results:
            continue
        seconds, values = results[tool.name]
        expected = reference.get(tool.dialect, {})
        agrees = all(math.isclose(v, expected[k], rel_tol=1e-9, abs_tol=1e-12) for k, v in values.items()
                     if k in expected)  # fmt: skip
        if not agrees:
            status = 1
            log(f"{tool.name} disagrees with rankwise ({tool.dialect}): {values} vs {expected}")
        ratio = f"{seconds / ours[0]:.2f}" if ours is not None else ""
        print(f"| {tool.name} | {tool.what} | {len(values)} | {seconds:.2f} | {ratio} | {'yes' if agrees else 'NO'} |")
    if data.prepare_seconds is not None:
        print(f"\nRankingEvaluator's per-user arrays took {data.prepare_seconds:.2f} s to build and cache "
              "(collect_list + sort_array + join), not counted in its time above.")  # fmt: skip
    return status


if __name__ == "__main__":
    sys.exit(main())
