"""Dialects of libraries that cannot run here, pinned formula by formula on the shared MovieLens-100K lists.

Elliot (not on PyPI), Beta-RecSys (pins pandas 1.0.3, crashes on pandas 3), MS Recommenders <= 1.1 (pandas < 2),
OpenRec tf1/tf2 (TensorFlow), NeuRec's C++ and Python evaluators (a compiled extension; the 2020 code is not on
PyPI), neurec 1.0.0, DaisyRec 1.x and the DaisyRec-v2.0 benchmark repo, DL-RS-Eval and RecSys_PyTorch (not on PyPI):
for each, one small plain-Python/numpy function per metric, written from the library's source (the comment names
its file:line at the commit in brackets), follows the library's own formula literally. They run on both models of
``recsys_lists`` (EASE: no ties; popularity: heavy ties) at k = 10 and 20, and each case has two parts:

- ``users``: every user the library scores has the same value in rankwise (1e-9);
- ``mean``: rankwise scores exactly those users (others are absent or undefined) and its aggregate equals the
  library's mean over them (1e-9).

The ``hand_*`` tests reproduce worked example E of the research notes on these libraries (items 0..9, train
{8, 9}, scores .9 .8 .7 .6 .5 .4 .3 .2 .95 .85, list [0..7], test ratings {1: 5, 3: 3, 6: 4, 7: 1}; the notes'
values came from running each library's own source files) with the same functions: they prove the references,
not rankwise. They need no data.

What each library is given (relevance = rating >= 4, ``THRESHOLD``):

- Elliot: every test rating, raw (relevance_threshold: 4 in its config; graded gains 2^(r − 4 + 1) − 1).
- Beta-RecSys: every test row with its rating binarised (1 if >= 4 else 0): its ranking metrics drop rows below
  1 (evaluation.py:492), so the relevant rows remain, and its ``auc`` needs binary labels (l.389).
- MS Recommenders <= 1.1, NeuRec, neurec 1.0.0, DaisyRec, DL-RS-Eval, RecSys_PyTorch, OpenRec: the relevant test
  rows only, since every test row they see is a positive; this is how their own pipelines apply a threshold
  (DaisyRec 1.x loader.py:147-149 and DaisyRec-v2.0 loader.py:312-313 drop ratings below it before the split;
  DL-RS-Eval's readers binarise with ``URM_all.data = URM_all.data >= 4.0; eliminate_zeros()``, e.g.
  Conferences/WWW/MultiVAE_our_interface/Movielens20M/Movielens20MReader.py:60-62, so a test value is 1 (True) and
  its NDCG gain 2^1 − 1 = 1). So the users they average are the users with a relevant test item. MS
  Recommenders' ``auc`` gets every test row with binarised labels, as Beta-RecSys's.

rankwise always gets the full truth table (raw ratings) with ``threshold=4``.

Ties (the popularity model): where the library orders ties by a rule, rankwise gets scores and the reference
applies the library's rule: Beta-RecSys and MS Recommenders 1.1 (input row order: every candidate's score is
passed, rows shuffled, so a user has more rows than k: nlargest's stable path / a stable multi-key sort_values),
NeuRec's Python evaluator (heapq.nlargest over (score, index): the higher item index first), OpenRec tf1/tf2
(ranks counted from scores with strict comparisons; OpenRec scores every candidate itself). Where the library's
tie order is implementation-defined (NeuRec C++ partial_sort_copy, DL-RS-Eval's numpy quicksort, RecSys_PyTorch's
argpartition/argsort, DaisyRec's torch.topk) or it takes the list as given (Elliot), it gets the ranked lists and
rankwise gets the same ``rank`` column. neurec 1.0.0 ties in the iteration order of a Python set of small ints
(ascending ids in CPython): the lists' own order.

Precision: several libraries keep values in float32 (NeuRec metric.h ``float *result_pt`` and
python/uni_evaluator.py:163, RecSys_PyTorch utils/stats.py:30-32 and holdout.h, DL-RS-Eval metrics.py:70,141,208,
OpenRec tf2): their printed numbers equal these float64 formulas rounded to float32 (about 1e-7), which rankwise
does not model. Float32 that changes which items count is modelled: OpenRec tf2's exp() of float32 scores.

A disagreement that remains after checking the reference against the worked example is marked
``xfail(strict=True)`` with what rankwise must change.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import polars as pl
import pytest

import rankwise
from conftest import close
from recsys_lists import MODELS, THRESHOLD, all_scores, lists, skip_without_data

KS = (10, 20)
TOL = 1e-9
SHUFFLE_SEED = 2024

Values = dict[str, float]  # user id -> value
Theirs = dict[str, tuple[Values | None, float]]  # rankwise measure name -> (per-user values or None, library's mean)


@pytest.fixture
def movielens() -> None:
    """Skip (while setting up: never inside an xfail test's body) when MovieLens 100K is absent."""
    skip_without_data()


# ------------------------------------------------------------------------------------------------- the data
@dataclass(frozen=True)
class Data:
    """One model's lists as plain Python: what the references read."""

    users: tuple[str, ...]  # every truth user, as integers ascending
    ratings: dict[str, dict[str, int]]  # user -> item -> raw rating (every test row)
    relevant: dict[str, set[str]]  # user -> items rated >= THRESHOLD (only users with one)
    ranked: dict[str, list[str]]  # user -> the 20 items of the lists, in rank order
    scores: dict[str, dict[str, float]]  # user -> every candidate (unrated train item) -> score
    full: dict[str, list[str]]  # user -> every candidate in the lists' order (score desc, then id asc)
    train_items: dict[str, set[str]]  # user -> distinct train items
    items: tuple[str, ...]  # the catalogue: distinct train items, as integers ascending
    shuffled: list[tuple[str, str, float]]  # every (user, item, score) of `scores`, rows shuffled (seeded)


def _by_user(frame: pl.DataFrame) -> dict[str, list]:
    """First column -> the rest of each row (one value, or a tuple of several), in row order."""
    out: dict[str, list] = {}
    for row in frame.iter_rows():
        out.setdefault(row[0], []).append(row[1] if len(row) == 2 else row[1:])
    return out


@functools.cache
def shuffled_scores(model: str) -> pl.DataFrame:
    """Every candidate's score, rows in a seeded random order (users interleaved, ties in random order)."""
    return all_scores(model).sample(fraction=1.0, shuffle=True, seed=SHUFFLE_SEED)


@functools.cache
def listed_scores(model: str) -> pl.DataFrame:
    """The lists' rows with their scores, user after user in rank order (ties by item id ascending)."""
    return lists(model).recs.sort("user_id", "rank").select("user_id", "item_id", "score")


@functools.cache
def full_ranking(model: str) -> pl.DataFrame:
    """Every candidate ranked as the lists are (score descending, ties by item id ascending): user, item, rank."""
    return (
        all_scores(model)
        .with_columns(pl.col("item_id").cast(pl.Int64).alias("_item"))
        .sort(["user_id", "score", "_item"], descending=[False, True, False])
        .with_columns(pl.int_range(1, pl.len() + 1).over("user_id").alias("rank"))
        .select("user_id", "item_id", "rank")
    )


@functools.cache
def data(model: str) -> Data:
    lst = lists(model)
    truth = lst.truth
    ratings = {u: dict(rows) for u, rows in _by_user(truth.select("user_id", "item_id", "rating")).items()}
    relevant = {u: {i for i, r in items.items() if r >= THRESHOLD} for u, items in ratings.items()}
    relevant = {u: items for u, items in relevant.items() if items}
    ranked = _by_user(lst.recs.sort("user_id", "rank").select("user_id", "item_id"))
    scores = {u: dict(rows) for u, rows in _by_user(all_scores(model)).items()}
    full = _by_user(full_ranking(model).sort("user_id", "rank").select("user_id", "item_id"))
    train_items = {u: set(items) for u, items in _by_user(lst.train.select("user_id", "item_id")).items()}
    items = tuple(sorted(lst.train.get_column("item_id").unique().to_list(), key=int))
    assert len(items) == lst.n_items
    return Data(
        users=tuple(sorted(ratings, key=int)),
        ratings=ratings,
        relevant=relevant,
        ranked=ranked,
        scores=scores,
        full=full,
        train_items=train_items,
        items=items,
        shuffled=list(shuffled_scores(model).iter_rows()),
    )


def with_relevant(d: Data) -> list[str]:
    """The users with a relevant test item: the test users of the libraries given only the relevant rows."""
    return [u for u in d.users if u in d.relevant]


def mean_of(values: Values) -> float:
    return float(np.mean(list(values.values())))


def at(*names: str) -> tuple[str, ...]:
    return tuple(f"{name}@{k}" for k in KS for name in names)


# ------------------------------------------------------------------------------------------------- rankwise
@functools.cache
def ours(dialect: str, model: str, measures: tuple[str, ...], run: str = "ranked") -> rankwise.EvaluationResult:
    """rankwise on the full truth table with threshold=4. ``run``: "ranked" (the lists' rank column), "full"
    (every candidate ranked as the lists are, plus ``train=`` for Elliot's AUC family), "scores" (every
    candidate's score), "shuffled" (every candidate's score, rows shuffled: input order decides ties), "listed" (the
    lists' 20 rows per user with their scores, in rank order: input order decides ties)."""
    lst = lists(model)
    kwargs = {}
    if run == "ranked":
        frame = lst.recs.select("user_id", "item_id", "rank")
    elif run == "listed":
        frame = listed_scores(model)
    elif run == "full":
        frame, kwargs = full_ranking(model), {"train": lst.train}
    elif run == "scores":
        frame = all_scores(model)
    else:
        frame = shuffled_scores(model)
    return rankwise.evaluate(lst.truth, frame, list(measures), dialect=dialect, threshold=THRESHOLD, **kwargs)


# =================================================================================================== Elliot
# sisinflab/elliot v0.3.1 (641100a), elliot/evaluation/. Relevance (relevance/relevance.py): binary = rating >= t
# (l.87), graded gain 2^(r − t + 1) − 1 for r >= t (l.80-81), t = evaluation.relevance_threshold = 4 here.
# Users: lists of users with test data (evaluator.py:121), then every metric keeps the users with >= 1 relevant
# item (e.g. metrics/accuracy/precision/precision.py:83-84); mean = np.average (base_metric.py:38-39).
def elliot_discount(r0: int) -> float:  # relevance/relevance.py:55, r0 the 0-based rank
    return 1 / math.log(r0 + 2) * math.log(2)


def elliot_precision(recs: list, rel: set, cutoff: int) -> float:  # accuracy/precision/precision.py:66
    return sum(1 if i in rel else 0 for i in recs[:cutoff]) / cutoff


def elliot_recall(recs: list, rel: set, cutoff: int) -> float:  # accuracy/recall/recall.py:66
    return sum(1 if i in rel else 0 for i in recs[:cutoff]) / len(rel)


def elliot_ap(recs: list, rel: set, cutoff: int) -> float:
    # accuracy/map/map.py:69 (average over n = 0..cutoff-1 of) l.80 (hits in the first n+1 / (n+1)): every rank
    top = recs[:cutoff]
    return float(np.average([sum(1 for i in top[: n + 1] if i in rel) / (n + 1) for n in range(cutoff)]))


def elliot_rr(recs: list, rel: set, cutoff: int) -> float:  # accuracy/mrr/mrr.py:63-70
    for r, i in enumerate(recs[:cutoff]):
        if i in rel:
            return 1 / (r + 1)
    return 0


def elliot_hit_rate(recs: list, rel: set, cutoff: int) -> float:  # accuracy/hit_rate/hit_rate.py:66
    return 1 if sum(1 for i in recs[:cutoff] if i in rel) > 0 else 0


def elliot_f1(recs: list, rel: set, cutoff: int) -> float:  # accuracy/f1/f1.py:64-68, squared_beta = 1 (l.44-45)
    p = sum(1 for i in recs[:cutoff] if i in rel) / cutoff
    r = sum(1 for i in recs[:cutoff] if i in rel) / len(rel)
    return (1 + 1) * p * r / (1 * p + r) if (1 * p + r) != 0 else 0


def elliot_gains(ratings: dict, t: float) -> dict:  # relevance/relevance.py:80-81
    return {i: 2 ** (score - t + 1) - 1 for i, score in ratings.items() if score >= t}


def elliot_ndcg(recs: list, gains: dict, cutoff: int) -> float:
    # accuracy/ndcg/ndcg.py:75-78 (IDCG: the min(|gains|, cutoff) largest gains), l.88-92 (DCG; 0 unless DCG > 0),
    # l.103 (the list cut at the cutoff)
    g = sorted(gains.values())
    n, m = min(len(g), cutoff), len(g)
    idcg = sum(g[m - r - 1] * elliot_discount(r) for r in range(n))
    dcg = sum(gains.get(x, 0) * elliot_discount(r) for r, x in enumerate(recs[:cutoff]) if r < cutoff)
    return dcg / idcg if dcg > 0 else 0


def elliot_auc_values(recs: list, rel: set, num_items: int, train_size: int) -> list[float]:
    # accuracy/AUC/auc.py:78-80: one value per relevant item found in the (full) list
    neg_num = num_items - train_size - len(rel) + 1
    pos_ranks = [r for r, i in enumerate(recs) if i in rel]
    return [(neg_num - r_r + p_r) / neg_num for p_r, r_r in enumerate(pos_ranks)]


def elliot_gauc(recs: list, rel: set, num_items: int, train_size: int) -> float:  # accuracy/AUC/gauc.py:81-83
    neg_num = num_items - train_size - len(rel) + 1
    pos_ranks = [r for r, i in enumerate(recs) if i in rel]
    return sum((neg_num - r_r + p_r) / neg_num for p_r, r_r in enumerate(pos_ranks)) / len(rel)


def elliot_lauc(recs: list, cutoff: int, rel: set, num_items: int, train_size: int) -> float:
    # accuracy/AUC/lauc.py:66-68
    neg_num = num_items - train_size - len(rel) + 1
    pos_ranks = [r for r, i in enumerate(recs[:cutoff]) if i in rel]
    return sum((neg_num - r_r + p_r) / neg_num for p_r, r_r in enumerate(pos_ranks)) / min(cutoff, len(rel))


ELLIOT_LIST = ("P", "R", "AP", "nDCG", "RR", "HitRate", "F1")
ELLIOT_FULL = ("AUC", *at("AUC"), "AUC(mean=pooled)")
ELLIOT_FNS = {"P": elliot_precision, "R": elliot_recall, "AP": elliot_ap, "RR": elliot_rr,
              "HitRate": elliot_hit_rate, "F1": elliot_f1}  # fmt: skip


@functools.cache
def elliot_theirs(model: str) -> Theirs:
    d = data(model)
    users = [u for u in d.users if u in d.ranked and u in d.relevant]  # evaluator.py:121, precision.py:83-84
    num_items = len(d.items)  # evaluator.py:67 = dataset.py:202-204: distinct items in train
    out: Theirs = {}
    for k in KS:
        for name, fn in ELLIOT_FNS.items():
            out[f"{name}@{k}"] = values_and_mean({u: fn(d.ranked[u], d.relevant[u], k) for u in users})
        gains = {u: elliot_gains(d.ratings[u], THRESHOLD) for u in users}
        out[f"nDCG@{k}"] = values_and_mean({u: elliot_ndcg(d.ranked[u], gains[u], k) for u in users})
        # LAUC: needs_full_recommendations is False, so it sees the top-k list; the full list cut at k is the same
        out[f"AUC@{k}"] = values_and_mean(
            {u: elliot_lauc(d.full[u], k, d.relevant[u], num_items, len(d.train_items[u])) for u in users}
        )
    # AUC/GAUC need full recommendations (auc.py:91-95; evaluator.py:149-157 asks for num_items items: every
    # candidate), train_size = |train_dict[u]| (auc.py:87)
    out["AUC"] = values_and_mean(
        {u: elliot_gauc(d.full[u], d.relevant[u], num_items, len(d.train_items[u])) for u in users}
    )  # GAUC, gauc.py:91-94
    pooled = [v for u in users for v in elliot_auc_values(d.full[u], d.relevant[u], num_items, len(d.train_items[u]))]
    out["AUC(mean=pooled)"] = (None, float(np.average(pooled)))  # AUC, auc.py:87-89: pooled over found positives
    return out


def values_and_mean(values: Values) -> tuple[Values, float]:
    return values, mean_of(values)


def elliot_ours(model: str, measure: str) -> rankwise.EvaluationResult:
    if measure.startswith("AUC"):
        return ours("elliot", model, ELLIOT_FULL, "full")
    return ours("elliot", model, at(*ELLIOT_LIST))


def test_hand_elliot() -> None:
    # E with num_items = 10, train_size = 2, t = 4: relevant {1 (gain 3), 6 (gain 1)}, neg_num = 7 (research notes §3)
    recs, rel, gains = list(range(8)), {1, 6}, elliot_gains({1: 5, 3: 3, 6: 4, 7: 1}, 4)
    assert gains == {1: 3, 6: 1}
    assert elliot_precision(recs, rel, 5) == pytest.approx(0.2) and elliot_recall(recs, rel, 5) == 0.5
    assert elliot_ap(recs, rel, 5) == pytest.approx(0.256667, abs=1e-6)
    assert elliot_ap(recs, rel, 3) == pytest.approx(0.277778, abs=1e-6)
    assert elliot_rr(recs, rel, 5) == 0.5 and elliot_hit_rate(recs, rel, 5) == 1
    assert elliot_f1(recs, rel, 5) == pytest.approx(0.285714, abs=1e-6)
    assert elliot_f1(recs, rel, 3) == pytest.approx(0.4)
    assert elliot_ndcg(recs, gains, 5) == pytest.approx(0.521296, abs=1e-6)
    assert elliot_ndcg(recs, gains, 3) == pytest.approx(0.521296, abs=1e-6)
    assert np.average(elliot_auc_values(recs, rel, 10, 2)) == pytest.approx(0.571429, abs=1e-6)
    assert elliot_gauc(recs, rel, 10, 2) == pytest.approx(0.571429, abs=1e-6)
    assert elliot_lauc(recs, 5, rel, 10, 2) == pytest.approx(0.428571, abs=1e-6)
    assert np.average(elliot_auc_values(recs[:5], rel, 10, 2)) == pytest.approx(0.857143, abs=1e-6)  # top-5 only
    # t = 0 (Elliot's default): every test item relevant, gains 63, 7, 31, 3
    all_rel, g0 = {1, 3, 6, 7}, elliot_gains({1: 5, 3: 3, 6: 4, 7: 1}, 0)
    assert elliot_ap(recs, all_rel, 5) == pytest.approx(0.346667, abs=1e-6)
    assert elliot_ndcg(recs, g0, 5) == pytest.approx(0.505838, abs=1e-6)
    assert elliot_gauc(recs, all_rel, 10, 2) == pytest.approx(0.45) and elliot_lauc(recs, 5, all_rel, 10, 2) == 0.35


# =================================================================== Beta-RecSys 0.3.3 and MS Recommenders <= 1.1
# beta-team/beta-recsys v0.3.3 (00f467d) beta_rec/utils/evaluation.py, a copy of recommenders-team/recommenders
# 1.1.1 (b704c42) recommenders/evaluation/python_evaluation.py with one more line (l.492: truth rows < 1 dropped).
def top_k_in_input_order(rows: list[tuple[str, float]], k: int) -> list[str]:
    # Beta: groupby.apply(nlargest(k)) (evaluation.py:778-782); a user with more rows than k takes pandas' stable
    # (mergesort) path, so ties keep the input order; rank = position (rank(method="first"), l.516-518).
    # MS 1.1.1: sort_values([user, prediction], ascending=[True, False]).groupby.head(k) (l.676-681; a multi-key
    # sort is stable), rank = cumcount + 1 (l.683). Python's sort is stable: ties stay in input order.
    return [item for item, _ in sorted(rows, key=lambda row: -row[1])[:k]]


def numpy_quicksort_argsort(values: list[float]) -> list[int]:
    """np.argsort(values, kind="quicksort") as numpy <= 1.24 computes it (numpy/core/src/npysort/quicksort.cpp
    aquicksort_): median-of-3 partitions while a part has more than 16 entries, then insertion sort; not stable.
    (Its heapsort fallback past a depth of 2·log2(n) partitions is left out: never reached by a 20-row list.) Equal
    to numpy 1.23.5's argsort on 20,000 random arrays of 1-200 heavily tied values (checked in the reference env)."""
    v, t = values, list(range(len(values)))
    stack: list[tuple[int, int]] = []
    pl, pr = 0, len(v) - 1
    while True:
        while pr - pl > 15:  # SMALL_QUICKSORT
            pm = pl + ((pr - pl) >> 1)
            if v[t[pm]] < v[t[pl]]:
                t[pm], t[pl] = t[pl], t[pm]
            if v[t[pr]] < v[t[pm]]:
                t[pr], t[pm] = t[pm], t[pr]
            if v[t[pm]] < v[t[pl]]:
                t[pm], t[pl] = t[pl], t[pm]
            pivot, pi, pj = v[t[pm]], pl, pr - 1
            t[pm], t[pj] = t[pj], t[pm]
            while True:
                pi += 1
                while v[t[pi]] < pivot:
                    pi += 1
                pj -= 1
                while pivot < v[t[pj]]:
                    pj -= 1
                if pi >= pj:
                    break
                t[pi], t[pj] = t[pj], t[pi]
            t[pi], t[pr - 1] = t[pr - 1], t[pi]
            if pi - pl < pr - pi:  # the larger part waits on the stack
                stack.append((pi + 1, pr))
                pr = pi - 1
            else:
                stack.append((pl, pi - 1))
                pl = pi + 1
        for pi in range(pl + 1, pr + 1):  # insertion sort
            vi, pj = t[pi], pi
            while pj > pl and v[vi] < v[t[pj - 1]]:
                t[pj] = t[pj - 1]
                pj -= 1
            t[pj] = vi
        if not stack:
            return t
        pl, pr = stack.pop()


def beta_top_k(rows: list[tuple[str, float]], k: int) -> list[str]:
    # Beta: groupby.apply(lambda x: x.nlargest(k, col)) (evaluation.py:778-782). With more rows than k pandas
    # takes its fast path (a stable mergesort of the candidates): ties in input order. With at most k rows (a
    # top-k list scored at its own k) it takes its slow path (pandas 1.0.3 SelectNSeries.compute,
    # ``dropped[::-1].sort_values(ascending=False)``; pandas 2.0 the same through nargsort): the rows reversed,
    # numpy's default (quick)sort ascending, the result reversed. That sort is not stable (lists of more than 16
    # rows are partitioned), so ties come out in quicksort's order. rank(method="first") (l.516-518) then numbers
    # the rows in that order.
    if len(rows) > k:
        return top_k_in_input_order(rows, k)
    backwards = rows[::-1]
    return [backwards[i][0] for i in reversed(numpy_quicksort_argsort([score for _, score in backwards]))][:k]


def test_numpy_quicksort_reorders_ties_of_more_than_16_rows() -> None:
    assert numpy_quicksort_argsort([3.0, 1.0, 2.0]) == [1, 2, 0]
    assert numpy_quicksort_argsort([1.0] * 16) == list(range(16))  # insertion sort only: stable
    tied = numpy_quicksort_argsort([1.0] * 20)
    assert sorted(tied) == list(range(20)) and tied != list(range(20))  # partitioned: not stable
    rows = [(f"i{n}", float(20 - n)) for n in range(20)]  # distinct scores: the order is the scores'
    assert beta_top_k(rows, 20) == [item for item, _ in rows] == beta_top_k([*rows, ("x", 0.0)], 20)


def ms_precision(hit: int, k: int) -> float:  # Beta evaluation.py:583; MS python_evaluation.py:469
    return hit / k


def ms_recall(hit: int, actual: int) -> float:  # Beta l.629; MS l.517
    return hit / actual


def ms_ndcg(hit_ranks: list[int], actual: int, k: int) -> float:
    # Beta l.679-689, MS l.569-579: gain 1 over ln(1 + rank), ideal over min(actual, k) ranks
    dcg = sum(1 / np.log1p(rank) for rank in hit_ranks)
    idcg = sum(1 / np.log1p(range(1, min(actual, k) + 1)))
    return float(dcg / idcg)


def ms_map(hit_ranks: list[int], actual: int) -> float:
    # Beta l.747-752, MS l.640-647: Σ over hits of (hit number / rank), ÷ actual (the user's truth rows)
    return sum((j + 1) / rank for j, rank in enumerate(sorted(hit_ranks))) / actual


def pooled_roc_auc(labels: list[int], scores: list[float]) -> float:
    # Beta l.379-419, MS l.266-306: sklearn roc_auc_score(y_true, y_pred) on the inner join of truth and
    # predictions (Beta l.214-248, MS l.97-131), every user pooled: P(s+ > s-) + ½ P(s+ = s-)
    y, s = np.asarray(labels), np.asarray(scores, dtype=np.float64)
    pos, neg = np.sort(s[y == 1]), np.sort(s[y == 0])
    below = np.searchsorted(neg, pos, side="left")
    ties = np.searchsorted(neg, pos, side="right") - below
    return float((below.sum() + 0.5 * ties.sum()) / (len(pos) * len(neg)))


def ms_family_theirs(model: str, beta: bool, run: str = "shuffled") -> Theirs:
    """``run``: "shuffled" (every candidate's score, rows shuffled) or "listed" (the 20-row lists in rank order)."""
    d = data(model)
    if beta:
        # truth rows with binarised ratings; l.492 keeps rating >= 1: the relevant rows
        labels = {u: {i: 1 if r >= THRESHOLD else 0 for i, r in items.items()} for u, items in d.ratings.items()}
        truth = {u: {i for i, label in items.items() if label >= 1} for u, items in labels.items()}
        truth = {u: items for u, items in truth.items() if items}
    else:
        truth = d.relevant  # MS Recommenders counts every truth row: it is given the relevant rows
    rows: dict[str, list[tuple[str, float]]] = {}
    given = d.shuffled if run == "shuffled" else listed_scores(model).iter_rows()
    for user, item, score in given:  # the prediction rows in their input order
        rows.setdefault(user, []).append((item, score))
    scored = {u: dict(items) for u, items in rows.items()}
    common = sorted(set(truth) & set(rows), key=int)  # Beta l.495-498, MS l.379-382
    out: Theirs = {}
    for k in KS:
        per: dict[str, dict[str, float]] = {"P": {}, "R": {}, "nDCG": {}, "AP": {}}
        for u in common:
            top = beta_top_k(rows[u], k) if beta else top_k_in_input_order(rows[u], k)
            hit_ranks = [rank for rank, item in enumerate(top, start=1) if item in truth[u]]
            actual = len(truth[u])
            per["P"][u] = ms_precision(len(hit_ranks), k)
            per["R"][u] = ms_recall(len(hit_ranks), actual)
            # a common user without hits is absent from df_hit: it adds 0 to the sum
            per["nDCG"][u] = ms_ndcg(hit_ranks, actual, k) if hit_ranks else 0.0
            per["AP"][u] = ms_map(hit_ranks, actual) if hit_ranks else 0.0
        any_hit = any(per["P"].values())  # no hit at all: 0.0 (Beta l.581, 626, 673, 743)
        for name, values in per.items():
            out[f"{name}@{k}"] = (values, sum(values.values()) / len(common) if any_hit else 0.0)
    # auc: every truth row (binarised label) joined with the prediction rows: users without a relevant item too
    labels, scores = [], []
    for u, items in d.ratings.items():
        for item, rating in items.items():
            if item in scored.get(u, {}):
                labels.append(1 if rating >= THRESHOLD else 0)
                scores.append(scored[u][item])
    out["AUC"] = (None, pooled_roc_auc(labels, scores))
    return out


MS_MEASURES = (*at("P", "R", "nDCG", "AP"), "AUC")


@functools.cache
def beta_theirs(model: str) -> Theirs:
    return ms_family_theirs(model, beta=True)


@functools.cache
def beta_listed_theirs(model: str) -> Theirs:
    return ms_family_theirs(model, beta=True, run="listed")


@functools.cache
def ms_theirs(model: str) -> Theirs:
    return ms_family_theirs(model, beta=False)


def test_hand_beta_recsys_and_ms_recommenders() -> None:
    # E, user 1: predictions for items 0..7 (descending scores), truth {1, 3, 6, 7} (research notes §4)
    rows = [(i, 0.9 - 0.1 * i) for i in range(8)]
    for k, (p, r, ndcg, ap) in {5: (0.4, 0.5, 0.414430, 0.25), 3: (1 / 3, 0.25, 0.296082, 0.125)}.items():
        hit_ranks = [rank for rank, i in enumerate(top_k_in_input_order(rows, k), 1) if i in {1, 3, 6, 7}]
        assert ms_precision(len(hit_ranks), k) == pytest.approx(p) and ms_recall(len(hit_ranks), 4) == r
        assert ms_ndcg(hit_ranks, 4, k) == pytest.approx(ndcg, abs=1e-6) and ms_map(hit_ranks, 4) == pytest.approx(ap)
    # ties (4 rows > k = 3): .9, .8, .8, .6 with item 1 relevant: input order decides
    for order, (ap, ndcg) in {(0, 2, 1, 3): (1 / 3, 0.5), (0, 1, 2, 3): (0.5, 0.630930)}.items():
        scores = {0: 0.9, 1: 0.8, 2: 0.8, 3: 0.6}
        ranks = [rank for rank, i in enumerate(top_k_in_input_order([(i, scores[i]) for i in order], 3), 1) if i == 1]
        assert ms_map(ranks, 1) == pytest.approx(ap) and ms_ndcg(ranks, 1, 3) == pytest.approx(ndcg, abs=1e-6)
    assert pooled_roc_auc([1, 0, 1, 0], [0.5, 0.5, 0.9, 0.1]) == pytest.approx(0.875)  # (1·½ + 1 + 1 + 1) / 4


# ================================================================================================== OpenRec
# ylongqi/openrec a00de23 (= PyPI openrec 0.3.0). OpenRec scores every candidate itself: it gets every
# candidate's score (the train items the user has not rated), positives = the relevant test items; users with a
# positive (tf1: EvaluationSampler over dataset.warm_users(), evaluation_sampler.py:11; tf2: Dataset.evaluation,
# tf2/data/dataset.py:60-85), mean over them (tf1 model_trainer.py:90, tf2 DictMean dict_mean.py:21-31).
def openrec_tf1_rank_above(pos_scores: np.ndarray, neg_scores: np.ndarray) -> np.ndarray:
    # tf1/utils/evaluators/eval_manager.py:19-23: negatives (not excluded, not positive) with pos < neg (strict)
    return np.array([np.count_nonzero(p < neg_scores) for p in pos_scores], dtype=np.float64)


def openrec_tf1_auc(rank_above: np.ndarray, negative_num: int) -> float:  # tf1/utils/evaluators/auc.py:12
    return float(np.mean((negative_num - rank_above) / negative_num))


def openrec_tf1_precision(rank_above: np.ndarray, k: int) -> float:  # precision.py:16-19 (0-based rank <= k)
    return sum(float(rank <= k) for rank in rank_above) / k


def openrec_tf1_recall(rank_above: np.ndarray, k: int) -> float:  # recall.py:16-19
    return sum(float(rank <= k) for rank in rank_above) / len(rank_above)


def openrec_tf1_ndcg(rank_above: np.ndarray, k: int) -> float:  # ndcg.py:16-25: ideal over every positive, uncut
    denominator = sum(1.0 / math.log(i + 2, 2) for i in range(len(rank_above)))
    return sum(1.0 / math.log(r + 2, 2) for r in rank_above if r < k) / denominator


def openrec_tf2_user_pred(pred: np.ndarray) -> np.ndarray:
    # tf2/metrics/ranking_metrics.py:33 and 56: exp() of the float32 prediction (l.33 multiplies it by a tf.float32
    # mask, so the prediction is float32); the mask zeroes excluded items, which are not candidates here
    with np.errstate(over="ignore"):
        return np.exp(pred.astype(np.float32))


def openrec_tf2_rank_above(user_pred: np.ndarray, pos_mask: np.ndarray) -> np.ndarray:
    # ranking_metrics.py:35 and 58: items (positives included) strictly above each positive
    return np.array([np.count_nonzero(user_pred > p) for p in user_pred[pos_mask]], dtype=np.float64)


def openrec_tf2_dcg(rank_above: np.ndarray, k: int) -> float:  # ranking_metrics.py:38-41: never normalised
    return float(sum(1 / math.log2(r + 2) for r in rank_above if r < k))


def openrec_tf2_recall(rank_above: np.ndarray, k: int) -> float:  # ranking_metrics.py:62-63
    return float(np.count_nonzero(rank_above < k) / len(rank_above))


def openrec_tf2_auc(pred: np.ndarray, pos_mask: np.ndarray, dtype: type = np.float32) -> float:
    # ranking_metrics.py:14-19: negatives (not positive, not excluded) scored <= each positive, on the float32
    # prediction (no exp)
    pred = pred.astype(dtype)
    eval_pred, pos_pred = pred[~pos_mask], pred[pos_mask]
    return float(np.count_nonzero(eval_pred <= pos_pred.reshape(-1, 1)) / (len(pos_pred) * len(eval_pred)))


def openrec_candidates(d: Data, user: str) -> tuple[np.ndarray, np.ndarray]:
    """(scores, positive mask) over every candidate of the user, positives first (the sampler's order)."""
    scores = d.scores[user]
    positives = [i for i in scores if i in d.relevant[user]]
    negatives = [i for i in scores if i not in d.relevant[user]]
    pred = np.array([scores[i] for i in positives + negatives], dtype=np.float64)
    return pred, np.arange(len(pred)) < len(positives)


@functools.cache
def openrec_tf1_theirs(model: str) -> Theirs:
    d = data(model)
    per: dict[str, Values] = {}
    for u in with_relevant(d):
        pred, pos = openrec_candidates(d, u)
        # model_trainer.py:49-51: full_eval(pos_samples, excl_pos_samples=[]) -> negative_num = len - |pos| (l.25)
        rank_above, negative_num = openrec_tf1_rank_above(pred[pos], pred[~pos]), len(pred) - pos.sum()
        per.setdefault("AUC", {})[u] = openrec_tf1_auc(rank_above, negative_num)
        for k in KS:
            per.setdefault(f"P@{k}", {})[u] = openrec_tf1_precision(rank_above, k)
            per.setdefault(f"R@{k}", {})[u] = openrec_tf1_recall(rank_above, k)
            per.setdefault(f"nDCG@{k}", {})[u] = openrec_tf1_ndcg(rank_above, k)
    return {name: values_and_mean(values) for name, values in per.items()}


@functools.cache
def openrec_tf2_theirs(model: str, exp: bool = True) -> Theirs:
    """``exp=False``: the same formulas on the scores as given (float64, no exp): pins the rest of the formula
    where float32 exp() changes the ranking."""
    d = data(model)
    per: dict[str, Values] = {}
    for u in with_relevant(d):
        pred, pos = openrec_candidates(d, u)
        per.setdefault("AUC", {})[u] = openrec_tf2_auc(pred, pos, np.float32 if exp else np.float64)
        rank_above = openrec_tf2_rank_above(openrec_tf2_user_pred(pred) if exp else pred, pos)
        for k in KS:
            per.setdefault(f"nDCG@{k}", {})[u] = openrec_tf2_dcg(rank_above, k)
            per.setdefault(f"DCG@{k}", {})[u] = openrec_tf2_dcg(rank_above, k)
            per.setdefault(f"R@{k}", {})[u] = openrec_tf2_recall(rank_above, k)
    return {name: values_and_mean(values) for name, values in per.items()}


OPENREC_TF1 = (*at("P", "R", "nDCG"), "AUC")
OPENREC_TF2 = (*at("nDCG", "DCG", "R"), "AUC")


def test_hand_openrec() -> None:
    # E (research notes §1): positives 1, 3, 6, 7; train items 8, 9 excluded; negatives 0, 2, 4, 5
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    pos = np.isin(np.arange(8), [1, 3, 6, 7])
    rank_above = openrec_tf1_rank_above(s[pos], s[~pos])
    assert list(rank_above) == [1, 2, 4, 4]
    assert openrec_tf1_auc(rank_above, 4) == 0.3125
    assert openrec_tf1_precision(rank_above, 3) == pytest.approx(2 / 3) and openrec_tf1_precision(rank_above, 5) == 0.8
    assert openrec_tf1_recall(rank_above, 3) == 0.5 and openrec_tf1_recall(rank_above, 5) == 1.0
    assert openrec_tf1_ndcg(rank_above, 3) == pytest.approx(0.441492, abs=1e-6)
    assert openrec_tf1_ndcg(rank_above, 5) == pytest.approx(0.743532, abs=1e-6)
    # more than 1: s = .9 .8 .1 .1, positives 0 and 1, nothing excluded
    two = openrec_tf1_rank_above(np.array([0.9, 0.8]), np.array([0.1, 0.1]))
    assert openrec_tf1_precision(two, 1) == 2.0 and openrec_tf1_ndcg(two, 1) == pytest.approx(1.226294, abs=1e-6)
    # tf2: ranks among every non-excluded item
    tf2_ranks = openrec_tf2_rank_above(openrec_tf2_user_pred(s), pos)
    assert list(tf2_ranks) == [1, 3, 6, 7] and openrec_tf2_auc(s, pos) == 0.3125
    assert openrec_tf2_dcg(tf2_ranks, 3) == pytest.approx(0.630930, abs=1e-6)
    assert openrec_tf2_dcg(tf2_ranks, 5) == pytest.approx(1.061606, abs=1e-6)
    assert openrec_tf2_recall(tf2_ranks, 3) == 0.25 and openrec_tf2_recall(tf2_ranks, 5) == 0.5
    # ties count as wins in the AUC: s(2) := s(1)
    tied = s.copy()
    tied[2] = 0.8
    assert openrec_tf1_auc(openrec_tf1_rank_above(tied[pos], tied[~pos]), 4) == 0.3125 == openrec_tf2_auc(tied, pos)
    # float32 exp() overflow: 100 and 90 both become inf, so the positive (90) has nothing above it
    big = openrec_tf2_user_pred(np.array([100.0, 90.0, 1.0]))
    overflow = openrec_tf2_rank_above(big, np.array([False, True, False]))
    assert list(overflow) == [0] and openrec_tf2_dcg(overflow, 1) == 1.0


# =================================================================================================== NeuRec
# wubinzzu/NeuRec 9e9391b (master; metric code of f8d3ab7, 2020-06-23). Users: every key of user_test_dict
# (python/uni_evaluator.py:112, cpp/uni_evaluator.py:116): the users with a test item, here with a relevant one;
# mean over them (np.mean, python l.146, cpp l.151). Values at k = index k-1 of the arrays over 1..max_top.
def neurec_cpp_precision(rank: list, truth: set, k: int) -> float:  # backend/cpp/include/metric.h:17-28
    return sum(1 for i in rank[:k] if i in truth) / k


def neurec_cpp_recall(rank: list, truth: set, k: int) -> float:  # metric.h:31-43
    return sum(1 for i in rank[:k] if i in truth) / len(truth)


def neurec_cpp_ap(rank: list, truth: set, k: int) -> float:  # metric.h:46-65: Σ P@i over hits / min(k, |T|)
    hits, sum_pre = 0, 0.0
    for i, item in enumerate(rank[:k]):
        if item in truth:
            hits += 1
            sum_pre += hits / (i + 1)
    denominator = min(len(truth), k)  # l.62
    return 0.0 if hits == 0 else sum_pre / denominator  # l.63


def neurec_cpp_ndcg(rank: list, truth: set, k: int) -> float:  # metric.h:69-86: ideal over min(|T|, k) ranks
    dcg = sum(1.0 / math.log2(i + 2) for i, item in enumerate(rank[:k]) if item in truth)
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(truth))))
    return dcg / idcg


def neurec_cpp_mrr(rank: list, truth: set, k: int) -> float:  # metric.h:89-109
    for i, item in enumerate(rank[:k]):
        if item in truth:
            return 1.0 / (i + 1)
    return 0.0


def neurec_py_precision(rank: list, truth: set) -> np.ndarray:  # backend/python/metric.py:20-24
    hits = [1 if item in truth else 0 for item in rank]
    return np.cumsum(hits, dtype=np.float64) / np.arange(1, len(rank) + 1)


def neurec_py_recall(rank: list, truth: set) -> np.ndarray:  # metric.py:27-31
    hits = [1 if item in truth else 0 for item in rank]
    return np.cumsum(hits, dtype=np.float64) / len(truth)


def neurec_py_map(rank: list, truth: set) -> list:  # metric.py:34-41: ÷ Σ_{j<=k} min(j, |T|) (l.39)
    pre = neurec_py_precision(rank, truth)
    pre = [pre[idx] if item in truth else 0 for idx, item in enumerate(rank)]
    sum_pre = np.cumsum(pre, dtype=np.float64)
    relevant_num = np.cumsum([min(idx + 1, len(truth)) for idx, _ in enumerate(rank)])
    return [p / r_num if r_num != 0 else 0 for p, r_num in zip(sum_pre, relevant_num)]


def neurec_py_ndcg(rank: list, truth: set) -> np.ndarray:  # metric.py:44-52
    len_rank = len(rank)
    idcg_len = min(len(truth), len_rank)
    idcg = np.cumsum(1.0 / np.log2(np.arange(2, len_rank + 2)))
    idcg[idcg_len:] = idcg[idcg_len - 1]
    dcg = np.cumsum([1.0 / np.log2(idx + 2) if item in truth else 0.0 for idx, item in enumerate(rank)])
    return dcg / idcg


def neurec_py_mrr(rank: list, truth: set) -> np.ndarray:  # metric.py:55-64
    last_idx = len(rank)  # sys.maxsize in the source: no hit leaves the array at 0
    for idx, item in enumerate(rank):
        if item in truth:
            last_idx = idx
            break
    result = np.zeros(len(rank), dtype=np.float64)
    result[last_idx:] = 1.0 / (last_idx + 1)
    return result


def neurec_argmax_top_k(scores: np.ndarray, top_k: int) -> list[int]:
    # util/tool.py:149-151: tuples (score, index) compared: ties go to the higher index
    return [idx for _, idx in heapq.nlargest(top_k, zip(scores, itertools.count()))]


NEUREC_MEASURES = at("P", "R", "AP", "nDCG", "RR")


@functools.cache
def neurec_cpp_theirs(model: str) -> Theirs:
    # C++ ranking (evaluate.h:38-42, partial_sort_copy) orders ties in an implementation-defined way: the lists
    d = data(model)
    fns = {"P": neurec_cpp_precision, "R": neurec_cpp_recall, "AP": neurec_cpp_ap, "nDCG": neurec_cpp_ndcg,
           "RR": neurec_cpp_mrr}  # fmt: skip
    return {f"{name}@{k}": values_and_mean({u: fn(d.ranked[u], d.relevant[u], k) for u in with_relevant(d)})
            for k in KS for name, fn in fns.items()}  # fmt: skip


@functools.cache
def neurec_py_theirs(model: str) -> Theirs:
    d = data(model)
    index = {item: j for j, item in enumerate(d.items)}  # internal index: items in id order
    max_top = max(KS)
    fns = {"P": neurec_py_precision, "R": neurec_py_recall, "AP": neurec_py_map, "nDCG": neurec_py_ndcg,
           "RR": neurec_py_mrr}  # fmt: skip
    per: dict[str, Values] = {}
    for u in with_relevant(d):
        scores = np.full(len(d.items), -np.inf)  # train items stay at -inf (python/uni_evaluator.py:133-138)
        for item, score in d.scores[u].items():
            scores[index[item]] = score
        ranking = [d.items[j] for j in neurec_argmax_top_k(scores, max_top)]  # uni_evaluator.py:160
        for name, fn in fns.items():
            result = fn(ranking, d.relevant[u])
            for k in KS:
                per.setdefault(f"{name}@{k}", {})[u] = float(result[k - 1])  # top_show - 1 (l.149)
    return {name: values_and_mean(values) for name, values in per.items()}


def test_hand_neurec() -> None:
    # E (research notes §2), ranking [0, 1, 2, 3, 4], test {1, 3, 6, 7}
    rank, truth = [0, 1, 2, 3, 4], {1, 3, 6, 7}
    for k, (p, r, ndcg, mrr, py_map, cpp_map) in {3: (1 / 3, 0.25, 0.296082, 0.5, 0.083333, 0.166667),
                                                  5: (0.4, 0.5, 0.414430, 0.5, 0.071429, 0.25)}.items():  # fmt: skip
        assert neurec_cpp_precision(rank, truth, k) == pytest.approx(p) == neurec_py_precision(rank, truth)[k - 1]
        assert neurec_cpp_recall(rank, truth, k) == pytest.approx(r) == neurec_py_recall(rank, truth)[k - 1]
        assert neurec_cpp_ndcg(rank, truth, k) == pytest.approx(ndcg, abs=1e-6)
        assert neurec_py_ndcg(rank, truth)[k - 1] == pytest.approx(ndcg, abs=1e-6)
        assert neurec_cpp_mrr(rank, truth, k) == mrr == neurec_py_mrr(rank, truth)[k - 1]
        assert neurec_py_map(rank, truth)[k - 1] == pytest.approx(py_map, abs=1e-6)
        assert neurec_cpp_ap(rank, truth, k) == pytest.approx(cpp_map, abs=1e-6)
    assert neurec_argmax_top_k(np.array([0.5, 0.5, 0.5, 0.1]), 4) == [2, 1, 0, 3]


# ---------------------------------------------------------------------------------------- neurec 1.0.0 (PyPI)
# neurec-1.0.0 wheel (= wubinzzu/NeuRec tag 1.0, b577841) neurec/evaluation/foldout/: one cutoff K = model.topK,
# rank_list = heapq.nlargest(K, ...) (FoldOutEvaluate.py:75), users with a test item (l.31-34), mean
# (evaluation/Evaluate.py:27-32).
def neurec1_precision(rank_list: list, target: set, top_k: int) -> float:  # foldout/Precision.py:1-10
    return sum(1 for item in rank_list if item in target) / top_k


def neurec1_recall(rank_list: list, target: set) -> float:  # foldout/Recall.py:1-10
    return sum(1 for item in rank_list if item in target) / len(target)


def neurec1_ap(rank_list: list, target: set) -> float:  # foldout/MAP.py:1-12: ÷ min(|list|, |T|)
    hits, sum_precs = 0, 0.0
    for n in range(len(rank_list)):
        if rank_list[n] in target:
            hits += 1
            sum_precs += hits / (n + 1.0)
    return sum_precs / min(len(rank_list), len(target)) if hits > 0 else 0


def neurec1_ndcg(rank_list: list, target: set) -> float:  # foldout/NDCG.py:2-17: ideal over all |T|, uncut
    dcg = sum(1 / math.log(rank + 1, 2) for rank, item in enumerate(rank_list, start=1) if item in target)
    idcg = sum(1 / math.log(i + 2, 2) for i in range(len(target)))
    return dcg / idcg


def neurec1_mrr(rank_list: list, target: set) -> float:  # foldout/MRR.py:1-7: `else: return 0` inside the loop
    for i in range(len(rank_list)):
        if rank_list[i] in target:
            return 1 / (i + 1)
        else:
            return 0
    return 0  # an empty list (the source returns None)


@functools.cache
def neurec1_theirs(model: str) -> Theirs:
    # ties: nlargest over a dict in insertion order = iteration order of set(range(n_items)) - train (ascending
    # small ints in CPython, FoldOutEvaluate.py:65-66): the lists' order (ties by id ascending)
    d = data(model)
    out: Theirs = {}
    for k in KS:
        lists_k = {u: d.ranked[u][:k] for u in with_relevant(d)}
        out[f"P@{k}"] = values_and_mean({u: neurec1_precision(lst, d.relevant[u], k) for u, lst in lists_k.items()})
        out[f"R@{k}"] = values_and_mean({u: neurec1_recall(lst, d.relevant[u]) for u, lst in lists_k.items()})
        out[f"AP@{k}"] = values_and_mean({u: neurec1_ap(lst, d.relevant[u]) for u, lst in lists_k.items()})
        out[f"nDCG@{k}"] = values_and_mean({u: neurec1_ndcg(lst, d.relevant[u]) for u, lst in lists_k.items()})
        out[f"RR@{k}"] = values_and_mean({u: neurec1_mrr(lst, d.relevant[u]) for u, lst in lists_k.items()})
    return out


def test_hand_neurec1() -> None:
    rank, truth = [0, 1, 2, 3, 4], {1, 3, 6, 7}  # E, K = 5 (research notes §2)
    assert neurec1_precision(rank, truth, 5) == 0.4 and neurec1_recall(rank, truth) == 0.5
    assert neurec1_ap(rank, truth) == 0.25 and neurec1_ndcg(rank, truth) == pytest.approx(0.414430, abs=1e-6)
    assert neurec1_mrr(rank, truth) == 0 and neurec1_mrr([1, 0], truth) == 1.0 and neurec1_mrr([0, 1], truth) == 0


# ================================================================================================= DaisyRec
# DaisyRec 1.x: AmazingDD/daisyRec 5cdb1ba (dev, 2021-07-12) daisy/utils/metrics.py; main.py:285-286 turns each
# top-k list into r = [1 if item in test_ur[u] else 0], main.py:298-299 cuts it to k, l.301-306 computes. Users: the
# keys of preds = test users; ratings below pos_threshold are dropped before the split (loader.py:147-149), so the
# test users are the users with a relevant item. Ties: torch.topk (main.py:279): the lists.
def daisy1_precision(r: list, k: int) -> float:  # metrics.py:16-23 (raises for a list shorter than k)
    r = np.asarray(r)[:k] != 0
    if r.size != k:
        raise ValueError("Relevance score length < k")
    return sum(r) / len(r)


def daisy1_recall(r: list, test: set, k: int) -> float:  # metrics.py:39-47 (per user), mean l.48
    return sum(np.asarray(r)[:k] != 0) / len(test)


def daisy1_rr(r: list, k: int) -> float:  # metrics.py:65-71: every hit adds 1/rank (÷ #users at l.72)
    return sum(1 / (index + 1) for index, item in enumerate(np.asarray(r)[:k] != 0) if item == 1)


def daisy1_ap(r: list) -> float:  # metrics.py:77-94: Σ P@i over hits ÷ len(r) = k
    r = np.asarray(r) != 0
    out = [daisy1_precision(r, k + 1) for k in range(r.size) if r[k]]
    return float(np.sum(out) / len(r)) if out else 0.0


def daisy1_dcg(r: list, k: int) -> float:  # metrics.py:112-130: binary gain 2^[r≠0] − 1
    r = np.asarray(r, dtype=np.float64)[:k] != 0
    return float(np.sum(np.subtract(np.power(2, r), 1) / np.log2(np.arange(2, r.size + 2)))) if r.size else 0.0


def daisy1_ndcg(r: list, k: int) -> float:  # metrics.py:133-152: ideal = the same hits sorted first
    idcg = daisy1_dcg(sorted(r, reverse=True), k)
    return daisy1_dcg(r, k) / idcg if idcg else 0.0


def daisy1_hit(r: list) -> float:  # metrics.py:155-180 (fraction of users with a hit)
    return 1.0 if np.sum(r) != 0 else 0.0


@functools.cache
def daisy1_theirs(model: str) -> Theirs:
    d = data(model)
    users = with_relevant(d)
    out: Theirs = {}
    for k in KS:
        rs = {u: [1 if i in d.relevant[u] else 0 for i in d.ranked[u]][:k] for u in users}  # main.py:285-286, 299
        out[f"P@{k}"] = values_and_mean({u: float(daisy1_precision(r, k)) for u, r in rs.items()})  # main.py:301
        out[f"R@{k}"] = values_and_mean({u: float(daisy1_recall(r, d.relevant[u], k)) for u, r in rs.items()})
        out[f"RR@{k}"] = values_and_mean({u: daisy1_rr(r, k) for u, r in rs.items()})
        out[f"AP@{k}"] = values_and_mean({u: daisy1_ap(r) for u, r in rs.items()})  # map_at_k l.97-109
        out[f"nDCG@{k}"] = values_and_mean({u: daisy1_ndcg(r, k) for u, r in rs.items()})  # main.py:306
        out[f"HitRate@{k}"] = values_and_mean({u: daisy1_hit(r) for u, r in rs.items()})
    return out


# DaisyRec-v2.0 benchmark: recsys-benchmark/DaisyRec-v2.0 88b0a32 (dev HEAD) daisy/utils/metrics.py; pred =
# pred_ur[:, :topk] (l.281), r = np.in1d(pred, test); users test_u (ratings below positive_threshold dropped
# before the split, loader.py:312-313: users with a relevant item); each metric = np.mean over them.
def daisy20_precision(pred: list, gt: set) -> float:  # metrics.py:98-108
    return float(np.isin(pred, list(gt)).sum() / len(pred))


def daisy20_recall(pred: list, gt: set) -> float:  # metrics.py:111-121
    return float(np.isin(pred, list(gt)).sum() / len(gt))


def daisy20_mrr(pred: list, gt: set) -> float:  # metrics.py:124-136: every hit adds 1/rank (l.133, no break)
    mrr = 0.0
    for index, item in enumerate(pred):
        if item in gt:
            mrr += 1 / (index + 1)
    return mrr


def daisy20_map(pred: list, gt: set) -> float:  # metrics.py:139-153: mean of P@i over the hits (÷ H)
    r = np.isin(pred, list(gt))
    out = [r[: k + 1].sum() / (k + 1) for k in range(r.size) if r[k]]
    return float(np.mean(out)) if out else 0.0


def daisy20_ndcg(pred: list, gt: set) -> float:  # metrics.py:156-180: ideal from the hits in the list (l.172)
    def dcg(r: np.ndarray) -> float:
        r = np.asarray(r, dtype=np.float64) != 0
        return float(np.sum(np.subtract(np.power(2, r), 1) / np.log2(np.arange(2, r.size + 2)))) if r.size else 0.0

    r = np.isin(pred, list(gt))
    idcg = dcg(sorted(r, reverse=True))
    return dcg(r) / idcg if idcg else 0.0


def daisy20_hr(pred: list, gt: set) -> float:  # metrics.py:183-193
    return 1.0 if np.isin(pred, list(gt)).sum() else 0.0


DAISY_MEASURES = at("P", "R", "AP", "nDCG", "RR", "HitRate")


@functools.cache
def daisy20_theirs(model: str) -> Theirs:
    d = data(model)
    fns = {"P": daisy20_precision, "R": daisy20_recall, "AP": daisy20_map, "nDCG": daisy20_ndcg, "RR": daisy20_mrr,
           "HitRate": daisy20_hr}  # fmt: skip
    return {f"{name}@{k}": values_and_mean({u: fn(d.ranked[u][:k], d.relevant[u]) for u in with_relevant(d)})
            for k in KS for name, fn in fns.items()}  # fmt: skip


def test_hand_daisyrec() -> None:
    # E (research notes §5): list [0..4], test {1, 3, 6, 7}
    pred, gt = [0, 1, 2, 3, 4], {1, 3, 6, 7}
    r = [1 if i in gt else 0 for i in pred]
    expected = {3: (1 / 3, 0.25, 0.166667, 0.5, 0.630930, 0.5, 0.5), 5: (0.4, 0.5, 0.2, 0.75, 0.650921, 0.5, 0.75)}
    for k, (p, rec, ap1, mrr1, ndcg, ap20, mrr20) in expected.items():
        assert daisy1_precision(r[:k], k) == pytest.approx(p) and daisy1_recall(r[:k], gt, k) == rec
        assert daisy1_ap(r[:k]) == pytest.approx(ap1, abs=1e-6) and daisy1_rr(r[:k], k) == mrr1
        assert daisy1_ndcg(r[:k], k) == pytest.approx(ndcg, abs=1e-6) and daisy1_hit(r[:k]) == 1
        assert daisy20_precision(pred[:k], gt) == pytest.approx(p) and daisy20_recall(pred[:k], gt) == rec
        assert daisy20_map(pred[:k], gt) == ap20 and daisy20_mrr(pred[:k], gt) == mrr20
        assert daisy20_ndcg(pred[:k], gt) == pytest.approx(ndcg, abs=1e-6) and daisy20_hr(pred[:k], gt) == 1
    with pytest.raises(ValueError):
        daisy1_precision([1, 0], 5)


# =============================================================================================== DL-RS-Eval
# MaurizioFD/RecSys2019_DeepLearning_Evaluation f5618c6, Base/Evaluation/Evaluator.py and metrics.py. Users: rows
# of URM_test with >= min_ratings_per_user = 1 stored entries (Evaluator.py:146, 192-202): with the readers'
# `data >= 4.0; eliminate_zeros()`, the users with a relevant item; every metric ÷ that count (l.242-255, MAP and
# MRR objects keep the same count, metrics.py:50-55, 88-93). Test values are True (1). Per cutoff the list is
# L[:k] (Evaluator.py:331-332); ties: argpartition + np.argsort quicksort (BaseRecommender.py:189-196): the lists.
def dlrs_precision(is_relevant: np.ndarray) -> float:  # metrics.py:136-144: ÷ len(L[:k])
    return float(np.sum(is_relevant) / len(is_relevant)) if len(is_relevant) else 0.0


def dlrs_precision_min_den(is_relevant: np.ndarray, n_test_items: int) -> float:  # metrics.py:147-155
    return float(np.sum(is_relevant) / min(n_test_items, len(is_relevant))) if len(is_relevant) else 0.0


def dlrs_recall(is_relevant: np.ndarray, pos_items: np.ndarray) -> float:  # metrics.py:159-164
    return float(np.sum(is_relevant) / pos_items.shape[0])


def dlrs_average_precision(is_relevant: np.ndarray, pos_items: np.ndarray) -> float:  # metrics.py:65-74
    if len(is_relevant) == 0:
        return 0.0
    p_at_k = is_relevant * np.cumsum(is_relevant, dtype=np.float64) / (1 + np.arange(is_relevant.shape[0]))
    return float(np.sum(p_at_k) / np.min([pos_items.shape[0], is_relevant.shape[0]]))


def dlrs_rr(is_relevant: np.ndarray) -> float:  # metrics.py:167-175
    ranks = np.arange(1, len(is_relevant) + 1)[is_relevant]
    return 1.0 / ranks[0] if len(ranks) > 0 else 0.0


def dlrs_arhr(is_relevant: np.ndarray) -> float:  # metrics.py:122-133
    return float(is_relevant.dot(1 / np.arange(1, len(is_relevant) + 1, 1.0, dtype=np.float64)))


def dlrs_roc_auc(is_relevant: np.ndarray) -> float:  # metrics.py:102-118: positions within L[:k]
    ranks = np.arange(len(is_relevant))
    pos_ranks, neg_ranks = ranks[is_relevant], ranks[~is_relevant]
    if len(neg_ranks) == 0:
        return 1.0
    auc_score = 0.0
    if len(pos_ranks) > 0:
        for pos_pred in pos_ranks:
            auc_score += np.sum(pos_pred < neg_ranks)
        auc_score /= pos_ranks.shape[0] * neg_ranks.shape[0]
    return float(auc_score)


def dlrs_dcg(scores: np.ndarray) -> float:  # metrics.py:207-209: (2^rel − 1) / ln(i + 2)
    return float(np.sum(np.divide(np.power(2, scores) - 1, np.log(np.arange(scores.shape[0], dtype=np.float64) + 2))))


def dlrs_ndcg(ranked_list: list, pos_items: np.ndarray, relevance: np.ndarray, at: int) -> float:
    # metrics.py:180-204: ideal over every test item (uncut, l.194); 0 when the list's DCG is 0 (l.199-200)
    it2rel = dict(zip(pos_items, relevance))
    rank_scores = np.asarray([it2rel.get(it, 0.0) for it in ranked_list[:at]], dtype=np.float64)
    ideal_dcg = dlrs_dcg(np.sort(relevance)[::-1])
    rank_dcg = dlrs_dcg(rank_scores)
    return 0.0 if rank_dcg == 0.0 else rank_dcg / ideal_dcg


DLRS_MEASURES = (*at("P", "P(denom=min_shown_R)", "R", "AP", "nDCG", "RR", "RR(hits=all)", "HitRate", "AUC"),
                 *at("F1"))  # fmt: skip


@functools.cache
def dlrs_theirs(model: str) -> Theirs:
    d = data(model)
    per: dict[str, Values] = {}
    for u in with_relevant(d):
        pos_items = np.array(sorted(d.relevant[u], key=int))  # CSR column indices: ascending
        relevance = np.ones(len(pos_items), dtype=np.float64)  # stored True (>= 4.0), i.e. 1
        recommended = np.array(d.ranked[u])
        is_relevant = np.isin(recommended, pos_items)  # Evaluator.py:323
        for k in KS:
            rel_k, rec_k = is_relevant[:k], list(recommended[:k])  # l.331-332
            per.setdefault(f"AUC@{k}", {})[u] = dlrs_roc_auc(rel_k)  # l.334
            per.setdefault(f"P@{k}", {})[u] = dlrs_precision(rel_k)  # l.335
            per.setdefault(f"P(denom=min_shown_R)@{k}", {})[u] = dlrs_precision_min_den(rel_k, len(pos_items))
            per.setdefault(f"R@{k}", {})[u] = dlrs_recall(rel_k, pos_items)  # l.337
            per.setdefault(f"nDCG@{k}", {})[u] = dlrs_ndcg(rec_k, pos_items, relevance, k)  # l.338
            per.setdefault(f"HitRate@{k}", {})[u] = float(rel_k.sum())  # l.339: HIT_RATE sums hits
            per.setdefault(f"RR(hits=all)@{k}", {})[u] = dlrs_arhr(rel_k)  # l.340 (ARHR)
            per.setdefault(f"RR@{k}", {})[u] = dlrs_rr(rel_k)  # l.342
            per.setdefault(f"AP@{k}", {})[u] = dlrs_average_precision(rel_k, pos_items)  # l.343
    out: Theirs = {name: values_and_mean(values) for name, values in per.items()}
    for k in KS:  # Evaluator.py:257-263: F1 from the mean precision and mean recall (0 stays if both are 0)
        p, r = out[f"P@{k}"][1], out[f"R@{k}"][1]
        out[f"F1@{k}"] = (None, 2 * (p * r) / (p + r) if p + r != 0 else 0.0)
    return out


def test_hand_dl_rs_eval() -> None:
    # E (research notes §6): list [0..7], test items 1, 3, 6, 7 with their ratings 5, 3, 4, 1 as test values
    pos_items, ratings = np.array([1, 3, 6, 7]), np.array([5.0, 3.0, 4.0, 1.0])
    recommended = list(range(8))
    is_relevant = np.isin(recommended, pos_items)
    rel5, rel3 = is_relevant[:5], is_relevant[:3]
    assert dlrs_precision(rel5) == 0.4 and dlrs_precision_min_den(rel5, 4) == 0.5
    assert dlrs_recall(rel5, pos_items) == 0.5
    assert dlrs_average_precision(rel5, pos_items) == 0.25 and dlrs_rr(rel5) == 0.5 and dlrs_arhr(rel5) == 0.75
    assert rel5.sum() == 2 and dlrs_roc_auc(rel5) == 0.5 and dlrs_roc_auc(np.array([], dtype=bool)) == 1.0
    assert dlrs_ndcg(recommended, pos_items, ratings, 5) == pytest.approx(0.508475, abs=1e-6)
    assert dlrs_ndcg(recommended, pos_items, np.ones(4), 5) == pytest.approx(0.414430, abs=1e-6)
    assert dlrs_precision(rel3) == pytest.approx(1 / 3) and dlrs_precision_min_den(rel3, 4) == pytest.approx(1 / 3)
    assert dlrs_average_precision(rel3, pos_items) == pytest.approx(0.166667, abs=1e-6)
    assert dlrs_roc_auc(rel3) == 0.5 and dlrs_recall(rel3, pos_items) == 0.25
    assert dlrs_ndcg(recommended, pos_items, ratings, 3) == pytest.approx(0.440567, abs=1e-6)
    assert dlrs_ndcg(recommended, pos_items, np.ones(4), 3) == pytest.approx(0.246302, abs=1e-6)


# =========================================================================================== RecSys_PyTorch
# yoongi0428/RecSys_PyTorch 4787f1a (2021-05-23), evaluation/backend/python/holdout.py:11-43 (the Cython backend,
# cython/include/holdout.h:20-65, computes the same in float32). Users: every key of eval_target
# (evaluator.py:31, utils/types.py sparse_to_dict): a user without test items divides by zero, so a run that
# completes has only users with a (relevant) test item; mean = Statistics.mean (utils/stats.py:30-32, float32).
# Ties: argpartition + unstable argsort of float32 scores (evaluator.py:37, python/func.py:4-17): the lists.
def recsys_pytorch_user(pred_u: list, target_u: set, k: int) -> tuple[float, float, float]:  # holdout.py:20-36
    num_target_items = len(target_u)
    pred_k = pred_u[:k]
    hits_k = [(i + 1, item) for i, item in enumerate(pred_k) if item in target_u]
    num_hits = len(hits_k)
    idcg_k = sum(1 / math.log(i + 1, 2) for i in range(1, min(num_target_items, k) + 1))
    dcg_k = sum(1 / math.log(idx + 1, 2) for idx, _ in hits_k)
    return num_hits / k, num_hits / num_target_items, dcg_k / idcg_k  # Prec, Recall, NDCG


RECSYS_PYTORCH_MEASURES = at("P", "R", "nDCG")


@functools.cache
def recsys_pytorch_theirs(model: str) -> Theirs:
    d = data(model)
    out: Theirs = {}
    for k in KS:
        values = {u: recsys_pytorch_user(d.ranked[u], d.relevant[u], k) for u in with_relevant(d)}
        for j, name in enumerate(("P", "R", "nDCG")):
            out[f"{name}@{k}"] = values_and_mean({u: v[j] for u, v in values.items()})
    return out


def test_hand_recsys_pytorch() -> None:
    # E: list [0..7], test {1, 3, 6, 7}: the trec_eval-style values of the notes (P, R, nDCG with ideal min(R, k))
    assert recsys_pytorch_user(list(range(8)), {1, 3, 6, 7}, 5) == pytest.approx((0.4, 0.5, 0.414430), abs=1e-6)
    assert recsys_pytorch_user(list(range(8)), {1, 3, 6, 7}, 3) == pytest.approx((1 / 3, 0.25, 0.296082), abs=1e-6)


# ================================================================================================ the cases
@dataclass(frozen=True)
class Pinned:
    dialect: str
    measures: tuple[str, ...]
    theirs: Callable[[str], Theirs]
    ours: Callable[[str, str], rankwise.EvaluationResult]  # (model, measure) -> rankwise's result
    # (measure or None, model or None, part or None) -> why rankwise differs (what it must change)
    xfails: dict[tuple[str | None, str | None, str | None], str] = field(default_factory=dict)


def ranked_run(dialect: str, measures: tuple[str, ...]) -> Callable[[str, str], rankwise.EvaluationResult]:
    return lambda model, measure: ours(dialect, model, measures, "ranked")


def run_of(dialect: str, measures: tuple[str, ...], run: str) -> Callable[[str, str], rankwise.EvaluationResult]:
    return lambda model, measure: ours(dialect, model, measures, run)


TF2_EXP = (
    "tf2 ranks exp() of the float32 prediction (openrec/tf2/metrics/ranking_metrics.py:33, 56): popularity scores "
    "above 88.72 overflow to inf and tie, so every positive among them has no item above it; rankwise ranks the "
    "scores as given (the dialect's caveat): it would need a float32-exp score policy for openrec@tf2 (the same "
    "formulas on the scores as given agree: 'openrec@tf2 (no exp)')"
)

BETA_SLOW_PATH = (
    "a user with at most k rows (the 20-row lists at k = 20) goes through pandas nlargest's slow path, numpy's "
    "unstable quicksort (beta_top_k): user 533's tied items 125 (relevant) and 238 (both 208) come out 238 first, "
    "so 125 has rank 11, not 10; rankwise keeps the input order (the dialect's caveat): it would need a tie policy "
    "that replays numpy <= 1.24's introsort"
)

PINNED: dict[str, Pinned] = {
    "elliot": Pinned("elliot", (*at(*ELLIOT_LIST), *ELLIOT_FULL), elliot_theirs, elliot_ours),
    "beta_recsys": Pinned(
        "beta_recsys",
        MS_MEASURES,
        beta_theirs,
        run_of("beta_recsys", MS_MEASURES, "shuffled"),
    ),
    "beta_recsys (lists)": Pinned(
        "beta_recsys",
        MS_MEASURES,
        beta_listed_theirs,
        run_of("beta_recsys", MS_MEASURES, "listed"),
        {(measure, "popularity", None): BETA_SLOW_PATH for measure in ("nDCG@20", "AP@20")},
    ),
    "ms_recommenders@1.1": Pinned(
        "ms_recommenders@1.1",
        MS_MEASURES,
        ms_theirs,
        run_of("ms_recommenders@1.1", MS_MEASURES, "shuffled"),
    ),
    "openrec@tf1": Pinned("openrec@tf1", OPENREC_TF1, openrec_tf1_theirs, run_of("openrec@tf1", OPENREC_TF1, "scores")),
    "openrec@tf2": Pinned(
        "openrec@tf2",
        OPENREC_TF2,
        openrec_tf2_theirs,
        run_of("openrec@tf2", OPENREC_TF2, "scores"),
        {(measure, "popularity", None): TF2_EXP for measure in at("nDCG", "DCG", "R")},
    ),
    "openrec@tf2 (no exp)": Pinned(
        "openrec@tf2",
        OPENREC_TF2,
        lambda model: openrec_tf2_theirs(model, exp=False),
        run_of("openrec@tf2", OPENREC_TF2, "scores"),
    ),
    "neurec": Pinned("neurec", NEUREC_MEASURES, neurec_cpp_theirs, ranked_run("neurec", NEUREC_MEASURES)),
    "neurec@2020.python": Pinned(
        "neurec@2020.python", NEUREC_MEASURES, neurec_py_theirs, run_of("neurec@2020.python", NEUREC_MEASURES, "scores")
    ),
    "neurec@1": Pinned("neurec@1", NEUREC_MEASURES, neurec1_theirs, ranked_run("neurec@1", NEUREC_MEASURES)),
    "daisyrec@1": Pinned(
        "daisyrec@1",
        DAISY_MEASURES,
        daisy1_theirs,
        ranked_run("daisyrec@1", DAISY_MEASURES),
    ),
    "daisyrec@2.0-benchmark": Pinned(
        "daisyrec@2.0-benchmark", DAISY_MEASURES, daisy20_theirs, ranked_run("daisyrec@2.0-benchmark", DAISY_MEASURES)
    ),
    "dl_rs_eval": Pinned(
        "dl_rs_eval",
        DLRS_MEASURES,
        dlrs_theirs,
        ranked_run("dl_rs_eval", DLRS_MEASURES),
    ),
    "recsys_pytorch": Pinned(
        "recsys_pytorch",
        RECSYS_PYTORCH_MEASURES,
        recsys_pytorch_theirs,
        ranked_run("recsys_pytorch", RECSYS_PYTORCH_MEASURES),
    ),
}


def same(a: float | None, b: float | None) -> bool:
    return close(a, b, rel_tol=TOL, abs_tol=TOL)


def has_per_user(label: str, measure: str) -> bool:
    """Whether the library has per-user values for this measure (not for pooled AUCs or DL-RS-Eval's F1)."""
    pooled = label.startswith(("beta_recsys", "ms_recommenders@1.1")) and measure == "AUC"
    return not (measure == "AUC(mean=pooled)" or pooled
                or (label == "dl_rs_eval" and measure.startswith("F1")))  # fmt: skip


def params() -> list:
    out = []
    for label, pinned in PINNED.items():
        for model in MODELS:
            for measure in pinned.measures:
                for part in ("users", "mean") if has_per_user(label, measure) else ("mean",):
                    keys = itertools.product((measure, None), (model, None), (part, None))
                    reason = next((pinned.xfails[key] for key in keys if key in pinned.xfails), None)
                    marks = [pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"{label}: {reason}")]
                    out.append(pytest.param(label, model, measure, part, marks=marks if reason else [],
                                            id=f"{label}-{model}-{measure}-{part}"))  # fmt: skip
    return out


@pytest.mark.parametrize(("label", "model", "measure", "part"), params())
def test_pinned(label: str, model: str, measure: str, part: str, movielens: None) -> None:
    pinned = PINNED[label]
    per_user, mean = pinned.theirs(model)[measure]
    result = pinned.ours(model, measure)
    mine = {user: values[measure] for user, values in result.per_query.items()}
    if part == "users":
        diff = [(u, mine.get(u), v) for u, v in per_user.items() if not same(mine.get(u), v)]
        assert not diff, f"{measure}: {len(diff)} of {len(per_user)} users differ (user, rankwise, library): {diff[:4]}"
        return
    if per_user is not None:
        extra = sorted((u for u, v in mine.items() if u not in per_user and not math.isnan(v)), key=int)
        missing = sorted((u for u in per_user if u not in mine or math.isnan(mine[u])), key=int)
        assert not extra and not missing, (
            f"{measure}: rankwise averages {len(extra)} users the library does not (e.g. {extra[:4]}) and leaves out "
            f"{len(missing)} it averages (e.g. {missing[:4]})"
        )
    assert same(result.aggregate[measure], mean), f"{measure}: rankwise {result.aggregate[measure]!r}, library {mean!r}"


def test_ms_recommenders_1_1_ndcg_averages_the_common_users() -> None:
    # not visible on the ML-100K lists (every truth user has a list): u2 is judged and has no recommendations
    qrels, run = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}}, {"u1": {"a": 2.0, "x": 1.0}}
    n_users = 1  # truth users ∩ prediction users
    result = rankwise.evaluate(qrels, run, ["P@2", "nDCG@2"], dialect="ms_recommenders@1.1")
    assert same(result.aggregate["P@2"], ms_precision(1, 2) / n_users)
    assert same(result.aggregate["nDCG@2"], ms_ndcg([1], 2, 2) / n_users)
