"""Item-group fairness against its reference implementations: AWRF and nDCG-AWRF (TREC Fair 2022 Task 1,
fair-trec/trec2022-fair-public at 6fd105f) and RSP, REO, PopRSP, PopREO (Elliot, sisinflab/elliot at fc27efe).

- ``test_against_wptrec``: the track's own ``AWRFMetric`` (wptrec/metrics/awrf.py) on random rankings, one fairness
  dimension of one-hot alignments, the target the groups of each topic's relevant pages (Task1Alignment.py:204-205).
  GitHub is unreachable when the tests run and wptrec needs xarray: set ``RANKWISE_WPTREC`` to a checkout of
  github.com/fair-trec/trec2022-fair-public; without it (or xarray) the test skips.
- ``test_awrf_pinned``: awrf.py's formulas transcribed line by line (cited), present without the checkout, with
  scipy's ``jensenshannon`` as awrf.py:124 calls it.
- ``test_rates_pinned``: Elliot's RSP, REO, PopRSP and PopREO transcribed from their loops (cited); Elliot is not on
  PyPI and pins old numpy and TensorFlow, so its files are not run.
- ``test_*_by_hand``: small cases worked out by hand, the arithmetic written out.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

import rankwise
from conftest import close

WPTREC = os.environ.get("RANKWISE_WPTREC")
Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]
Case = tuple[Qrels, Run, dict[str, str], dict[str, list[str]]]


def _case(seed: int, items: int = 30, users: int = 8, groups: int = 3) -> Case:
    """Random qrels (grades 0..2), rankings of 4..15 items, item groups (about 1 item in 6 in none) and training
    items per user (none of them ranked: Elliot ranks only unseen items)."""
    rng = np.random.default_rng(seed)
    ids = [f"i{j}" for j in range(items)]
    item_groups = {i: f"g{rng.integers(groups)}" for i in ids if rng.random() > 0.17}
    qrels: Qrels = {}
    run: Run = {}
    train: dict[str, list[str]] = {}
    for u in range(users):
        order = [str(i) for i in rng.permutation(ids)]
        seen, rest = order[:4], order[4:]
        train[f"u{u}"] = seen
        judged = rng.choice(rest, size=int(rng.integers(3, 10)), replace=False)
        qrels[f"u{u}"] = {str(i): int(rng.integers(0, 3)) for i in judged} | {str(judged[0]): 2}
        qrels[f"u{u}"][seen[0]] = 1  # a relevant training item: REO's denominator leaves it out
        ranked = rest[: int(rng.integers(4, 16))]
        run[f"u{u}"] = {i: float(len(ranked) - r) for r, i in enumerate(ranked)}
    return qrels, run, item_groups, train


def _ranked(run: Run, user: str) -> list[str]:
    return sorted(run[user], key=lambda i: -run[user][i])


# ---------------------------------------------------------------------------------------------------------------
# TREC Fair 2022 (wptrec/metrics), transcribed


def wptrec_discount(n: int) -> np.ndarray:
    """common.py:24-30: ranks 1..n in float32, max(rank, 2), 1 / log2."""
    ranks = np.maximum(np.arange(1, n + 1, dtype="f4"), 2)
    return np.reciprocal(np.log2(ranks))


def wptrec_awrf(ranked: list[str], groups: dict[str, str], labels: list[str], target: np.ndarray) -> float:
    """awrf.py:96-127 with one dimension of one-hot alignments: the discounts of the pages with an alignment kept
    (awrf.py:107-113), their alignments summed with the discounts as weights and divided by the weights' sum
    (dimension.py agg_alignments 'mean', 134-149), 1 − jensenshannon² (awrf.py:124-127)."""
    disc = wptrec_discount(len(ranked))
    known = [r for r, page in enumerate(ranked) if page in groups]
    align = np.zeros(len(labels))
    for r in known:
        align[labels.index(groups[ranked[r]])] += disc[r]
    align /= np.sum(disc[known])
    dist = jensenshannon(align, target)
    return float(1 - dist * dist)


def wptrec_ndcg(ranked: list[str], relevant: list[str], target_len: int = 500) -> float:
    """awrf.py:60-77: 1/0 utility, the run's discounted gain over the ideal of min(target_len, |qrels|) pages."""
    util = np.isin(ranked, relevant).astype("f4")
    disc = wptrec_discount(target_len)
    return float(np.sum(util * disc[: len(ranked)]) / np.sum(disc[: min(target_len, len(relevant))]))


def relevant_target(relevant: list[str], groups: dict[str, str], labels: list[str]) -> np.ndarray:
    """Task1Alignment.py:204-205: the relevant pages' alignments summed per topic, normalised to a distribution."""
    counts = np.array([sum(groups.get(page) == label for page in relevant) for label in labels], dtype=float)
    return counts / counts.sum()


@pytest.mark.parametrize("seed", range(6))
def test_awrf_pinned(seed: int) -> None:
    qrels, run, groups, _ = _case(seed)
    labels = sorted(set(groups.values()))
    result = rankwise.evaluate(qrels, run, ["AWRF", "nDCG-AWRF@500", "AWRF(target=uniform)", "AWRF(target=mixed)"],
                               item_groups=groups)  # fmt: skip
    checked = 0
    for user in result.query_ids:
        ranked = _ranked(run, user)
        relevant = [i for i, g in qrels[user].items() if g >= 1]
        got = result.per_query[user]
        if not any(i in groups for i in relevant):
            assert math.isnan(got["AWRF"]) and math.isnan(got["AWRF(target=mixed)"])
            continue
        target = relevant_target(relevant, groups, labels)
        uniform = np.full(len(labels), 1 / len(labels))
        awrf = wptrec_awrf(ranked, groups, labels, target)
        assert close(got["AWRF"], awrf, rel_tol=1e-6)
        assert close(got["nDCG-AWRF@500"], wptrec_ndcg(ranked, relevant) * awrf, rel_tol=1e-6)
        assert close(got["AWRF(target=uniform)"], wptrec_awrf(ranked, groups, labels, uniform), rel_tol=1e-6)
        mixed = wptrec_awrf(ranked, groups, labels, 0.5 * target + 0.5 * uniform)  # Task1Alignment.py:129-132
        assert close(got["AWRF(target=mixed)"], mixed, rel_tol=1e-6)
        checked += 1
    assert checked >= 4


def _wptrec_modules() -> tuple[object, object]:
    pytest.importorskip("xarray", reason="wptrec's metrics need xarray")
    if not WPTREC or not (Path(WPTREC) / "wptrec" / "metrics" / "awrf.py").is_file():
        pytest.skip("RANKWISE_WPTREC (a checkout of github.com/fair-trec/trec2022-fair-public) is not set")
    sys.path.insert(0, WPTREC)
    try:
        from wptrec.dimension import FairDim  # type: ignore[import-not-found]
        from wptrec.metrics import AWRFMetric  # type: ignore[import-not-found]
    finally:
        sys.path.remove(WPTREC)
    return FairDim, AWRFMetric


@pytest.mark.parametrize("seed", range(4))
def test_against_wptrec(seed: int) -> None:
    FairDim, AWRFMetric = _wptrec_modules()
    import pandas as pd
    import xarray as xr

    qrels, run, groups, _ = _case(seed)
    labels = sorted(set(groups.values()))
    onehot = pd.DataFrame(0.0, index=pd.Index(sorted(groups), name="page"), columns=pd.Index(labels, name="dim"))
    for page, label in groups.items():
        onehot.loc[page, label] = 1.0
    onehot.name = "dim"
    dimension = FairDim(onehot, xr.DataArray(onehot.values, coords=[onehot.index, onehot.columns]))  # type: ignore[operator]
    topics = [u for u in qrels if any(g >= 1 and i in groups for i, g in qrels[u].items())]
    targets = [relevant_target([i for i, g in qrels[u].items() if g >= 1], groups, labels) for u in topics]
    qtgts = xr.DataArray(np.array(targets), coords=[pd.Index(topics, name="topic_id"), onehot.columns])
    rows = [(u, i) for u in topics for i, g in qrels[u].items() if g >= 1]
    metric = AWRFMetric(pd.DataFrame(rows, columns=["topic_id", "page_id"]).set_index("topic_id")["page_id"],  # type: ignore[operator]
                        [dimension], qtgts, target_len=500)  # fmt: skip
    result = rankwise.evaluate(qrels, run, ["AWRF", "nDCG-AWRF@500"], item_groups=groups)
    dialect = rankwise.evaluate(qrels, run, ["nDCG", "AWRF", "Score"], item_groups=groups, dialect="trec_fair")
    for user in topics:
        theirs = metric(pd.Series(_ranked(run, user), name=user), name=user)
        assert close(result.per_query[user]["AWRF"], theirs["AWRF"], rel_tol=1e-6)
        assert close(result.per_query[user]["nDCG-AWRF@500"], theirs["Score"], rel_tol=1e-6)
        for name in ("nDCG", "AWRF", "Score"):  # the track's own column names, under its dialect
            assert close(dialect.per_query[user][name], theirs[name], rel_tol=1e-6), name


@pytest.mark.parametrize("seed", range(6))
def test_trec_fair_dialect_pinned(seed: int) -> None:
    """--dialect trec_fair reads the columns AWRFMetric returns (awrf.py:146-150): nDCG (qr_ndcg), AWRF, Score; over
    every query of the qrels; a query without a relevant document has no nDCG (qr_ndcg divides 0 by 0)."""
    qrels, run, groups, _ = _case(seed)
    labels = sorted(set(groups.values()))
    result = rankwise.evaluate(qrels, run, ["nDCG", "AWRF", "Score"], item_groups=groups, dialect="trec_fair")
    assert [str(m) for m in result.measures] == ["nDCG(gain=binary,discount=log2_max2,empty=skip)@500", "AWRF@500",
                                                 "nDCG-AWRF@500"]  # fmt: skip
    assert set(result.query_ids) == set(qrels)
    checked = 0
    for user in result.query_ids:
        ranked = _ranked(run, user) if user in run else []
        relevant = [i for i, g in qrels[user].items() if g >= 1]
        got = result.per_query[user]
        if not relevant:
            assert math.isnan(got["nDCG"])
            continue
        assert close(got["nDCG"], wptrec_ndcg(ranked, relevant), rel_tol=1e-6)
        if any(i in groups for i in relevant) and any(i in groups for i in ranked):
            awrf = wptrec_awrf(ranked, groups, labels, relevant_target(relevant, groups, labels))
            assert close(got["AWRF"], awrf, rel_tol=1e-6)
            assert close(got["Score"], wptrec_ndcg(ranked, relevant) * awrf, rel_tol=1e-6)
            checked += 1
    assert checked >= 4


def test_awrf_by_hand() -> None:
    # a (x, rank 1), b (y, rank 2), n (no group, rank 3), c (x, rank 4); relevant: a, c (both x).
    qrels = {"q": {"a": 1, "c": 1, "b": 0}}
    run = {"q": {"a": 4.0, "b": 3.0, "n": 2.0, "c": 1.0}}
    groups = {"a": "x", "b": "y", "c": "x", "d": "y"}
    got = rankwise.evaluate(qrels, run, ["AWRF", "AWRF@2", "AWRF(target=uniform)", "nDCG-AWRF@4"],
                            item_groups=groups).per_query["q"]  # fmt: skip
    d4 = 1 / math.log2(4)  # rank 3 (n) is skipped: its discount too; ranks 1 and 2 both have d = 1
    share_x, share_y = (1 + d4) / (2 + d4), 1 / (2 + d4)

    def js(p: tuple[float, float], t: tuple[float, float]) -> float:
        m = [(a + b) / 2 for a, b in zip(p, t)]
        return 0.5 * sum(a * math.log(a / c) for a, c in zip(p, m) if a) + 0.5 * sum(
            b * math.log(b / c) for b, c in zip(t, m) if b)  # fmt: skip

    assert close(got["AWRF"], 1 - js((share_x, share_y), (1.0, 0.0)))
    assert close(got["AWRF@2"], 1 - js((0.5, 0.5), (1.0, 0.0)))  # top 2: a (x) and b (y), discount 1 each
    assert close(got["AWRF(target=uniform)"], 1 - js((share_x, share_y), (0.5, 0.5)))
    ndcg = (1 + d4) / (1 + 1)  # hits at ranks 1 and 4; the ideal's two relevant at ranks 1 and 2
    assert close(got["nDCG-AWRF@4"], ndcg * (1 - js((share_x, share_y), (1.0, 0.0))))


def test_awrf_undefined() -> None:
    groups = {"a": "x", "b": "y"}
    result = rankwise.evaluate({"q1": {"a": 1}, "q2": {"n": 1}, "q3": {"a": 0}},
                               {"q1": {"n": 1.0, "m": 0.5}, "q2": {"a": 1.0}, "q3": {"b": 1.0}},
                               ["AWRF", "AWRF(target=uniform)", "nDCG-AWRF"], item_groups=groups)  # fmt: skip
    values = result.per_query
    assert math.isnan(values["q1"]["AWRF"]) and math.isnan(values["q1"]["AWRF(target=uniform)"])  # no grouped item
    assert math.isnan(values["q2"]["AWRF"])  # the relevant document is in no group: no target
    # a (x) alone: a = (1, 0), t = (½, ½), m = (¾, ¼)
    js = 0.5 * math.log(1 / 0.75) + 0.5 * (0.5 * math.log(0.5 / 0.75) + 0.5 * math.log(0.5 / 0.25))
    assert close(values["q2"]["AWRF(target=uniform)"], 1 - js)
    assert math.isnan(values["q3"]["nDCG-AWRF"])  # R = 0
    assert result.undefined["AWRF"] == 3


def test_awrf_needs_item_groups() -> None:
    with pytest.raises(rankwise.MeasureError, match="item_groups"):
        rankwise.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["AWRF"])


# ---------------------------------------------------------------------------------------------------------------
# Elliot (elliot/evaluation/metrics/fairness/ and bias/), transcribed


def elliot_rate(recs: dict[str, list[str]], train: dict[str, set[str]], clusters: list[set[str]], cutoff: int,
                relevant: dict[str, set[str]] | None = None) -> float:  # fmt: skip
    """RSP (relevant=None): rsp.py:93-97 per user, 108-109 over the users, 111 PR, 120 std/mean; REO: reo.py:97-101
    per user with a relevant item (112-114), 116 and 125. PopRSP/PopREO (pop_rsp.py:76-95, pop_reo.py:79-99) are
    the same loops over [short head, long tail]."""
    num, den = np.zeros(len(clusters)), np.zeros(len(clusters))
    for u, ranked in recs.items():
        if relevant is not None and not relevant[u]:
            continue
        user_rel = relevant[u] if relevant is not None else None
        recommended = {i for i in ranked[:cutoff] if user_rel is None or i in user_rel}
        for c, i_set in enumerate(clusters):
            num[c] += len(recommended & i_set)
            den[c] += len((i_set if user_rel is None else i_set & user_rel) - train[u])
    with np.errstate(divide="ignore", invalid="ignore"):
        pr = num / den
        return float(np.std(pr) / np.mean(pr))


def elliot_popularity(train: dict[str, list[str]], ratio: float = 0.8) -> list[set[str]]:
    """popularity.py:25-53: users per item (repeats once), sorted by it descending (a stable sort: ties in the order
    the items are listed, here by id, the order rankwise documents), the short head taken until the running total
    reaches ratio · transactions (the item that crosses included), the rest the long tail."""
    pairs = {(u, i) for u, items in train.items() for i in items}
    pop: dict[str, int] = {}
    for _, i in sorted(pairs, key=lambda p: (p[1], p[0])):
        pop[i] = pop.get(i, 0) + 1
    ordered = dict(sorted(pop.items(), key=lambda kv: kv[1], reverse=True))
    limit, head = len(pairs) * ratio, []
    for i, p in ordered.items():
        head.append(i)
        limit -= p
        if limit <= 0:
            break
    return [set(head), {i for i in ordered if i not in head}]


@pytest.mark.parametrize("seed", range(8))
def test_rates_pinned(seed: int) -> None:
    qrels, run, groups, train = _case(seed, users=10)
    labels = sorted(set(groups.values()))
    clusters = [{i for i, g in groups.items() if g == label} for label in labels]
    recs = {u: _ranked(run, u) for u in run}
    seen = {u: set(items) for u, items in train.items()}
    relevant = {u: {i for i, g in qrels[u].items() if g >= 1} for u in qrels}
    popular = elliot_popularity(train)
    measures = ["RSP@5", "REO@5", "RSP(groups=popularity)@3", "REO(groups=popularity)@10"]
    got = rankwise.evaluate(qrels, run, measures, item_groups=groups, train=train).aggregate
    assert close(got["RSP@5"], elliot_rate(recs, seen, clusters, 5), rel_tol=1e-12)
    assert close(got["REO@5"], elliot_rate(recs, seen, clusters, 5, relevant), rel_tol=1e-12)
    expected_pop = elliot_rate(recs, seen, popular, 3)
    assert close(got["RSP(groups=popularity)@3"], expected_pop if math.isfinite(expected_pop) else math.nan)
    expected_pop = elliot_rate(recs, seen, popular, 10, relevant)
    assert close(got["REO(groups=popularity)@10"], expected_pop if math.isfinite(expected_pop) else math.nan)


def test_rates_by_hand() -> None:
    # groups 0 = {a, d}, 1 = {b, c, e}; u1 trained on a, b, b2; u2 on a, c; u3 on a, b (u3 has no ratings).
    train = {"u1": ["a", "b", "b2"], "u2": ["a", "c"], "u3": ["a", "b"]}
    qrels = {"u1": {"c": 5, "d": 4}, "u2": {"b": 5, "e": 3}}
    run = {"u1": {"c": 3.0, "d": 2.0, "e": 1.0}, "u2": {"b": 3.0, "d": 2.0, "e": 1.0},
           "u3": {"c": 3.0, "e": 2.0, "d": 1.0}}  # fmt: skip
    groups = {"a": "0", "b": "1", "c": "1", "d": "0", "e": "1"}
    measures = ["RSP@2", "REO@2", "PopRSP@2", "PopREO@2"]
    got = rankwise.evaluate(qrels, run, measures, dialect="elliot", train=train, item_groups=groups).aggregate
    # RSP over every user with a list (rsp.py:108-109): top 2 of u1 {c, d}, u2 {b, d}, u3 {c, e}:
    # N = (1 + 1 + 0, 1 + 1 + 2) = (2, 4); D = (|{d}| + |{d}| + |{d}|, |{c, e}| + |{b, e}| + |{c, e}|) = (3, 6)
    assert got["RSP@2"] == 0.0  # PR = (2/3, 4/6)
    plain = rankwise.evaluate(qrels, run, ["RSP@2"], item_groups=groups, train=train).aggregate["RSP@2"]
    assert close(plain, np.std([2 / 2, 2 / 4]) / np.mean([2 / 2, 2 / 4]))  # u1 and u2 only: 0.25 / 0.75
    # REO (Elliot: every rated item relevant; u3 has none): u1 N = (d, c) = (1, 1), D = (1, 1); u2 N = (0, b) = (0, 1),
    # D = (0, |{b, e}|) = (0, 2)
    assert close(got["REO@2"], np.std([1 / 1, 2 / 3]) / np.mean([1 / 1, 2 / 3]))
    # training users per item: a 3, b 2, b2 1, c 1 of 7 pairs; head until 0.8 · 7 = 5.6: a, b, then b2 (ties by
    # id) crosses: head {a, b, b2}, tail {c}; d and e are in neither.
    # PopRSP: N_head = 0 + b + 0 = 1, N_tail = c + 0 + c = 2; D_head = 0 + |{b, b2}| + |{b2}| = 3,
    # D_tail = |{c}| + 0 + |{c}| = 2
    assert close(got["PopRSP@2"], np.std([1 / 3, 2 / 2]) / np.mean([1 / 3, 2 / 2]))  # (1/3) / (2/3)
    # PopREO: N_head = (0 + b) = 1, N_tail = (c + 0) = 1; D_head = (0 + |{b}|) = 1, D_tail = (|{c}| + 0) = 1
    assert got["PopREO@2"] == 0.0


def test_rate_of_an_empty_group_is_undefined() -> None:
    groups = {"a": "x", "b": "y"}
    result = rankwise.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5}}, ["REO", "RSP"], item_groups=groups)
    assert math.isnan(result.aggregate["REO"])  # no relevant item of y: D_y = 0
    assert result.aggregate["RSP"] == 0.0  # both groups' one item recommended: PR = (1, 1)
    assert any("2 item groups" in line for line in result.notes())


def test_popularity_needs_train() -> None:
    with pytest.raises(rankwise.MeasureError, match="train"):
        rankwise.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["PopRSP"], dialect="elliot")
