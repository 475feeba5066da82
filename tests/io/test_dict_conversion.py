"""``{query: {doc: value}}`` input read without per-entry Python work (issue #23) is the same table, the same
refusal and the same evaluation as a plain loop over the entries (the conversion before it, written out here)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from rankwise import RankwiseError
from rankwise.errors import EmptyInputError, InputError
from rankwise.io.table import DOCID, QID, VALUE, Grades, Kind, Origin, Table, make_table
from rankwise.io.tabular import _dict_value, dict_to_table

NAME = "dict input"


def reference_table(
    data: Mapping[Any, Mapping[Any, Any]], kind: Kind, threshold: float | None, grades: Grades, name: str = NAME
) -> Table:
    """The conversion entry by entry: every (query, doc, value) in the dicts' order, ids checked and written by
    ``str``, each value checked and converted by ``_dict_value`` (the per-entry rule), then ``make_table``."""
    entries = []
    for query, docs in data.items():
        if not isinstance(docs, Mapping):
            raise InputError(f"{name}: query {query!r} maps to {type(docs).__name__}, expected {{doc_id: value}}")
        entries += [(query, doc, value) for doc, value in docs.items()]
    if not entries:
        raise EmptyInputError(f"{name}: no {'judgments' if kind == 'qrels' else 'ranked documents'} found")
    for position, label in ((0, "query"), (1, "doc")):
        for entry in entries:
            if type(entry[position]) is bool or not isinstance(entry[position], (str, int)):
                raise InputError(f"{name}: {label} id {entry[position]!r} must be a string or an integer")
    integer = kind == "qrels" and threshold is None and grades == "integer"
    values = [_dict_value(v, integer, f"{name}: query {q!r} doc {d!r}") for q, d, v in entries]
    frame = pl.DataFrame({QID: [str(q) for q, _, _ in entries], DOCID: [str(d) for _, d, _ in entries],
                          VALUE: pl.Series(values, dtype=pl.Int64 if integer else pl.Float64)})  # fmt: skip
    return make_table(frame, kind, Origin(name), threshold=threshold, grades=grades)


def outcome(convert: Any) -> tuple[str, Any]:
    """``("table", (columns, dtypes, value bits))`` of a conversion, or ``("error", (type, message))``."""
    try:
        table = convert()
    except RankwiseError as exc:
        return "error", (type(exc).__name__, str(exc))
    frame = table.frame
    bits = frame.get_column(VALUE).to_numpy().view(np.int64).tolist()  # -0.0 and NaN payloads compared too
    return "table", (frame.drop(VALUE).to_dict(as_series=False), dict(frame.schema), bits)


GOOD_IDS = st.one_of(st.text(max_size=2), st.integers(-3, 3), st.just(2**70))
IDS = st.one_of(GOOD_IDS, st.sampled_from([1.5, True, None, b"q"]))
VALUES = st.one_of(
    st.integers(-5, 5),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.sampled_from([2**63 - 1, -(2**63), 2**63, 10**400, -0.0, 0.0, float("nan"), float("inf")]),
    st.builds(np.int8, st.integers(-128, 127)),
    st.builds(np.uint64, st.integers(0, 2**64 - 1)),
    st.builds(np.float32, st.floats(width=32)),
    st.builds(np.float64, st.floats()),
    st.sampled_from(["1", None, np.bool_(True), np.longdouble(2.5)]),
)
SETTINGS = st.sampled_from([("qrels", None, "integer"), ("qrels", None, "real"), ("qrels", 0.5, "integer"),
                            ("run", None, "integer")])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(GOOD_IDS, st.dictionaries(GOOD_IDS, VALUES, max_size=4), max_size=4), SETTINGS)
def test_any_values_convert_or_fail_as_the_entry_by_entry_loop(data: dict, setting: tuple) -> None:
    """Values of every kind, good and bad (NaN, inf, bools, text, None, beyond int64 or float64, numpy scalars)."""
    kind, threshold, grades = setting
    ours = outcome(lambda: dict_to_table(data, kind, NAME, threshold, grades))
    assert ours == outcome(lambda: reference_table(data, kind, threshold, grades))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(IDS, st.dictionaries(IDS, st.integers(0, 2), max_size=3), max_size=4), SETTINGS)
def test_any_ids_convert_or_fail_as_the_entry_by_entry_loop(data: dict, setting: tuple) -> None:
    """Ids of every kind: a bad one refused as the loop refuses the first (not when its query has no entries)."""
    kind, threshold, grades = setting
    ours = outcome(lambda: dict_to_table(data, kind, NAME, threshold, grades))
    assert ours == outcome(lambda: reference_table(data, kind, threshold, grades))


def plain_input(setting: tuple) -> st.SearchStrategy[tuple[tuple, dict]]:
    """Valid input for ``setting``: str/int ids (numbers and their text both, so ``1`` and ``"1"`` may collide),
    int grades, or int and float scores and ratings (numpy's too), empty inner dicts among them."""
    ids = st.one_of(st.text(min_size=1, max_size=2), st.integers(0, 9))
    numbers = st.one_of(st.integers(-5, 5), st.builds(np.int32, st.integers(-5, 5)))
    if setting != ("qrels", None, "integer"):
        numbers = st.one_of(numbers, st.floats(-1e6, 1e6), st.builds(np.float32, st.floats(-1e3, 1e3, width=32)))
    return st.tuples(st.just(setting), st.dictionaries(ids, st.dictionaries(ids, numbers, max_size=6), max_size=5))


@settings(max_examples=200, deadline=None)
@given(SETTINGS.flatmap(plain_input))
def test_plain_dicts_convert_as_the_entry_by_entry_loop(case: tuple[tuple, dict]) -> None:
    """Valid input, the vectorised path itself: the same rows, ids, dtypes and value bits."""
    (kind, threshold, grades), data = case
    ours = outcome(lambda: dict_to_table(data, kind, NAME, threshold, grades))
    assert ours == outcome(lambda: reference_table(data, kind, threshold, grades))


def test_a_refused_value_is_the_first_bad_entry_whatever_its_kind() -> None:
    """A grade out of range before a value of the wrong type: the earlier entry is named, as the loop names it."""
    data = {"q": {"a": 1, "b": 2**64, "c": "x"}, "r": {"a": 1.5}}
    with pytest.raises(InputError, match=r"^dict input: query 'q' doc 'b': grade 18446744073709551616 is out of"):
        dict_to_table(data, "qrels", NAME)
    with pytest.raises(InputError, match=r"^dict input: query 'q' doc 'c': 'x' is not a number$"):
        dict_to_table(data, "run", NAME)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_evaluation_from_dicts_equals_evaluation_from_the_reference_tables(queries: int, docs: int, seed: int) -> None:
    """Per-query values (bit for bit) and notes of ``rankwise.evaluate`` on dicts equal those on the reference
    conversion's tables (ties, empty rankings and unjudged queries included)."""
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(docs) if rng.random() < 0.5}
             for q in range(queries)}  # fmt: skip
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 4)) / 2 for d in range(docs) if rng.random() < 0.8}
           for q in range(queries)}  # fmt: skip
    measures = ["nDCG@10", "AP", "RR", "P@10", "R@5"]
    try:
        expected = rankwise.evaluate(reference_table(qrels, "qrels", None, "integer", "qrels dict"),
                                     reference_table(run, "run", None, "integer", "run dict"), measures)  # fmt: skip
    except RankwiseError as exc:
        with pytest.raises(type(exc), match=f"^{re.escape(str(exc))}$"):
            rankwise.evaluate(qrels, run, measures)
        return
    ours = rankwise.evaluate(qrels, run, measures)
    assert ours.query_ids == expected.query_ids
    assert ours.values.tobytes() == expected.values.tobytes()
    assert ours.notes() == expected.notes()
