"""The measure families on ranked tensors: one function per family, each the formula of its spec
(:mod:`rankwise.measures`) over a batch of slates at once, mirroring its numpy kernel (:mod:`rankwise.kernels`) line
for line so that the values are the engine's. Every function returns one value per row, NaN where undefined.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from rankwise.errors import MeasureError
from rankwise.measures import Measure

from .ranking import Ranked

Family = Callable[[Ranked, Measure, int], Tensor]


def _cut(m: Measure) -> int | None:
    """The measure's rank cutoff k (an integer: :func:`rankwise.torch.plan.check_implemented`), None without one."""
    return None if m.cutoff is None else int(m.cutoff)


def _divide(numerator: Tensor, denominator: Tensor) -> Tensor:
    """numerator / denominator, 0 where the denominator is 0."""
    zero = denominator == 0
    return torch.where(zero, torch.zeros_like(numerator), numerator / torch.where(zero, 1.0, denominator))


def _undefined_unless_positive(numerator: Tensor, denominator: Tensor) -> Tensor:
    """numerator / denominator, NaN where the denominator is not positive."""
    positive = denominator > 0
    return torch.where(positive, numerator / torch.where(positive, denominator, 1.0), torch.nan)


def _rowsum(values: Tensor, where: Tensor) -> Tensor:
    return torch.where(where, values, torch.zeros_like(values)).sum(dim=1)


def gains(grade: Tensor, valid: Tensor, m: Measure, rel: int) -> Tensor:
    """Gain per grade g >= rel: g (``linear``), 2^g − 1 (``exp2``), 1 (``binary``), 2^(g − rel + 1) − 1
    (``exp2_rel``); a grade map gives its value to the grades it names and g to the others; 0 below rel and for
    padding (:func:`rankwise.kernels.gain._gains`)."""
    gain = m.get("gain")
    counts = valid & (grade >= rel)
    zero = torch.zeros_like(grade)
    if gain == "binary":
        return counts.to(grade.dtype)
    if gain in ("exp2", "exp2_rel"):
        exponent = torch.where(counts, grade - (rel - 1 if gain == "exp2_rel" else 0), zero)
        return torch.where(counts, torch.exp2(exponent) - 1.0, zero)
    out = torch.where(counts, grade, zero)
    if isinstance(gain, tuple):
        for mapped, value in gain:  # type: ignore[misc]  # a grade map: (grade, gain) pairs
            if mapped >= rel:
                out = torch.where(counts & (grade == mapped), torch.full_like(grade, float(value)), out)
    return out


def _discounted(values: Tensor, rank: Tensor, m: Measure) -> Tensor:
    """value / log2(i + 1); per ``discount`` value / ln(i + 1) or value / log2(max(i, 2)); with ``log_base`` b,
    value / log_b(i + 1) (:func:`rankwise.kernels.gain._discounted`)."""
    discount = m.get("discount")
    base = int(m.option("log_base") or 2)  # type: ignore[arg-type]  # an int parameter
    if discount == "ln":
        return values / torch.log(rank + 1.0)
    if discount == "log2_max2":
        return values / torch.log2(torch.clamp(rank, min=2.0))
    if base != 2:
        return values / (torch.log(rank + 1.0) / math.log(base))
    return values / torch.log2(rank + 1.0)


def dcg(r: Ranked, m: Measure, rel: int) -> Tensor:
    """DCG@k = Σ_{i≤k} gain(g_i) · discount(i) (Järvelin & Kekäläinen, TOIS 2002; trec_eval m_ndcg.c), the gains
    of tied documents averaged under ``ties=average`` (scikit-learn ``_tie_averaged_dcg``)."""
    h = r.head(_cut(m))
    return _rowsum(_discounted(h.tie_mean(gains(h.grade, h.valid, m, rel)), h.rank, m), h.within(_cut(m)))


def ideal_dcg(r: Ranked, m: Measure, rel: int) -> Tensor:
    """IDCG@k per ``ideal``: the slate's positive gains sorted descending, cut at k (``sorted``) or not (``uncut``);
    ``k_ones``: Σ_{i≤k} discount(i) (k = |L| without a cutoff); ``none``: 1
    (:func:`rankwise.kernels.gain.ideal_dcg`)."""
    ideal, k = m.get("ideal"), _cut(m)
    if ideal == "none":
        return torch.ones(r.grade.shape[0], dtype=r.dtype, device=r.rank.device)
    if ideal == "k_ones":
        length = r.n.to(r.dtype).unsqueeze(1) if k is None else float(k)
        if k is not None and k > r.rank.shape[0]:
            extra = torch.arange(1, k + 1, dtype=r.dtype, device=r.rank.device)
            return _discounted(torch.ones_like(extra), extra, m).sum().expand(r.grade.shape[0]).clone()
        ones = torch.ones_like(r.grade)
        return _rowsum(_discounted(ones, r.rank, m), r.rank <= length)
    if r.judged_total is not None and m.option("universe") != "retrieved":
        raise MeasureError(f"{m}: the judged universe's ideal ranking needs the grades of the documents not in the "
                           "slate: give universe=retrieved, or use rankwise.evaluate")  # fmt: skip
    positive = torch.clamp(gains(r.judged, r.judged_valid, m, rel), min=0.0)
    if k is None or ideal == "uncut" or k >= positive.shape[1]:
        best = torch.sort(positive, dim=1, descending=True).values
    else:
        best = torch.topk(positive, k, dim=1).values  # sorted descending: the top k gains
    ranks = torch.arange(1, best.shape[1] + 1, dtype=r.dtype, device=best.device)
    return _discounted(best, ranks, m).sum(dim=1)


def relevant_count(r: Ranked, m: Measure, rel: int) -> Tensor:
    """R per row: the slate's documents with grade >= rel; with ``num_relevant`` given and ``universe=judged`` (or a
    family without a universe), that count: the query's relevant judged documents, ranked or not (trec_eval)."""
    if r.judged_total is None or m.option("universe") == "retrieved":
        return r.num_relevant(rel)
    if rel != r.judged_total_rel:
        raise MeasureError(f"{m}: num_relevant counts grades >= {r.judged_total_rel} (rel_level), not >= {rel}")
    return r.judged_total


def ndcg(r: Ranked, m: Measure, rel: int) -> Tensor:
    """nDCG@k = DCG@k / IDCG@k, 0 when IDCG@k = 0 (trec_eval m_ndcg_cut.c; :func:`rankwise.kernels.gain.ndcg`)."""
    return _divide(dcg(r, m, rel), ideal_dcg(r, m, rel))


def _found(r: Ranked, m: Measure, rel: int) -> Tensor:
    """Hits: grade >= rel, and with ``gate=positive_score`` a score > 0 too."""
    relevant = r.relevant(rel)
    return relevant & (r.score > 0) if m.option("gate") == "positive_score" else relevant


def _hits(r: Ranked, m: Measure, rel: int) -> Tensor:
    """H_k per row: hits in the top k (k + 1 with ``within=k_plus_1``), tie-averaged under ``ties=average``."""
    extra = 1 if m.option("within") == "k_plus_1" else 0
    h = r.head(_cut(m), extra)
    return _rowsum(h.tie_mean(_found(h, m, rel).to(r.dtype)), h.within(_cut(m), extra))


def precision(r: Ranked, m: Measure, rel: int) -> Tensor:
    """P@k = H_k / k; per ``denom`` H_k / |L[:k]|, H_k / min(k, R), H_k / min(|L[:k]|, R), undefined where that is 0
    (trec_eval m_P.c; :func:`rankwise.kernels.precision.precision`)."""
    hits, k = _hits(r, m, rel), float(_cut(m))  # type: ignore[arg-type]  # P requires a cutoff
    denom = m.get("denom")
    if denom == "k":
        return hits / k
    if denom == "retrieved":
        return _undefined_unless_positive(hits, r.shown(_cut(m)))
    if denom == "min_k_R":
        return _undefined_unless_positive(hits, torch.clamp(relevant_count(r, m, rel), max=k))
    return _undefined_unless_positive(hits, torch.minimum(r.shown(_cut(m)), relevant_count(r, m, rel)))


def recall(r: Ranked, m: Measure, rel: int) -> Tensor:
    """R@k = H_k / R, or with ``denom=min_k_R`` H_k / min(k, R); 0 when R = 0 (trec_eval m_recall.c)."""
    big_r, k = relevant_count(r, m, rel), _cut(m)
    if m.get("denom") == "min_k_R" and k is not None:
        big_r = torch.clamp(big_r, max=float(k))
    return _divide(_hits(r, m, rel), big_r)


def hit_rate(r: Ranked, m: Measure, rel: int) -> Tensor:
    """HitRate@k = [H_k > 0]; with ``count=hits`` H_k itself (trec_eval m_success.c)."""
    hits = _hits(r, m, rel)
    return hits if m.get("count") == "hits" else (hits > 0).to(r.dtype)


def reciprocal_rank(r: Ranked, m: Measure, rel: int) -> Tensor:
    """RR@k = 1 / rank of the first hit in the top k (0 when none); ``hits=all``: Σ_{i≤k} h_i / i over relevant
    documents; ``hits=top1``: 1 if the first document is a hit (trec_eval m_recip_rank.c;
    :func:`rankwise.kernels.precision.reciprocal_rank`)."""
    hits, r = m.get("hits"), r.head(_cut(m))
    if hits == "all":
        return _rowsum(r.relevant(rel).to(r.dtype) / r.rank, r.within(_cut(m)))
    found = _found(r, m, rel)
    if hits == "top1":
        return found[:, 0].to(r.dtype)
    found = found & r.within(_cut(m))
    first = torch.argmax(found.to(torch.uint8), dim=1)
    return torch.where(found.any(dim=1), 1.0 / r.rank[first], torch.zeros((), dtype=r.dtype, device=r.rank.device))


def average_precision(r: Ranked, m: Measure, rel: int) -> Tensor:
    """AP@k = Σ_{i≤k, h_i=1} P@i / D, D per ``denom``: R, min(k, R), k, H_k, Σ_{i≤k} min(i, R) or min(|L[:k]|, R);
    0 when D = 0 (trec_eval m_map.c, m_map_cut.c; :func:`rankwise.kernels.precision.average_precision`)."""
    h = r.head(_cut(m))
    found = _found(h, m, rel)
    total = _rowsum(torch.cumsum(found.to(r.dtype), dim=1) / h.rank, found & h.within(_cut(m)))
    denom, big_r, cut = m.get("denom"), relevant_count(r, m, rel), _cut(m)
    k = r.n.to(r.dtype) if cut is None else torch.full_like(big_r, float(cut))
    if denom == "R":
        d = big_r
    elif denom == "min_k_R":
        d = big_r if _cut(m) is None else torch.minimum(k, big_r)
    elif denom == "k":
        d = k
    elif denom == "min_shown_R":
        d = torch.minimum(r.shown(_cut(m)), big_r)
    elif denom == "neurec":
        capped = torch.minimum(big_r, k)
        d = capped * (capped + 1) / 2 + (k - capped) * capped
    else:  # hits
        d = _hits(r, m, rel)
    return _divide(total, d)


def expected_reciprocal_rank(r: Ranked, m: Measure, rel: int) -> Tensor:
    """ERR@k = Σ_{i≤k} (r_i / i) Π_{j<i} (1 − r_j), r = (2^g − 1) / 2^max_grade for g > 0, else 0 (Chapelle et al.,
    CIKM 2009; gdeval.pl; :func:`rankwise.kernels.user_model.expected_reciprocal_rank`). A grade above max_grade is
    refused, naming its row."""
    max_grade = float(m.get("max_grade"))  # type: ignore[arg-type]  # a float parameter
    above = r.judged_valid & (r.judged > max_grade)
    if bool(above.any()):
        row, top = int(torch.nonzero(above)[0, 0]), float(r.judged[r.judged_valid].max())
        raise MeasureError(f"{m}: row {row} has grade {float(r.judged[above].max()):g}, above max_grade="
                           f"{max_grade:g}; give the scale's top, e.g. {m.name}(max_grade={top:g})")  # fmt: skip
    r = r.head(_cut(m))
    positive = r.valid & (r.grade > 0)
    exponent = torch.where(positive, r.grade, torch.zeros_like(r.grade))
    if max_grade >= 1024:  # 2^max_grade past float64: r = 2^(g − max_grade) − 2^(−max_grade)
        stop = torch.exp2(exponent - max_grade) - 2.0**-max_grade
    else:
        stop = torch.expm1(exponent * math.log(2.0)) / 2.0**max_grade
    stop = torch.where(positive & r.within(_cut(m)), stop, torch.zeros_like(stop))
    reach = torch.cumprod(1.0 - stop, dim=1)
    reach = torch.cat([torch.ones_like(reach[:, :1]), reach[:, :-1]], dim=1)
    return (stop / r.rank * reach).sum(dim=1)


FAMILIES: dict[str, Family] = {
    "nDCG": ndcg,
    "DCG": dcg,
    "AP": average_precision,
    "RR": reciprocal_rank,
    "P": precision,
    "R": recall,
    "HitRate": hit_rate,
    "ERR": expected_reciprocal_rank,
}
"""The families :mod:`rankwise.torch` computes (their parameters: :data:`rankwise.torch.plan.IMPLEMENTED`)."""


def apply_empty(r: Ranked, m: Measure, rel: int, values: Tensor) -> Tensor:
    """Per ``empty``: a row without relevant documents (R = 0) scores 0 (as computed), 1, or is undefined (NaN);
    a row without any document is no query: NaN."""
    policy = m.option("empty")
    if policy in ("one", "skip"):
        fill = 1.0 if policy == "one" else torch.nan
        values = torch.where(relevant_count(r, m, rel) == 0, torch.full_like(values, fill), values)
    return torch.where(r.n > 0, values, torch.full_like(values, torch.nan))
