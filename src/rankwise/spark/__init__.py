"""Evaluation on Spark: :func:`evaluate` takes Spark DataFrames and gives :func:`rankwise.evaluate`'s result, notes,
errors and numbers (bit for bit), computed on the cluster with the local engine (see
:mod:`rankwise.spark.driver`).

PySpark is an optional extra: ``pip install '.[spark]'`` in a rankwise checkout (pyspark, pyarrow and pandas, which
PySpark's Arrow functions need); Spark needs a Java runtime. Executors need rankwise installed too (see "On a cluster"
in docs/how-to/spark.md).
"""

from __future__ import annotations

import importlib

from ..errors import RankwiseError
from ..wording import install_hint


def require_spark() -> None:
    """Nothing, or a :class:`RankwiseError` naming what to install when pyspark, pyarrow or pandas is missing."""
    for module in ("pyspark", "pyarrow", "pandas"):
        try:
            importlib.import_module(module)
        except ImportError:
            hint = install_hint("spark")
            raise RankwiseError(f"rankwise.spark needs {module}, which is not installed: {hint}") from None


require_spark()

from .driver import CHUNK_ROWS, MAX_QUERY_ROWS, evaluate, to_spark  # noqa: E402

__all__ = ["CHUNK_ROWS", "MAX_QUERY_ROWS", "evaluate", "require_spark", "to_spark"]
