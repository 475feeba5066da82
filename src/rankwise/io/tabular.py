"""Tabular inputs with named columns: CSV/TSV/parquet files, polars/pandas DataFrames, pyarrow tables, dicts.

Columns are found by name. Defaults, tried in order (case-insensitive):

- query: query_id, qid, query, topic, topic_id, user_id, user
- document: doc_id, docid, docno, doc, item_id, item
- run score: score, sim, prediction, pred
- qrels grade: relevance, rel, grade, label, judgment, rating

``columns={"query_id": ..., "doc_id": ..., "value": ...}`` names them explicitly.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import InputError
from .table import DOCID, QID, VALUE, Kind, Origin, Table, make_table

CANDIDATES: dict[str, dict[Kind, tuple[str, ...]]] = {
    QID: dict.fromkeys(("qrels", "run"), ("query_id", "qid", "query", "topic", "topic_id", "user_id", "user")),
    DOCID: dict.fromkeys(("qrels", "run"), ("doc_id", "docid", "docno", "doc", "item_id", "item")),
    VALUE: {
        "run": ("score", "sim", "prediction", "pred"),
        "qrels": ("relevance", "rel", "grade", "label", "judgment", "rating"),
    },
}


def _pick(frame_columns: list[str], role: str, kind: Kind, given: Mapping[str, str] | None, name: str) -> str:
    if given and role in given:
        if given[role] not in frame_columns:
            raise InputError(f"{name}: column {given[role]!r} not found; columns are {frame_columns}")
        return given[role]
    lowered = {c.lower(): c for c in frame_columns}
    for candidate in CANDIDATES[role][kind]:
        if candidate in lowered:
            return lowered[candidate]
    tried = ", ".join(CANDIDATES[role][kind])
    raise InputError(f"{name}: no {role} column (tried {tried}); columns are {frame_columns}")


def frame_to_table(frame: pl.DataFrame, kind: Kind, origin: Origin, columns: Mapping[str, str] | None = None) -> Table:
    """A validated :class:`Table` from a polars DataFrame with named columns."""
    name = origin.name
    picked = {role: _pick(frame.columns, role, kind, columns, name) for role in (QID, DOCID, VALUE)}
    if len(set(picked.values())) < 3:
        raise InputError(f"{name}: one column cannot play two roles ({picked})")
    selected = frame.select(pl.col(picked[QID]).alias(QID), pl.col(picked[DOCID]).alias(DOCID),
                            pl.col(picked[VALUE]).alias(VALUE))  # fmt: skip
    return make_table(selected, kind, origin)


def read_tabular(path: Path, kind: Kind, columns: Mapping[str, str] | None = None) -> Table:
    """Read CSV (``.csv``), TSV (``.tsv``) or parquet (``.parquet``/``.pq``) with a header row."""
    suffixes = [s.lower() for s in path.suffixes]
    name = str(path)
    if not path.exists():
        raise InputError(f"{name}: no such file")
    try:
        if suffixes and suffixes[-1] in (".parquet", ".pq"):
            frame = pl.read_parquet(path)
        else:
            separator = "\t" if ".tsv" in suffixes else ","
            frame = pl.read_csv(path, separator=separator, infer_schema_length=10000)
    except pl.exceptions.NoDataError:
        raise InputError(f"{name}: file is empty") from None
    except (pl.exceptions.ComputeError, pl.exceptions.SchemaError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{name}: cannot read ({first})") from None
    # Rows of a CSV with a header start on line 2; parquet rows are named by index.
    line_of = None if suffixes and suffixes[-1] in (".parquet", ".pq") else (lambda row: row + 2)
    return frame_to_table(frame, kind, Origin(name, line_of), columns)


def dict_to_table(data: Mapping[Any, Mapping[Any, Any]], kind: Kind, name: str) -> Table:
    """A validated :class:`Table` from ``{query_id: {doc_id: score_or_grade}}``."""
    qids, dids, values = [], [], []
    for qid, docs in data.items():
        if not isinstance(docs, Mapping):
            raise InputError(f"{name}: query {qid!r} maps to {type(docs).__name__}, expected {{doc_id: value}}")
        for did, value in docs.items():
            qids.append(qid)
            dids.append(did)
            values.append(value)
    if not qids:
        raise InputError(f"{name}: no {'judgments' if kind == 'qrels' else 'ranked documents'} found")
    for label, ids in (("query", qids), ("doc", dids)):
        bad = next((i for i in ids if isinstance(i, (float, bool)) or not isinstance(i, (str, int))), None)
        if bad is not None:
            raise InputError(f"{name}: {label} id {bad!r} must be a string or an integer")
    wanted = int if kind == "qrels" else (int, float)
    for qid, did, value in zip(qids, dids, values):
        if isinstance(value, bool) or (not isinstance(value, wanted) and not _is_numpy_number(value, kind)):
            what = "an integer grade" if kind == "qrels" else "a number"
            raise InputError(f"{name}: query {qid!r} doc {did!r}: {value!r} is not {what}")
    frame = pl.DataFrame(
        {
            QID: pl.Series(QID, [str(q) for q in qids], dtype=pl.String),
            DOCID: pl.Series(DOCID, [str(d) for d in dids], dtype=pl.String),
            VALUE: pl.Series(VALUE, values, dtype=pl.Int64 if kind == "qrels" else pl.Float64),
        }
    )
    return make_table(frame, kind, Origin(name))


def _is_numpy_number(value: Any, kind: Kind) -> bool:
    import numpy as np

    return isinstance(value, np.integer) or (kind == "run" and isinstance(value, np.floating))
