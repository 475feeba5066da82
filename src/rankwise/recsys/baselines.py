"""Baseline recommenders: most popular, random, item-kNN (cosine) and EASE, each recommending the top k items to
every given user with the user's training items excluded.

All models are trained on the binary user × item matrix X of the training interactions (a repeated pair counts
once). Items are the training items, indexed in id order (integers as numbers, else text); that order breaks ties
everywhere: equal scores rank the smaller item id first. Scores are computed for batches of users at once (numpy,
``scipy.sparse`` for X); item-kNN and EASE need SciPy (``pip install '.[recsys]'``), popularity and random do not.

Memory: EASE holds the dense n_items × n_items Gram matrix, its inverse and the weights, about 3 · 8 · n_items²
bytes (ML-100K, 1,682 items: 68 MB; 30,000 items: 21.6 GB); :class:`EASE` refuses above ``max_bytes``
(:data:`EASE_MAX_BYTES` by default) with a message naming both numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import polars as pl

from ..engine.similarity import scipy_sparse
from ..errors import InputError, RankwiseError
from .data import ITEM, USER
from .split import id_order, ratings_frame

EASE_MAX_BYTES = 4 * 2**30
SCORE_BATCH_CELLS = 2**24  # scores computed for batches of users × items of at most this many cells (128 MB)


def _scipy_sparse() -> Any:
    return scipy_sparse("item-kNN and EASE need")


@dataclass(frozen=True)
class Recommendations:
    """Top-k lists: ``frame`` has user_id, item_id, score (Float64), rank (1-based), sorted by user then rank;
    ``notes`` says which users got no list and why."""

    frame: pl.DataFrame
    notes: tuple[str, ...] = ()

    def write(self, path: str | Path, output_format: str | None = None, run_name: str = "rankwise") -> None:
        """Write the lists: ``csv`` / ``tsv`` / ``parquet`` tables (user_id, item_id, score, rank) or a TREC run
        (``user Q0 item rank score run_name``); the format comes from the suffix unless given (``trec`` otherwise)."""
        write_recommendations(self.frame, path, output_format, run_name)


def write_recommendations(frame: pl.DataFrame, path: str | Path, output_format: str | None = None,
                          run_name: str = "rankwise") -> None:  # fmt: skip
    """See :meth:`Recommendations.write`."""
    path = Path(path)
    chosen = output_format or {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet"}.get(path.suffix.lower(), "trec")
    if chosen == "csv":
        frame.write_csv(path)
    elif chosen == "tsv":
        frame.write_csv(path, separator="\t")
    elif chosen == "parquet":
        frame.write_parquet(path)
    elif chosen == "trec":
        if not run_name or any(c.isspace() for c in run_name):
            raise InputError(f"run name {run_name!r} must be one word")
        trec = frame.select(pl.col(USER), pl.lit("Q0").alias("q0"), pl.col(ITEM), pl.col("rank"),
                            pl.col("score").map_elements(repr, return_dtype=pl.String), pl.lit(run_name).alias("tag"))
        trec.write_csv(path, separator=" ", include_header=False, quote_style="never")
    else:
        raise InputError(f"format {chosen!r}: one of csv, tsv, parquet, trec")


@dataclass
class _Fitted:
    """The training matrix: users and items in id order, X as CSR (binary) or as (user index, item index) pairs."""

    users: np.ndarray
    items: np.ndarray
    user_index: np.ndarray  # per distinct training pair
    item_index: np.ndarray

    @classmethod
    def from_train(cls, train: Any) -> _Fitted:
        frame = ratings_frame(train).select(USER, ITEM).unique()
        if frame.height == 0:
            raise InputError("training interactions: none")
        users = frame.select(USER).unique().sort(id_order(USER)).get_column(USER)
        items = frame.select(ITEM).unique().sort(id_order(ITEM)).get_column(ITEM)
        coded = frame.select(
            pl.col(USER).replace_strict(users, pl.int_range(users.len(), eager=True), return_dtype=pl.Int64),
            pl.col(ITEM).replace_strict(items, pl.int_range(items.len(), eager=True), return_dtype=pl.Int64),
        )
        return cls(users.to_numpy(), items.to_numpy(), coded.get_column(USER).to_numpy(),
                   coded.get_column(ITEM).to_numpy())  # fmt: skip

    def csr(self) -> Any:
        sparse = _scipy_sparse()
        ones = np.ones(len(self.user_index), dtype=np.float64)
        return sparse.csr_matrix((ones, (self.user_index, self.item_index)), shape=(len(self.users), len(self.items)))

    def counts(self) -> np.ndarray:
        """Number of training users of each item."""
        return np.bincount(self.item_index, minlength=len(self.items)).astype(np.float64)


@dataclass
class Recommender:
    """Base of the baselines: :meth:`fit` on training interactions, then :meth:`recommend`."""

    personalised: bool = field(default=False, init=False)
    _fitted: _Fitted | None = field(default=None, init=False, repr=False)

    def fit(self, train: Any) -> Recommender:
        """Learn from ``train`` (anything :func:`rankwise.recsys.load_ratings` reads, or its result)."""
        self._fitted = _Fitted.from_train(train)
        self._learn(self._fitted)
        return self

    def _learn(self, fitted: _Fitted) -> None:
        """Hook: compute the model's parameters."""

    def _scores(self, rows: np.ndarray, seen: Any) -> np.ndarray:
        """Scores (len(rows) × n_items, float64) for training-user indices ``rows`` (−1: a user not in training);
        ``seen`` is their training rows as a CSR matrix or None."""
        raise NotImplementedError

    def recommend(self, users: Iterable[Any], k: int = 20, *, exclude_seen: bool = True) -> Recommendations:
        """The top ``k`` items for each of ``users`` (ids as text or integers), training items excluded.

        Order: score descending, equal scores by item id ascending. A user with fewer than k candidates gets a
        shorter list; a personalised model (item-kNN, EASE) gives users without training interactions no list
        (counted in the notes), popularity and random rank every item for them.
        """
        if self._fitted is None:
            raise RankwiseError(f"{type(self).__name__}: call fit(train) before recommend()")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InputError(f"k must be a positive integer, not {k!r}")
        fitted = self._fitted
        wanted = pl.Series(USER, [str(u) for u in users], dtype=pl.String).unique(maintain_order=True)
        lookup = pl.DataFrame({USER: fitted.users, "_row": np.arange(len(fitted.users))})
        rows_frame = pl.DataFrame({USER: wanted}).join(lookup, on=USER, how="left", maintain_order="left")
        rows = rows_frame.get_column("_row").fill_null(-1).to_numpy()
        notes = []
        if self.personalised and (rows < 0).any():
            notes.append(f"{int((rows < 0).sum())} users have no training interactions and get no list "
                         f"from {type(self).__name__}")  # fmt: skip
            keep = rows >= 0
            wanted, rows = wanted.filter(pl.Series(keep)), rows[keep]
        csr = fitted.csr() if (exclude_seen or self.personalised) and _have_scipy() else None
        n_items = len(fitted.items)
        batch = max(1, SCORE_BATCH_CELLS // max(n_items, 1))
        parts = []
        for start in range(0, len(rows), batch):  # batches of users, each scored at once
            chunk = rows[start : start + batch]
            seen = csr[np.maximum(chunk, 0)] if csr is not None else None
            scores = self._scores(chunk, seen)
            if exclude_seen:
                _mask_seen(scores, chunk, fitted, seen)
            user_pos, item_pos, values, ranks = top_k(scores, k)
            parts.append(pl.DataFrame({USER: wanted.to_numpy()[start + user_pos], ITEM: fitted.items[item_pos],
                                       "score": values, "rank": ranks},
                                      schema={USER: pl.String, ITEM: pl.String, "score": pl.Float64,
                                              "rank": pl.Int64}))  # fmt: skip
        frame = pl.concat(parts) if parts else pl.DataFrame(
            schema={USER: pl.String, ITEM: pl.String, "score": pl.Float64, "rank": pl.Int64})  # fmt: skip
        return Recommendations(frame, tuple(notes))


def _have_scipy() -> bool:
    try:
        import scipy.sparse  # noqa: F401
    except ImportError:
        return False
    return True


def _mask_seen(scores: np.ndarray, rows: np.ndarray, fitted: _Fitted, seen: Any) -> None:
    """Set the training items of each user to −inf (users not in training have none)."""
    if seen is not None:
        row_of, col = seen.nonzero()
        known = rows[row_of] >= 0
        scores[row_of[known], col[known]] = -np.inf
        return
    position = np.full(len(fitted.users), -1)
    position[rows[rows >= 0]] = np.nonzero(rows >= 0)[0]
    hit = position[fitted.user_index] >= 0
    scores[position[fitted.user_index[hit]], fitted.item_index[hit]] = -np.inf


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The top ``k`` finite scores of each row: (row, column, score, rank) as flat arrays, rows in order, ranks
    1-based, equal scores by column ascending (also at the cut: ties never make the choice arbitrary).

    One partition per row finds the k-th largest value v; every score > v is taken, then the first columns scoring
    exactly v until k are taken; the chosen ones are sorted by (row, −score, column).
    """
    n_rows, n_cols = scores.shape
    if n_rows == 0 or n_cols == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0), empty
    kk = min(k, n_cols)
    finite = np.isfinite(scores)
    kth = -np.partition(-np.where(finite, scores, -np.inf), kk - 1, axis=1)[:, kk - 1]
    above = finite & (scores > kth[:, None])
    equal = finite & (scores == kth[:, None])
    room = kk - above.sum(axis=1)
    chosen = above | (equal & (np.cumsum(equal, axis=1) <= room[:, None]))
    row, col = np.nonzero(chosen)
    value = scores[row, col]
    order = np.lexsort((col, -value, row))
    row, col, value = row[order], col[order], value[order]
    starts = np.searchsorted(row, np.arange(n_rows))
    rank = np.arange(len(row)) - starts[row] + 1
    return row, col, value, rank


@dataclass
class MostPopular(Recommender):
    """Score of item i = the number of training users who interacted with it (the same for every user)."""

    def _learn(self, fitted: _Fitted) -> None:
        self._popularity = fitted.counts()

    def _scores(self, rows: np.ndarray, seen: Any) -> np.ndarray:
        return np.tile(self._popularity, (len(rows), 1))


@dataclass
class RandomRecommender(Recommender):
    """Scores drawn uniformly from [0, 1) by numpy's PCG64 generator seeded with ``seed``: the same seed, users and
    training data give the same lists (users are scored in the order given)."""

    seed: int = 0

    def _learn(self, fitted: _Fitted) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise InputError(f"seed must be an integer, not {self.seed!r}")
        self._rng = np.random.default_rng(self.seed)
        self._n_items = len(fitted.items)

    def _scores(self, rows: np.ndarray, seen: Any) -> np.ndarray:
        return self._rng.random((len(rows), self._n_items))

    def recommend(self, users: Iterable[Any], k: int = 20, *, exclude_seen: bool = True) -> Recommendations:
        """As :meth:`Recommender.recommend`; the generator restarts from ``seed`` on every call."""
        self._rng = np.random.default_rng(self.seed)
        return super().recommend(users, k, exclude_seen=exclude_seen)


@dataclass
class ItemKNN(Recommender):
    r"""Item-based k-nearest neighbours with cosine similarity on the binary training matrix X.

    .. math:: s_{ij} = \frac{|U_i \cap U_j|}{\sqrt{|U_i|\,|U_j|}}\ (i \ne j),\quad s_{ii} = 0,\qquad
              \mathrm{score}(u, j) = \sum_{i \in I_u} s_{ij}

    with U_i the training users of item i and I_u the training items of user u. ``neighbors`` = n keeps, for each
    target item j, only its n most similar items (ties by item id); None keeps all. With all neighbours this is
    LensKit's ``ItemKNNScorer`` with ``feedback="implicit"`` and RecTools' cosine ItemKNN (sum of similarities).
    """

    neighbors: int | None = None

    def __post_init__(self) -> None:
        self.personalised = True
        if self.neighbors is not None and (isinstance(self.neighbors, bool) or not isinstance(self.neighbors, int)
                                           or self.neighbors < 1):  # fmt: skip
            raise InputError(f"neighbors must be a positive integer or None, not {self.neighbors!r}")

    def _learn(self, fitted: _Fitted) -> None:
        sparse = _scipy_sparse()
        x = fitted.csr()
        norms = np.sqrt(fitted.counts())
        scale = sparse.diags(1.0 / norms)
        similarity = (scale @ (x.T @ x) @ scale).tocsc()
        similarity.setdiag(0.0)
        similarity.eliminate_zeros()
        if self.neighbors is not None:
            similarity = _keep_top_per_column(similarity, self.neighbors)
        self._similarity = similarity.tocsr()

    def _scores(self, rows: np.ndarray, seen: Any) -> np.ndarray:
        return np.asarray((seen @ self._similarity).todense(), dtype=np.float64)


def _keep_top_per_column(matrix: Any, n: int) -> Any:
    """The ``n`` largest entries of each column of a CSC matrix (ties by row index), the rest zero."""
    sparse = _scipy_sparse()
    coo = matrix.tocoo()
    order = np.lexsort((coo.row, -coo.data, coo.col))
    row, col, data = coo.row[order], coo.col[order], coo.data[order]
    starts = np.searchsorted(col, np.arange(matrix.shape[1]))
    keep = (np.arange(len(col)) - starts[col]) < n
    return sparse.csc_matrix((data[keep], (row[keep], col[keep])), shape=matrix.shape)


@dataclass
class EASE(Recommender):
    r"""EASE (Steck, WWW 2019): a closed-form item-item model with an L2 penalty λ (``regularization``).

    .. math:: P = (X^\top X + \lambda I)^{-1},\qquad B = I - P\,\mathrm{diag}(1/\mathrm{diag}(P))
              \ (B_{ij} = -P_{ij}/P_{jj},\ B_{jj} = 0),\qquad \mathrm{scores} = X_u B

    (RecTools' ``EASEModel`` computes the same B). Needs about 3 · 8 · n_items² bytes; refused above ``max_bytes``.
    """

    regularization: float = 500.0
    max_bytes: int = EASE_MAX_BYTES

    def __post_init__(self) -> None:
        self.personalised = True
        if isinstance(self.regularization, bool) or not isinstance(self.regularization, (int, float)) or not (
            self.regularization >= 0 and np.isfinite(self.regularization)
        ):
            raise InputError(f"regularization (λ) must be a finite number >= 0, not {self.regularization!r}")

    @staticmethod
    def memory_bytes(n_items: int) -> int:
        """Bytes EASE holds for ``n_items`` items: the Gram matrix, its inverse and B, each n_items² float64."""
        return 3 * 8 * n_items * n_items

    def _learn(self, fitted: _Fitted) -> None:
        n_items = len(fitted.items)
        needed = self.memory_bytes(n_items)
        if needed > self.max_bytes:
            raise RankwiseError(
                f"EASE on {n_items:,} items needs about {needed / 2**30:.1f} GiB (3 dense {n_items:,}² float64 "
                f"matrices), above the limit of {self.max_bytes / 2**30:.1f} GiB: raise max_bytes or keep fewer items"
            )
        x = fitted.csr()
        gram = np.asarray((x.T @ x).todense(), dtype=np.float64)
        gram[np.diag_indices_from(gram)] += self.regularization
        try:
            p = np.linalg.inv(gram)
        except np.linalg.LinAlgError:
            raise RankwiseError("EASE: XᵀX + λI is singular: use a regularization λ > 0") from None
        del gram
        weights = p / -np.diag(p)
        weights[np.diag_indices_from(weights)] = 0.0
        self._weights = weights

    def _scores(self, rows: np.ndarray, seen: Any) -> np.ndarray:
        return np.asarray(seen @ self._weights, dtype=np.float64)


MODELS: dict[str, type[Recommender]] = {
    "popular": MostPopular,
    "random": RandomRecommender,
    "itemknn": ItemKNN,
    "ease": EASE,
}
ModelName = Literal["popular", "random", "itemknn", "ease"]


def make_model(name: str, **options: Any) -> Recommender:
    """A baseline by name (``popular``, ``random``, ``itemknn``, ``ease``) with its options."""
    try:
        cls = MODELS[name.lower()]
    except KeyError:
        raise InputError(f"unknown model {name!r}: one of {', '.join(MODELS)}") from None
    try:
        return cls(**options)
    except TypeError as exc:
        raise InputError(f"model {name}: {exc}") from None
