"""``rankwise bias-disparity``: the table, JSON and CSV of :func:`rankwise.bias_disparity`, notes on stderr, and
one-line errors with exit status 2."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import rankwise
from conftest import run_cli


def _files(tmp_path: Path) -> dict[str, str]:
    recs = tmp_path / "recs.tsv"
    recs.write_text("user_id\titem_id\tscore\nu1\ta\t3\nu1\tb\t2\nu1\tc\t1\nu2\tc\t3\nu2\td\t2\nu2\ta\t1\nu3\tb\t1\n")
    train = tmp_path / "train.tsv"
    train.write_text("user_id\titem_id\nu1\ta\nu1\td\nu2\tb\nu2\tc\nu2\tx\nu3\ta\n")
    users = tmp_path / "users.tsv"
    users.write_text("user_id\tgender\nu1\tF\nu2\tM\nu3\tM\nghost\tF\n")
    items = tmp_path / "items.csv"
    items.write_text("item_id,kind\na,old\nb,old\nc,new\nd,new\n")
    return {"recs": str(recs), "train": str(train), "users": f"{users}:gender", "items": f"{items}:kind"}


def _args(f: dict[str, str], *more: str) -> list[str]:
    return ["bias-disparity", f["recs"], "--train", f["train"], "--groups", f["users"], "--item-groups", f["items"],
            "-k", "2", *more]  # fmt: skip


def test_formats_agree_with_the_api(tmp_path: Path) -> None:
    f = _files(tmp_path)
    expected = rankwise.bias_disparity(f["recs"], f["train"], k=2, groups=f["users"], item_groups=f["items"])
    code, out, err = run_cli(*_args(f, "--format", "json"))
    assert code == 0, err
    record = json.loads(out)
    assert record["k"] == 2 and record["user_attribute"] == "gender" and record["item_attribute"] == "kind"
    assert record["rows"] == expected.record()["rows"]
    # by hand (as tests/pipeline/test_bias_disparity.py:test_by_hand): M = group of u2, u3; items new/old
    m_old = next(r for r in record["rows"] if r["user_group"] == "M" and r["item_group"] == "old")
    assert math.isclose(m_old["BS"], 4 / 3) and math.isclose(m_old["BR"], 2 / 3) and math.isclose(m_old["BD"], -0.5)
    assert "rankwise: note: users.tsv:gender: 1 id is no user" in err
    code, out, _ = run_cli(*_args(f, "--format", "csv"))
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 4 and list(rows[0]) == ["user_group", "item_group", "BS", "BR", "BD"]
    assert math.isclose(float(rows[0]["BD"]), expected.rows()[0]["BD"], rel_tol=1e-12)
    code, out, _ = run_cli(*_args(f))
    assert code == 0 and out.splitlines()[0] == "bias disparity @2"
    assert "users: gender" in out.splitlines()[1] and len(out.splitlines()) == 6


def test_errors_are_one_line(tmp_path: Path) -> None:
    f = _files(tmp_path)
    code, _, err = run_cli(*_args({**f, "train": str(tmp_path / "missing.tsv")}))
    assert code == 2 and err.startswith("rankwise: error: ") and "no such file" in err and err.count("\n") == 1
    code, _, err = run_cli(*_args({**f, "users": f["users"].replace("gender", "age")}))
    assert code == 2 and "no column 'age'" in err
    code, _, err = run_cli("bias-disparity", f["recs"], "--groups", f["users"], "--item-groups", f["items"], "-k", "2")
    assert code == 2 and "--train" in err
