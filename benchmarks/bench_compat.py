"""Speed and memory benchmark (issue #23): the compat modules against the libraries they stand in for, on BEIR-shaped
``{query_id: {doc_id: value}}`` dicts.

The data, built in each child from ``--seed`` (not timed): a run of Q queries × D documents (ids ``doc<number>`` drawn
without repeats from a 5M-document corpus, float64 scores in [0, 1)), and qrels with 1–5 relevant documents per query
(grades 1–2), about two in three of them retrieved, as BEIR hands ``pytrec_eval`` its retrieval results. Sizes
(``--sizes``): 1,000 × 1,000 (BEIR's top-1000 retrieval) and 10,000 × 100.

Pairs, each tool in its own child process (its peak RSS is its own; the library is imported before the data is
built), measuring ndcg_cut.10, map, recip_rank and P.10 or their names in each library:

- ``pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)`` (pytrec-eval-terrier) against
  ``rankwise.compat.pytrec_eval``'s, every query's values compared (1e-6: pytrec_eval ranks float32 scores);
- ``ranx.evaluate(Qrels(qrels), Run(run), ["ndcg@10", "map", "mrr", "precision@10"])`` against
  ``rankwise.compat.ranx``'s (1e-9), the first call in the process shown apart (ranx's numba JIT, compiled into an
  empty cache), ``Qrels``/``Run`` built from the dicts inside the timed call;
- ``ir_measures.calc_aggregate([nDCG@10, AP, RR, P@10], qrels, run)`` against ``rankwise.compat.ir_measures``'s
  (1e-6: its default provider is pytrec_eval).

Each child makes one first call, then ``--repeat`` timed calls (the median is reported). A disagreement beyond the
tolerance, or a tool that fails, makes the exit status 1; a peer that is not installed is only reported. The report
(Markdown) goes to stdout, progress to stderr.

Run from the repository root (peers: ``pip install -e '.[bench,test]'``)::

    python benchmarks/bench_compat.py                                   # 1,000 × 1,000 and 10,000 × 100, median of 3
    python benchmarks/bench_compat.py --sizes 200x100 --repeat 1        # quick check
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench_trec import log, numba_cache, processor, version

CORPUS = 5_000_000
PACKAGES = ("rankwise", "numpy", "polars", "pytrec-eval-terrier", "ranx", "numba", "ir-measures")
Dicts = dict[str, dict[str, Any]]
Values = dict[str, float]


def make_data(queries: int, docs: int, seed: int) -> tuple[Dicts, Dicts]:
    """(qrels, run) as BEIR gives them to pytrec_eval: ``{query: {doc: grade}}`` and ``{query: {doc: score}}``."""
    rng = np.random.default_rng(seed)
    steps = rng.integers(1, CORPUS // (2 * docs), (queries, docs + 5))  # distinct ids per query: increasing numbers
    numbers = rng.integers(0, CORPUS // 2, (queries, 1)) + steps.cumsum(axis=1)
    order = rng.permuted(np.tile(np.arange(docs + 5), (queries, 1)), axis=1)  # retrieved first, then 5 unretrieved
    numbers = np.take_along_axis(numbers, order, axis=1)
    scores = rng.random((queries, docs)).tolist()
    relevant = rng.integers(1, 6, queries).tolist()
    unretrieved = (rng.random((queries, 5)) < 1 / 3).tolist()
    grades = rng.integers(1, 3, (queries, 5)).tolist()
    names = [[f"doc{n}" for n in row] for row in numbers.tolist()]
    run = {f"q{q}": dict(zip(names[q][:docs], scores[q])) for q in range(queries)}
    qrels = {}
    for q in range(queries):
        picked = [names[q][docs + i] if unretrieved[q][i] else names[q][i * max(1, docs // 5)] for i in
                  range(relevant[q])]  # fmt: skip
        qrels[f"q{q}"] = dict(zip(picked, grades[q]))
    return qrels, run


PYTREC_MEASURES = {"ndcg_cut.10", "map", "recip_rank", "P.10"}
RANX_METRICS = ["ndcg@10", "map", "mrr", "precision@10"]


def per_query(module: Any) -> Callable[[Dicts, Dicts], Values]:
    """A tool computing pytrec_eval's ``RelevanceEvaluator(qrels, measures).evaluate(run)``: every query's values."""

    def compute(qrels: Dicts, run: Dicts) -> Values:
        result = module.RelevanceEvaluator(qrels, PYTREC_MEASURES).evaluate(run)
        return {f"{q} {m}": float(v) for q, row in result.items() for m, v in row.items()}

    return compute


def ranx_means(module: Any) -> Callable[[Dicts, Dicts], Values]:
    """A tool computing ranx's ``evaluate(Qrels(qrels), Run(run), metrics)``: the mean of each metric."""

    def compute(qrels: Dicts, run: Dicts) -> Values:
        scores = module.evaluate(module.Qrels(qrels), module.Run(run), RANX_METRICS)
        return {m: float(scores[m]) for m in RANX_METRICS}

    return compute


def ir_measures_means(module: Any) -> Callable[[Dicts, Dicts], Values]:
    """A tool computing ir_measures' ``calc_aggregate([nDCG@10, AP, RR, P@10], qrels, run)``."""

    def compute(qrels: Dicts, run: Dicts) -> Values:
        measures = [module.nDCG @ 10, module.AP, module.RR, module.P @ 10]
        return {str(m): float(v) for m, v in module.calc_aggregate(measures, qrels, run).items()}

    return compute


@dataclass(frozen=True)
class Tool:
    """One row of the report: a library's dict-of-dicts API, or the compat module standing in for it."""

    name: str
    label: str
    module: str
    """Imported before the data is built (not timed)."""
    package: str
    compute: Callable[[Any], Callable[[Dicts, Dicts], Values]]
    """Given the imported module, the timed call."""
    peer: str | None = None
    """For a compat module, the tool it stands in for (values compared, speed-up against)."""
    tolerance: float = 1e-9


TOOLS = {tool.name: tool for tool in (
    Tool("pytrec_eval", "pytrec_eval RelevanceEvaluator", "pytrec_eval", "pytrec-eval-terrier", per_query),
    Tool("rankwise-pytrec_eval", "rankwise.compat.pytrec_eval", "rankwise.compat.pytrec_eval", "rankwise", per_query,
         peer="pytrec_eval", tolerance=1e-6),
    Tool("ranx", "ranx evaluate (Qrels, Run from dicts)", "ranx", "ranx", ranx_means),
    Tool("rankwise-ranx", "rankwise.compat.ranx", "rankwise.compat.ranx", "rankwise", ranx_means, peer="ranx"),
    Tool("ir_measures", "ir_measures calc_aggregate", "ir_measures", "ir-measures", ir_measures_means),
    Tool("rankwise-ir_measures", "rankwise.compat.ir_measures", "rankwise.compat.ir_measures", "rankwise",
         ir_measures_means, peer="ir_measures", tolerance=1e-6),
)}  # fmt: skip

NOT_INSTALLED = 3
"""Exit status of a child whose library cannot be imported: reported, not a failure."""


def rss_mib() -> float:
    """Resident set size now (Linux), MiB."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * resource.getpagesize() / 2**20


def child(tool: Tool, queries: int, docs: int, repeat: int, seed: int) -> None:
    """Import, build the data, make the first call and ``repeat`` timed ones; print one JSON line."""
    with numba_cache(keep=False):  # ranx's first call compiles its kernels, as in a fresh environment
        try:
            module = importlib.import_module(tool.module)
        except ImportError as exc:
            print(f"not installed ({exc})", file=sys.stderr)
            sys.exit(NOT_INSTALLED)
        compute = tool.compute(module)
        qrels, run = make_data(queries, docs, seed)
        data_rss = rss_mib()
        seconds = []
        for _ in range(repeat + 1):
            start = time.perf_counter()
            values = compute(qrels, run)
            seconds.append(time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "data_rss": data_rss, "peak_rss": peak, "values": values}))


@dataclass
class Result:
    tool: Tool
    seconds: list[float] = field(default_factory=list)
    data_rss: float = 0.0
    peak_rss: float = 0.0
    values: Values = field(default_factory=dict)
    missing: str | None = None
    failed: str | None = None

    @property
    def warm(self) -> float:
        return statistics.median(self.seconds[1:])


def run_child(tool: Tool, queries: int, docs: int, repeat: int, seed: int) -> Result:
    command = [sys.executable, __file__, "--child", tool.name, "--sizes", f"{queries}x{docs}", "--repeat",
               str(repeat), "--seed", str(seed)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    lines = done.stderr.strip().splitlines()
    if done.returncode == NOT_INSTALLED:
        return Result(tool, missing=lines[-1] if lines else "not installed")
    if done.returncode != 0:
        return Result(tool, failed=lines[-1] if lines else f"exit status {done.returncode}")
    return Result(tool, **json.loads(done.stdout.strip().splitlines()[-1]))


def disagreement(ours: Result, theirs: Result) -> str | None:
    """Why the compat module's values differ from its peer's beyond the tolerance, or None."""
    if ours.values.keys() != theirs.values.keys():
        return f"different keys: {sorted(ours.values.keys() ^ theirs.values.keys())[:5]}"
    worst = max(ours.values, key=lambda k: _gap(ours.values[k], theirs.values[k]))
    gap = _gap(ours.values[worst], theirs.values[worst])
    if gap > ours.tool.tolerance:
        return f"{worst}: {ours.values[worst]!r} against {theirs.values[worst]!r} (difference {gap:.3g})"
    return None


def _gap(a: float, b: float) -> float:
    """|a − b|, 0 when both are NaN, infinite when one is."""
    if math.isnan(a) or math.isnan(b):
        return 0.0 if math.isnan(a) and math.isnan(b) else math.inf
    return abs(a - b)


def table(results: list[Result]) -> tuple[list[str], list[str]]:
    """(the Markdown table of one size, the failures found)."""
    by_name = {r.tool.name: r for r in results}
    rows = ["| tool | first call (s) | median (s) | peak RSS (MiB) | RSS over the data (MiB) | speed-up | peak / "
            "peer's | values |", "|---|---:|---:|---:|---:|---:|---:|---|"]  # fmt: skip
    failures = []
    for result in results:
        label = result.tool.label
        if result.missing or result.failed:
            rows.append(f"| {label} | {'not installed' if result.missing else '**failed**'}: "
                        f"{result.missing or result.failed} | | | | | | |")  # fmt: skip
            if result.failed:
                failures.append(f"{label}: {result.failed}")
            continue
        peer = by_name.get(result.tool.peer or "")
        speed, memory, agree = "–", "–", "reference"
        if peer is not None and peer.seconds:
            speed = f"{peer.warm / result.warm:.2f}×"
            memory = f"{result.peak_rss / peer.peak_rss:.2f}×"
            problem = disagreement(result, peer)
            agree = f"equal to {result.tool.tolerance:g} ({len(result.values):,} values)" if problem is None else (
                f"**differ**: {problem}")  # fmt: skip
            if problem:
                failures.append(f"{label} against {peer.tool.label}: {problem}")
        elif result.tool.peer:
            agree = "peer not run"
        rows.append(f"| {label} | {result.seconds[0]:.3f} | {result.warm:.3f} | {result.peak_rss:.0f} | "
                    f"{result.peak_rss - result.data_rss:.0f} | {speed} | {memory} | {agree} |")  # fmt: skip
    return rows, failures


def parse_sizes(text: str) -> list[tuple[int, int]]:
    sizes = [tuple(int(n) for n in part.lower().split("x")) for part in text.split(",") if part.strip()]
    if not sizes or any(len(s) != 2 or min(s) < 1 for s in sizes):
        raise SystemExit(f"--sizes: expected QUERIESxDOCS[,QUERIESxDOCS], got {text!r}")
    return [(s[0], s[1]) for s in sizes]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000x1000,10000x100", help="QUERIESxDOCS, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per tool after the first (median)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", choices=TOOLS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    sizes = parse_sizes(args.sizes)
    if args.child:
        child(TOOLS[args.child], *sizes[0], args.repeat, args.seed)
        return 0
    versions = ", ".join(f"{p} {version(p)}" for p in PACKAGES)
    report = [
        "## The compat modules against pytrec_eval, ranx and ir_measures, from dicts",
        "",
        f"- date: {datetime.date.today().isoformat()}; machine: {processor()}, {os.cpu_count()} CPUs, "
        f"{platform.system()}; Python {platform.python_version()}; {versions}",
        "- measures: ndcg_cut.10, map, recip_rank, P.10 (ranx: ndcg@10, map, mrr, precision@10; ir_measures: nDCG@10, "
        "AP, RR, P@10); each tool in its own process; first call: the first in that process (ranx's includes its "
        f"numba JIT); median of the {args.repeat} calls after it; speed-up = peer's median / compat module's",
    ]
    failures = []
    for queries, docs in sizes:
        results = []
        for tool in TOOLS.values():
            log(f"{queries} × {docs}: {tool.label} …")
            results.append(run_child(tool, queries, docs, args.repeat, args.seed))
        rows, found = table(results)
        report += ["", f"### {queries:,} queries × {docs:,} documents ({queries * docs:,} run entries)", "", *rows]
        failures += found
    report += [f"\nFAILED: {failure}" for failure in failures]
    print("\n".join(report))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
