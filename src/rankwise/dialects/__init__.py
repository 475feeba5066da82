"""Dialects: every library's metric conventions as named, versioned data (see :mod:`.spec`)."""

from __future__ import annotations

from ..errors import RankwiseError
from .catalog import DIALECTS
from .spec import REL_LEVEL, Dialect


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else -1 for part in version.split("."))


def _matches(version: str, prefix: str) -> bool:
    wanted = prefix.split(".")
    return version.split(".")[: len(wanted)] == wanted


def get_dialect(text: str) -> Dialect:
    """The dialect named ``NAME`` (newest binding) or ``NAME@VERSION`` (newest binding covering a version with
    that prefix, compared by components: ``replay@0.12`` matches 0.12.x, not 0.1)."""
    name, _, version = text.strip().partition("@")
    candidates = [d for d in DIALECTS if d.name == name.lower()]
    if not candidates:
        import difflib

        close = difflib.get_close_matches(name.lower(), [d.name for d in DIALECTS], n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(dialect_names())}"
        raise RankwiseError(f"unknown dialect {name!r}{hint}")
    if version:
        candidates = [d for d in candidates if any(_matches(v, version) for v in d.versions)]
        if not candidates:
            raise RankwiseError(f"dialect {name} has no binding for version {version}")
    return max(candidates, key=lambda d: max(_version_key(v) for v in d.versions))


def dialect_names() -> list[str]:
    """Each dialect name once, in catalog order."""
    return list(dict.fromkeys(d.name for d in DIALECTS))


__all__ = ["DIALECTS", "REL_LEVEL", "Dialect", "dialect_names", "get_dialect"]
