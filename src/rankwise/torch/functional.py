"""The functional API: per-query values of rankwise measures on a batch of slates, and their means.

A batch is ``scores [B, L]`` and ``labels [B, L]`` (integer grades), with ``mask [B, L]`` (False: padding) when slates
have different lengths. Row b is query b; its slate is every judged document of that query, so the ideal ranking and
R are over the slate (what LightGBM, XGBoost, scikit-learn, torchmetrics and allRank see). The values are
:func:`rankwise.evaluate`'s on the same data: queries ``q{b}``, the document at slate position i with a doc id whose
order is i (``docno_asc`` = position ascending), the labels as qrels grades, the scores as the run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import torch
from torch import Tensor

from rankwise.dialects import Dialect
from rankwise.errors import InputError
from rankwise.measures import Measure
from rankwise.policies import TiePolicy

from .families import FAMILIES, apply_empty
from .plan import TensorPlan, make_tensor_plan
from .ranking import Ranked, check_inputs, rank_slates

Measures = str | Measure | Iterable[str | Measure] | TensorPlan


def evaluate(
    scores: Tensor,
    labels: Tensor,
    measures: Measures,
    mask: Tensor | None = None,
    *,
    dialect: str | Dialect | None = None,
    ties: TiePolicy | str | None = None,
    rel_level: int = 1,
    dtype: torch.dtype | None = None,
    num_relevant: Tensor | None = None,
) -> dict[str, Tensor]:
    """Per-query values: measure key (as written) → tensor [B] on the scores' device, NaN where the measure is
    undefined for that query (``empty=skip`` without a relevant document; a row without any document).

    ``measures``: rankwise measure strings (``nDCG@10``, ``AP(denom=min_k_R)@5``), a dialect's own names
    (allRank's ``ndcg@5``), :class:`~rankwise.measures.Measure` objects, or a :class:`~rankwise.torch.plan.TensorPlan`
    made once by :func:`~rankwise.torch.plan.make_tensor_plan`. ``dialect`` (``"lightgbm"``, ``"xgboost"``,
    ``"sklearn"``, ``"torchmetrics"``, ``"allrank"``, ...) fills every parameter and policy not given, as for
    :func:`rankwise.evaluate`. ``ties``: ``input_order`` (the default here: slate position ascending), ``docno_asc``
    (the same), ``docno_desc`` (position descending; :func:`rankwise.evaluate`'s default), ``average`` (the
    expectation over the orders of tied documents: nDCG, DCG, P, R). ``dtype``: float32 (default) or float64, in
    which everything is computed. Scores are sorted as given (their own dtype).

    ``num_relevant`` [B]: each query's relevant judged documents (grade >= rel_level), in the slate or not, for
    trec_eval's judged universe (a slate of retrieved documents): R of AP, R, P(denom=min_k_R) and ``empty`` counts
    them unless a measure says ``universe=retrieved``; nDCG's judged ideal, which needs their grades, is refused."""
    plan = make_tensor_plan(measures, dialect=dialect, ties=ties, rel_level=rel_level)
    dtype = torch.float32 if dtype is None else dtype
    if dtype not in (torch.float32, torch.float64):
        raise InputError(f"dtype must be torch.float32 or torch.float64, not {dtype}")
    check_inputs(scores, labels, mask)
    valid = torch.ones_like(scores, dtype=torch.bool) if mask is None else mask
    if plan.padding_label is not None:
        valid = valid & (labels != plan.padding_label)
    if plan.float32_scores:
        scores = scores.to(torch.float32)
    ranked = rank_slates(scores.detach(), labels.detach(), valid, plan.ties, dtype, plan.reach)
    if num_relevant is not None:
        ranked = dataclasses.replace(ranked, judged_total=_checked_total(num_relevant, ranked, plan.rel_level),
                                     judged_total_rel=plan.rel_level)  # fmt: skip
    out: dict[str, Tensor] = {}
    done: dict[tuple[Measure, int], Tensor] = {}
    for key, measure in plan.pairs:
        rel = plan.rel(measure)
        if (measure, rel) not in done:
            done[measure, rel] = apply_empty(ranked, measure, rel, FAMILIES[measure.name](ranked, measure, rel))
        out[key] = done[measure, rel]
    return out


def mean(values: dict[str, Tensor]) -> dict[str, Tensor]:
    """Each measure's mean over the queries where it is defined (NaN values left out, as :func:`rankwise.evaluate`
    leaves undefined values out of its means); NaN when none is."""
    return {key: torch.nanmean(value) for key, value in values.items()}


def _checked_total(num_relevant: Tensor, ranked: Ranked, rel: int) -> Tensor:
    """``num_relevant`` in the compute dtype, refused unless one whole number per row, at least the relevant
    documents of the slate."""
    rows = ranked.n.shape[0]
    if num_relevant.shape != (rows,) or num_relevant.device != ranked.n.device:
        raise InputError(f"num_relevant must be one count per query: shape ({rows},) on {ranked.n.device}, not "
                         f"{tuple(num_relevant.shape)} on {num_relevant.device}")  # fmt: skip
    total = num_relevant.detach().to(ranked.dtype)
    short = (total < ranked.num_relevant(rel)) | (total != torch.round(total))
    if bool(short.any()):
        row = int(torch.nonzero(short)[0, 0])
        inside = int(ranked.num_relevant(rel)[row])
        raise InputError(f"num_relevant of row {row} is {float(total[row]):g}: a whole number, at least the "
                         f"{inside} documents of its slate with grade >= {rel}")  # fmt: skip
    return total
