"""Reading judgments (qrels) and runs from files, DataFrames, Arrow tables and dicts into one form."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import InputError
from .table import Kind, Origin, Table
from .tabular import dict_to_table, frame_to_table, read_tabular
from .trec import read_trec

TABULAR_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq", ".inter")


def load(source: Any, kind: Kind, columns: Mapping[str, str] | None = None, threshold: float | None = None) -> Table:
    """Read ``source`` as qrels or run.

    ``source`` may be a path (TREC text, optionally ``.gz``; ``.csv``/``.tsv``/``.parquet`` with a header),
    a polars/pandas DataFrame or LazyFrame, a pyarrow Table, a ``{qid: {docid: value}}`` dict, or an
    already loaded :class:`Table`. ``threshold`` reads qrels values as ratings: relevant (grade 1) when
    rating >= threshold, else 0.
    """
    if isinstance(source, Table):
        return source
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.suffix.lower() in TABULAR_SUFFIXES:
            return read_tabular(path, kind, columns, threshold)
        return read_trec(path, kind, threshold)
    origin = Origin(f"{kind} {type(source).__name__}")
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if isinstance(source, pl.DataFrame):
        return frame_to_table(source, kind, origin, columns, threshold)
    module = type(source).__module__.split(".")[0]
    if module == "pandas":
        return frame_to_table(pl.DataFrame(pl.from_pandas(source)), kind, origin, columns, threshold)
    if module == "pyarrow":
        return frame_to_table(pl.DataFrame(pl.from_arrow(source)), kind, origin, columns, threshold)
    if isinstance(source, Mapping):
        return dict_to_table(source, kind, origin.name, threshold)
    raise InputError(f"cannot read {kind} from {type(source).__name__}: give a path, DataFrame, Arrow table or dict")


def load_qrels(source: Any, columns: Mapping[str, str] | None = None, threshold: float | None = None) -> Table:
    """Judgments: (query_id, doc_id, integer grade), or ratings with a ``threshold``. See :func:`load`."""
    return load(source, "qrels", columns, threshold)


def load_run(source: Any, columns: Mapping[str, str] | None = None) -> Table:
    """Run: (query_id, doc_id, float score). See :func:`load`."""
    return load(source, "run", columns)


__all__ = ["Origin", "Table", "load", "load_qrels", "load_run"]
