"""Exposure and coverage by item group (``rankwise.item_group_table``, ``rankwise item-groups``): a case worked by
hand, properties on random lists (shares sum to one, slots count the top k, no discount is the slot share), the
attention shares of TREC Fair 2022's AWRF (proven against wptrec in tests/measures/test_fairness.py) recovered from
the table, the popularity split, and bad input in one line."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from rankwise.cli import main
from rankwise.pipeline.item_table import NO_GROUP, item_group_table

GROUPS = {"a": "big", "b": "big", "c": "small", "d": "small", "e": "small"}
RUN = {"q1": {"a": 3.0, "c": 2.0, "x": 1.0}, "q2": {"b": 3.0, "a": 2.0, "d": 1.0}}
QRELS = {"q1": {"c": 1}, "q2": {"d": 2, "e": 1}}


def test_by_hand() -> None:
    """log2 weights 1, 1/log2(3), 1/2 at ranks 1-3. big: a@1 (q1), b@1 and a@2 (q2): 2 + 1/log2(3); small: c@2 and
    d@3: 1/log2(3) + 1/2; x (no group) at rank 3: 1/2."""
    w2 = 1 / math.log2(3)
    table = item_group_table(RUN, GROUPS, qrels=QRELS)
    rows = {r.group: r for r in table.rows}
    total = 2 + w2 + w2 + 0.5 + 0.5
    assert rows["big"].exposure == pytest.approx(2 + w2) and rows["small"].exposure == pytest.approx(w2 + 0.5)
    assert rows[NO_GROUP].exposure == pytest.approx(0.5) and rows[NO_GROUP].items is None
    assert (rows["big"].items, rows["big"].listed, rows["big"].slots) == (2, 2, 3)
    assert (rows["small"].items, rows["small"].listed, rows["small"].slots) == (3, 2, 2)
    assert rows["small"].coverage == pytest.approx(2 / 3) and rows["small"].slot_share == pytest.approx(2 / 6)
    assert rows["big"].exposure_share == pytest.approx((2 + w2) / total)
    assert rows["big"].catalog_share == pytest.approx(2 / 5)
    assert rows["big"].exposure_to_catalog == pytest.approx((2 + w2) / total / (2 / 5))
    assert (rows["big"].relevant, rows["small"].relevant) == (0, 3)  # c, d, e: all small
    assert rows["small"].exposure_to_relevance == pytest.approx((w2 + 0.5) / total / 1.0)
    assert math.isinf(rows["big"].exposure_to_relevance)  # exposure without merit
    assert table.gap is not None and table.gap[:2] == ("big", "small")
    assert table.notes == ("item_groups: 1 listed row is of items in no group (the row (no group))",)
    top1 = {r.group: r for r in item_group_table(RUN, GROUPS, k=1).rows}
    assert (top1["big"].slots, top1["small"].slots, top1["small"].listed) == (2, 0, 0) and NO_GROUP not in top1


@st.composite
def lists(draw: Any) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    items = [f"i{j}" for j in range(12)]
    run = {f"u{u}": {i: float(draw(st.integers(0, 5))) for i in draw(st.lists(st.sampled_from(items), min_size=1,
                                                                               max_size=8, unique=True))}
           for u in range(draw(st.integers(1, 6)))}  # fmt: skip
    labels = draw(st.lists(st.sampled_from(["r", "g", "b", None]), min_size=12, max_size=12))
    return run, {i: label for i, label in zip(items, labels) if label is not None}


@settings(max_examples=80, deadline=None)
@given(case=lists(), k=st.sampled_from([None, 1, 3]), discount=st.sampled_from(["log2", "track", "geometric",
                                                                                  "reciprocal", "none"]))  # fmt: skip
def test_properties(case: tuple[dict[str, dict[str, float]], dict[str, str]], k: int | None, discount: str) -> None:
    run, groups = case
    if not groups:
        return
    table = item_group_table(run, groups, k=k, discount=discount)
    shown = sum(min(len(docs), k or len(docs)) for docs in run.values())
    assert sum(r.slots for r in table.rows) == shown
    assert sum(r.exposure_share for r in table.rows) == pytest.approx(1.0)
    assert sum(r.slot_share for r in table.rows) == pytest.approx(1.0)
    grouped = [r for r in table.rows if r.group != NO_GROUP]
    assert sum(r.catalog_share for r in grouped) == pytest.approx(1.0)
    for r in grouped:
        assert r.items == sum(1 for label in groups.values() if label == r.group)
        assert r.coverage == pytest.approx(r.listed / r.items)  # type: ignore[operator]
        if discount == "none":
            assert r.exposure_share == pytest.approx(r.slot_share)
    nowhere = rankwise.item_group_table(run, groups, k=k, discount=discount, ties="docno_asc")
    assert sum(r.slots for r in nowhere.rows) == shown  # another tie order moves rows, not their number


@settings(max_examples=60, deadline=None)
@given(case=lists(), k=st.sampled_from([None, 2, 5]))
def test_one_list_s_shares_are_awrf_s_attention(case: tuple[dict[str, dict[str, float]], dict[str, str]],
                                                 k: int | None) -> None:  # fmt: skip
    """For one list, the grouped rows' track-discounted exposure shares are AWRF's attention a_g (awrf.py:96-121):
    1 − JS(a, uniform) from them equals rankwise's AWRF(target=uniform)."""
    run, groups = case
    query = next(iter(run))
    one = {query: run[query]}
    labels = sorted(set(groups.values()))
    table = item_group_table(one, groups, k=k, discount="track")
    exposure = {r.group: r.exposure for r in table.rows if r.group != NO_GROUP}
    total = sum(exposure.values())
    cut = "" if k is None else f"@{k}"
    awrf = rankwise.evaluate({query: {"none": 1}}, one, [f"AWRF(target=uniform){cut}"], item_groups=groups,
                             queries="run").values[0][0]  # fmt: skip
    if total == 0:
        assert math.isnan(awrf)
        return
    a = np.array([exposure.get(g, 0.0) / total for g in labels])
    t = np.full(len(labels), 1 / len(labels))
    m = (a + t) / 2
    js = 0.5 * sum(x * math.log(x / y) for x, y in zip(a, m) if x > 0)
    js += 0.5 * sum(x * math.log(x / y) for x, y in zip(t, m))
    assert awrf == pytest.approx(1 - js, rel=1e-12, abs=1e-12)


def test_popularity_groups_need_the_training_interactions() -> None:
    train = pl.DataFrame({"user_id": ["u1", "u2", "u3", "u1"], "item_id": ["a", "a", "a", "b"]})
    table = item_group_table(RUN, "popularity", train=train)
    assert {r.group for r in table.rows} >= {"head"}
    with pytest.raises(rankwise.InputError, match="popularity"):
        item_group_table(RUN, "popularity")


def test_bad_input_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(rankwise.InputError, match=r"^discount 'exp': one of log2, track, geometric"):
        item_group_table(RUN, GROUPS, discount="exp")
    with pytest.raises(rankwise.InputError, match=r"^k must be a whole number >= 1"):
        item_group_table(RUN, GROUPS, k=0)
    (tmp_path / "run.txt").write_text("q1 Q0 a 1 x r\n")
    done = CliRunner().invoke(main, ["item-groups", str(tmp_path / "run.txt"), "--item-groups", "nowhere.csv:p"])
    assert done.exit_code == 2 and "Traceback" not in done.output and len(done.stderr.strip().splitlines()) == 1


def test_the_command_line(tmp_path: Path) -> None:
    pl.DataFrame({"item_id": list(GROUPS), "provider": list(GROUPS.values())}).write_csv(tmp_path / "items.csv")
    lines = [f"{q} Q0 {d} {r} {s} run\n" for q, docs in RUN.items()
             for r, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), 1)]  # fmt: skip
    (tmp_path / "run.txt").write_text("".join(lines))
    args = ["item-groups", str(tmp_path / "run.txt"), "--item-groups", f"{tmp_path / 'items.csv'}:provider", "-k", "2"]
    expected = item_group_table(str(tmp_path / "run.txt"), f"{tmp_path / 'items.csv'}:provider", k=2)
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0 and text.stdout == expected.text()
    record = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).stdout)
    assert [r["group"] for r in record["rows"]] == [r.group for r in expected.rows]
    assert record["rows"][0]["exposure_share"] == pytest.approx(expected.rows[0].exposure_share)
    rows = CliRunner().invoke(main, [*args, "--format", "csv"]).stdout.splitlines()
    assert rows[0].startswith("group,items,listed,coverage") and len(rows) == len(expected.rows) + 1
