"""Dialects: every library's metric conventions as named, versioned data (see :mod:`.spec`)."""

from __future__ import annotations

from ..errors import RankwiseError
from ..measures.catalog import closest
from .catalog import DIALECTS
from .spec import REL_LEVEL, Dialect


def _version_key(version: str) -> tuple[int, ...]:
    """Components as numbers, padded with zeros; a non-numeric component (``2020.python``, ``2.0-benchmark``)
    sorts below the plain version, so a bare name or prefix picks the plain binding."""
    parts = [int(part) if part.isdigit() else -1 for part in version.split(".")]
    return tuple(parts + [0] * (6 - len(parts)))


def _matches(version: str, prefix: str) -> bool:
    wanted = prefix.split(".")
    return version.split(".")[: len(wanted)] == wanted


def resolve_dialect(text: str) -> tuple[Dialect, str | None]:
    """The dialect ``NAME`` or ``NAME@VERSION`` names, and a note when the version asked has no binding of its own.

    A bare name is the newest binding. ``NAME@VERSION`` is the newest binding covering a version with that prefix,
    compared by components (``replay@0.12`` matches 0.12.x, not 0.1). A version newer than every binding gets the
    newest binding, with a note saying so (the library may have changed since it was proven); an older version
    without a binding is an error.
    """
    name, _, version = text.strip().partition("@")
    candidates = [d for d in DIALECTS if d.name == name.strip().lower()]
    if not candidates:
        typed = name.strip().lower()
        close = [d for d in dialect_names() if d.startswith(typed)][:3] if typed else []
        close = close or closest(typed, dialect_names())  # a dialect name begun: the names it begins, else the closest
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(dialect_names())}"
        raise RankwiseError(f"unknown dialect {name!r}{hint}")
    newest = max(candidates, key=_newest_version)
    version = version.strip()
    if not version:
        return newest, None
    covering = [d for d in candidates if any(_matches(v, version) for v in d.versions)]
    if covering:
        return max(covering, key=_newest_version), None
    if _version_key(version) > _newest_version(newest):
        return newest, (
            f"dialect {name}@{version}: no binding for this version; used {newest.key} ({newest.label}), the newest, "
            f"proven by {newest.verified}"
        )
    known = ", ".join(sorted({v for d in candidates for v in d.versions}, key=_version_key))
    raise RankwiseError(f"dialect {name} has no binding for version {version} (bindings cover {known})")


def _newest_version(dialect: Dialect) -> tuple[int, ...]:
    return max(_version_key(v) for v in dialect.versions)


def get_dialect(text: str) -> Dialect:
    """The dialect ``NAME`` or ``NAME@VERSION`` names (see :func:`resolve_dialect`)."""
    return resolve_dialect(text)[0]


def dialect_names() -> list[str]:
    """Each dialect name once, in catalog order."""
    return list(dict.fromkeys(d.name for d in DIALECTS))


def library_names(text: str) -> list[dict[str, str]]:
    """The library's own metric names that dialect ``NAME[@VERSION]`` reads (``rankwise dialects NAME``): one record
    per name — ``name`` (with its aliases), ``measure`` (the rankwise measure it computes, before the dialect's
    bindings, or ``not supported``), ``arguments`` (the library's arguments it reads) and ``note`` (what to know, or
    why it is not supported). Empty for a dialect that reads rankwise's names only (trec_eval, ...). Reference: each
    library's registry, named in :attr:`rankwise.measures.peers.PeerNames.source`."""
    dialect = get_dialect(text)
    return [] if dialect.names is None else dialect.names.rows()


__all__ = ["DIALECTS", "REL_LEVEL", "Dialect", "dialect_names", "get_dialect", "library_names", "resolve_dialect"]
