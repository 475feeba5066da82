"""ir_measures' measure objects, its measure syntax and its evaluator (``Evaluator``, ``calc_aggregate``,
``iter_calc``, ``calc``), read and computed by rankwise's ``ir_measures`` dialect (:mod:`.ir_measures` is the API).

Each name of ir_measures' registry (``nDCG``, ``AP``/``MAP``, ``P``, ``RR``, ``IPrec``, ``SetF``, ...; the names and
aliases of :data:`rankwise.measures.peers.IR_MEASURES`) is a :class:`Measure`: called with parameters
(``AP(rel=2)``), given its cutoff with ``@`` (``nDCG@10``; ``IPrec@0.2`` sets its recall level), printed in ir_measures'
syntax (``nDCG(dcg='exp-log2')@10``: parameters as given, those at their default left out), equal and hashed by that
text, as ir_measures' ``Measure.__repr__``, ``__eq__`` and ``__hash__``. Which value is a parameter's default is read
from rankwise, not from a second table: a parameter is left out when the dialect reads the measure the same without
it. :func:`parse_measure` reads ir_measures' text syntax (a Python expression, as ``ir_measures.parse_measure``) and
:func:`parse_trec_measure` trec_eval names (``P_5``, ``ndcg_cut.5,10``, ``set_F.0.5``, ``official``), read by
rankwise's trec_eval names. Reference: ir_measures 0.4 ``ir_measures/measures/base.py`` and ``ir_measures/util.py``
(MacAvaney, Yates, Feldman, Downey, Cohan and Goharian, ECIR 2022).
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from ..dialects import get_dialect
from ..errors import MeasureError
from ..measures import Measure as RankwiseMeasure
from ..measures import parse_measures
from ..measures.peers import IR_MEASURES, PeerName
from ..measures.trec_names import CUTOFF_FAMILIES, PLAIN_MEASURES
from ..pipeline.evaluate import evaluate as _evaluate
from .pytrec_eval import supported_nicknames

DIALECT = "ir_measures"
_DIALECT = get_dialect(DIALECT)
_NUMBERS = re.compile(r"^[0-9.]+(,[0-9.]+)*$")
_PARSE_ERROR = "problem parsing measure {}; must be in format Measure(k1=v1, k2=v2)@c"


class Measure:
    """An ir_measures measure: its registered name (``NAME``, also ``__name__``), the parameter that ``@`` sets
    (``AT_PARAM``: ``cutoff``, or IPrec's ``recall``) and the parameters as given (``params``), computed by
    :func:`rankwise.evaluate` under the ``ir_measures`` dialect. Reference: ir_measures 0.4
    ``ir_measures/measures/base.py`` (``Measure``)."""

    def __init__(self, name: str, at_param: str = "cutoff", params: Mapping[str, Any] | None = None) -> None:
        self.__name__ = name
        self.NAME = name
        self.AT_PARAM = at_param
        self.params: dict[str, Any] = dict(params or {})

    def __call__(self, **params: Any) -> Measure:
        """The measure with ``params`` set over its own (``AP(rel=2)``), as ir_measures' ``Measure.__call__``."""
        return Measure(self.NAME, self.AT_PARAM, {**self.params, **params})

    def __matmul__(self, at: Any) -> Measure:
        """The measure with its ``AT_PARAM`` set (``nDCG@10``; ``IPrec@0.2``), as ir_measures' ``__matmul__``."""
        return self(**{self.AT_PARAM: at})

    def __getitem__(self, key: str) -> Any:
        """The value of parameter ``key`` as given (None when not given)."""
        return self.params.get(key)

    def __repr__(self) -> str:
        """ir_measures' syntax: ``NAME(k=v,...)@AT``, the parameters in the order given, each at its default left out
        (ir_measures' ``Measure.__repr__``, its dict values as its ``_param_repr`` prints them)."""
        shown = [f"{k}={_param_repr(v)}" for k, v in self.params.items()
                 if k != self.AT_PARAM and not _is_default(self.rankwise_text(), self.rankwise_text(k))]  # fmt: skip
        text = self.NAME + (f"({','.join(shown)})" if shown else "")
        return text + (f"@{self.params[self.AT_PARAM]}" if self.AT_PARAM in self.params else "")

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        """Equal when they print the same, as ir_measures' ``Measure.__eq__``."""
        return isinstance(other, Measure) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    def rankwise_text(self, without: str | None = None) -> str:
        """The measure as the ``ir_measures`` dialect reads it: every parameter written out in full (``without``: all
        but that one)."""
        args = [f"{k}={_value_text(v)}" for k, v in self.params.items() if k not in (self.AT_PARAM, without)]
        text = self.NAME + (f"({','.join(args)})" if args else "")
        at = self.params.get(self.AT_PARAM)
        return text + (f"@{at}" if at is not None and without != self.AT_PARAM else "")

    def iter_calc(self, qrels: Any, run: Any) -> Iterator[Metric]:
        """ir_measures' ``Measure.iter_calc``: :func:`rankwise.compat.ir_measures.iter_calc` of this measure."""
        return iter_calc([self], qrels, run)

    def calc_aggregate(self, qrels: Any, run: Any) -> float:
        """ir_measures' ``Measure.calc_aggregate``: this measure's aggregate over the judged queries."""
        return calc_aggregate([self], qrels, run)[self]

    def calc(self, qrels: Any, run: Any) -> CalcResults:
        """ir_measures' ``Measure.calc``: ``(aggregate, [Metric, ...])`` of this measure."""
        aggregated, per_query = calc([self], qrels, run)
        assert isinstance(aggregated, dict)  # calc over a list of measures: one value per measure
        return CalcResults(aggregated[self], per_query)

    def evaluator(self, qrels: Any) -> Evaluator:
        """ir_measures' ``Measure.evaluator``: an evaluator of this measure over ``qrels``."""
        return evaluator([self], qrels)


class Metric(NamedTuple):
    """One per-query value, as ir_measures' ``Metric``: the measure as given."""

    query_id: str
    measure: Any
    value: float


class CalcResults(NamedTuple):
    """What ``calc`` returns, as ir_measures' ``CalcResults``: ``{measure: aggregate}`` (a measure's ``calc``: its
    aggregate) and the per-query :class:`Metric` list."""

    aggregated: dict[Any, float] | float
    per_query: list[Metric]


def _text(measure: Any) -> str:
    """The measure as the ``ir_measures`` dialect reads it: a measure object written out in full, else its text."""
    return measure.rankwise_text() if isinstance(measure, Measure) else str(measure)


class Evaluator:
    """ir_measures' evaluator: ``measures`` over the judgments ``qrels``, applied to runs."""

    def __init__(self, measures: Iterable[Any], qrels: Any) -> None:
        self.measures = list(measures)
        self._texts = [_text(m) for m in self.measures]
        self._qrels = _pairs(qrels, "relevance")

    def _result(self, run: Any) -> Any:
        return _evaluate(self._qrels, _pairs(run, "score"), self._texts, dialect=DIALECT)

    def calc_aggregate(self, run: Any) -> dict[Any, float]:
        """Each measure's mean over the judged queries (0 for a judged query missing from the run)."""
        result = self._result(run)
        return {measure: float(result.aggregate[text]) for measure, text in zip(self.measures, self._texts)}

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """A :class:`Metric` per (judged query, measure), a judged query missing from the run with its 0, queries in
        the result's order."""
        result = self._result(run)
        per_query = result.per_query  # built once (a property)
        for query in result.query_ids:
            values = per_query[query]
            for measure, text in zip(self.measures, self._texts):
                yield Metric(query, measure, float(values[text]))

    def calc(self, run: Any) -> CalcResults:
        """Both: each measure's aggregate and the per-query :class:`Metric` list, from one evaluation."""
        result = self._result(run)
        per_query = result.per_query  # built once (a property)
        metrics = [Metric(q, m, float(per_query[q][t])) for q in result.query_ids
                   for m, t in zip(self.measures, self._texts)]  # fmt: skip
        return CalcResults({m: float(result.aggregate[t]) for m, t in zip(self.measures, self._texts)}, metrics)


def evaluator(measures: Iterable[Any], qrels: Any) -> Evaluator:
    """ir_measures' ``evaluator(measures, qrels)``: an :class:`Evaluator` of ``measures`` over ``qrels``, applied to
    runs by its ``calc_aggregate``/``iter_calc``/``calc`` (ir_measures 0.4 ``providers/base.py``)."""
    return Evaluator(measures, qrels)


def calc(measures: Iterable[Any], qrels: Any, run: Any) -> CalcResults:
    """ir_measures' ``calc``: ``({measure: aggregate}, [Metric, ...])`` from one evaluation (ir_measures 0.4
    ``providers/base.py``)."""
    return Evaluator(measures, qrels).calc(run)


def calc_aggregate(measures: Iterable[Any], qrels: Any, run: Any) -> dict[Any, float]:
    """ir_measures' ``calc_aggregate``: ``{measure: aggregate}``, the mean over the judged queries (a sum for the
    counts, ``NumQ``/``NumRet``/...), as the ``ir_measures`` dialect aggregates (ir_measures 0.4
    ``providers/base.py``)."""
    return Evaluator(measures, qrels).calc_aggregate(run)


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
    """ir_measures' ``iter_calc``: a :class:`Metric` per judged query and measure (ir_measures 0.4
    ``providers/base.py``)."""
    return Evaluator(measures, qrels).iter_calc(run)


def _pairs(source: Any, value: str) -> dict[str, dict[str, Any]]:
    """``{query: {doc: value}}`` from a dict of dicts, an iterable of named tuples with ``query_id``, ``doc_id`` and
    ``value`` (``relevance`` or ``score``) fields, or a DataFrame with those columns."""
    if isinstance(source, Mapping):
        return {str(q): docs for q, docs in source.items()}  # doc ids and values read by rankwise.io
    columns = getattr(source, "columns", None)
    if columns is not None:  # a polars or pandas DataFrame
        rows: Iterable[Any] = zip(*(list(source[c]) for c in ("query_id", "doc_id", value)))
    else:
        rows = ((row.query_id, row.doc_id, getattr(row, value)) for row in source)
    out: dict[str, dict[str, Any]] = {}
    for query, doc, v in rows:
        out.setdefault(str(query), {})[str(doc)] = v
    return out


def _at_param(entry: PeerName) -> str:
    """The argument ``@`` sets: the entry's own argument that is its cutoff (IPrec's ``recall``), else ``cutoff``."""
    return next((key for key, arg in entry.args.items() if arg.to == "cutoff"), "cutoff")


def _value_text(value: Any) -> str:
    """A parameter value as the dialect's names read it: a dict as ``{k:v,...}``, anything else as text."""
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{v}" for k, v in sorted(value.items())) + "}"
    return str(value)


def _param_repr(value: Any) -> str:
    """A parameter value as ir_measures prints it (``Measure._param_repr``: a dict's entries sorted, an entry whose
    key equals its value left out, other values by ``repr``)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{v}" for k, v in sorted(value.items()) if k != v) + "}"
    return repr(value)


@lru_cache(maxsize=4096)
def _effective(text: str) -> tuple[Any, ...] | None:
    """The rankwise measure ``text`` is under the ``ir_measures`` dialect, with every parameter at the value in force
    (the dialect's binding, else the family default; ``rel`` the evaluation's level 1), or None when rankwise does not
    read it."""
    try:
        measure = _DIALECT.read_name(text)
    except MeasureError:
        return None
    return None if measure is None else _in_force(measure)


def _in_force(measure: RankwiseMeasure) -> tuple[Any, ...]:
    """A rankwise measure's family, cutoff and every parameter's value in force under the ``ir_measures`` dialect."""
    bound = _DIALECT.bind(measure, 1)
    values = tuple((p.name, bound.get(p.name) if bound.get(p.name) is not None or p.name != "rel" else 1)
                   for p in bound.spec.params)  # fmt: skip
    return (bound.name, bound.cutoff, values)


def _is_default(text: str, without: str) -> bool:
    """Whether the measure ``text`` reads the same as ``without`` (it less one parameter): that parameter is at its
    default."""
    read = _effective(text)
    return read is not None and read == _effective(without)


def _registered(entry: PeerName) -> Measure:
    """The measure object a registry name is: the entry itself, or, when another entry with one argument switched on
    that picks the measure (``NumRet(rel=1)``, ``SetP(relative=True)``) reads as it, that one, as ir_measures registers
    ``NumRelRet`` and ``SetRelP``."""
    own = Measure(entry.name, _at_param(entry))
    wanted = _effective(own.rankwise_text())
    for other in IR_MEASURES.names:
        for key, arg in other.args.items():
            if other is entry or not (arg.switch or arg.to == "measure"):
                continue
            for value in [ast.literal_eval(v) for v in arg.values] or [1]:  # a switch by rel: the default level
                if value is False:
                    continue  # switched off: the other measure itself
                candidate = Measure(other.name, _at_param(other), {key: value})
                if wanted is not None and _effective(candidate.rankwise_text()) == wanted:
                    return candidate
    return own


registry: dict[str, Measure] = {
    spelled: _registered(entry) for entry in IR_MEASURES.names for spelled in (entry.name, *entry.aliases)
}
"""Every name of ir_measures' registry (aliases too: ``MAP`` is ``AP``), as :data:`rankwise.measures.peers.IR_MEASURES`
lists them."""


def __getattr__(name: str) -> Measure:
    """ir_measures' measure objects by name (``nDCG``, ``MAP``; ``from ir_measures.measures import Judged``)."""
    if name in registry:
        return registry[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _literal(node: ast.expr) -> Any:
    """A parameter value of ir_measures' syntax: a number, string, bool or dict of them."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise ValueError(_PARSE_ERROR.format("values must be str, float, int, bool, etc.")) from None


def parse_measure(measure: str | Measure) -> Measure:
    """The measure ir_measures' text syntax names: ``nDCG@10``, ``AP(rel=2)``, ``nDCG(dcg="exp-log2", cutoff=20)``
    (a Python expression: a registered name, keyword arguments, ``@`` and its value); a :class:`Measure` is returned
    as is. ValueError for text that is not that syntax, NameError for a name not in the registry, as
    ``ir_measures.parse_measure`` (ir_measures 0.4 ``util.py``)."""
    if isinstance(measure, Measure):
        return measure
    try:
        body = ast.parse(measure).body
    except SyntaxError as exc:
        raise ValueError(_PARSE_ERROR.format(exc)) from None
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        raise ValueError(_PARSE_ERROR.format("not one expression"))
    node = body[0].value
    at: Any = None
    args: dict[str, Any] = {}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at, node = _literal(node.right), node.left
    if isinstance(node, ast.Call):
        if node.args or any(k.arg is None for k in node.keywords):
            raise ValueError(_PARSE_ERROR.format("args must be named"))
        args = {str(k.arg): _literal(k.value) for k in node.keywords}
        node = node.func
    if not isinstance(node, ast.Name):
        raise ValueError(_PARSE_ERROR.format("unexpected expression"))
    if node.id not in registry:
        raise NameError(f"measure not found: {node.id}")
    found = registry[node.id](**args)
    return found if at is None else found @ at


def _trec_base(key: str) -> str:
    """The trec_eval name a measure's output name belongs to (``P_5`` → ``P``, ``iprec_at_recall_0.10`` →
    ``iprec_at_recall``)."""
    if key in PLAIN_MEASURES:
        return key
    return max((f for f in CUTOFF_FAMILIES if key == f or key.startswith(f + "_")), key=len, default=key)


def _from_rankwise(measure: RankwiseMeasure, trec: str) -> Measure | None:
    """The ir_measures measure that is ``measure`` (read from the trec_eval name ``trec``): the registry's entry the
    dialect reads as it, with its cutoff; of two (``R`` and ``SetR``), the ``Set`` one for a ``set_`` name; never a
    ``Set`` one with a cutoff (ir_measures' set measures take none). None when ir_measures has none (``gm_map``,
    ``relative_P``)."""
    wanted = _in_force(measure)
    found: list[Measure] = []
    for entry in IR_MEASURES.names:
        if entry.measure is None or (measure.cutoff is not None and entry.name.startswith("Set")):
            continue
        candidate = registry[entry.name]
        if measure.cutoff is not None:
            cut = measure.cutoff if measure.spec.cutoff == "rank" else float(measure.cutoff)
            candidate = candidate @ cut
        if _effective(candidate.rankwise_text()) == wanted:
            found.append(candidate)
    found.sort(key=lambda m: m.NAME.startswith("Set") != trec.startswith("set_"))
    return found[0] if found else None


def _trec_values(measure: str) -> tuple[str, list[str]] | None:
    """``(trec name, [value, ...])`` of ``NAME.v1,v2`` or ``NAME_v1,v2`` (pytrec_eval's forms), or None."""
    if measure in PLAIN_MEASURES or measure in CUTOFF_FAMILIES:
        return None
    for base in sorted((*PLAIN_MEASURES, *CUTOFF_FAMILIES), key=len, reverse=True):
        rest = measure[len(base) + 1 :]
        if measure.startswith(base) and measure[len(base) : len(base) + 1] in ("_", ".") and _NUMBERS.match(rest):
            return base, rest.split(",")
    return None


def _with_values(base: str, values: list[str]) -> list[Measure]:
    """The measures of ``NAME.v1,v2``: each value the cutoff of a measure that takes one (``P.5,10``), else the one
    argument of its own (``set_F.0.5``: SetF's ``beta``)."""
    template = parse_measures(base)[0][1]
    target = _from_rankwise(template, base)
    if target is None:
        raise ValueError(f"known trec name {base}, but not yet supported")
    if template.cutoff is not None:
        param, read = target.AT_PARAM, int if template.spec.cutoff == "rank" else float
    else:
        entry = IR_MEASURES.find(target.NAME)
        own = [k for k, a in entry.args.items() if not a.why] if entry is not None else []
        if not own:
            raise ValueError(f"unknown argument for {base}: {','.join(values)}")
        param, read = own[0], float
    try:
        out = [target(**{param: read(v)}) for v in values]
    except ValueError:
        out = []
    if not out or any(_effective(m.rankwise_text()) is None for m in out):
        raise ValueError(f"unknown argument for {base}: {','.join(values)}")
    return out


def parse_trec_measure(measure: str) -> list[Measure]:
    """The ir_measures measures a trec_eval name means: ``map`` → [AP], ``P`` → P@5 ... P@1000, ``P_5,10`` and
    ``P.5,10`` → [P@5, P@10], ``set_F.0.5`` → [SetF(beta=0.5)]; a nickname (``official``, ``set``, ``all_trec``:
    pytrec_eval's) → its names' measures, names in sorted order, those ir_measures lacks (``gm_map``) left out with a
    warning; as ``ir_measures.parse_trec_measure``, read by rankwise's trec_eval names
    (:mod:`rankwise.measures.trec_names`). ValueError for a name it does not know or ir_measures has no measure for.
    Reference: ir_measures 0.4 ``util.py``."""
    if measure in supported_nicknames:
        out: list[Measure] = []
        skipped: list[str] = []
        for name in sorted(supported_nicknames[measure]):
            try:
                out += parse_trec_measure(name)
            except ValueError:
                skipped.append(name)
        if skipped:
            warnings.warn(f"skipped {skipped}: measures not yet supported", stacklevel=2)
        return out
    given = _trec_values(measure)
    if given is not None:
        return _with_values(*given)
    try:
        named = parse_measures(measure)
    except MeasureError:
        raise ValueError(f"unkonwn measure {measure}") from None
    found = [_from_rankwise(m, _trec_base(key)) for key, m in named]
    if not found or None in found:
        raise ValueError(f"known trec name {measure}, but not yet supported")
    return [m for m in found if m is not None]


__all__ = ["CalcResults", "Evaluator", "Measure", "Metric", "calc", "calc_aggregate", "evaluator", "iter_calc",
           "parse_measure", "parse_trec_measure", "registry", *registry]  # fmt: skip
