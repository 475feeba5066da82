"""DaisyRec 2.3.0's own metric functions on given top-k lists; runs in the reference environment (requirements.txt).

DaisyRec's NDCG calls ``np.asfarray`` (removed in numpy 2.0), so the tests call this script with that environment's
python (``RANKWISE_REFERENCE_PYTHON``). Input on stdin, JSON::

    {"topk": [10, 20], "users": ["1", ...], "lists": [[item, ...], ...], "test_ur": {"1": [item, ...], ...}}

with item ids as integers (DaisyRec's encoded ids). Output on stdout, JSON: ``mean`` {"precision@10": x, ...}
from each function called as ``calc_ranking_results`` calls it (``pred_ur[:, :topk]`` for every test user:
DaisyRec's own mean), and ``per_user`` {"precision@10": [...]} from the same function called on one user at a
time (DaisyRec returns only means).
"""

from __future__ import annotations

import json
import math
import sys
import warnings

import numpy as np
from daisy.utils import metrics

FUNCTIONS = {
    "precision": metrics.Precision,
    "recall": metrics.Recall,
    "map": metrics.MAP,
    "ndcg": metrics.NDCG,
    "mrr": metrics.MRR,
    "hit": metrics.HR,
    "f1": metrics.F1,
    "auc": metrics.AUC,
}


def number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def main() -> None:
    data = json.load(sys.stdin)
    test_u = [int(u) for u in data["users"]]
    test_ur = {int(u): set(items) for u, items in data["test_ur"].items()}
    pred_ur = np.array(data["lists"], dtype=np.int64)
    out: dict = {"mean": {}, "per_user": {}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 for F1 and AUC without hits: DaisyRec's nan
        for k in data["topk"]:
            rank_list = pred_ur[:, :k]  # metrics.py calc_ranking_results
            for name, function in FUNCTIONS.items():
                out["mean"][f"{name}@{k}"] = number(function(test_ur, rank_list, test_u))
                out["per_user"][f"{name}@{k}"] = [
                    number(function(test_ur, rank_list[i : i + 1], [u])) for i, u in enumerate(test_u)
                ]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
