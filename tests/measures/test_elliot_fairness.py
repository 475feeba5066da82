"""Elliot's item-fairness measures against Elliot's own code (sisinflab/elliot at fc27efe, run in this process by
:mod:`elliot_harness` from ``RANKWISE_ELLIOT``): ItemMAD (ItemMADranking, ItemMADrating), and — pinned until now
only by formula — RSP, REO, PopRSP, PopREO and UserMADranking, on 60 random cases and on the ML-100K lists with
real groups (RecBole's ``ml-100k.user`` / ``ml-100k.item``). Worked examples computed by hand pin ItemMAD's formula
without Elliot."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rankwise
from conftest import close
from elliot_harness import (
    Case,
    drama_comedy_codes,
    elliot_or_skip,
    eval_objects,
    labels,
    metric,
    ml100k_case,
    ml100k_groups_or_skip,
    user_codes,
    value_named,
    write_clustering,
)
from rankwise.measures import parse_measure
from rankwise.measures.peers import peer_names

CASES = range(60)

# ---------------------------------------------------------------------------------------------------------------
# Worked examples (always run)

RUN = {"u1": {"a": 4.0, "b": 3.0, "c": 2.0}, "u2": {"b": 5.0, "c": 1.0, "d": 0.5}, "u3": {"a": 2.0, "d": 1.0}}
QRELS = {"u1": {"a": 5, "c": 4}, "u2": {"b": 4, "d": 3}, "u3": {"z": 2}}
GROUPS = {"a": "x", "b": "x", "c": "y", "d": "y"}


def test_item_mad_ranking_by_hand() -> None:
    """ItemMADranking.py:79-106 with relevance.py:80-82, threshold 4, k = 2. u3 has no rating >= 4: left out
    (ItemMADranking.py:90). u1's top 2: a (grade 5: gain 2^(5−4+1) − 1 = 3), b (not judged: 0); u2's: b (grade 4:
    2^1 − 1 = 1), c (0). Items: a 3/1 = 3, b (0 + 1)/2 = 1/2, c 0/1 = 0. Groups: x = mean(3, 1/2) = 7/4,
    y = mean(0) = 0; MAD = 7/4."""
    result = rankwise.evaluate(QRELS, RUN, ["ItemMAD@2"], rel_level=4, item_groups=GROUPS)
    assert math.isclose(result.aggregate["ItemMAD@2"], 7 / 4, rel_tol=1e-12)


def test_item_mad_rating_by_hand() -> None:
    """ItemMADrating.py:189-216, threshold 4, k = 2: the gain is the list's score of a relevant item. u1: a 4.0
    (relevant), b 0; u2: b 5.0 (relevant), c 0. Items: a 4, b (0 + 5)/2 = 5/2, c 0. x = (4 + 5/2)/2 = 13/4, y = 0:
    MAD = 13/4. With k = 3: d (u2, grade 3, not relevant) joins y = mean(c 0, d 0) = 0 and c's u1 row counts
    (grade 4: relevant, score 2.0): c = (2 + 0)/2 = 1, y = (1 + 0)/2 = 1/2, x unchanged: 13/4 − 1/2 = 11/4."""
    result = rankwise.evaluate(QRELS, RUN, ["ItemMAD(gain=rating)@2", "ItemMAD(gain=rating)@3"], rel_level=4,
                               item_groups=GROUPS)  # fmt: skip
    assert math.isclose(result.aggregate["ItemMAD(gain=rating)@2"], 13 / 4, rel_tol=1e-12)
    assert math.isclose(result.aggregate["ItemMAD(gain=rating)@3"], 11 / 4, rel_tol=1e-12)


def test_item_mad_three_groups_and_an_empty_one() -> None:
    """Three groups average the three pairwise differences (ItemMADranking.py:102-106); a group without an item in
    any counted top k is Elliot's 0/0 (nan), so the measure is NaN, as with a single group (np.average([]))."""
    groups = {**GROUPS, "d": "z"}
    result = rankwise.evaluate(QRELS, RUN, ["ItemMAD@3", "ItemMAD@2"], rel_level=4, item_groups=groups)
    # k = 3: a 3, b 1/2, c (u1: grade 4 → 1; u2: 0) 1/2, d 0 → x 7/4, y 1/2, z 0 → (5/4 + 7/4 + 1/2) / 3 = 7/6
    assert math.isclose(result.aggregate["ItemMAD@3"], 7 / 6, rel_tol=1e-12)
    assert math.isnan(result.aggregate["ItemMAD@2"])  # d (z) is in no top 2
    single = rankwise.evaluate(QRELS, RUN, ["ItemMAD@2"], rel_level=4, item_groups=dict.fromkeys(GROUPS, "x"))
    assert math.isnan(single.aggregate["ItemMAD@2"])


def test_item_mad_is_global_and_named() -> None:
    result = rankwise.evaluate(QRELS, RUN, ["ItemMAD@2"], rel_level=4, item_groups=GROUPS)
    assert np.isnan(result.values[0]).all()  # no per-query value
    assert any("ItemMAD@2: global" in note and "2 item groups" in note for note in result.notes())
    elliot = peer_names("elliot")
    assert elliot is not None
    for name, gain in (("ItemMADranking", "ranking"), ("ItemMADrating", "rating")):
        entry = elliot.find(name)
        assert entry is not None and entry.measure is not None
        assert parse_measure(entry.measure) == parse_measure(f"ItemMAD(gain={gain})")
    with pytest.raises(rankwise.MeasureError, match="item groups"):
        rankwise.evaluate(QRELS, RUN, ["ItemMAD@2"], rel_level=4)


def test_item_mad_partitions_aggregate_as_the_whole() -> None:
    """The inputs of query ranges concatenate (kernels/aggregate.py): the aggregate of two halves' inputs, joined,
    is the whole's value."""
    from rankwise.engine.aligned import align
    from rankwise.engine.training import Training
    from rankwise.io import load_qrels, load_run
    from rankwise.kernels import aggregate_from, concatenate_inputs
    from rankwise.kernels.aggregate import aggregation_inputs
    from rankwise.policies import Policies, QuerySet

    whole = rankwise.evaluate(QRELS, RUN, ["ItemMAD@3"], rel_level=4, item_groups=GROUPS).aggregate["ItemMAD@3"]
    m = parse_measure("ItemMAD@3")
    inputs = []
    for users in (("u1",), ("u2", "u3")):
        a = align(load_qrels({u: QRELS[u] for u in users}), load_run({u: RUN[u] for u in users}),
                  Policies(rel_level=4, queries=QuerySet.RUN))  # fmt: skip
        a.training = Training(None, item_groups=GROUPS)
        inputs.append(aggregation_inputs(a, m, 4, np.full(a.num_queries, np.nan)))
    assert math.isclose(aggregate_from(m, concatenate_inputs(inputs)), whole, rel_tol=1e-12)


# ---------------------------------------------------------------------------------------------------------------
# Elliot's own code


def _elliot_item_mad(case: Case, tmp_path: Path, name: str) -> float:
    objects = eval_objects(case.k, case.train, case.test, case.threshold)
    additional = {"clustering_file": write_clustering(tmp_path / "items.tsv", case.items), "clustering_name": "c"}
    with np.errstate(all="ignore"):
        return float(metric("fairness.MAD", name)(case.recs, None, None, objects, additional).eval())


def _elliot_rates(case: Case, tmp_path: Path) -> dict[str, float]:
    """Elliot's RSP, REO (clustering file) and PopRSP, PopREO (its popularity split) of ``case``."""
    objects = eval_objects(case.k, case.train, case.test, case.threshold)
    additional = {"clustering_file": write_clustering(tmp_path / "items.tsv", case.items), "clustering_name": "c"}
    out = {}
    with np.errstate(all="ignore"):
        out["RSP"] = value_named(metric("fairness.rsp", "RSP")(case.recs, None, None, objects, additional).get(),
                                 "RSP_items:c")  # fmt: skip
        out["REO"] = value_named(metric("fairness.reo", "REO")(case.recs, None, None, objects, additional).get(),
                                 "REO_items:c")  # fmt: skip
        out["PopRSP"] = float(metric("bias.pop_rsp", "PopRSP")(case.recs, None, None, objects).eval())
        out["PopREO"] = float(metric("bias.pop_reo", "PopREO")(case.recs, None, None, objects).eval())
    return out


def _rankwise(case: Case, measures: list[str], **options: Any) -> dict[str, float]:
    result = rankwise.evaluate(case.qrels(), case.run(), measures, rel_level=case.threshold, queries="run",
                               train=case.train_pairs(), item_groups=labels(case.items), **options)  # fmt: skip
    return dict(result.aggregate)


def _cases() -> list[Case]:
    return [c for c in (Case(seed) for seed in CASES) if c.recs]


def test_item_mad_is_elliots(tmp_path: Path) -> None:
    elliot_or_skip()
    compared = 0
    for case in _cases():
        ours = _rankwise(case, [f"ItemMAD@{case.k}", f"ItemMAD(gain=rating)@{case.k}"])
        for name, key in (("ItemMADranking", f"ItemMAD@{case.k}"), ("ItemMADrating", f"ItemMAD(gain=rating)@{case.k}")):
            theirs = _elliot_item_mad(case, tmp_path, name)
            assert close(ours[key], theirs, rel_tol=1e-12), (name, case.k, ours[key], theirs)
            compared += 1
    assert compared >= 100


def test_rsp_reo_and_popularity_variants_are_elliots(tmp_path: Path) -> None:
    """RSP, REO over Elliot's users (every listed user: rsp.py:108; those with a relevant item: reo.py:112-113) and
    PopRSP, PopREO with Elliot's popularity split (popularity_utils/popularity.py)."""
    elliot_or_skip()
    differ: list[tuple[int, str, float, float]] = []
    compared = 0
    for seed, case in enumerate(_cases()):
        k = case.k
        ours = _rankwise(case, [f"RSP@{k}", f"REO@{k}", f"RSP(groups=popularity)@{k}", f"REO(groups=popularity)@{k}"])
        theirs = _elliot_rates(case, tmp_path)
        for name, key in (("RSP", f"RSP@{k}"), ("REO", f"REO@{k}"), ("PopRSP", f"RSP(groups=popularity)@{k}"),
                          ("PopREO", f"REO(groups=popularity)@{k}")):  # fmt: skip
            compared += 1
            if not close(ours[key], theirs[name], rel_tol=1e-12):
                differ.append((seed, name, ours[key], theirs[name]))
                no_tail = not eval_objects(k, case.train, case.test, case.threshold).pop.get_long_tail()
                assert _known_rate_difference(name, ours[key], theirs[name], no_tail), differ[-1]
    assert compared >= 200
    assert len(differ) <= 3, differ  # the one known difference is rare


def _known_rate_difference(name: str, ours: float, theirs: float, no_tail: bool) -> bool:
    """The differences from Elliot, each documented: a group whose denominator is 0 makes Elliot's value nan or a
    division of infinities, rankwise's NaN (group_rate_aggregate); and when Elliot's popularity split has an empty
    long tail (the most popular item alone reaches 0.8 of the interactions), PopRSP/PopREO divide the tail's 0 by 0
    (pop_rsp.py:92-95: nan), while rankwise's groups=popularity has one group only (no item is labelled tail), so
    std/mean over it is 0 (RSP) or 0/NaN (REO). Nothing else may differ."""
    if math.isnan(ours) and not math.isfinite(theirs):
        return True
    return name.startswith("Pop") and no_tail and math.isnan(theirs) and (ours == 0 or math.isnan(ours))


def test_user_mad_ranking_is_elliots(tmp_path: Path) -> None:
    """UserMADranking (UserMADranking.py:119-135) is the MAD of the group table's row of Elliot's nDCG@k
    (rankwise.group_table(...).gap(...).mad, --dialect elliot, the user clusters as groups). A cluster without a
    user with a relevant item: Elliot's 0/0 makes its MAD nan; rankwise leaves the group out (documented in
    rankwise.comparison.groups.mean_absolute_difference)."""
    root = elliot_or_skip()
    del root
    compared = 0
    for case in _cases():
        objects = eval_objects(case.k, case.train, case.test, case.threshold)
        additional = {"clustering_file": write_clustering(tmp_path / "users.tsv", case.users), "clustering_name": "u"}
        with np.errstate(all="ignore"):
            theirs = float(metric("fairness.MAD", "UserMADranking")(case.recs, None, None, objects, additional).eval())
        listed = {u for u in case.recs if any(r >= case.threshold for r in case.test.get(u, {}).values())}
        if not listed:
            continue
        result = rankwise.evaluate(case.qrels(), case.run(), [f"nDCG@{case.k}"], dialect="elliot",
                                   threshold=case.threshold, groups=labels(case.users))  # fmt: skip
        ours = rankwise.group_table(result).gap(f"nDCG@{case.k}").mad
        present = {case.users[u] for u in listed if u in case.users}
        if len(present) == len(set(case.users.values())):
            assert close(ours, theirs, rel_tol=1e-12), (case.k, ours, theirs)
            compared += 1
        else:
            assert math.isnan(theirs)
    assert compared >= 30


# ---------------------------------------------------------------------------------------------------------------
# ML-100K with real groups


def test_ml100k_item_mad_and_rates_are_elliots(tmp_path: Path) -> None:
    elliot_or_skip()
    user_file, item_file = ml100k_groups_or_skip()
    case = ml100k_case()
    case.items = drama_comedy_codes(item_file)
    case.users = user_codes(user_file, "gender")
    case.recs = {u: lst for u, lst in case.recs.items() if u in case.train}  # Elliot's RSP reads train_dict[u]
    k = case.k
    ours = _rankwise(case, [f"ItemMAD@{k}", f"ItemMAD(gain=rating)@{k}", f"RSP@{k}", f"REO@{k}",
                            f"RSP(groups=popularity)@{k}", f"REO(groups=popularity)@{k}"])  # fmt: skip
    assert all(math.isfinite(v) for v in ours.values()), ours  # every value defined: a real comparison
    assert close(ours[f"ItemMAD@{k}"], _elliot_item_mad(case, tmp_path, "ItemMADranking"), rel_tol=1e-12)
    assert close(ours[f"ItemMAD(gain=rating)@{k}"], _elliot_item_mad(case, tmp_path, "ItemMADrating"), rel_tol=1e-12)
    theirs = _elliot_rates(case, tmp_path)
    assert close(ours[f"RSP@{k}"], theirs["RSP"], rel_tol=1e-12)
    assert close(ours[f"REO@{k}"], theirs["REO"], rel_tol=1e-12)
    assert close(ours[f"RSP(groups=popularity)@{k}"], theirs["PopRSP"], rel_tol=1e-12)
    assert close(ours[f"REO(groups=popularity)@{k}"], theirs["PopREO"], rel_tol=1e-12)


@pytest.mark.parametrize("attribute", ["gender", "occupation"])
def test_ml100k_user_mad_ranking_is_elliots(tmp_path: Path, attribute: str) -> None:
    """UserMADranking on the ML-100K lists, users clustered by a RecBole user attribute: the group table's MAD of
    Elliot's nDCG@10. Three occupations have no listed user with a relevant item: Elliot's 0/0 makes its MAD nan,
    rankwise leaves those groups out — which is Elliot's value with those clusters removed from its file."""
    elliot_or_skip()
    user_file, _ = ml100k_groups_or_skip()
    case = ml100k_case()
    case.users = user_codes(user_file, attribute)
    result = rankwise.evaluate(case.qrels(), case.run(), [f"nDCG@{case.k}"], dialect="elliot",
                               threshold=case.threshold, groups=labels(case.users))  # fmt: skip
    ours = rankwise.group_table(result).gap(f"nDCG@{case.k}").mad
    scored = {u for u in case.recs if any(r >= case.threshold for r in case.test.get(u, {}).values())}
    present = sorted({case.users[u] for u in scored if u in case.users})
    theirs = _elliot_user_mad(case, tmp_path, case.users)
    if len(present) < len(set(case.users.values())):
        assert math.isnan(theirs) and attribute == "occupation"
        renumbered = {u: present.index(c) for u, c in case.users.items() if c in present}
        theirs = _elliot_user_mad(case, tmp_path, renumbered)
    assert close(ours, theirs, rel_tol=1e-12)


def _elliot_user_mad(case: Case, tmp_path: Path, clusters: dict[int, int]) -> float:
    objects = eval_objects(case.k, case.train, case.test, case.threshold)
    additional = {"clustering_file": write_clustering(tmp_path / "users.tsv", clusters), "clustering_name": "u"}
    with np.errstate(all="ignore"):
        return float(metric("fairness.MAD", "UserMADranking")(case.recs, None, None, objects, additional).eval())
