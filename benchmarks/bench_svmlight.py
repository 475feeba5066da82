"""Speed benchmark: reading an SVMlight ranking file with rankwise against scikit-learn's (Cython) loader.

Generates (seeded, reused when already there) an MSLR-like file of ``--rows`` rows with ``qid:`` in groups
of 20-180 rows, each row with ``--nnz`` of ``--features`` features (1-based, sorted; half the values
integers up to 1000, half decimals with 6 digits: about 100 MB at the defaults), optionally with a LETOR
style trailing comment on every line (``--comments``). Then, in this one process, times

1. ``rankwise.ltr.read_svmlight(path)``,
2. ``sklearn.datasets.load_svmlight_file(path, query_id=True)``,

each the best of ``--repeat`` runs (the file is read once before timing, so both find it in the page
cache), checks that both give the same matrix, labels and qids, and prints a Markdown table with the
ratio. Progress goes to stderr.

Run from the repository root (needs scikit-learn)::

    python benchmarks/bench_svmlight.py                       # 200,000 rows × 60 of 136 features, best of 3
    python benchmarks/bench_svmlight.py --rows 20000 --repeat 1   # quick check

Options: ``--data-dir`` (default ``benchmarks/data/``, git-ignored), ``--seed``.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np

from rankwise.ltr import LtrData, read_svmlight, write_svmlight

ROOT = Path(__file__).resolve().parent


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def generate(path: Path, rows: int, nnz: int, features: int, seed: int, comments: bool) -> None:
    """Write the MSLR-like file with rankwise's writer (vectorised; no Python loop over rows)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(20, 181, size=rows // 20 + 1)
    sizes = sizes[: np.searchsorted(np.cumsum(sizes), rows) + 1]
    sizes[-1] -= sizes.sum() - rows
    # nnz distinct sorted columns per row: the smallest keys of a random matrix
    columns = np.sort(np.argpartition(rng.random((rows, features)), nnz, axis=1)[:, :nnz], axis=1)
    decimals = np.round(rng.random((rows, nnz)), 6)
    integers = rng.integers(0, 1000, size=(rows, nnz)).astype(np.float64)
    values = np.where(rng.random((rows, nnz)) < 0.5, decimals, integers)
    data = LtrData(
        labels=rng.choice(5, size=rows, p=[0.5, 0.25, 0.15, 0.07, 0.03]),
        qids=np.sort(rng.permutation(len(sizes) * 2)[: len(sizes)]) + 1,  # increasing, with gaps
        group_offsets=np.concatenate(([0], np.cumsum(sizes))),
        indptr=np.arange(rows + 1, dtype=np.int64) * nnz,
        indices=columns.reshape(-1),
        values=values.reshape(-1),
        num_features=features,
    )
    write_svmlight(data, path)
    if comments:
        lines = path.read_bytes().split(b"\n")
        tail = b" #docid = GX000-00-0000000 inc = 1 prob = 0.0246906"
        path.write_bytes(b"\n".join(line + tail if line else line for line in lines))


def best_of(repeat: int, function: Callable[[], object]) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        result = None
        gc.collect()
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--nnz", type=int, default=60, help="nonzero features per row")
    parser.add_argument("--features", type=int, default=136)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--comments", action="store_true", help="a trailing # comment on every line")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "data")
    args = parser.parse_args()
    from sklearn.datasets import load_svmlight_file

    args.data_dir.mkdir(parents=True, exist_ok=True)
    suffix = "_comments" if args.comments else ""
    path = args.data_dir / f"svmlight2_{args.rows}x{args.nnz}of{args.features}_seed{args.seed}{suffix}.txt"
    if not path.exists():
        log(f"generating {path} ...")
        start = time.perf_counter()
        generate(path, args.rows, args.nnz, args.features, args.seed, args.comments)
        log(f"  written in {time.perf_counter() - start:.1f} s")
    size_mb = path.stat().st_size / 1e6
    path.read_bytes()  # into the page cache

    log("rankwise.ltr.read_svmlight ...")
    ours_s, data = best_of(args.repeat, lambda: read_svmlight(path, num_features=args.features))
    log("sklearn.datasets.load_svmlight_file ...")
    theirs_s, (X, y, qid) = best_of(
        args.repeat, lambda: load_svmlight_file(str(path), n_features=args.features, query_id=True, zero_based=False)
    )
    assert isinstance(data, LtrData)
    assert (data.to_scipy() != X).nnz == 0 and data.to_scipy().shape == X.shape, "matrices differ"
    assert np.array_equal(data.labels, y) and np.array_equal(data.qids[data.row_groups()], qid), "labels/qids differ"

    threads = os.environ.get("POLARS_MAX_THREADS", "all")
    print(
        f"SVMlight file: {path.name}: {size_mb:.0f} MB, {data.num_rows:,} rows, {data.num_groups:,} queries, "
        f"{data.nnz:,} nonzeros; best of {args.repeat}"
    )
    print(
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs (polars threads: {threads}), "
        f"Python {platform.python_version()}, polars {metadata.version('polars')}, "
        f"numpy {np.__version__}, scikit-learn {metadata.version('scikit-learn')}"
    )
    print()
    print("| reader | seconds | MB/s | speed-up |")
    print("|---|---:|---:|---:|")
    print(f"| rankwise `read_svmlight` | {ours_s:.2f} | {size_mb / ours_s:.0f} | {theirs_s / ours_s:.1f}× |")
    print(f"| scikit-learn `load_svmlight_file` | {theirs_s:.2f} | {size_mb / theirs_s:.0f} | 1.0× |")
    print()
    print("Same matrix, labels and qids: yes")


if __name__ == "__main__":
    main()
