"""RecBole 1.2.1's own beyond-accuracy metrics on given top-k lists; runs in the reference environment.

RecBole needs numpy < 1.24, so the tests call this script with that environment's python
(``RANKWISE_REFERENCE_PYTHON``, see recbole_metrics.py). Input on stdin, JSON, a list of cases::

    [{"topk": [5, 10],
      "tail_ratio": 0.1,                  # RecBole's config tail_ratio (null: TailPercentage's default, 0.1)
      "inter": [["u1", "i3"], ...],       # every interaction of the dataset, in its atomic file's order
      "train": [0, 2, ...],               # the rows of "inter" that form the training split
      "users": ["u1", ...],               # the test users, one list each
      "lists": [["i3", "i7", ...], ...]}, # each user's top max(topk) items, best first
     ...]

Each case runs RecBole's own pipeline: the interactions are written as an atomic file ``<name>.inter`` and loaded by
``create_dataset`` (ids remapped by ``pd.factorize`` in file order, item 0 the [PAD] token, dataset.py _remap); the
training split is ``dataset.copy(inter_feat[rows])`` as ``Dataset.build`` makes it (dataset.py:1785);
``Collector.data_collect`` takes ``data.num_items`` (``dataset.num``: the items + [PAD]) and ``data.count_items``
(``dataset.item_counter``: a Counter of the training rows' item ids) from it (collector.py:85-92); ``rec.items`` is
``torch.topk`` of a score matrix whose top k is each list (collector.py:151-157), item 0 at −inf as
``Trainer._full_sort_batch_eval`` sets it (trainer.py:537). ``Collector.get_data_struct`` itself fails with
ItemCoverage or GiniIndex in 1.2.1 (``.cpu()`` of the int ``data.num_items``, collector.py:227, RecBole issue
#2131): the script takes the deep copy that method returns without that call.

Output on stdout, JSON, one object per case: ``mean`` from ``Evaluator.evaluate`` (rounded to 15 places by
``metric_decimal_place``), ``raw`` the same numbers from each class's own method before that rounding
(get_coverage, get_gini, get_entropy; AveragePopularity and TailPercentage: the mean of metric_info), ``per_user``
(metric_info of AveragePopularity and TailPercentage, one row per user), ``num_items`` and ``id_tokens`` (the
external token of each internal item id, [PAD] first).
"""

from __future__ import annotations

import copy
import json
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import torch
from recbole.config import Config
from recbole.data import create_dataset
from recbole.evaluator import Collector, Evaluator
from recbole.evaluator.metrics import AveragePopularity, GiniIndex, ItemCoverage, ShannonEntropy, TailPercentage

METRICS = ["ItemCoverage", "AveragePopularity", "GiniIndex", "ShannonEntropy", "TailPercentage"]
DATASET = "case"


def load(inter: list[list[str]], folder: Path, config_dict: dict) -> tuple[Config, object]:
    """RecBole's Config and Dataset of the interactions, written as the atomic file ``folder/case/case.inter``."""
    (folder / DATASET).mkdir()
    lines = ["user_id:token\titem_id:token", *(f"{user}\t{item}" for user, item in inter)]
    (folder / DATASET / f"{DATASET}.inter").write_text("\n".join(lines) + "\n")
    config = Config(model="Pop", dataset=DATASET, config_dict={
        "data_path": str(folder), "checkpoint_dir": str(folder / "saved"), "use_gpu": False, "show_progress": False,
        "load_col": {"inter": ["user_id", "item_id"]}, "save_dataset": False, **config_dict})  # fmt: skip
    return config, create_dataset(config)


def run_case(case: dict, folder: Path) -> dict:
    topk = case["topk"]
    config, dataset = load(case["inter"], folder, {
        "metrics": METRICS, "topk": topk, "tail_ratio": case.get("tail_ratio"), "metric_decimal_place": 15,
        "eval_args": {"mode": "full", "split": {"RS": [0.8, 0.1, 0.1]}, "order": "RO", "group_by": "user"},
    })  # fmt: skip
    dataset._change_feat_format()  # what Dataset.build does before it splits (dataset.py:1806-1812)
    train = dataset.copy(dataset.inter_feat[torch.tensor(case["train"], dtype=torch.long)])
    collector = Collector(config)
    collector.data_collect(SimpleNamespace(dataset=train))
    num_items = dataset.num("item_id")
    token2id = dataset.field2token_id["item_id"]
    depth = max(topk)
    scores = torch.full((len(case["lists"]), num_items), -torch.inf, dtype=torch.float64)
    for row, items in enumerate(case["lists"]):
        assert len(items) == depth, "RecBole's rec.items holds max(topk) items for every user"
        scores[row, [token2id[item] for item in items]] = torch.arange(depth, 0, -1, dtype=torch.float64)
    scores[:, 0] = -torch.inf
    collector.eval_batch_collect(scores, None, torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.long))
    # Collector.get_data_struct calls .cpu() on every entry and fails on the int data.num_items (collector.py:227,
    # RecBole issue #2131, open): the struct it would return, a deep copy, everything already on the CPU
    struct = copy.deepcopy(collector.data_struct)
    tokens = [str(t) for t in dataset.field2id_token["item_id"]]
    out: dict = {"mean": dict(Evaluator(config).evaluate(struct)), "raw": {}, "per_user": {},
                 "num_items": int(num_items), "id_tokens": tokens}  # fmt: skip
    item_matrix = struct.get("rec.items").numpy()
    count_items = dict(struct.get("data.count_items"))
    popularity, tail = AveragePopularity(config), TailPercentage(config)
    per_user = {
        "averagepopularity": popularity.metric_info(popularity.get_pop(item_matrix, count_items)),
        "tailpercentage": tail.metric_info(tail.get_tail(item_matrix, count_items)),
    }
    for k in topk:
        top = item_matrix[:, :k]
        out["raw"][f"itemcoverage@{k}"] = float(ItemCoverage(config).get_coverage(top, num_items))
        out["raw"][f"giniindex@{k}"] = float(GiniIndex(config).get_gini(top, num_items))
        out["raw"][f"shannonentropy@{k}"] = float(ShannonEntropy(config).get_entropy(top))
        for name, values in per_user.items():
            out["raw"][f"{name}@{k}"] = float(values.mean(axis=0)[k - 1])
            out["per_user"][f"{name}@{k}"] = values[:, k - 1].tolist()
    return out


def main() -> None:
    results = []
    for case in json.load(sys.stdin):
        with tempfile.TemporaryDirectory() as folder:
            results.append(run_case(case, Path(folder)))
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
