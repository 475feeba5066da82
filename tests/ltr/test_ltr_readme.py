"""The learning-to-rank figures of the docs (`docs/getting-started/ltr.md`) are what the code produces today.

The cheap rows of the table (``benchmarks/ltr_table.py``'s ``CHEAP``) are retrained and re-evaluated exactly as
the benchmark does, and every figure but the training time must match the README to the printed 4 decimals; so
must the LightGBM figures quoted beside the README's example commands. Skipped when the shared data
(../shared/data/lambdarank) or a model's extra is absent.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "docs" / "getting-started" / "ltr.md"  # the LTR page of the docs (once the README)
EXTRA = {"lightgbm": "lightgbm", "xgboost": "xgboost", "linear": "torch", "mlp": "torch"}


def _load_benchmark():
    spec = importlib.util.spec_from_file_location("ltr_table", ROOT / "benchmarks" / "ltr_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


ltr_table = _load_benchmark()


def readme_rows() -> dict[str, list[str]]:
    """The README's LTR table: model name → its cells after the name (best iter, train s, measures...)."""
    section = README.read_text().split("## Learning to rank", 1)[1]
    header = "| " + " | ".join(ltr_table.HEADER) + " |"
    assert header in section, "the README's LTR table header differs from benchmarks/ltr_table.py's"
    table = section.split(header, 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in table.strip().splitlines()[1:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def test_the_table_lists_every_model_of_the_benchmark() -> None:
    assert list(readme_rows()) == list(ltr_table.MODELS)


def _data() -> Path:
    if not (ltr_table.DEFAULT_DATA / "rank.train").exists():
        pytest.skip(f"{ltr_table.DEFAULT_DATA} not found (shared data is optional)")
    return ltr_table.DEFAULT_DATA


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    """Rows measured so far (each is measured once). The commands run on one thread: on these small files that is
    several times faster on a busy machine, and gives the same figures (the README's were taken on two)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OMP_NUM_THREADS", "1")
        yield {"folder": tmp_path_factory.mktemp("ltr_table")}


def _row(name: str, measured: dict[str, object]):
    data = _data()
    pytest.importorskip(EXTRA[name.split("-")[0]])
    if name not in measured:
        measured[name] = ltr_table.measure(name, data, measured["folder"])
    return measured[name]


@pytest.mark.parametrize("name", ltr_table.CHEAP)
def test_cheap_rows_match_the_readme(name: str, measured: dict[str, object]) -> None:
    row = _row(name, measured)
    printed = readme_rows()[name]
    assert [str(row.best_iteration), *row.values] == [printed[0], *printed[2:]], (
        f"README row {name} is stale; now: {row.markdown()} (regenerate with python benchmarks/ltr_table.py)"
    )


def test_example_command_figures_match_the_lightgbm_row(measured: dict[str, object]) -> None:
    """The comments beside the README's example commands quote the LightGBM row."""
    section = README.read_text().split("## Learning to rank", 1)[1]
    best = re.search(r"best iteration (\d+)\n", section)
    quoted = re.search(r"--dialect lightgbm -m nDCG@1 -m nDCG@3 -m nDCG@5 +# ([0-9. ]+)\n", section)
    assert best is not None and quoted is not None
    row = _row("lightgbm", measured)
    lightgbm_ndcg = row.values[len(ltr_table.MEASURES) : len(ltr_table.MEASURES) + 3]  # nDCG@1/3/5, lightgbm
    assert (int(best.group(1)), quoted.group(1).split()) == (row.best_iteration, list(lightgbm_ndcg))
