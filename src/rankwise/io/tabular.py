"""Tabular inputs with named columns: CSV/TSV/parquet files, polars/pandas DataFrames, pyarrow tables, dicts.

Columns are found by name. Defaults, tried in order (case-insensitive):

- query: query_id, qid, query, topic, topic_id, user_id, user
- document: doc_id, docid, docno, doc, item_id, item
- run score: score, sim, prediction, pred; without one, a rank column (rank, position, pos) becomes
  score = −rank, so rank 1 comes first
- qrels grade: relevance, rel, grade, label, judgment, rating

RecBole atomic-file headers (``user_id:token``) match by the part before the colon.
``columns={"query_id": ..., "doc_id": ..., "value": ...}`` names them explicitly (``"rank": ...`` instead of
``"value"`` for a rank column).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import EmptyInputError, InputError
from .table import DOCID, QID, VALUE, Kind, Origin, Table, make_table

CANDIDATES: dict[str, dict[Kind, tuple[str, ...]]] = {
    QID: dict.fromkeys(("qrels", "run"), ("query_id", "qid", "query", "topic", "topic_id", "user_id", "user")),
    DOCID: dict.fromkeys(("qrels", "run"), ("doc_id", "docid", "docno", "doc", "item_id", "item")),
    VALUE: {
        "run": ("score", "sim", "prediction", "pred"),
        "qrels": ("relevance", "rel", "grade", "label", "judgment", "rating"),
    },
}


RANK = "rank"
RANK_CANDIDATES = ("rank", "position", "pos")


def _find(frame_columns: list[str], candidates: tuple[str, ...]) -> str | None:
    lowered = {c.lower().split(":")[0]: c for c in frame_columns}
    return next((lowered[c] for c in candidates if c in lowered), None)


def _pick(frame_columns: list[str], role: str, kind: Kind, given: Mapping[str, str] | None, name: str) -> str:
    if given and role in given:
        if given[role] not in frame_columns:
            raise InputError(f"{name}: column {given[role]!r} not found; columns are {frame_columns}")
        return given[role]
    found = _find(frame_columns, CANDIDATES[role][kind])
    if found is None:
        tried = ", ".join(CANDIDATES[role][kind] + (RANK_CANDIDATES if role == VALUE and kind == "run" else ()))
        raise InputError(f"{name}: no {role} column (tried {tried}); columns are {frame_columns}")
    return found


def _value_expr(frame: pl.DataFrame, kind: Kind, given: Mapping[str, str] | None, name: str) -> tuple[str, pl.Expr]:
    """The value column: a score (or grade), or for runs a rank turned into score = −rank."""
    rank = None
    if kind == "run":
        if given and RANK in given:
            rank = _pick(frame.columns, RANK, kind, {RANK: given[RANK]}, name)
        elif not (given and VALUE in given) and _find(frame.columns, CANDIDATES[VALUE][kind]) is None:
            rank = _find(frame.columns, RANK_CANDIDATES)
    if rank is not None:
        if not frame.schema[rank].is_numeric():
            raise InputError(f"{name}: rank column {rank!r} must be numeric, not {frame.schema[rank]}")
        return rank, (-pl.col(rank).cast(pl.Float64)).alias(VALUE)
    column = _pick(frame.columns, VALUE, kind, given, name)
    return column, pl.col(column).alias(VALUE)


def frame_to_table(
    frame: pl.DataFrame,
    kind: Kind,
    origin: Origin,
    columns: Mapping[str, str] | None = None,
    threshold: float | None = None,
) -> Table:
    """A validated :class:`Table` from a polars DataFrame with named columns."""
    name = origin.name
    picked = {role: _pick(frame.columns, role, kind, columns, name) for role in (QID, DOCID)}
    picked[VALUE], value = _value_expr(frame, kind, columns, name)
    if len(set(picked.values())) < 3:
        raise InputError(f"{name}: one column cannot play two roles ({picked})")
    selected = frame.select(pl.col(picked[QID]).alias(QID), pl.col(picked[DOCID]).alias(DOCID), value)
    return make_table(selected, kind, origin, threshold=threshold)


def read_tabular(
    path: Path, kind: Kind, columns: Mapping[str, str] | None = None, threshold: float | None = None
) -> Table:
    """Read CSV (``.csv``), TSV (``.tsv``, RecBole ``.inter``) or parquet (``.parquet``/``.pq``) with a header."""
    suffixes = [s.lower() for s in path.suffixes]
    name = str(path)
    if not path.exists():
        raise InputError(f"{name}: no such file")
    try:
        if suffixes and suffixes[-1] in (".parquet", ".pq"):
            frame = pl.read_parquet(path)
        else:
            separator = "\t" if ".tsv" in suffixes or ".inter" in suffixes else ","
            header = pl.read_csv(path, separator=separator, n_rows=0).columns
            frame = pl.read_csv(
                path,
                separator=separator,
                infer_schema_length=10000,
                schema_overrides=dict.fromkeys(_id_columns(header, kind, columns, name), pl.String),
            )
    except pl.exceptions.NoDataError:
        raise EmptyInputError(f"{name}: file is empty") from None
    except (pl.exceptions.ComputeError, pl.exceptions.SchemaError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{name}: cannot read ({first})") from None
    # Rows of a CSV with a header start on line 2; parquet rows are named by index.
    line_of = None if suffixes and suffixes[-1] in (".parquet", ".pq") else (lambda row: row + 2)
    return frame_to_table(frame, kind, Origin(name, line_of), columns, threshold)


def _id_columns(header: list[str], kind: Kind, given: Mapping[str, str] | None, name: str) -> list[str]:
    """The query and document id columns of a CSV/TSV header, to be read as text: a text file has no integer
    ids, and ``007`` must stay ``007`` to match the qrels. A column not found is left for
    :func:`frame_to_table` to report."""
    found = []
    for role in (QID, DOCID):
        with contextlib.suppress(InputError):
            found.append(_pick(header, role, kind, given, name))
    return found


def dict_to_table(
    data: Mapping[Any, Mapping[Any, Any]], kind: Kind, name: str, threshold: float | None = None
) -> Table:
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
        raise EmptyInputError(f"{name}: no {'judgments' if kind == 'qrels' else 'ranked documents'} found")
    for label, ids in (("query", qids), ("doc", dids)):
        bad = next((i for i in ids if isinstance(i, (float, bool)) or not isinstance(i, (str, int))), None)
        if bad is not None:
            raise InputError(f"{name}: {label} id {bad!r} must be a string or an integer")
    wanted = int if kind == "qrels" and threshold is None else (int, float)
    for qid, did, value in zip(qids, dids, values):
        if isinstance(value, bool) or (not isinstance(value, wanted) and not _is_numpy_number(value, kind)):
            what = "an integer grade" if kind == "qrels" else "a number"
            raise InputError(f"{name}: query {qid!r} doc {did!r}: {value!r} is not {what}")
    frame = pl.DataFrame(
        {
            QID: pl.Series(QID, [str(q) for q in qids], dtype=pl.String),
            DOCID: pl.Series(DOCID, [str(d) for d in dids], dtype=pl.String),
            VALUE: pl.Series(VALUE, values, dtype=pl.Int64 if wanted is int else pl.Float64),
        }
    )
    return make_table(frame, kind, Origin(name), threshold=threshold)


def _is_numpy_number(value: Any, kind: Kind) -> bool:
    import numpy as np

    return isinstance(value, (np.integer, np.floating))


def columns_from_names(text: str | None, kind: Kind) -> dict[str, str] | None:
    """``"user,item,score"`` → the column mapping (query, document, value); for runs a third column named
    rank/position/pos is a rank (score = −rank)."""
    if not text:
        return None
    names = [part.strip() for part in text.split(",")]
    if len(names) != 3 or not all(names):
        raise InputError(
            f"columns {text!r}: give three names, query,document,{'rating' if kind == 'qrels' else 'score'}"
        )
    third = RANK if kind == "run" and names[2].lower().split(":")[0] in RANK_CANDIDATES else VALUE
    return {QID: names[0], DOCID: names[1], third: names[2]}
