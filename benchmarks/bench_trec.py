"""Speed benchmark: rankwise against pytrec_eval and ranx on a synthetic TREC run.

Generates (seeded, reused when already there) a run of ``--queries`` queries × ``--docs`` documents and
its qrels as TREC text files, then times, in this one process, the evaluation of nDCG@10, AP, RR and P@10
from the files by:

1. the rankwise CLI end to end (``rankwise evaluate QRELS RUN -m … --format json`` as a subprocess),
2. the rankwise Python API (``rankwise.evaluate(qrels_path, run_path, measures)``),
3. pytrec_eval (``parse_qrel`` + ``parse_run`` + ``RelevanceEvaluator.evaluate`` + the means),
4. ranx (``Qrels.from_file`` + ``Run.from_file`` + ``ranx.evaluate``): ``import ranx`` and the first call
   in the process (cold: numba compiles its kernels), then again warm.

Warm timings are the median of ``--repeat`` runs; cold ranx is a single shot. Aggregate values are checked
across tools, and the start-up cost of the CLI is timed on the bundled example data. The report (a
Markdown table for docs/speed-notes.md) goes to stdout, progress to stderr.

Run from the repository root (needs the ``bench`` extra: pytrec-eval-terrier, ranx)::

    python benchmarks/bench_trec.py                                      # 10,000 × 100, median of 3
    python benchmarks/bench_trec.py --queries 500 --docs 50 --repeat 1   # quick check

Options: ``--data-dir`` (default ``benchmarks/data/``, git-ignored), ``--seed``, ``--keep-numba-cache``
(cold ranx then loads numba's on-disk cache instead of compiling from scratch).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np
import polars as pl

import rankwise

ROOT = Path(__file__).resolve().parent
Values = dict[str, float]
"""Aggregate value of each measure, keyed by its rankwise name."""


@dataclass(frozen=True)
class MeasureNames:
    """One measure under the name each tool gives it."""

    rankwise: str
    trec: str
    ranx: str


MEASURES = (
    MeasureNames("nDCG@10", "ndcg_cut_10", "ndcg@10"),
    MeasureNames("AP", "map", "map"),
    MeasureNames("RR", "recip_rank", "mrr"),
    MeasureNames("P@10", "P_10", "precision@10"),
)
TOLERANCE = 1e-9
"""rankwise must match pytrec_eval (and its own CLI) this closely on every aggregate."""

SCORE_STEP = 1 / 256
"""Scores are multiples of this: exact in float32 (trec_eval stores scores as C floats, rankwise as
float64, so both see the same ties) and printed exactly in the run file; ties happen a few times a query."""
GRADE_PROBABILITIES = (0.55, 0.25, 0.12, 0.08)
"""Chance of grade 0, 1, 2, 3 for a judged document."""
JUDGED_RETRIEVED = (15, 36)
JUDGED_UNRETRIEVED = (0, 11)
"""Judged documents per query, in the ranking and outside it (uniform in [low, high)): about 25 + 5 = 30."""
CORPUS_SIZE = 5_000_000


# --- data ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dataset:
    qrels: Path
    run: Path
    queries: int
    docs: int


def distinct_doc_numbers(rng: np.random.Generator, rows: int, per_row: int) -> np.ndarray:
    """``rows × per_row`` document numbers drawn from the corpus, distinct within each row."""
    numbers = rng.integers(0, CORPUS_SIZE, size=(rows, per_row))
    ordered = np.sort(numbers, axis=1)
    for row in np.flatnonzero((np.diff(ordered, axis=1) == 0).any(axis=1)):
        numbers[row] = rng.choice(CORPUS_SIZE, size=per_row, replace=False)
    return numbers


def random_mask(rng: np.random.Generator, shape: tuple[int, int], k: np.ndarray) -> np.ndarray:
    """Boolean mask with ``k[i]`` randomly placed True values in row ``i``."""
    positions = rng.random(shape).argsort(axis=1).argsort(axis=1)
    return positions < k[:, None]


def doc_ids(numbers: np.ndarray) -> pl.Expr:
    return pl.concat_str(pl.lit("doc"), pl.lit(numbers.reshape(-1)).cast(pl.String))


def qrels_rows(qids: np.ndarray, numbers: np.ndarray, grades: np.ndarray, judged: np.ndarray) -> pl.DataFrame:
    """Qrels lines (qid 0 docid grade) for the documents where ``judged``; arrays are queries × documents."""
    rows = np.nonzero(judged)
    return pl.select(
        qid=pl.lit(qids[rows[0]]), zero=pl.lit(0), docid=doc_ids(numbers[rows]), grade=pl.lit(grades[rows])
    )


def generate(qrels_path: Path, run_path: Path, queries: int, docs: int, seed: int) -> None:
    """Write a TREC run (ranked by score, relevant documents scoring higher on average) and its qrels."""
    rng = np.random.default_rng(seed)
    extra = JUDGED_UNRETRIEVED[1] - 1
    numbers = distinct_doc_numbers(rng, queries, docs + extra)
    retrieved, unretrieved = numbers[:, :docs], numbers[:, docs:]

    judged = random_mask(rng, (queries, docs), rng.integers(*JUDGED_RETRIEVED, size=queries))
    grades = rng.choice(len(GRADE_PROBABILITIES), size=(queries, docs), p=GRADE_PROBABILITIES)
    scores = rng.normal(10.0, 2.0, size=(queries, docs)) + 0.8 * np.where(judged, grades, 0)
    scores = (np.round(scores / SCORE_STEP) * SCORE_STEP).astype(np.float32)
    order = np.argsort(-scores, axis=1, kind="stable")
    retrieved, scores = np.take_along_axis(retrieved, order, 1), np.take_along_axis(scores, order, 1)
    judged, grades = np.take_along_axis(judged, order, 1), np.take_along_axis(grades, order, 1)

    qids = np.arange(1, queries + 1)
    run = pl.select(
        qid=pl.lit(np.repeat(qids, docs)),
        q0=pl.lit("Q0"),
        docid=doc_ids(retrieved),
        rank=pl.lit(np.tile(np.arange(1, docs + 1), queries)),
        score=pl.lit(scores.reshape(-1).astype(np.float64)),
        tag=pl.lit("bench"),
    )
    judged_outside = random_mask(rng, unretrieved.shape, rng.integers(*JUDGED_UNRETRIEVED, size=queries))
    grades_outside = rng.choice(len(GRADE_PROBABILITIES), size=unretrieved.shape, p=GRADE_PROBABILITIES)
    qrels = pl.concat(
        [
            qrels_rows(qids, ids, grade, mask)
            for ids, grade, mask in ((retrieved, grades, judged), (unretrieved, grades_outside, judged_outside))
        ]
    )
    qrels = qrels.sort("qid", "docid")
    write_trec(run, run_path)
    write_trec(qrels, qrels_path)


def write_trec(frame: pl.DataFrame, path: Path) -> None:
    """Space-separated, no header; written beside ``path`` and renamed, so a half-written file is never reused."""
    partial = path.with_suffix(".partial")
    frame.write_csv(partial, separator=" ", include_header=False, quote_style="never")
    partial.replace(path)


def dataset(data_dir: Path, queries: int, docs: int, seed: int) -> Dataset:
    """The generated files for these sizes and seed, generated only when missing."""
    stem = f"{queries}x{docs}_seed{seed}"
    data = Dataset(data_dir / f"qrels_{stem}.txt", data_dir / f"run_{stem}.txt", queries, docs)
    if data.qrels.exists() and data.run.exists():
        log(f"reusing {data.run} and {data.qrels}")
        return data
    log(f"generating {queries:,} queries × {docs} documents into {data_dir} …")
    data_dir.mkdir(parents=True, exist_ok=True)
    generate(data.qrels, data.run, queries, docs, seed)
    return data


# --- tools -----------------------------------------------------------------------------------------------


def compile_bytecode() -> None:
    """Write rankwise's bytecode (``__pycache__``) before anything is timed, as ``pip install`` does: where
    ``PYTHONDONTWRITEBYTECODE`` is set (the benchmark machine sets it) an editable checkout would otherwise compile
    every module a process imports, in every process (about 70 ms of a ``rankwise trec_eval`` run there)."""
    import compileall

    compileall.compile_dir(str(Path(rankwise.__file__).parent), quiet=1)


def rankwise_executable() -> Path:
    """The ``rankwise`` script installed beside this interpreter."""
    return Path(sys.executable).with_name("rankwise")


def cli_command(qrels: Path, run: Path) -> list[str]:
    measures = [arg for m in MEASURES for arg in ("-m", m.rankwise)]
    return [str(rankwise_executable()), "evaluate", str(qrels), str(run), *measures, "--format", "json"]


def rankwise_cli(qrels: Path, run: Path) -> Values:
    done = subprocess.run(cli_command(qrels, run), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ToolError(f"exit status {done.returncode}: {done.stderr.strip()[-500:]}")
    aggregate = json.loads(done.stdout)["aggregate"]
    return {m.rankwise: float(aggregate[m.rankwise]) for m in MEASURES}


def rankwise_api(qrels: Path, run: Path) -> Values:
    result = rankwise.evaluate(qrels, run, [m.rankwise for m in MEASURES])
    return {m.rankwise: result.aggregate[m.rankwise] for m in MEASURES}


def pytrec_eval_tool(qrels: Path, run: Path) -> Values:
    import pytrec_eval

    with open(qrels) as qrels_file, open(run) as run_file:
        judged, ranked = pytrec_eval.parse_qrel(qrels_file), pytrec_eval.parse_run(run_file)
    per_query = pytrec_eval.RelevanceEvaluator(judged, {m.trec for m in MEASURES}).evaluate(ranked)
    return {m.rankwise: float(np.mean([values[m.trec] for values in per_query.values()])) for m in MEASURES}


def ranx_tool(qrels: Path, run: Path) -> Values:
    import ranx

    scores = ranx.evaluate(
        ranx.Qrels.from_file(str(qrels), kind="trec"),
        ranx.Run.from_file(str(run), kind="trec"),
        [m.ranx for m in MEASURES],
    )
    return {m.rankwise: float(scores[m.ranx]) for m in MEASURES}


class ToolError(RuntimeError):
    """A tool could not be run; its row is reported as skipped."""


# --- timing ----------------------------------------------------------------------------------------------


@dataclass
class Timing:
    label: str
    seconds: float | None = None
    values: Values | None = None
    runs: list[float] = field(default_factory=list)
    skipped: str | None = None


def time_tool(label: str, tool: Callable[[Path, Path], Values], data: Dataset, repeat: int) -> Timing:
    """Median wall-clock time of ``repeat`` calls (each after a garbage collection); a failure skips the row.

    Tools import their library on first use, so a single call (cold ranx) includes the import.
    """
    timing = Timing(label)
    for attempt in range(repeat):
        gc.collect()
        start = time.perf_counter()
        try:
            values = tool(data.qrels, data.run)
        except (ToolError, FileNotFoundError) as exc:
            timing.skipped = str(exc)
            log(f"  {label}: skipped ({exc})")
            return timing
        timing.runs.append(time.perf_counter() - start)
        timing.values = values
        log(f"  {label}: run {attempt + 1}/{repeat}: {timing.runs[-1]:.3f} s")
    timing.seconds = statistics.median(timing.runs)
    return timing


def time_cli_startup(repeat: int) -> Timing:
    """Median of ``repeat`` CLI runs on the bundled example data: the fixed cost of one command."""
    examples = Path(rankwise.__file__).parent / "examples"
    data = Dataset(examples / "qrels.txt", examples / "run.txt", 0, 0)
    label = "rankwise CLI, bundled example (start-up)"
    if not (data.qrels.exists() and data.run.exists()):
        log(f"  {label}: skipped, no example data in {examples}")
        return Timing(label, skipped=f"no example data in {examples}")
    return time_tool(label, rankwise_cli, data, repeat)


@contextmanager
def numba_cache(keep: bool) -> Iterator[str]:
    """Point numba at an empty, temporary cache directory (unless ``keep``) so cold ranx really compiles.

    Must be entered before numba is imported; yields what the cold call includes, for the report.
    """
    if keep:
        yield "numba's on-disk cache as found"
        return
    with tempfile.TemporaryDirectory(prefix="bench-numba-") as directory:
        os.environ["NUMBA_CACHE_DIR"] = directory
        yield "numba JIT"


# --- report ----------------------------------------------------------------------------------------------


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def check_values(timings: list[Timing], reference: Timing) -> tuple[str, list[str]]:
    """Markdown table of the aggregates of every tool, and the failed agreement checks."""
    measured = [(t.label, t.values) for t in timings if t.values is not None]
    lines = [
        "| measure | " + " | ".join(label for label, _ in measured) + " | max diff to rankwise API |",
        "|---|" + "---:|" * (len(measured) + 1),
    ]
    failures = []
    for m in MEASURES:
        ref = reference.values[m.rankwise] if reference.values else float("nan")
        diffs = {label: abs(values[m.rankwise] - ref) for label, values in measured}
        worst = max((d, label) for label, d in diffs.items())
        cells = " | ".join(f"{values[m.rankwise]:.6f}" for _, values in measured)
        lines.append(f"| {m.rankwise} | {cells} | {worst[0]:.2e} ({worst[1]}) |")
        for label, diff in diffs.items():
            # ranx is reported, not checked: it breaks score ties by an unstable numba argsort (so in
            # whatever order the quicksort leaves them), not by doc id as trec_eval does, so documents
            # with equal scores may swap ranks and the cut-off and rank-based measures move slightly.
            if not label.startswith("ranx") and not diff <= TOLERANCE:
                failures.append(f"{m.rankwise}: {label} differs from rankwise API by {diff:.3e}")
    return "\n".join(lines), failures


def speed_up(timing: Timing, reference: Timing) -> str:
    if timing is reference:
        return "1.0 (reference)"
    if timing.seconds is None or reference.seconds is None or timing.label.startswith("rankwise"):
        return "–"
    return f"{timing.seconds / reference.seconds:.1f}×"


def timing_table(timings: list[Timing], reference: Timing) -> str:
    lines = ["| tool | time (s) | rankwise speed-up |", "|---|---:|---:|"]
    for t in timings:
        shown = f"{t.seconds:.3f}" if t.seconds is not None else f"skipped: {t.skipped}"
        lines.append(f"| {t.label} | {shown} | {speed_up(t, reference)} |")
    return "\n".join(lines)


def version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def processor() -> str:
    """``platform.processor()``, else the model name Linux reports."""
    name = platform.processor()
    cpuinfo = Path("/proc/cpuinfo")
    if (not name or name == platform.machine()) and cpuinfo.exists():
        models = [line.split(":", 1)[1] for line in cpuinfo.read_text().splitlines() if line.startswith("model name")]
        name = models[0].strip() if models else name
    return name or "unknown"


def environment(data: Dataset, repeat: int, cold_ranx: str) -> str:
    packages = ["rankwise", "numpy", "polars", "pytrec-eval-terrier", "ranx", "numba"]
    return "\n".join(
        [
            f"- date: {datetime.date.today().isoformat()}",
            f"- machine: {processor()} / {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
            f"- Python {platform.python_version()}; " + ", ".join(f"{p} {version(p)}" for p in packages),
            f"- data: {data.queries:,} queries × {data.docs} documents ({data.queries * data.docs:,} run lines); "
            f"measures {', '.join(m.rankwise for m in MEASURES)}",
            f"- warm times: median of {repeat}; cold ranx: one call, the first in the process ({cold_ranx}); "
            "every time includes reading the files",
            "- speed-up = tool time / rankwise API time",
        ]
    )


# --- main ------------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=ROOT / "data",
                        help="where the TREC files go (default: benchmarks/data/)")  # fmt: skip
    parser.add_argument("--queries", type=int, default=10_000, help="queries (default: 10000)")
    parser.add_argument("--docs", type=int, default=100, help="ranked documents per query (default: 100)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per warm timing, the median is shown (default: 3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated data (default: 0)")
    parser.add_argument("--keep-numba-cache", action="store_true", help="cold ranx may use numba's disk cache")
    args = parser.parse_args(argv)
    compile_bytecode()
    if min(args.queries, args.docs, args.repeat) < 1:
        parser.error("--queries, --docs and --repeat must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # ranx's nDCG kernel casts numba's uint64 query count to int64 on every call; harmless, silenced.
    warnings.filterwarnings("ignore", message="unsafe cast from uint64 to int64")
    data = dataset(args.data_dir, args.queries, args.docs, args.seed)
    with numba_cache(args.keep_numba_cache) as cache:
        log("timing (ranx first, so its first call is the first in the process) …")
        ranx_cold = time_tool(f"ranx (cold: import + first call, {cache})", ranx_tool, data, 1)
        ranx_warm = time_tool("ranx (warm)", ranx_tool, data, args.repeat)
    api = time_tool("rankwise API", rankwise_api, data, args.repeat)
    cli = time_tool("rankwise CLI (end to end)", rankwise_cli, data, args.repeat)
    pytrec = time_tool("pytrec_eval", pytrec_eval_tool, data, args.repeat)
    startup = time_cli_startup(5)

    values, failures = check_values([api, cli, pytrec, ranx_warm, ranx_cold], api)
    print(f"## P1: TREC files, rankwise against pytrec_eval and ranx\n\n{environment(data, args.repeat, cache)}\n")
    print(timing_table([api, cli, pytrec, ranx_warm, ranx_cold, startup], api) + "\n")
    print(
        "Aggregate values (ranx breaks score ties differently from trec_eval: its differences are shown, "
        f"not checked; the others must agree to {TOLERANCE:g}):\n"
    )
    print(values)
    for failure in failures:
        print(f"\nDISAGREEMENT: {failure}")
    return 1 if failures or api.values is None else 0


if __name__ == "__main__":
    sys.exit(main())
