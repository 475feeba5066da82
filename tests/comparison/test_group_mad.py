"""The mean absolute difference between groups (MAD) of the group table (:func:`rankwise.group_table`,
:func:`rankwise.comparison.groups.mean_absolute_difference`): a worked example computed by hand, Elliot's own loop
(sisinflab/elliot fc27efe, elliot/evaluation/metrics/fairness/MAD/UserMADranking.py:122-135, transcribed) on the
per-user values, and the MAD in the terminal, JSON and CSV renderings of the table."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

import rankwise
from rankwise.comparison.groups import group_table, mean_absolute_difference
from rankwise.comparison.report.groups import format_group_text, group_csv, group_json

RUN = {q: {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0} for q in ("q1", "q2", "q3", "q4", "q5", "q6")}
QRELS = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"d": 1}, "q4": {"b": 1}, "q5": {"a": 1}, "q6": {"z": 0}}
LABELS = {"q1": "A", "q2": "A", "q3": "B", "q4": "C", "q6": "D"}  # q5 in no group
MEASURES = ["RR", "RR(empty=skip)"]


def _table() -> tuple[rankwise.EvaluationResult, rankwise.GroupTable]:
    result = rankwise.evaluate(QRELS, RUN, MEASURES, groups=LABELS)
    return result, group_table(result)


def test_mad_by_hand() -> None:
    """RR per query: q1 1 (a at rank 1), q2 1/2, q3 1/4, q4 1/2, q6 0 (no relevant document; undefined with
    empty=skip). Group means: A (q1, q2) 3/4, B 1/4, C 1/2, D 0.

    RR: |3/4 − 1/4| + |3/4 − 1/2| + |3/4 − 0| + |1/4 − 1/2| + |1/4 − 0| + |1/2 − 0| = 1/2 + 1/4 + 3/4 + 1/4 + 1/4
    + 1/2 = 5/2 over 6 pairs: MAD = 5/12 (the difference max − min is 3/4). RR(empty=skip): D has no mean and is
    left out: (1/2 + 1/4 + 1/4) / 3 = 1/3."""
    _, table = _table()
    assert table.labels == ("A", "B", "C", "D")
    assert math.isclose(table.gap("RR").mad, 5 / 12, rel_tol=1e-12)
    assert math.isclose(table.gap("RR").difference, 3 / 4, rel_tol=1e-12)
    assert math.isclose(table.gap("RR(empty=skip)").mad, 1 / 3, rel_tol=1e-12)
    assert table.row("D", "RR(empty=skip)").n == 0


@pytest.mark.parametrize(
    ("means", "expected"),
    [
        ([0.1, 0.4, 0.2, 0.9], (0.3 + 0.1 + 0.8 + 0.2 + 0.5 + 0.7) / 6),  # every pair once
        ([0.25, 0.75], 0.5),  # two groups: the difference
        ([0.5], math.nan),  # one group: no pair (Elliot: np.average([]) is NaN)
        ([], math.nan),
    ],
)
def test_mean_absolute_difference(means: list[float], expected: float) -> None:
    value = mean_absolute_difference(np.array(means))
    assert (math.isnan(value) and math.isnan(expected)) or math.isclose(value, expected, rel_tol=1e-12)


def _elliot_mad(values: dict[str, float], clusters: dict[str, int], n_clusters: int) -> float:
    """Elliot's UserMADranking.eval (UserMADranking.py:122-135) on per-user values, transcribed: sums and counts
    per cluster, each cluster's average, then np.average of |avg[i] − avg[j]| over every i < j."""
    total, users = np.zeros(n_clusters), np.zeros(n_clusters)
    for user, value in values.items():
        cluster = clusters.get(user)
        if cluster is not None:
            total[cluster] += value
            users[cluster] += 1
    avg = [total[i] / users[i] for i in range(n_clusters)]
    differences = [abs(avg[i] - avg[j]) for i in range(n_clusters) for j in range(i + 1, n_clusters)]
    return float(np.average(differences))


@pytest.mark.parametrize("n_clusters", [2, 3, 5])
def test_mad_is_elliots_loop_on_the_per_user_values(n_clusters: int) -> None:
    rng = np.random.default_rng(n_clusters)
    qrels = {f"u{u}": {f"i{i}": int(rng.random() < 0.3) for i in range(12)} for u in range(40)}
    run = {u: {i: float(rng.random()) for i in judged} for u, judged in qrels.items()}
    clusters = {u: int(rng.integers(0, n_clusters)) for u in list(qrels)[:35]}  # five users in no cluster
    assert set(clusters.values()) == set(range(n_clusters))
    result = rankwise.evaluate(qrels, run, ["nDCG@5"], groups={u: f"c{c}" for u, c in clusters.items()},
                               dialect="elliot")  # fmt: skip
    values = {u: v["nDCG@5"] for u, v in result.per_query.items()}  # the users with a relevant item, as Elliot
    ours = group_table(result).gap("nDCG@5").mad
    assert math.isclose(ours, _elliot_mad(values, clusters, n_clusters), rel_tol=1e-12)
    assert ours > 0


def test_mad_in_every_rendering() -> None:
    result, table = _table()
    text = format_group_text(table)
    header = next(line for line in text.splitlines() if line.startswith("measure "))
    assert header.split()[-1] == "MAD"
    rr = next(line.split() for line in text.splitlines() if line.startswith("RR "))
    assert float(rr[-1]) == pytest.approx(5 / 12, abs=5e-5)
    gaps = json.loads(group_json(json.dumps({}), result, table))["groups"]["gaps"]
    assert [g["mad"] for g in gaps] == [table.gap(key).mad for key in MEASURES]
    rows = [r for r in csv.DictReader(io.StringIO(group_csv(result, table, False))) if r["kind"] == "mad"]
    assert [(r["measure"], float(r["value"]), r["group"]) for r in rows] == [
        (key, table.gap(key).mad, "") for key in MEASURES]  # fmt: skip
    assert table.to_polars("gaps").get_column("mad").to_list() == [table.gap(key).mad for key in MEASURES]
