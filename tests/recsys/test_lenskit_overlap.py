"""LensKit 2025.8's reranking metrics against ``rankwise.evaluate`` on the same lists, run through LensKit's own code
(skipped where lenskit is not installed; .ci/run installs it --no-deps):

- ``rank_biased_overlap(reference, reranked, GeometricRankWeight(p), n)`` (src/lenskit/metrics/reranking/_rbo.py:15-58)
  is ``RBO(p=p)@n`` with the reference lists given as ``baseline=``;
- ``least_item_promoted(reference, reranked, n)`` (_lip.py:14-49) is ``LIP@n``.

The lists have equal scores (the run ordered by the tie policy, the reference by score with equal scores in input
order), lists of one or two items, lists shorter than n, and users without a reference list (LensKit's empty
reference: RBO 0, LIP NaN); per user and aggregated, and under ``--dialect lenskit``'s names. A hand-worked example
pins both formulas without LensKit."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import rankwise
from conftest import close


@pytest.fixture(scope="module")
def lenskit() -> None:
    pytest.importorskip("lenskit", reason="lenskit is not installed (.ci/run installs it --no-deps)")


def _case(seed: int) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(recs: 25 users with lists of 1 to 9 of 30 items; baseline: 20 of them with lists of 1 to 25, the rest with
    none; truth: one item per user). Scores are small integers, so equal scores are common in both."""
    rng = np.random.default_rng(seed)

    def lists(users: range, low: int, high: int) -> pl.DataFrame:
        rows = [(f"u{u}", f"i{int(item):02d}", float(rng.integers(0, 4))) for u in users
                for item in rng.choice(30, size=int(rng.integers(low, high)), replace=False)]  # fmt: skip
        return pl.DataFrame(rows, schema=["user_id", "item_id", "score"], orient="row")

    recs, baseline = lists(range(25), 1, 10), lists(range(20), 1, 26)
    truth = recs.group_by("user_id").first().select("user_id", "item_id", pl.lit(1).alias("rating"))
    return recs, baseline, truth


def _ordered(frame: pl.DataFrame, ties: str) -> dict[str, list[str]]:
    """Each user's items by score descending, equal scores in input order or by item id descending (docno_desc)."""
    out: dict[str, list[str]] = {}
    for user, item, score in frame.iter_rows():
        out.setdefault(user, []).append((item, score))  # type: ignore[arg-type]
    for user, rows in out.items():
        if ties == "docno_desc":
            rows.sort(key=lambda row: row[0], reverse=True)  # type: ignore[index]
        rows.sort(key=lambda row: -row[1])  # type: ignore[index]  # stable: ties keep the order above
        out[user] = [item for item, _ in rows]  # type: ignore[misc]
    return out


def _theirs(recs: pl.DataFrame, baseline: pl.DataFrame, ties: str, k: int, p: float) -> dict[str, tuple[float, float]]:
    """(rank_biased_overlap, least_item_promoted) of LensKit per user of the run."""
    from lenskit.data import ItemList
    from lenskit.metrics import GeometricRankWeight
    from lenskit.metrics.reranking import least_item_promoted, rank_biased_overlap

    def item_list(items: list[str]) -> ItemList:
        return ItemList(item_ids=np.array(items, dtype=object), ordered=True)

    references = _ordered(baseline, "input_order")
    out = {}
    for user, items in _ordered(recs, ties).items():
        reference, reranked = item_list(references.get(user, [])), item_list(items)
        out[user] = (rank_biased_overlap(reference, reranked, GeometricRankWeight(p), n=k),
                     least_item_promoted(reference, reranked, n=k))  # fmt: skip
    return out


def _same(ours: float, theirs: float) -> bool:
    return (math.isnan(ours) and math.isnan(theirs)) or close(ours, theirs, rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.parametrize(
    ("seed", "k", "p", "ties"),
    [(0, 5, 0.85, "input_order"), (1, 3, 0.5, "docno_desc"), (2, 12, 0.9, "input_order"), (3, 2, 0.3, "docno_desc")],
)
def test_rbo_and_lip_are_lenskits(lenskit: None, seed: int, k: int, p: float, ties: str) -> None:
    recs, baseline, truth = _case(seed)
    rbo, lip = f"RBO(p={p})@{k}", f"LIP@{k}"
    result = rankwise.evaluate(truth, recs, [rbo, lip], baseline=baseline, queries="run", ties=ties)
    theirs = _theirs(recs, baseline, ties, k, p)
    assert set(result.per_query) == set(theirs)
    bad = [(u, values, theirs[u]) for u, values in result.per_query.items()
           if not (_same(values[rbo], theirs[u][0]) and _same(values[lip], theirs[u][1]))]  # fmt: skip
    assert not bad, bad[:5]
    assert close(result.aggregate[rbo], float(np.mean([v for v, _ in theirs.values()])), rel_tol=1e-12)
    defined = [v for _, v in theirs.values() if not math.isnan(v)]
    assert close(result.aggregate[lip], float(np.mean(defined)), rel_tol=1e-12, abs_tol=1e-15)
    assert len(defined) == 20  # five users have no reference list
    assert any(0 < v < 1 for v, _ in theirs.values()), "no partial overlap to check"
    if k < 10:
        assert any(v > 0 for v in defined), "no item promoted: the case checks nothing of LIP's arithmetic"


def test_lenskit_dialect_reads_its_names(lenskit: None) -> None:
    """LensKit's names and defaults: n = 10 and GeometricRankWeight(0.85) unless given (the dialect keeps rankwise's
    tie policy, docno_desc: LensKit takes each list in the order given)."""
    recs, baseline, truth = _case(4)
    names = ["rank_biased_overlap", "RBO(n=4)", "least_item_promoted", "LIP(3)"]
    result = rankwise.evaluate(truth, recs, names, baseline=baseline, dialect="lenskit")
    default, four, three = (_theirs(recs, baseline, "docno_desc", k, 0.85) for k in (10, 4, 3))
    for user, values in result.per_query.items():
        assert _same(values["rank_biased_overlap"], default[user][0]), user
        assert _same(values["RBO(n=4)"], four[user][0]), user
        assert _same(values["least_item_promoted"], default[user][1]), user
        assert _same(values["LIP(3)"], three[user][1]), user


HAND_RUN = {"u1": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}, "u2": {"a": 1.0}}
HAND_BASELINE = {"u1": {"c": 6.0, "a": 5.0, "e": 4.0, "f": 3.0, "g": 2.0, "b": 1.0}}
HAND_TRUTH = {"u1": {"a": 1}, "u2": {"a": 1}}


def test_rbo_and_lip_by_hand() -> None:
    """L = a b c d, B = c a e f g b, p = 0.5, k = 3: A_1 = |{a} ∩ {c}| / 1 = 0, A_2 = |{a,b} ∩ {c,a}| / 2 = 1/2,
    A_3 = |{a,b,c} ∩ {c,a,e}| / 3 = 2/3; weights 1, 1/2, 1/4: Σ w_d A_d = 1/4 + 1/6 = 5/12, Σ w_d = 7/4, so
    RBO = (5/12) / (7/4) = 5/21, and with normalise=series (1 − 1/2) · 5/12 = 5/24. LIP: b is at position 6 of B,
    a at 2, c at 1; LIP@2 = max(0, 6 − 1 − 2) = 3, LIP@3 = 6 − 1 − 3 = 2, LIP@5 = 0 (b at 6 = k + 1 counts 0), LIP@1
    = max(0, 2 − 1 − 1) = 0. u2 has no reference list: RBO 0, LIP undefined."""
    measures = ["RBO(p=0.5)@3", "RBO(p=0.5,normalise=series)@3", "LIP@2", "LIP@3", "LIP@5", "LIP@1"]
    result = rankwise.evaluate(HAND_TRUTH, HAND_RUN, measures, baseline=HAND_BASELINE)
    u1, u2 = result.per_query["u1"], result.per_query["u2"]
    expected = {"RBO(p=0.5)@3": 5 / 21, "RBO(p=0.5,normalise=series)@3": 5 / 24, "LIP@2": 3.0, "LIP@3": 2.0,
                "LIP@5": 0.0, "LIP@1": 0.0}  # fmt: skip
    for key, value in expected.items():
        assert close(u1[key], value, rel_tol=1e-12, abs_tol=0), (key, u1[key], value)
    assert u2["RBO(p=0.5)@3"] == 0.0 and all(math.isnan(u2[key]) for key in ("LIP@2", "LIP@3", "LIP@5", "LIP@1"))
    assert close(result.aggregate["RBO(p=0.5)@3"], 5 / 42, rel_tol=1e-12)
    assert result.aggregate["LIP@2"] == 3.0  # u2 left out of the mean


def test_rbo_of_equal_lists_is_one_and_of_disjoint_lists_zero() -> None:
    run = {"u1": {"a": 3.0, "b": 2.0, "c": 1.0}, "u2": {"x": 2.0, "y": 1.0}}
    baseline = {"u1": {"a": 3.0, "b": 2.0, "c": 1.0}, "u2": {"p": 2.0, "q": 1.0}}
    result = rankwise.evaluate({"u1": {"a": 1}, "u2": {"x": 1}}, run, ["RBO@3", "RBO(p=0.2)@2"], baseline=baseline)
    for key in ("RBO@3", "RBO(p=0.2)@2"):
        assert close(result.per_query["u1"][key], 1.0, rel_tol=1e-12) and result.per_query["u2"][key] == 0.0


@pytest.mark.parametrize(
    ("measure", "message"),
    [("RBO@5", "pass baseline="), ("LIP@5", "pass baseline="), ("RBO(p=1,normalise=series)@5", "give p < 1")],
)
def test_refusals(measure: str, message: str) -> None:
    baseline = HAND_BASELINE if "series" in measure else None
    with pytest.raises(rankwise.RankwiseError, match=message):
        rankwise.evaluate(HAND_TRUTH, HAND_RUN, [measure], baseline=baseline)
    with pytest.raises(rankwise.RankwiseError, match="needs a cutoff"):
        rankwise.evaluate(HAND_TRUTH, HAND_RUN, [measure.split("@")[0]], baseline=HAND_BASELINE)


def test_query_ranges_equal_the_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each query range reads its own users' reference lists: the partitioned evaluation equals the whole."""
    from rankwise.pipeline import partitioned

    recs, baseline, truth = _case(5)
    measures = ["RBO@5", "RBO(p=0.6,normalise=series)@8", "LIP@3"]
    whole = rankwise.evaluate(truth, recs, measures, baseline=baseline, queries="run")
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 17)
    parts = rankwise.evaluate(truth, recs, measures, baseline=baseline, queries="run")
    assert np.allclose(parts.values, whole.values, equal_nan=True, rtol=0, atol=1e-12)
    for key, value in whole.aggregate.items():
        assert close(parts.aggregate[key], value, rel_tol=1e-12), key
