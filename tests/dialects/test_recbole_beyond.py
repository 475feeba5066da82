"""RecBole 1.2.1's beyond-accuracy metrics, run by RecBole itself, equal rankwise's under ``dialect="recbole"``.

RecBole (recbole/evaluator/metrics.py) → rankwise: ItemCoverage → Coverage, AveragePopularity → ARP, GiniIndex →
Gini, ShannonEntropy → Entropy, TailPercentage → LongTail. RecBole runs in the reference environment
(tests/reference_env/recbole_beyond.py, ``RANKWISE_REFERENCE_PYTHON``; skipped without it): its own Dataset loads the
interactions, its Collector takes ``data.num_items`` and ``data.count_items`` from the training split and
``rec.items`` from ``torch.topk``, its Evaluator and metric classes compute the values.

What RecBole's inputs mean, and what rankwise is given for them:

- ``data.num_items`` is ``dataset.num(item_id)``: every item of the dataset (all splits) **plus the [PAD] item 0**
  (collector.py:85-87), which ItemCoverage divides by and GiniIndex spreads over (never recommended: a count of 0).
  rankwise is given ``catalog=`` that number; without it rankwise's catalogue is the training items.
- ``data.count_items`` is ``dataset.item_counter``: a Counter of the training rows' item ids (dataset.py:1424-1431,
  collector.py:91-92), a repeated (user, item) row counting each time (RecBole keeps repeats: ``rm_dup_inter`` is
  unset by default). The dialect binds ARP and LongTail to ``repeats=each``.
- ``rec.items`` holds internal item ids, numbered by ``pd.factorize`` in the atomic file's order (dataset.py:1197-1205):
  TailPercentage with ``tail_ratio`` ≤ 1 orders equal counts by that id (metrics.py:737-742), so rankwise is given the
  lists and training items under those ids (its ties are by id). Every list holds max(topk) items (a dense
  ``users × max(topk)`` tensor): a cutoff beyond a list's length cannot occur in RecBole; rankwise's lists here are
  longer than max(topk) for some users and are cut at k.
- The users are RecBole's test users (with a test interaction); rankwise also gets a user with a list and nothing
  relevant, whom the dialect's ``queries=relevant`` leaves out as RecBole never sees it.
- ``Collector.get_data_struct`` fails in 1.2.1 with ItemCoverage or GiniIndex (``.cpu()`` of the int
  ``data.num_items``, collector.py:227, RecBole issue #2131): the script takes the struct without that call.

Cases: 40 seeded random datasets (repeated training rows in every other one, items only in test rows, equal counts,
every ``tail_ratio`` branch: unset, ≤ 1, = 1, > 1) and ML-100K (tests/recsys_lists.py's global time split with its
EASE and popularity lists, and 20 random unseen items per user, which reach the long tail).

Tolerance: RecBole computes in float64 numpy (counts are integers until a division); rankwise in float64 with
another order of the same operations (Gini: one division by n·Σc instead of two; ShannonEntropy sums up to ~1,700
terms p·ln p, the means ~100 users, each in another order), so the values agree to rounding only: relative 1e-13
against each metric class's own value before rounding (``raw``; the largest difference seen is 4.2e-15, ML-100K),
and 1e-15 absolute more against ``Evaluator.evaluate``, which rounds to ``metric_decimal_place`` = 15 places.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import polars as pl
import pytest
from test_dialects_libraries import reference

import rankwise
from conftest import close
from recsys_lists import ML100K, lists, skip_without_data

RANDOM_CASES = 40
RAW_TOL = 1e-13
NAMES = {"Coverage": "itemcoverage", "ARP": "averagepopularity", "Gini": "giniindex", "Entropy": "shannonentropy",
         "LongTail": "tailpercentage"}  # fmt: skip
PER_USER = ("ARP", "LongTail")


def random_case(seed: int) -> dict:
    """A small dataset in a random file order: skewed popularity (equal counts), repeated (user, item) rows in
    every other case, items only in test rows (no training interactions), a random recommender's lists."""
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(6, 30))
    items = [str(i) for i in rng.choice(1000, n_items, replace=False)]
    weights = 1.0 / np.arange(1, n_items + 1)
    cold = set(rng.choice(items, int(rng.integers(1, 3)), replace=False).tolist())
    inter = []
    for user in range(int(rng.integers(3, 14))):
        size = min(n_items, int(rng.integers(2, 9)))
        picked = rng.choice(n_items, size, replace=bool(seed % 2), p=weights / weights.sum())
        inter += [(f"u{user}", items[j]) for j in picked]
    inter += [(f"u{rng.integers(0, 3)}", item) for item in sorted(cold)]
    inter += [(f"u{rng.integers(0, 3)}", item) for item in items if item not in {i for _, i in inter}]
    inter = [inter[j] for j in rng.permutation(len(inter))]
    test_rows = rng.random(len(inter)) < 0.3
    test_rows |= np.array([item in cold for _, item in inter])
    users = sorted({user for (user, _), test in zip(inter, test_rows) if test})
    depth = int(rng.integers(1, min(8, n_items) + 1))
    topk = sorted({depth, *rng.integers(1, depth + 1, 2).tolist()})
    ranked = [[str(i) for i in rng.choice(items, min(n_items, depth + int(rng.integers(0, 3))), replace=False)]
              for _ in users]  # fmt: skip
    return {
        "topk": topk,
        "tail_ratio": [None, 0.1, 0.25, 0.5, 1.0, 1, 2, 3][seed % 8],
        "inter": [list(pair) for pair in inter],
        "train": np.flatnonzero(~test_rows).tolist(),
        "users": users,
        "ranked": ranked,
        "lists": [row[:depth] for row in ranked],
    }


@functools.cache
def random_outputs() -> tuple[list[dict], list[dict]]:
    cases = [random_case(seed) for seed in range(RANDOM_CASES)]
    return cases, reference("recbole_beyond.py", [{k: v for k, v in c.items() if k != "ranked"} for c in cases])


def measures(case: dict) -> dict[str, str]:
    """{rankwise measure: RecBole key} for every metric and k of the case."""
    ratio = case["tail_ratio"]
    tail = "LongTail" if ratio is None else f"LongTail(tail_ratio={ratio})"  # None: the dialect's 0.1, RecBole's too
    names = {**{name: name for name in NAMES if name != "LongTail"}, tail: "LongTail"}
    return {f"{ours}@{k}": f"{NAMES[name]}@{k}" for k in case["topk"] for ours, name in names.items()}


def rankwise_result(case: dict, out: dict, wanted: list[str], internal: bool = True) -> rankwise.EvaluationResult:
    """rankwise on the case under RecBole's internal item ids (``internal=False``: the tokens), test rows as the
    truth (grade 1), an extra user with a list and nothing relevant, ``catalog=`` RecBole's ``data.num_items``."""
    code = {token: str(j) if internal else token for j, token in enumerate(out["id_tokens"])}
    inter = case["inter"]
    train = {row for row in case["train"]}
    train_rows = [inter[j] for j in sorted(train)]
    truth = sorted({(user, code[item], 1) for j, (user, item) in enumerate(inter) if j not in train})
    run = [(user, code[item], rank) for user, row in zip(case["users"], case["ranked"]) for rank, item in
           enumerate(row, 1)]  # fmt: skip
    run += [("nothing_relevant", code[item], rank) for rank, item in enumerate(case["ranked"][0], 1)]
    truth.append(("nothing_relevant", code[case["ranked"][0][0]], 0))
    return rankwise.evaluate(
        pl.DataFrame(truth, schema=["user_id", "item_id", "rating"], orient="row"),
        pl.DataFrame(run, schema=["user_id", "item_id", "rank"], orient="row"),
        wanted,
        dialect="recbole",
        train=pl.DataFrame({"user_id": [u for u, _ in train_rows], "item_id": [code[i] for _, i in train_rows]}),
        catalog=out["num_items"],
    )


def differences(case: dict, out: dict, result: rankwise.EvaluationResult) -> list[tuple]:
    """(measure, user or 'mean' / 'evaluator', rankwise, RecBole) for every value that differs."""
    diff: list[tuple] = []
    for ours, theirs in measures(case).items():
        mine = result.aggregate[ours]
        if not close(mine, out["raw"][theirs], rel_tol=RAW_TOL, abs_tol=0.0):
            diff.append((ours, "mean", mine, out["raw"][theirs]))
        if not close(mine, out["mean"][theirs], rel_tol=RAW_TOL, abs_tol=1e-15):
            diff.append((ours, "evaluator", mine, out["mean"][theirs]))
        if ours.split("(")[0].split("@")[0] in PER_USER:
            per_user = {user: values[ours] for user, values in result.per_query.items() if not math.isnan(values[ours])}
            expected = dict(zip(case["users"], out["per_user"][theirs]))
            if set(per_user) != set(expected):
                diff.append((ours, "users", sorted(per_user), sorted(expected)))
            diff += [(ours, u, per_user.get(u), v) for u, v in expected.items()
                     if not close(per_user.get(u), v, rel_tol=RAW_TOL, abs_tol=0.0)]  # fmt: skip
    return diff


@pytest.mark.parametrize("seed", range(RANDOM_CASES))
def test_random_cases(seed: int) -> None:
    cases, outputs = random_outputs()
    case, out = cases[seed], outputs[seed]
    result = rankwise_result(case, out, list(measures(case)))
    diff = differences(case, out, result)
    assert not diff, f"{len(diff)} differences (measure, user, rankwise, RecBole), e.g. {diff[:4]}"


def test_random_cases_cover_what_they_claim() -> None:
    """The random cases hold repeated training rows, items without training rows, equal training counts and lists
    longer than max(topk) (cut at k)."""
    cases, outputs = random_outputs()
    repeated = sum(len({tuple(case["inter"][j]) for j in case["train"]}) < len(case["train"]) for case in cases)
    cold = sum(bool({i for row in case["lists"] for i in row} - {case["inter"][j][1] for j in case["train"]})
               for case in cases)  # fmt: skip
    longer = sum(any(len(r) > max(case["topk"]) for r in case["ranked"]) for case in cases)
    assert min(repeated, cold, longer) >= RANDOM_CASES // 4, (repeated, cold, longer)
    assert all(out["id_tokens"][0] == "[PAD]" and out["num_items"] == len(out["id_tokens"]) for out in outputs)


def test_pad_counts_in_item_coverage_and_gini() -> None:
    """RecBole's num_items is the dataset's items + [PAD]: rankwise with catalog = the items alone is off by that one
    item (Coverage by n/(n+1)), and equal with catalog = num_items."""
    cases, outputs = random_outputs()
    case, out = cases[0], outputs[0]
    k = max(case["topk"])
    wanted = [f"Coverage@{k}", f"Gini@{k}"]
    with_pad = rankwise_result(case, out, wanted).aggregate
    without = rankwise_result(case, {**out, "num_items": out["num_items"] - 1}, wanted).aggregate
    assert close(with_pad[f"Coverage@{k}"], out["raw"][f"itemcoverage@{k}"], rel_tol=RAW_TOL)
    n = out["num_items"] - 1
    assert close(without[f"Coverage@{k}"] * n / (n + 1), out["raw"][f"itemcoverage@{k}"], rel_tol=RAW_TOL)
    assert not close(without[f"Gini@{k}"], out["raw"][f"giniindex@{k}"], rel_tol=RAW_TOL)


# ----------------------------------------------------------------------------------------------- ML-100K
def ml100k_case(model: str, tail_ratio: float | None) -> dict:
    """The shared ML-100K lists (tests/recsys_lists.py: global time split, top 20) as a RecBole case: the dataset is
    ml-100k.inter in its own row order (RecBole's factorize order), the training split its train rows, the users
    those with a test row."""
    data = lists("ease" if model == "random" else model)
    raw = pl.read_csv(ML100K, separator="\t")
    raw = raw.select(pl.col(raw.columns[0]).cast(pl.String).alias("user_id"),
                     pl.col(raw.columns[1]).cast(pl.String).alias("item_id"))  # fmt: skip
    train = set(data.train.select("user_id", "item_id").iter_rows())
    inter = [list(pair) for pair in raw.iter_rows()]
    recs = data.recs.sort("user_id", "rank")
    users = recs.get_column("user_id").unique(maintain_order=True).to_list()
    ranked = recs.group_by("user_id", maintain_order=True).agg("item_id").get_column("item_id").to_list()
    if model == "random":  # 20 random unseen training items per user: the long tail is recommended
        rng = np.random.default_rng(0)
        items = np.array(sorted(data.train.get_column("item_id").unique().to_list()))
        seen = {u: set(i) for u, i in data.train.group_by("user_id").agg("item_id").iter_rows()}
        ranked = [rng.choice([i for i in items if i not in seen[u]], len(row), replace=False).tolist()
                  for u, row in zip(users, ranked)]  # fmt: skip
    return {"topk": [5, 10, 20], "tail_ratio": tail_ratio, "inter": inter,
            "train": [j for j, (u, i) in enumerate(inter) if (u, i) in train], "users": users, "ranked": ranked,
            "lists": ranked}  # fmt: skip


@functools.cache
def ml100k_output(model: str, tail_ratio: float | None) -> tuple[dict, dict]:
    """(the case, RecBole's output on it)."""
    skip_without_data()
    case = ml100k_case(model, tail_ratio)
    (out,) = reference("recbole_beyond.py", [{k: v for k, v in case.items() if k != "ranked"}])
    return case, out


@pytest.mark.parametrize(("model", "tail_ratio"), [("popularity", None), ("ease", None), ("random", None),
                                                   ("random", 0.5), ("random", 3)])
def test_ml100k(model: str, tail_ratio: float | None) -> None:
    case, out = ml100k_output(model, tail_ratio)
    result = rankwise_result(case, out, list(measures(case)))
    diff = differences(case, out, result)
    assert not diff, f"{len(diff)} differences (measure, user, rankwise, RecBole), e.g. {diff[:4]}"


def test_ml100k_tail_ties_follow_recbole_ids() -> None:
    """TailPercentage with tail_ratio <= 1 cuts the training items sorted by (count, internal id): ML-100K's items
    are numbered in ml-100k.inter's row order, not by their ids, so rankwise given the ids themselves cuts equal
    counts elsewhere (the dialect's caveat); a count threshold (tail_ratio > 1) has no ties to order."""
    case, out = ml100k_output("random", None)
    tokens = rankwise_result(case, out, ["LongTail@10", "LongTail(tail_ratio=3)@10"], internal=False).aggregate
    assert out["id_tokens"][1:] != sorted(out["id_tokens"][1:], key=int)
    assert not close(tokens["LongTail@10"], out["raw"]["tailpercentage@10"], rel_tol=1e-3)
    _, out_3 = ml100k_output("random", 3)
    assert close(tokens["LongTail(tail_ratio=3)@10"], out_3["raw"]["tailpercentage@10"], rel_tol=RAW_TOL)
