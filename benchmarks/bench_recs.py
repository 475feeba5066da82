"""Speed and memory benchmark (P2): recommendation lists from DataFrames in memory, rankwise against RePlay.

For each ``--users`` size: U users × 20 recommended items (integer ids, random scores, rows shuffled), and 1–10
relevant items per user; measures nDCG, AP, RR, HitRate, P and R at 10 under ``--dialect replay``. Each tool runs in
its own child process (so its peak RSS is its own): it reads the data from parquet files written once by the parent
(``benchmarks/data/``, git-ignored), then the evaluation is timed ``--repeat`` times (median). Memory: the child's
peak RSS, and its peak over the RSS with the data loaded, per row. RePlay's polars path computes NDCG@10 alone
(``replay.metrics.NDCG``); its value must equal rankwise's to 1e-9.

Run from the repository root (RePlay is optional: ``pip install --no-deps replay-rec`` as ``.ci/run`` does)::

    python benchmarks/bench_recs.py                          # 100k and 1M users, median of 3
    python benchmarks/bench_recs.py --users 100000 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

MEASURES = ["nDCG@10", "AP@10", "RR@10", "HitRate@10", "P@10", "R@10"]
ITEMS = 50_000
LIST = 20


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


DATA = Path(__file__).resolve().parent / "data"


def data_files(users: int) -> tuple[Path, Path]:
    """The parquet files of one size, written on first use."""
    truth_path, recs_path = DATA / f"recs_truth_{users}.parquet", DATA / f"recs_lists_{users}.parquet"
    if not (truth_path.exists() and recs_path.exists()):
        DATA.mkdir(exist_ok=True)
        truth, recs = make_data(users)
        truth.write_parquet(truth_path)
        recs.write_parquet(recs_path)
    return truth_path, recs_path


def current_rss() -> int:
    """Resident set size now, in bytes (Linux)."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * resource.getpagesize()


def child(tool: str, users: int, repeat: int) -> dict:
    truth_path, recs_path = data_files(users)
    truth, recs = pl.read_parquet(truth_path), pl.read_parquet(recs_path)
    data_rss = current_rss()
    times, values = [], {}
    for _ in range(repeat):
        start = time.perf_counter()
        if tool == "rankwise":
            import rankwise

            values = rankwise.evaluate(truth, recs, MEASURES, dialect="replay").aggregate
        else:
            from replay.metrics import NDCG

            ground_truth = truth.select(pl.col("user_id").alias("query_id"), "item_id")
            predicted = recs.select(pl.col("user_id").alias("query_id"), "item_id", pl.col("score").alias("rating"))
            values = {"nDCG@10": float(NDCG(10)(predicted, ground_truth)["NDCG@10"])}
        times.append(time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"time": statistics.median(times), "rows": recs.height, "data_rss": data_rss, "peak_rss": peak,
            "values": values}  # fmt: skip


def run_child(tool: str, users: int, repeat: int) -> dict | None:
    done = subprocess.run([sys.executable, __file__, "--child", tool, "--users", str(users), "--repeat", str(repeat)],
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        print(f"{tool} at {users} users failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", default="100000,1000000", help="comma-separated user counts")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", choices=("rankwise", "replay"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(u) for u in args.users.split(",")]
    if args.child:
        print(json.dumps(child(args.child, sizes[0], args.repeat)))
        return
    print(f"- machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python {platform.python_version()}, "
          f"polars {pl.__version__}, numpy {np.__version__}")  # fmt: skip
    print("\n| users | rows | tool | time (s) | µs per row | peak RSS (GB) | RSS over the data (bytes/row) | ratio |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|")
    for users in sizes:
        data_files(users)
        ours = run_child("rankwise", users, args.repeat)
        replay = run_child("replay", users, args.repeat)
        for tool, result in (("rankwise (6 measures)", ours), ("RePlay polars (NDCG@10)", replay)):
            if result is None:
                continue
            ratio = f"{result['time'] / ours['time']:.1f}×" if ours and result is not ours else "1.0"
            extra = (result["peak_rss"] - result["data_rss"]) / result["rows"]
            print(f"| {users:,} | {result['rows']:,} | {tool} | {result['time']:.2f} | "
                  f"{result['time'] / result['rows'] * 1e6:.2f} | {result['peak_rss'] / 2**30:.2f} | {extra:.0f} | "
                  f"{ratio} |")  # fmt: skip
        if ours and replay:
            gap = abs(ours["values"]["nDCG@10"] - replay["values"]["nDCG@10"])
            print(f"|  |  | NDCG@10 rankwise − RePlay: {gap:.1e} |  |  |  |  |  |", flush=True)


if __name__ == "__main__":
    main()
