"""The benchmark suite of issues #10, #22 and #23 in one command: P1, the trec_eval drop-in, the compat modules, P2
with its scaling series, the beyond-accuracy measures, Spark, and the larger-than-memory case.

Runs, one after the other, each in its own process (so one part's memory never weighs on the next):

- P1 ``bench_trec.py``: TREC files of Q queries × D documents, rankwise API and CLI against pytrec_eval and ranx
  (warm and cold);
- drop-in ``bench_drop_in.py``: ``rankwise trec_eval`` against the trec_eval 10 binary (``$TREC_EVAL``, else built
  from ``../shared/tools/trec_eval``) on P1's files, each in its own process with its peak RSS, outputs compared
  byte for byte, on every core and on one;
- compat ``bench_compat.py``: ``rankwise.compat.pytrec_eval``, ``.ranx`` and ``.ir_measures`` against pytrec_eval,
  ranx (its first call and warm) and ir_measures on BEIR-shaped ``{query: {doc: value}}`` dicts (``--compat-sizes``,
  default 1,000 × 1,000 and 10,000 × 100), each tool in its own process with its peak RSS, values compared;
- P2 ``bench_recs.py``: recommendation lists of 0.1M, 1M and 5M users from DataFrames, rankwise against RePlay
  (polars and pandas), rs_metrics, MS Recommenders' python evaluation and torchmetrics, each tool in its own
  process with its peak RSS, values checked against rankwise under the matching dialect, time and bytes per row
  across the sizes;
- beyond ``bench_beyond.py``: the beyond-accuracy measures (with ``train=``) at the largest user count of P2;
- spark ``bench_spark.py``: P3, rankwise.spark against RePlay's Spark path on ``local[2]`` at that user count, wall
  and CPU seconds (needs pyspark; RePlay optional);
- large ``bench_large.py``: ``rankwise evaluate --stream`` on a generated run of G GB beside the trec_eval 10
  binary (built from ``../shared/tools/trec_eval`` when ``$TREC_EVAL`` is not set; means compared), with a smaller
  run evaluated both in memory and streamed (same output).

and prints one Markdown report (date, machine, versions of rankwise (git commit), numpy, polars and every peer, then
each part's medians, ratios and memory) to stdout, and to ``--output`` when given. Each part's progress goes to
stderr. The defaults are the issue's sizes and take one to two hours on a 2-core machine; generated data is kept in
``benchmarks/data/`` (git-ignored) and reused. The exit status is 1 when a part fails or finds values that disagree.

Run from the repository root (peers: ``pip install -e '.[bench,test]'`` brings pytrec_eval, ranx, rs_metrics and
torchmetrics; ``pip install --no-deps replay-rec recommenders`` the others, as ``.ci/run`` does)::

    python benchmarks/run_all.py --output benchmarks/report.md      # the issue's sizes
    python benchmarks/run_all.py --queries 500 --docs 50 --users 20000 --repeat 1 \\
        --gigabytes 0.02 --compare-gigabytes 0.02 --compat-sizes 200x100  # quick check of the whole suite
    python benchmarks/run_all.py --parts p2 --users 1000000         # one part
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench_trec import compile_bytecode, processor, version

HERE = Path(__file__).resolve().parent
PACKAGES = ("numpy", "polars", "pandas", "pytrec-eval-terrier", "ranx", "numba", "replay-rec", "rs-metrics",
            "recommenders", "torchmetrics", "torch", "ir-measures")  # fmt: skip
PARTS = ("p1", "drop-in", "compat", "p2", "beyond", "spark", "large")


DROP_IN_REPEATS = 11
"""Runs of each command of the drop-in part at least: a fresh process's 0.3 s varies by a tenth from run to run on a
shared machine, so the median of 3 can move a ratio by as much."""


@dataclass(frozen=True)
class Part:
    key: str
    title: str
    command: list[str]


def parts(args: argparse.Namespace) -> list[Part]:
    python = sys.executable
    every = {
        "p1": Part("p1", "P1: TREC files", [python, str(HERE / "bench_trec.py"), "--queries", str(args.queries),
                   "--docs", str(args.docs), "--repeat", str(args.repeat)]),
        "drop-in": Part("drop-in", "rankwise trec_eval against the trec_eval binary",
                        [python, str(HERE / "bench_drop_in.py"), "--queries", str(args.queries), "--docs",
                         str(args.docs), "--repeat", str(max(args.repeat, DROP_IN_REPEATS)), "--threads", "1"]),
        "compat": Part("compat", "The compat modules against pytrec_eval, ranx and ir_measures, from dicts",
                       [python, str(HERE / "bench_compat.py"), "--sizes", args.compat_sizes, "--repeat",
                        str(args.repeat)]),
        "p2": Part("p2", "P2: recommendation lists, with the scaling series", [python, str(HERE / "bench_recs.py"),
                   "--users", args.users, "--repeat", str(args.repeat), "--tools", args.tools,
                   "--peer-timeout", str(args.peer_timeout)]),
        "beyond": Part("beyond", "Beyond-accuracy measures at the largest user count",
                       [python, str(HERE / "bench_beyond.py"), str(max(int(u) for u in args.users.split(",")))]),
        "spark": Part("spark", "P3: Spark local[2]", [python, str(HERE / "bench_spark.py"), "--users",
                      str(max(int(u) for u in args.users.split(","))), "--repeat", str(args.repeat),
                      "--tools", "rankwise,rankwise-ndcg,replay"]),
        "large": Part("large", "Larger than memory, against the trec_eval binary",
                      [python, str(HERE / "bench_large.py"), "--gigabytes", str(args.gigabytes), "--compare-gigabytes",
                       str(args.compare_gigabytes), "--trec-eval", "auto"]),
    }  # fmt: skip
    return [every[key] for key in args.part_list]


def git_commit() -> str:
    """The checkout's commit, and whether tracked files differ from it (read-only git commands)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=HERE, capture_output=True, text=True,
                                check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    clean = subprocess.run(["git", "diff-index", "--quiet", "HEAD", "--"], cwd=HERE, capture_output=True).returncode
    return commit + ("" if clean == 0 else " with uncommitted changes")


def memory() -> str:
    try:
        info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
        return f"{int(info['MemTotal'].split()[0]) / 2**20:.0f} GB RAM"
    except (OSError, KeyError, ValueError):
        return "RAM unknown"


def header(argv: list[str]) -> list[str]:
    return [
        "# rankwise benchmark suite",
        "",
        f"- date: {datetime.datetime.now().isoformat(timespec='minutes')}",
        f"- machine: {processor()} / {platform.machine()}, {os.cpu_count()} CPUs, {memory()}, {platform.platform()}",
        f"- rankwise {version('rankwise')}, git commit {git_commit()}; Python {platform.python_version()}",
        "- " + ", ".join(f"{p} {version(p)}" for p in PACKAGES),
        f"- command: `{shlex.join(['python', 'benchmarks/run_all.py', *argv])}`",
    ]


def demoted(markdown: str) -> str:
    """A part's report with its headings one level down, under the suite's own."""
    return "\n".join("#" + line if line.startswith("#") else line for line in markdown.splitlines())


def run_part(part: Part) -> tuple[list[str], bool]:
    """(the part's section of the report, whether it succeeded)."""
    print(f"== {part.title}: {shlex.join(part.command)}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    done = subprocess.run(part.command, stdout=subprocess.PIPE, text=True, check=False)  # stderr: progress, as is
    minutes = (time.perf_counter() - start) / 60
    shown = shlex.join(["python", f"benchmarks/{Path(part.command[1]).name}", *part.command[2:]])
    lines = ["", f"## {part.title}", "", f"`{shown}` ({minutes:.1f} min)", ""]
    lines.append(demoted(done.stdout.strip()))
    if done.returncode != 0:
        lines += ["", f"**FAILED: exit status {done.returncode}** (see its messages on stderr)"]
    return lines, done.returncode == 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default=",".join(PARTS),
                        help="comma-separated parts to run (default: all of " + ",".join(PARTS) + ")")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per tool in P1 and P2 (default: 3)")
    parser.add_argument("--output", type=Path, help="also write the report to this file")
    p1 = parser.add_argument_group("P1, TREC files")
    p1.add_argument("--queries", type=int, default=10_000, help="queries (default: 10000)")
    p1.add_argument("--docs", type=int, default=100, help="ranked documents per query (default: 100)")
    compat = parser.add_argument_group("compat modules")
    compat.add_argument(
        "--compat-sizes",
        default="1000x1000,10000x100",
        help="QUERIESxDOCS of the dict inputs, comma-separated (default: 1000x1000,10000x100)",
    )
    p2 = parser.add_argument_group("P2, recommendation lists")
    p2.add_argument(
        "--users",
        default="100000,1000000,5000000",
        help="comma-separated user counts, the scaling series (default: 100000,1000000,5000000)",
    )
    p2.add_argument("--tools", default="all", help="bench_recs.py's tools (default: all; see its --help)")
    p2.add_argument(
        "--peer-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="a tool slower than this at one size is stopped and shown as '> N s' (default: 300)",
    )
    large = parser.add_argument_group("larger than memory")
    large.add_argument("--gigabytes", type=float, default=5.0, help="size of the streamed TREC run (default: 5)")
    large.add_argument("--compare-gigabytes", type=float, default=1.0,
                       help="size of the run evaluated both in memory and streamed, outputs compared (default: 1; "
                       "0 skips it)")  # fmt: skip
    args = parser.parse_args(argv)
    compile_bytecode()
    args.part_list = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = [p for p in args.part_list if p not in PARTS]
    if unknown or not args.part_list:
        parser.error(f"--parts: expected some of {', '.join(PARTS)}, got {args.parts!r}")
    if min(args.repeat, args.queries, args.docs) < 1 or args.gigabytes <= 0 or args.compare_gigabytes < 0:
        parser.error("--repeat, --queries, --docs and --gigabytes must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    report, ok = header(argv), True
    for part in parts(args):
        section, succeeded = run_part(part)
        report += section
        ok &= succeeded
        if args.output:  # written as the parts finish, so a long run leaves what it measured
            args.output.write_text("\n".join(report) + "\n")
    print("\n".join(report))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
