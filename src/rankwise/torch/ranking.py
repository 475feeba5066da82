"""A batch of slates ranked once: scores sorted descending per row with the tie policy's order, labels gathered in
rank order, and what every measure family reads from them (relevant flags, R, the cutoff, tie-group means).

Slate position i (0-based) is the document of doc id order i: ``docno_asc`` orders tied documents by position
ascending (the same as ``input_order``), ``docno_desc`` and ``docno_desc_numeric`` by position descending (trec_eval's
default), ``average`` takes each measure's expectation over the orders of every group of tied documents. Padded
positions (``mask`` False) are no documents: they take no rank and count nowhere.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import torch
from torch import Tensor

from rankwise.errors import InputError
from rankwise.policies import TiePolicy


def check_inputs(scores: Tensor, labels: Tensor, mask: Tensor | None) -> None:
    """Refuse, in one line, inputs that are not one slate per row: shapes, devices, non-integer or NaN values."""
    if scores.dim() != 2:
        raise InputError(f"scores must be 2-d [queries, documents], not of shape {tuple(scores.shape)} (one query: "
                         "scores.unsqueeze(0))")  # fmt: skip
    for name, other in (("labels", labels), ("mask", mask)):
        if other is not None and other.shape != scores.shape:
            raise InputError(f"{name} must have the shape of scores {tuple(scores.shape)}, not {tuple(other.shape)}")
        if other is not None and other.device != scores.device:
            raise InputError(f"{name} is on {other.device}, scores on {scores.device}: put them on one device")
    if mask is not None and mask.dtype != torch.bool:
        raise InputError(f"mask must be a bool tensor (True: a document, False: padding), not {mask.dtype}")
    if not scores.is_floating_point():
        raise InputError(f"scores must be floating point, not {scores.dtype}")
    if labels.is_floating_point() and not bool(torch.all(labels == torch.round(labels))):
        row = int(torch.nonzero(labels != torch.round(labels))[0, 0])
        raise InputError(f"labels of row {row} are not whole numbers: a label is a relevance grade (an integer)")


@dataclass(frozen=True)
class Ranked:
    """Rows ranked: ``grade`` and ``score`` in rank order (padding, at the end, has grade 0), ``valid`` (a document
    at that rank), ``n`` (documents per row), ``rank`` (1..M, the compute dtype: M = L, or the candidates' width when
    no measure reads below a reach), ``group`` (with ``ties=average``: each rank's group of equal scores, numbered
    within the row); ``judged`` and ``judged_valid``: every document's grade and whether it is one, in slate order."""

    grade: Tensor
    score: Tensor
    valid: Tensor
    n: Tensor
    rank: Tensor
    group: Tensor | None
    judged: Tensor
    judged_valid: Tensor
    judged_total: Tensor | None = None
    """``num_relevant`` when given: R per row at ``judged_total_rel``, documents outside the slate included."""
    judged_total_rel: int = 1
    counts: dict[int, Tensor] = field(default_factory=dict, compare=False)
    """R per relevance threshold, computed once (:meth:`num_relevant`)."""

    @property
    def dtype(self) -> torch.dtype:
        return self.rank.dtype

    def relevant(self, rel: int) -> Tensor:
        """Documents with grade >= rel."""
        return self.valid & (self.grade >= rel)

    def num_relevant(self, rel: int) -> Tensor:
        """R per row: the slate's documents with grade >= rel (the slate is the query's judged documents)."""
        if rel not in self.counts:
            self.counts[rel] = (self.judged_valid & (self.judged >= rel)).sum(dim=1).to(self.dtype)
        return self.counts[rel]

    def head(self, cutoff: int | None, extra: int = 0) -> Ranked:
        """The top ``cutoff + extra`` ranks only (a view), for what reads nothing below the cutoff; the whole rows
        without a cutoff or under ``ties=average`` (a tie group's mean reads the documents it holds below k)."""
        if cutoff is None or self.group is not None or cutoff + extra >= self.rank.shape[0]:
            return self
        top = cutoff + extra
        return dataclasses.replace(self, grade=self.grade[:, :top], score=self.score[:, :top],
                                   valid=self.valid[:, :top], rank=self.rank[:top], group=None)  # fmt: skip

    def within(self, cutoff: int | None, extra: int = 0) -> Tensor:
        """Ranks inside the cutoff (every rank without one), documents only."""
        return self.valid if cutoff is None else self.valid & (self.rank <= cutoff + extra)

    def shown(self, cutoff: int | None) -> Tensor:
        """|L[:k]| per row: the length of the top-k list."""
        n = self.n.to(self.dtype)
        return n if cutoff is None else torch.clamp(n, max=float(cutoff))

    def tie_mean(self, values: Tensor) -> Tensor:
        """Each rank's value replaced by the mean over its group of tied documents (unchanged without
        ``ties=average``): summed over ranks, the expectation over every order of the tied documents."""
        if self.group is None:
            return values
        sums = torch.zeros_like(values).scatter_add_(1, self.group, values)
        counts = torch.zeros_like(values).scatter_add_(1, self.group, torch.ones_like(values))
        return (sums / counts.clamp(min=1)).gather(1, self.group)


def rank_slates(
    scores: Tensor, labels: Tensor, valid: Tensor, ties: TiePolicy, dtype: torch.dtype, reach: int | None = None
) -> Ranked:
    """Sort each row's documents by score descending, tied ones in the order of ``ties``; padding last.

    One stable sort per batch (``torch.sort(stable=True)``); ``docno_desc`` sorts the reversed slate. A second
    stable sort puts padding last only when a document itself scores −inf. With ``reach`` (no measure reads below
    rank ``reach``), only each row's candidates are sorted (:func:`_candidates`): the ranks past ``reach`` are then
    not the slate's, and R, |L| and the ideal ranking still come from the whole slate."""
    if bool(torch.any(torch.isnan(scores) & valid)):
        row = int(torch.nonzero(torch.isnan(scores) & valid)[0, 0])
        raise InputError(f"scores of row {row} hold NaN: a document needs a score")
    reverse = ties in (TiePolicy.DOCNO_DESC, TiePolicy.DOCNO_DESC_NUMERIC)
    key = torch.where(valid, scores, torch.full_like(scores, -torch.inf))
    minus_inf = bool(torch.any(valid & (scores == -torch.inf)))
    columns = _candidates(key, valid, reach) if reach is not None and not minus_inf else None
    if columns is None:
        order = _stable_order(key, reverse)
        if minus_inf and not bool(torch.all(valid)):
            by_valid = torch.sort(valid.gather(1, order).to(torch.int8), dim=1, descending=True, stable=True)
            order = order.gather(1, by_valid.indices)
    else:
        order = columns.gather(1, _stable_order(key.gather(1, columns), reverse))
    n = valid.sum(dim=1)
    width = order.shape[1]
    zero = torch.zeros((), dtype=dtype, device=scores.device)
    rank = torch.arange(1, width + 1, device=scores.device, dtype=dtype)
    in_slate = torch.arange(width, device=scores.device) < n.unsqueeze(1)
    grade = torch.where(in_slate, labels.gather(1, order).to(dtype), zero)
    score = scores.gather(1, order)
    group = None
    if ties is TiePolicy.AVERAGE:
        starts = torch.ones_like(in_slate)
        starts[:, 1:] = (score[:, 1:] != score[:, :-1]) | (in_slate[:, 1:] != in_slate[:, :-1])
        group = torch.cumsum(starts.to(torch.int64), dim=1) - 1
    judged = grade if columns is None else torch.where(valid, labels.to(dtype), zero)
    return Ranked(grade, score, in_slate, n, rank, group, judged, in_slate if columns is None else valid)


def _stable_order(key: Tensor, reverse: bool) -> Tensor:
    """Columns of ``key`` by value descending, equal values by column (ascending, or descending with ``reverse``)."""
    width = key.shape[1]
    order = torch.sort(key.flip(1) if reverse else key, dim=1, descending=True, stable=True).indices
    return (width - 1) - order if reverse else order


def _candidates(key: Tensor, valid: Tensor, reach: int) -> Tensor | None:
    """Per row, the columns (ascending) of every document scored at least its ``reach``-th largest score, padded with
    other columns to a common width M (they rank below those, past ``reach``); None when M is not well below the
    slate's width (sorting everything is then as fast). Every document that can rank within ``reach`` under any tie
    order is a candidate, and so is the whole group of equal scores at the boundary (for ``ties=average``)."""
    width = key.shape[1]
    if reach * 4 > width:
        return None
    top = torch.topk(key, reach, dim=1)
    wanted = int((valid & (key >= top.values[:, -1:])).sum(dim=1).max())
    if wanted * 2 > width:
        return None
    columns = top.indices if wanted <= reach else torch.topk(key, wanted, dim=1, sorted=False).indices
    return torch.sort(columns, dim=1).values
