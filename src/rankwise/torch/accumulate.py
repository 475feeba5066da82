"""An accumulator for validation loops: measures resolved once, batches of queries added one at a time, means and
per-query values at the end. Plain PyTorch, no torchmetrics: usable in a Lightning ``validation_step`` /
``on_validation_epoch_end`` pair or any loop."""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import Tensor

from rankwise.dialects import Dialect
from rankwise.measures import Measure
from rankwise.policies import TiePolicy

from .functional import evaluate, mean
from .plan import make_tensor_plan


class RankingMeasures:
    """Per-query values of ``measures`` over every batch given to :meth:`update` since the last :meth:`reset`.

    >>> measures = RankingMeasures(["nDCG@10", "RR"], dialect="lightgbm")   # doctest: +SKIP
    >>> for scores, labels, mask in loader: measures.update(model(x), labels, mask)   # doctest: +SKIP
    >>> measures.compute()   # {"nDCG@10": tensor(0.61), "RR": tensor(0.48)}   # doctest: +SKIP

    The arguments are those of :func:`rankwise.torch.evaluate`; the measures are parsed and bound once, here. Values
    are kept detached, on the device of the batches (move them with :meth:`per_query` if needed)."""

    def __init__(
        self,
        measures: str | Measure | Iterable[str | Measure],
        *,
        dialect: str | Dialect | None = None,
        ties: TiePolicy | str | None = None,
        rel_level: int = 1,
        dtype: torch.dtype | None = None,
    ) -> None:
        self.plan = make_tensor_plan(measures, dialect=dialect, ties=ties, rel_level=rel_level)
        self.dtype = dtype
        self._parts: dict[str, list[Tensor]] = {key: [] for key, _ in self.plan.pairs}

    def update(
        self, scores: Tensor, labels: Tensor, mask: Tensor | None = None, num_relevant: Tensor | None = None
    ) -> dict[str, Tensor]:
        """Add a batch of queries; returns its per-query values."""
        values = evaluate(scores, labels, self.plan, mask, dtype=self.dtype, num_relevant=num_relevant)
        for key, value in values.items():
            self._parts[key].append(value.detach())
        return values

    def per_query(self) -> dict[str, Tensor]:
        """Every query's value so far, in the order added (empty tensors before any update)."""
        return {key: torch.cat(parts) if parts else torch.empty(0, dtype=self.dtype or torch.float32)
                for key, parts in self._parts.items()}  # fmt: skip

    def compute(self) -> dict[str, Tensor]:
        """Each measure's mean over the queries so far where it is defined (NaN left out)."""
        return mean(self.per_query())

    def reset(self) -> None:
        """Forget every query added."""
        for parts in self._parts.values():
            parts.clear()

    def __len__(self) -> int:
        """Queries added so far."""
        first = next(iter(self._parts.values()))
        return sum(len(part) for part in first)
