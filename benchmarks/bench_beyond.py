"""Beyond-accuracy measures against the accuracy ones, on bench_recs.py's data (U users × 20 shuffled recommendations
over 50,000 items) plus 20 random training items per user: whole ``rankwise.evaluate`` calls, median of 3. The
co-occurrence measures (ILD, Serendipity) run up to 200k users only; Unexpectedness compares the lists with
themselves as the baseline.

Run from the repository root after ``python benchmarks/bench_recs.py --users U`` has written the data::

    python benchmarks/bench_beyond.py 100000
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

import rankwise

DATA = Path(__file__).resolve().parent / "data"
ACCURACY = ["nDCG@10", "AP@10", "RR@10", "HitRate@10", "P@10", "R@10"]
GLOBAL = ["Coverage@10", "Gini@10", "Entropy@10"]
BEYOND = [*GLOBAL, "Novelty@10", "SelfInformation@10", "ARP@10", "LongTail@10"]


def main() -> None:
    users = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    truth = pl.read_parquet(DATA / f"recs_truth_{users}.parquet")
    recs = pl.read_parquet(DATA / f"recs_lists_{users}.parquet")
    rng = np.random.default_rng(0)
    train = pl.DataFrame({"user_id": np.repeat(np.arange(users), 20),
                          "item_id": rng.integers(0, 50_000, users * 20)}).unique()  # fmt: skip
    cases = {
        "six accuracy measures, --dialect replay": (ACCURACY, {"dialect": "replay"}),
        "Coverage + Gini + Entropy, catalog=": (GLOBAL, {"catalog": 50_000}),
        "seven beyond-accuracy measures, train=": (BEYOND, {"train": train}),
        "six accuracy measures, --dialect replay, train=": (ACCURACY, {"dialect": "replay", "train": train}),
    }
    if users <= 200_000:  # co-occurrence similarity grows with the co-occurring pairs: 20 M lists rows take minutes
        cases["ILD + Serendipity by item co-occurrence, train="] = (["ILD@10", "Serendipity@10"], {"train": train})
    cases["Serendipity(definition=popularity_rank) + Unexpectedness, train=, baseline="] = (
        ["Serendipity(definition=popularity_rank)@10", "Unexpectedness@10"], {"train": train, "baseline": recs})
    for name, (measures, options) in cases.items():
        times = []
        for _ in range(3):
            start = time.perf_counter()
            rankwise.evaluate(truth, recs, measures, **options)
            times.append(time.perf_counter() - start)
        print(f"| {users:,} | {name} | {statistics.median(times):.2f} |", flush=True)


if __name__ == "__main__":
    main()
