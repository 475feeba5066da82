"""Speed benchmark: run fusion, ``rankwise.fuse`` against ranx (warm and cold) and trectools, and the search of the
weights (``rankwise.optimize_fusion`` against ranx's ``optimize_fusion``) over the 0.1 grid of 5 runs.

The data: ``--runs`` TREC run files of ``--queries`` queries × ``--docs`` documents, each query's documents drawn
from a pool of 2 × ``--docs`` (so the runs overlap), random scores (no ties); qrels with 10 % of each pool judged.
Each tool runs in its own process (this script with ``--child``), one after the other: it reads the run files,
fuses them twice (``cold``: the first call in the process, numba's compilation or cache load included for ranx;
``warm``: the second), and writes the fused run as a TREC file; the time of each step is measured inside the child
and its peak resident memory by GNU ``time`` (else ``ru_maxrss``). The fused runs are compared (the same documents
with the same scores, to 1e-9; trectools' RRF in the same order too). trectools has RRF (top 1,000 of each run, doc
id ascending among ties: rankwise's ``depth=1000, ties="docno_asc"``) but no normalised weighted sum.

The search: every weight vector in steps of 0.1 (rankwise: all 1,001 for 5 runs; ranx: the 860 its float grid
keeps), weighted sum of min-max scores, nDCG@10; on ``--opt-queries`` × ``--opt-docs`` (smaller: ranx evaluates
each point separately).

Run from the repository root::

    python benchmarks/bench_fusion.py                                      # 1,000 × 1,000 × 5
    python benchmarks/bench_fusion.py --queries 100 --docs 100 --opt-queries 50 --opt-docs 50   # quick check
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench_drop_in import TIME
from bench_trec import ROOT, log, processor, version

TOOLS = {"rrf": ("rankwise", "ranx", "trectools"), "wsum": ("rankwise", "ranx")}


def generate(folder: Path, runs: int, queries: int, docs: int, seed: int) -> tuple[list[Path], Path]:
    """The run files and the qrels for these sizes (generated once, then reused)."""
    stem = f"fusion_{runs}x{queries}x{docs}_seed{seed}"
    paths = [folder / f"{stem}_run{r}.txt" for r in range(runs)]
    qrels = folder / f"{stem}_qrels.txt"
    if all(p.exists() for p in paths) and qrels.exists():
        log(f"reusing {folder}/{stem}_*")
        return paths, qrels
    log(f"generating {runs} runs of {queries:,} queries × {docs:,} documents into {folder} …")
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    qids = np.repeat(np.arange(queries), docs)
    for r, path in enumerate(paths):
        chosen = np.argsort(rng.random((queries, 2 * docs)), axis=1)[:, :docs].ravel()
        scores = rng.normal(10.0 * r, 3.0, len(chosen))
        rank = np.tile(np.arange(1, docs + 1), queries)
        lines = [f"q{q} Q0 d{q}_{d} {k} {s!r} run{r}" for q, d, k, s in zip(qids, chosen, rank, scores.tolist())]
        path.write_text("\n".join(lines) + "\n")
    judged = np.argsort(rng.random((queries, 2 * docs)), axis=1)[:, : max(1, docs // 5)]
    grades = rng.integers(0, 3, judged.shape)
    qrels.write_text("".join(f"q{q} 0 d{q}_{d} {g}\n" for q in range(queries)
                             for d, g in zip(judged[q], grades[q])))  # fmt: skip
    return paths, qrels


def child(tool: str, method: str, paths: list[str], out: str) -> dict[str, float]:
    """Inside the child process: read, fuse twice (cold, warm), write; the seconds of each step."""
    times: dict[str, float] = {}
    start = time.perf_counter()
    if tool == "rankwise":
        import rankwise

        runs = [rankwise.load_run(p) for p in paths]
        times["read"] = time.perf_counter() - start
        arguments = {"method": "rrf", "norm": "none", "params": {"k": 60}} if method == "rrf" else {
            "method": "wsum", "norm": "min-max", "weights": [1 / len(paths)] * len(paths)}  # fmt: skip
        for step in ("cold", "warm"):
            begin = time.perf_counter()
            fused = rankwise.fuse(runs, **arguments)  # type: ignore[arg-type]
            times[step] = time.perf_counter() - begin
        begin = time.perf_counter()
        from rankwise.fusion.fused import write_run

        write_run(fused, out, method)
    elif tool == "ranx":
        from ranx import Run, fuse

        ranx_runs = [Run.from_file(p, kind="trec") for p in paths]
        times["read"] = time.perf_counter() - start
        params = {"k": 60} if method == "rrf" else {"weights": [1 / len(paths)] * len(paths)}
        for step in ("cold", "warm"):
            begin = time.perf_counter()
            fused = fuse(ranx_runs, norm=None if method == "rrf" else "min-max", method=method, params=params)
            times[step] = time.perf_counter() - begin
        begin = time.perf_counter()
        fused.save(out, kind="trec")
    else:
        from trectools import TrecRun, fusion

        trec_runs = [TrecRun(p) for p in paths]
        times["read"] = time.perf_counter() - start
        begin = time.perf_counter()
        fused = fusion.reciprocal_rank_fusion(trec_runs, k=60, max_docs=10**9)
        times["cold"] = time.perf_counter() - begin
        begin = time.perf_counter()
        fused.print_subset(out, topics=fused.topics())
    times["write"] = time.perf_counter() - begin
    return times


def run_child(tool: str, method: str, paths: list[Path], out: Path) -> tuple[dict[str, float], float, float]:
    """One tool in its own process: (its step times, its wall time, its peak MiB)."""
    command = [sys.executable, __file__, "--child", tool, method, str(out), *map(str, paths)]
    wrapped = [TIME, "-f", "%M", *command] if TIME else command
    start = time.perf_counter()
    process = subprocess.Popen(wrapped, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONWARNINGS": "ignore"})  # fmt: skip
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stdout = process.stdout.read().decode() if process.stdout else ""
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{tool} {method}: {stderr.strip()[-600:]}")
    peak_kib = int(stderr.strip().splitlines()[-1]) if TIME else usage.ru_maxrss
    return json.loads(stdout.strip().splitlines()[-1]), wall, peak_kib / 1024


def read_fused(path: Path) -> dict[tuple[str, str], float]:
    scores = {}
    for line in path.read_text().splitlines():
        q, _, d, _, s, *_ = line.split()
        scores[(q, d)] = float(s)
    return scores


def same_scores(a: dict[tuple[str, str], float], b: dict[tuple[str, str], float]) -> bool:
    return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= 1e-9 * max(1.0, abs(b[k])) for k in b)


def bench_optimisation(paths: list[Path], qrels: Path) -> list[str]:
    """rankwise's and ranx's search of the weighted sum's weights (0.1 grid, min-max, nDCG@10), each in this
    process after a warm-up fuse; the best configuration of each and rankwise's value at ranx's best point."""
    import warnings

    from ranx import Qrels, Run, optimize_fusion

    import rankwise

    warnings.simplefilter("ignore")
    start = time.perf_counter()
    ours = rankwise.optimize_fusion(str(qrels), [str(p) for p in paths], "wsum", "min-max", "nDCG@10")
    our_seconds = time.perf_counter() - start
    ranx_runs, ranx_qrels = [Run.from_file(str(p), kind="trec") for p in paths], Qrels.from_file(str(qrels))
    start = time.perf_counter()
    best, report = optimize_fusion(ranx_qrels, ranx_runs, norm="min-max", method="wsum", metric="ndcg@10",
                                   show_progress=False, return_optimization_report=True)  # fmt: skip
    ranx_seconds = time.perf_counter() - start
    at = {tuple(round(w * 10) for w in c.weights): s for c, s in zip(ours.configs, ours.scores)}
    ranx_best = tuple(round(float(w) * 10) for w in best["weights"])
    return [
        f"| rankwise.optimize_fusion | {len(ours.configs):,} | {our_seconds:.1f} | {ours.best.label()} "
        f"| {ours.score:.4f} |",
        f"| ranx optimize_fusion (warm) | {len(report.configs):,} | {ranx_seconds:.1f} | wsum{list(ranx_best)} "
        f"| {max(report.results):.4f} (rankwise at that point: {at[ranx_best]:.4f}) |",
    ]


def main(argv: list[str] | None = None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--child":
        tool, method, out, *paths = sys.argv[2:]
        print(json.dumps(child(tool, method, paths, out)))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--opt-queries", type=int, default=200)
    parser.add_argument("--opt-docs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", nargs="*", default=[], help="tools to leave out (e.g. trectools)")
    args = parser.parse_args(argv)
    paths, _ = generate(ROOT / "data", args.runs, args.queries, args.docs, args.seed)
    rows, failures = [], []
    with tempfile.TemporaryDirectory() as folder:
        for method, tools in TOOLS.items():
            outputs = {}
            for tool in (t for t in tools if t not in args.skip):
                log(f"{tool} {method} …")
                out = Path(folder) / f"{tool}_{method}.txt"
                times, wall, peak = run_child(tool, method, paths, out)
                outputs[tool] = read_fused(out)
                warm = f"{times['warm']:.2f}" if "warm" in times else "–"
                rows.append(f"| {tool} | {method} | {times['read']:.2f} | {times['cold']:.2f} | {warm} | "
                            f"{times['write']:.2f} | {wall:.2f} | {peak:.0f} |")  # fmt: skip
            for tool, fused in outputs.items():
                if tool != "rankwise" and not same_scores(outputs["rankwise"], fused):
                    failures.append(f"{method}: {tool}'s fused run differs from rankwise's")
    opt_paths, opt_qrels = generate(ROOT / "data", args.runs, args.opt_queries, args.opt_docs, args.seed)
    log("optimisation …")
    optimisation = bench_optimisation(opt_paths, opt_qrels)
    print("## Run fusion: rankwise against ranx and trectools\n")
    print(f"- date: {datetime.date.today().isoformat()}; machine: {processor()}, {os.cpu_count()} CPUs, "
          f"{platform.system()}; Python {platform.python_version()}, rankwise {version('rankwise')}, ranx "
          f"{version('ranx')}, trectools {version('trectools')}, numpy {version('numpy')}")  # fmt: skip
    print(f"- data: {args.runs} runs × {args.queries:,} queries × {args.docs:,} documents "
          f"({args.runs * args.queries * args.docs:,} run lines); each tool in its own process; times in seconds; "
          "peak = the process's maximum resident set\n")
    search = (f"### Weight search: weighted sum of min-max scores, 0.1 grid, nDCG@10, {args.runs} runs × "
              f"{args.opt_queries:,} queries × {args.opt_docs:,} documents")  # fmt: skip
    print("\n".join([
        "| tool | method | read | fuse (cold) | fuse (warm) | write | process wall | peak (MiB) |",
        "|---|---|---:|---:|---:|---:|---:|---:|", *rows, "", search, "",
        "| search | configurations | seconds | best | nDCG@10 |", "|---|---:|---:|---|---|", *optimisation,
        *(f"\nDISAGREEMENT: {failure}" for failure in failures),
    ]))  # fmt: skip
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
