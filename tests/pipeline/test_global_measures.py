"""Global measures (Coverage, Gini, Entropy) are reported once, in the aggregate, with what they were computed over;
every per-query output leaves them out; notes and footers count what they say; and ``rankwise explain M --dialect D``
states the query set ``evaluate`` averages M over, for every dialect and measure."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

import rankwise
from rankwise.cli import main
from rankwise.cli.explain import explain
from rankwise.dialects import DIALECTS
from rankwise.measures import FAMILIES
from rankwise.pipeline import formats

GLOBAL = ("Coverage", "Gini", "Entropy")
MEASURES = ["nDCG@10", "Coverage@10", "Novelty@10"]


def _data(seed: int = 7, users: int = 30, items: int = 50) -> dict:
    """Ratings 1-5 for most users (some without a list, some lists for users without ratings), top-10 lists,
    training interactions, item features and a baseline's lists."""
    rng = np.random.default_rng(seed)
    names = [str(i) for i in range(items)]
    truth, recs, train, baseline = {}, {}, {}, {}
    for u in range(users):
        uid = f"u{u:02d}"
        if u % 7 != 3:
            truth[uid] = {names[int(i)]: int(rng.integers(1, 6)) for i in rng.choice(items, 6, replace=False)}
        if u % 9 != 4:
            recs[uid] = {names[int(i)]: float(10 - j) for j, i in enumerate(rng.choice(items, 10, replace=False))}
            baseline[uid] = {names[int(i)]: float(10 - j) for j, i in enumerate(rng.choice(items, 10, replace=False))}
        train[uid] = [names[int(i)] for i in rng.choice(items - 5, 8, replace=False)]  # 5 items never in training
    features = pl.DataFrame({"item_id": names, **{f"f{j}": rng.integers(0, 2, items) for j in range(3)}})
    return {"truth": truth, "recs": recs, "train": train, "features": features, "baseline": baseline}


@pytest.fixture(scope="module")
def data() -> dict:
    return _data()


def _evaluate(data: dict, measures: list[str], **options: object) -> rankwise.EvaluationResult:
    return rankwise.evaluate(data["truth"], data["recs"], measures, threshold=4, train=data["train"], catalog=50,
                             **options)  # fmt: skip


@pytest.mark.parametrize("dialect", [None, "replay", "ms_recommenders"])
def test_a_global_measure_is_left_out_of_every_per_query_output(data: dict, dialect: str | None) -> None:
    result = _evaluate(data, [*MEASURES, "Gini@10", "Entropy@10"], dialect=dialect)
    globals_ = ("Coverage@10", "Gini@10", "Entropy@10")
    assert result.global_keys == globals_
    assert set(result.aggregate) == {"nDCG@10", "Novelty@10", *globals_}
    assert all(np.isfinite(result.aggregate[key]) for key in globals_)
    assert all(set(values) == {"nDCG@10", "Novelty@10"} for values in result.per_query.values())
    table = result.to_polars()
    assert set(table.get_column("measure").unique()) == {"nDCG@10", "Novelty@10"}
    assert table.height == 2 * len(result.query_ids)
    for i, key in enumerate(result.keys):  # values keeps a row per key: NaN throughout for a global measure
        assert np.isnan(result.values[i]).all() == (key in globals_)
    payload = json.loads(formats.format_json(result))
    assert set(payload["aggregate"]) == set(result.keys)
    assert all(set(v) == {"nDCG@10", "Novelty@10"} for v in payload["per_query"].values())
    assert set(payload["global"]) == set(globals_)
    rows = list(csv.reader(io.StringIO(formats.format_csv(result, per_query=True))))
    assert {(q, m) for q, m, _ in rows[1:] if m in globals_} == {("all", key) for key in globals_}
    trec = [line.split("\t") for line in formats.format_trec(result, per_query=True, with_runid=False).splitlines()]
    assert {(name.strip(), q) for name, q, _ in trec if name.strip() in globals_} == {(k, "all") for k in globals_}
    for width in (200, 40):  # a column per measure, and the long layout
        table_text = formats.format_table(result, per_query=True, width=width)
        assert "–" not in "".join(line for line in table_text.splitlines() if "Coverage" in line)
        assert re.search(r"^Coverage@10 +\d\.\d{4}$", table_text, re.M)
        assert "global measure" in table_text


def test_the_global_note_says_what_the_value_was_computed_over(data: dict) -> None:
    result = _evaluate(data, ["Coverage@10", "Coverage(over=catalog)@10", "Gini@10", "Entropy@10"], dialect="replay")
    users = len(data["recs"])
    listed = {item for items in data["recs"].values() for item in items}
    training = {item for items in data["train"].values() for item in items}
    notes = result.notes()
    assert not any("averaged" in note for note in notes)
    assert (f"Coverage@10: global, one value over the top-10 lists of {users} users (queries=run): "
            f"{len(listed & training)} distinct items of {len(training)} training items; no per-query value (left "
            "out of per-query output)") in notes  # replay counts only training items  # fmt: skip
    assert any(n.startswith(f"Gini@10: global, one value over the top-10 lists of {users} users (queries=run): "
                            f"{len(listed)} distinct items of a catalogue of 50 items") for n in notes)
    assert result.globals["Entropy@10"].record() == {"users": users, "items": len(listed), "catalogue": None,
                                                     "over": None, "queries": "run"}  # fmt: skip
    assert result.aggregate["Coverage@10"] == len(listed & training) / len(training)
    # only global measures, in a query set of their own: the account of queries is about that set, and says so
    keys = "Coverage@10, Coverage(over=catalog)@10, Gini@10, Entropy@10: "
    assert [n for n in notes if "not evaluated" in n] == [f"{keys}{n}" for n in _evaluate(
        data, ["Coverage@10"], queries="run").notes() if "not evaluated" in n] != []


def test_footer_and_notes_count_the_queries_each_measure_was_computed_over(data: dict) -> None:
    result = _evaluate(data, MEASURES, dialect="replay")
    n_run = len(data["recs"])
    n_ndcg = result.evaluated["nDCG@10"]
    assert result.query_sets == {"nDCG@10": result.policies.queries.value, "Coverage@10": "run",
                                 "Novelty@10": "run"}  # fmt: skip
    assert n_ndcg == int(np.isfinite(result.values[0]).sum()) < n_run < len(result.query_ids)  # the union
    assert result.evaluated["Novelty@10"] == result.evaluated["Coverage@10"] == n_run
    footer = formats.format_table(result, per_query=False).splitlines()[-1]
    assert footer == f"nDCG@10 over {n_ndcg} queries; Coverage@10, Novelty@10 over {n_run} queries"
    # each query set's account names its measures
    accounts = [n for n in result.notes() if "not evaluated" in n or "scored with" in n]
    assert accounts and all(n.startswith(("nDCG@10: ", "Coverage@10, Novelty@10: ")) for n in accounts)
    # one query set: the footer is as it always was
    plain = _evaluate(data, MEASURES)
    assert formats.format_table(plain, per_query=False).splitlines()[-1] == f"{len(plain.query_ids)} queries"


def test_undefined_counts_of_the_measures_own_queries(data: dict) -> None:
    result = _evaluate(data, ["nDCG@10", "Novelty@10"], dialect="replay", queries=None)
    for key, count in result.undefined.items():
        if count:
            assert f"{key}: undefined for {count} of {result.evaluated[key]} queries, left out of its mean" \
                in result.notes()  # fmt: skip


def test_cli_formats(tmp_path, data: dict) -> None:
    truth = tmp_path / "truth.tsv"
    recs = tmp_path / "recs.tsv"
    train = tmp_path / "train.tsv"
    truth.write_text("user\titem\trating\n" + "".join(f"{u}\t{i}\t{g}\n" for u, d in data["truth"].items()
                                                      for i, g in d.items()))  # fmt: skip
    recs.write_text("user\titem\tscore\n" + "".join(f"{u}\t{i}\t{s}\n" for u, d in data["recs"].items()
                                                    for i, s in d.items()))  # fmt: skip
    train.write_text("user\titem\n" + "".join(f"{u}\t{i}\n" for u, items in data["train"].items() for i in items))
    base = ["evaluate", str(truth), str(recs), "-m", "nDCG@10", "-m", "Coverage@10", "-m", "Novelty@10",
            "--threshold", "4", "--train", str(train), "--dialect", "replay", "-q"]  # fmt: skip
    outputs = {}
    for fmt in ("table", "json", "csv", "trec"):
        res = CliRunner().invoke(main, [*base, "--format", fmt])
        assert res.exit_code == 0, res.output
        outputs[fmt] = res.stdout
    assert "Coverage@10: global, one value over the top-10 lists" in res.stderr
    assert "averaged over queries=run" not in res.stderr.replace("Novelty@10: averaged over queries=run", "")
    assert [line.split(",")[0] for line in outputs["csv"].splitlines() if "Coverage" in line] == ["all"]
    assert len([line for line in outputs["trec"].splitlines() if "Coverage" in line]) == 1
    assert json.loads(outputs["json"])["global"]["Coverage@10"]["queries"] == "run"
    assert outputs["table"].splitlines()[-1].startswith("nDCG@10 over ")


# ---------------------------------------------------------------------------------------------------------------
# explain says the query set evaluate averages over, for every dialect and measure

COMMON = ["nDCG@10", "P@10", "R@10", "AP@10", "RR@10", "HitRate@10", "Coverage@10", "Gini@10", "Entropy@10",
          "Novelty@10", "SelfInformation@10", "ARP@10", "LongTail@10", "ILD@10", "Serendipity@10",
          "Unexpectedness@10"]  # fmt: skip
SPECS = {spec.name: spec for spec in FAMILIES}


def _measure(name: str) -> str:
    spec = SPECS[name]
    return name + ("@10" if spec.cutoff == "rank" else "@0.5" if spec.cutoff == "recall" else "")


def _dialect_measures(dialect: object) -> list[str]:
    own = [*dialect.bindings, *dialect.measure_queries]  # type: ignore[attr-defined]
    return list(dict.fromkeys([*COMMON, *(_measure(name) for name in own)]))


def _explained_queries(measure: str, dialect: str) -> str:
    found = re.findall(r"queries = (\w+)", explain(measure, dialect=dialect))
    assert found, measure
    return found[0]


def _noted_queries(result: rankwise.EvaluationResult, key: str) -> str:
    """The query set the notes say ``key`` was computed over: its own note, else the evaluation's."""
    for note in result.notes():
        own = re.match(rf"{re.escape(key)}: (?:averaged over queries=(\w+)$|global, .* \(queries=(\w+)\))", note)
        if own:
            return own.group(1) or own.group(2)
    return result.policies.queries.value


@pytest.mark.parametrize("dialect", [d.key for d in DIALECTS])
def test_explain_states_the_query_set_evaluate_averages_over(data: dict, dialect: str) -> None:
    options = {"threshold": 4, "train": data["train"], "catalog": 50, "features": data["features"],
               "baseline": data["baseline"], "item_groups": "popularity"}  # fmt: skip
    measures = _dialect_measures(next(d for d in DIALECTS if d.key == dialect))
    try:
        results = [rankwise.evaluate(data["truth"], data["recs"], measures, dialect=dialect, **options)]
    except rankwise.RankwiseError:  # a measure the data cannot give (one at a time, those it can)
        results = []
        for m in measures:
            try:
                results.append(rankwise.evaluate(data["truth"], data["recs"], [m], dialect=dialect, **options))
            except rankwise.RankwiseError:
                continue
    checked = set()
    for result in results:
        for key in result.keys:
            said = _explained_queries(key, dialect)
            assert said == result.query_sets[key] == _noted_queries(result, key), (dialect, key)
            checked.add(key)
    assert {m for m in COMMON if m.split("@")[0] not in ("ILD", "Serendipity", "Unexpectedness")} <= checked
    for name in next(d for d in DIALECTS if d.key == dialect).measure_queries:
        assert _measure(name) in checked, name
