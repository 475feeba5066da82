"""Tabular inputs with named columns: CSV/TSV/parquet files, polars/pandas DataFrames, pyarrow tables, dicts.

Columns are found by name. Defaults, tried in order (case-insensitive):

- query: query_id, qid, query, topic, topic_id, user_id, user, userid
- document: doc_id, docid, docno, doc, item_id, item, itemid, movieid, movie_id
- run score: score, sim, prediction, pred; without one, a rank column (rank, position, pos) becomes
  score = −rank, so rank 1 comes first
- qrels grade: relevance, rel, grade, label, judgment, rating

RecBole atomic-file headers (``user_id:token``) match by the part before the colon; MovieLens ``ratings.csv``
(``userId,movieId,rating,timestamp``) matches as it is, since names are compared lower-cased.
``columns={"query_id": ..., "doc_id": ..., "value": ...}`` names them explicitly (``"rank": ...`` instead of
``"value"`` for a rank column), or a plain ``(query, doc, value)`` tuple does; other keys are refused
(:func:`check_columns`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from functools import cache
from itertools import chain, repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import polars as pl
else:
    from .lazy import polars as pl

from ..errors import EmptyInputError, InputError
from .table import DOCID, QID, VALUE, Grades, Kind, Origin, Table, make_table

CANDIDATES: dict[str, dict[Kind, tuple[str, ...]]] = {
    QID: dict.fromkeys(
        ("qrels", "run"), ("query_id", "qid", "query", "topic", "topic_id", "user_id", "user", "userid")
    ),
    DOCID: dict.fromkeys(
        ("qrels", "run"), ("doc_id", "docid", "docno", "doc", "item_id", "item", "itemid", "movieid", "movie_id")
    ),
    VALUE: {
        "run": ("score", "sim", "prediction", "pred"),
        "qrels": ("relevance", "rel", "grade", "label", "judgment", "rating"),
    },
}


RANK = "rank"
RANK_CANDIDATES = ("rank", "position", "pos")


def find_column(frame_columns: list[str], candidates: tuple[str, ...]) -> str | None:
    """The first of ``candidates`` (lower-case names) among ``frame_columns``, compared lower-cased and without a
    ``:type`` suffix (RecBole's ``user_id:token``); None when none is there."""
    lowered = {c.lower().split(":")[0]: c for c in frame_columns}
    return next((lowered[c] for c in candidates if c in lowered), None)


def pick_column(frame_columns: list[str], role: str, kind: Kind, given: Mapping[str, str] | None, name: str) -> str:
    """The column of ``role`` (query id, doc id or value) in a ``kind`` table: the one ``given`` names, else the first
    of :data:`CANDIDATES` found (:func:`find_column`); an :class:`InputError` naming ``name`` and the columns tried
    when there is none."""
    if given and role in given:
        if given[role] not in frame_columns:
            raise InputError(f"{name}: column {given[role]!r} not found; columns are {frame_columns}")
        return given[role]
    found = find_column(frame_columns, CANDIDATES[role][kind])
    if found is None:
        tried = ", ".join(CANDIDATES[role][kind] + (RANK_CANDIDATES if role == VALUE and kind == "run" else ()))
        raise InputError(f"{name}: no {role} column (tried {tried}); columns are {frame_columns}")
    return found


def value_expression(
    frame: pl.DataFrame, kind: Kind, given: Mapping[str, str] | None, name: str
) -> tuple[str, pl.Expr]:
    """The value column: a score (or grade), or for runs a rank turned into score = −rank."""
    rank = None
    if kind == "run":
        if given and RANK in given:
            rank = pick_column(frame.columns, RANK, kind, {RANK: given[RANK]}, name)
        elif not (given and VALUE in given) and find_column(frame.columns, CANDIDATES[VALUE][kind]) is None:
            rank = find_column(frame.columns, RANK_CANDIDATES)
    if rank is not None:
        if not frame.schema[rank].is_numeric():
            raise InputError(f"{name}: rank column {rank!r} must be numeric, not {frame.schema[rank]}")
        return rank, (-pl.col(rank).cast(pl.Float64)).alias(VALUE)
    column = pick_column(frame.columns, VALUE, kind, given, name)
    return column, pl.col(column).alias(VALUE)


def frame_to_table(
    frame: pl.DataFrame,
    kind: Kind,
    origin: Origin,
    columns: Mapping[str, str] | None = None,
    threshold: float | None = None,
    *,
    allow_empty: bool = False,
    grades: Grades = "integer",
) -> Table:
    """A validated :class:`Table` from a polars DataFrame with named columns (``allow_empty``, ``grades``: see
    :func:`rankwise.io.table.make_table`)."""
    name = origin.name
    picked = {role: pick_column(frame.columns, role, kind, columns, name) for role in (QID, DOCID)}
    picked[VALUE], value = value_expression(frame, kind, columns, name)
    if len(set(picked.values())) < 3:
        raise InputError(f"{name}: one column cannot play two roles ({picked})")
    selected = frame.select(pl.col(picked[QID]).alias(QID), pl.col(picked[DOCID]).alias(DOCID), value)
    return make_table(selected, kind, origin, threshold=threshold, allow_empty=allow_empty, grades=grades)


def read_tabular(
    path: Path, kind: Kind, columns: Mapping[str, str] | None = None, threshold: float | None = None,
    grades: Grades = "integer",
) -> Table:  # fmt: skip
    """Read CSV (``.csv``), TSV (``.tsv``, RecBole ``.inter``) or parquet (``.parquet``/``.pq``) with a header."""
    frame = read_table_frame(path, kind, columns)
    suffixes = [s.lower() for s in path.suffixes]
    # Rows of a CSV with a header start on line 2; parquet rows are named by index.
    line_of = None if suffixes and suffixes[-1] in (".parquet", ".pq") else (lambda row: row + 2)
    return frame_to_table(frame, kind, Origin(str(path), line_of), columns, threshold, grades=grades)


def read_table_frame(path: Path, kind: Kind, columns: Mapping[str, str] | None = None) -> pl.DataFrame:
    """Every column of a CSV, TSV (RecBole ``.inter``) or parquet file with a header, as :func:`read_tabular` reads
    it (ids as trimmed text, the other columns typed), before any column is picked."""
    suffixes = [s.lower() for s in path.suffixes]
    name = str(path)
    if not path.exists():
        raise InputError(f"{name}: no such file")
    if path.is_dir():
        raise InputError(f"{name}: is a directory, not a file")
    try:
        if suffixes and suffixes[-1] in (".parquet", ".pq"):
            return pl.read_parquet(path)
        separator = "\t" if ".tsv" in suffixes or ".inter" in suffixes else ","
        return _read_delimited(path, separator, kind, columns)
    except pl.exceptions.NoDataError:
        raise EmptyInputError(f"{name}: file is empty") from None
    except (pl.exceptions.ComputeError, pl.exceptions.SchemaError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{name}: cannot read ({first})") from None


def _read_delimited(path: Path, separator: str, kind: Kind, columns: Mapping[str, str] | None) -> pl.DataFrame:
    """A CSV/TSV file with a header: ids as text, other columns typed from the first 10,000 rows. When a later
    row breaks those types, every column is read as text instead, so the value check names the file line of the
    bad value; a row with more or fewer fields than the header is named by its line.

    Ids are trimmed of the whitespace around them, as the value is (``q1, d1, 1`` is the query ``q1``, the document
    ``d1`` and the grade 1): in a text table whitespace next to a separator is layout, never part of an id."""
    name = str(path)
    header = pl.read_csv(path, separator=separator, n_rows=0).columns
    ids = dict.fromkeys(_id_columns(header, kind, columns, name), pl.String)
    try:
        frame = pl.read_csv(path, separator=separator, infer_schema_length=10000, schema_overrides=ids)
    except pl.exceptions.ComputeError:
        try:
            frame = pl.read_csv(path, separator=separator, infer_schema=False)
        except pl.exceptions.ComputeError:
            _raise_ragged_row(path, separator, len(header))
            raise
    return frame.with_columns(pl.col(column).str.strip_chars() for column in ids)


def _raise_ragged_row(path: Path, separator: str, width: int) -> None:
    """Name the first row whose number of fields differs from the header's (only called once polars has failed,
    so a Python scan is affordable)."""
    import csv

    with path.open(newline="", encoding="utf-8", errors="replace") as handle:
        reader = csv.reader(handle, delimiter=separator)
        for row in reader:
            if row and len(row) != width:
                raise InputError(f"{path}:{reader.line_num}: {len(row)} fields where the header has {width}") from None


def _id_columns(header: list[str], kind: Kind, given: Mapping[str, str] | None, name: str) -> list[str]:
    """The query and document id columns of a CSV/TSV header, to be read as text: a text file has no integer
    ids, and ``007`` must stay ``007`` to match the qrels. A column not found is left for
    :func:`frame_to_table` to report."""
    found = []
    for role in (QID, DOCID):
        with contextlib.suppress(InputError):
            found.append(pick_column(header, role, kind, given, name))
    return found


def dict_to_table(
    data: Mapping[Any, Mapping[Any, Any]], kind: Kind, name: str, threshold: float | None = None,
    grades: Grades = "integer",
) -> Table:  # fmt: skip
    """A validated :class:`Table` from ``{query_id: {doc_id: score_or_grade}}`` (``grades``: see
    :func:`rankwise.io.table.make_table`): one row per (query, doc) entry, in the dicts' order.

    No Python code runs per entry when the ids are ``str``/``int`` and the values plain numbers (Python or numpy
    ``int``/``float``): the dicts are flattened by ``itertools.chain`` over their key and value views, the types
    checked once per distinct type, the values converted by ``numpy.fromiter`` and the query ids repeated by a polars
    ``gather``. Anything else (and any value to refuse) goes through :func:`_dict_value` entry by entry, so a bad
    value is reported exactly as before, by the first entry that holds one."""
    import numpy as np

    queries, dicts = list(data), list(data.values())
    for qid, docs in zip(queries, dicts):
        if not isinstance(docs, Mapping):
            raise InputError(f"{name}: query {qid!r} maps to {type(docs).__name__}, expected {{doc_id: value}}")
    sizes = np.fromiter(map(len, dicts), dtype=np.int64, count=len(dicts))
    if not sizes.any():
        raise EmptyInputError(f"{name}: no {'judgments' if kind == 'qrels' else 'ranked documents'} found")
    filled = [q for q, size in zip(queries, sizes.tolist()) if size]  # a query without entries gives no row
    check_dict_ids(filled, "query", name)
    dids = list(chain.from_iterable(dicts))
    check_dict_ids(dids, "doc", name)
    values = list(chain.from_iterable([docs.values() for docs in dicts]))
    integers = kind == "qrels" and threshold is None and grades == "integer"
    checked: Any = _plain_values(values, integers)
    if checked is None:
        qids = chain.from_iterable(map(repeat, queries, sizes.tolist()))
        checked = [_dict_value(value, integers, f"{name}: query {qid!r} doc {did!r}") for qid, did, value in
                   zip(qids, dids, values)]  # fmt: skip
    rows = np.repeat(np.arange(len(filled), dtype=np.int64), sizes[sizes > 0])  # each entry's query in `filled`
    frame = pl.DataFrame(
        {
            QID: _id_strings(filled).gather(rows).alias(QID),
            DOCID: _id_strings(dids).alias(DOCID),
            VALUE: pl.Series(VALUE, checked, dtype=pl.Int64 if integers else pl.Float64),
        }
    )
    return make_table(frame, kind, Origin(name), threshold=threshold, grades=grades)


def _id_strings(ids: list[Any]) -> pl.Series:
    """Checked ids (:func:`check_dict_ids`) as a String series, each ``str(id)``: a list of ``str`` as it is (no
    call per id), any other through ``map(str, ...)``."""
    if set(map(type, ids)) <= {str}:
        return pl.Series(ids, dtype=pl.String)
    return pl.Series(list(map(str, ids)), dtype=pl.String)


def check_dict_ids(ids: list[Any], label: str, name: str) -> None:
    """Refuse, naming ``name`` and the ``label`` (query, doc, ...), the first id of a dict input that is neither a
    string nor an integer: a float (never cast), a bool, None (never the text ``"None"``: the DataFrame readers
    refuse a null id too). Ids of the types ``str`` and ``int`` alone are accepted by one look at their types."""
    if set(map(type, ids)) <= {str, int}:
        return
    bad = [i for i in ids if isinstance(i, (float, bool)) or not isinstance(i, (str, int))][:1]
    if bad:
        raise InputError(f"{name}: {label} id {bad[0]!r} must be a string or an integer")


INT64_MAX = 2**63 - 1


@cache
def _plain_types(integer: bool) -> frozenset[type]:
    """The value types :func:`_plain_values` converts with ``numpy.fromiter``: those whose numpy conversion to int64
    (``integer``) or float64 is :func:`_dict_value`'s ``int(value)`` / ``float(value)``, overflow raising
    ``OverflowError`` in both. ``bool``, subclasses, ``uint64`` and ``longdouble`` are left to :func:`_dict_value`."""
    import numpy as np

    integers = {int, *(np.dtype(code).type for code in np.typecodes["AllInteger"])} - {np.uint64, np.ulonglong}
    return frozenset(integers if integer else {*integers, float, np.float16, np.float32, np.float64})


def _plain_values(values: list[Any], integer: bool) -> np.ndarray | None:
    """``values`` as one int64 (``integer``) or float64 array, equal to :func:`_dict_value` of each, when every
    value is of a :func:`_plain_types` type and in range; else None, and the caller checks each value."""
    import numpy as np

    if not set(map(type, values)) <= _plain_types(integer):
        return None
    try:
        return np.fromiter(values, dtype=np.int64 if integer else np.float64, count=len(values))
    except OverflowError:  # an int beyond int64 (a grade) or float64 (a score): _dict_value names it
        return None


def _dict_value(value: Any, integer: bool, where: str) -> int | float:
    """One value of a ``{qid: {docid: value}}`` dict: an integer grade within int64 (Python or numpy int: a float,
    even 2.0, is not a grade), or a number that fits a float64 score (or rating)."""
    import numpy as np

    if integer:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise InputError(f"{where}: {value!r} is not an integer grade")
        if not -INT64_MAX - 1 <= value <= INT64_MAX:
            raise InputError(f"{where}: grade {value} is out of range (grades must fit in 64 bits)")
        return int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"{where}: {value!r} is not a number")
    try:
        return float(value)
    except OverflowError:
        raise InputError(f"{where}: {str(value)[:20]}… is too large for a float64") from None


COLUMN_KEYS: dict[Kind, tuple[str, ...]] = {"qrels": (QID, DOCID, VALUE), "run": (QID, DOCID, VALUE, RANK)}
_KEY_HINTS = {
    "query": QID, "qid": QID, "user": QID, "user_id": QID, "topic": QID,
    "doc": DOCID, "docid": DOCID, "docno": DOCID, "item": DOCID, "item_id": DOCID,
    "score": VALUE, "grade": VALUE, "rating": VALUE, "relevance": VALUE, "label": VALUE, "rel": VALUE,
    "position": RANK, "pos": RANK,
}  # fmt: skip


def check_columns(columns: Any, kind: Kind) -> dict[str, str] | None:
    """``qrels_columns=`` / ``run_columns=`` as the column mapping the readers use.

    Accepted: None (columns found by name); a mapping with the keys ``query_id``, ``doc_id`` and ``value`` (the
    grade or rating of qrels, the score of a run), or for a run ``rank`` instead of ``value`` (score = −rank), each
    naming a column; or a plain ``(query, doc, value)`` tuple of three column names (for a run, a third column
    called rank/position/pos is a rank). Any other key is refused, with the key it probably meant."""
    if columns is None:
        return None
    if isinstance(columns, (tuple, list)):
        if len(columns) != 3 or not all(isinstance(c, str) and c.strip() for c in columns):
            raise InputError(f"{kind}_columns {columns!r}: give three column names (query, document, value)")
        return columns_from_names(",".join(c.strip() for c in columns), kind)
    if not isinstance(columns, Mapping):
        raise InputError(
            f"{kind}_columns must be a dict such as {{'query_id': 'user', 'doc_id': 'item', 'value': 'rating'}} "
            f"or a (query, doc, value) tuple, not {type(columns).__name__}"
        )
    allowed = COLUMN_KEYS[kind]
    for key, column in columns.items():
        if key not in allowed:
            hint = _KEY_HINTS.get(str(key).lower())
            meant = f" (for {key!r} write {hint!r})" if hint in allowed else ""
            raise InputError(f"{kind}_columns: unknown key {key!r}{meant}; the keys are {', '.join(allowed)}")
        if not isinstance(column, str) or not column:
            raise InputError(f"{kind}_columns[{key!r}] must be a column name, not {column!r}")
    if VALUE in columns and RANK in columns:
        raise InputError(f"{kind}_columns: give 'value' (a score) or 'rank', not both")
    return dict(columns)


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
