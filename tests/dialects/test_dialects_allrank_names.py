"""allRank's own spelling of its metrics, ``NAME_K`` (its config's ``"metrics": ["ndcg_5", "mrr_10"]``), is read
under the allrank dialect as ``NAME@K``: allrank/config.py:105-115 ``_parse_metrics`` splits ``ndcg_5`` at the ``_``
into the metric ``ndcg`` and the int cutoff 5 (run below from a checkout when ``RANKWISE_ALLRANK_PATH`` is set)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import rankwise
from allrank_checkout import allrank_modules
from rankwise.errors import MeasureError

SPELLINGS = {"ndcg_5": "ndcg@5", "mrr_10": "mrr@10", "dcg_3": "dcg@3", "NDCG_1": "ndcg@1"}


def frames(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Random graded judgments and scores for 30 queries of 1-12 documents."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 13, 30)
    query = np.repeat(np.arange(30), sizes).astype(str)
    doc = np.concatenate([np.arange(n) for n in sizes]).astype(str)
    qrels = pl.DataFrame({"query_id": query, "doc_id": doc, "grade": rng.integers(0, 4, query.shape[0])})
    return qrels, pl.DataFrame({"query_id": query, "doc_id": doc, "score": rng.normal(size=query.shape[0])})


@pytest.mark.parametrize("seed", [0, 1])
def test_allranks_underscore_names_equal_the_at_names(seed: int) -> None:
    qrels, run = frames(seed)
    result = rankwise.evaluate(qrels, run, [*SPELLINGS, *SPELLINGS.values()], dialect="allrank")
    for theirs, ours in SPELLINGS.items():
        assert result.aggregate[theirs] == result.aggregate[ours]
        column = dict(zip(result.keys, result.values))  # one row of per-query values per measure
        assert np.array_equal(column[theirs], column[ours])
    assert result.aggregate["ndcg_5"] != result.aggregate["NDCG_1"]  # the cutoff is read, not dropped


def test_the_underscore_is_allranks_alone() -> None:
    qrels, run = frames(2)
    for dialect in (None, "ranx", "lightgbm"):
        with pytest.raises(MeasureError, match="unknown measure 'ndcg_5'"):
            rankwise.evaluate(qrels, run, ["ndcg_5"], dialect=dialect)
    with pytest.raises(MeasureError, match="unknown measure 'hits_5'"):  # not one of allRank's names
        rankwise.evaluate(qrels, run, ["hits_5"], dialect="allrank")


def test_through_rankwise_torch() -> None:
    torch = pytest.importorskip("torch")
    import rankwise.torch as rt

    g = torch.Generator().manual_seed(3)
    scores = torch.rand(50, 10, generator=g, dtype=torch.float64)
    labels = torch.randint(0, 4, (50, 10), generator=g)
    labels[:, 7:][torch.rand(50, generator=g) < 0.5] = -1  # allRank's padding
    got = rt.evaluate(scores, labels, [*SPELLINGS, *SPELLINGS.values()], dialect="allrank", dtype=torch.float64)
    for theirs, ours in SPELLINGS.items():
        assert torch.equal(got[theirs], got[ours])


def test_allranks_own_parser_reads_name_and_cutoff() -> None:
    (config,) = allrank_modules("allrank.config")
    parsed = config.Config._parse_metrics(["ndcg_5", "mrr_10", "dcg_3", "ndcg_1"])
    assert {name: ats for name, ats in parsed.items()} == {"ndcg": [5, 1], "mrr": [10], "dcg": [3]}
    assert {f"{name}@{k}" for name, ats in parsed.items() for k in ats} == {v for v in SPELLINGS.values()}
