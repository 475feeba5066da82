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

``--breakdown`` also times the parts of rankwise's job on its own rows (the union of truth and recommendations
as rankwise.spark builds it): the shuffle by user alone (``repartition`` + ``count``), then the shuffle and the
Arrow hand-over to Python (a ``mapInArrow`` that only counts the rows); the rest of rankwise's time is the local
engine in the tasks and the gathering on the driver.

Beside each wall-clock time the report gives the CPU seconds the run took in this process and all its descendants
(the Spark JVM and its Python workers; from ``/proc``, Linux only): on a machine shared with other work, CPU time
moves much less than wall time, so the ratios of CPU times are the steadier comparison.

Every peer's value must equal rankwise's under the matching dialect (spark_mllib for RankingEvaluator, replay for
RePlay) to 1e-9; a disagreement is printed and makes the exit status 1. Each tool runs ``--repeat`` times (median).
The report (Markdown) goes to stdout, progress to stderr.

Run from the repository root (RePlay is optional: ``pip install --no-deps replay-rec``)::

    python benchmarks/bench_spark.py                      # P3: 1M users × 20 on local[2]
    python benchmarks/bench_spark.py --users 20000        # quick check
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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
    prepare_cpu: float = math.nan


@dataclass(frozen=True)
class Tool:
    name: str
    what: str
    dialect: str
    run: Callable[[Data], Values]
    needs: str | None = None


def rankwise_tool(dialect: str, measures: tuple[str, ...], **options: Any) -> Callable[[Data], Values]:
    def run(data: Data) -> Values:
        import rankwise.spark

        result = rankwise.spark.evaluate(data.truth, data.recs, list(measures), dialect=dialect,
                                         partitions=data.partitions, **options)  # fmt: skip
        return dict(result.aggregate)

    return run


def ranking_arrays(data: Data) -> Any:
    """Per user: prediction = items by score descending, label = relevant items (doubles, as RankingEvaluator
    wants), joined and cached; built once and timed."""
    if data.prepared is None:
        from pyspark.sql import functions as F

        start, start_cpu = time.perf_counter(), cpu_seconds()
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
        data.prepare_cpu = cpu_seconds() - start_cpu
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
         # spark_mllib breaks ties in row order, which a Spark DataFrame lacks: the prediction arrays below order
         # tied scores by item id (sort_array), and so does ties="docno_asc"
         rankwise_tool("spark_mllib", (f"nDCG@{K}",), ties="docno_asc")),
    Tool("ranking-evaluator", "Spark MLlib RankingEvaluator ndcgAtK (arrays prepared and cached)", "spark_mllib",
         ranking_evaluator),
    Tool("replay", "RePlay Spark path, NDCG alone", "replay", replay_ndcg, "replay"),
    Tool("replay-all", "RePlay Spark path, OfflineMetrics (6 measures)", "replay", replay_all, "replay"),
)  # fmt: skip


def start(users: int, master: str, partitions: int, driver_memory: str) -> Data:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the workers import rankwise from this environment
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


def count_rows(batches: Any) -> Any:
    """A ``mapInArrow`` function that only counts the rows it is handed."""
    import pyarrow as pa

    rows = sum(batch.num_rows for batch in batches)
    yield pa.RecordBatch.from_arrays([pa.array([rows], type=pa.int64())], names=["rows"])


def breakdown(data: Data, repeat: int) -> list[tuple[str, float, float]]:
    """Seconds of the parts of rankwise's job (see module docstring), each the median of ``repeat`` runs."""
    from rankwise.spark.frames import KEY, QRELS, RUN, describe, with_common_id_types

    qrels, run = with_common_id_types([describe(data.truth, "qrels", QRELS, None, None),
                                       describe(data.recs, "run", RUN, None, None)])  # fmt: skip
    rows = qrels.select(data.truth).unionByName(run.select(data.recs), allowMissingColumns=True)
    shuffled = rows.repartition(data.partitions, KEY)
    parts = {
        "shuffle by user (repartition + count)": lambda: shuffled.count(),
        "shuffle + Arrow hand-over (mapInArrow counting rows)": lambda: shuffled.mapInArrow(count_rows,
                                                                                            "rows long").collect(),
    }  # fmt: skip
    return [(name, *timed(part, repeat, name)[:2]) for name, part in parts.items()]


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and all its descendants, reaped children included, from ``/proc``
    (NaN without it)."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return math.nan
    parents, ticks = {}, {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # a process that ended meanwhile
            continue
        parents[int(entry.name)] = int(fields[1])
        ticks[int(entry.name)] = sum(int(field) for field in fields[11:15])  # utime, stime, cutime, cstime
    tree, found = set(), {os.getpid()}
    while found:
        tree |= found
        found = {pid for pid, parent in parents.items() if parent in found} - tree
    return sum(ticks.get(pid, 0) for pid in tree) / os.sysconf("SC_CLK_TCK")


def timed(run: Callable[[], Any], repeat: int, name: str) -> tuple[float, float, Any]:
    """Median wall-clock seconds and median CPU seconds (see :func:`cpu_seconds`) of ``repeat`` runs, and the last
    run's result."""
    times, cpu, result = [], [], None
    for _ in range(repeat):
        begin, begin_cpu = time.perf_counter(), cpu_seconds()
        result = run()
        times.append(time.perf_counter() - begin)
        cpu.append(cpu_seconds() - begin_cpu)
        log(f"  {name}: {times[-1]:.2f} s, {cpu[-1]:.1f} CPU s")
    return statistics.median(times), statistics.median(cpu), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=8, help="shuffle partitions (rankwise's tasks)")
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--tools", default=",".join(t.name for t in TOOLS))
    parser.add_argument("--breakdown", action="store_true", help="also time the parts of rankwise's job")
    args = parser.parse_args()
    chosen = [t for t in TOOLS if t.name in args.tools.split(",")]
    ensure_data(args.users)
    data = start(args.users, args.master, args.partitions, args.driver_memory)
    # warm-up: the first Python worker and Arrow start once for every tool, not in the first one's time
    import rankwise.spark

    few = [frame.filter(frame["user_id"] < 100) for frame in (data.truth, data.recs)]
    rankwise.spark.evaluate(*few, [f"nDCG@{K}"], partitions=2)
    results: dict[str, tuple[float, float, Values]] = {}
    for tool in chosen:
        if tool.needs and importlib.util.find_spec(tool.needs) is None:
            log(f"{tool.name}: {tool.needs} is not installed, skipped")
            continue
        log(f"{tool.name} …")
        if tool.run is ranking_evaluator:
            ranking_arrays(data)  # built and timed apart: the evaluator's own time is on the cached arrays
        results[tool.name] = timed(functools.partial(tool.run, data), args.repeat, tool.name)
    parts = breakdown(data, args.repeat) if args.breakdown else []
    reference = {t.dialect: results[t.name][2] for t in chosen if t.name.startswith("rankwise") and t.name in results}
    status = 0
    print(f"## P3: {args.users:,} users × 20 on Spark {args.master}, {args.partitions} partitions\n")
    print(f"{platform.platform()}; {processor()}; {os.cpu_count()} cores; Python {platform.python_version()}; "
          f"pyspark {version('pyspark')}; replay {version('replay-rec')}\n")  # fmt: skip
    print("| tool | what | measures | seconds | time / rankwise's | CPU s | CPU / rankwise's | agrees |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    ours = results.get("rankwise")
    for tool in chosen:
        if tool.name not in results:
            continue
        seconds, cpu, values = results[tool.name]
        expected = reference.get(tool.dialect, {})
        agrees = all(math.isclose(v, expected[k], rel_tol=1e-9, abs_tol=1e-12) for k, v in values.items()
                     if k in expected)  # fmt: skip
        if not agrees:
            status = 1
            log(f"{tool.name} disagrees with rankwise ({tool.dialect}): {values} vs {expected}")
        base = ours[:2] if ours is not None else (math.nan, math.nan)
        ratios = [f"{mine / theirs:.2f}" for mine, theirs in zip((seconds, cpu), base)]
        print(f"| {tool.name} | {tool.what} | {len(values)} | {seconds:.2f} | {ratios[0]} | {cpu:.1f} | {ratios[1]} | "
              f"{'yes' if agrees else 'NO'} |")  # fmt: skip
    if parts:
        print(
            "\nParts of rankwise's job, on its own rows (the rest of its time: the local engine in the tasks, "
            "gathering on the driver):\n"
        )
        print("| part | seconds | CPU s |")
        print("|---|---:|---:|")
        for name, seconds, cpu in parts:
            print(f"| {name} | {seconds:.2f} | {cpu:.1f} |")
    if data.prepare_seconds is not None:
        print(f"\nRankingEvaluator's per-user arrays took {data.prepare_seconds:.2f} s "
              f"({data.prepare_cpu:.1f} CPU s) to build and cache (collect_list + sort_array + join), not counted in "
              "its time above.")  # fmt: skip
    return status


if __name__ == "__main__":
    sys.exit(main())
