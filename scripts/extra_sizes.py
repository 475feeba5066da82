"""Installed size of rankwise's base install and of each extra, measured in the current environment.

For each extra of ``pyproject.toml`` the dependency closure is walked through the installed distributions' own
metadata (``importlib.metadata``, environment markers evaluated here), and the files each distribution installed
(its ``RECORD``) are summed on disk; what the base install already brings is not counted again. A requirement that
is not installed here is listed as missing, never guessed. Run it in an environment where the extras are installed
(``pip install -e '.[test,docs]'`` brings most; PyTorch as the CPU build)::

    python scripts/extra_sizes.py            # a Markdown table
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import re
import sys
from pathlib import Path

import tomllib
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed() -> dict[str, md.Distribution]:
    found: dict[str, md.Distribution] = {}
    for dist in md.distributions():
        found.setdefault(_key(dist.metadata["Name"]), dist)
    return found


def closure(requirements: list[str], installed: dict[str, md.Distribution]) -> tuple[set[str], set[str]]:
    """The installed distributions ``requirements`` pull in (recursively), and the names not installed here."""
    seen: set[str] = set()
    missing: set[str] = set()
    todo = [(Requirement(text), ()) for text in requirements]
    while todo:
        req, extras = todo.pop()
        if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in (extras or ("",))):
            continue
        name = _key(req.name)
        if name not in installed:
            missing.add(name)
            continue
        if name in seen and not req.extras:
            continue
        seen.add(name)
        todo.extend((Requirement(text), tuple(req.extras)) for text in installed[name].requires or ())
    return seen, missing


def size(dist: md.Distribution) -> int:
    """Bytes of the files ``dist`` installed (its RECORD), as they are on disk."""
    total = 0
    for file in dist.files or ():
        path = Path(str(file.locate()))
        if path.is_file():
            total += path.stat().st_size
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args(argv)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    installed = _installed()
    base, base_missing = closure(project["dependencies"], installed)
    sizes = {name: size(installed[name]) for name in installed}
    print(f"Installed sizes in {sys.prefix} (Python {sys.version.split()[0]}, {sys.platform})\n")
    print("| install | adds to the base | biggest parts | not installed here |")
    print("|---|---:|---|---|")
    print(f"| base (`pip install .`) | {sum(sizes[n] for n in base) / 1e6:,.0f} MB (itself) | "
          f"{_biggest(base, sizes)} | {', '.join(sorted(base_missing)) or '–'} |")  # fmt: skip
    for extra, requirements in project["optional-dependencies"].items():
        names, missing = closure(requirements, installed)
        added = names - base
        print(f"| `.[{extra}]` | {sum(sizes[n] for n in added) / 1e6:,.0f} MB | {_biggest(added, sizes)} | "
              f"{', '.join(sorted(missing)) or '–'} |")  # fmt: skip
    return 0


def _biggest(names: set[str], sizes: dict[str, int]) -> str:
    top = sorted(names, key=lambda n: -sizes[n])[:3]
    return ", ".join(f"{n} {sizes[n] / 1e6:,.0f} MB" for n in top) or "–"


if __name__ == "__main__":
    raise SystemExit(main())
