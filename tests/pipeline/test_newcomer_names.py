"""Names follow what was asked (one ``-k`` rule everywhere), column mappings say what they accept, notes a
recommender user needs, ``--scores`` on the command line, and notes whose words agree with their numbers."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import rankwise
from conftest import run_cli as invoke
from rankwise import InputError, MeasureError
from rankwise.measures import parse_measures
from rankwise.pipeline.plan import resolve_measures

# Three users rate items 1–5; user 3 rates nothing 4 or above.
TRUTH = pl.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": [10, 11, 10, 12, 13], "rating": [5, 3, 4, 2, 1]})
RECS = pl.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": [10, 12, 10, 11, 13], "score": [0.9, 0.5, 0.3, 0.8, 0.1]})


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    truth, recs = tmp_path / "truth.csv", tmp_path / "recs.csv"
    TRUTH.write_csv(truth)
    RECS.write_csv(recs)
    return str(truth), str(recs)


# ------------------------------------------------------------------------------------------------ -k naming
def test_readme_example_names_every_measure_as_written_plus_cutoff(files: tuple[str, str]) -> None:
    code, out, err = invoke("evaluate", *files, "--threshold", "4", "-m", "nDCG", "-m", "AP", "-m", "P",
                            "-m", "HitRate", "-k", "10,20", "--format", "json")  # fmt: skip
    assert code == 0, err
    assert list(json.loads(out)["aggregate"]) == [
        "nDCG@10", "nDCG@20", "AP@10", "AP@20", "P@10", "P@20", "HitRate@10", "HitRate@20",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("P", "P"),
        ("Precision", "P"),
        ("precision", "P"),
        ("ndcg_cut", "nDCG"),
        ("recall", "R"),
        ("map", "AP"),
        ("recip_rank", "RR"),
        ("success", "HitRate"),
        ("nDCG(gain=exp2)", "nDCG(gain=exp2)"),
        ("P(rel=2)", "P(rel=2)"),
    ],
)
def test_one_rule_for_every_spelling(written: str, canonical: str) -> None:
    pairs = resolve_measures([written], [10, 20])
    assert [key for key, _ in pairs] == [f"{written}@10", f"{written}@20"]
    for (key, measure), k in zip(pairs, (10, 20)):
        expected = parse_measures(canonical.replace(")", f")@{k}") if "(" in canonical else f"{canonical}@{k}")
        assert measure == expected[0][1]
        assert parse_measures(key) == [(key, measure)]  # every key reads back as the measure it names


def test_api_keys_follow_the_rule_and_precision_needs_no_cutoff_of_its_own() -> None:
    result = rankwise.evaluate(TRUTH, RECS, ["P", "Precision"], cutoffs=[10], threshold=4)
    assert result.keys == ("P@10", "Precision@10")
    explicit = rankwise.evaluate(TRUTH, RECS, ["P@10"], threshold=4).aggregate["P@10"]
    assert result.aggregate["P@10"] == result.aggregate["Precision@10"] == explicit == pytest.approx(2 / 30)


def test_measures_with_their_own_cutoff_or_without_rank_cutoffs_are_kept() -> None:
    keys = [key for key, _ in resolve_measures(["P@5", "P_5", "P.1,2", "bpref", "iprec_at_recall_0.10"], [10])]
    assert keys == ["P@5", "P_5", "P_1", "P_2", "bpref", "iprec_at_recall_0.10"]


def test_cli_precision_with_k(files: tuple[str, str]) -> None:
    code, out, err = invoke("evaluate", *files, "--threshold", "4", "-m", "Precision", "-k", "10", "--format", "csv")
    assert code == 0, err
    assert out.splitlines()[1].startswith("all,Precision@10,0.0666")


# ---------------------------------------------------------------------------------------------- columns=
def test_columns_as_a_plain_tuple() -> None:
    renamed_truth = TRUTH.rename({"user_id": "u", "item_id": "i", "rating": "stars"})
    renamed_recs = RECS.rename({"user_id": "u", "item_id": "i", "score": "s"})
    got = rankwise.evaluate(renamed_truth, renamed_recs, ["P@2"], threshold=4,
                            qrels_columns=("u", "i", "stars"), run_columns=("u", "i", "s"))  # fmt: skip
    assert got.aggregate == rankwise.evaluate(TRUTH, RECS, ["P@2"], threshold=4).aggregate
    ranked = RECS.with_columns(pl.col("score").rank(descending=True).over("user_id").alias("position"))
    by_rank = rankwise.evaluate(TRUTH, ranked.drop("score"), ["P@2"], threshold=4,
                                run_columns=("user_id", "item_id", "position"))  # fmt: skip
    assert by_rank.aggregate == got.aggregate


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"rating": "rating"}, r"qrels_columns: unknown key 'rating' \(for 'rating' write 'value'\); the keys are "
                               r"query_id, doc_id, value"),
        ({"user": "user_id"}, r"unknown key 'user' \(for 'user' write 'query_id'\)"),
        ({"rank": "rating"}, r"unknown key 'rank'; the keys are query_id, doc_id, value$"),
        (("user_id", "item_id"), r"give three column names"),
        ("user_id,item_id,rating", r"must be a dict .* or a \(query, doc, value\) tuple, not str"),
        ({"query_id": 3}, r"qrels_columns\['query_id'\] must be a column name, not 3"),
    ],
)  # fmt: skip
def test_unknown_column_keys_are_refused(columns: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        rankwise.evaluate(TRUTH, RECS, ["P@2"], threshold=4, qrels_columns=columns)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------- notes
def test_users_with_every_rating_below_the_threshold_are_noted() -> None:
    result = rankwise.evaluate(TRUTH, RECS, ["P@2"], threshold=4)
    assert result.per_query["3"]["P@2"] == 0.0
    assert "1 evaluated query has no rating >= 4 (nothing relevant) and is scored with no relevant item " \
           "(0 on most measures): 3" in result.notes()  # fmt: skip
    assert not any("no rating" in n for n in rankwise.evaluate(TRUTH, RECS, ["P@2"], threshold=1).notes())


def test_ratings_without_a_threshold_are_noted() -> None:
    notes = rankwise.evaluate(TRUTH, RECS, ["P@2"]).notes()
    assert any("grades run from 1 to 5 with none below 1, so every judged item counts as relevant" in n
               and "--threshold" in n for n in notes)  # fmt: skip
    trec_like = TRUTH.with_columns(pl.col("rating") - 1)  # grades 0–4: a graded qrels, not ratings
    assert not any("grades run" in n for n in rankwise.evaluate(trec_like, RECS, ["P@2"]).notes())
    assert not any("grades run" in n for n in rankwise.evaluate(TRUTH, RECS, ["P@2"], rel_level=4).notes())


def test_notes_agree_with_their_numbers() -> None:
    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}, "q3": {"d1": 1}}
    one = rankwise.evaluate(qrels, {"q1": {"d1": 1.0}, "q2": {"d1": 1.0}, "x": {"d1": 1.0}}, ["P@1"]).notes()
    assert "1 judged query is missing from the run and was not evaluated (queries='qrels' / -c scores them 0): q3" \
        in one  # fmt: skip
    assert "1 run query has no judgments and was not evaluated: x" in one
    two = rankwise.evaluate(qrels, {"q1": {"d1": 1.0}, "x": {"d1": 1.0}, "y": {"d1": 1.0}}, ["P@1"]).notes()
    assert "2 judged queries are missing from the run and were not evaluated (queries='qrels' / -c scores " \
           "them 0): q2, q3" in two  # fmt: skip
    assert "2 run queries have no judgments and were not evaluated: x, y" in two
    cut = rankwise.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 2.0, "d2": 1.0}}, ["P@1"], depth=1).notes()
    assert "1 ranked document beyond depth 1 was ignored" in cut
    empty = rankwise.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 2.0}}, ["MeanRank"], queries="qrels").notes()
    assert not any("1 queries" in n for n in empty)


# ------------------------------------------------------------------------------------------------ --scores
def test_scores_option_on_the_command_line(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 b 1\nq1 0 a 0\n")
    run.write_text("q1 Q0 b 1 1.00000001 t\nq1 Q0 a 2 1.00000002 t\n")  # equal in float32: tie, b first
    _, out64, _ = invoke("evaluate", str(qrels), str(run), "-m", "P@1", "--format", "json")
    code, out32, err = invoke("evaluate", str(qrels), str(run), "-m", "P@1", "--scores", "float32", "--format", "json")
    assert code == 0, err
    assert json.loads(out64)["aggregate"]["P@1"] == 0.0
    assert json.loads(out32)["aggregate"]["P@1"] == 1.0
    assert json.loads(out32) == json.loads(
        invoke("evaluate", str(qrels), str(run), "-m", "P@1", "--dialect", "pytrec_eval", "--format", "json")[1]
    )


def test_cutoff_type_errors_are_measure_errors() -> None:
    for bad, message in (([2.7], "cutoff 2.7 must be an integer >= 1"), (["a"], "cutoff 'a' must be"),
                         (5, "cutoffs must be a list of integers"), ([0], "cutoff 0 must be")):  # fmt: skip
        with pytest.raises(MeasureError, match=message):
            rankwise.evaluate(TRUTH, RECS, ["P"], cutoffs=bad, threshold=4)  # type: ignore[arg-type]
