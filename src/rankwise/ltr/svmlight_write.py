"""Writing :class:`~rankwise.ltr.data.LtrData` as SVMlight text (``qid:`` tokens or a LightGBM ``.query`` file)
that :func:`~rankwise.ltr.svmlight.read_svmlight` reads back exactly."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ..errors import InputError
from .data import LtrData, PathLike


def _format_floats(values: np.ndarray) -> pl.Series:
    """Shortest text that reads back to the same float64 (``70`` rather than ``70.0``)."""
    return pl.Series(values, dtype=pl.Float64).cast(pl.String).str.strip_suffix(".0")


def write_svmlight(
    data: LtrData,
    path: PathLike,
    *,
    query_file: bool = False,
    zero_based: bool = False,
    labels: Any = None,
) -> None:
    """Write ``data`` as SVMlight text that :func:`read_svmlight` reads back exactly.

    - rows in order: ``label qid:<qid> index:value ...`` with 1-based indices (0-based with ``zero_based``);
      values are written as the shortest text that reads back to the same float64.
    - ``query_file=True``: no ``qid:`` tokens; the group sizes go to ``PATH.query`` (LightGBM's layout).
    - ``labels``: write these (one per row, integers or floats) instead of ``data.labels``.
    - :attr:`LtrData.docnos`, when present, end each row as ``#docid = ID`` (``doc_ids="comment"`` reads them).
    - a path ending in ``.gz`` is gzip-compressed.

    Tokens are formatted (each index once) and joined by polars, without a Python loop over rows.
    """
    path = Path(path)
    rows, nnz = data.num_rows, data.nnz
    label_values = data.labels if labels is None else np.asarray(labels).reshape(-1)
    if len(label_values) != rows:
        raise InputError(f"{path}: {len(label_values)} labels for {rows} rows")
    if np.issubdtype(label_values.dtype, np.integer):
        label_text = pl.Series(label_values.astype(np.int64)).cast(pl.String)
    else:
        label_text = _format_floats(label_values.astype(np.float64))
    # A row is "<label>[ qid:<qid>]", then " <index>:<value>" per feature, then "[ #docid = <id>]\n".
    head: list[pl.Series | pl.Expr] = [label_text]
    if not query_file:
        head += [pl.lit(" qid:"), pl.Series(data.qids).cast(pl.String).gather(data.row_groups())]
    heads = pl.select(pl.concat_str(head)).to_series()
    tails = pl.Series(["\n"] * rows, dtype=pl.String)
    if data.docnos is not None:
        docnos = pl.Series(data.docnos.tolist(), dtype=pl.String)
        unwritable = (docnos.str.contains(r"\s") | (docnos.str.len_chars() == 0)).to_numpy()
        if unwritable.any():
            shown = docnos[int(np.argmax(unwritable))]
            raise InputError(f"{path}: document id {shown!r} cannot be written as a comment (empty or white space)")
        tails = pl.select(pl.concat_str([pl.lit(" #docid = "), docnos, pl.lit("\n")])).to_series()
    shift = 0 if zero_based else 1
    if data.num_features <= nnz:  # format each index once
        names = pl.Series(np.arange(data.num_features, dtype=np.int64) + shift).cast(pl.String)
        keys = pl.select(pl.concat_str([pl.lit(" "), names, pl.lit(":")])).to_series().gather(data.indices)
    else:
        keys = pl.select(
            pl.concat_str([pl.lit(" "), pl.Series(data.indices.astype(np.int64) + shift).cast(pl.String), pl.lit(":")])
        ).to_series()
    features = pl.select(pl.concat_str([keys, _format_floats(data.values)])).to_series()
    row_of_entry = np.repeat(np.arange(rows, dtype=np.int64), np.diff(data.indptr))
    twice = 2 * np.arange(rows, dtype=np.int64)
    source = np.empty(2 * rows + nnz, dtype=np.int64)
    source[data.indptr[:-1] + twice] = np.arange(rows)
    source[np.arange(nnz) + 2 * row_of_entry + 1] = rows + np.arange(nnz)
    source[data.indptr[1:] + twice + 1] = rows + nnz + np.arange(rows)
    parts = pl.concat([heads.alias("t"), features.alias("t"), tails.alias("t")])
    payload = parts.gather(source).str.join("").item().encode()
    with gzip.open(path, "wb") if path.suffix == ".gz" else path.open("wb") as out:
        out.write(payload)
    if query_file:
        sizes = "".join(f"{size}\n" for size in data.group_sizes.tolist())
        Path(str(path) + ".query").write_text(sizes)
