"""Shared by the rankwise.torch tests: random batches of slates with many ties, and the same data as qrels and a run
for :func:`rankwise.evaluate` (query q{b}; the document at slate position i has doc id f"{i:06d}", so doc-id order is
slate order)."""

from __future__ import annotations

import numpy as np
import torch

import rankwise


def random_batch(seed: int, queries: int = 40, width: int = 12, grades: int = 4, levels: int = 4,
                 pad: float = 0.25) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:  # fmt: skip
    """(scores float64 with few distinct values: many ties, labels int64 in 0..grades-1, mask with about ``pad``
    padding); some rows have no relevant document, one row no document at all."""
    g = torch.Generator().manual_seed(seed)
    scores = torch.randint(-1, levels, (queries, width), generator=g).double() / 2
    labels = torch.randint(0, grades, (queries, width), generator=g)
    labels[torch.rand(queries, generator=g) < 0.2] = 0  # queries without a relevant document
    mask = torch.rand(queries, width, generator=g) >= pad
    mask[0] = False  # a row without any document: no query
    return scores, labels, mask


def as_inputs(scores: torch.Tensor, labels: torch.Tensor, mask: torch.Tensor) -> tuple[dict, dict]:
    """The batch as qrels and run dicts (padding left out)."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for b in range(scores.shape[0]):
        cols = torch.nonzero(mask[b]).flatten().tolist()
        if cols:
            qrels[f"q{b}"] = {f"{i:06d}": int(labels[b, i]) for i in cols}
            run[f"q{b}"] = {f"{i:06d}": float(scores[b, i]) for i in cols}
    return qrels, run


def engine_values(scores: torch.Tensor, labels: torch.Tensor, mask: torch.Tensor, measures: list[str],
                  **options: object) -> dict[str, np.ndarray]:  # fmt: skip
    """rankwise.evaluate's per-query values on the batch, one array [B] per key, NaN for rows that are no query."""
    qrels, run = as_inputs(scores, labels, mask)
    per_query = rankwise.evaluate(qrels, run, measures, **options).per_query  # type: ignore[arg-type]
    return {key: np.array([per_query[f"q{b}"][key] if f"q{b}" in per_query else np.nan
                           for b in range(scores.shape[0])]) for key in measures}  # fmt: skip


def assert_same(torch_values: dict[str, torch.Tensor], engine: dict[str, np.ndarray], atol: float) -> None:
    """Equal per query within ``atol``, NaN in the same places."""
    for key, expected in engine.items():
        got = torch_values[key].cpu().double().numpy()
        assert np.array_equal(np.isnan(got), np.isnan(expected)), (key, got, expected)
        assert np.allclose(got, expected, atol=atol, rtol=0, equal_nan=True), (key, np.nanmax(np.abs(got - expected)))
