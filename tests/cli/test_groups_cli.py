"""``rankwise evaluate --groups FILE:COLUMN | activity``: the group table in the terminal table, JSON and CSV outputs
(the same numbers as :func:`rankwise.group_table`), notes for what does not match, one-line errors with exit 2."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import rankwise
from conftest import run_cli
from rankwise.comparison.groups import group_table

EXAMPLES = Path(rankwise.__file__).resolve().parent / "examples"
QRELS, RUN = str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "run.txt")
LABELS = {"301": "short", "302": "long", "303": "short", "304": "long", "999": "short"}  # 305 in no group, 999 unknown


@pytest.fixture
def group_file(tmp_path: Path) -> str:
    path = tmp_path / "topics.tsv"
    path.write_text("qid\tlength\tyear\n" + "".join(f"{q}\t{g}\t2004\n" for q, g in LABELS.items()))
    return f"{path}:length"


def test_the_table_shows_every_group_with_its_size_and_the_gap(group_file: str) -> None:
    code, out, err = run_cli("evaluate", QRELS, RUN, "-m", "nDCG@10", "-m", "AP", "--groups", group_file)
    assert code == 0, err
    expected = group_table(rankwise.evaluate(QRELS, RUN, ["nDCG@10", "AP"], groups=group_file))
    lines = out.splitlines()
    assert any(line.startswith("by length") for line in lines)
    for label in expected.labels:
        row = next(line.split() for line in lines if line.startswith(f"{label} "))
        assert int(row[1]) == expected.sizes[label]
        assert float(row[2]) == pytest.approx(expected.row(label, "nDCG@10").mean, abs=5e-5)
    gap_row = next(line.split() for line in lines if line.startswith("AP ") and len(line.split()) == 8)
    gap = expected.gap("AP")
    assert gap_row[1:3] == [gap.highest, gap.lowest] and float(gap_row[3]) == pytest.approx(gap.difference, abs=5e-5)
    assert "1 id is no evaluated query (not labelled): 999" in err
    assert "1 evaluated query is in no group" in err and "305" in err


def test_json_and_csv_hold_the_group_table(group_file: str) -> None:
    expected = group_table(rankwise.evaluate(QRELS, RUN, ["nDCG@10"], groups=group_file))
    code, out, err = run_cli("evaluate", QRELS, RUN, "-m", "nDCG@10", "--groups", group_file, "--format", "json")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["groups"]["sizes"] == dict(expected.sizes)
    assert [r["mean"] for r in payload["groups"]["rows"]] == [r.mean for r in expected.rows]
    assert payload["groups"]["gaps"][0]["ratio"] == expected.gap("nDCG@10").ratio
    assert payload["groups"]["query_groups"] == {"301": "short", "302": "long", "303": "short", "304": "long",
                                                 "305": None}  # fmt: skip
    assert set(payload["per_query"]) == {"301", "302", "303", "304", "305"}  # per-query values stay
    code, out, err = run_cli("evaluate", QRELS, RUN, "-m", "nDCG@10", "-q", "--groups", group_file, "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    groups = [r for r in rows if r["kind"] == "group"]
    assert [(r["group"], float(r["value"]), int(r["n"])) for r in groups] == [
        (r.group, r.mean, r.n) for r in expected.rows]  # fmt: skip
    assert {r["query_id"]: r["group"] for r in rows if r["kind"] == "query"} == {
        "301": "short", "302": "long", "303": "short", "304": "long", "305": ""}  # fmt: skip
    assert [r["kind"] for r in rows].count("all") == 1
    difference = next(r for r in rows if r["kind"] == "difference")
    assert float(difference["value"]) == expected.gap("nDCG@10").difference


def test_activity_groups_on_the_command_line(tmp_path: Path) -> None:
    counts = {"301": 2, "302": 9, "303": 30, "304": 0, "305": 15}
    train = tmp_path / "train.tsv"
    train.write_text("user_id\titem_id\n" + "".join(f"{q}\ti{i}\n" for q, n in counts.items() for i in range(n)))
    code, out, err = run_cli("evaluate", QRELS, RUN, "-m", "P@5", "--train", str(train), "--groups",
                             "activity:thresholds=5,20", "--format", "json")  # fmt: skip
    assert code == 0, err
    labels = json.loads(out)["groups"]["query_groups"]
    assert labels == {q: "cold" if n < 5 else "regular" if n < 20 else "heavy" for q, n in counts.items()}
    assert "cold < 5 <= regular < 20 <= heavy" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--groups", "activity"], "give them (train= / --train)"),
        (["--groups", "missing.tsv:age"], "missing.tsv: no such file"),
        (["--groups", "activity:thresholds=5", "--train", QRELS], "two increasing numbers"),
    ],
)
def test_bad_groups_exit_2_with_one_line(args: list[str], message: str) -> None:
    code, out, err = run_cli("evaluate", QRELS, RUN, "-m", "AP", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rankwise: error: ") and message in err


def test_trec_layout_refuses_groups(group_file: str) -> None:
    code, _, err = run_cli("evaluate", QRELS, RUN, "--groups", group_file, "--format", "trec")
    assert code == 2 and "trec_eval's layout has no place for groups" in err


def test_a_missing_column_names_the_columns(group_file: str) -> None:
    code, _, err = run_cli("evaluate", QRELS, RUN, "--groups", group_file.rsplit(":", 1)[0] + ":age")
    assert code == 2 and "no column 'age'" in err and "length" in err
    assert err.count("\n") == 1


def test_interval_options_reach_the_group_table(group_file: str) -> None:
    expected = group_table(rankwise.evaluate(QRELS, RUN, ["AP"], groups=group_file), interval="t")
    code, out, err = run_cli("evaluate", QRELS, RUN, "-m", "AP", "--groups", group_file, "--interval", "t",
                             "--format", "json")  # fmt: skip
    assert code == 0, err
    payload = json.loads(out)["groups"]
    assert payload["intervals"] == expected.intervals and "BCa" not in expected.intervals
    assert [(r["low"], r["high"]) for r in payload["rows"]] == [(r.low, r.high) for r in expected.rows]
