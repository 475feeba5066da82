"""Reading judgments (qrels) and runs from files, DataFrames, Arrow tables and dicts into one form."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl
else:
    from .lazy import polars as pl

from ..errors import InputError
from .table import Grades, Kind, Origin, Table
from .tabular import check_columns, dict_to_table, frame_to_table, read_tabular
from .trec import read_trec

TABULAR_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq", ".inter")


def load(
    source: Any, kind: Kind, columns: Mapping[str, str] | None = None, threshold: float | None = None,
    grades: Grades = "integer",
) -> Table:  # fmt: skip
    """Read ``source`` as qrels or run.

    ``source`` may be a path (TREC text, optionally ``.gz``; ``.csv``/``.tsv``/``.parquet`` with a header),
    a polars/pandas DataFrame or LazyFrame, a pyarrow Table, a ``{qid: {docid: value}}`` dict, or an
    already loaded :class:`Table`. ``columns`` names the query, document and value columns of a table: a dict with
    the keys ``query_id``, ``doc_id``, ``value`` (and ``rank`` for a run ranked by position), or a plain
    ``(query, doc, value)`` tuple; other keys are refused. ``threshold`` reads qrels values as ratings: relevant
    (grade 1) when rating >= threshold, else 0. ``grades="real"`` reads qrels values as real-valued grades (an LLM
    judge's 0.73) from a file, a DataFrame, an Arrow table or a dict; the measures that threshold grades then need their
    ``rel`` given (see :func:`rankwise.pipeline.compute.refuse_undefined_on_real_grades`).
    """
    columns = check_columns(columns, kind)
    if isinstance(source, Table):
        return source
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.suffix.lower() in TABULAR_SUFFIXES:
            return read_tabular(path, kind, columns, threshold, grades)
        return read_trec(path, kind, threshold, grades)
    origin = Origin(f"{kind} {type(source).__name__}")
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if isinstance(source, pl.DataFrame):
        return frame_to_table(source, kind, origin, columns, threshold, grades=grades)
    module = type(source).__module__.split(".")[0]
    if module in ("pandas", "pyarrow"):
        return frame_to_table(foreign_frame(source, origin.name), kind, origin, columns, threshold, grades=grades)
    if isinstance(source, Mapping):
        return dict_to_table(source, kind, origin.name, threshold, grades)
    raise InputError(f"cannot read {kind} from {type(source).__name__}: give a path, DataFrame, Arrow table or dict")


def foreign_frame(source: Any, name: str) -> pl.DataFrame:
    """A pandas DataFrame or pyarrow table as a polars DataFrame; a column Arrow cannot convert (ids mixing
    integers and strings, a string among scores) is named in one line, and so is a missing pyarrow."""
    convert = pl.from_pandas if type(source).__module__.startswith("pandas") else pl.from_arrow
    try:
        return pl.DataFrame(convert(source))
    except Exception as exc:  # pyarrow's ArrowInvalid/ArrowTypeError, TypeError, ValueError: name the column
        if not _have_pyarrow():
            raise InputError(
                f"{name}: reading a pandas DataFrame with text columns needs pyarrow, which is not installed: "
                "pip install pyarrow (from a checkout: pip install '.[pandas]')"
            ) from None
        for column in getattr(source, "columns", getattr(source, "column_names", [])):
            try:
                convert(source[[column]] if convert is pl.from_pandas else source.select([column]))
            except Exception as inner:
                detail = str(inner).strip().splitlines()[0] if str(inner).strip() else type(inner).__name__
                raise InputError(
                    f"{name}: column {column!r} cannot be read ({detail}); give every value of a column one type "
                    "(ids all str or all int, scores all numbers)"
                ) from None
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{name}: cannot be read as a table ({detail})") from None


def _have_pyarrow() -> bool:
    import importlib

    try:
        importlib.import_module("pyarrow")
    except ImportError:
        return False
    return True


def load_qrels(
    source: Any, columns: Mapping[str, str] | None = None, threshold: float | None = None, *, grades: Grades = "integer"
) -> Table:
    """Judgments: (query_id, doc_id, integer grade), ratings with a ``threshold``, or real-valued grades with
    ``grades="real"``. See :func:`load`."""
    return load(source, "qrels", columns, threshold, grades)


def load_run(source: Any, columns: Mapping[str, str] | None = None) -> Table:
    """Run: (query_id, doc_id, float score). See :func:`load`."""
    return load(source, "run", columns)


__all__ = ["Origin", "Table", "load", "load_qrels", "load_run"]
