"""rankwise.torch under the torchmetrics dialect equals torchmetrics' own retrieval metrics (run here, with
``indexes``) where they are correct: tie-free scores, padded slates flattened to their documents. And torchmetrics
issue #3216: a 2-d input to the functional metrics is flattened into one ranking; rankwise.torch ranks each row."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import rankwise.torch as rt

torchmetrics = pytest.importorskip("torchmetrics", reason="torchmetrics is not installed (pip install torchmetrics)")
from torchmetrics import retrieval  # noqa: E402
from torchmetrics.functional.retrieval import retrieval_normalized_dcg  # noqa: E402

CLASSES = {
    "nDCG": retrieval.RetrievalNormalizedDCG,
    "AP": retrieval.RetrievalMAP,
    "RR": retrieval.RetrievalMRR,
    "P": retrieval.RetrievalPrecision,
    "R": retrieval.RetrievalRecall,
    "HitRate": retrieval.RetrievalHitRate,
}


def _batch(seed: int, graded: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Distinct scores per row (a random permutation, some negative), labels, about 20% padding."""
    g = torch.Generator().manual_seed(seed)
    queries, width = 300, 15
    scores = torch.stack([torch.randperm(width, generator=g) for _ in range(queries)]).double() - 4.0
    labels = torch.randint(0, 4 if graded else 2, (queries, width), generator=g)
    labels[:20] = 0  # queries without a relevant document
    mask = torch.rand(queries, width, generator=g) >= 0.2
    return scores, labels, mask


def _torchmetrics_per_query(cls: type, top_k: int | None, scores: torch.Tensor, labels: torch.Tensor,
                            mask: torch.Tensor) -> np.ndarray:  # fmt: skip
    """torchmetrics' value of each row, each row a query (``indexes``), padding left out."""
    rows = torch.arange(scores.shape[0]).unsqueeze(1).expand_as(scores)
    out = []
    for b in range(scores.shape[0]):  # one metric per query: its compute() is the per-query value
        metric = cls(top_k=top_k)
        keep = mask[b]
        metric.update(scores[b][keep], labels[b][keep] if cls is CLASSES["nDCG"] else labels[b][keep] > 0,
                      indexes=rows[b][keep])  # fmt: skip
        out.append(float(metric.compute()))
    return np.array(out)


@pytest.mark.parametrize("family", list(CLASSES))
@pytest.mark.parametrize("top_k", [None, 1, 5, 20])
def test_per_query_values_equal_torchmetrics(family: str, top_k: int | None) -> None:
    if family == "P" and top_k is None:
        pytest.skip("rankwise's P needs a cutoff (torchmetrics' P without top_k is P@|L|, a different measure per row)")
    scores, labels, mask = _batch(top_k or 0, graded=family == "nDCG")
    key = family + ("" if top_k is None else f"@{top_k}")
    got = rt.evaluate(scores, labels, key, mask, dialect="torchmetrics", ties="input_order", dtype=torch.float64)[key]
    expected = _torchmetrics_per_query(CLASSES[family], top_k, scores, labels, mask)
    assert np.allclose(got.numpy(), expected, atol=1e-6, rtol=0), np.abs(got.numpy() - expected).max()


def test_means_over_a_batch_equal_one_torchmetrics_metric_with_indexes() -> None:
    scores, labels, mask = _batch(7, graded=True)
    indexes = torch.arange(scores.shape[0]).unsqueeze(1).expand_as(scores)
    metric = retrieval.RetrievalNormalizedDCG(top_k=10)
    metric.update(scores[mask], labels[mask], indexes=indexes[mask])
    got = rt.mean(rt.evaluate(scores, labels, "nDCG@10", mask, dialect="torchmetrics", dtype=torch.float64))
    assert got["nDCG@10"].item() == pytest.approx(float(metric.compute()), abs=1e-6)


def test_issue_3216_two_dimensional_inputs_are_one_ranking_in_torchmetrics() -> None:
    # Lightning-AI/torchmetrics#3216: retrieval_normalized_dcg(preds [B, L], target [B, L]) flattens both into one
    # ranking of B·L documents instead of B queries
    preds = torch.tensor([[0.9, 0.1, 0.5], [0.2, 0.8, 0.3]])
    target = torch.tensor([[0, 1, 1], [1, 0, 0]])
    per_row = [float(retrieval_normalized_dcg(preds[b], target[b])) for b in range(2)]
    flattened = float(retrieval_normalized_dcg(preds.flatten(), target.flatten()))
    assert float(retrieval_normalized_dcg(preds, target)) == pytest.approx(flattened)
    assert flattened != pytest.approx(np.mean(per_row))  # torchmetrics' 2-d value is no per-query mean
    got = rt.evaluate(preds, target, "nDCG", dialect="torchmetrics", dtype=torch.float64)["nDCG"]
    assert got.tolist() == pytest.approx(per_row, abs=1e-7)
    # by hand: row 0 ranks labels [0, 1, 1]: DCG = 1/log2(3) + 1/log2(4), IDCG = 1 + 1/log2(3); row 1 ranks
    # [0, 0, 1]: DCG = 1/log2(4), IDCG = 1
    assert got[0].item() == pytest.approx((1 / np.log2(3) + 0.5) / (1 + 1 / np.log2(3)), abs=1e-12)
    assert got[1].item() == pytest.approx(0.5, abs=1e-12)
