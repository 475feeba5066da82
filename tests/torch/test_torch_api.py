"""rankwise.torch's API: the accumulator over batches equals one evaluation of all the queries, plans are made once,
values stay on the device (CUDA when there is one), and without PyTorch the import fails in one line."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
import torch
from torch_slates import assert_same, engine_values, random_batch

import rankwise.torch as rt
from rankwise.errors import RankwiseError

MEASURES = ["nDCG@10", "AP", "RR@5", "P@5", "R@10", "HitRate@3", "ERR@10", "nDCG(empty=skip)@5"]


def test_the_accumulator_over_batches_equals_the_engine_over_all_queries() -> None:
    scores, labels, mask = random_batch(21, queries=90)
    accumulator = rt.RankingMeasures(MEASURES, dialect="lightgbm", dtype=torch.float64)
    for start in range(0, 90, 32):  # batches of 32, 32 and 26 queries
        part = slice(start, start + 32)
        accumulator.update(scores[part], labels[part], mask[part])
    assert len(accumulator) == 90
    expected = engine_values(scores, labels, mask, MEASURES, dialect="lightgbm")
    assert_same(accumulator.per_query(), expected, 1e-12)
    means = accumulator.compute()
    for key, values in expected.items():
        defined = values[~(values != values)]
        assert means[key].item() == pytest.approx(float(defined.mean()), abs=1e-12)
    accumulator.reset()
    assert len(accumulator) == 0 and accumulator.per_query()["AP"].numel() == 0
    assert math.isnan(accumulator.compute()["AP"].item())


def test_a_plan_is_made_once_and_reused() -> None:
    plan = rt.make_tensor_plan(["ndcg@5", "mrr"], dialect="allrank")
    assert [str(m) for _, m in plan.pairs] == ["nDCG(gain=exp2,universe=retrieved,empty=one)@5", "RR(empty=one)"]
    scores, labels, mask = random_batch(2)
    again = rt.evaluate(scores, labels, ["ndcg@5", "mrr"], mask, dialect="allrank")
    assert_same(rt.evaluate(scores, labels, plan, mask), {k: v.numpy() for k, v in again.items()}, 0.0)
    assert rt.make_tensor_plan(plan) is plan


def test_values_are_float32_unless_float64_is_asked_and_need_no_gradient() -> None:
    scores = torch.rand(4, 6, requires_grad=True)
    labels = torch.randint(0, 3, (4, 6))
    assert rt.evaluate(scores, labels, "nDCG@3")["nDCG@3"].dtype == torch.float32
    assert rt.evaluate(scores, labels, "nDCG@3", dtype=torch.float64)["nDCG@3"].dtype == torch.float64
    assert not rt.evaluate(scores, labels, "nDCG@3")["nDCG@3"].requires_grad
    with pytest.raises(RankwiseError, match="dtype"):
        rt.evaluate(scores, labels, "nDCG@3", dtype=torch.float16)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here: the CUDA check runs where there is one")
def test_cuda_equals_cpu() -> None:
    scores, labels, mask = random_batch(13, queries=500, width=40)
    for ties in ("input_order", "docno_desc", "average"):
        measures = [m for m in MEASURES if ties != "average" or m.startswith(("nDCG", "P", "R@"))]
        cpu = rt.evaluate(scores, labels, measures, mask, ties=ties, dtype=torch.float64)
        cuda = rt.evaluate(scores.cuda(), labels.cuda(), measures, mask.cuda(), ties=ties, dtype=torch.float64)
        assert all(value.device.type == "cuda" for value in cuda.values())
        assert_same({k: v.cpu() for k, v in cuda.items()}, {k: v.numpy() for k, v in cpu.items()}, 1e-12)


def test_without_torch_the_import_says_how_to_install_it_in_one_line() -> None:
    code = "import sys; sys.modules['torch'] = None\ntry:\n    import rankwise.torch\n"
    code += "except ImportError as e:\n    print(type(e).__name__, '|', e)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("TorchMissingError | rankwise.torch needs PyTorch: pip install '.[torch]'")
    assert done.stdout.count("\n") == 1


def test_importing_rankwise_does_not_import_torch() -> None:
    code = "import sys, rankwise; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"
