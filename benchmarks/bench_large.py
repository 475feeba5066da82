"""Larger-than-memory benchmark: a generated TREC run of ``--gigabytes`` evaluated with ``rankwise evaluate --stream``.

The run (written once to ``benchmarks/data/``, git-ignored) holds 1,000 documents per query with scores in steps of
1/256 (ties), and its lines are interleaved: each query's documents are spread over the whole file (``--grouped``
writes each query's lines together instead). The qrels judge ~30 documents per query. Each evaluation runs in its own
process (``rankwise evaluate QRELS RUN -m nDCG@10 -m AP -m RR -m P@10 --format json``); its wall time and peak RSS
are measured. With ``--compare-gigabytes G`` a smaller run of G GB is also evaluated in memory (``--no-stream``)
and streamed, and the two outputs must be byte-identical. With ``--trec-eval`` (a path, or ``auto``: ``$TREC_EVAL``,
else built from ``../shared/tools/trec_eval`` as ``bench_drop_in.py`` builds it) the trec_eval 10 binary evaluates the
large run too (``-m ndcg_cut.10 -m map -m recip_rank -m P.10``, in its own process with its peak RSS), its means are
compared with rankwise's to its printed 4 decimals, and the ratios are printed.

Run from the repository root::

    python benchmarks/bench_large.py                          # 5 GB, interleaved, plus a 1 GB equality check
    python benchmarks/bench_large.py --gigabytes 0.3 --compare-gigabytes 0.3
    python benchmarks/bench_large.py --compare-gigabytes 0 --trec-eval auto   # 5 GB against the binary
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

DATA = Path(__file__).resolve().parent / "data"
DOCS = 1000
BYTES_PER_LINE = 36
MEASURES = ["nDCG@10", "AP", "RR", "P@10"]


def write_files(gigabytes: float, grouped: bool, seed: int = 0) -> tuple[Path, Path]:
    """(qrels, run) of about ``gigabytes`` of run text, written once."""
    queries = max(int(gigabytes * 1e9 / BYTES_PER_LINE / DOCS), 1)
    tag = f"{queries}x{DOCS}{'_grouped' if grouped else ''}"
    qrels_path, run_path = DATA / f"large_qrels_{tag}.txt", DATA / f"large_run_{tag}.txt"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    DATA.mkdir(exist_ok=True)
    rng = np.random.default_rng(seed)
    judged_q = np.repeat(np.arange(queries), 30)
    judged = pl.DataFrame({"q": judged_q, "d": rng.integers(0, 2 * DOCS, len(judged_q)),
                           "g": rng.integers(0, 4, len(judged_q))}).unique(["q", "d"], maintain_order=True)  # fmt: skip
    lines = judged.select(pl.format("q{} 0 doc{} {}", "q", "d", "g"))
    lines.write_csv(qrels_path, include_header=False, quote_style="never")
    slices = 1 if grouped else 50  # interleaved: every slice holds 1/50 of each query's documents
    per_slice = DOCS // slices
    chunk_queries = max(1, 2_000_000 // DOCS)
    with run_path.open("wb") as out:
        for part in range(slices):
            for start in range(0, queries, chunk_queries):
                q = np.arange(start, min(start + chunk_queries, queries))
                rank = np.tile(np.arange(part * per_slice, (part + 1) * per_slice), len(q))
                frame = pl.DataFrame({
                    "q": np.repeat(q, per_slice),
                    "d": (rank * 2 + (np.repeat(q, per_slice) % 2)),  # distinct per query, not all judged
                    "r": rank + 1,
                    "s": rng.integers(0, 256 * 8, len(rank)) / 256,
                })  # fmt: skip
                frame.select(pl.format("q{} Q0 doc{} {} {} bench", "q", "d", "r", "s")).write_csv(
                    out, include_header=False, quote_style="never"
                )
    return qrels_path, run_path


TREC_MEASURES = {"nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank", "P@10": "P_10"}
"""The binary's name of each measure (its ``-m`` options: ndcg_cut.10, map, recip_rank, P.10)."""


def evaluate(qrels: Path, run: Path, stream: bool) -> tuple[float, int, str]:
    """(seconds, peak RSS in bytes, stdout) of one ``rankwise evaluate`` process."""
    command = [sys.executable, "-m", "rankwise", "evaluate", str(qrels), str(run), "--format", "json", "--quiet",
               "--stream" if stream else "--no-stream", *(a for m in MEASURES for a in ("-m", m))]  # fmt: skip
    return timed(command)


def binary(trec_eval: Path, qrels: Path, run: Path) -> tuple[float, int, str]:
    """(seconds, peak RSS in bytes, stdout) of the trec_eval binary on the same files and measures."""
    return timed([str(trec_eval), "-m", "ndcg_cut.10", "-m", "map", "-m", "recip_rank", "-m", "P.10", str(qrels),
                  str(run)])  # fmt: skip


def timed(command: list[str]) -> tuple[float, int, str]:
    """(seconds, peak RSS in bytes, stdout) of one process."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)  # this child's own peak RSS, not the largest so far
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if status != 0:
            raise SystemExit(f"{command[0]} failed: {err.read().strip()}")
        return seconds, usage.ru_maxrss * 1024, out.read()


def _lines(run: Path) -> int:
    """Lines of a generated run (queries × documents, from its name)."""
    return int(run.stem.split("_")[2].split("x")[0]) * DOCS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gigabytes", type=float, default=5.0)
    parser.add_argument("--compare-gigabytes", type=float, default=1.0)
    parser.add_argument("--grouped", action="store_true")
    parser.add_argument("--trec-eval", help="the trec_eval binary to run beside (a path, or auto)")
    args = parser.parse_args()
    print(f"- machine: {platform.machine()}, Python {platform.python_version()}, polars {pl.__version__}")
    print("\n| run | lines | mode | time (s) | peak RSS (GB) |\n|---|---:|---|---:|---:|")
    if args.compare_gigabytes:
        qrels, run = write_files(args.compare_gigabytes, args.grouped)
        lines = _lines(run)
        results = {}
        for stream in (False, True):
            seconds, peak, out = evaluate(qrels, run, stream)
            results[stream] = out
            print(f"| {run.stat().st_size / 1e9:.2f} GB | {lines:,} | {'stream' if stream else 'memory'} | "
                  f"{seconds:.1f} | {peak / 2**30:.2f} |", flush=True)  # fmt: skip
        print(f"|  |  | outputs identical: {results[False] == results[True]} |  |  |")
    qrels, run = write_files(args.gigabytes, args.grouped)
    seconds, peak, out = evaluate(qrels, run, True)
    print(f"| {run.stat().st_size / 1e9:.2f} GB | {_lines(run):,} | stream | {seconds:.1f} | "
          f"{peak / 2**30:.2f} |", flush=True)  # fmt: skip
    if args.trec_eval:
        from bench_drop_in import trec_eval_binary

        path = trec_eval_binary(None if args.trec_eval == "auto" else args.trec_eval)
        their_seconds, their_peak, their_out = binary(path, qrels, run)
        print(f"| {run.stat().st_size / 1e9:.2f} GB | {_lines(run):,} | trec_eval 10 binary | {their_seconds:.1f} | "
              f"{their_peak / 2**30:.2f} |")  # fmt: skip
        ours = json.loads(out)["aggregate"]
        theirs = {line.split()[0]: float(line.split()[2]) for line in their_out.splitlines()}
        agree = all(abs(ours[m] - theirs[name]) <= 5e-5 for m, name in TREC_MEASURES.items())  # printed %.4f
        print(f"\nrankwise --stream: {their_seconds / seconds:.1f}x faster than the binary, "
              f"{their_peak / peak:.1f}x less peak memory; means agree to 4 decimals: {agree}")  # fmt: skip


if __name__ == "__main__":
    main()
