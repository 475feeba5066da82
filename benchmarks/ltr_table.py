"""Train every rankwise ltr model on LightGBM's LambdaRank example and print the results table of
docs/getting-started/ltr.md.

Each row is a real run of the command shown (``rankwise ltr train``), evaluated on rank.test by
``rankwise ltr evaluate`` under the trec_eval and lightgbm dialects. As in LightGBM's own example, rank.test is
also the validation set that early stopping watches, so these are not held-out numbers.

    python benchmarks/ltr_table.py [--data ../shared/data/lambdarank] [--models lightgbm,mlp-listnet,...]

The whole table takes about 2 to 4 minutes on a 2-core machine; ``tests/ltr/test_ltr_readme.py`` reruns the cheap
rows (:data:`CHEAP`) with :func:`measure` and compares them with that page.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "lambdarank"
LGBM_EXAMPLE = ("-p num_leaves=31 -p min_data_in_leaf=50 -p bagging_freq=1 -p bagging_fraction=0.9 "
                "-p min_sum_hessian_in_leaf=5.0 -p learning_rate=0.01")  # fmt: skip
NEURAL = "--rounds 100 --early-stopping 10 --seed 0"
MODELS = {
    "lightgbm": f"--model lightgbm {LGBM_EXAMPLE} --rounds 100 --early-stopping 5",
    "xgboost-ndcg": "--model xgboost -p objective=rank:ndcg --rounds 100 --early-stopping 5 --seed 0",
    "xgboost-pairwise": "--model xgboost -p objective=rank:pairwise --rounds 100 --early-stopping 5 --seed 0",
    "linear-lambdarank": f"--model linear --loss lambdarank {NEURAL}",
    **{f"mlp-{loss}": f"--model mlp --loss {loss} {NEURAL}"
       for loss in ("mse", "sigmoid_ce", "ranknet", "listnet", "listmle", "lambdarank", "approxndcg")},
}  # fmt: skip
CHEAP = ("lightgbm", "mlp-approxndcg")
"""Rows that train in a few seconds: tests/ltr/test_ltr_readme.py reruns them."""
MEASURES = ["nDCG@1", "nDCG@3", "nDCG@5", "nDCG@10", "AP"]
DIALECTS = ("trec_eval", "lightgbm")
HEADER = ["model", "best iter", "train s"] + [f"{m} {d}" for d in DIALECTS for m in MEASURES]


@dataclass(frozen=True)
class Row:
    """One model's line of the table: best iteration, training seconds, and the measures of :data:`HEADER`
    (:data:`MEASURES` under each of :data:`DIALECTS`) as printed, to 4 decimals."""

    name: str
    best_iteration: int
    seconds: float
    values: tuple[str, ...]

    def markdown(self) -> str:
        return f"| {self.name} | {self.best_iteration} | {self.seconds:.1f} | " + " | ".join(self.values) + " |"


def rankwise(arguments: str) -> str:
    """Run ``rankwise ARGUMENTS`` (this Python's rankwise) and return its standard output."""
    command = [sys.executable, "-m", "rankwise", *shlex.split(arguments)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"failed: rankwise {arguments}\n{done.stderr}")
    return done.stdout


def measure(name: str, data: Path, folder: Path) -> Row:
    """Train model ``name`` (a key of :data:`MODELS`) on ``data``/rank.train into ``folder``, early stopping on
    rank.test, and evaluate it on rank.test under every dialect."""
    train, test, model = data / "rank.train", data / "rank.test", folder / name
    start = time.perf_counter()
    rankwise(f"ltr train {train} --valid {test} {MODELS[name]} -o {model} --quiet")
    seconds = time.perf_counter() - start
    best = json.loads((model / "rankwise-model.json").read_text())["best_iteration"]
    measures = " ".join(f"-m {m}" for m in MEASURES)
    values: list[str] = []
    for dialect in DIALECTS:
        result = json.loads(rankwise(f"ltr evaluate {model} {test} {measures} --dialect {dialect} --format json"))
        values += [f"{result['aggregate'][m]:.4f}" for m in MEASURES]
    return Row(name, best, seconds, tuple(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    commands = []
    with tempfile.TemporaryDirectory() as folder:
        for name in args.models.split(","):
            lines.append(measure(name, args.data, Path(folder)).markdown())
            commands.append(f"{name}: rankwise ltr train rank.train --valid rank.test {MODELS[name]} -o MODEL")
            print(lines[-1], flush=True)
    print("\n".join(["", *lines, "", *commands]))


if __name__ == "__main__":
    main()
