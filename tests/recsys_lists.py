"""One set of MovieLens-100K top-20 lists, shared by the tests that run recommender libraries' own metric code.

The data (``../shared/data/ml-100k/ml-100k.inter``, GroupLens, research use only) is read from ``shared/`` next to
the repository and never copied into the project; :func:`skip_without_data` skips a test when it is absent.

Setup (the RecSys'21 metric-comparison protocol, Tamm et al., scaled to ML-100K):

- **Split**: every rating sorted by (timestamp, user id, item id) as integers; the first 80 % are train, the last
  20 % test (a global timestamp split). Test rows whose user or item is not in train are dropped.
- **Truth**: the remaining test rows with their raw ratings (1–5); ratings >= 4 are relevant (``threshold=4``).
  Users whose test ratings are all below 4 stay in the truth table (they have judgments but nothing relevant).
- **Users**: every user in the truth table gets a list of 20 items: the candidates are the train items the user
  has not rated in train (``n_items`` = number of distinct train items).
- **Models**:

  - ``"ease"``: EASE (Steck 2019), closed form on the binary train matrix X with λ = 500:
    P = (XᵀX + λI)⁻¹, B = I − P·diag(1/diag(P)), scores = X·B. Within each list (and between the 20th and
    the 21st candidate) all scores are distinct, so no tie rule is involved.
  - ``"popularity"``: score = number of train interactions of the item (float64). Heavy ties: tied items sit
    inside lists and across the cut at 20 (checked on construction).

- **Order** (``rank``, 1-based): score descending, **ties broken by item id as an integer, ascending**. This is
  the order every library is given; rankwise is given the same ``rank`` column, so no tie policy applies.

API (stable: several test modules import it): ``lists(model) -> Lists`` (cached), :class:`Lists`,
:func:`all_scores` (every candidate's score), :func:`skip_without_data`, :data:`ML100K`, :data:`MODELS`,
:data:`K`, :data:`THRESHOLD`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

ML100K = Path(__file__).resolve().parents[2] / "shared" / "data" / "ml-100k" / "ml-100k.inter"
MODELS = ("ease", "popularity")
K = 20
TRAIN_SHARE = 0.8
EASE_LAMBDA = 500.0
THRESHOLD = 4


@dataclass(frozen=True)
class Lists:
    """Train and test interactions and one model's top-20 lists.

    ``train``, ``truth``: columns ``user_id`` (str), ``item_id`` (str), ``rating`` (int, raw 1–5).
    ``recs``: columns ``user_id``, ``item_id`` (str), ``score`` (float64), ``rank`` (int, 1-based: score
    descending, ties by item id as an integer ascending), 20 rows for every truth user, sorted by user then rank.
    ``n_items``: the number of distinct train items (the catalogue the models rank).
    """

    train: pl.DataFrame
    truth: pl.DataFrame
    recs: pl.DataFrame
    n_items: int


def skip_without_data() -> None:
    """pytest.skip() the calling test when MovieLens 100K is absent from ../shared/data."""
    if not ML100K.exists():
        import pytest

        pytest.skip(f"{ML100K} not found (MovieLens 100K lives in ../shared/data next to the repository)")


@functools.cache
def _split() -> tuple[pl.DataFrame, pl.DataFrame]:
    data = pl.read_csv(ML100K, separator="\t")
    data = data.rename({c: c.split(":")[0] for c in data.columns})
    data = data.select(
        pl.col("user_id").cast(pl.Int64),
        pl.col("item_id").cast(pl.Int64),
        pl.col("rating").cast(pl.Int64),
        pl.col("timestamp").cast(pl.Int64),
    ).sort(["timestamp", "user_id", "item_id"])
    n_train = int(len(data) * TRAIN_SHARE)
    train, test = data.head(n_train), data.tail(len(data) - n_train)
    test = test.filter(
        pl.col("user_id").is_in(train.get_column("user_id").unique().implode())
        & pl.col("item_id").is_in(train.get_column("item_id").unique().implode())
    )
    return train.drop("timestamp"), test.drop("timestamp")


def _as_strings(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col("user_id").cast(pl.String), pl.col("item_id").cast(pl.String))


def _top(scores: np.ndarray, users: np.ndarray, items: np.ndarray, k: int) -> pl.DataFrame:
    """Top k of each row of ``scores`` (seen items already at -inf): score descending, then item id ascending."""
    rows = []
    for row, user in enumerate(users):
        # lexsort: last key first; items are sorted ascending, so a stable sort on -score keeps id order on ties
        order = np.lexsort((items, -scores[row]))[:k]
        assert np.isfinite(scores[row, order]).all(), f"user {user}: fewer than {k} candidates"
        rows.append(
            pl.DataFrame(
                {
                    "user_id": np.full(k, user, dtype=np.int64),
                    "item_id": items[order],
                    "score": scores[row, order].astype(np.float64),
                    "rank": np.arange(1, k + 1, dtype=np.int64),
                }
            )
        )
    return pl.concat(rows)


@functools.cache
def _scores(model: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(truth users, train items, scores): one row per truth user, one column per train item, seen items -inf."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}: one of {MODELS}")
    train, test = _split()
    items = np.sort(train.get_column("item_id").unique().to_numpy())
    train_users = np.sort(train.get_column("user_id").unique().to_numpy())
    users = np.sort(test.get_column("user_id").unique().to_numpy())
    item_index = {int(item): j for j, item in enumerate(items)}
    user_index = {int(user): i for i, user in enumerate(train_users)}
    x = np.zeros((len(train_users), len(items)))
    x[
        [user_index[u] for u in train.get_column("user_id").to_list()],
        [item_index[i] for i in train.get_column("item_id").to_list()],
    ] = 1.0
    rows = [user_index[int(u)] for u in users]
    if model == "ease":
        gram = x.T @ x
        gram[np.diag_indices_from(gram)] += EASE_LAMBDA
        p = np.linalg.inv(gram)
        b = -p / np.diag(p)
        b[np.diag_indices_from(b)] = 0.0
        scores = x[rows] @ b
    else:
        scores = np.tile(x.sum(axis=0), (len(users), 1))
    scores[x[rows] > 0] = -np.inf
    return users, items, scores


@functools.cache
def lists(model: str) -> Lists:
    """The top-20 lists of ``model`` ("ease" or "popularity") for every truth user; see the module docstring."""
    users, items, scores = _scores(model)
    train, test = _split()
    recs = _top(scores, users, items, K)
    # the tie structure each model promises
    best = -np.sort(-scores, axis=1)[:, : K + 1]
    if model == "ease":
        assert (np.diff(best, axis=1) < 0).all(), "EASE: tied scores within the top 21"
    else:
        assert (best[:, K - 1] == best[:, K]).any(), "popularity: no tie across the cut at 20"
        assert (np.diff(best[:, :K], axis=1) == 0).any(), "popularity: no tie inside the lists"
    return Lists(train=_as_strings(train), truth=_as_strings(test), recs=_as_strings(recs), n_items=len(items))


@functools.cache
def all_scores(model: str) -> pl.DataFrame:
    """Every candidate's score: (user_id, item_id, score) for each truth user and each train item the user has
    not rated in train, sorted by user then item id (as integers). For the libraries that rank every candidate
    themselves (RecBole's GAUC, OpenRec's full ranking); its top 20 by :data:`lists`' order are ``lists(model)``.
    Deeper down, EASE's scores tie too (items with identical train columns), popularity's heavily."""
    users, items, scores = _scores(model)
    rows, cols = np.nonzero(np.isfinite(scores))
    frame = pl.DataFrame({"user_id": users[rows], "item_id": items[cols], "score": scores[rows, cols]})
    return _as_strings(frame)
