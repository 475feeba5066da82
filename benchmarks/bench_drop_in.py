"""Speed benchmark: ``rankwise trec_eval`` against the trec_eval 10 binary, on P1's TREC files.

Each command runs in its own process, one after the other, ``--repeat`` times; its wall-clock time and its peak
resident memory (reported by GNU ``time``, else the child's ``ru_maxrss``, which then also counts this process's
memory) are measured, and the medians reported. The
outputs of the two must be identical byte for byte (the exit status is 1 when they are not). Two command lines: the
summary (``-m ndcg_cut.10 -m map -m recip_rank -m P.10``, as issue #22 measures) and the same with ``-q`` (every
query's lines too). ``RANKWISE_THREADS`` is left as it is (every core by default); ``--threads 1`` times rankwise on
one core as well.

The binary: ``--trec-eval PATH``, else ``$TREC_EVAL``, else it is built from ``../shared/tools/trec_eval`` into
``benchmarks/data/trec_eval`` (``make``). The data: P1's generated files (``bench_trec.py``'s, reused when there).

Run from the repository root::

    python benchmarks/bench_drop_in.py                                    # 10,000 × 100, median of 5
    python benchmarks/bench_drop_in.py --queries 500 --docs 50 --repeat 1 # quick check
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench_trec import ROOT, compile_bytecode, dataset, log, processor, rankwise_executable, version

SHARED_SOURCE = ROOT.parent.parent / "shared" / "tools" / "trec_eval"
MEASURES = ("-m", "ndcg_cut.10", "-m", "map", "-m", "recip_rank", "-m", "P.10")


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mib: float
    output: bytes


TIME = shutil.which("time", path="/usr/bin:/bin")
"""GNU time, when installed: it reports its child's own peak RSS. A child's ``ru_maxrss`` from ``os.wait4`` would
count this Python process's memory too (Linux keeps the high-water mark of the process that forked across exec)."""


def run_once(command: list[str], env: dict[str, str] | None = None) -> Run:
    """Run ``command`` with its output to a temporary file; its wall time and its own peak RSS."""
    wrapped = [TIME, "-f", "%M", *command] if TIME else command
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(wrapped, stdout=out, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        error = process.stderr.read().decode(errors="replace") if process.stderr else ""
        if process.returncode != 0:
            raise RuntimeError(f"{' '.join(command)}: exit status {process.returncode}: {error.strip()[-400:]}")
        peak_kib = int(error.strip().splitlines()[-1]) if TIME else usage.ru_maxrss
        out.seek(0)
        return Run(seconds, peak_kib / 1024, out.read())


def median_run(command: list[str], repeat: int, label: str, env: dict[str, str] | None = None) -> tuple[Run, Run]:
    """(median time and median peak, the first run's output) over ``repeat`` runs."""
    runs = []
    for attempt in range(repeat):
        runs.append(run_once(command, env))
        log(f"  {label}: run {attempt + 1}/{repeat}: {runs[-1].seconds:.3f} s, {runs[-1].peak_mib:.0f} MiB")
    median = Run(statistics.median(r.seconds for r in runs), statistics.median(r.peak_mib for r in runs), b"")
    return median, runs[0]


def trec_eval_binary(given: str | None) -> Path:
    """The trec_eval binary: given, from $TREC_EVAL, or built from ../shared/tools/trec_eval (make)."""
    if given or os.environ.get("TREC_EVAL"):
        return Path(given or os.environ["TREC_EVAL"])
    built = ROOT / "data" / "trec_eval" / "trec_eval"
    if not built.exists():
        if not SHARED_SOURCE.exists():
            raise SystemExit(f"no trec_eval: give --trec-eval or TREC_EVAL, or put its source in {SHARED_SOURCE}")
        log(f"building trec_eval from {SHARED_SOURCE} …")
        shutil.copytree(SHARED_SOURCE, built.parent, dirs_exist_ok=True)
        subprocess.run(["make", "-C", str(built.parent)], check=True, capture_output=True)
    return built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5, help="runs per command, the median is shown (default: 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trec-eval", help="the trec_eval binary (default: $TREC_EVAL, else built from ../shared)")
    parser.add_argument("--threads", type=int, help="also time rankwise with RANKWISE_THREADS set to this")
    args = parser.parse_args(argv)
    compile_bytecode()
    binary = trec_eval_binary(args.trec_eval)
    data = dataset(ROOT / "data", args.queries, args.docs, args.seed)
    files = [str(data.qrels), str(data.run)]
    rows, failures = [], []
    for flags in ((), ("-q",)):
        shown = " ".join((*flags, *MEASURES))
        reference, first = median_run([str(binary), *flags, *MEASURES, *files], args.repeat, f"binary {shown}")
        variants = [("rankwise trec_eval", None)]
        if args.threads:
            variants.append((f"rankwise trec_eval, {args.threads} thread(s)",
                             {**os.environ, "RANKWISE_THREADS": str(args.threads)}))  # fmt: skip
        rows.append(f"| trec_eval 10 binary `{shown}` | {reference.seconds:.3f} | {reference.peak_mib:.0f} | 1.0 | 1.0 "
                    "| – |")  # fmt: skip
        for label, env in variants:
            command = [str(rankwise_executable()), "trec_eval", *flags, *MEASURES, *files]
            ours, our_first = median_run(command, args.repeat, f"{label} {shown}", env)
            same = our_first.output == first.output
            if not same:
                failures.append(f"{label} {shown}: output differs from the binary's")
            rows.append(f"| {label} `{shown}` | {ours.seconds:.3f} | {ours.peak_mib:.0f} | "
                        f"{reference.seconds / ours.seconds:.2f}× | {ours.peak_mib / reference.peak_mib:.2f}× | "
                        f"{'yes' if same else '**no**'} |")  # fmt: skip
    print("## rankwise trec_eval against the trec_eval 10 binary\n")
    print(f"- date: {datetime.date.today().isoformat()}; machine: {processor()}, {os.cpu_count()} CPUs, "
          f"{platform.system()}; Python {platform.python_version()}, rankwise {version('rankwise')}, numpy "
          f"{version('numpy')}, polars {version('polars')}")  # fmt: skip
    print(f"- data: {data.queries:,} queries × {data.docs} documents ({data.queries * data.docs:,} run lines); "
          f"each command in its own process, median of {args.repeat}; peak = its maximum resident set\n")
    print("| command | time (s) | peak (MiB) | speed-up over the binary | peak / binary's | output identical |")
    print("|---|---:|---:|---:|---:|---|")
    print("\n".join(rows))
    for failure in failures:
        print(f"\nDISAGREEMENT: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
