"""The beyond-accuracy measures of ``rankwise.evaluate`` (Coverage, Gini, Entropy, Novelty, SelfInformation, ARP):
by hand; equal to :mod:`rankwise.recsys.beyond` under every dialect that defines them and to the libraries
themselves (RePlay, rs_metrics, MS Recommenders, RecTools, LensKit: skipped where they are not installed), per
user where the library has per-user values, on random lists and on the ML-100K lists; the same in query ranges
as whole (the aggregates of global measures concatenate across ranges); clear errors for missing inputs."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_recsys_beyond import CASES, RECS, TRAIN, _case, ms  # noqa: F401  (ms: a fixture)

import rankwise
from conftest import close, run_cli
from rankwise.engine.training import TrainingIndex
from rankwise.pipeline import partitioned
from rankwise.recsys import beyond

BEYOND = ["Coverage", "Gini", "Entropy", "Novelty", "SelfInformation", "ARP"]


def _evaluate(truth: pl.DataFrame, recs: pl.DataFrame, measures: list[str], **options: object
              ) -> rankwise.EvaluationResult:  # fmt: skip
    if "dialect" not in options:
        options["queries"] = "run"  # every user with a list (the dialects that define these measures say so)
    if "rating" not in truth.columns:  # the truth: relevant test interactions
        truth = truth.with_columns(pl.lit(1).alias("rating"))
    return rankwise.evaluate(truth, recs, measures, **options)  # type: ignore[arg-type]


def _per_user(result: rankwise.EvaluationResult, key: str) -> dict[str, float]:
    return {user: values[key] for user, values in result.per_query.items()}


def _same(ours: dict[str, float], theirs: dict, tol: float = 1e-9) -> None:
    assert ours.keys() == {str(u) for u in theirs}, "different users"
    bad = [(u, ours[str(u)], v) for u, v in theirs.items() if not close(ours[str(u)], v, rel_tol=tol, abs_tol=tol)]
    assert not bad, bad[:5]


def _same_as_beyond(result: rankwise.EvaluationResult, key: str, reference: beyond.BeyondResult) -> None:
    assert close(result.aggregate[key], reference.value), (key, result.aggregate[key], reference.value)
    if reference.per_user is not None:
        _same(_per_user(result, key), dict(reference.per_user.iter_rows()))


# ---------------------------------------------------------------------------------------------------------------
# By hand: train u1 {a, b}, u2 {a, c}, u3 {a, b, d} (users per item a 3, b 2, c 1, d 1; 3 users, 7 pairs);
# lists u1 [c, d, e], u2 [b, d], u3 [c]; truth: one item per user (only which users are evaluated).
TRUTH = pl.DataFrame({"user_id": ["u1", "u2", "u3"], "item_id": ["c", "x", "y"]})


def test_by_hand() -> None:
    result = _evaluate(TRUTH, RECS, [*BEYOND, "Coverage(over=train,count=known)", "Coverage(over=count)",
                                     "SelfInformation(mean=rows)", "ARP(share=yes)"], train=TRAIN)  # fmt: skip
    value = result.aggregate
    assert value["Coverage"] == 4 / 4  # {b, c, d, e} ÷ the 4 training items
    assert value["Coverage(over=train,count=known)"] == 3 / 4  # e is not a training item
    assert value["Coverage(over=count)"] == 4
    by_number = _evaluate(TRUTH, RECS, ["Coverage(count=known)", "Coverage"], catalog=10).aggregate
    assert by_number["Coverage(count=known)"] == by_number["Coverage"] == 4 / 10  # a number holds every item
    assert _evaluate(TRUTH, RECS, ["Coverage(count=known)"], catalog=list("abcdxyz")).aggregate[
        "Coverage(count=known)"] == 3 / 7  # b, c, d of the 7; e is not in the catalogue  # fmt: skip
    # counts b 1, c 2, d 2, e 1 over a catalogue of 4 (the training items' number), sorted 1, 1, 2, 2
    assert close(value["Gini"], (-3 * 1 - 1 * 1 + 1 * 2 + 3 * 2) / (4 * 6))
    for measure in ("Gini", "Coverage"):
        with pytest.raises(rankwise.RankwiseError, match="lists hold 4 distinct items, more than the catalogue's 3"):
            _evaluate(TRUTH, RECS, [measure], catalog=3)
    sorted_counts = np.array([0, 1, 1, 2, 2])  # catalogue of 5: a (never recommended), b, e, c, d
    gini = ((2 * np.arange(1, 6) - 5 - 1) * sorted_counts).sum() / (5 * 6)
    assert close(_evaluate(TRUTH, RECS, ["Gini"], catalog=5).aggregate["Gini"], gini)
    p = np.array([1, 2, 2, 1]) / 6
    assert close(value["Entropy"], float(-(p * np.log2(p)).sum()))
    assert _per_user(result, "Novelty") == {"u1": 1.0, "u2": 1.0, "u3": 1.0}  # no list holds a seen item
    more = pl.concat([RECS, pl.DataFrame({"user_id": ["u3", "u2"], "item_id": ["d", "a"], "score": [0.5, 0.5]})])
    novelty = _per_user(_evaluate(TRUTH, more, ["Novelty", "Novelty@2"], train=TRAIN), "Novelty")
    assert novelty == pytest.approx({"u1": 1.0, "u2": 1 - 1 / 3, "u3": 0.5})  # u3 had d, u2 had a in training
    info = {"a": 0.0, "b": math.log2(3 / 2), "c": math.log2(3), "d": math.log2(3), "e": math.log2(3)}  # e: 1 user
    assert _per_user(result, "SelfInformation") == pytest.approx(
        {"u1": (info["c"] + info["d"] + info["e"]) / 3, "u2": (info["b"] + info["d"]) / 2, "u3": info["c"]})
    assert close(value["SelfInformation(mean=rows)"], sum(info[i] for i in "cdebdc") / 6)
    assert _per_user(result, "ARP") == pytest.approx({"u1": (1 + 1 + 0) / 3, "u2": (2 + 1) / 2, "u3": 1.0})
    assert close(value["ARP(share=yes)"], np.mean([2 / 3 / 7, 3 / 2 / 7, 1 / 7]))
    assert not [line for line in result.notes() if "undefined" in line]  # a global measure has no per-query value


def test_missing_inputs_are_named() -> None:
    for measure in ("Novelty", "SelfInformation@2", "ARP", "Coverage(over=train)"):
        with pytest.raises(rankwise.RankwiseError, match=r"needs the training interactions: pass train="):
            _evaluate(TRUTH, RECS, [measure])
    with pytest.raises(rankwise.RankwiseError, match=r"needs the catalogue: pass catalog="):
        _evaluate(TRUTH, RECS, ["Gini"])
    with pytest.raises(rankwise.InputError, match="give train= too"):  # Elliot's AUC still needs train=
        _evaluate(TRUTH, RECS, ["AUC", "Gini"], dialect="elliot", catalog=10)


def test_cli(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from rankwise.cli import main

    truth, recs, train = tmp_path / "truth.csv", tmp_path / "recs.csv", tmp_path / "train.csv"
    TRUTH.with_columns(pl.lit(1).alias("rating")).write_csv(truth)
    RECS.write_csv(recs)
    TRAIN.write_csv(train)
    out = CliRunner().invoke(main, ["evaluate", str(truth), str(recs), "-m", "Coverage", "-m", "Novelty@3",
                                    "--dialect", "replay", "--train", str(train), "--format", "csv"])  # fmt: skip
    assert out.exit_code == 0, out.output
    assert "0.75" in out.output  # RePlay's Coverage: 3 of the 4 training items
    for measure in [*BEYOND, "SelfInformation(mean=rows)@5"]:
        explained = CliRunner().invoke(main, ["explain", measure, "--dialect", "ms_recommenders"])
        assert explained.exit_code == 0 and "Aggregate: " in explained.output, explained.output
    bad = CliRunner().invoke(main, ["evaluate", str(truth), str(recs), "-m", "Novelty@3"])
    assert bad.exit_code == 2 and "needs the training interactions" in bad.output
    assert "Traceback" not in bad.output and len(bad.output.strip().splitlines()) == 1


# ---------------------------------------------------------------------------------------------------------------
# Every dialect that defines a measure: rankwise.evaluate = rankwise.recsys.beyond (itself proven against the
# libraries in test_recsys_beyond.py), on random lists and ML-100K


@pytest.mark.parametrize("case", CASES)
def test_equals_beyond_under_every_dialect(case: str) -> None:
    train, recs, truth, n_items = _case(case)
    k = 10
    catalogue = sorted(set(train.get_column("item_id")) | set(recs.get_column("item_id")))
    for dialect, measures in {
        "replay": {"Coverage": lambda: beyond.coverage(recs, k=k, train=train, dialect="replay"),
                   "Novelty": lambda: beyond.unseen_share(recs, k=k, train=train),
                   "SelfInformation": lambda: beyond.self_information(recs, k=k, train=train, dialect="replay")},
        "ms_recommenders": {
            "Coverage": lambda: beyond.coverage(recs, k=k, train=train, dialect="ms_recommenders"),
            "Entropy": lambda: beyond.shannon_entropy(recs, k=k, dialect="ms_recommenders"),
            "SelfInformation": lambda: beyond.self_information(recs, k=k, train=train, dialect="ms_recommenders")},
        "rs_metrics": {"Coverage": lambda: beyond.coverage(recs, k=k, catalog=catalogue, dialect="rs_metrics"),
                       "ARP": lambda: beyond.average_popularity(recs, k=k, train=train, dialect="rs_metrics"),
                       "SelfInformation": lambda: beyond.self_information(recs, k=k, train=train,
                                                                          dialect="rs_metrics")},
        "rectools": {"SelfInformation": lambda: beyond.self_information(recs, k=k, train=train, dialect="rectools"),
                     "ARP": lambda: beyond.average_popularity(recs, k=k, train=train, dialect="rectools")},
        "elliot": {"Coverage": lambda: beyond.coverage(recs, k=k, dialect="elliot"),
                   "ARP": lambda: beyond.average_popularity(recs, k=k, train=train, dialect="elliot"),
                   "LongTail": lambda: beyond.long_tail(recs, k=k, train=train, dialect="elliot")},
        "lenskit": {"Gini": lambda: beyond.gini_index(recs, k=k, catalog=len(catalogue))},
    }.items():  # fmt: skip
        catalog = catalogue if dialect == "rs_metrics" else len(catalogue) if dialect == "lenskit" else None
        result = _evaluate(truth, recs, [f"{name}@{k}" for name in measures], dialect=dialect, train=train,
                           catalog=catalog)  # fmt: skip
        for name, reference in measures.items():
            _same_as_beyond(result, f"{name}@{k}", reference())
    # RecBole: its lists are its test users' (users with a relevant item), so the query set is the dialect's own
    full = recs.filter(pl.len().over("user_id") >= 3)
    result = _evaluate(truth, full, ["Entropy@3", "Gini@3", "Coverage@3", "LongTail@3"], dialect="recbole",
                       catalog=n_items + 1, train=train)  # fmt: skip
    users = truth.get_column("user_id").unique().implode()
    evaluated = full.filter(pl.col("user_id").is_in(users))
    assert close(result.aggregate["Entropy@3"], beyond.shannon_entropy(evaluated, k=3, dialect="recbole").value)
    assert close(result.aggregate["Gini@3"], beyond.gini_index(evaluated, k=3, catalog=n_items + 1).value)
    assert close(result.aggregate["Coverage@3"],
                 beyond.coverage(evaluated, k=3, catalog=n_items + 1, dialect="recbole").value)  # fmt: skip
    _same_as_beyond(result, "LongTail@3", beyond.long_tail(evaluated, k=3, train=train, dialect="recbole"))
    # the other long-tail variants, named explicitly: ACLT, an absolute tail cut, another head share
    variants = {"LongTail(count=yes)@5": {"count": True}, "LongTail(tail_ratio=2)@5": {"tail_ratio": 2.0},
                "LongTail(head_share=0.5)@5": {"head_share": 0.5}}
    result = _evaluate(truth, recs, list(variants), train=train)
    for key, options in variants.items():
        _same_as_beyond(result, key, beyond.long_tail(recs, k=5, train=train, **options))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------------------
# The libraries themselves


@pytest.mark.parametrize("case", CASES)
def test_replay(case: str) -> None:
    metrics = pytest.importorskip("replay.metrics", reason="replay-rec is not installed (.ci/run installs it)")
    train, recs, truth, _ = _case(case)
    k = 5
    scored = recs.select(pl.col("user_id").alias("query_id"), "item_id",
                         (-pl.col("rank")).cast(pl.Float64).alias("rating"))  # fmt: skip
    replay_train = train.rename({"user_id": "query_id"})
    per_user = metrics.PerUser()
    ours = _evaluate(truth, recs, [f"Coverage@{k}", f"Novelty@{k}", f"SelfInformation@{k}"], dialect="replay",
                     train=train)  # fmt: skip
    assert close(ours.aggregate[f"Coverage@{k}"], metrics.Coverage(k)(scored, replay_train)[f"Coverage@{k}"])
    novelty = metrics.Novelty(k, mode=per_user)(scored, replay_train)[f"Novelty-PerUser@{k}"]
    listed = set(recs.get_column("user_id"))
    _same(_per_user(ours, f"Novelty@{k}"), {u: v for u, v in novelty.items() if str(u) in listed})
    _same(_per_user(ours, f"SelfInformation@{k}"),
          metrics.Surprisal(k, mode=per_user)(scored, replay_train)[f"Surprisal-PerUser@{k}"])  # fmt: skip
    assert close(ours.aggregate[f"SelfInformation@{k}"],
                 metrics.Surprisal(k)(scored, replay_train)[f"Surprisal@{k}"])  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_rs_metrics(case: str) -> None:
    rs_metrics = pytest.importorskip("rs_metrics", reason="rs_metrics is not installed (pip install '.[test]')")
    train, recs, truth, _ = _case(case)
    k = 10
    catalogue = sorted(set(train.get_column("item_id")) | set(recs.get_column("item_id")))
    pred, log = recs.sort("user_id", "rank").to_pandas(), train.to_pandas()
    ours = _evaluate(truth, recs, [f"Coverage@{k}", f"ARP@{k}", f"SelfInformation@{k}"], dialect="rs_metrics",
                     train=train, catalog=catalogue).aggregate  # fmt: skip
    assert close(ours[f"Coverage@{k}"], rs_metrics.coverage(catalogue, pred, k=k))
    assert close(ours[f"ARP@{k}"], rs_metrics.popularity(log, pred, k=k))
    assert close(ours[f"SelfInformation@{k}"], rs_metrics.surprisal(log, pred, k=k))


@pytest.mark.parametrize("case", CASES)
def test_ms_recommenders(case: str, ms: object) -> None:  # noqa: F811  (the fixture)
    train, recs, truth, _ = _case(case)
    k = 6
    train_pd = train.to_pandas()
    reco_pd = recs.filter(pl.col("rank") <= k).select("user_id", "item_id").to_pandas()
    names = {"col_user": "user_id", "col_item": "item_id"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        catalog = ms.catalog_coverage(train_pd, reco_pd, **names)  # type: ignore[attr-defined]
        distributional = ms.distributional_coverage(train_pd, reco_pd, **names)  # type: ignore[attr-defined]
        novelty = ms.novelty(train_pd, reco_pd, **names)  # type: ignore[attr-defined]
    ours = _evaluate(truth, recs, [f"Coverage@{k}", f"Entropy@{k}", f"SelfInformation@{k}"],
                     dialect="ms_recommenders", train=train).aggregate  # fmt: skip
    assert close(ours[f"Coverage@{k}"], catalog)
    assert close(ours[f"Entropy@{k}"], distributional)
    assert close(ours[f"SelfInformation@{k}"], novelty)


@pytest.mark.parametrize("case", CASES)
def test_rectools(case: str) -> None:
    metrics = pytest.importorskip("rectools.metrics", reason="rectools is not installed (.ci/run installs it)")
    train, recs, truth, _ = _case(case)
    k = 7
    reco, prev = recs.to_pandas(), train.to_pandas()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        miuf = metrics.MeanInvUserFreq(k=k).calc_per_user(reco, prev)
        arp = metrics.AvgRecPopularity(k=k).calc_per_user(reco, prev)
    ours = _evaluate(truth, recs, [f"SelfInformation@{k}", f"ARP@{k}"], dialect="rectools", train=train)
    _same(_per_user(ours, f"SelfInformation@{k}"), miuf.to_dict())
    _same(_per_user(ours, f"ARP@{k}"), arp.to_dict())


@pytest.mark.parametrize("case", CASES)
def test_lenskit_gini(case: str) -> None:
    pytest.importorskip("lenskit", reason="lenskit is not installed (.ci/run installs it --no-deps)")
    from lenskit.data import ItemList
    from lenskit.metrics import ListGini

    _train, recs, truth, n_items = _case(case)
    k, catalogue = 10, n_items + 5
    metric = ListGini(k, items=catalogue)
    values = [metric.compute_list_data(ItemList(item_ids=group.sort("rank").get_column("item_id").to_list(),
                                                ordered=True), None)
              for _, group in recs.group_by("user_id", maintain_order=True)]  # fmt: skip
    ours = _evaluate(truth, recs, [f"Gini@{k}"], dialect="lenskit", catalog=catalogue)
    assert close(ours.aggregate[f"Gini@{k}"], metric.global_aggregate(values))


# ---------------------------------------------------------------------------------------------------------------
# Query ranges: the same numbers as the whole


@pytest.mark.parametrize("case", ["random0", "ease"])
def test_query_ranges_equal_the_whole(case: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    train, recs, truth, n_items = _case(case)
    measures = [*BEYOND, "Coverage(over=train,count=known)@5", "Gini@5", "Entropy(log=ln,divide=items)@5",
                "SelfInformation(mean=rows)@5", "Novelty@5", "ARP(share=yes)@5", "nDCG@5", "LongTail@5",
                "LongTail(tail_ratio=0.1)@5", "ILD@5", "Serendipity@5", "Serendipity(definition=popularity_rank)@5",
                "Unexpectedness@5"]  # fmt: skip
    catalog = sorted(set(train.get_column("item_id")) | set(recs.get_column("item_id")))
    baseline = recs.with_columns(pl.col("item_id").shift(1).over("user_id").fill_null("0")).unique(
        ["user_id", "item_id"], keep="first", maintain_order=True)  # fmt: skip
    whole = _evaluate(truth, recs, measures, train=train, catalog=catalog, baseline=baseline)
    run = tmp_path / "run.txt"
    ranked = recs.select("user_id", pl.lit("Q0").alias("q0"), "item_id", "rank",
                         (-pl.col("rank")).cast(pl.Float64).alias("score"), pl.lit("r").alias("tag"))  # fmt: skip
    ranked.write_csv(run, separator=" ", include_header=False)
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 37)
    for parts in (_evaluate(truth, recs, measures, train=train, catalog=catalog, baseline=baseline),
                  _evaluate(truth, str(run), measures, train=train, catalog=catalog, baseline=baseline,
                            stream=True)):  # fmt: skip
        assert parts.query_ids == whole.query_ids
        assert np.allclose(parts.values, whole.values, equal_nan=True, rtol=0, atol=1e-12)
        for key, value in whole.aggregate.items():
            assert close(parts.aggregate[key], value, rel_tol=1e-12), key
    assert n_items > 0


@pytest.mark.parametrize("partitions", [1, 3])
def test_spark_chunks_equal_the_local_engine(spark: object, partitions: int) -> None:
    from spark_checks import on_both_engines, spark_frame

    train, recs, truth, _ = _case("random1")
    run = recs.select("user_id", "item_id", (-pl.col("rank")).cast(pl.Float64).alias("score"))
    qrels = truth.with_columns(pl.lit(1).alias("rating"))
    measures = ["Coverage", "Gini", "Entropy", "Novelty", "Coverage(over=count)@5", "Gini@5",
                "Entropy(log=ln,divide=items)@5", "Novelty@5"]  # fmt: skip
    on_both_engines(spark, qrels, run, measures, partitions, train=train, queries="run")  # type: ignore[arg-type]
    on_both_engines(spark, qrels, run, ["Coverage@3", "Entropy@3", "Novelty@3"], partitions, train=train,
          dialect="recbole")  # type: ignore[arg-type]
    import rankwise.spark

    for measure in ("SelfInformation@5", "ARP", "Coverage(over=train)", "Coverage(count=known)"):
        with pytest.raises(rankwise.MeasureError, match="each Spark task sees only its users' training"):
            rankwise.spark.evaluate(spark_frame(spark, qrels), spark_frame(spark, run), [measure],
                                    train=spark_frame(spark, train))


def test_a_dialect_grouping_a_global_measure_apart_names_what_it_needs() -> None:
    """Under RePlay, Coverage is over the training items and sits in a query group of its own, leaving the main
    group empty: with only catalog=, the error names the missing training interactions (it named the catalogue rule
    of measures that were not asked for)."""
    qrels, run = {"u": {"a": 1}}, {"u": {"a": 1.0, "b": 0.5}}
    assert rankwise.evaluate(qrels, run, ["Coverage@10"], catalog=10).aggregate["Coverage@10"] == 0.2
    with pytest.raises(rankwise.RankwiseError, match=r"needs the training interactions: pass train="):
        rankwise.evaluate(qrels, run, ["Coverage@10"], catalog=10, dialect="replay")


# ---------------------------------------------------------------------------------------------------------------
# The training index against sets of pairs: repeated pairs, integer or text ids, users without a list


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 12)), min_size=1, max_size=120),
       as_text=st.booleans())  # fmt: skip
def test_training_index_equals_sets(pairs: list[tuple[int, int]], as_text: bool) -> None:
    users, items = zip(*pairs)
    frame = pl.DataFrame({"query_id": list(users), "doc_id": list(items)})
    if as_text:
        frame = frame.select(pl.all().cast(pl.String))
    index = TrainingIndex.of(frame)
    distinct = set(pairs)
    assert index.users.to_list() == sorted({str(u) for u in users})  # text order: "10" before "9"
    assert index.num_pairs == len(distinct)
    item_text = index.items.to_list()
    assert sorted(item_text) == sorted({str(i) for i in items})
    assert {item_text[i]: n for i, n in enumerate(index.item_users)} == \
        {str(i): sum(1 for _, j in distinct if j == i) for i in set(items)}  # fmt: skip
    for code, user in enumerate(index.users.to_list()):
        mine = index.user_items[index.offsets[code] : index.offsets[code + 1]]
        assert list(mine) == sorted(mine) and {item_text[i] for i in mine} == {str(i) for u, i in distinct
                                                                                  if str(u) == user}  # fmt: skip
    asked = [str(u) for u in range(-2, 34)] + ["x"]
    expected = [index.users.to_list().index(q) if q in index.users.to_list() else -1 for q in asked]
    assert index.user_codes(asked).tolist() == expected


def test_item_codes_are_found_once_per_doc_series() -> None:
    """Every query range and measure of an evaluation reads the same doc ids: their training codes are found once per
    (series, index), kept read-only, and found anew for another index or another series."""
    index = TrainingIndex.of(pl.DataFrame({"query_id": ["u1", "u1", "u2"], "doc_id": ["a", "b", "c"]}))
    docs = pl.Series("doc_id", ["c", "z", "a"])
    codes = index.item_codes(docs)
    assert [index.items[int(c)] if c >= 0 else None for c in codes] == ["c", None, "a"]
    assert index.item_codes(docs) is codes and not codes.flags.writeable
    other = TrainingIndex.of(pl.DataFrame({"query_id": ["u1"], "doc_id": ["z"]}))
    assert other.item_codes(docs).tolist() == [-1, 0, -1]
    assert index.item_codes(pl.Series("doc_id", ["b"])).tolist() == [index.items.to_list().index("b")]


@settings(max_examples=30, deadline=None)
@given(train=st.lists(st.tuples(st.integers(0, 8), st.integers(0, 15)), min_size=1, max_size=80),
       recs=st.lists(st.tuples(st.integers(0, 10), st.integers(0, 20)), min_size=1, max_size=60, unique=True),
       integer_train=st.booleans())  # fmt: skip
def test_novelty_and_popularity_equal_sets(train: list[tuple[int, int]], recs: list[tuple[int, int]],
                                           integer_train: bool) -> None:  # fmt: skip
    """Novelty and ARP from the index equal set arithmetic, with the training ids typed differently from the
    lists' (matched by text)."""
    train_frame = pl.DataFrame({"user_id": [u for u, _ in train], "item_id": [i for _, i in train]})
    if not integer_train:
        train_frame = train_frame.select(pl.all().cast(pl.String))
    run = pl.DataFrame({"user_id": [f"{u}" for u, _ in recs], "item_id": [f"{i}" for _, i in recs],
                        "score": [float(n % 7) for n in range(len(recs))]})  # fmt: skip
    truth = run.group_by("user_id").first().select("user_id", "item_id")
    result = _evaluate(truth, run, ["Novelty", "ARP"], train=train_frame)
    seen = {(str(u), str(i)) for u, i in train}
    popularity = {str(i): len({u for u, j in train if j == i}) for _, i in train}
    for user, values in result.per_query.items():
        listed = [str(i) for u, i in recs if str(u) == user]
        assert close(values["Novelty"], 1 - sum((user, i) in seen for i in listed) / len(listed))
        assert close(values["ARP"], sum(popularity.get(i, 0) for i in listed) / len(listed))


# ---------------------------------------------------------------------------------------------------------------
# ILD, Serendipity, Unexpectedness: equal to rankwise.recsys.beyond per user (which the libraries' own code checks in
# tests/recsys/test_recsys_beyond.py: MS Recommenders, RecTools, RePlay), under the dialects that define them


def _features(items: list[str]) -> pl.DataFrame:
    rng = np.random.default_rng(len(items))
    return pl.DataFrame({"item_id": items, "f1": rng.integers(0, 2, len(items)), "f2": rng.integers(0, 2, len(items)),
                         "f3": rng.integers(0, 2, len(items))})  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_similarity_measures_equal_beyond(case: str) -> None:
    train, recs, truth, _ = _case(case)
    k = 10
    relevant = truth.select("user_id", "item_id")
    catalogue = sorted(set(train.get_column("item_id")) | set(recs.get_column("item_id")))
    features = _features(catalogue)
    by_ms = _evaluate(relevant, recs, [f"ILD@{k}", f"Serendipity@{k}"], dialect="ms_recommenders", train=train)
    _same_as_beyond(by_ms, f"ILD@{k}", beyond.intra_list_diversity(recs, k=k, train=train, dialect="ms_recommenders"))
    _same_as_beyond(by_ms, f"Serendipity@{k}", beyond.serendipity(recs, k=k, truth=relevant, train=train,
                                                                dialect="ms_recommenders"))  # fmt: skip
    rt = _evaluate(relevant, recs, [f"ILD@{k}", f"Serendipity@{k}"], dialect="rectools", train=train,
                   features=features, catalog=len(catalogue))  # fmt: skip
    _same_as_beyond(rt, f"ILD@{k}", beyond.intra_list_diversity(recs, k=k, features=features, dialect="rectools"))
    _same_as_beyond(rt, f"Serendipity@{k}", beyond.serendipity(recs, k=k, truth=relevant, train=train,
                                                                catalog=len(catalogue), dialect="rectools"))
    cosine = _evaluate(relevant, recs, ["ILD(kind=feature_cosine)@5", "Serendipity(kind=feature_cosine)@5"],
                       train=train, features=features)  # fmt: skip
    _same_as_beyond(cosine, "ILD(kind=feature_cosine)@5",
                    beyond.intra_list_diversity(recs, k=5, kind="feature_cosine", features=features))
    _same_as_beyond(cosine, "Serendipity(kind=feature_cosine)@5",
                    beyond.serendipity(recs, k=5, truth=relevant, train=train, kind="feature_cosine",
                                       features=features))  # fmt: skip
    baseline = recs.with_columns(pl.col("item_id").shift(1).over("user_id").fill_null("0")).unique(
        ["user_id", "item_id"], keep="first", maintain_order=True).filter(pl.col("user_id") != "u3")  # fmt: skip
    unexpected = _evaluate(relevant, recs, [f"Unexpectedness@{k}"], dialect="replay", baseline=baseline)
    _same_as_beyond(unexpected, f"Unexpectedness@{k}", beyond.unexpectedness(recs, baseline=baseline, k=k))


def test_similarity_measures_by_hand_and_named_inputs(tmp_path: Path) -> None:
    """The by-hand lists of tests/recsys/test_recsys_beyond.py; files through the CLI; each missing input named."""
    result = _evaluate(TRUTH, RECS, ["ILD", "ILD(single=zero)", "Unexpectedness@2"], train=TRAIN,
                       baseline=pl.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["c", "a", "x"],
                                              "score": [2.0, 1.0, 1.0]}))  # fmt: skip
    assert close(result.per_query["u1"]["ILD"], 1.0) and math.isnan(result.per_query["u3"]["ILD"])
    assert result.per_query["u3"]["ILD(single=zero)"] == 0.0
    assert _per_user(result, "Unexpectedness@2") == {"u1": 0.5, "u2": 1.0, "u3": 0.0}  # u3: no baseline list
    with pytest.raises(rankwise.RankwiseError, match="needs item features: pass features="):
        _evaluate(TRUTH, RECS, ["ILD(kind=feature_cosine)"])
    with pytest.raises(rankwise.RankwiseError, match="needs training interactions: pass train="):
        _evaluate(TRUTH, RECS, ["ILD"])
    with pytest.raises(rankwise.RankwiseError, match="pass baseline="):
        _evaluate(TRUTH, RECS, ["Unexpectedness@2"])
    with pytest.raises(rankwise.RankwiseError, match="Unexpectedness needs a cutoff"):
        _evaluate(TRUTH, RECS, ["Unexpectedness"])
    with pytest.raises(rankwise.RankwiseError, match=r"item features: 1 items have no features \(e.g. 'e'\)"):
        _evaluate(TRUTH, RECS, ["ILD(kind=feature_cosine)"],
                  features=pl.DataFrame({"item_id": list("abcd"), "f": [1.0, 2.0, 3.0, 4.0]}))
    for bad, message in [({"f": [1.0, float("nan"), 0.0, 1.0, 0.0]}, "item features: NaN or infinite values"),
                         ({"f": ["x", "y", "z", "w", "v"]}, "item features: column 'f' is not numeric"),
                         ({"item_id": list("abcda"), "f": [1.0] * 5}, "item features: item 'a' has two rows")]:
        table = pl.DataFrame({"item_id": list("abcde"), **bad})
        with pytest.raises(rankwise.RankwiseError, match=message):
            _evaluate(TRUTH, RECS, ["ILD(kind=feature_cosine)"], features=table)
    bad_run = tmp_path / "bad.txt"
    bad_run.write_text("u1 Q0 c 1 2.0 b\nu1 Q0 a 2\n")
    with pytest.raises(rankwise.RankwiseError, match=r"bad.txt:2: expected 6 columns"):
        _evaluate(TRUTH, RECS, ["Unexpectedness@2"], baseline=bad_run)
    features = tmp_path / "features.csv"
    features.write_text("item_id,f1,f2\na,1,0\nb,0,1\nc,1,1\nd,1,0\ne,0,1\n")
    base = tmp_path / "base.txt"
    base.write_text("u1 Q0 c 1 2.0 b\nu1 Q0 a 2 1.0 b\nu2 Q0 x 1 1.0 b\n")
    truth, recs = tmp_path / "truth.csv", tmp_path / "recs.csv"
    TRUTH.with_columns(pl.lit(1).alias("rating")).write_csv(truth)
    RECS.write_csv(recs)
    code, out, err = run_cli("evaluate", str(truth), str(recs), "-m", "ILD(kind=feature_hamming)", "-m",
                             "Unexpectedness@2", "--queries", "run", "--features", str(features), "--baseline",
                             str(base), "--format", "json")  # fmt: skip
    assert code == 0, err
    values = json.loads(out)
    assert values["aggregate"]["ILD(kind=feature_hamming)"] == pytest.approx((4 / 3 + 2.0) / 2)
    assert values["aggregate"]["Unexpectedness@2"] == pytest.approx(0.5)
    code, out, err = run_cli("evaluate", str(truth), str(recs), "-m", "ILD(kind=feature_hamming)", "--features",
                             str(tmp_path / "nope.csv"))  # fmt: skip
    assert code == 2 and "nope.csv: no such file" in err and "Traceback" not in err
