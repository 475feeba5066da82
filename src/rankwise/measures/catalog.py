"""The catalog of measure families: every measure rankwise computes, with its formula and reference.

Notation for one query: the ranking L (after the tie policy and depth cut), L_i its document at rank i
(1-based), g(d) the judged grade of d (unjudged documents are not relevant), h_i = 1 if g(L_i) ≥ rel,
R = number of judged documents with g ≥ rel, k the cutoff (the whole ranking when absent),
H_k = Σ_{i≤k} h_i, P@i = H_i / i.

The families are defined by group, one module each, named like the kernel modules of ``rankwise.kernels``:
:mod:`.precision`, :mod:`.gain`, :mod:`.pairwise`, :mod:`.user_model`, :mod:`.beyond`, :mod:`.exposure`,
:mod:`.fairness`, :mod:`.overlap` and :mod:`.intent`.
A parameter (or reference text) that several families share is in :mod:`.params`; one family's own is next to it.
This module puts them in one order, ``_ORDER`` (the order ``rankwise measures`` lists them in), and looks names up.

To add a measure: add a :class:`MeasureSpec` to ``FAMILIES`` in its group's module (a parameter that it shares with
another family goes to :mod:`.params`), its name to ``_ORDER`` below, and a kernel of the same name in the
``rankwise.kernels`` module of the same group.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from ..errors import MeasureError
from . import beyond, exposure, fairness, gain, intent, overlap, pairwise, precision, user_model
from .spec import MeasureSpec, use_catalog
from .trec_names import all_trec_names

_ORDER: tuple[str, ...] = (
    "P", "R", "HitRate", "F1", "RR", "AP", "GMAP",  # precision
    "DCG", "nDCG",  # gain
    "Rprec", "bpref", "IPrec", "MeanRank",  # precision
    "KendallTau", "AUC",  # pairwise
    "SetP", "RelP", "SetMAP", "IPrecAvg", "infAP", "GMbpref",  # precision
    "binG", "G", "IDCG", "nDCGRel", "RnDCG", "YAAP",  # gain
    "Utility", "NumNonRelJudgedRet", "Judged", "Unjudged",  # precision
    "RBP", "RBPResidual", "INST", "INSQ", "BPM", "NERR8", "NERR9", "NERR10", "NERR11", "SDCG", "Compat",  # user_model
    "CoverageError", "LabelRankingLoss",  # pairwise
    "FallOut", "RecallAtPrecision", "NumQ", "NumRet", "NumRel", "NumRelRet",  # precision
    "ERR", "nERR",  # user_model
    "Coverage", "Gini", "Entropy", "Novelty", "SelfInformation", "ARP", "ILD", "Serendipity", "Unexpectedness",
    "LongTail",  # beyond
    "EE-L", "EE-D", "EE-R",  # exposure
    "AWRF", "nDCG-AWRF", "RSP", "REO", "ItemMAD",  # fairness
    "RBO", "LIP",  # overlap
    "alpha-DCG", "alpha-nDCG", "ERR-IA", "nERR-IA", "NRBP", "nNRBP", "AP-IA", "P-IA", "StRecall",  # intent
)  # fmt: skip


def _assemble() -> tuple[MeasureSpec, ...]:
    """The families of every group module in ``_ORDER``; each must be defined once and listed once."""
    defined: dict[str, MeasureSpec] = {}
    for module in (precision, gain, pairwise, user_model, beyond, exposure, fairness, overlap, intent):
        for spec in module.FAMILIES:
            if spec.name in defined:
                raise RuntimeError(f"measure family {spec.name!r} is defined twice")
            defined[spec.name] = spec
    if len(set(_ORDER)) != len(_ORDER) or set(_ORDER) != set(defined):
        raise RuntimeError(
            "_ORDER must list every measure family exactly once: "
            f"repeated {sorted({n for n in _ORDER if _ORDER.count(n) > 1})}, "
            f"not listed {sorted(set(defined) - set(_ORDER))}, not defined {sorted(set(_ORDER) - set(defined))}"
        )
    return tuple(defined[name] for name in _ORDER)


FAMILIES: tuple[MeasureSpec, ...] = _assemble()
_BY_NAME = {spec.name: spec for spec in FAMILIES}


def _build_lookup() -> dict[str, str]:
    lookup: dict[str, str] = {}
    for spec in FAMILIES:
        for name in (spec.name, *spec.aliases):
            key = name.lower()
            if key in lookup and lookup[key] != spec.name:
                raise RuntimeError(f"measure name {name!r} is ambiguous")
            lookup[key] = spec.name
    return lookup


_LOOKUP = _build_lookup()


def family(name: str) -> MeasureSpec:
    """The family called ``name`` (canonical name or alias, any case)."""
    canonical = _LOOKUP.get(name.lower())
    if canonical is None:
        raise MeasureError(f"unknown measure {name!r}{suggest(name)}")
    return _BY_NAME[canonical]


def canonical_family_name(name: str) -> str | None:
    """Canonical family name for a name or alias (any case), or None."""
    return _LOOKUP.get(name.lower())


def family_names() -> list[str]:
    """Every canonical name and alias, for suggestions."""
    return [n for spec in FAMILIES for n in (spec.name, *spec.aliases)]


def suggest(name: str) -> str:
    """'; did you mean ...?' for the names closest to ``name``, each once (empty when none is close); for another
    library's name (ranx's ``hit_rate``), the dialect that reads it instead (:func:`.peers.peer_hint`)."""
    from .peers import peer_hint

    if hint := peer_hint(name):
        return hint
    base = re.split(r"[(@._]", name, maxsplit=1)[0] or name
    shown = closest(name, family_names() + all_trec_names(), also=[base])
    return f"; did you mean {', '.join(shown)}?" if shown else "; `rankwise measures` lists them all"


def closest(name: str, candidates: Iterable[str], *, also: Iterable[str] = (), n: int = 3) -> list[str]:
    """Up to ``n`` of ``candidates`` closest to ``name``, for "did you mean ...?" (measures, trec_eval's names,
    dialects): each once, compared ignoring case and shown in its first spelling; a candidate equal to ``name`` or to
    one of ``also`` (shorter forms of it) ignoring case first, then the closest to ``name``, then to each of ``also``
    (:func:`difflib.get_close_matches`, similarity ratio at least 0.5). Empty when none is close."""
    names = list(dict.fromkeys(candidates))
    forms = [name, *also]
    same = [c for form in forms for c in names if c.lower() == form.lower()]  # the same name in another case
    close = [c for form in forms for c in difflib.get_close_matches(form, names, n=n, cutoff=0.5)]
    unique: dict[str, str] = {}
    for candidate in same + close:
        unique.setdefault(candidate.lower(), candidate)  # each name once, in its first spelling
    return list(unique.values())[:n]


use_catalog(family)
