"""Kernels of the overlap measures (RBO, LIP) on the :class:`~rankwise.engine.aligned.Aligned` arrays: each user's
top k against the user's reference list, another model's list given as ``baseline=``.

Both read, per run row, the position of its item in the user's reference list (:func:`reference_positions`); each
line names the part of LensKit 2025.8's ``lenskit.metrics.reranking`` (src/lenskit/metrics/reranking/_rbo.py,
_lip.py) it reproduces. The formulas are documented in :mod:`rankwise.measures.overlap`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..engine.aligned import Aligned
from ..errors import MeasureError
from ..io.table import DOCID, QID, ROW, VALUE
from ..measures.spec import Measure
from .common import Kernel, check_choices

_POSITION = "position"


def reference_positions(a: Aligned, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    """(per run row: π, the 1-based position of the row's item in its user's reference list B, 0 when B does not
    hold it; per query: |B|, 0 for a user without a reference list). B is the user's list in ``baseline=``, score
    descending, equal scores in input order (as Unexpectedness reads it); only the users of these queries are
    read. A one-line error naming the measure when no baseline was given."""
    training = a.training
    baseline = training.baseline if training is not None else None
    if baseline is None:
        raise MeasureError(f"{m} compares each list with a reference list: pass baseline= (--baseline RUN)")
    assert a.doc is not None, "aligned without doc ids"
    users = pl.Series(QID, a.query_ids, dtype=pl.String)
    ranked = (baseline.frame.select(pl.col(QID).cast(pl.String), pl.col(DOCID).cast(pl.String), ROW, VALUE)
              .filter(pl.col(QID).is_in(users.implode()))
              .sort([QID, VALUE, ROW], descending=[False, True, False])
              .with_columns((pl.int_range(pl.len()).over(QID) + 1).alias(_POSITION)))  # fmt: skip
    lengths = (pl.DataFrame({QID: users}).join(ranked.group_by(QID).len(), on=QID, how="left", maintain_order="left")
               .get_column("len").fill_null(0).to_numpy().astype(np.int64))  # fmt: skip
    rows = pl.DataFrame({QID: users.gather(a.qidx), DOCID: a.doc_id_series().cast(pl.String).gather(a.doc)})
    found = rows.join(ranked.select(QID, DOCID, _POSITION), on=[QID, DOCID], how="left", maintain_order="left")
    return found.get_column(_POSITION).fill_null(0).to_numpy().astype(np.int64), lengths


def rank_biased_overlap(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """RBO@k = Σ_{d=1..k} w_d A_d / Σ_{d=1..k} w_d (normalise=weights; series: × (1 − p) instead of ÷ Σ w_d),
    w_d = p^{d−1}, A_d = |L[:d] ∩ B[:d]| / d (Webber, Moffat & Zobel, TOIS 2010; LensKit rank_biased_overlap,
    _rbo.py:41-58). An item at rank r of L and position π of B is in both prefixes from depth max(r, π) on, so it
    adds Σ_{d=max(r,π)..k} w_d / d: one pass over the rows, no loop over depths. An empty list or reference scores 0
    (the intersections are empty, as in LensKit)."""
    check_choices(m, {"normalise": ("weights", "series")})
    k = int(m.cutoff)  # type: ignore[arg-type]  # the family requires a cutoff
    p = float(m.get("p"))  # type: ignore[arg-type]  # a float with a default
    if m.get("normalise") == "series" and p >= 1:
        raise MeasureError(f"{m}: normalise=series divides by 1/(1 − p): give p < 1")
    position, _ = reference_positions(a, m)
    depth = np.arange(1, k + 1, dtype=np.float64)
    weight = p ** (depth - 1)  # GeometricRankWeight(p).weight(1..n), _rbo.py:43
    from_depth = np.cumsum((weight / depth)[::-1])[::-1]  # from_depth[j − 1] = Σ_{d=j..k} w_d / d
    both = np.maximum(a.rank, position)
    shared = (position > 0) & (both <= k)  # overlap = |intersect1d(reference[:d], reranked[:d])|, _rbo.py:50-52
    added = np.zeros(len(both))
    added[shared] = from_depth[both[shared] - 1]
    total = a.per_query_sum(added)
    return total / weight.sum() if m.get("normalise") == "weights" else total * (1 - p)  # sum / total_weights, :57


def least_item_promoted(a: Aligned, m: Measure, rel: int) -> np.ndarray:
    """LIP@k = max(0, max_{i ∈ L[:k] ∩ B} (π(i) − 1) − k), π(i) the 1-based position of i in the whole reference list
    B; NaN for a user without a reference list (LensKit least_item_promoted, _lip.py:37-49: lip_rank starts at n and
    takes every larger 0-based reference index of an item of reranked[:n]; the value is lip_rank − n)."""
    k = int(m.cutoff)  # type: ignore[arg-type]  # the family requires a cutoff
    position, length = reference_positions(a, m)
    looked_up = (a.rank <= k) & (position > 0)  # reranked[:n] items found in the reference, _lip.py:42-45
    beyond = np.where(looked_up, np.maximum(position - 1 - k, 0), 0).astype(np.float64)
    worst = np.zeros(a.num_queries)
    np.maximum.at(worst, a.qidx, beyond)
    return np.where(length > 0, worst, np.nan)  # len(reference) == 0: NaN, _lip.py:37-38


OVERLAP_KERNELS: dict[str, Kernel] = {
    "RBO": rank_biased_overlap,
    "LIP": least_item_promoted,
}
"""The overlap families and their kernels (registered in :data:`rankwise.kernels.KERNELS`)."""
