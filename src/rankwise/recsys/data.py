"""Interaction logs: MovieLens ``u.data`` / ``ratings.dat`` / ``ratings.csv``, RecBole ``.inter``, any CSV/TSV/parquet
file or DataFrame with user, item and optionally rating and timestamp columns, read into one polars DataFrame.

The result always has the columns ``user_id`` (String), ``item_id`` (String), ``rating`` (Float64, null when the
source has no rating column) and ``timestamp`` (Float64 seconds since the epoch, null when the source has no time
column), in input order. Nothing is dropped or invented: a missing or unparsable id, rating or timestamp is an
error naming the file and line (or the DataFrame row) and the column; a repeated (user, item) pair is kept (a log
may record an item twice).
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import EmptyInputError, InputError
from ..io import foreign_frame
from ..io.tabular import find_column

USER, ITEM, RATING, TIMESTAMP = "user_id", "item_id", "rating", "timestamp"
COLUMNS = (USER, ITEM, RATING, TIMESTAMP)
SCHEMA = {USER: pl.String, ITEM: pl.String, RATING: pl.Float64, TIMESTAMP: pl.Float64}

#: Column names tried for each role, case-insensitive; RecBole headers (``user_id:token``) match by the part before
#: the colon. MovieLens ``ratings.csv`` spells them userId, movieId, rating, timestamp.
CANDIDATES: dict[str, tuple[str, ...]] = {
    USER: ("user_id", "userid", "user", "uid", "query_id", "qid"),
    ITEM: ("item_id", "itemid", "movieid", "movie_id", "item", "iid", "doc_id", "docid"),
    RATING: ("rating", "rate", "score", "relevance", "value", "label"),
    TIMESTAMP: ("timestamp", "time", "ts", "datetime", "date", "time_stamp"),
}
HEADERLESS_ORDER = (USER, ITEM, RATING, TIMESTAMP)  # u.data, ratings.dat: user item rating timestamp


def load_ratings(source: Any, columns: Mapping[str, str] | None = None) -> pl.DataFrame:
    """An interaction log as a DataFrame with the columns user_id, item_id, rating, timestamp.

    Parameters
    ----------
    source
        A path or a table. Paths by name: ``.inter`` (RecBole atomic file: tab-separated with a typed header),
        ``.csv`` / ``.tsv`` (a header; MovieLens ``ratings.csv``), ``.parquet`` / ``.pq``, ``.dat`` (MovieLens
        1M/10M ``ratings.dat``: ``user::item::rating::timestamp``, no header), anything else (MovieLens ``u.data``)
        whitespace-separated ``user item [rating [timestamp]]`` lines without a header (blank lines skipped). Tables:
        polars or pandas DataFrames, polars LazyFrames, pyarrow tables.
    columns
        The source's column names for the roles ``user_id``, ``item_id``, ``rating``, ``timestamp`` (any subset);
        the rest are found by name (:data:`CANDIDATES`). Only user and item are required.

    Returns
    -------
    polars.DataFrame
        ``user_id`` and ``item_id`` as text (integers become their decimal text; float ids are refused),
        ``rating`` as Float64, ``timestamp`` as Float64 seconds (integers, floats, dates/datetimes, which are
        read as UTC, or durations; a time of day is refused). Absent columns are null. A (user, item) pair rated
        more than once is kept as it is (:func:`rankwise.recsys.experiment.latest_test_ratings` takes a test pair
        once).
    """
    unknown = set(columns or {}) - set(COLUMNS)
    if unknown:
        raise InputError(f"columns: unknown role {sorted(unknown)[0]!r}; the roles are {', '.join(COLUMNS)}")
    frame, name, line_of = _read(source)
    if frame.height == 0:
        raise EmptyInputError(f"{name}: no interactions")
    picked = {role: _column(frame, role, columns, name) for role in COLUMNS}
    for role in (USER, ITEM):
        if picked[role] is None:
            tried = ", ".join(CANDIDATES[role])
            raise InputError(f"{name}: no {role} column (tried {tried}); columns are {frame.columns}")
    chosen = [c for c in picked.values() if c is not None]
    if len(set(chosen)) < len(chosen):
        raise InputError(f"{name}: one column cannot play two roles ({picked})")
    out = pl.DataFrame(
        {role: _convert(frame, picked[role], role, name, line_of) for role in COLUMNS}, schema=SCHEMA
    )
    return out


def _read(source: Any) -> tuple[pl.DataFrame, str, Any]:
    """(raw frame, name for messages, row → 'file:line' or 'name row N')."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        name = str(path)
        if not path.exists():
            raise InputError(f"{name}: no such file")
        if path.is_dir():
            raise InputError(f"{name}: is a directory, not a file")
        suffix = path.suffix.lower()
        try:
            if suffix in (".parquet", ".pq"):
                return pl.read_parquet(path), name, lambda row: f"{name} row {row}"
            if suffix in (".csv", ".tsv", ".inter"):
                separator = "," if suffix == ".csv" else "\t"
                # every field as text, trimmed as the run and qrels tables trim theirs (``u1, i1, 4``)
                frame = pl.read_csv(path, separator=separator, infer_schema=False).with_columns(
                    pl.all().str.strip_chars()
                )
                return frame, name, lambda row: f"{name}:{row + 2}"
            return _read_headerless(path.read_bytes(), name, suffix == ".dat")
        except pl.exceptions.NoDataError:
            raise EmptyInputError(f"{name}: file is empty") from None
        except (OSError, pl.exceptions.PolarsError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InputError(f"{name}: cannot read ({first})") from None
    name = f"interactions {type(source).__name__}"
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if isinstance(source, pl.DataFrame):
        return source, name, lambda row: f"{name} row {row}"
    if type(source).__module__.split(".")[0] in ("pandas", "pyarrow"):
        return foreign_frame(source, name), name, lambda row: f"{name} row {row}"
    raise InputError(f"cannot read interactions from {type(source).__name__}: give a path, DataFrame or Arrow table")


def _read_headerless(data: bytes, name: str, double_colon: bool) -> tuple[pl.DataFrame, str, Any]:
    """``user item [rating [timestamp]]`` lines: ``::``-separated (``ratings.dat``) or any run of spaces/tabs."""
    text = data.replace(b"::", b"\t") if double_colon else re.sub(rb"[ \t\r\f\v]+", b"\t", data)
    text = re.sub(rb"(?m)^\t+|\t+$", b"", text)
    if not text.strip():
        raise EmptyInputError(f"{name}: no interactions")
    frame = pl.read_csv(io.BytesIO(text), separator="\t", has_header=False, infer_schema=False, quote_char=None,
                        truncate_ragged_lines=False)  # fmt: skip
    frame = frame.with_row_index("_line", offset=1).filter(pl.any_horizontal(pl.exclude("_line").is_not_null()))
    if frame.width - 1 > len(HEADERLESS_ORDER):
        extra = frame.filter(pl.col(frame.columns[len(HEADERLESS_ORDER) + 1]).is_not_null())
        if extra.height:
            raise InputError(f"{name}:{extra.item(0, '_line')}: more than 4 fields (user item rating timestamp)")
    lines = frame.get_column("_line")
    fields = frame.drop("_line")
    fields.columns = list(HEADERLESS_ORDER[: fields.width])
    return fields, name, lambda row: f"{name}:{lines[row]}"


def _column(frame: pl.DataFrame, role: str, given: Mapping[str, str] | None, name: str) -> str | None:
    if given and role in given:
        if given[role] not in frame.columns:
            raise InputError(f"{name}: column {given[role]!r} not found; columns are {frame.columns}")
        return given[role]
    return find_column(frame.columns, CANDIDATES[role])


def _convert(frame: pl.DataFrame, column: str | None, role: str, name: str, line_of: Any) -> pl.Series:
    """One role's column, typed and checked; a role without a column is all null."""
    if column is None:
        return pl.Series(role, [None] * frame.height, dtype=SCHEMA[role])
    series = frame.get_column(column)
    if role in (USER, ITEM):
        return _ids(series, role, name, line_of)
    if role == TIMESTAMP and (series.dtype.is_temporal() or series.dtype == pl.String):
        converted = _times(series, name)
    else:
        converted = series.cast(pl.Float64, strict=False)
    bad = (converted.is_null() | converted.is_nan() | converted.is_infinite()).arg_true()
    if bad.len():
        row = int(bad[0])
        value = series[row]
        what = "missing" if value is None else f"{str(value)[:40]!r} is not a number"
        raise InputError(f"{line_of(row)}: {role} ({column}) {what}" + (f" ({bad.len()} such rows)" if bad.len() > 1
                                                                          else ""))  # fmt: skip
    return converted.rename(role)


def _times(series: pl.Series, name: str) -> pl.Series:
    """Numbers stay numbers; dates and ISO datetimes (text or temporal) become seconds since the epoch (UTC); a
    duration (time since some start) becomes its seconds; a time of day, which orders no two days, is refused."""
    if series.dtype == pl.String:
        numeric = series.cast(pl.Float64, strict=False)
        if numeric.null_count() == series.null_count():
            return numeric
        parsed = series.str.to_datetime(strict=False, time_zone="UTC")
        return numeric.fill_null(parsed.dt.epoch("us").cast(pl.Float64) / 1e6)
    if series.dtype == pl.Date:
        return series.cast(pl.Datetime("us")).dt.epoch("us").cast(pl.Float64) / 1e6
    if series.dtype == pl.Duration:
        return series.dt.total_microseconds().cast(pl.Float64) / 1e6
    if series.dtype == pl.Time:
        raise InputError(f"{name}: timestamp ({series.name}) holds times of day, which order no two days: give "
                         "dates, datetimes, durations or numbers")  # fmt: skip
    return series.dt.epoch("us").cast(pl.Float64) / 1e6


def _ids(series: pl.Series, role: str, name: str, line_of: Any) -> pl.Series:
    dtype = series.dtype
    if not (dtype == pl.String or dtype.is_integer() or dtype in (pl.Categorical, pl.Enum)):
        raise InputError(f"{name}: {role} ({series.name}) must hold strings or integers, not {dtype} "
                         "(ids are never cast from floats)")  # fmt: skip
    text = series.cast(pl.String)
    missing = (text.is_null() | (text.str.strip_chars() == "")).arg_true()
    if missing.len():
        raise InputError(f"{line_of(int(missing[0]))}: {role} ({series.name}) is missing"
                         + (f" ({missing.len()} such rows)" if missing.len() > 1 else ""))  # fmt: skip
    return text.rename(role)
