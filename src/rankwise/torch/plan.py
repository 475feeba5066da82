"""What a tensor evaluation computes: measure names and a dialect resolved, once, into bound measures and policies.

Names are read as :func:`rankwise.evaluate` reads them: a dialect's own names first (:meth:`Dialect.read_name`,
allRank's ``ndcg``), then rankwise's syntax (:func:`rankwise.measures.parse_measures`); the dialect then fills every
parameter not given (:meth:`Dialect.bind`) and supplies default policies (explicit ones win). A measure, parameter
value or policy this module does not compute on tensors is refused here, in one line, before any data is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rankwise.dialects import Dialect, resolve_dialect
from rankwise.errors import MeasureError
from rankwise.measures import Measure, parse_measures
from rankwise.measures.parse import distinct_keys, measure_items, not_a_measure
from rankwise.measures.spec import ParamValue
from rankwise.policies import Policies, QuerySet, TiePolicy

ANY = None
"""In :data:`IMPLEMENTED`: every value of the parameter (a number) is computed."""

EMPTY = ("zero", "one", "skip")
POSITION = ("position",)
UNIVERSE = ("judged", "retrieved")
GATE = ("none", "positive_score")

GAIN = ("linear", "exp2", "binary", "exp2_rel", "map")
DISCOUNT = ("log2", "ln", "log2_max2")

IMPLEMENTED: Mapping[str, Mapping[str, tuple[str, ...] | None]] = {
    "nDCG": {"rel": ANY, "gain": GAIN, "discount": DISCOUNT, "rank": POSITION,
             "ideal": ("sorted", "uncut", "k_ones", "none"), "universe": UNIVERSE, "empty": EMPTY},
    "DCG": {"rel": ANY, "gain": GAIN, "discount": DISCOUNT, "rank": POSITION, "log_base": ANY},
    "AP": {"rel": ANY, "denom": ("R", "min_k_R", "k", "hits", "neurec", "min_shown_R"), "precisions": ("relevant",),
           "precision_at": ("rank",), "universe": UNIVERSE, "gate": GATE, "empty": EMPTY},
    "RR": {"rel": ANY, "hits": ("first", "all", "top1"), "gate": GATE, "empty": EMPTY},
    "P": {"rel": ANY, "denom": ("k", "retrieved", "min_k_R", "min_shown_R"), "rank": POSITION,
          "within": ("k", "k_plus_1"), "gate": GATE, "empty": EMPTY},
    "R": {"rel": ANY, "denom": ("R", "min_k_R"), "universe": UNIVERSE, "rank": POSITION, "within": ("k", "k_plus_1"),
          "gate": GATE, "empty": EMPTY},
    "HitRate": {"rel": ANY, "count": ("any", "hits"), "empty": EMPTY},
    "ERR": {"max_grade": ANY},
}  # fmt: skip
"""Each family computed on tensors → its parameters → the values computed (``ANY``: every number; ``map``: a grade
map such as ``{1:1,2:3}``). The slate holds every judged document of its query, so ``universe=judged`` and
``universe=retrieved`` are the same documents here."""

PADDING_LABEL: Mapping[str, int] = {"allrank": -1}
"""Dialects whose library marks padded slate positions with a label (allRank's ``PADDED_Y_VALUE = -1``,
allrank/data/dataset_loading.py:15): under them such positions are padding, as where ``mask`` is False."""


@dataclass(frozen=True)
class TensorPlan:
    """Measures bound and checked, with the policies in force: ``pairs`` (key as written, measure), ``ties``,
    ``rel_level``, ``float32_scores`` (scores rounded to float32 before sorting: pytrec_eval), ``padding_label`` (a
    label that marks padding under the dialect)."""

    pairs: tuple[tuple[str, Measure], ...]
    ties: TiePolicy
    rel_level: int
    float32_scores: bool
    padding_label: int | None
    dialect: Dialect | None

    def rel(self, measure: Measure) -> int:
        """The relevance threshold in force: the measure's own ``rel``, else the evaluation's ``rel_level``."""
        value = measure.option("rel")
        return int(value) if isinstance(value, int) else self.rel_level

    @property
    def reach(self) -> int | None:
        """The deepest rank any measure reads (its cutoff, + 1 with ``within=k_plus_1``); None when one reads the
        whole ranking. (The ideal ranking, R and |L| are read from the whole slate whatever the reach.)"""
        deepest = 0
        for _, measure in self.pairs:
            if measure.cutoff is None:
                return None
            deepest = max(deepest, int(measure.cutoff) + (measure.option("within") == "k_plus_1"))
        return deepest


MeasureLike = str | Measure


def make_tensor_plan(
    measures: MeasureLike | Iterable[MeasureLike] | TensorPlan,
    *,
    dialect: str | Dialect | None = None,
    ties: TiePolicy | str | None = None,
    rel_level: int = 1,
) -> TensorPlan:
    """The plan for ``measures`` under ``dialect`` and the policies given (else the dialect's, else rankwise's:
    ``ties`` defaults to ``input_order`` here, the slate's order, where :func:`rankwise.evaluate` defaults to
    trec_eval's doc-id order). A :class:`TensorPlan` is returned as it is."""
    if isinstance(measures, TensorPlan):
        return measures
    chosen = resolve_dialect(dialect)[0] if isinstance(dialect, str) else dialect
    defaults: dict[str, object] = {"ties": TiePolicy.INPUT_ORDER.value}
    defaults.update(chosen.policies if chosen is not None else {})
    if ties is not None:
        defaults["ties"] = ties
    policies = Policies(rel_level=rel_level, **defaults)  # type: ignore[arg-type]  # checked by Policies
    if policies.queries not in (QuerySet.INTERSECTION, QuerySet.QRELS, QuerySet.RUN):
        raise MeasureError(f"queries={policies.queries.value} (which rows are averaged) is not computed on tensors: "
                           "every slate with a document is a query")  # fmt: skip
    if policies.judged_only or policies.depth is not None:
        raise MeasureError("judged_only and depth are not computed on tensors: every document of a slate is judged "
                           "and ranked")  # fmt: skip
    pairs = []
    for key, measure in _read(measures, chosen):
        bound = chosen.bind(measure, policies.rel_level) if chosen is not None else measure
        if chosen is not None and bound.name in chosen.measure_queries:
            raise MeasureError(f"{key}: dialect {chosen.name} averages {bound.name} over other queries "
                               f"({chosen.measure_queries[bound.name]}); not computed on tensors")  # fmt: skip
        check_implemented(key, bound, policies.ties)
        pairs.append((key, bound))
    if not pairs:
        raise MeasureError("no measures given")
    padding = PADDING_LABEL.get(chosen.name) if chosen is not None else None
    return TensorPlan(tuple(pairs), policies.ties, policies.rel_level, policies.scores.value == "float32", padding,
                      chosen)  # fmt: skip


def _read(measures: MeasureLike | Iterable[MeasureLike], dialect: Dialect | None) -> list[tuple[str, Measure]]:
    """(key as written, measure before the dialect's bindings) for each measure asked."""
    out: list[tuple[str, Measure]] = []
    for item in measure_items(measures):
        if isinstance(item, Measure):
            out.append((str(item), item))
        elif isinstance(item, str):
            native = dialect.read_name(item) if dialect is not None else None
            out.extend([(item, native)] if native is not None else parse_measures(item))
        else:
            raise not_a_measure(item)
    return distinct_keys(out)


def check_implemented(key: str, measure: Measure, ties: TiePolicy) -> None:
    """Refuse, in one line, a family, parameter value or tie policy that :mod:`rankwise.torch` does not compute."""
    known = IMPLEMENTED.get(measure.name)
    if known is None:
        raise MeasureError(f"{key}: {measure.name} is not computed on tensors (rankwise.torch computes "
                           f"{', '.join(IMPLEMENTED)}); use rankwise.evaluate")  # fmt: skip
    if measure.spec.cutoff == "rank" and measure.cutoff is not None and not isinstance(measure.cutoff, int):
        raise MeasureError(f"{key}: cutoff {measure.cutoff!r} must be an integer")
    for param in measure.spec.params:
        value: ParamValue | None = measure.get(param.name)
        allowed = known.get(param.name, ())
        shown = "map" if isinstance(value, tuple) else value
        if value is not None and allowed is not ANY and shown not in allowed:
            raise MeasureError(f"{key}: {param.name}={param.format(value)} is not computed on tensors "
                               f"(computed: {', '.join(allowed) or 'none'}); use rankwise.evaluate")  # fmt: skip
    if measure.name == "DCG" and measure.get("log_base") != 2 and measure.get("discount") != "log2":
        raise MeasureError(f"{key}: log_base sets the base of discount=log2, not of discount={measure.get('discount')}")
    if ties is TiePolicy.AVERAGE and not measure.spec.tie_average:
        raise MeasureError(f"{key}: ties=average (the expectation over the orders of tied documents) is not defined "
                           f"for {measure.name}: give ties='input_order', 'docno_asc' or 'docno_desc'")  # fmt: skip
