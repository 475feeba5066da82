"""Item similarity for the beyond-accuracy measures that compare items (intra-list diversity, serendipity): items as
vectors e_i with cos(i, j) = e_i · e_j, and sums over lists computed without enumerating pairs.

Vectors (:func:`item_vectors`) come from one of three definitions, the ``kind`` of a measure:

- ``cooccurrence_cosine``: e_i = the item's column of the binary user × item training matrix ÷ √|U_i|, so
  e_i · e_j = |U_i ∩ U_j| / √(|U_i| |U_j|) (sparse; an item without training interactions is a zero vector);
- ``feature_cosine``: the item's feature vector scaled to unit length (a zero vector stays zero);
- ``feature_hamming``: the item's 0/1 feature vector as given (distances count differing features).

Both :mod:`rankwise.recsys.beyond` (lists as tables) and :mod:`rankwise.kernels.beyond` (the engine's arrays) use
these functions, so the two agree by construction; SciPy (``pip install '.[recsys]'``) is needed for the sparse
co-occurrence vectors only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl
else:
    from ..io.lazy import polars as pl

from ..errors import InputError, RankwiseError
from ..io.tabular import find_column
from .rowops import concatenated_ranges, lookup
from .training import TrainingIndex

KINDS = ("cooccurrence_cosine", "feature_cosine", "feature_hamming")
ID_COLUMNS = ("item_id", "itemid", "item", "movieid", "doc_id")


def scipy_sparse(purpose: str = "item co-occurrence similarity needs") -> Any:
    """``scipy.sparse``, or a one-line error saying what needs it (``purpose``) and how to install SciPy."""
    try:
        import scipy.sparse as sparse
    except ImportError:
        raise RankwiseError(f"{purpose} SciPy, which is not installed: pip install scipy "
                            "(from a checkout: pip install '.[recsys]')") from None  # fmt: skip
    return sparse


def item_vectors(kind: str, items: pl.Series, index: TrainingIndex | None, features: Any, measure: str) -> Any:
    """One row per item of ``items`` (ids as text): the item's vector of ``kind`` (see the module docstring).

    ``index``: the training interactions (needed by ``cooccurrence_cosine``); ``features``: a table with an item id
    column (item_id, item, movieid, ...) and numeric feature columns, or one list/array column, as a polars,
    pandas or pyarrow table or a CSV/TSV/parquet file (needed by the feature kinds; every item of ``items`` must
    have a row)."""
    if kind == "cooccurrence_cosine":
        if index is None:
            raise InputError(f"{measure} with item co-occurrence needs training interactions: pass train= "
                             "(--train FILE)")  # fmt: skip
        return cooccurrence_vectors(index, index.item_codes(items))
    if features is None:
        raise InputError(f"{measure} with {kind} needs item features: pass features= (--features FILE)")
    matrix = feature_matrix(features, items)
    if kind == "feature_hamming":
        if not np.isin(matrix, (0.0, 1.0)).all():
            raise InputError(f"{measure} with feature_hamming needs 0/1 features")
        return matrix
    norms = np.linalg.norm(matrix, axis=1)
    return np.divide(matrix, norms[:, None], out=np.zeros_like(matrix), where=norms[:, None] > 0)


def cooccurrence_vectors(index: TrainingIndex, codes: np.ndarray) -> Any:
    """Sparse rows e_i (see the module docstring) for items of training codes ``codes`` (−1: not in training, a
    zero row; a code may repeat), over the training users: O(training pairs)."""
    sparse = scipy_sparse()
    distinct, row_of = np.unique(codes, return_inverse=True)
    position = np.full(len(index.items), -1, dtype=np.int64)
    known = np.flatnonzero(distinct >= 0)
    position[distinct[known]] = known
    pair_user = np.repeat(np.arange(len(index.users), dtype=np.int64), np.diff(index.offsets))
    row = position[index.user_items]
    keep = row >= 0
    values = 1.0 / np.sqrt(index.item_users[index.user_items[keep]].astype(np.float64))
    shape = (len(distinct), max(len(index.users), 1))
    return sparse.csr_matrix((values, (row[keep], pair_user[keep])), shape=shape)[row_of]


def feature_matrix(features: Any, items: pl.Series) -> np.ndarray:
    """Item features as a dense float matrix aligned with ``items``; a missing item, a repeated item, a non-numeric
    column or a non-finite value is refused in one line."""
    frame = feature_frame(features)
    id_column = find_column(frame.columns, ID_COLUMNS)
    if id_column is None:
        raise InputError(f"item features: no item id column (tried {', '.join(ID_COLUMNS)}); columns are "
                         f"{frame.columns}")  # fmt: skip
    values = frame.drop(id_column)
    if values.width == 1 and isinstance(values.schema[values.columns[0]], (pl.List, pl.Array)):
        values = pl.DataFrame(np.vstack(values.get_column(values.columns[0]).to_list()))
    bad = [c for c in values.columns if not (values.schema[c].is_numeric() or values.schema[c] == pl.Boolean)]
    if bad:
        raise InputError(f"item features: column {bad[0]!r} is not numeric ({values.schema[bad[0]]})")
    ids = frame.get_column(id_column).cast(pl.String)
    if ids.is_duplicated().any():
        raise InputError(f"item features: item {ids.filter(ids.is_duplicated())[0]!r} has two rows")
    lookup = pl.DataFrame({"item": ids, "_f": np.arange(ids.len())})
    wanted = pl.DataFrame({"item": items.cast(pl.String)})
    position = wanted.join(lookup, on="item", how="left", maintain_order="left").get_column("_f")
    missing = position.null_count()
    if missing:
        first = items.filter(position.is_null())[0]
        raise InputError(f"item features: {missing} items have no features (e.g. {first!r})")
    matrix = values.cast(pl.Float64).to_numpy()[position.to_numpy()]
    if not np.isfinite(matrix).all():
        raise InputError("item features: NaN or infinite values")
    return matrix


def feature_frame(features: Any) -> pl.DataFrame:
    """Item features as a polars table from a polars, pandas or pyarrow table or a CSV/TSV/parquet file."""
    if isinstance(features, pl.DataFrame):
        return features
    if isinstance(features, (str, Path)):
        path = Path(features)
        if not path.is_file():
            raise InputError(f"item features {path}: no such file")
        try:
            if path.suffix.lower() in (".parquet", ".pq"):
                return pl.read_parquet(path)
            return pl.read_csv(path, separator="\t" if path.suffix.lower() in (".tsv", ".inter") else ",")
        except (OSError, pl.exceptions.PolarsError) as exc:
            raise InputError(f"item features {path}: cannot read ({str(exc).splitlines()[0]})") from None
    from ..io import foreign_frame

    return foreign_frame(features, "item features")


def row_sums(group: np.ndarray, item: np.ndarray, num_groups: int, vectors: Any) -> Any:
    """S_g = Σ of the vectors of the items of each group, for (group, item) rows: a (num_groups × D) matrix."""
    if isinstance(vectors, np.ndarray):
        out = np.zeros((num_groups, vectors.shape[1]))
        np.add.at(out, group, vectors[item])
        return out
    sparse = scipy_sparse()
    indicator = sparse.csr_matrix((np.ones(len(group)), (group, item)), shape=(num_groups, vectors.shape[0]))
    return indicator @ vectors


def paired_dots(vectors: Any, vector_rows: np.ndarray, sums: Any, sum_rows: np.ndarray) -> np.ndarray:
    """vectors[a] · sums[b] for each pair (a, b) of (``vector_rows``, ``sum_rows``), dense or sparse. Sparse: each
    stored entry of vectors[a] is found in row b of ``sums`` by binary search (:func:`.rowops.lookup`), so
    no row is copied: O(Σ_a nnz(vectors[a]) · log nnz per row)."""
    if isinstance(vectors, np.ndarray):
        dense = sums if isinstance(sums, np.ndarray) else sums.toarray()
        return (vectors[vector_rows] * dense[sum_rows]).sum(axis=1)
    vectors, sums = vectors.tocsr(), sums.tocsr()
    sums.sort_indices()
    starts = vectors.indptr[vector_rows]
    counts = vectors.indptr[vector_rows + 1] - starts
    entries = concatenated_ranges(starts, counts)
    pair = np.repeat(np.arange(len(vector_rows), dtype=np.int64), counts)
    at = lookup(sum_rows[pair], vectors.indices[entries], sums.indptr, sums.indices,
                np.arange(sums.nnz, dtype=np.int64), -1)  # fmt: skip
    products = np.where(at >= 0, vectors.data[entries] * sums.data[np.maximum(at, 0)], 0.0)
    return np.bincount(pair, weights=products, minlength=len(vector_rows))


def squared_norms(matrix: Any) -> np.ndarray:
    """‖row‖² of each row (dense or sparse)."""
    if isinstance(matrix, np.ndarray):
        return (matrix * matrix).sum(axis=1)
    return np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel()


def pairwise_distance_sums(group: np.ndarray, item: np.ndarray, num_groups: int, vectors: Any, kind: str
                           ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    r"""(Σ_{a<b} d(a, b) over the items of each group, the number of pairs n(n−1)/2), without enumerating pairs:
    with unit vectors, Σ_{a<b} e_a·e_b = (‖Σ_a e_a‖² − Σ_a ‖e_a‖²)/2 and d = 1 − cos; for 0/1 features
    (``feature_hamming``) Σ_{a<b} ‖f_a − f_b‖² = n Σ_a ‖f_a‖² − ‖Σ_a f_a‖².

    .. math:: \sum_{a<b} (1 - e_a \cdot e_b) = \binom{n}{2} - \tfrac12\Big(\big\|\textstyle\sum_a e_a\big\|^2
              - \sum_a \|e_a\|^2\Big)"""
    sums = squared_norms(row_sums(group, item, num_groups, vectors))
    own = np.bincount(group, weights=squared_norms(vectors)[item], minlength=num_groups)
    n = np.bincount(group, minlength=num_groups).astype(np.float64)
    pairs = n * (n - 1) / 2
    total = n * own - sums if kind == "feature_hamming" else pairs - (sums - own) / 2
    return total, pairs
