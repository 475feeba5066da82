"""The package's shape: no import cycle (imports inside functions count), `python -m rankwise`, one-line
suggestions that name each measure once."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import rankwise

SRC = Path(rankwise.__file__).resolve().parent


def _import_graph() -> dict[str, set[str]]:
    """Module → the rankwise modules it imports anywhere in its body (module level or inside functions)."""
    modules = {}
    for path in SRC.rglob("*.py"):
        parts = ["rankwise", *path.relative_to(SRC).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rsplit(".", 1)[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                candidates = [target, *(f"{target}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            else:
                continue
            targets.update(c for c in candidates if c in modules and c != name)
        graph[name] = targets
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, or None (depth-first search with colours)."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_the_package_has_no_import_cycle() -> None:
    graph = _import_graph()
    assert len(graph) > 30 and "rankwise.cli.ltr" in graph["rankwise.cli"]
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


@pytest.mark.parametrize("module", ["rankwise.cli.ltr", "rankwise.cli.commands", "rankwise.measures.spec"])
def test_each_module_imports_on_its_own(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_python_dash_m_rankwise() -> None:
    done = subprocess.run([sys.executable, "-m", "rankwise", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("rankwise, version"), done.stderr


@pytest.mark.parametrize("text", ["Rprc", "rprec@5x", "nDGC@10", "MAPP", "recal@5"])
def test_suggestions_name_each_measure_once(text: str) -> None:
    with pytest.raises(rankwise.MeasureError, match="did you mean") as info:
        rankwise.parse_measure(text)
    names = str(info.value).split("did you mean ")[1].rstrip("?").split(", ")
    assert len({n.lower() for n in names}) == len(names), names
