"""The learning-to-rank data value, :class:`LtrData`: rows (documents) in groups (queries) with sparse features
in CSR form, checked and read-only; and the array helpers its reader shares (:func:`csr_offsets`, :func:`read_only`,
:func:`repeated_doc`).

Reading and writing SVMlight text: :mod:`rankwise.ltr.svmlight`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from ..errors import InputError, RankwiseError
from .limits import MAX_WIDTH, check_memory

if TYPE_CHECKING:
    import scipy.sparse

PathLike = str | Path
"""A file path: text or a :class:`~pathlib.Path`."""


def read_only(array: np.ndarray) -> np.ndarray:
    """``array``, made read-only (in place)."""
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class LtrData:
    """Rows (documents) in groups (queries), with sparse features in CSR form.

    - ``labels``: int64 ``[rows]``, the grades.
    - ``qids``: int64 ``[groups]``, each group's query id as written (``0, 1, ...`` when groups come from a
      ``.query`` file).
    - ``group_offsets``: int64 ``[groups + 1]``: group ``g`` is rows ``group_offsets[g]:group_offsets[g + 1]``.
    - ``indptr`` (int64 ``[rows + 1]``), ``indices`` (int32, 0-based columns, increasing within a row),
      ``values`` (float64): row ``r``'s features are ``indices[indptr[r]:indptr[r + 1]]`` and their values.
    - ``num_features``: the width; ``source``: where the data came from (a path, for messages).
    - ``docnos``: each row's document id (``[rows]`` of ``str``, unique within its group: checked), or None:
      documents are then named by their position in their group (see :meth:`doc_ids`).

    Arrays are converted to these dtypes, checked for consistency and made read-only.
    """

    labels: np.ndarray
    qids: np.ndarray
    group_offsets: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    num_features: int
    source: str = "<memory>"
    docnos: np.ndarray | None = None

    def __post_init__(self) -> None:
        for name, dtype in (
            ("labels", np.int64),
            ("qids", np.int64),
            ("group_offsets", np.int64),
            ("indptr", np.int64),
            ("indices", np.int32),
            ("values", np.float64),
        ):
            given = getattr(self, name)
            array = np.asarray(given, dtype=dtype)
            if array.ndim != 1:
                raise RankwiseError(f"LtrData.{name} must be one-dimensional, not shape {array.shape}")
            if array is given and array.flags.writeable:
                array = array.copy()  # never freeze the caller's own array
            elif dtype != np.float64 and not np.array_equal(array, given):
                raise RankwiseError(f"LtrData.{name} must hold integers that fit {np.dtype(dtype).name}")
            object.__setattr__(self, name, read_only(array))
        object.__setattr__(self, "num_features", int(self.num_features))
        if self.docnos is not None:
            docnos = np.array(self.docnos, dtype=object)  # always a copy
            if docnos.shape != (len(self.labels),) or not all(isinstance(d, str) for d in docnos.tolist()):
                raise RankwiseError(f"LtrData.docnos must be one str per row ({len(self.labels)} rows)")
            object.__setattr__(self, "docnos", read_only(docnos))
        problem = _inconsistency(self)
        if problem is None and self.docnos is not None:
            row = repeated_doc(self.row_groups(), self.doc_ids())
            if row is not None:
                problem = f"document id {self.docnos[row]!r} of row {row} occurs twice in its group"
        if problem is not None:
            raise RankwiseError(f"LtrData ({self.source}): {problem}")

    def __repr__(self) -> str:
        return (
            f"LtrData(rows={self.num_rows}, groups={self.num_groups}, num_features={self.num_features}, "
            f"nnz={self.nnz}, source={self.source!r})"
        )

    @property
    def num_rows(self) -> int:
        """Number of rows (documents)."""
        return len(self.labels)

    @property
    def num_groups(self) -> int:
        """Number of groups (queries)."""
        return len(self.qids)

    @property
    def group_sizes(self) -> np.ndarray:
        """Rows per group, int64 ``[groups]`` (what a LightGBM ``.query`` file holds)."""
        return np.diff(self.group_offsets)

    @property
    def nnz(self) -> int:
        """Number of stored feature entries."""
        return len(self.indices)

    def row_groups(self) -> np.ndarray:
        """The group position (0-based) of every row, int64 ``[rows]``."""
        return np.repeat(np.arange(self.num_groups, dtype=np.int64), self.group_sizes)

    def describe_row(self, row: int) -> str:
        """``row N (qid Q, document D)`` for messages: ``N`` counts rows from 1, ``D`` is :meth:`doc_ids`'s."""
        group = int(np.searchsorted(self.group_offsets, row, side="right")) - 1
        return f"row {row + 1} (qid {self.qids[group]}, document {self.doc_ids()[row]})"

    def dense(self, dtype: Any = np.float32) -> np.ndarray:
        """The features as a dense ``[rows, num_features]`` array (absent entries are 0); a
        :class:`RankwiseError` instead when it would not fit in the machine's memory."""
        nbytes = self.num_rows * self.num_features * np.dtype(dtype).itemsize
        check_memory(nbytes, f"{self.source}: dense features ({self.num_rows} rows × {self.num_features} columns)")
        out = np.zeros((self.num_rows, self.num_features), dtype=dtype)
        rows = np.repeat(np.arange(self.num_rows, dtype=np.int64), np.diff(self.indptr))
        with np.errstate(over="ignore"):  # a value beyond float32 becomes ±inf, as a cast does
            out[rows, self.indices] = self.values
        return out

    def to_scipy(self) -> scipy.sparse.csr_matrix:
        """The features as a ``scipy.sparse.csr_matrix`` of shape ``(rows, num_features)`` (scipy is imported
        only here)."""
        import scipy.sparse

        return scipy.sparse.csr_matrix(
            (self.values, self.indices, self.indptr), shape=(self.num_rows, self.num_features), copy=True
        )

    def select_groups(self, groups: Any) -> LtrData:
        """A new :class:`LtrData` with only the given groups, in the given order.

        ``groups``: group positions (ints, 0-based), a boolean mask over groups, or a slice.
        """
        chosen = np.arange(self.num_groups, dtype=np.int64)[groups]
        sizes = self.group_sizes[chosen]
        rows = _ranges(self.group_offsets[chosen], sizes)
        row_nnz = np.diff(self.indptr)[rows]
        entries = _ranges(self.indptr[rows], row_nnz)
        return LtrData(
            labels=self.labels[rows],
            qids=self.qids[chosen],
            group_offsets=csr_offsets(sizes),
            indptr=csr_offsets(row_nnz),
            indices=self.indices[entries],
            values=self.values[entries],
            num_features=self.num_features,
            source=self.source,
            docnos=None if self.docnos is None else self.docnos[rows],
        )

    def doc_ids(self) -> pl.Series:
        """Each row's document id: :attr:`docnos` when given, else its position within its group as text
        (``"0"``, ``"1"``, ...)."""
        if self.docnos is not None:
            return pl.Series("doc_id", self.docnos.tolist(), dtype=pl.String)
        within = np.arange(self.num_rows, dtype=np.int64) - np.repeat(self.group_offsets[:-1], self.group_sizes)
        return pl.Series("doc_id", within).cast(pl.String)

    def query_ids(self) -> pl.Series:
        """Each row's query id (its group's qid) as text."""
        return pl.Series("query_id", self.qids).cast(pl.String).gather(self.row_groups())

    def to_qrels(self) -> pl.DataFrame:
        """The labels as judgments: columns ``query_id`` (qid as text), ``doc_id`` (:meth:`doc_ids`), ``grade``.

        Ready for :func:`rankwise.evaluate` together with :meth:`to_run`.
        """
        return pl.DataFrame([self.query_ids(), self.doc_ids(), pl.Series("grade", self.labels)])

    def to_run(self, scores: Any) -> pl.DataFrame:
        """Model scores as a run: columns ``query_id``, ``doc_id`` (as in :meth:`to_qrels`), ``score``.

        ``scores``: one number per row, in row order (what a model's ``predict`` returns).
        """
        score = np.asarray(scores, dtype=np.float64).reshape(-1)
        if len(score) != self.num_rows:
            raise InputError(f"{self.source}: {len(score)} scores for {self.num_rows} rows")
        return pl.DataFrame([self.query_ids(), self.doc_ids(), pl.Series("score", score)])


def _inconsistency(data: LtrData) -> str | None:
    """What is wrong with the arrays of ``data``, or None."""
    rows, nnz, offsets, indptr = data.num_rows, data.nnz, data.group_offsets, data.indptr
    if len(data.values) != nnz:
        return f"values has {len(data.values)} entries but indices {nnz}"
    if len(indptr) != rows + 1 or indptr[0] != 0 or indptr[-1] != nnz or (np.diff(indptr) < 0).any():
        return f"indptr must be CSR offsets: rows + 1 = {rows + 1} non-decreasing entries from 0 to {nnz}"
    groups = len(data.qids)
    if len(offsets) != groups + 1 or offsets[0] != 0 or offsets[-1] != rows or (np.diff(offsets) < 0).any():
        return f"group_offsets must be groups + 1 = {groups + 1} non-decreasing entries from 0 to {rows}"
    if not 0 <= data.num_features <= MAX_WIDTH:
        return f"num_features is {data.num_features}, outside 0..{MAX_WIDTH:,} (32-bit feature columns)"
    if nnz and (data.indices.min() < 0 or data.indices.max() >= data.num_features):
        return f"feature columns must lie in [0, num_features={data.num_features})"
    return None


def repeated_doc(groups: np.ndarray, docnos: pl.Series) -> int | None:
    """The first row whose document id already named a row of its group, or None."""
    keys = pl.DataFrame({"group": groups, "doc": docnos})
    again = keys.select(~pl.struct("group", "doc").is_first_distinct()).to_series().to_numpy()
    return int(np.argmax(again)) if again.any() else None


def csr_offsets(sizes: np.ndarray) -> np.ndarray:
    """CSR offsets from sizes: int64 ``[len(sizes) + 1]``, from 0, each the sum of the sizes before it."""
    out = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=out[1:])
    return out


def _ranges(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, sizes)])`` without a Python loop."""
    total = int(sizes.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    keep = sizes > 0
    starts, sizes = starts[keep], sizes[keep]
    steps = np.ones(total, dtype=np.int64)
    heads = csr_offsets(sizes)[:-1]
    steps[0] = starts[0]
    steps[heads[1:]] = starts[1:] - (starts[:-1] + sizes[:-1] - 1)
    return np.cumsum(steps)
