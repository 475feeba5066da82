"""Measures are checked when they are made: parsed, constructed or bound by a dialect, a measure with an unknown
parameter value cannot exist, and a kernel refuses a value it does not implement instead of falling through."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import rankwise
from rankwise import Measure, MeasureError
from rankwise.dialects import DIALECTS, REL_LEVEL
from rankwise.kernels.aggregate import aggregate
from rankwise.measures.catalog import FAMILIES


def _values(param) -> list:
    if param.kind == "int":
        return [v for v in (0, 1, 2, 5) if param.minimum is None or v >= param.minimum]
    if param.kind == "float":
        return [v for v in (0.5, 1.0, 2.0) if param.maximum is None or v <= param.maximum]
    if param.kind == "floats":
        return [(0.25, 0.5), [0.0, 1.0]]
    values: list = list(param.choices)
    if param.kind == "gain":
        values += [((1, 1.0), (2, 3.0)), {2: 3, 1: 1}]
    return values


FEATURES = pl.DataFrame({"item_id": list("abcdxyt"), "f1": [1, 0, 1, 1, 0, 1, 0], "f2": [0, 0, 1, 1, 1, 0, 1]})


def _subtopics(qrels: dict) -> dict:
    """Subtopic judgments for the intent-aware measures: each judgment under subtopic 1, and a second subtopic."""
    return {q: {"1": docs, "2": {d: 1 for d in list(docs)[:1]}} for q, docs in qrels.items()}


def _cutoff(spec) -> float | None:
    return {"rank": 5, "recall": 0.5}.get(spec.cutoff or "") if spec.cutoff_required else None


@pytest.mark.parametrize("spec", FAMILIES, ids=lambda s: s.name)
def test_every_parameter_value_of_every_family_constructs_and_computes(spec) -> None:
    qrels = {"q": {"a": 2, "b": 0, "c": 1}, "r": {"x": 1}}
    run = {"q": {"a": 0.9, "b": 0.5, "d": 0.5}, "r": {"y": 0.3, "x": 0.1}}
    for param in spec.params:
        for value in _values(param):
            measure = Measure(spec.name, cutoff=_cutoff(spec), params=((param.name, value),))
            assert rankwise.parse_measure(str(measure)) == measure
            if param.name == "max_grade" and value < 2:  # ERR refuses a judged grade above the scale's top
                with pytest.raises(MeasureError, match=r"has grade 2, above max_grade="):
                    rankwise.evaluate(qrels, run, [measure])
                continue
            result = rankwise.evaluate(qrels, run, [measure], train={"q": ["t"]}, catalog=10,  # Elliot's AUC
                                       subtopics=_subtopics(qrels),  # intent-aware measures
                                       features=FEATURES, baseline=run,  # ILD, Serendipity; RBO, LIP
                                       item_groups={"a": "g1", "c": "g2", "x": "g2"})  # AWRF, RSP, REO  # fmt: skip
            assert len(result.values[0]) == 2


def test_every_binding_of_every_dialect_is_a_valid_measure() -> None:
    bound = 0
    for dialect in DIALECTS:
        for name, binding in dialect.bindings.items():
            spec = rankwise.measures.catalog.family(name)
            measure = dialect.bind(Measure(name, cutoff=_cutoff(spec)), rel_level=1)
            for key, value in binding.items():
                assert measure.get(key) == (1 if value is REL_LEVEL else spec.param(key).check(value, name))
            bound += 1
    assert bound > 40


@pytest.mark.parametrize(
    ("name", "params", "fragment"),
    [
        ("AP", (("denom", "min_k_r"),), "denom='min_k_r' must be one of R, min_k_R"),
        ("AP", (("rel", "1"),), "rel='1' must be an integer"),
        ("AP", (("rel", True),), "must be an integer"),
        ("AP", (("rel", -1),), "must be >= 0"),
        ("AP", (("size", 3),), "unknown parameter 'size'"),
        ("AP", (("rel", 1), ("rel", 2)), "given twice"),
        ("AP", ("rel",), "must be (name, value) pairs"),
        ("nDCG", (("gain", {1.5: 2.0}),), "grade 1.5 must be an integer"),
        ("nDCG", (("gain", {1: math.inf}),), "must be a finite number"),
        ("nDCG", (("gain", ()),), "gain map is empty"),
        ("nDCG", (("gain", "exp3"),), "must be one of linear, exp2"),
    ],
)
def test_constructing_a_measure_checks_its_parameters(name, params, fragment) -> None:
    with pytest.raises(MeasureError) as info:
        Measure(name, cutoff=10, params=params)
    assert fragment in str(info.value)


def test_a_gain_map_given_as_a_dict_is_stored_in_canonical_form() -> None:
    measure = Measure("nDCG", cutoff=5, params=(("gain", {2: 3, 1: 1}),))
    assert str(measure) == "nDCG(gain={1:1,2:3})@5"
    assert measure == rankwise.parse_measure("nDCG(gain={2:3,1:1})@5")


def test_a_dialect_cannot_bind_what_the_catalog_does_not_have() -> None:
    from rankwise.dialects import Dialect

    with pytest.raises(MeasureError, match="denom='min_k_r' must be one of"):
        Dialect("x", ("1",), "1", "", "", "", bindings={"AP": {"denom": "min_k_r"}})
    with pytest.raises(MeasureError, match="has no parameter 'ideal'"):
        Dialect("x", ("1",), "1", "", "", "", bindings={"AP": {"ideal": "hits"}})
    with pytest.raises(MeasureError, match="denom='min_k_r' must be one of"):  # also when it has its own query set
        Dialect("x", ("1",), "1", "", "", "", bindings={"AP": {"denom": "min_k_r"}}, measure_queries={"AP": "qrels"})
    with pytest.raises(MeasureError, match="bind AP, not its alias 'MAP'"):
        Dialect("x", ("1",), "1", "", "", "", measure_queries={"MAP": "qrels"})
    with pytest.raises(rankwise.RankwiseError, match="unknown tie policy"):
        Dialect("x", ("1",), "1", "", "", "", policies={"ties": "random"})


@pytest.mark.parametrize(
    "spec", [s for s in FAMILIES if any(p.kind in ("choice", "gain") for p in s.params)], ids=lambda s: s.name
)
def test_kernels_refuse_a_value_they_do_not_implement(spec) -> None:
    """A measure smuggled past the checks (here by object.__setattr__) makes its kernel raise, never compute
    another variant through an ``else`` branch."""
    choice_params = [p for p in spec.params if p.kind in ("choice", "gain")]
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 0.9, "b": 0.1}}
    for param in choice_params:
        measure = Measure(spec.name, cutoff=_cutoff(spec))
        object.__setattr__(measure, "params", ((param.name, "no_such_value"),))
        # AUC's mean chooses the aggregation (Measure.aggregation); every other parameter reaches a kernel
        expected = "no aggregation " if (spec.name, param.name) == ("AUC", "mean") else f"no kernel for {param.name}="
        with pytest.raises(MeasureError, match=f"{expected}'no_such_value'"):
            rankwise.evaluate(qrels, run, [measure], subtopics=_subtopics(qrels))


def test_dcg_means_do_not_overflow_and_overflowing_values_are_refused() -> None:
    measure = "DCG(gain={1:1e308,2:1e308})@5"
    qrels = {q: {"a": 1} for q in ("q", "r", "s")}
    run = {q: {"a": 1.0} for q in ("q", "r", "s")}
    assert rankwise.evaluate(qrels, run, measure).aggregate[measure] == pytest.approx(1e308)
    assert aggregate(np.array([1.5e308, 1.5e308, 1.2e308]), "mean") == pytest.approx(1.4e308)
    three = {"q": {"a": 1, "b": 2, "c": 1}}
    with pytest.raises(MeasureError, match="value of query 'q' overflows float64"):
        rankwise.evaluate(three, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, measure)
