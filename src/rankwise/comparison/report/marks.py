"""What every report format shares: system letters, significance superscripts (as ranx: a system is marked with
the letters of the systems it is significantly better than), number formatting and the caption."""

from __future__ import annotations

import math

from ..systems import Comparison

LETTERS = "abcdefghijklmnopqrstuvwxyz"
SUPERSCRIPTS = dict(zip(LETTERS, "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ"))  # no Unicode superscript q: ranx's ۹


def letter(index: int) -> str:
    """The label of the system at ``index``: a, b, ..., z, then a27, a28, ..."""
    return LETTERS[index] if index < len(LETTERS) else f"a{index + 1}"


def beaten(comparison: Comparison, system: str, measure: str) -> list[int]:
    """Indices of the systems ``system`` is significantly better than on ``measure``, in order."""
    index = {name: i for i, name in enumerate(comparison.systems)}
    out = set()
    for c in comparison.comparisons:
        if c.measure != measure or not c.significant:
            continue
        if c.system == system and c.difference > 0:
            out.add(index[c.against])
        elif c.against == system and c.difference < 0:
            out.add(index[c.system])
    return sorted(out)


def superscript(comparison: Comparison, system: str, measure: str) -> str:
    """The letters of :func:`beaten` as Unicode superscripts (ᵃᵇ), for text formats."""
    return "".join(SUPERSCRIPTS.get(letter(i), f"^{letter(i)}") for i in beaten(comparison, system, measure))


def number(value: float, digits: int = 4) -> str:
    """``value`` with ``digits`` decimals; an undefined value as an en dash."""
    return "–" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def p_text(p: float) -> str:
    """A p-value: 4 significant decimals, or ``<1e-4`` written out as ``1.2e-05``."""
    if math.isnan(p):
        return "–"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def interval(low: float, high: float, digits: int = 4) -> str:
    return "–" if math.isnan(low) or math.isnan(high) else f"[{low:.{digits}f}, {high:.{digits}f}]"


def caption(comparison: Comparison) -> str:
    """What the table shows and how significance was decided, in one paragraph."""
    n = len(comparison.query_ids)
    described = comparison.settings.describe()
    return (f"Mean over {n} queries with its {comparison.settings.confidence:.0%} interval. Superscripts: "
            "significantly better than the system with that letter. "
            f"{described[0].upper()}{described[1:]}")  # fmt: skip


__all__ = ["beaten", "caption", "interval", "letter", "number", "p_text", "superscript"]
