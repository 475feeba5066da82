"""Training interactions: (user, item) pairs a recommender saw, needed by measures that count each user's
candidate items (Elliot's AUC family: the catalogue minus the user's training items).

Unlike qrels, a (user, item) pair may repeat (a log of events) and no value column is needed.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl
else:
    from .lazy import polars as pl

from ..errors import InputError
from .table import DOCID, QID
from .tabular import CANDIDATES, find_column

TABULAR = {".csv": ",", ".tsv": "\t", ".inter": "\t"}


def load_interactions(source: Any, columns: Mapping[str, str] | None = None) -> pl.DataFrame:
    """Distinct (query_id, doc_id) pairs, ids as text, from a CSV/TSV/RecBole ``.inter``/parquet file with a
    header, a whitespace-separated text file (``user item ...`` per line, as TREC qrels or MovieLens ``u.data``),
    a polars/pandas DataFrame, a pyarrow table, or a ``{user: [item, ...]}`` / ``{user: {item: value}}`` dict.

    ``columns`` names the user and item columns (``{"query_id": ..., "doc_id": ...}``); by default they are found
    by name as for qrels (user_id, item_id, ...).
    """
    pairs = read_interactions(source, columns)
    return pairs.select(pl.col(QID).cast(pl.String), pl.col(DOCID).cast(pl.String)).unique(maintain_order=True)


def read_interactions(source: Any, columns: Mapping[str, str] | None = None) -> pl.DataFrame:
    """The (query_id, doc_id) pairs of :func:`load_interactions` as they come: integer ids stay integers (Int64;
    UInt64 as text), other ids are text, and a repeated pair stays repeated: what
    :class:`rankwise.engine.training.Training` indexes without a pass over text."""
    name = str(source) if isinstance(source, (str, Path)) else f"training interactions {type(source).__name__}"
    frame = _frame(source, name)
    picked = []
    for role in (QID, DOCID):
        column = (columns or {}).get(role) or find_column(frame.columns, CANDIDATES[role]["qrels"])
        if column is None or column not in frame.columns:
            tried = ", ".join(CANDIDATES[role]["qrels"])
            raise InputError(f"{name}: no {role} column (tried {tried}); columns are {frame.columns}")
        dtype = frame.schema[column]
        if not (dtype == pl.String or dtype.is_integer() or dtype in (pl.Categorical, pl.Enum)):
            raise InputError(f"{name}: {column} must hold strings or integers, not {dtype}")
        narrow = dtype.is_integer() and dtype != pl.UInt64  # UInt64 becomes text: it may not fit
        picked.append(pl.col(column).cast(pl.Int64 if narrow else pl.String).alias(role))
    pairs = frame.select(picked)
    if pairs.height == 0:
        raise InputError(f"{name}: no interactions")
    missing = pairs.filter(pl.col(QID).is_null() | pl.col(DOCID).is_null()).height
    if missing:
        raise InputError(f"{name}: {missing} interactions lack a user or an item id")
    return pairs


def _frame(source: Any, name: str) -> pl.DataFrame:
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise InputError(f"{name}: no such file")
        suffix = path.suffix.lower()
        try:
            if suffix in (".parquet", ".pq"):
                return pl.read_parquet(path)
            if suffix in TABULAR:
                # every field as text, trimmed as the run and qrels tables trim theirs (``u1, i1``)
                return pl.read_csv(path, separator=TABULAR[suffix], infer_schema=False).with_columns(
                    pl.all().str.strip_chars()
                )
            return _read_whitespace_text(path.read_bytes(), name)
        except (OSError, pl.exceptions.PolarsError) as exc:
            raise InputError(f"{name}: cannot read ({str(exc).splitlines()[0] if str(exc) else exc})") from None
    if isinstance(source, pl.LazyFrame):
        return source.collect()
    if isinstance(source, pl.DataFrame):
        return source
    module = type(source).__module__.split(".")[0]
    if module in ("pandas", "pyarrow"):
        return pl.from_pandas(source) if module == "pandas" else pl.from_arrow(source)  # type: ignore[return-value]
    if isinstance(source, Mapping):
        users, items = [], []
        for user, seen in source.items():
            for item in seen if isinstance(seen, Iterable) else ():
                users.append(None if user is None else str(user))  # None is a missing id, never the text "None"
                items.append(None if item is None else str(item))
        return pl.DataFrame({QID: users, DOCID: items}, schema={QID: pl.String, DOCID: pl.String})
    raise InputError(f"cannot read training interactions from {type(source).__name__}")


def _read_whitespace_text(data: bytes, name: str) -> pl.DataFrame:
    """The first two whitespace-separated fields of every line (blank and ``#`` lines skipped)."""
    lines = re.sub(rb"(?m)^[ \t\r\f\v]+|[ \t\r\f\v]+$", b"", re.sub(rb"[ \t\r\f\v]+", b" ", data))
    lines = re.sub(rb"\n\n+", b"\n", lines).lstrip(b"\n")
    if not lines:
        raise InputError(f"{name}: no interactions")
    frame = pl.read_csv(io.BytesIO(lines), separator=" ", has_header=False, infer_schema=False, quote_char=None,
                        comment_prefix="#", truncate_ragged_lines=True)  # fmt: skip
    if frame.width < 2 or frame.get_column(frame.columns[1]).null_count():
        raise InputError(f"{name}: every line needs at least two fields (user item)")
    return frame.select(pl.col(frame.columns[0]).alias(QID), pl.col(frame.columns[1]).alias(DOCID))
