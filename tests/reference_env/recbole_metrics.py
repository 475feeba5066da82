"""RecBole 1.2.1's own evaluator on given top-k lists; runs in the reference environment (requirements.txt).

RecBole needs numpy < 1.24 (``np.float`` in recbole/evaluator/metrics.py), so the tests call this script with that
environment's python (``RANKWISE_REFERENCE_PYTHON``). Input on stdin, JSON::

    {"topk": [10, 20],
     "hits": [[0, 1, ...], ...],      # one row per user: 1 where the list's item at that rank is a positive
     "pos_len": [3, ...],             # the user's number of positive test items
     "scores": [[...], ...],          # optional: every candidate's score (GAUC, and top-k from the scores)
     "positive": [[0, 5], ...]}       # optional: positions of the positives in "scores"

Output on stdout, JSON: ``per_user`` {"precision@10": [...], ...} from each metric's ``metric_info`` (the
per-user matrix RecBole averages), ``mean`` from ``Evaluator.evaluate`` (RecBole's own averaging), and with
scores: ``gauc`` (Evaluator), ``gauc_per_user`` (GAUC.metric_info on one user; null where RecBole drops the
user) and ``mean_from_scores`` (the top-k metrics after RecBole's own ``torch.topk`` of the scores).

The "rec.topk" tensor is built as ``Collector.eval_batch_collect`` builds it (positives at each rank, then the
number of positives), but from the given lists, so the lists' order is used, not torch.topk's order of ties.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import torch
from recbole.evaluator import Collector, Evaluator
from recbole.evaluator.metrics import GAUC, MAP, MRR, NDCG, Hit, Precision, Recall

TOPK_METRICS = {"precision": Precision, "recall": Recall, "map": MAP, "ndcg": NDCG, "mrr": MRR, "hit": Hit}
NEEDS_POS_LEN = {"recall", "map", "ndcg"}


def config(metrics: list[str], topk: list[int]) -> dict:
    return {
        "metrics": metrics,
        "topk": topk,
        "eval_args": {"mode": "full"},
        "device": torch.device("cpu"),
        "metric_decimal_place": 15,
    }


def main() -> None:
    data = json.load(sys.stdin)
    topk = data["topk"]
    hits = torch.tensor(data["hits"], dtype=torch.int)
    pos_len = torch.tensor(data["pos_len"], dtype=torch.int).reshape(-1, 1)
    cfg = config(list(TOPK_METRICS), topk)
    struct = Collector(cfg).get_data_struct()
    struct.update_tensor("rec.topk", torch.cat((hits[:, : max(topk)], pos_len), dim=1))
    out: dict = {"mean": dict(Evaluator(cfg).evaluate(struct)), "per_user": {}}
    for name, cls in TOPK_METRICS.items():
        metric = cls(cfg)
        pos_index, lengths = metric.used_info(struct)
        values = metric.metric_info(pos_index, lengths) if name in NEEDS_POS_LEN else metric.metric_info(pos_index)
        for k in topk:
            out["per_user"][f"{name}@{k}"] = values[:, k - 1].tolist()
    if "scores" in data:
        # -inf: RecBole's [PAD] item 0 and each user's train items (full_sort_predict's history mask); at least
        # one per row, as in RecBole, since GAUC counts the user's candidates with argmin (collector.py:186)
        width = max(len(row) for row in data["scores"]) + 1
        scores = torch.full((len(data["scores"]), width), -np.inf, dtype=torch.float64)
        for i, row in enumerate(data["scores"]):
            scores[i, : len(row)] = torch.tensor(row, dtype=torch.float64)
        positive_u = torch.tensor([i for i, row in enumerate(data["positive"]) for _ in row], dtype=torch.long)
        positive_i = torch.tensor([j for row in data["positive"] for j in row], dtype=torch.long)
        cfg_all = config([*TOPK_METRICS, "gauc"], topk)
        collector = Collector(cfg_all)
        collector.eval_batch_collect(scores, None, positive_u, positive_i)
        struct = collector.get_data_struct()
        result = dict(Evaluator(cfg_all).evaluate(struct))
        out["gauc"] = result.pop("gauc")
        out["mean_from_scores"] = result
        mean_rank = struct.get("rec.meanrank").numpy()
        per_user = []
        for pos_rank_sum, user_len, n_pos in mean_rank:
            if n_pos == 0 or user_len - n_pos == 0:
                per_user.append(None)  # RecBole leaves the user out of GAUC
            else:
                one = GAUC(cfg_all).metric_info(np.array([[pos_rank_sum]]), np.array([user_len]), np.array([n_pos]))
                per_user.append(float(one))
        out["gauc_per_user"] = per_user
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
