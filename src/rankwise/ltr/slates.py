"""Training batches for the neural rankers: groups of rows as padded ``[B, L]`` batches, on the training device.

Two layouts hold the training data (``NeuralConfig.layout``):

- ``"packed"`` (the default on the CPU): the rows stay in their CSR order on the device; each step's real rows are
  found on the host (numpy) from the group sizes and scored as ``[N, features]``, then padded. No work is spent on
  padding, which is what a CPU pays for; this is the path rankwise has always run, number for number.
- ``"slates"`` (the default elsewhere, e.g. CUDA): the data is moved to the device once as padded slates —
  features ``[groups, L, features]`` and labels ``[groups, L]``, padding 0, ``L`` the longest group — with the
  group sizes. A step draws its groups by an index tensor that is on the device already (the epoch's shuffled
  order, copied once per epoch), gathers ``[B, width, features]`` (``width``: the batch's longest group, known on
  the host from the sizes without reading the device), and builds its mask on the device. Nothing is copied or
  read back per step, and no gradient flows through an index (no ``index_put``).

**Memory guard.** Padding to the longest group can cost far more than the rows themselves (one group of 10^5
documents among groups of 10). Slates are padded only while the padded cells ``groups × L`` are at most
:data:`PADDING_LIMIT` times the rows (and twice their size fits in the host's memory and, on CUDA, in the GPU's
free memory); past that, the rows are kept on the device in their CSR layout and each step gathers its
``[B, width]`` rows by an index built on the device (padding reads an extra row of zeros). Both give the same
batch tensors, value for value, so the choice never changes a result. (``benchmarks/bench_neural.py --mslr``:
18,919 queries of 1 to 240 documents pad to 1.99× their rows, so they are padded.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .limits import physical_memory
from .losses import require_torch

if TYPE_CHECKING:
    from torch import Tensor

LAYOUTS = ("auto", "packed", "slates")
PADDING_LIMIT = 2.0
"""Slates are padded to the longest group while ``groups × L <= PADDING_LIMIT × rows``; past it the rows are
gathered from the CSR layout on the device."""
BATCH_GROUPS = {"cpu": 32}
"""Groups per step when ``batch_groups`` is not given, by device type; any other device (CUDA) takes
:data:`ACCELERATOR_BATCH_GROUPS`."""
ACCELERATOR_BATCH_GROUPS = 256


def default_batch_groups(device: Any) -> int:
    """Groups per optimiser step for ``device``: 32 on the CPU (small steps, as rankwise always took), 256 on an
    accelerator (a step of 32 groups leaves a GPU waiting on kernel launches)."""
    return BATCH_GROUPS.get(device.type, ACCELERATOR_BATCH_GROUPS)


def resolve_layout(layout: str, device: Any) -> str:
    """``"auto"`` → ``"packed"`` on the CPU, ``"slates"`` on any other device; otherwise as given."""
    if layout == "auto":
        return "packed" if device.type == "cpu" else "slates"
    return layout


class Batch(NamedTuple):
    """One optimiser step's ``groups`` groups. ``features`` is ``[B, L, F]`` (``packed`` False) or the real rows
    ``[N, F]`` in row-major order of ``mask`` (``packed`` True, their scores to be padded with :func:`padded`)."""

    groups: int
    features: Tensor
    labels: Tensor
    mask: Tensor
    packed: bool


def padded(values: Tensor, mask: Tensor) -> Tensor:
    """``[B, L, ...]`` with ``values`` (one per real item in row-major order of ``mask``: scores ``[N]``, or feature
    rows ``[N, F]``, their trailing dimensions kept) at the mask's True places and 0 elsewhere."""
    torch = require_torch()
    extra = tuple(values.shape[1:])
    wide = mask.reshape(*mask.shape, *(1,) * len(extra))
    return torch.zeros((*mask.shape, *extra), dtype=values.dtype, device=values.device).masked_scatter(wide, values)


def _starts(count: int, batch_groups: int) -> np.ndarray:
    return np.arange(0, count, batch_groups)


class PackedRows:
    """The ``"packed"`` layout: rows ``[rows, F]`` on the device, each step's rows and mask built on the host."""

    def __init__(self, features: np.ndarray, labels: np.ndarray, offsets: np.ndarray, device: Any) -> None:
        torch = require_torch()
        self.features = torch.from_numpy(features).to(device)
        self.labels = torch.from_numpy(labels.astype(np.float32)).to(device)
        self.offsets = offsets
        self.sizes = np.diff(offsets)
        self.description = f"packed ({features.shape[0]} rows scored as they are, padded per step)"

    def epoch(self, order: np.ndarray, batch_groups: int) -> Iterator[Batch]:
        torch = require_torch()
        device = self.features.device
        for start in _starts(order.shape[0], batch_groups):
            groups = order[start : start + batch_groups]
            sizes = self.sizes[groups]
            positions = np.arange(max(int(sizes.max()), 1))
            mask = positions[None, :] < sizes[:, None]
            rows = torch.from_numpy((self.offsets[groups][:, None] + positions[None, :])[mask]).to(device)
            mask_t = torch.from_numpy(mask).to(device)
            yield Batch(groups.shape[0], self.features[rows], padded(self.labels[rows], mask_t), mask_t, True)


class DeviceSlates:
    """The ``"slates"`` layout: the data on the device once, batches drawn by index and masked on the device.

    Padded ``[groups, L, F]`` when that costs at most ``padding_limit`` times the rows (and fits in this machine's
    memory), else the CSR rows with a trailing row of zeros, gathered by ``[B, width]`` row indices per step."""

    def __init__(
        self,
        features: np.ndarray,
        labels: np.ndarray,
        offsets: np.ndarray,
        device: Any,
        *,
        padding_limit: float | None = None,
    ) -> None:
        torch = require_torch()
        padding_limit = PADDING_LIMIT if padding_limit is None else padding_limit
        rows, width = features.shape
        self.sizes = np.diff(offsets)
        groups, longest = self.sizes.shape[0], max(int(self.sizes.max()), 1)
        cells = groups * longest
        memory = physical_memory()  # the slates are built on the host, then copied
        if device.type == "cuda":
            memory = min(memory or 2**62, torch.cuda.mem_get_info(device)[0])
        self.padded = cells <= padding_limit * max(rows, 1) and (memory is None or 2 * cells * width * 4 < memory)
        self.sizes_t = torch.from_numpy(self.sizes).to(device)
        self.positions = torch.arange(longest, device=device)
        y = labels.astype(np.float32)
        if self.padded:
            group = np.repeat(np.arange(groups), self.sizes)
            within = np.arange(rows) - np.repeat(offsets[:-1], self.sizes)
            slate_x = np.zeros((groups, longest, width), dtype=np.float32)
            slate_y = np.zeros((groups, longest), dtype=np.float32)
            slate_x[group, within], slate_y[group, within] = features, y
            self.features, self.labels = torch.from_numpy(slate_x).to(device), torch.from_numpy(slate_y).to(device)
            self.description = f"slates (padded [{groups}, {longest}, {width}] on the device)"
        else:
            zero_x, zero_y = np.zeros((1, width), dtype=np.float32), np.zeros(1, dtype=np.float32)
            self.features = torch.from_numpy(np.concatenate([features, zero_x])).to(device)
            self.labels = torch.from_numpy(np.concatenate([y, zero_y])).to(device)
            self.starts = torch.from_numpy(offsets[:-1].copy()).to(device)
            self.description = (f"slates (rows gathered on the device: padding to {longest} would take "
                                f"{cells / max(rows, 1):.1f}× the {rows} rows)")  # fmt: skip

    def epoch(self, order: np.ndarray, batch_groups: int) -> Iterator[Batch]:
        """The epoch's batches: ``order`` goes to the device once; each step reads nothing back."""
        torch = require_torch()
        order_t = torch.from_numpy(order).to(self.sizes_t.device)
        starts = _starts(order.shape[0], batch_groups)
        widths = np.maximum(np.maximum.reduceat(self.sizes[order], starts), 1) if order.shape[0] else starts
        for start, width in zip(starts, widths):
            groups = order_t[start : start + batch_groups]
            positions = self.positions[: int(width)]
            mask = positions[None, :] < self.sizes_t[groups][:, None]
            if self.padded:
                features, labels = self.features[groups, : int(width)], self.labels[groups, : int(width)]
            else:
                rows = torch.where(mask, self.starts[groups][:, None] + positions[None, :], self.labels.shape[0] - 1)
                features, labels = self.features[rows], self.labels[rows]
            yield Batch(groups.shape[0], features, labels, mask, False)


def training_batches(
    layout: str, features: np.ndarray, labels: np.ndarray, offsets: np.ndarray, device: Any
) -> PackedRows | DeviceSlates:
    """The training data on ``device`` in ``layout`` (``"packed"`` or ``"slates"``)."""
    if layout == "packed":
        return PackedRows(features, labels, offsets, device)
    return DeviceSlates(features, labels, offsets, device)
