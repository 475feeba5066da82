"""The package's shape: one room per concept and imports that only go down the floors below, as data; no import
cycle (imports inside functions count); no private name used across rooms; no module shadowed by a name its package
exports; files a reader can hold; tests that mirror the package; `python -m rankwise`; one-line suggestions that name
each measure once."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import rankwise

SRC = Path(rankwise.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent

FLOORS: tuple[tuple[str, ...], ...] = (
    ("errors", "wording"),  # the shared vocabulary: what goes wrong, how things are said
    ("policies", "limits"),  # the evaluation policies (ties, which queries, score precision); size limits
    ("io", "measures"),  # reading inputs into tables; measure definitions as data
    ("engine", "dialects"),  # the aligned arrays and row operations; dialects as data over measures
    ("kernels", "torch"),  # one module per measure family, on the aligned arrays; the measures on torch tensors
    ("pipeline",),  # plan, load, compute, assemble: rankwise.evaluate
    ("comparison", "trec_eval", "ltr", "spark", "fusion"),  # what is built on evaluating
    ("compat",),  # the peers' Python APIs (pytrec_eval, ir_measures, ranx: its compare and fuse) over all of that
    ("recsys",),  # the recommender protocol (its experiment compares dialects)
    ("cli",),  # the command line
    ("__init__", "__main__", "stats", "report"),  # the package's face: its API, `python -m`, forwarding modules
)
"""Each room of ``src/rankwise`` (a folder, or a module at the root) on its floor: a module may import its own room
and the rooms on floors below its own, never a room on its floor or above."""

UPWARD = {"__version__"}
"""Names any room may read from the package's face (the version, which ``rankwise -V`` prints)."""

FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}

FORWARDING = {"stats": "comparison.stats", "report": "comparison.report"}
"""Root modules kept only because users could have imported them (``from rankwise.report import render``): each
re-exports the public names of the module it moved to."""

CATALOGS = {"dialects/catalog.py"}
"""Declarative catalogs, allowed past :data:`MAX_LINES` (data, read entry by entry)."""

MAX_LINES = 800

Imports = dict[str, list[tuple[str, list[str], int]]]


def _modules() -> dict[str, tuple[Path, bool]]:
    modules = {}
    for path in SRC.rglob("*.py"):
        parts = ["rankwise", *path.relative_to(SRC).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def _imports() -> Imports:
    """Module → (imported rankwise module, names taken from it, line) for each import anywhere in its body (module
    level or inside functions)."""
    modules = _modules()
    found: Imports = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rsplit(".", 1)[0]
        entries = []
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                names = [alias.name for alias in node.names if alias.name not in UPWARD]
                submodules = [alias for alias in names if f"{target}.{alias}" in modules]
                entries += [(f"{target}.{alias}", [], node.lineno) for alias in submodules]  # `from . import module`
                if len(submodules) < len(names):
                    entries.append((target, [n for n in names if n not in submodules], node.lineno))
            elif isinstance(node, ast.Import):
                entries += [(alias.name, [], node.lineno) for alias in node.names]
        found[name] = [(t, n, line) for t, n, line in entries if t in modules and t != name]
    return found


def _import_graph() -> dict[str, set[str]]:
    """Module → the rankwise modules it imports anywhere in its body."""
    return {name: {target for target, _, _ in entries} for name, entries in _imports().items()}


def room(module: str) -> str:
    """The room of a module: its folder under ``rankwise`` (``rankwise.kernels.gain`` → ``kernels``), the module's
    own name at the root (``rankwise.errors`` → ``errors``), ``__init__`` for the package itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, or None (depth-first search with colours)."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
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


def test_every_room_has_a_floor() -> None:
    rooms = {room(name) for name in _modules()}
    assert rooms <= set(FLOOR), f"rooms without a floor in FLOORS: {sorted(rooms - set(FLOOR))}"
    assert set(FLOOR) <= rooms, f"floors name rooms that do not exist: {sorted(set(FLOOR) - rooms)}"


def against_floors(imports: Imports) -> list[str]:
    """Each import of a room on the importer's floor or above."""
    return sorted(
        f"{name} (line {line}) imports {target}: {room(name)} is on floor {FLOOR[room(name)]}, {room(target)} on "
        f"floor {FLOOR[room(target)]}"
        for name, entries in imports.items()
        for target, _, line in entries
        if room(target) != room(name) and FLOOR[room(target)] >= FLOOR[room(name)]
    )


def private_across_rooms(imports: Imports) -> list[str]:
    """Each private name (one leading underscore) imported from another room."""
    return sorted(
        f"{name} (line {line}) imports {alias} from {target}"
        for name, entries in imports.items()
        for target, names, line in entries
        for alias in names
        if alias.startswith("_") and not alias.startswith("__") and room(target) != room(name)
    )


def test_imports_only_go_down() -> None:
    against = against_floors(_imports())
    assert not against, "imports against the floors:\n" + "\n".join(against)


def test_the_checkers_find_what_they_look_for() -> None:
    up = {"rankwise.engine.aligned": [("rankwise.kernels.gain", [], 3)],  # up a floor
          "rankwise.comparison.systems": [("rankwise.trec_eval.run", [], 4)],  # sideways, same floor
          "rankwise.kernels.gain": [("rankwise.kernels.common", ["_divide"], 5), ("rankwise.engine.aligned", [], 6)]}
    assert [line.split(" imports")[0] for line in against_floors(up)] == [
        "rankwise.comparison.systems (line 4)", "rankwise.engine.aligned (line 3)"]
    private = {"rankwise.spark.gather": [("rankwise.pipeline.load", ["_load", "Inputs"], 7)]}
    assert private_across_rooms(private) == [
        "rankwise.spark.gather (line 7) imports _load from rankwise.pipeline.load"]
    assert private_across_rooms(up) == []  # inside one room a private name is fine


def test_no_private_name_crosses_rooms() -> None:
    private = private_across_rooms(_imports())
    assert not private, "private names used in another room (make them public and documented):\n" + "\n".join(private)


def test_the_root_holds_only_the_shared_vocabulary() -> None:
    root = {path.stem for path in SRC.glob("*.py")}
    assert root == {"__init__", "__main__", "errors", "wording", "policies", "limits", *FORWARDING}, sorted(root)
    for name, target in FORWARDING.items():
        text = (SRC / f"{name}.py").read_text()
        assert len(text.splitlines()) <= 8 and f"from .{target} import *" in text, name
        forwarded = importlib.import_module(f"rankwise.{name}")
        moved = importlib.import_module(f"rankwise.{target}")
        assert forwarded.__all__ == moved.__all__
        assert all(getattr(forwarded, n) is getattr(moved, n) for n in moved.__all__), name


def test_no_module_is_shadowed_by_a_name_its_package_exports() -> None:
    """``import rankwise.compare as m`` once gave the function: a package must not export a name that is also one of
    its submodules (the attribute would hide the module)."""
    shadowed = []
    for name, (_, is_package) in _modules().items():
        if not is_package:
            continue
        package = importlib.import_module(name)
        for child in _modules():
            if child.rsplit(".", 1)[0] == name and child != name:
                leaf = child.rsplit(".", 1)[1]
                value = getattr(package, leaf, None)
                if value is not None and not isinstance(value, type(sys)):
                    shadowed.append(f"{child} is hidden by {name}.{leaf} ({type(value).__name__})")
    assert not shadowed, "\n".join(shadowed)


def test_files_a_reader_can_hold() -> None:
    """Python, and the C of the compiled extensions, in files of at most MAX_LINES lines."""
    sources = [path for pattern in ("*.py", "*.c", "*.h") for path in SRC.rglob(pattern)]
    sizes = {path.relative_to(SRC).as_posix(): len(path.read_text().splitlines()) for path in sources}
    long = sorted(f"{name}: {n} lines" for name, n in sizes.items() if n > MAX_LINES and name not in CATALOGS)
    assert not long, f"files over {MAX_LINES} lines:\n" + "\n".join(long)


def test_tests_mirror_the_package() -> None:
    folders = {path.name for path in SRC.iterdir() if path.is_dir() and (path / "__init__.py").exists()}
    test_folders = {path.name for path in TESTS.iterdir() if path.is_dir() and any(path.glob("test_*.py"))}
    test_folders.discard("docs")  # tests/docs tests the documentation site (docs/), not a package
    assert test_folders <= folders, f"test folders without a package folder: {sorted(test_folders - folders)}"
    assert folders <= test_folders, f"package folders without tests: {sorted(folders - test_folders)}"
    loose = sorted(path.name for path in TESTS.glob("test_*.py"))
    assert loose == ["test_installs.py", "test_structure.py"], loose


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
