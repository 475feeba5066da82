"""Integer ids stay integers inside rankwise (no per-row text for large tables), yet every result is the same as for
the same ids written as text: values bit for bit, query order, notes, tie order by the ids' text."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import rankwise
from rankwise.dialects import DIALECTS

MEASURES = ["P@5", "R@5", "AP@5", "AP", "nDCG@5", "RR@5", "HitRate@5", "AUC", "AUC@5", "bpref", "NumRelRet@5"]


def _frames(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Integer-id truth and recommendations with heavy score ties, ids of 1–3 digits (so text order differs
    from numeric order), users missing on either side, and users without a relevant item."""
    rng = np.random.default_rng(seed)
    truth, recs = [], []
    for user in rng.choice(150, int(rng.integers(3, 12)), replace=False):
        items = rng.choice(120, int(rng.integers(2, 25)), replace=False)
        if rng.random() < 0.85:
            truth += [(int(user), int(i), int(rng.integers(0, 3))) for i in rng.choice(items, len(items) // 2 + 1)]
        if rng.random() < 0.85:
            recs += [(int(user), int(i), float(rng.integers(0, 4))) for i in items]
    truth = truth or [(1, 1, 1)]
    recs = recs or [(1, 1, 1.0)]
    qrels = pl.DataFrame(truth, schema={"user_id": pl.Int64, "item_id": pl.Int64, "rating": pl.Int64}, orient="row")
    run = pl.DataFrame(recs, schema={"user_id": pl.Int64, "item_id": pl.Int64, "score": pl.Float64}, orient="row")
    return qrels.unique(["user_id", "item_id"], keep="first", maintain_order=True), run


def _as_text(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col("user_id").cast(pl.String), pl.col("item_id").cast(pl.String))


def _evaluate(qrels: pl.DataFrame, run: pl.DataFrame, dialect: str) -> rankwise.EvaluationResult | str:
    train = pl.DataFrame({"user_id": [0], "item_id": [-1]})  # Elliot's AUC family needs each user's candidates
    try:
        return rankwise.evaluate(qrels, run, MEASURES, dialect=dialect, train=train, catalog=10_000)
    except rankwise.RankwiseError as exc:
        return str(exc)


@pytest.mark.parametrize("dialect", sorted({d.key for d in DIALECTS}))
@pytest.mark.parametrize("seed", range(6))
def test_integer_ids_give_the_results_of_their_text(dialect: str, seed: int) -> None:
    qrels, run = _frames(seed)
    as_int = _evaluate(qrels, run, dialect)
    as_text = _evaluate(_as_text(qrels), _as_text(run), dialect)
    mixed = _evaluate(qrels, _as_text(run), dialect)  # one side integers, the other text
    for other in (as_text, mixed):
        if isinstance(as_int, str) or isinstance(other, str):
            assert as_int == other
            continue
        assert as_int.query_ids == other.query_ids
        assert np.array_equal(as_int.values, other.values, equal_nan=True)
        assert as_int.notes() == other.notes()


def test_tied_integer_ids_are_ordered_by_their_text() -> None:
    # trec_eval orders tied documents by doc id text, descending: "9" before "10"; RePlay by number: 10 before 9
    qrels = pl.DataFrame({"user_id": [1], "item_id": [9], "rating": [1]})
    run = pl.DataFrame({"user_id": [1, 1], "item_id": [9, 10], "score": [1.0, 1.0]})
    assert rankwise.evaluate(qrels, run, "P@1").aggregate["P@1"] == 1.0
    assert rankwise.evaluate(qrels, run, "P@1", dialect="replay").aggregate["P@1"] == 0.0


@pytest.mark.parametrize("docs", [(-5, 0, 7), (3, 2**61, 12), (-(2**62), 2**62, 0)])
def test_extreme_integer_doc_ids_join_as_their_text(docs: tuple[int, int, int]) -> None:
    """Negative ids and ids whose (query, doc) key would not fit one int64 (joined on two keys instead)."""
    qrels = pl.DataFrame({"user_id": [1, 1, 2], "item_id": [docs[0], docs[1], docs[2]], "rating": [1, 0, 2]})
    run = pl.DataFrame({"user_id": [1, 1, 1, 2], "item_id": [docs[1], docs[0], docs[2], docs[2]],
                        "score": [3.0, 2.0, 2.0, 1.0]})  # fmt: skip
    measures = ["P@2", "AP", "nDCG@3", "RR"]
    as_int = rankwise.evaluate(qrels, run, measures)
    as_text = rankwise.evaluate(_as_text(qrels), _as_text(run), measures)
    assert as_int.query_ids == as_text.query_ids
    assert np.array_equal(as_int.values, as_text.values, equal_nan=True)
