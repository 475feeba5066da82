"""The replay dialect (>= 0.13) against RePlay's own metrics (``replay-rec`` on PyPI, ``replay.metrics``).

RePlay's ground truth is a frame of (query_id, item_id) rows, every row relevant; its recommendations carry a
``rating`` score. It averages over the ground-truth users (no recommendations = 0), cuts each list at k after
sorting by score and, from 0.20 on, by item id descending (0.18-0.19 sort pandas frames by score alone, so their
ties fall in pandas' unstable sort order).
"""

from __future__ import annotations

from importlib.metadata import version

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("replay")
metrics = pytest.importorskip("replay.metrics")

import rankwise  # noqa: E402
from conftest import close as shared_close  # noqa: E402

KS = [1, 3, 5, 10]
MEASURES = {"Precision": "P", "Recall": "R", "MAP": "AP", "NDCG": "nDCG", "MRR": "RR", "HitRate": "HitRate"}
REPLAY_VERSION = tuple(int(part) for part in version("replay-rec").split(".")[:2])
needs_item_id_ties = pytest.mark.skipif(
    REPLAY_VERSION < (0, 20), reason="RePlay < 0.20 breaks ties of pandas frames in pandas' unstable sort order"
)


def close(a: float, b: float) -> bool:
    return shared_close(a, b, abs_tol=1e-9)


def make_data(seed: int, *, ties: bool = True, zero_users: bool = False):
    """Ground truth (relevant rows only), recommendations, and grade-0 rows of users with nothing relevant."""
    rng = np.random.default_rng(seed)
    truth, recs, zeros = [], [], []
    for user in range(int(rng.integers(3, 10))):
        if zero_users and user % 3 == 1:  # judged, nothing relevant: not a RePlay ground-truth user
            zeros += [(user, int(item), 0) for item in rng.choice(30, 2, replace=False)]
        else:
            truth += [(user, int(item), 1) for item in rng.choice(30, int(rng.integers(1, 8)), replace=False)]
        if user == 0 or rng.random() < 0.8:  # some users get no recommendations
            n = int(rng.integers(1, 14))  # short lists too
            scores = rng.integers(0, 4, n) if ties else rng.permutation(n)
            recs += [(user, int(item), float(s)) for item, s in zip(rng.choice(30, n, replace=False), scores)]
    recs.append((99, 1, 1.0))  # a user without ground truth: RePlay leaves it out
    columns = ["query_id", "item_id", "rating"]
    return tuple(pd.DataFrame(rows, columns=columns) for rows in (truth, recs, zeros))


def as_rankwise(truth, recs, zeros=None):
    qrels = truth if zeros is None or zeros.empty else pd.concat([truth, zeros], ignore_index=True)
    qrels = qrels.rename(columns={"query_id": "user_id", "rating": "relevance"})
    run = recs.rename(columns={"query_id": "user_id", "rating": "score"})
    return qrels, run


def theirs(metric: str, truth, recs) -> tuple[dict, dict]:
    """RePlay's per-user values and means for every k: ({k: {user: value}}, {k: mean})."""
    cls = getattr(metrics, metric)
    ground_truth = truth[["query_id", "item_id"]]
    per_user = cls(KS, mode=metrics.PerUser())(recs, ground_truth)
    means = cls(KS)(recs, ground_truth)
    return (
        {k: per_user[f"{metric}-PerUser@{k}"] for k in KS},
        {k: means[f"{metric}@{k}"] for k in KS},
    )


def mismatches(result, truth, recs, names: dict[str, str]) -> list[tuple]:
    """Every (metric, k, user or 'mean', ours, theirs) where rankwise and RePlay differ, over RePlay's users."""
    out = []
    for metric, measure in names.items():
        per_user, means = theirs(metric, truth, recs)
        for k in KS:
            key = f"{measure}@{k}"
            assert {str(u) for u in per_user[k]} == {str(u) for u in truth["query_id"]}, (metric, k)
            for user, value in per_user[k].items():
                ours = result.per_query[str(user)][key]
                if not close(ours, value):
                    out.append((metric, k, user, ours, value))
            if not close(result.aggregate[key], means[k]):
                out.append((metric, k, "mean", result.aggregate[key], means[k]))
    return out


def evaluate(qrels, run, names: dict[str, str], **kwargs):
    return rankwise.evaluate(qrels, run, [f"{m}@{k}" for m in names.values() for k in KS], dialect="replay", **kwargs)


# ------------------------------------------------------------------------------------------ agreement
@needs_item_id_ties
@pytest.mark.parametrize("seed", range(20))
def test_replay_dialect_equals_replay(seed: int) -> None:
    truth, recs, _ = make_data(seed)
    qrels, run = as_rankwise(truth, recs)
    result = evaluate(qrels, run, MEASURES)
    assert set(result.query_ids) == {str(u) for u in truth["query_id"]}  # RePlay's users: its ground truth's
    assert mismatches(result, truth, recs, MEASURES) == []


@needs_item_id_ties
@pytest.mark.parametrize("seed", range(10))
def test_replay_users_without_relevant_items_are_not_averaged(seed: int) -> None:
    # Grade-0 rows have no RePlay form: its ground truth is the relevant rows, so such users are not its users;
    # the dialect's query set is 'relevant', which leaves them out and counts them.
    truth, recs, zeros = make_data(seed, zero_users=True)
    qrels, run = as_rankwise(truth, recs, zeros)
    result = evaluate(qrels, run, MEASURES)
    assert set(result.query_ids) == {str(u) for u in truth["query_id"]}
    assert mismatches(result, truth, recs, MEASURES) == []


@pytest.mark.parametrize("ties", [False, pytest.param(True, marks=needs_item_id_ties)])
@pytest.mark.parametrize("seed", range(10))
def test_replay_dialect_auc_equals_rocauc(seed: int, ties: bool) -> None:
    # the dialect's AUC: positions in the top k (no ½ for tied scores), 0 without a hit, 1 without a negative
    truth, recs, _ = make_data(seed, ties=ties)
    qrels, run = as_rankwise(truth, recs)
    names = {"RocAuc": "AUC"}
    assert mismatches(evaluate(qrels, run, names), truth, recs, names) == []
