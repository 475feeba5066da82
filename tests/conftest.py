"""Helpers and fixtures shared by the test modules (helpers imported as ``from conftest import close``; ``tests/``
is on the path, see ``pythonpath`` in pyproject.toml)."""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from rankwise.cli import main

SLOW = (
    "spark/",  # a Spark job per test (a JVM, Python workers): 150 s of the suite
    "dialects/test_recbole_beyond.py",  # RecBole's own evaluator in the reference environment, a process per case
    "dialects/test_dialects_trectools.py",  # trectools on pandas, per measure
    "recsys/test_recsys_beyond.py",  # MS Recommenders' EASE and popularity models
    "ltr/test_ltr_readme.py",  # trains the docs' LTR table rows on LightGBM's LambdaRank example
    "docs/test_docs.py::test_the_code_blocks_of_a_page_run",  # every page's commands, in fresh processes
    "docs/test_docs.py::test_the_site_builds_strictly",  # mkdocs build --strict
)
"""Tests marked ``slow`` (``pytest -m "not slow"`` leaves them out for a quick loop; ``pytest`` runs everything):
those whose module or test id starts with one of these paths under ``tests/``, and every test that takes a Spark
session."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.nodeid.removeprefix("tests/")
        if where.startswith(SLOW) or "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


def close(a: float | None, b: float | None, *, rel_tol: float = 1e-9, abs_tol: float = 1e-12) -> bool:
    """Two values agree: both undefined (NaN or None), or equal within the tolerances."""
    x = math.nan if a is None else float(a)
    y = math.nan if b is None else float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return math.isclose(x, y, rel_tol=rel_tol, abs_tol=abs_tol)


def run_cli(*args: str) -> tuple[int, str, str]:
    """``rankwise ARGS...`` in this process: (exit code, stdout, stderr)."""
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def _spark_session() -> Iterator[Any]:
    """A local Spark session (two cores) per test module: one JVM for the whole run (PySpark keeps its gateway), a
    fresh context per module, so what one module's jobs leave on the driver's heap goes with it."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install '.[spark]')")
    if shutil.which("java") is None:
        pytest.skip("Spark needs a Java runtime (17 or 21) and `java` is not on the PATH")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("rankwise-tests")
        .config("spark.driver.memory", "2g")  # read when the JVM starts (the first module); 1g by default
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.retainedJobs", "50")  # the status store keeps finished jobs, stages and queries
        .config("spark.ui.retainedStages", "50")
        .config("spark.sql.ui.retainedExecutions", "50")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def spark(_spark_session: Any) -> Any:
    """The module's Spark session, its JVM checked alive first: a JVM that died in an earlier test fails this one
    with its exit code (52: out of heap; 0: its standard input closed) instead of a refused connection."""
    process = getattr(_spark_session.sparkContext._gateway, "proc", None)
    if process is not None and process.poll() is not None:
        pytest.fail(f"the Spark JVM exited with code {process.returncode} during an earlier test")
    return _spark_session
