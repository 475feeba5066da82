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

from ..measures.spec import Measure, MeasureSpec, ParamValue
from ..policies import Policies, QuerySet


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
