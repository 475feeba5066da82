"""Helpers shared by the test modules (imported as ``from conftest import close``)."""

from __future__ import annotations

import math

from click.testing import CliRunner

from rankwise.cli import main


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
