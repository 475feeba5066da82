"""``item_groups=`` (``--item-groups FILE:COLUMN|popularity``): every way of giving item groups reads the same
labels, through the reader ``groups=`` uses; ``popularity`` is LongTail's head / tail split; what does not match is a
counted note; query ranges, a stream and the command line give the values of the whole."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

import rankwise
from rankwise import InputError
from rankwise.cli import main
from rankwise.pipeline import partitioned

MEASURES = ["AWRF@5", "nDCG-AWRF@5", "RSP@3", "REO@5"]
GROUPS = {"i1": "red", "i2": "blue", "i3": "red", "i4": "green", "i5": "blue", "i6": "red", "i7": "green",
          "unused": "blue"}  # fmt: skip


def _inputs(users: int = 12, seed: int = 3) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Ratings 0..2 and rankings of up to 8 of items i0..i9 (i0, i8, i9 in no group)."""
    rng = np.random.default_rng(seed)
    truth, recs = [], []
    for u in range(users):
        items = [f"i{j}" for j in rng.permutation(10)]
        truth += [(f"u{u}", i, int(rng.integers(0, 3))) for i in items[:5]]
        recs += [(f"u{u}", i, float(8 - r)) for r, i in enumerate(items[2:10])]
    return (pl.DataFrame(truth, schema=["user_id", "item_id", "rating"], orient="row"),
            pl.DataFrame(recs, schema=["user_id", "item_id", "score"], orient="row"))  # fmt: skip


def test_every_form_reads_the_same_groups(tmp_path: Path) -> None:
    qrels, run = _inputs()
    whole = rankwise.evaluate(qrels, run, MEASURES, item_groups=GROUPS)
    table = pl.DataFrame({"item_id": list(GROUPS), "colour": list(GROUPS.values())})
    table.write_csv(tmp_path / "items.csv")
    table.write_parquet(tmp_path / "items.parquet")
    (tmp_path / "ml.item").write_text("item_id:token\tcolour:token\ttitle:token_seq\n"
                                      + "".join(f"{i}\t{c}\tsome title\n" for i, c in GROUPS.items()))  # fmt: skip
    forms = [table, (table, "colour"), f"{tmp_path / 'items.csv'}:colour", f"{tmp_path / 'items.parquet'}:colour",
             f"{tmp_path / 'ml.item'}:colour", (str(tmp_path / "ml.item"), "colour")]  # fmt: skip
    for form in forms:
        other = rankwise.evaluate(qrels, run, MEASURES, item_groups=form)
        assert np.array_equal(other.values, whole.values, equal_nan=True), form
        assert other.aggregate == pytest.approx(whole.aggregate, nan_ok=True), form
    assert not np.isnan(whole.values[0]).all()


def test_a_sequence_column_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ml.item").write_text("item_id:token\tgenre:token_seq\ni1\tAction Comedy\n")
    qrels, run = _inputs()
    with pytest.raises(InputError, match="several values per id"):
        rankwise.evaluate(qrels, run, ["AWRF"], item_groups=f"{tmp_path / 'ml.item'}:genre")


def test_notes_count_what_does_not_match() -> None:
    qrels, run = _inputs()
    notes = rankwise.evaluate(qrels, run, ["AWRF"], item_groups={**GROUPS, "i4": None, "i7": "", "unused": "purple"}
                              ).notes()  # fmt: skip
    assert any("item_groups: 1 id is no item of the run or the qrels (not used): unused" in n for n in notes), notes
    outside = next(n for n in notes if "in no group" in n)
    ranked = set(run.get_column("item_id").to_list())
    expected = sorted(i for i in ranked if i in ("i0", "i4", "i7", "i8", "i9"))
    assert f"{len(expected)} items of the run are in no group" in outside and ", ".join(expected) in outside
    assert any("item_groups: 1 group has no item in the run: purple" in n for n in notes), notes


def test_popularity_is_the_long_tail_split() -> None:
    qrels, run = _inputs()
    rng = np.random.default_rng(5)
    train = pl.DataFrame({"user_id": [f"u{rng.integers(12)}" for _ in range(60)],
                          "item_id": [f"i{min(rng.geometric(0.3), 9)}" for _ in range(60)]})  # fmt: skip
    by_name = rankwise.evaluate(qrels, run, ["AWRF@5", "RSP(groups=popularity)@3"], train=train,
                                item_groups="popularity")  # fmt: skip
    result = rankwise.evaluate(qrels, run, ["LongTail@5"], train=train)
    assert result.values.shape[1] == by_name.values.shape[1]
    # the tail of LongTail(head_share=0.8) is the "tail" group, every other training item "head"
    pairs = train.unique()
    users = pairs.group_by("item_id").len().sort(["len", "item_id"], descending=[True, False])
    running = users.get_column("len").cum_sum() - users.get_column("len")
    tail = set(users.filter(running >= 0.8 * pairs.height).get_column("item_id").to_list())
    labels = {i: ("tail" if i in tail else "head") for i in users.get_column("item_id").to_list()}
    given = rankwise.evaluate(qrels, run, ["AWRF@5", "RSP@3"], train=train, item_groups=labels)
    assert np.array_equal(given.values[0], by_name.values[0], equal_nan=True)
    assert given.aggregate["RSP@3"] == pytest.approx(by_name.aggregate["RSP(groups=popularity)@3"])
    with pytest.raises(InputError, match="train"):
        rankwise.evaluate(qrels, run, ["AWRF"], item_groups="popularity")


def test_query_ranges_and_a_stream_equal_the_whole(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    qrels, run = _inputs(users=40)
    whole = rankwise.evaluate(qrels, run, MEASURES, item_groups=GROUPS)
    path = tmp_path / "run.txt"
    run.select("user_id", pl.lit("Q0").alias("q0"), "item_id", pl.lit(0).alias("rank"), "score",
               pl.lit("r").alias("tag")).write_csv(path, separator=" ", include_header=False)  # fmt: skip
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 37)
    for parts in (rankwise.evaluate(qrels, run, MEASURES, item_groups=GROUPS),
                  rankwise.evaluate(qrels, str(path), MEASURES, item_groups=GROUPS, stream=True)):  # fmt: skip
        assert parts.query_ids == whole.query_ids
        assert np.allclose(parts.values, whole.values, equal_nan=True, rtol=0, atol=1e-12)
        assert parts.aggregate == pytest.approx(whole.aggregate, rel=1e-12, nan_ok=True)
        assert parts.notes() == whole.notes()  # a stream's notes on items in no group come from its ranges


def test_the_command_line(tmp_path: Path) -> None:
    qrels, run = _inputs()
    qrels.write_csv(tmp_path / "truth.csv")
    run.write_csv(tmp_path / "recs.csv")
    pl.DataFrame({"item_id": list(GROUPS), "colour": list(GROUPS.values())}).write_csv(tmp_path / "items.csv")
    done = CliRunner().invoke(main, ["evaluate", str(tmp_path / "truth.csv"), str(tmp_path / "recs.csv"), "-m",
                                     "AWRF@5", "-m", "RSP@3", "--item-groups", f"{tmp_path / 'items.csv'}:colour",
                                     "--format", "json"])  # fmt: skip
    assert done.exit_code == 0, done.output
    printed = json.loads(done.stdout)["aggregate"]
    expected = rankwise.evaluate(qrels, run, ["AWRF@5", "RSP@3"], item_groups=GROUPS).aggregate
    assert printed == pytest.approx(expected)


def test_spark_refuses_what_its_tasks_cannot_see() -> None:
    """Without item groups the item-group measures are refused; the popularity split reads all training items,
    which no Spark task holds, with or without them."""
    from rankwise.kernels.beyond import refuse_on_chunks

    for name in ("AWRF@5", "nDCG-AWRF@5", "RSP@3", "REO@3", "ItemMAD@3"):
        with pytest.raises(rankwise.MeasureError, match=r"needs item groups: give rankwise\.spark\.evaluate"):
            refuse_on_chunks([(name, rankwise.parse_measure(name))])
        refuse_on_chunks([(name, rankwise.parse_measure(name))], item_groups=True)
    for name in ("RSP(groups=popularity)@3", "REO(groups=popularity)@3"):
        with pytest.raises(rankwise.MeasureError, match="groups=popularity splits all training items"):
            refuse_on_chunks([(name, rankwise.parse_measure(name))], item_groups=True)
