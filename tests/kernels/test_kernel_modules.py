"""The kernels' layout: every measure family has its kernel in exactly one family module, and the modules of
``rankwise.kernels`` import one way (common ← the families ← aggregate ← the package), a family never another."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rankwise.kernels
from rankwise.kernels import KERNELS, beyond, exposure, fairness, gain, intent, overlap, pairwise, precision, user_model
from rankwise.measures.catalog import FAMILIES

FAMILY_DICTS = {
    "precision": precision.PRECISION_KERNELS,
    "gain": gain.GAIN_KERNELS,
    "pairwise": pairwise.PAIRWISE_KERNELS,
    "user_model": user_model.USER_MODEL_KERNELS,
    "beyond": beyond.BEYOND_KERNELS,
    "exposure": exposure.EXPOSURE_KERNELS,
    "fairness": fairness.FAIRNESS_KERNELS,
    "overlap": overlap.OVERLAP_KERNELS,
    "intent": intent.INTENT_KERNELS,
}
PACKAGE = Path(rankwise.kernels.__file__).parent
ALLOWED = {
    "common": set(),
    **{family: {"common"} for family in FAMILY_DICTS},
    "aggregate": {"common", *FAMILY_DICTS},
}
"""Module of rankwise.kernels → the modules of rankwise.kernels it may import."""


def _kernel_imports(path: Path) -> set[str]:
    """The modules of rankwise.kernels that the module at ``path`` imports ("__init__" for the package itself)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found.add(node.module or "__init__")
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rankwise.kernels"):
            found.add(node.module.removeprefix("rankwise.kernels").lstrip(".") or "__init__")
    return found


def test_every_family_has_its_kernel_in_one_module() -> None:
    names = [name for kernels in FAMILY_DICTS.values() for name in kernels]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert set(names) == set(KERNELS) == {spec.name for spec in FAMILIES}
    for kernels in FAMILY_DICTS.values():
        assert all(KERNELS[name] is kernel for name, kernel in kernels.items())


def test_every_module_is_known() -> None:
    assert {path.stem for path in PACKAGE.glob("*.py")} == {"__init__", *ALLOWED}


@pytest.mark.parametrize("module", sorted(ALLOWED))
def test_imports_inside_the_kernels_go_one_way(module: str) -> None:
    imported = _kernel_imports(PACKAGE / f"{module}.py")
    assert imported <= ALLOWED[module], f"{module} imports {sorted(imported - ALLOWED[module])}"


def test_the_checker_sees_relative_and_absolute_imports(tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text("from .common import divide\nfrom . import gain\nfrom rankwise.kernels.beyond import novelty\n")
    assert _kernel_imports(source) == {"common", "__init__", "beyond"}
