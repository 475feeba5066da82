"""What a dialect is: a named, versioned binding of measure parameters and evaluation policies.

A dialect is data, not a code path. Under a dialect, a rankwise measure name means what that library's
function of the same role computes: the dialect fills in every parameter the user did not give
(``AP@10`` under ``lightgbm`` becomes ``AP(denom=min_k_R,universe=retrieved,empty=one)@10``) and supplies
default policies (tie order, query set, score precision). Explicit parameters and policies always win.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from ..measures.peers import PeerNames
from ..measures.spec import Measure, MeasureSpec, ParamValue
from ..policies import Policies, QuerySet


def _check(text: str) -> None:
    """A name's measure must be a rankwise measure (checked when the dialect is made)."""
    from ..measures.parse import read_parts

    read_parts(text)


class _RelLevel:
    """Binding value meaning "the evaluation's rel_level" (for libraries whose -l applies to nDCG too)."""

    def __repr__(self) -> str:
        return "REL_LEVEL"


REL_LEVEL = _RelLevel()
Binding = Mapping[str, "ParamValue | _RelLevel"]


@dataclass(frozen=True)
class Dialect:
    """One library's conventions at one version range.

    - ``versions``: the library versions this binding covers, newest first (e.g. ``("1.2", "1.3")``);
      ``label`` says it in words (``">= 1.2"``).
    - ``policies``: default evaluation policies (``ties``, ``queries``, ``scores``).
    - ``bindings``: family name → parameter values; families without a binding keep rankwise's defaults.
    - ``source``: the files of the library this binding follows; ``verified``: how the tests prove it.
    - ``known_bugs``: library bugs reproduced only inside this dialect, or not reproduced (shown by ``explain``).
    - ``caveats``: where the library's behaviour is implementation-defined or depends on inputs rankwise does not
      see (e.g. the tie order of a library that ranks items itself), shown by ``explain``.
    - ``measure_queries``: family → query set, for libraries that average some measures over other queries.
    - ``ratings``: what a rating ``threshold`` does: ``binary`` (grade 1 at or above it, else 0) or ``graded``
      (ratings stay the grades and the threshold becomes ``rel_level``: Elliot's 2^(r − t + 1) − 1 gains).
    """

    name: str
    versions: tuple[str, ...]
    label: str
    summary: str
    source: str
    verified: str
    policies: Mapping[str, str] = field(default_factory=dict)
    bindings: Mapping[str, Binding] = field(default_factory=dict)
    known_bugs: tuple[str, ...] = ()
    measure_queries: Mapping[str, str] = field(default_factory=dict)
    caveats: tuple[str, ...] = ()
    ratings: str = "binary"
    empty_input: str = "error"
    """What qrels or a run with no rows is: ``error`` (trec_eval refuses it) or ``data`` (an empty run scores every
    judged query as an empty ranking; empty qrels evaluate no query: ir_measures, ranx)."""
    names: PeerNames | None = None
    """The library's own metric names (``hit_rate``, ``nDCG(dcg=exp-log2)@10``, ``ndcg_at_k``), each mapped to the
    rankwise measure it computes, or listed as not supported with why (:mod:`rankwise.measures.peers`)."""

    def __post_init__(self) -> None:
        """Check every binding against the measure catalog: a dialect cannot bind a parameter a family lacks or
        a value the parameter does not have."""
        from ..errors import MeasureError

        Policies(**cast(dict[str, Any], self.policies))
        if self.ratings not in ("binary", "graded"):
            raise MeasureError(f"dialect {self.name}: ratings={self.ratings!r} must be binary or graded")
        if self.empty_input not in ("error", "data"):
            raise MeasureError(f"dialect {self.name}: empty_input={self.empty_input!r} must be error or data")
        for name, query_set in self.measure_queries.items():
            self._family(name)
            Policies(queries=QuerySet(query_set))
        if self.names is not None:
            if self.names.library != self.name:
                raise MeasureError(f"dialect {self.name}: carries {self.names.library}'s names")
            for entry in self.names.names:
                for text in (entry.measure, entry.uncut):
                    if text is not None:
                        _check(text)
        for name, binding in self.bindings.items():
            spec = self._family(name)
            for param, value in binding.items():
                if value is not REL_LEVEL:
                    spec.param(param).check(value, f"dialect {self.name}: {name}")

    def _family(self, name: str) -> MeasureSpec:
        """The family a binding names, by its canonical name (an alias would silently miss measures)."""
        from ..errors import MeasureError
        from ..measures.catalog import family

        spec = family(name)
        if spec.name != name:
            raise MeasureError(f"dialect {self.name}: bind {spec.name}, not its alias {name!r}")
        return spec

    def read_name(self, text: str) -> Measure | None:
        """The rankwise measure ``text`` names in this library's own syntax (ranx's ``ndcg_burges@10``), before the
        dialect's bindings; None when it is not one of the library's names (then it is read as rankwise's)."""
        from ..measures.parse import read_peer_name

        return None if self.names is None else read_peer_name(self.names, text)

    def name_note(self, text: str) -> str | None:
        """What a user should hear about ``text`` under this dialect: the note of the library's name it is; that
        rankwise alone reads it as another measure (MS Recommenders' ``novelty`` is SelfInformation, rankwise's
        ``Novelty`` the share of unseen items); or, for a library name rankwise does not compute that is also a
        rankwise name (RecBole's ``AUC``), that rankwise's is used. None when there is nothing to say."""
        if self.names is None:
            return None
        from ..errors import MeasureError
        from ..measures import parse_measures
        from ..measures.parse import read_parts
        from ..measures.peers import PEER_RE

        match = PEER_RE.match(text.strip())
        entry = self.names.find(match["name"]) if match else None
        library = self.names.possessive
        try:
            own = parse_measures(text)
        except MeasureError:
            own = []
        mine = str(own[0][1]) if len(own) == 1 else None
        if entry is None:
            if match is None or mine is None:
                return None
            other = next((e for e in self.names.names if e.name.lower() == match["name"].lower()), None)
            if other is None or (other.measure is not None and read_parts(other.measure)[0] == own[0][1].name):
                return None  # no such name, or the library's computes the same family (ranx's ndcg, nDCG)
            return f"{text} is rankwise's {mine}; {library} {other.name} is " + (
                other.measure or f"not computed by rankwise ({other.why})")
        if entry.measure is None:
            return f"{text} is rankwise's {mine}: rankwise does not compute {library} {entry.name} ({entry.why})"
        try:
            measure = self.read_name(text)
        except MeasureError:  # written without the cutoff the library's name needs (given by -k): no note
            return None
        said = [f"{text} is {library} {entry.name}: {measure}"]
        said += [entry.note] if entry.note else []
        if mine is not None and own[0][1].name != (measure.name if measure else None):
            said.append(f"without --dialect {self.name}, {text} is rankwise's {mine}")
        return "; ".join(said) if len(said) > 1 else None

    @property
    def key(self) -> str:
        return f"{self.name}@{self.versions[0]}"

    def bind(self, measure: Measure, rel_level: int) -> Measure:
        """``measure`` with this dialect's values for every parameter not given explicitly."""
        binding = self.bindings.get(measure.name, {})
        given = {k for k, _ in measure.params}
        extra: list[tuple[str, ParamValue]] = [
            (name, rel_level if isinstance(value, _RelLevel) else value)
            for name, value in binding.items()
            if name not in given
        ]
        if not extra:
            return measure
        return Measure(measure.name, cutoff=measure.cutoff, params=(*measure.params, *extra))
