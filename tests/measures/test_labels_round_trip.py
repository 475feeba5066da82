"""Every label rankwise prints reads back as the same measure (issue #23): ``parse_measure(str(m)) == m`` for any
family with any combination of its parameters' values and any cutoff (a property test), and the labels of the
recommender protocol's beyond-accuracy results (``recsys-experiment`` prints them) are such measures too."""

from __future__ import annotations

import math

import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from rankwise.cli import main
from rankwise.measures import FAMILIES, Measure, MeasureSpec, Param, parse_measure
from rankwise.recsys import beyond


def _values(param: Param) -> st.SearchStrategy:
    """Values a parameter takes: every choice, integers and floats in range, grade maps, lists of numbers."""
    if param.kind == "choice":
        return st.sampled_from(list(param.choices))
    if param.kind == "gain":
        grade_maps = st.dictionaries(st.integers(-3, 6), st.floats(-10, 100, allow_nan=False, allow_infinity=False),
                                     min_size=1, max_size=4).map(lambda d: tuple(sorted(d.items())))  # fmt: skip
        return st.one_of(st.sampled_from(list(param.choices)), grade_maps)
    if param.kind == "int":
        return st.integers(param.minimum if param.minimum is not None else 0, 10_000)
    if param.kind == "floats":
        low = float(param.minimum) if param.minimum is not None else -5.0
        return st.lists(st.floats(low, 50, allow_nan=False), min_size=1, max_size=4).map(tuple)
    low = float(param.minimum) if param.minimum is not None else -50.0
    high = float(param.maximum) if param.maximum is not None else 1e6
    return st.floats(low, high, allow_nan=False, exclude_min=param.minimum is not None).map(float)


@st.composite
def measures(draw: st.DrawFn) -> Measure:
    spec: MeasureSpec = draw(st.sampled_from(FAMILIES))
    chosen = draw(st.lists(st.sampled_from(spec.params), unique_by=lambda p: p.name)) if spec.params else []
    exclusive = [p for p in chosen if p.name in spec.exclusive]
    chosen = [p for p in chosen if p.name not in spec.exclusive] + exclusive[:1]
    params = tuple((p.name, draw(_values(p))) for p in chosen)
    cutoff: int | float | None = None
    if spec.cutoff == "rank" and (spec.cutoff_required or draw(st.booleans())):
        cutoff = draw(st.integers(1, 10**6))
    elif spec.cutoff == "recall" and (spec.cutoff_required or draw(st.booleans())):
        cutoff = draw(st.floats(0, 1, allow_nan=False))
    try:
        return Measure(spec.name, cutoff=cutoff, params=params)
    except rankwise.MeasureError:  # a value a parameter refuses beyond its range (e.g. a grade map's rules)
        return Measure(spec.name, cutoff=cutoff)


@settings(max_examples=600, deadline=None)
@given(measures())
def test_every_measure_label_reads_back(measure: Measure) -> None:
    assert parse_measure(str(measure)) == measure
    assert str(parse_measure(str(measure))) == str(measure)


def test_every_family_and_every_choice_reads_back() -> None:
    """Exhaustively, each choice of each parameter of each family, with and without a cutoff."""
    for spec in FAMILIES:
        cutoffs = [None, 10] if spec.cutoff == "rank" and not spec.cutoff_required else [10] if spec.cutoff == "rank" \
            else [0.5] if spec.cutoff else [None]  # fmt: skip
        for cutoff in cutoffs:
            for param in spec.params:
                for value in param.choices or [param.default] if param.default is not None else param.choices:
                    measure = Measure(spec.name, cutoff=cutoff, params=((param.name, value),))
                    assert parse_measure(str(measure)) == measure, str(measure)


TRAIN = pl.DataFrame({"user_id": ["u1", "u1", "u2", "u2", "u3", "u3", "u3"],
                      "item_id": ["a", "b", "a", "c", "a", "b", "d"]})  # fmt: skip
RECS = pl.DataFrame({"user_id": ["u1", "u1", "u1", "u2", "u2", "u3"], "item_id": ["c", "d", "e", "b", "d", "c"],
                     "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0]})  # fmt: skip
TRUTH = pl.DataFrame({"user_id": ["u1", "u2"], "item_id": ["d", "b"]})


@pytest.mark.parametrize("dialect", [None, "ms_recommenders", "recbole", "replay", "rectools", "rs_metrics", "elliot"])
def test_beyond_labels_are_measures_that_read_back(dialect: str | None) -> None:
    """``recsys-experiment`` printed ShannonEntropy(base=2,per_item=False)@20 and APLT(head_share=0.8,count=False)@20,
    which nothing read; each label is now the rankwise measure, and evaluating it gives the same value."""
    calls = {
        "coverage": lambda: beyond.coverage(RECS, k=2, train=TRAIN, catalog=6, dialect=dialect),
        "shannon_entropy": lambda: beyond.shannon_entropy(RECS, k=2, dialect=dialect),
        "self_information": lambda: beyond.self_information(RECS, k=2, train=TRAIN, dialect=dialect),
        "average_popularity": lambda: beyond.average_popularity(RECS, k=2, train=TRAIN, dialect=dialect),
        "long_tail": lambda: beyond.long_tail(RECS, k=2, train=TRAIN, dialect=dialect),
        "intra_list_diversity": lambda: beyond.intra_list_diversity(RECS, k=2, train=TRAIN, dialect=dialect),
        "serendipity": lambda: beyond.serendipity(RECS, k=2, truth=TRUTH, train=TRAIN, dialect=dialect),
    }
    labels = []
    for name, call in calls.items():
        if dialect is not None and dialect.split("@")[0] not in beyond.DIALECTS[name]:
            continue
        try:
            result = call()
        except rankwise.InputError as exc:  # RecTools' diversity needs item features
            assert "needs item features" in str(exc)
            continue
        labels.append(result.measure)
        measure = parse_measure(result.measure)
        assert str(measure) == result.measure
        explained = CliRunner().invoke(main, ["explain", result.measure])
        assert explained.exit_code == 0, explained.output
    if dialect is None:
        assert "Entropy(log=log2,divide=none)@2" in labels and "LongTail(head_share=0.8,count=no)@2" in labels
    gini = beyond.gini_index(RECS, k=2, catalog=6)
    assert gini.measure == "Gini@2" and parse_measure(gini.measure) == Measure("Gini", cutoff=2)


def test_a_beyond_label_equals_evaluating_its_measure() -> None:
    truth = TRUTH.with_columns(pl.lit(1).alias("rating"))
    for result in (beyond.shannon_entropy(RECS, k=2, dialect="recbole"),
                   beyond.long_tail(RECS, k=2, train=TRAIN, head_share=0.8),
                   beyond.self_information(RECS, k=2, train=TRAIN, dialect="ms_recommenders")):  # fmt: skip
        value = rankwise.evaluate(truth, RECS, [result.measure], queries="run", train=TRAIN).aggregate[result.measure]
        assert math.isclose(value, result.value, rel_tol=1e-12), (result.measure, value, result.value)
