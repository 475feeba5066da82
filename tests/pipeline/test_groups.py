"""User (query) groups: ``rankwise.evaluate(..., groups=...)`` and :func:`rankwise.group_table` — each group's mean,
the differences and ratios between groups, checked against fairlearn's ``MetricFrame`` (the reference for splitting
a metric by group) and scipy's intervals; every source form (mapping, tables, FILE:COLUMN, RecBole ``.user``,
activity from training interactions); what does not match is a note, counted; MovieLens-100K's user attributes from
RecBole's installed package (skipped when absent)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

import rankwise
from rankwise import InputError
from rankwise.comparison.groups import GroupTable, group_table

MEASURES = ["nDCG@10", "AP", "P@5", "RR"]


def _data(n: int = 60, seed: int = 3) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.random() < 0.3) + int(rng.random() < 0.1) for d in range(15)}
             for q in range(n)}  # fmt: skip
    run = {q: {d: float(rng.random()) for d in judged} for q, judged in qrels.items()}
    return qrels, run


QRELS, RUN = _data()
LABELS = {q: ("young", "middle", "old")[i % 3] if i % 7 else "old" for i, q in enumerate(QRELS)}


def _metric_frame(result: rankwise.EvaluationResult, key: str, labels: dict[str, str]):  # type: ignore[no-untyped-def]
    """fairlearn's MetricFrame of the mean over the queries with a group and a defined value of ``key``."""
    fairlearn = pytest.importorskip("fairlearn.metrics")
    values = np.array([result.per_query[q][key] for q in result.query_ids])
    groups = np.array([labels.get(q) for q in result.query_ids], dtype=object)
    keep = ~np.isnan(values) & np.array([g is not None for g in groups])
    return fairlearn.MetricFrame(metrics=lambda y_true, y_pred: float(np.mean(y_true)), y_true=values[keep],
                                 y_pred=values[keep], sensitive_features=groups[keep].astype(str))  # fmt: skip


def _check_against_fairlearn(result: rankwise.EvaluationResult, table: GroupTable, labels: dict[str, str]) -> None:
    for key in table.keys:
        frame = _metric_frame(result, key, labels)
        by_group = frame.by_group
        for label in table.labels:  # a group with no defined value is no row of the MetricFrame
            if label in by_group.index:
                assert table.row(label, key).mean == pytest.approx(by_group[label], rel=1e-12, abs=1e-15)
            else:
                assert table.row(label, key).n == 0
        gap = table.gap(key)
        assert gap.difference == pytest.approx(frame.difference(method="between_groups"), rel=1e-12, abs=1e-15)
        assert gap.ratio == pytest.approx(frame.ratio(method="between_groups"), rel=1e-12)
        assert gap.to_overall_difference == pytest.approx(frame.difference(method="to_overall"), rel=1e-12)
        assert gap.to_overall_ratio == pytest.approx(frame.ratio(method="to_overall"), rel=1e-12)
        assert gap.overall == pytest.approx(frame.overall, rel=1e-12)
        assert by_group[gap.highest] == by_group.max() and by_group[gap.lowest] == by_group.min()


def test_group_means_differences_and_ratios_are_fairlearns() -> None:
    result = rankwise.evaluate(QRELS, RUN, MEASURES, groups=LABELS)
    table = group_table(result, interval="t")
    assert set(table.keys) == set(MEASURES) and table.labels == ("middle", "old", "young")
    _check_against_fairlearn(result, table, LABELS)
    # every evaluated query in exactly one group, the sizes adding up to them
    assert sum(table.sizes.values()) == len(result.query_ids) == len(QRELS)
    assert table.sizes == {label: sum(v == label for v in LABELS.values()) for label in table.labels}
    # the overall mean is the result's aggregate when every query has a group
    for key in table.keys:
        assert table.gap(key).overall == pytest.approx(result.aggregate[key], rel=1e-12)


def test_group_intervals_are_scipys_over_the_groups_queries() -> None:
    result = rankwise.evaluate(QRELS, RUN, ["nDCG@10"], groups=LABELS)
    by_t = group_table(result, interval="t", confidence=0.9)
    by_percentile = group_table(result, interval="percentile", resamples=999, seed=7)
    for label in by_t.labels:
        x = np.array([result.per_query[q]["nDCG@10"] for q in result.query_ids if LABELS[q] == label])
        low, high = stats.t.interval(0.9, x.size - 1, loc=x.mean(), scale=stats.sem(x))
        row = by_t.row(label, "nDCG@10")
        assert (row.low, row.high) == pytest.approx((low, high), rel=1e-9)
        boot = stats.bootstrap((x,), np.mean, n_resamples=999, method="percentile", rng=np.random.default_rng(7))
        row = by_percentile.row(label, "nDCG@10")
        assert (row.low, row.high) == pytest.approx((boot.confidence_interval.low, boot.confidence_interval.high),
                                                    rel=1e-9)  # fmt: skip


def test_unknown_ids_queries_in_no_group_and_empty_groups_are_named_and_counted() -> None:
    labels = {q: label for q, label in list(LABELS.items())[:50]}  # 10 queries in no group
    labels |= {"stranger1": "young", "stranger2": "nobody-evaluated"}  # two unknown ids, one group left empty
    result = rankwise.evaluate(QRELS, RUN, ["AP"], groups=labels)
    notes = result.notes()
    unknown = [n for n in notes if "no evaluated query (not labelled)" in n]
    assert len(unknown) == 1 and "2 ids are" in unknown[0] and "stranger1" in unknown[0]
    outside = [n for n in notes if "in no group" in n]
    assert len(outside) == 1 and "10 evaluated queries" in outside[0] and "q50" in outside[0]
    empty = [n for n in notes if "no evaluated query:" in n]
    assert len(empty) == 1 and "nobody-evaluated" in empty[0]
    groups = result.groups
    assert groups is not None and groups.sizes["nobody-evaluated"] == 0
    assert sum(groups.sizes.values()) + 10 == len(result.query_ids)
    table = group_table(result, interval="t")
    # the empty group has a row (n = 0, mean undefined) but takes no part in the gap; the queries without a group
    # are left out of the split and kept in the overall aggregate
    assert table.row("nobody-evaluated", "AP").n == 0 and np.isnan(table.row("nobody-evaluated", "AP").mean)
    _check_against_fairlearn(result, table, {q: v for q, v in labels.items() if v != "nobody-evaluated"})
    assert result.aggregate["AP"] == rankwise.evaluate(QRELS, RUN, ["AP"]).aggregate["AP"]


def test_every_source_form_gives_the_same_groups(tmp_path: Path) -> None:
    ids, labels = list(LABELS), list(LABELS.values())
    expected = rankwise.evaluate(QRELS, RUN, ["RR"], groups=LABELS).groups
    assert expected is not None
    frame = pl.DataFrame({"user_id": ids, "cohort": labels, "other": [1] * len(ids)})
    (tmp_path / "u.csv").write_text("qid,cohort\n" + "".join(f"{q},{g}\n" for q, g in LABELS.items()))
    (tmp_path / "ml.user").write_text("user_id:token\tcohort:token\tzip:token\n"
                                      + "".join(f"{q}\t{g}\t0\n" for q, g in LABELS.items()))  # fmt: skip
    frame.write_parquet(tmp_path / "u.parquet")
    sources = [frame.select("user_id", "cohort"), frame.to_pandas()[["user_id", "cohort"]], (frame, "cohort"),
               f"{tmp_path / 'u.csv'}:cohort", str(tmp_path / "u.csv"), f"{tmp_path / 'ml.user'}:cohort",
               (tmp_path / "u.parquet", "cohort")]  # fmt: skip
    for source in sources:
        groups = rankwise.evaluate(QRELS, RUN, ["RR"], groups=source).groups
        assert groups is not None and groups.label_of() == expected.label_of(), source
        assert groups.sizes == expected.sizes


def test_activity_groups_from_training_interactions() -> None:
    rng = np.random.default_rng(11)
    counts = {q: int(rng.integers(0, 40)) for q in list(QRELS)[:55]}  # five users never seen in training
    train = {q: [f"t{i}" for i in range(n)] for q, n in counts.items() if n}
    result = rankwise.evaluate(QRELS, RUN, ["AP"], train=train, groups="activity:thresholds=5,20")
    assert result.groups is not None and result.groups.labels == ("cold", "regular", "heavy")
    for q, label in result.groups.label_of().items():
        n = counts.get(q, 0)
        assert label == ("cold" if n < 5 else "regular" if n < 20 else "heavy"), (q, n)
    assert any("5 evaluated users have no training interaction" in n for n in result.notes())
    by_quantile = rankwise.evaluate(QRELS, RUN, ["AP"], train=train, groups="activity")
    n = np.array([counts.get(q, 0) for q in by_quantile.query_ids])
    low, high = np.quantile(n, [1 / 3, 2 / 3])
    assert by_quantile.groups is not None
    assert by_quantile.groups.sizes == {"cold": int((n < low).sum()), "regular": int(((n >= low) & (n < high)).sum()),
                                        "heavy": int((n >= high).sum())}  # fmt: skip
    assert any(f"cold < {low:g} <= regular < {high:g} <= heavy" in note for note in by_quantile.notes())
    _check_against_fairlearn(by_quantile, group_table(by_quantile, interval="t"),
                             {q: g for q, g in by_quantile.groups.label_of().items() if g})  # fmt: skip


@pytest.mark.parametrize(
    ("groups", "train", "message"),
    [
        ("activity", None, "counts each user's training interactions"),
        ("activity:thresholds=9,3", {"q1": ["a"]}, "two increasing numbers"),
        ("activity:quantiles=0.2,1.5", {"q1": ["a"]}, "strictly between 0 and 1"),
        ("activity:deciles=3", {"q1": ["a"]}, "write activity"),
        ("no/such/file.tsv:age", None, "no such file"),
        (pl.DataFrame({"user_id": ["q1", "q1"], "g": ["a", "b"]}), None, "'q1' has more than one label"),
        ((pl.DataFrame({"user_id": ["q1"], "g": ["a"]}), "age"), None, "no column 'age'"),
        (pl.DataFrame({"user_id": ["q1"], "g": ["a"], "h": ["b"]}), None, "name the label column"),
        (42, None, "cannot read int"),
    ],
)
def test_bad_groups_are_one_line_errors(groups: object, train: object, message: str) -> None:
    with pytest.raises(InputError, match=message) as info:
        rankwise.evaluate(QRELS, RUN, ["AP"], groups=groups, train=train)
    assert "\n" not in str(info.value)


def test_groups_are_a_post_step_streamed_runs_and_with_groups_agree(tmp_path: Path) -> None:
    run_file = tmp_path / "run.txt"
    run_file.write_text("".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, docs in RUN.items() for d, s in docs.items()))
    in_memory = rankwise.evaluate(QRELS, str(run_file), ["nDCG@10"], groups=LABELS, stream=False)
    streamed = rankwise.evaluate(QRELS, str(run_file), ["nDCG@10"], groups=LABELS, stream=True)
    later = rankwise.evaluate(QRELS, str(run_file), ["nDCG@10"]).with_groups(LABELS)
    tables = [group_table(r, interval="t") for r in (in_memory, streamed, later)]
    assert tables[0].rows == tables[1].rows == tables[2].rows
    assert in_memory.with_groups(None) is in_memory


def test_measures_that_are_no_mean_are_named_not_split() -> None:
    result = rankwise.evaluate(QRELS, RUN, ["AP", "GMAP", "num_rel"], groups=LABELS)
    table = group_table(result, interval="t")
    assert table.keys == ("AP",) and table.notes and "GMAP" in table.notes[0] and "num_rel" in table.notes[0]
    with pytest.raises(rankwise.RankwiseError, match="no groups"):
        group_table(rankwise.evaluate(QRELS, RUN, ["AP"]))


def _recbole_ml100k() -> Path:
    """RecBole's ``dataset_example/ml-100k`` from the installed package (this environment's, or the reference
    environment's at ``RANKWISE_REFERENCE_PYTHON``); pytest.skip() when neither has it."""
    spec = importlib.util.find_spec("recbole")
    locations = list(spec.submodule_search_locations or []) if spec else []
    python = os.environ.get("RANKWISE_REFERENCE_PYTHON")
    if not locations and python and Path(python).exists():
        code = (
            "import importlib.util as u; s = u.find_spec('recbole'); print(s.submodule_search_locations[0] if s "
            "else '')"
        )
        found = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60).stdout.strip()
        locations = [found] if found else []
    folder = next((Path(p) / "dataset_example" / "ml-100k" for p in locations
                   if (Path(p) / "dataset_example" / "ml-100k" / "ml-100k.user").exists()), None)  # fmt: skip
    if folder is None:
        pytest.skip("RecBole's dataset_example/ml-100k is not installed (RANKWISE_REFERENCE_PYTHON names its env)")
    return folder


def test_movielens_100k_user_attributes_from_recbole() -> None:
    folder = _recbole_ml100k()
    import recsys_lists

    recsys_lists.skip_without_data()
    lists = recsys_lists.lists("popularity")
    users = pl.read_csv(folder / "ml-100k.user", separator="\t", infer_schema=False)
    for attribute in ("gender", "occupation"):
        result = rankwise.evaluate(lists.truth, lists.recs, ["nDCG@10", "Recall@10"], threshold=recsys_lists.THRESHOLD,
                                   groups=f"{folder / 'ml-100k.user'}:{attribute}")  # fmt: skip
        labels = dict(zip(users.get_column("user_id:token").to_list(), users.get_column(f"{attribute}:token")))
        table = group_table(result, interval="t")
        assert set(table.labels) == set(labels.values()) - {None}
        assert sum(table.sizes.values()) == len(result.query_ids)  # every evaluated user has the attribute
        unknown = users.height - len(result.query_ids)
        assert [n for n in result.notes() if f"{unknown} ids are no evaluated query" in n]
        _check_against_fairlearn(result, table, labels)
