"""Training interactions (train=, --train) and the catalogue (catalog=, --catalog): each user's candidate items."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

import rankwise
from rankwise.cli import main
from rankwise.io.interactions import load_interactions

QRELS = {"u1": {"B": 1, "D": 1, "F": 1, "C": 0}, "u2": {"X": 1}}
RUN = {"u1": {"A": 0.9, "B": 0.8, "C": 0.7, "D": 0.6, "F": 0.5}, "u2": {"Y": 0.9, "Z": 0.8}}


def test_every_input_form_gives_the_same_distinct_pairs(tmp_path: Path) -> None:
    expected = [("u1", "T1"), ("u1", "T2"), ("u2", "7")]
    (tmp_path / "train.csv").write_text("user_id,item_id,rating\nu1,T1,5\nu1,T2,3\nu1,T1,4\nu2,7,1\n")
    (tmp_path / "train.txt").write_text("# user item rating\nu1\tT1 5\n\nu1 T2  3 extra\nu2 7\n")
    (tmp_path / "train.inter").write_text("user_id:token\titem_id:token\nu1\tT1\nu1\tT2\nu2\t7\n")
    frame = pl.DataFrame({"user": ["u1", "u1", "u2"], "item": ["T1", "T2", "7"]})
    sources = [tmp_path / "train.csv", tmp_path / "train.txt", tmp_path / "train.inter", frame, frame.to_pandas(),
               {"u1": ["T1", "T2", "T1"], "u2": [7]}]  # fmt: skip
    for source in sources:
        assert load_interactions(source).rows() == expected, source


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        ("u1 T1\nu2\n", ".txt", "every line needs at least two fields"),
        ("user_id,rating\nu1,5\n", ".csv", "no doc_id column"),
        ("user_id,item_id\n", ".csv", "no interactions"),
    ],
)
def test_bad_training_files_are_named(tmp_path: Path, content: str, suffix: str, message: str) -> None:
    path = tmp_path / f"train{suffix}"
    path.write_text(content)
    with pytest.raises(rankwise.InputError, match=message):
        load_interactions(path)


def test_catalog_needs_train_and_must_leave_each_user_a_candidate() -> None:
    with pytest.raises(rankwise.InputError, match="give train= too"):
        rankwise.evaluate(QRELS, RUN, "AUC", dialect="elliot", catalog=10)
    with pytest.raises(rankwise.InputError, match="catalog must be a number of items"):
        rankwise.evaluate(QRELS, RUN, "AUC", dialect="elliot", train={"u1": ["T"]}, catalog="ten")
    items = [f"i{n}" for n in range(7)]  # the catalogue given as its items: 7, as catalog=7
    by_items = rankwise.evaluate(QRELS, RUN, "AUC", dialect="elliot", train={"u1": ["T1", "T2"]}, catalog=items)
    by_count = rankwise.evaluate(QRELS, RUN, "AUC", dialect="elliot", train={"u1": ["T1", "T2"]}, catalog=7)
    assert by_items.aggregate == by_count.aggregate


def test_cli_train_and_catalog(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, docs in RUN.items() for d, s in docs.items()))
    train = tmp_path / "train.txt"
    train.write_text("u1 T1\nu1 T2\nu2 T1\n")
    args = ["evaluate", str(qrels), str(run), "-m", "AUC", "--dialect", "elliot", "--format", "json"]
    result = CliRunner().invoke(main, [*args, "--train", str(train), "--catalog", "7"])
    assert result.exit_code == 0, result.output
    api = rankwise.evaluate(QRELS, RUN, "AUC", dialect="elliot", train={"u1": ["T1", "T2"], "u2": ["T1"]}, catalog=7)
    assert f'"AUC":{api.aggregate["AUC"]}' in result.output
    missing = CliRunner().invoke(main, [*args, "--train", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2 and "nope.txt: no such file" in missing.output
    without = CliRunner().invoke(main, args)
    assert without.exit_code == 2 and "give the training interactions" in without.output
