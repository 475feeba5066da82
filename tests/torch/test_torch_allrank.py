"""The allrank dialect: allRank's own metrics.py (ndcg, dcg, mrr), run on random padded slates, equals rankwise.torch
and rankwise.evaluate under ``dialect="allrank"``; its known bugs shown; and its conventions pinned by hand.

allRank 1.4.3 pins numpy <= 1.21 and torchvision, so it is not installed: its metrics file is loaded from a checkout
(``RANKWISE_ALLRANK_PATH``: the repository root of allegro/allRank) with the installed torch, and the one name it
imports (``PADDED_Y_VALUE`` of allrank/data/dataset_loading.py, whose other imports need torchvision) is read from
that file's source."""

from __future__ import annotations

import ast
import importlib.util
import math
import os
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch_slates import engine_values

import rankwise.torch as rt
from rankwise.dialects import get_dialect


def _allrank_metrics() -> Any:
    root = os.environ.get("RANKWISE_ALLRANK_PATH")
    if not root:
        pytest.skip("RANKWISE_ALLRANK_PATH is not set (a checkout of github.com/allegro/allRank)")
    loading = Path(root) / "allrank" / "data" / "dataset_loading.py"
    assignments = [node for node in ast.parse(loading.read_text()).body if isinstance(node, ast.Assign)]
    padded = next(ast.literal_eval(n.value) for n in assignments if getattr(n.targets[0], "id", "") == "PADDED_Y_VALUE")
    stub = types.ModuleType("allrank.data.dataset_loading")
    stub.PADDED_Y_VALUE = padded  # type: ignore[attr-defined]
    saved = {name: sys.modules.get(name) for name in ("allrank", "allrank.data", "allrank.data.dataset_loading")}
    sys.modules.update({"allrank": types.ModuleType("allrank"), "allrank.data": types.ModuleType("allrank.data"),
                        "allrank.data.dataset_loading": stub})  # fmt: skip
    try:
        path = Path(root) / "allrank" / "models" / "metrics.py"
        spec = importlib.util.spec_from_file_location("allrank_metrics", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old
    return module


def _slates(seed: int, binary: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """allRank-style batches: distinct scores, labels 0..4 (or 0/1), padding at the end labelled -1, every slate with
    at least one item, some without a relevant one."""
    g = torch.Generator().manual_seed(seed)
    queries, width = 200, 20
    scores = torch.rand(queries, width, generator=g, dtype=torch.float64) * 4 - 1
    labels = torch.randint(0, 2 if binary else 5, (queries, width), generator=g)
    labels[torch.rand(queries, generator=g) < 0.15] = 0
    lengths = torch.randint(1, width + 1, (queries,), generator=g)
    mask = torch.arange(width) < lengths.unsqueeze(1)
    return scores, torch.where(mask, labels, torch.full_like(labels, -1)), mask


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ndcg_and_dcg_equal_allranks_own_code(seed: int) -> None:
    metrics = _allrank_metrics()
    scores, labels, mask = _slates(seed, binary=False)
    ats = [1, 3, 5, 10, 20, 30]
    ndcg = metrics.ndcg(scores.float(), labels.float(), ats=ats)
    dcg = metrics.dcg(scores.float(), labels.float(), ats=ats)
    names = [f"ndcg@{k}" for k in ats] + [f"dcg@{k}" for k in ats]
    got = rt.evaluate(scores, labels, names, dialect="allrank", dtype=torch.float64)
    plain = torch.where(mask, labels, torch.zeros_like(labels))
    engine = engine_values(scores, plain, mask, names, dialect="allrank", ties="input_order")
    for j, k in enumerate(ats):
        assert np.allclose(got[f"ndcg@{k}"].numpy(), ndcg[:, j].double().numpy(), atol=2e-6, rtol=0)
        assert np.allclose(got[f"dcg@{k}"].numpy(), dcg[:, j].double().numpy(), atol=0, rtol=2e-6)
        assert np.allclose(engine[f"ndcg@{k}"], ndcg[:, j].double().numpy(), atol=2e-6, rtol=0)
    assert (got["ndcg@5"][(plain > 0).sum(1) == 0] == 1).all()  # NDCG = 1 where the ideal DCG is 0
    float32 = rt.evaluate(scores.float(), labels, ["ndcg@10"], dialect="allrank")["ndcg@10"]
    assert torch.allclose(float32, ndcg[:, 3], atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_mrr_equals_allranks_on_binary_labels(seed: int) -> None:
    metrics = _allrank_metrics()
    scores, labels, _ = _slates(seed, binary=True)
    ats = [1, 2, 5, 20]
    mrr = metrics.mrr(scores.float(), labels.float(), ats=ats)
    got = rt.evaluate(scores, labels, [f"mrr@{k}" for k in ats], dialect="allrank", dtype=torch.float64)
    for j, k in enumerate(ats):
        assert np.allclose(got[f"mrr@{k}"].numpy(), mrr[:, j].double().numpy(), atol=1e-7, rtol=0)


def test_allranks_known_mrr_bugs_are_where_the_dialect_says() -> None:
    metrics = _allrank_metrics()
    scores = torch.tensor([[0.9, 0.5, 0.1], [0.3, 0.2, 0.1]])
    nothing = torch.tensor([[0.0, 0.0, -1.0], [0.0, 0.0, 0.0]])  # no slate of the batch has a relevant item
    assert metrics.mrr(scores, nothing).flatten().tolist() == [0.0, 0.0]
    assert rt.evaluate(scores, nothing, "mrr", dialect="allrank")["mrr"].tolist() == [1.0, 1.0]
    graded = torch.tensor([[1.0, 2.0, 0.0], [0.0, 1.0, 0.0]])  # allRank ranks the first item of the largest label
    assert metrics.mrr(scores, graded).flatten().tolist() == [0.5, 0.5]
    assert rt.evaluate(scores, graded, "mrr", dialect="allrank")["mrr"].tolist() == [1.0, 0.5]
    assert len(get_dialect("allrank").known_bugs) == 2


def test_allranks_conventions_pinned_by_hand() -> None:
    # allrank/models/metrics.py ndcg: gain_function 2^x - 1, idcg from the slate's own labels, filler_value 1.0 where
    # idcg == 0; __apply_mask_and_get_true_sorted_by_preds: label -1 (PADDED_Y_VALUE) is padding; mrr: 1/rank
    scores = torch.tensor([[0.1, 0.9, 0.5, 3.0], [0.4, 0.3, 0.2, 0.1]], dtype=torch.float64)
    labels = torch.tensor([[2, 0, 1, -1], [0, 0, -1, -1]])
    got = rt.evaluate(scores, labels, ["ndcg@3", "dcg@3", "mrr", "ndcg"], dialect="allrank", dtype=torch.float64)
    dcg = 0 + 1 / math.log2(3) + 3 / math.log2(4)  # ranked labels 0, 1, 2 (the padded item, scored 3.0, is none)
    assert got["dcg@3"].tolist()[0] == pytest.approx(dcg, abs=1e-12)
    assert got["ndcg@3"].tolist() == pytest.approx([dcg / (3 + 1 / math.log2(3)), 1.0], abs=1e-12)
    assert got["mrr"].tolist() == [0.5, 1.0]
    assert got["ndcg"].tolist() == got["ndcg@3"].tolist()
    binding = get_dialect("allrank").bindings
    assert binding["nDCG"] == {"gain": "exp2", "universe": "retrieved", "empty": "one"}
    assert binding["RR"] == {"empty": "one"} and get_dialect("allrank").policies["ties"] == "input_order"
