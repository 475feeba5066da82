"""Labels from judgments (rankwise.ltr.relabel, rankwise ltr relabel): the converse of LtrData.to_qrels."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from rankwise import InputError
from rankwise.cli import main
from rankwise.ltr import LtrData, read_svmlight, relabel, write_svmlight

LETOR = (
    "2 qid:10 1:0.5 2:0.1 #docid = GX0 inc = 1\n"
    "0 qid:10 1:0.2 2:0.3 #docid = GX1 inc = 1\n"
    "1 qid:12 1:0.9 #docid = GX9\n"
    "0 qid:12 2:0.4 #docid = GX0\n"
)


@pytest.fixture
def letor(tmp_path: Path) -> LtrData:
    path = tmp_path / "letor.txt"
    path.write_text(LETOR)
    return read_svmlight(path, doc_ids="comment")


def test_to_qrels_and_back_is_the_identity(letor: LtrData) -> None:
    blank = dataclasses.replace(letor, labels=np.zeros(letor.num_rows, dtype=np.int64))
    done = relabel(blank, letor.to_qrels())
    assert done.data.labels.tolist() == letor.labels.tolist() == [2, 0, 1, 0]
    assert done.data.docnos.tolist() == letor.docnos.tolist()
    assert (done.unjudged_rows, done.unused_judgments, done.unused_queries, done.notes()) == (0, 0, 0, [])


def test_positions_name_documents_without_comments(tmp_path: Path) -> None:
    path = tmp_path / "plain.txt"
    path.write_text("3 qid:1 1:1\n0 qid:1 1:2\n1 qid:2 1:3\n")
    data = read_svmlight(path)
    done = relabel(data, {"1": {"0": 0, "1": 4}, "2": {"0": 2}})
    assert done.data.labels.tolist() == [0, 4, 2]


def test_unjudged_rows_and_unused_judgments_are_counted(letor: LtrData, tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("10 0 GX0 1\n10 0 GX7 2\n12 0 GX9 3\n99 0 GX0 1\n99 0 GX1 1\n")
    with pytest.raises(InputError) as caught:
        relabel(letor, qrels)
    assert str(caught.value) == (
        f"{letor.source}: row 1 (query '10', document 'GX1') has no judgment in {qrels} (2 rows have none); "
        "give unjudged=GRADE (--unjudged) to grade them"
    )
    done = relabel(letor, qrels, unjudged=0)
    assert done.data.labels.tolist() == [1, 0, 3, 0]
    assert (done.unjudged_rows, done.unused_judgments, done.unused_queries) == (2, 3, 1)
    assert done.notes() == [
        "2 of 4 rows have no judgment and were given grade 0",
        "3 judgments match no row (1 of their queries has no rows at all) and were not used",
    ]


def test_ratings_with_a_threshold(letor: LtrData, tmp_path: Path) -> None:
    ratings = tmp_path / "ratings.csv"
    pl.DataFrame({"query_id": ["10", "10", "12", "12"], "doc_id": ["GX0", "GX1", "GX9", "GX0"],
                  "rating": [4.5, 3.0, 5.0, 1.0]}).write_csv(ratings)  # fmt: skip
    assert relabel(letor, ratings, threshold=4).data.labels.tolist() == [1, 0, 1, 0]


def test_cli_qrels_relabel_round_trip(tmp_path: Path) -> None:
    data_file, qrels, out = tmp_path / "letor.txt", tmp_path / "qrels.txt", tmp_path / "out.txt"
    data_file.write_text(LETOR)
    runner = CliRunner()
    made = runner.invoke(main, ["ltr", "qrels", str(data_file), "--doc-ids-from-comments", "-o", str(qrels)])
    assert made.exit_code == 0, made.output
    assert qrels.read_text().splitlines() == ["10 0 GX0 2", "10 0 GX1 0", "12 0 GX9 1", "12 0 GX0 0"]
    qrels.write_text("10 0 GX0 3\n10 0 GX1 1\n12 0 GX9 0\n13 0 GX5 1\n")
    done = runner.invoke(main, ["ltr", "relabel", str(data_file), str(qrels), "--doc-ids-from-comments", "--unjudged",
                                "0", "--query-file", "-o", str(out)])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert done.stderr.splitlines() == [
        "rankwise: note: 1 of 4 rows has no judgment and was given grade 0",
        "rankwise: note: 1 judgment matches no row (1 of their queries has no rows at all) and was not used",
    ]
    assert Path(f"{out}.query").read_text() == "2\n2\n"
    back = read_svmlight(out, doc_ids="comment")
    assert back.labels.tolist() == [3, 1, 0, 0]
    assert back.docnos.tolist() == ["GX0", "GX1", "GX9", "GX0"]
    original = read_svmlight(data_file)
    assert np.array_equal(back.dense(), original.dense())
    refused = runner.invoke(main, ["ltr", "relabel", str(data_file), str(qrels), "--doc-ids-from-comments", "-o",
                                   str(out)])  # fmt: skip
    assert refused.exit_code == 2
    assert refused.stderr.startswith("rankwise: error: ") and "has no judgment in" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_relabelled_data_writes_like_any_other(letor: LtrData, tmp_path: Path) -> None:
    done = relabel(letor, {"10": {"GX0": 1, "GX1": 1}, "12": {"GX9": 1, "GX0": 1}})
    write_svmlight(done.data, tmp_path / "x.txt")
    assert read_svmlight(tmp_path / "x.txt").labels.tolist() == [1, 1, 1, 1]
