"""Speed and memory benchmark (P2 and its scaling series): recommendation lists from DataFrames, rankwise and its peers.

For each ``--users`` size U: U users × 20 recommended items (integer ids, random scores, rows shuffled) and 1–10
relevant items per user, written once as parquet files to ``benchmarks/data/`` (git-ignored) by a child process.
Every tool then runs in its own child process, so its peak RSS is its own: the child imports the tool, reads the
files, converts them to the tool's own input (pandas for the pandas tools; not timed), and times the evaluation
``--repeat`` times (median). Memory: the child's peak RSS, and its peak over the RSS with the tool imported and the
data loaded, per row.

Tools (``--tools``, default all) and what they compute, all at 10:

- ``rankwise``: nDCG, AP, RR, HitRate, P, R under ``--dialect replay`` from polars DataFrames (the reference);
- ``rankwise-cli``: the same from the parquet files, ``rankwise evaluate … --dialect replay --format csv`` (the
  aggregates) as a fresh process, start-up included; its peak RSS is that process's;
- ``rankwise-rs_metrics``, ``rankwise-ms_recommenders``, ``rankwise-torchmetrics``: rankwise under the dialect of
  each peer below, computing the same measures as that peer (its reference for values and speed);
- ``replay-polars-ndcg``: RePlay's polars path, NDCG@10 alone (``replay.metrics.NDCG``);
- ``replay-polars``, ``replay-pandas``: RePlay's ``OfflineMetrics`` with NDCG, MAP, MRR, HitRate, Precision and
  Recall, from polars and from pandas DataFrames (the pandas path is a per-user Python loop);
- ``rs_metrics``: its ndcg, mapr, mrr, hitrate, precision and recall from per-user lists (its ``pandas_to_dict``
  of the pandas frames, the recommendations sorted by score first);
- ``ms_recommenders``: MS Recommenders' ``python_evaluation`` precision_at_k, recall_at_k, map_at_k and ndcg_at_k
  on pandas DataFrames;
- ``torchmetrics``: ``RetrievalNormalizedDCG``, ``RetrievalMAP``, ``RetrievalMRR``, ``RetrievalHitRate``,
  ``RetrievalPrecision``, ``RetrievalRecall`` (a ``MetricCollection`` with ``indexes``), after a join of the
  relevant items onto the recommendations (timed: the tool needs it).

Each peer's values must equal rankwise's under the matching dialect (replay, rs_metrics, ms_recommenders@1.2,
torchmetrics) to 1e-9 (torchmetrics: 1e-6, its results are float32); any disagreement is printed and makes the exit
status 1, as does a tool that fails (a peer that is not installed is only reported). A child that runs longer than
``--peer-timeout`` seconds (to import the tool and load the data, then again for all its timed runs) or grows over
``--memory-limit`` GB is stopped and reported as "> N s" (with the median of the runs it finished, if any); it is
not run at larger sizes. The report (Markdown: one table per size, then time and memory per row across sizes, so
linearity is visible) goes to stdout, progress to stderr.

Run from the repository root (peers are optional: ``pip install -e '.[bench,test]'`` brings rs_metrics and
torchmetrics, ``pip install --no-deps replay-rec recommenders`` the others, as ``.ci/run`` does)::

    python benchmarks/bench_recs.py                                    # 0.1M, 1M and 5M users, median of 3
    python benchmarks/bench_recs.py --users 20000 --repeat 1           # quick check
    python benchmarks/bench_recs.py --users 1000000 --tools rankwise,rankwise-cli,replay-polars-ndcg
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from bench_trec import processor, version

Values = dict[str, float]
"""Aggregate value of each measure, keyed by its rankwise name."""

ITEMS = 50_000
LIST = 20
K = 10
ALL_MEASURES = tuple(f"{m}@{K}" for m in ("nDCG", "AP", "RR", "HitRate", "P", "R"))
MS_MEASURES = tuple(f"{m}@{K}" for m in ("nDCG", "AP", "P", "R"))
DATA = Path(__file__).resolve().parent / "data"
DEFAULT_USERS = "100000,1000000,5000000"


# --- data ------------------------------------------------------------------------------------------------


def make_data(users: int, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(truth, recs): columns user_id, item_id (Int64) and rating (1) / score (float64); recs shuffled."""
    rng = np.random.default_rng(seed)
    columns = {
        "user_id": np.repeat(np.arange(users), LIST),
        "item_id": rng.integers(0, ITEMS, users * LIST),
        "score": rng.random(users * LIST),
    }
    recs = pl.DataFrame(columns).unique(["user_id", "item_id"], maintain_order=True)  # the same data in every child
    per_user = rng.integers(1, 11, users)
    truth_users = np.repeat(np.arange(users), per_user)
    shown = recs.sample(n=min(len(truth_users) // 3, recs.height), seed=seed).select("user_id", "item_id")
    truth = pl.concat([
        shown,
        pl.DataFrame({"user_id": truth_users, "item_id": rng.integers(0, ITEMS, len(truth_users))}),
    ]).unique(["user_id", "item_id"], maintain_order=True).with_columns(rating=pl.lit(1, dtype=pl.Int64))  # fmt: skip
    return truth, recs.sample(fraction=1.0, shuffle=True, seed=seed)


def data_paths(users: int) -> tuple[Path, Path]:
    return DATA / f"recs_truth_{users}.parquet", DATA / f"recs_lists_{users}.parquet"


def write_data(users: int) -> None:
    """Write the parquet files of one size (each beside its name, then renamed: a half-written file is never used)."""
    DATA.mkdir(exist_ok=True)
    for frame, path in zip(make_data(users), data_paths(users)):
        partial = path.with_suffix(".partial")
        frame.write_parquet(partial)
        partial.replace(path)


def ensure_data(users: int) -> None:
    """The files of one size, generated in a child process (so this process stays small) when missing."""
    if all(path.exists() for path in data_paths(users)):
        return
    log(f"generating {users:,} users × {LIST} items into {DATA} …")
    subprocess.run([sys.executable, __file__, "--generate", "--users", str(users)], check=True)


# --- tools -----------------------------------------------------------------------------------------------


def rankwise_tool(dialect: str, measures: tuple[str, ...]) -> Callable[[Any], Values]:
    def compute(frames: tuple[pl.DataFrame, pl.DataFrame]) -> Values:
        import rankwise

        return dict(rankwise.evaluate(*frames, list(measures), dialect=dialect).aggregate)

    return compute


def rankwise_cli(paths: tuple[Path, Path]) -> Values:
    """``rankwise evaluate`` on the parquet files in a fresh process; the aggregates of its CSV output."""
    command = [sys.executable, "-m", "rankwise", "evaluate", *map(str, paths), "--dialect", "replay", "--quiet",
               "--format", "csv", *(a for m in ALL_MEASURES for a in ("-m", m))]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    rows = (line.split(",") for line in done.stdout.splitlines())
    return {row[1]: float(row[2]) for row in rows if len(row) == 3 and row[0] == "all"}


REPLAY_NAMES = {"NDCG": "nDCG", "MAP": "AP", "MRR": "RR", "HitRate": "HitRate", "Precision": "P", "Recall": "R"}


def replay_polars_frames(truth: pl.DataFrame, recs: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(recommendations, ground truth) with RePlay's default column names (query_id, item_id, rating)."""
    return recs.rename({"user_id": "query_id", "score": "rating"}), truth.select(
        pl.col("user_id").alias("query_id"), "item_id"
    )


def replay_pandas_frames(truth: pl.DataFrame, recs: pl.DataFrame) -> tuple[Any, Any]:
    recommendations, ground_truth = replay_polars_frames(truth, recs)
    return recommendations.to_pandas(), ground_truth.to_pandas()


def replay_ndcg(frames: tuple[Any, Any]) -> Values:
    from replay.metrics import NDCG

    return {f"nDCG@{K}": float(NDCG(K)(*frames)[f"NDCG@{K}"])}


def replay_offline(frames: tuple[Any, Any]) -> Values:
    from replay import metrics

    offline = metrics.OfflineMetrics([getattr(metrics, name)(K) for name in REPLAY_NAMES])
    result = offline(*frames)
    return {f"{ours}@{K}": float(result[f"{theirs}@{K}"]) for theirs, ours in REPLAY_NAMES.items()}


RS_METRICS_NAMES = {"ndcg": "nDCG", "mapr": "AP", "mrr": "RR", "hitrate": "HitRate", "precision": "P", "recall": "R"}


def rs_metrics_tool(frames: tuple[Any, Any]) -> Values:
    import rs_metrics
    from rs_metrics.helpers import pandas_to_dict

    truth, recs = frames
    true = pandas_to_dict(truth)
    pred = pandas_to_dict(recs.sort_values(["user_id", "score"], ascending=[True, False], kind="stable"))
    return {f"{ours}@{K}": float(getattr(rs_metrics, theirs)(true, pred, k=K))
            for theirs, ours in RS_METRICS_NAMES.items()}  # fmt: skip


MS_NAMES = {"ndcg_at_k": "nDCG", "map_at_k": "AP", "precision_at_k": "P", "recall_at_k": "R"}


def ms_frames(truth: pl.DataFrame, recs: pl.DataFrame) -> tuple[Any, Any]:
    """pandas frames with MS Recommenders' default column names (userID, itemID, rating / prediction)."""
    names = {"user_id": "userID", "item_id": "itemID", "score": "prediction"}
    return truth.rename(names, strict=False).to_pandas(), recs.rename(names, strict=False).to_pandas()


def ms_recommenders_tool(frames: tuple[Any, Any]) -> Values:
    from recommenders.evaluation import python_evaluation

    return {f"{ours}@{K}": float(getattr(python_evaluation, theirs)(*frames, k=K)) for theirs, ours in MS_NAMES.items()}


TORCHMETRICS_NAMES = {"RetrievalNormalizedDCG": "nDCG", "RetrievalMAP": "AP", "RetrievalMRR": "RR",
                      "RetrievalHitRate": "HitRate", "RetrievalPrecision": "P", "RetrievalRecall": "R"}  # fmt: skip


def torchmetrics_tool(frames: tuple[pl.DataFrame, pl.DataFrame]) -> Values:
    import torch
    import torchmetrics
    from torchmetrics import retrieval

    truth, recs = frames
    relevant = truth.select("user_id", "item_id", target=pl.lit(1, dtype=pl.Int64))
    rows = recs.join(relevant, on=["user_id", "item_id"], how="left").with_columns(pl.col("target").fill_null(0))
    collection = torchmetrics.MetricCollection({name: getattr(retrieval, name)(top_k=K) for name in TORCHMETRICS_NAMES})
    collection.update(torch.from_numpy(rows["score"].to_numpy()), torch.from_numpy(rows["target"].to_numpy()),
                      indexes=torch.from_numpy(rows["user_id"].to_numpy()))  # fmt: skip
    result = collection.compute()
    return {f"{ours}@{K}": float(result[theirs]) for theirs, ours in TORCHMETRICS_NAMES.items()}


def polars_frames(truth: pl.DataFrame, recs: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    return truth, recs


def pandas_frames(truth: pl.DataFrame, recs: pl.DataFrame) -> tuple[Any, Any]:
    return truth.to_pandas(), recs.to_pandas()


@dataclass(frozen=True)
class Tool:
    """One row of the report: how a child process prepares its input (not timed) and evaluates it (timed)."""

    name: str
    label: str
    dialect: str
    """The rankwise dialect whose values this tool's must equal."""
    measures: tuple[str, ...]
    """What it computes, by rankwise name."""
    module: str
    """Imported before the data is read, so that "RSS over the data" leaves the library out."""
    package: str
    """Distribution whose version is reported."""
    prepare: Callable[[pl.DataFrame, pl.DataFrame], Any]
    compute: Callable[[Any], Values]
    tolerance: float = 1e-9
    from_files: bool = False
    """Reads the parquet files itself (in a process of its own, whose peak RSS is all "over the data")."""

    @property
    def reference(self) -> str:
        """The rankwise tool it is compared with (values and speed)."""
        return rankwise_name(self.dialect)


def rankwise_name(dialect: str) -> str:
    """The name of the rankwise tool of a dialect: ``rankwise`` for replay (the P2 case), else ``rankwise-NAME``."""
    return "rankwise" if dialect == "replay" else f"rankwise-{dialect.split('@')[0]}"


def _rankwise(dialect: str, measures: tuple[str, ...]) -> Tool:
    label = f"rankwise, --dialect {dialect}"
    compute = rankwise_tool(dialect, measures)
    return Tool(rankwise_name(dialect), label, dialect, measures, "rankwise", "rankwise", polars_frames, compute)


TOOLS = {tool.name: tool for tool in (
    _rankwise("replay", ALL_MEASURES),
    Tool("rankwise-cli", "rankwise CLI, parquet files, --dialect replay", "replay", ALL_MEASURES, "rankwise",
         "rankwise", polars_frames, rankwise_cli, from_files=True),
    Tool("replay-polars-ndcg", "RePlay polars, NDCG alone", "replay", (f"nDCG@{K}",), "replay.metrics", "replay-rec",
         replay_polars_frames, replay_ndcg),
    Tool("replay-polars", "RePlay polars, OfflineMetrics", "replay", ALL_MEASURES, "replay.metrics", "replay-rec",
         replay_polars_frames, replay_offline),
    Tool("replay-pandas", "RePlay pandas, OfflineMetrics", "replay", ALL_MEASURES, "replay.metrics", "replay-rec",
         replay_pandas_frames, replay_offline),
    _rankwise("rs_metrics", ALL_MEASURES),
    Tool("rs_metrics", "rs_metrics, per-user lists", "rs_metrics", ALL_MEASURES, "rs_metrics", "rs-metrics",
         pandas_frames, rs_metrics_tool),
    _rankwise("ms_recommenders@1.2", MS_MEASURES),
    Tool("ms_recommenders", "MS Recommenders python_evaluation", "ms_recommenders@1.2", MS_MEASURES,
         "recommenders.evaluation.python_evaluation", "recommenders",
         ms_frames, ms_recommenders_tool),
    _rankwise("torchmetrics", ALL_MEASURES),
    Tool("torchmetrics", "torchmetrics retrieval, MetricCollection", "torchmetrics", ALL_MEASURES,
         "torchmetrics.retrieval", "torchmetrics", polars_frames, torchmetrics_tool, tolerance=1e-6),
)}  # fmt: skip


# --- one child process: one tool at one size -------------------------------------------------------------


def current_rss() -> int:
    """Resident set size now, in bytes (Linux)."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * resource.getpagesize()


def peak_rss(who: int = resource.RUSAGE_SELF) -> int:
    return resource.getrusage(who).ru_maxrss * 1024


NOT_INSTALLED = 3
"""Exit status of a child whose tool cannot be imported: reported, not a failure."""
READY = "ready"
"""The child's first line: the tool is imported and its input loaded; the time limit counts from here."""


def child(tool: Tool, users: int, repeat: int) -> None:
    """Evaluate ``repeat`` times, printing one JSON line per run (so a run cut short still reports the runs done)."""
    try:
        importlib.import_module(tool.module)
    except ImportError as exc:
        print(f"not installed ({exc})", file=sys.stderr)
        sys.exit(NOT_INSTALLED)
    paths = data_paths(users)
    rows = pl.scan_parquet(paths[1]).select(pl.len()).collect().item()
    if tool.from_files:
        prepared: Any = paths
        data_rss = 0
    else:
        prepared = tool.prepare(pl.read_parquet(paths[0]), pl.read_parquet(paths[1]))  # only the tool's own input
        data_rss = current_rss()
    print(READY, flush=True)
    for _ in range(repeat):
        start = time.perf_counter()
        values = tool.compute(prepared)
        seconds = time.perf_counter() - start
        peak = max(peak_rss(), peak_rss(resource.RUSAGE_CHILDREN))  # the CLI's process is a child of this one
        print(json.dumps({"seconds": seconds, "rows": rows, "data_rss": data_rss, "peak_rss": peak,
                          "values": values}), flush=True)  # fmt: skip


# --- the parent: children with a time and memory limit --------------------------------------------------


@dataclass
class Result:
    """One tool at one size, from its child's JSON lines."""

    tool: Tool
    users: int
    runs: list[dict] = field(default_factory=list)
    stopped: str | None = None
    """Why the child was stopped before it finished (time or memory limit), if it was."""
    time_limit: float | None = None
    """The time limit it ran past, if that is why it was stopped."""
    failed: str | None = None
    missing: str | None = None
    """Why the tool could not be imported, if it could not."""

    @property
    def seconds(self) -> float | None:
        return statistics.median(run["seconds"] for run in self.runs) if self.runs else None

    @property
    def values(self) -> Values:
        return self.runs[-1]["values"] if self.runs else {}

    def per_row(self) -> tuple[float, int, float] | None:
        """(µs per row, peak RSS, RSS over the data per row), once a run finished."""
        if not self.runs or self.seconds is None:
            return None
        run = self.runs[-1]
        return self.seconds / run["rows"] * 1e6, run["peak_rss"], (run["peak_rss"] - run["data_rss"]) / run["rows"]


def process_rss(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * resource.getpagesize()
    except (OSError, IndexError):
        return 0


def run_child(tool: Tool, users: int, repeat: int, timeout: float, memory_limit: float) -> Result:
    """Run one child, stopping it (SIGKILL) past ``memory_limit`` bytes of RSS, or ``timeout`` seconds of import and
    loading, or ``timeout`` seconds of timed runs."""
    result = Result(tool, users)
    command = [sys.executable, __file__, "--child", tool.name, "--users", str(users), "--repeat", str(repeat)]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        start, ready_at = time.monotonic(), None
        while True:
            try:
                process.wait(timeout=0.25)
                break
            except subprocess.TimeoutExpired:
                now = time.monotonic()
                if ready_at is None and os.pread(out.fileno(), len(READY), 0) == READY.encode():  # offset unchanged
                    ready_at = now
                if ready_at is not None and now - ready_at > timeout:
                    result.stopped, result.time_limit = f"> {timeout:g} s", timeout
                elif ready_at is None and now - start > timeout:
                    result.stopped = f"> {timeout:g} s to import and load"
                elif process_rss(process.pid) > memory_limit:
                    result.stopped = f"> {memory_limit / 2**30:.3g} GB"
                if result.stopped:
                    process.kill()
                    process.wait()
                    break
        out.seek(0)
        err.seek(0)
        result.runs = [json.loads(line) for line in out if line.startswith("{")]
        if len(result.runs) == repeat:  # stopped on its way out, every run done
            result.stopped = result.time_limit = None
        lines = err.read().strip().splitlines()
        if process.returncode == NOT_INSTALLED:
            result.missing = lines[-1] if lines else "not installed"
        elif process.returncode != 0 and not result.stopped:
            result.failed = lines[-1] if lines else f"exit status {process.returncode}"
    return result


# --- report ----------------------------------------------------------------------------------------------


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def describe_time(result: Result, repeat: int) -> str:
    if result.missing:
        return result.missing
    if result.failed:
        return f"failed: {result.failed[:120]}"
    if result.seconds is None:
        return result.stopped or "–"
    shown = f"{result.seconds:.2f}"
    if result.stopped:
        shown += f" ({len(result.runs)} of {repeat} runs; stopped {result.stopped})"
    return shown


def max_difference(result: Result, reference: Result | None) -> float | None:
    if reference is None or not result.values or not reference.values or result is reference:
        return None
    return max(abs(result.values[m] - reference.values[m]) for m in result.tool.measures)


def slower_by(result: Result, reference: Result | None) -> str:
    """Peer time / rankwise time ("> N×" for a peer stopped at the time limit before it finished a run)."""
    if result.tool.name.startswith("rankwise") or reference is None or not reference.seconds:
        return "–"
    if result.seconds is not None:
        return f"{result.seconds / reference.seconds:.1f}×"
    if result.time_limit is not None:
        return f"> {result.time_limit / reference.seconds:.0f}×"
    return "–"


def size_table(results: list[Result], repeat: int) -> tuple[list[str], list[str]]:
    """Markdown rows of one size, and the disagreements found."""
    by_name = {r.tool.name: r for r in results}
    lines, failures = [], []
    for result in results:
        tool = result.tool
        reference = by_name.get(tool.reference)
        difference = max_difference(result, reference)
        if reference is not None and difference is not None and not difference <= tool.tolerance:
            failures.append(f"{result.users:,} users: {tool.label} differs from {reference.tool.label} by "
                            f"{difference:.3e} (tolerance {tool.tolerance:g})")  # fmt: skip
        figures = result.per_row()
        rows = f"{result.runs[-1]['rows']:,}" if result.runs else "–"
        cells = [f"{result.users:,}", rows, tool.label, str(len(tool.measures)), describe_time(result, repeat),
                 *((f"{figures[0]:.2f}", f"{figures[1] / 2**30:.2f}", f"{figures[2]:.0f}") if figures else ("–",) * 3),
                 slower_by(result, reference), "–" if difference is None else f"{difference:.1e}"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return lines, failures


def scaling_table(results: list[Result], sizes: list[int]) -> list[str]:
    """µs and bytes of RSS over the data per row, of every tool at every size."""
    lines = ["| tool | " + " | ".join(f"{users:,} users" for users in sizes) + " |", "|---|" + "---:|" * len(sizes)]
    for name in dict.fromkeys(r.tool.name for r in results):
        cells = []
        for users in sizes:
            result = next((r for r in results if r.tool.name == name and r.users == users), None)
            figures = result.per_row() if result else None
            if figures:
                cells.append(f"{figures[0]:.2f} µs, {figures[2]:.0f} B")
            else:
                cells.append(result.stopped or ("failed" if result.failed else "–") if result else "–")
        lines.append(f"| {TOOLS[name].label} | " + " | ".join(cells) + " |")
    return lines


def targets(results: list[Result]) -> list[str]:
    """Issue #22's P2 targets at 1M users, where measured (#10's, but the CLI's 3 s instead of 4)."""
    at = {r.tool.name: r for r in results if r.users == 1_000_000}
    ours, cli, replay = at.get("rankwise"), at.get("rankwise-cli"), at.get("replay-polars-ndcg")
    lines = []
    if ours and ours.seconds is not None:
        peak = ours.runs[-1]["peak_rss"] / 2**30
        lines.append(f"- from DataFrames ≤ 2 s: {ours.seconds:.2f} s; peak RSS ≤ 1.5 GB: {peak:.2f} GB")
        if replay and replay.seconds is not None:
            lines.append(f"- ≥ 10× RePlay's polars path (NDCG@10 alone): {replay.seconds / ours.seconds:.1f}×")
    if cli and cli.seconds is not None:
        lines.append(f"- from parquet files through the CLI ≤ 3 s: {cli.seconds:.2f} s")
    return ["", "Targets of issue #22 at 1,000,000 users (measured above):", "", *lines] if lines else []


def environment(args: argparse.Namespace, tools: list[Tool]) -> list[str]:
    packages = dict.fromkeys(["rankwise", "numpy", "polars", *(t.package for t in tools)])
    if any(t.name == "torchmetrics" for t in tools):
        packages["torch"] = None
    if any(t.name in ("rs_metrics", "ms_recommenders", "replay-pandas") for t in tools):
        packages["pandas"] = None
    return [
        f"- date: {datetime.date.today().isoformat()}",
        f"- machine: {processor()} / {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
        f"- Python {platform.python_version()}; " + ", ".join(f"{p} {version(p)}" for p in packages),
        f"- data: U users × {LIST} recommended items of {ITEMS:,} (shuffled rows, random scores), 1–10 relevant items "
        f"per user; measures at {K}; time = median of {args.repeat} run{'s' * (args.repeat > 1)} in each tool's "
        "own process, from its own input format in memory (rankwise CLI: from the parquet files, process start "
        "included)",
        '- peak RSS: the child process\'s; "over the data" = peak − RSS after import and loading, per row; '
        '"slower by" = tool time / rankwise time under the matching dialect; values checked against that '
        "rankwise row",
        f"- limits per child: {args.peer_timeout:.0f} s, {args.memory_limit:.1f} GB",
    ]


# --- main ------------------------------------------------------------------------------------------------


def default_memory_limit() -> float:
    """80% of the memory available now, in GB (Linux), else 16."""
    try:
        info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
        return 0.8 * int(info["MemAvailable"].split()[0]) / 2**20
    except (OSError, KeyError, ValueError):
        return 16.0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--users",
        default=DEFAULT_USERS,
        help=f"comma-separated user counts, the scaling series (default: {DEFAULT_USERS})",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs per tool and size; the median is shown (default: 3)"
    )
    parser.add_argument(
        "--tools",
        default="all",
        help="comma-separated tools (default: all): "
        + ", ".join(TOOLS)
        + "; a peer brings its rankwise reference along",
    )
    parser.add_argument(
        "--peer-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long one tool's child may spend on its timed runs at one size (and, before them, on import and "
        "loading); a slower tool is stopped, shown as '> N s' and not run at larger sizes (default: 300)",
    )
    parser.add_argument(
        "--memory-limit",
        type=float,
        default=round(default_memory_limit(), 1),
        metavar="GB",
        help="RSS a child may reach before it is stopped the same way (default: 80%% of the memory available now)",
    )
    parser.add_argument("--child", choices=TOOLS, help=argparse.SUPPRESS)
    parser.add_argument("--generate", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        args.sizes = [int(u.replace("_", "")) for u in args.users.split(",")]
    except ValueError:
        parser.error(f"--users: comma-separated integers expected, got {args.users!r}")
    args.tool_list = list(TOOLS) if args.tools == "all" else [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = [t for t in args.tool_list if t not in TOOLS]
    if unknown:
        parser.error(f"--tools: unknown {', '.join(unknown)}; known: {', '.join(TOOLS)}")
    if min(args.sizes) < 1 or args.repeat < 1 or args.peer_timeout <= 0:
        parser.error("--users, --repeat and --peer-timeout must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.generate:
        write_data(args.sizes[0])
        return 0
    if args.child:
        child(TOOLS[args.child], args.sizes[0], args.repeat)
        return 0
    tools = [TOOLS[name] for name in args.tool_list]
    for tool in tools:  # a peer needs its rankwise reference in the same run
        if tool.reference not in args.tool_list:
            tools.append(TOOLS[tool.reference])
            args.tool_list.append(tool.reference)
    tools.sort(key=lambda tool: list(TOOLS).index(tool.name))
    results: list[Result] = []
    failures: list[str] = []
    stopped: dict[str, str] = {}
    print("## P2: recommendation lists from DataFrames, and the scaling series\n")
    print("\n".join(environment(args, tools)))
    print("\n| users | rows | tool | measures | time (s) | µs per row | peak RSS (GB) | RSS over the data "
          "(bytes/row) | slower than rankwise by | max diff to rankwise |")  # fmt: skip
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    for users in args.sizes:
        ensure_data(users)
        size_results = []
        for tool in tools:
            if tool.name in stopped:
                result = Result(tool, users, stopped=f"{stopped[tool.name]} (stopped at a smaller size)")
            else:
                log(f"{users:,} users: {tool.label} …")
                result = run_child(tool, users, args.repeat, args.peer_timeout, args.memory_limit * 2**30)
                if result.stopped:
                    stopped[tool.name] = result.stopped
                log(f"  {describe_time(result, args.repeat)}")
            size_results.append(result)
        lines, found = size_table(size_results, args.repeat)
        print("\n".join(lines), flush=True)
        results += size_results
        failures += found
    if len(args.sizes) > 1:
        print(
            "\nScaling: time and RSS over the data per row (linear cost: the same figures at every size, once fixed "
            "costs such as process start are small):\n"
        )
        print("\n".join(scaling_table(results, args.sizes)))
    print("\n".join(targets(results)))
    for failure in failures:
        print(f"\nDISAGREEMENT: {failure}")
    return 1 if failures or any(r.failed for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
