"""Declarative measure definitions: typed parameters, measure families and measure instances.

A *family* (:class:`MeasureSpec`) says what a measure is: its canonical name, aliases, formula, reference,
parameters and how per-query values are aggregated. A *measure* (:class:`Measure`) is one family with a cutoff
and parameter values, e.g. ``nDCG(gain=exp2)@10``. ``str(measure)`` is its canonical name and
``parse_measure(str(m)) == m`` holds for every measure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..errors import MeasureError
from ..wording import shorten

GainMap = tuple[tuple[int, float], ...]
Floats = tuple[float, ...]
ParamValue = int | float | str | GainMap | Floats
ParamKind = Literal["int", "float", "choice", "gain", "floats"]


def format_number(value: float) -> str:
    """Shortest text for a number that reads back to the same value (``3.0`` → ``3``)."""
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


MAX_CUTOFF_DIGITS = 18


def check_cutoff_digits(raw: str, measure: str) -> None:
    """Refuse a cutoff written with more than 18 digits before Python's ``int()`` (a ValueError past 4300 digits)
    or ``float()`` (infinity) reads it."""
    if len(raw.strip().lstrip("+-0").split(".")[0]) > MAX_CUTOFF_DIGITS:
        raise MeasureError(
            f"{shorten(measure)}: cutoff {shorten(raw)} is too large (at most {MAX_CUTOFF_DIGITS} digits)"
        )


def _split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split ``text`` on ``sep`` outside of braces."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


@dataclass(frozen=True)
class Param:
    """One typed measure parameter.

    ``default=None`` means the value comes from the evaluation (for ``rel``: the ``rel_level`` policy,
    trec_eval's ``-l``); ``default_doc`` says so in words.
    """

    name: str
    kind: ParamKind
    doc: str
    default: ParamValue | None = None
    choices: Mapping[str, str] = field(default_factory=dict)
    default_doc: str = ""
    minimum: int | None = None
    """Smallest allowed value of an ``int`` parameter; a ``float`` parameter must exceed it."""
    maximum: float | None = None
    """Largest allowed value of a ``float`` parameter (inclusive), when set."""

    def parse(self, text: str, measure: str) -> ParamValue:
        """Read the parameter's value from measure-string text (checked by :meth:`check`)."""
        text = text.strip()
        if self.kind in ("int", "float"):
            try:
                number: int | float = int(text) if self.kind == "int" else float(text)
            except ValueError:
                kind = "an integer" if self.kind == "int" else "a number"
                raise MeasureError(f"{measure}: parameter {self.name}={shorten(text)!r} must be {kind}") from None
            return self.check(number, measure)
        if self.kind == "gain" and text.startswith("{"):
            return self._parse_gain_map(text, measure)
        if self.kind == "floats":
            return self._parse_floats(text, measure)
        return self.check(text, measure)

    def check(self, value: object, measure: str) -> ParamValue:
        """``value`` if it is a valid value of this parameter (a gain map is returned in canonical form);
        otherwise a :class:`MeasureError` naming the measure, the parameter and what is allowed.

        Every way a :class:`Measure` is made (parsed, constructed, bound by a dialect) goes through here, so a
        measure with an unknown parameter value cannot exist."""
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise MeasureError(f"{measure}: parameter {self.name}={value!r} must be an integer")
            if self.minimum is not None and value < self.minimum:
                raise MeasureError(f"{measure}: parameter {self.name}={value} must be >= {self.minimum}")
            return value
        if self.kind == "float":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise MeasureError(f"{measure}: parameter {self.name}={value!r} must be a finite number")
            if self.minimum is not None and value <= self.minimum:
                raise MeasureError(f"{measure}: parameter {self.name}={format_number(value)} must be > {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise MeasureError(f"{measure}: parameter {self.name}={format_number(value)} must be <= "
                                   f"{format_number(self.maximum)}")  # fmt: skip
            return float(value)
        if self.kind == "gain" and isinstance(value, (tuple, Mapping)):
            return self._check_gain_map(value, measure)
        if self.kind == "floats":
            return self._check_floats(value, measure)
        if not isinstance(value, str) or value not in self.choices:
            allowed = ", ".join(self.choices)
            extra = " or a grade map like {1:1,2:3}" if self.kind == "gain" else ""
            raise MeasureError(f"{measure}: parameter {self.name}={value!r} must be one of {allowed}{extra}")
        return value

    def _check_gain_map(self, value: object, measure: str) -> GainMap:
        """A grade map as a sorted tuple of (integer grade, finite gain) pairs, each grade once."""
        items = list(value.items()) if isinstance(value, Mapping) else list(value)  # type: ignore[call-overload]
        pairs: dict[int, float] = {}
        for item in items:
            if not isinstance(item, tuple) or len(item) != 2:
                raise MeasureError(f"{measure}: gain map entry {item!r} must be a (grade, gain) pair")
            grade, gain = item
            if isinstance(grade, bool) or not isinstance(grade, int):
                raise MeasureError(f"{measure}: gain map grade {grade!r} must be an integer")
            if isinstance(gain, bool) or not isinstance(gain, (int, float)) or not math.isfinite(gain):
                raise MeasureError(f"{measure}: gain for grade {grade} must be a finite number")
            if grade in pairs:
                raise MeasureError(f"{measure}: gain map gives grade {grade} twice")
            pairs[grade] = float(gain)
        if not pairs:
            raise MeasureError(f"{measure}: gain map is empty")
        return tuple(sorted(pairs.items()))

    def _check_floats(self, value: object, measure: str) -> Floats:
        """A list of numbers as a tuple of finite floats in [minimum, ∞) (``minimum``: when set), at least one."""
        if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)) or not value:
            raise MeasureError(
                f"{measure}: parameter {self.name} must be a non-empty list of numbers like {{0.25,0.5}}"
            )
        out = []
        for item in value:
            if isinstance(item, bool) or not isinstance(item, (int, float)) or not math.isfinite(item):
                raise MeasureError(f"{measure}: parameter {self.name}: {item!r} is not a finite number")
            if self.minimum is not None and item < self.minimum:
                raise MeasureError(f"{measure}: parameter {self.name}: {format_number(item)} must be >= {self.minimum}")
            out.append(float(item))
        return tuple(out)

    def _parse_floats(self, text: str, measure: str) -> Floats:
        """``{x,y,...}`` → a tuple of floats (checked by :meth:`_check_floats`)."""
        if not (text.startswith("{") and text.endswith("}")):
            raise MeasureError(f"{measure}: parameter {self.name}={shorten(text)!r} must be a list like {{0.25,0.5}}")
        try:
            numbers = [float(item) for item in text[1:-1].split(",") if item.strip()]
        except ValueError:
            raise MeasureError(f"{measure}: parameter {self.name}={shorten(text)!r} must hold numbers") from None
        return self._check_floats(numbers, measure)

    def _parse_gain_map(self, text: str, measure: str) -> GainMap:
        if not text.endswith("}"):
            raise MeasureError(f"{measure}: gain map {text!r} must end with '}}'")
        pairs: dict[int, float] = {}
        body = text[1:-1].strip()
        for item in body.split(",") if body else []:
            grade, sep, gain = item.partition(":")
            try:
                if not sep:
                    raise ValueError
                g = int(grade)
                v = float(gain)
            except ValueError:
                raise MeasureError(
                    f"{measure}: gain map entry {item.strip()!r} must be GRADE:GAIN (integer grade)"
                ) from None
            if g in pairs:
                raise MeasureError(f"{measure}: gain map gives grade {g} twice")
            pairs[g] = v
        return self._check_gain_map(tuple(pairs.items()), measure)

    def format(self, value: ParamValue) -> str:
        """Canonical text of a value (inverse of :meth:`parse`)."""
        if isinstance(value, tuple) and self.kind == "floats":
            return "{" + ",".join(format_number(float(v)) for v in value) + "}"  # type: ignore[arg-type]
        if isinstance(value, tuple):
            return "{" + ",".join(f"{g}:{format_number(v)}" for g, v in value) + "}"  # type: ignore[misc]
        if isinstance(value, float):
            return format_number(value)
        return str(value)


@dataclass(frozen=True)
class MeasureSpec:
    """A measure family: the definition every :class:`Measure` of that name follows.

    ``cutoff`` is ``"rank"`` (an integer k ≥ 1), ``"recall"`` (a recall level in [0, 1]) or ``None``
    (no cutoff allowed). ``aggregate`` says how per-query values combine: arithmetic ``mean``, ``sum``
    (counts) or ``gmean`` (geometric mean with trec_eval's floor of 1e-5). Per-query values that are
    undefined (NaN) are left out of a mean and counted in the report.
    """

    name: str
    summary: str
    formula: str
    reference: str
    params: tuple[Param, ...] = ()
    aliases: tuple[str, ...] = ()
    cutoff: Literal["rank", "recall"] | None = "rank"
    cutoff_required: bool = False
    cutoff_doc: str = "k: only the top k documents of the ranking count"
    aggregate: Literal["mean", "sum", "gmean", "global"] = "mean"
    """``mean``, ``sum`` or ``gmean``; a family with a ``mean`` parameter (AUC) lets each measure choose; ``global``:
    one value from all queries' rows at once, no per-query value (coverage, Gini, entropy)."""
    empty: str = "0"
    is_count: bool = False
    tie_average: bool = False
    """Whether the measure is linear in per-rank values, so ``ties=average`` (an expectation) is defined."""
    exclusive: tuple[str, ...] = ()
    """Parameters of which at most one may be given (alternative definitions, e.g. LongTail's head_share and
    tail_ratio)."""

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise MeasureError(f"{self.name} has no parameter {name!r}; it has: {self.param_names() or 'none'}")

    def param_names(self) -> str:
        return ", ".join(p.name for p in self.params)


@dataclass(frozen=True, eq=True)
class Measure:
    """One measure: a family name, an optional cutoff and explicit parameter values.

    Only parameters given explicitly are stored (in the family's declared order), so two strings that say
    the same thing compare equal and print the same canonical name.
    """

    name: str
    cutoff: int | float | None = None
    params: tuple[tuple[str, ParamValue], ...] = ()

    def __post_init__(self) -> None:
        spec = self.spec
        object.__setattr__(self, "name", spec.name)
        order = {p.name: i for i, p in enumerate(spec.params)}
        checked: dict[str, ParamValue] = {}
        for item in self.params:
            if not isinstance(item, tuple) or len(item) != 2:
                raise MeasureError(f"{self.name}: parameters must be (name, value) pairs, got {item!r}")
            key, value = item
            if key not in order:
                raise MeasureError(f"{self.name}: unknown parameter {key!r}; it has: {spec.param_names() or 'none'}")
            if key in checked:
                raise MeasureError(f"{self.name}: parameter {key!r} given twice")
            checked[key] = spec.param(key).check(value, self.name)
        given = [name for name in spec.exclusive if name in checked]
        if len(given) > 1:
            raise MeasureError(f"{self.name}: give one of {', '.join(spec.exclusive)}, not {' and '.join(given)}")
        object.__setattr__(self, "params", tuple(sorted(checked.items(), key=lambda kv: order[kv[0]])))
        self._check_cutoff(spec)

    def _check_cutoff(self, spec: MeasureSpec) -> None:
        if self.cutoff is None:
            if spec.cutoff_required:
                raise MeasureError(f"{self.name} needs a cutoff, e.g. {self.name}@{_example_cutoff(spec)}")
            return
        if isinstance(self.cutoff, bool) or not isinstance(self.cutoff, (int, float)):
            raise MeasureError(f"{self.name}: cutoff {self.cutoff!r} must be a number")
        if spec.cutoff is None:
            raise MeasureError(f"{self.name} takes no cutoff (got @{format_number(self.cutoff)})")
        if spec.cutoff == "rank":
            if not math.isfinite(self.cutoff) or not float(self.cutoff).is_integer() or self.cutoff < 1:
                raise MeasureError(f"{self.name}: cutoff @{self.cutoff} must be an integer >= 1")
            object.__setattr__(self, "cutoff", int(self.cutoff))
        else:
            if not 0.0 <= float(self.cutoff) <= 1.0:
                raise MeasureError(f"{self.name}: recall level @{self.cutoff} must lie in [0, 1]")
            object.__setattr__(self, "cutoff", float(self.cutoff))

    @property
    def spec(self) -> MeasureSpec:
        """The family this measure belongs to (looked up in the catalog, which registers itself on import)."""
        if _resolve_family is None:
            raise RuntimeError("the measure catalog is not loaded: import rankwise.measures")
        return _resolve_family(self.name)

    def get(self, name: str) -> ParamValue | None:
        """The value of parameter ``name``: explicit, else the family default (None = from the evaluation)."""
        for key, value in self.params:
            if key == name:
                return value
        return self.spec.param(name).default

    def option(self, name: str) -> ParamValue | None:
        """Like :meth:`get`, but None when the family has no parameter ``name``."""
        if not any(p.name == name for p in self.spec.params):
            return None
        return self.get(name)

    @property
    def aggregation(self) -> str:
        """How per-query values combine: the family's ``aggregate``, or the measure's ``mean`` parameter
        (``query`` → ``mean``, ``positives`` → weighted by relevant documents, ``pooled`` → one value from all
        rows)."""
        how = self.option("mean")
        if how is None:
            return self.spec.aggregate
        return {"query": "mean"}.get(str(how), str(how))

    @property
    def orders_ties_itself(self) -> bool:
        """Whether the measure reads tied scores as ties, whatever the tie policy: Kendall's tau, AUC compared by
        score (½ per tied pair), AP with precision_at=tie_end, scikit-learn's coverage error and ranking loss."""
        return (
            self.name in ("KendallTau", "CoverageError", "LabelRankingLoss")
            or (self.name == "AUC" and self.get("form") == "pairs" and self.get("compare") != "rank")
            or self.option("precision_at") == "tie_end"
            or self.option("rank") in ("optimistic", "among_nonrelevant")
        )

    def __str__(self) -> str:
        text = self.name
        if self.params:
            spec = self.spec
            text += "(" + ",".join(f"{k}={spec.param(k).format(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += "@" + format_number(self.cutoff)
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"


_resolve_family: Callable[[str], MeasureSpec] | None = None


def use_catalog(resolve: Callable[[str], MeasureSpec]) -> None:
    """Called once by :mod:`.catalog` as it loads: how a name becomes its family. This keeps the dependency one-way
    (the catalog is made of specs; specs never import the catalog)."""
    global _resolve_family
    _resolve_family = resolve


def _example_cutoff(spec: MeasureSpec) -> str:
    return "0.5" if spec.cutoff == "recall" else "10"


__all__ = [
    "Floats",
    "GainMap",
    "Measure",
    "MeasureSpec",
    "Param",
    "ParamValue",
    "_split_top_level",
    "check_cutoff_digits",
    "format_number",
]
