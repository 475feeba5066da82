"""Train every rankwise ltr model on LightGBM's LambdaRank example and print the README's results table.

Each row is a real run of the command shown (``rankwise ltr train``), evaluated on rank.test by
``rankwise ltr evaluate`` under the trec_eval and lightgbm dialects. As in LightGBM's own example, rank.test is
also the validation set that early stopping watches, so these are not held-out numbers.

    python benchmarks/ltr_table.py [--data ../shared/data/lambdarank] [--models lightgbm,mlp-listnet,...]
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import tempfile
import time
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
MEASURES = ["nDCG@1", "nDCG@3", "nDCG@5", "nDCG@10", "AP"]


def run(command: str) -> str:
    done = subprocess.run(shlex.split(command), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"failed: {command}\n{done.stderr}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    train, test = args.data / "rank.train", args.data / "rank.test"
    measures = " ".join(f"-m {m}" for m in MEASURES)
    header = ["model", "best iter", "train s"] + [f"{m} {d}" for d in ("trec_eval", "lightgbm") for m in MEASURES]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    commands = []
    with tempfile.TemporaryDirectory() as folder:
        for name in args.models.split(","):
            model = Path(folder) / name
            command = f"rankwise ltr train {train} --valid {test} {MODELS[name]} -o {model} --quiet"
            start = time.perf_counter()
            run(command)
            seconds = time.perf_counter() - start
            best = json.loads((model / "rankwise-model.json").read_text())["best_iteration"]
            values = []
            for dialect in ("trec_eval", "lightgbm"):
                out = run(f"rankwise ltr evaluate {model} {test} {measures} --dialect {dialect} --format json")
                aggregate = json.loads(out)["aggregate"]
                values += [f"{aggregate[m]:.4f}" for m in MEASURES]
            lines.append(f"| {name} | {best} | {seconds:.1f} | " + " | ".join(values) + " |")
            commands.append(f"{name}: rankwise ltr train rank.train --valid rank.test {MODELS[name]} -o MODEL")
            print(lines[-1], flush=True)
    print("\n".join(["", *lines, "", *commands]))


if __name__ == "__main__":
    main()
