"""Installs that tell the truth: rankwise is not on PyPI, so every install hint is a command that works from a
checkout, and a missing optional dependency is one line saying what to install."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from rankwise.wording import install_hint

ROOT = Path(__file__).resolve().parents[1]


def test_no_hint_installs_rankwise_from_pypi() -> None:
    texts = {path: path.read_text() for path in [ROOT / "README.md", *sorted((ROOT / "src").rglob("*.py")),
                                                 *sorted((ROOT / "docs").rglob("*.md"))]}
    wrong = [str(path) for path, text in texts.items() if re.search(r"pip install\s+['\"]?rankwise\b", text)]
    assert wrong == []
    assert "pip install '.[ltr]'" in texts[ROOT / "README.md"]
    assert "download.pytorch.org/whl/cpu" in texts[ROOT / "README.md"]
    assert "Java" in texts[ROOT / "README.md"] and "2.6 GB" in texts[ROOT / "README.md"]


def test_install_hints_are_checkout_commands() -> None:
    assert install_hint("lightgbm") == "pip install '.[lightgbm]' (in a rankwise checkout)"
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in install_hint("torch")


def _without(module: str, code: str) -> str:
    """Run ``code`` in a fresh interpreter where importing ``module`` fails as if it were not installed."""
    script = f"import sys; sys.modules[{module!r}] = None\n" + code
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.strip()


def test_pandas_input_without_pyarrow_is_one_line() -> None:
    pytest.importorskip("pandas")
    out = _without(
        "pyarrow",
        """
import pandas as pd, rankwise
frame = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
try:
    rankwise.evaluate({"q": {"d": 1}}, frame, ["P@1"])
    print("accepted")
except rankwise.RankwiseError as exc:
    print(exc)
try:
    rankwise.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["P@1"]).to_pandas()
    print("accepted")
except rankwise.RankwiseError as exc:
    print(exc)
""",
    )
    assert out.splitlines() == [
        "run DataFrame: reading a pandas DataFrame with text columns needs pyarrow, which is not installed: "
        "pip install pyarrow (from a checkout: pip install '.[pandas]')",
        "to_pandas() needs pyarrow: pip install pandas pyarrow (from a checkout: pip install '.[pandas]')",
    ]


def test_missing_lightgbm_says_how_to_install_it() -> None:
    out = _without(
        "lightgbm",
        """
import rankwise
from rankwise.ltr.models import _require
try:
    _require("lightgbm")
except rankwise.RankwiseError as exc:
    print(exc)
""",
    )
    assert out == "lightgbm is not installed: pip install '.[lightgbm]' (in a rankwise checkout)"


def test_cpu_extras_pull_no_cuda_wheels() -> None:
    """On Linux and Windows PyPI's ``xgboost`` wheel bundles CUDA and requires ``nvidia-nccl-cu12``; the extras a CPU
    machine installs take ``xgboost-cpu`` there (macOS's ``xgboost`` has no CUDA), and only ``gpu`` asks for the CUDA
    builds. Requirements evaluated for each platform with their environment markers."""
    import tomllib
    from packaging.requirements import Requirement

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for platform in ("linux", "win32", "darwin"):
        for extra in ("xgboost", "ltr", "test"):
            wanted = [Requirement(text) for text in extras[extra]]
            names = {r.name for r in wanted if r.marker is None or r.marker.evaluate({"sys_platform": platform})}
            assert not any(name.startswith("nvidia") for name in names), (extra, platform)
            if platform != "darwin":
                assert "xgboost" not in names and "xgboost-cpu" in names, (extra, platform, names)
    gpu = {Requirement(text).name for text in extras["gpu"]}
    assert {"xgboost", "torch"} <= gpu


def test_every_extra_is_listed_with_its_size_in_the_docs() -> None:
    """docs/index.md's install table names every extra of pyproject.toml (measured by scripts/extra_sizes.py)."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    page = (ROOT / "docs" / "index.md").read_text()
    assert [e for e in extras if f"'.[{e}]'" not in page] == []
