"""``rankwise.fuse``'s inputs and outputs: the fused run comes back in the kind the runs came in, is written as a
TREC, CSV or parquet run, and flows into ``evaluate`` and ``compare``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import rankwise

A = {"q1": {"d1": 3.0, "d2": 1.0, "d3": 0.5}, "q2": {"d1": 1.0, "d4": 2.0}}
B = {"q1": {"d2": 9.0, "d3": 1.0}, "q2": {"d4": 1.0, "d5": 0.5}}
QRELS = {"q1": {"d2": 1, "d3": 1}, "q2": {"d4": 2}}


def frame(run: dict) -> pl.DataFrame:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")


def write_trec(run: dict, path: Path) -> str:
    path.write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in run.items() for d, s in docs.items()))
    return str(path)


def test_the_output_kind_follows_the_input_kind(tmp_path: Path) -> None:
    expected = rankwise.fuse([A, B], "rrf")
    assert isinstance(expected, dict) and list(expected) == ["q1", "q2"]
    polars_out = rankwise.fuse([frame(A), frame(B)], "rrf")
    assert isinstance(polars_out, pl.DataFrame) and polars_out.columns == ["query_id", "doc_id", "rank", "score"]
    pandas_out = rankwise.fuse([frame(A).to_pandas(), frame(B).to_pandas()], "rrf")
    assert isinstance(pandas_out, pd.DataFrame)
    arrow_out = rankwise.fuse([frame(A).to_arrow(), frame(B).to_arrow()], "rrf")
    assert isinstance(arrow_out, pa.Table)
    paths = [write_trec(A, tmp_path / "a.txt"), write_trec(B, tmp_path / "b.txt")]
    from_paths = rankwise.fuse(paths, "rrf")
    for out in (polars_out, pl.from_pandas(pandas_out), pl.from_arrow(arrow_out), from_paths):
        as_dict: dict = {}
        for q, d, s in out.select("query_id", "doc_id", "score").iter_rows():  # type: ignore[union-attr]
            as_dict.setdefault(q, {})[d] = s
        assert as_dict == expected
    named = rankwise.fuse({"bm25": A, "dense": B}, "rrf")
    assert named == expected


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".tsv", ".parquet"])
def test_the_written_run_reads_back(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"fused{suffix}"
    fused = rankwise.fuse([frame(A), frame(B)], "wsum", weights=[0.3, 0.7], output=path, name="hybrid")
    back = rankwise.load_run(str(path)).frame.sort("row")
    assert back.get_column("doc_id").to_list() == fused.get_column("doc_id").to_list()
    assert back.get_column("value").to_list() == fused.get_column("score").to_list()  # exact: shortest repr
    if suffix == ".txt":
        assert path.read_text().splitlines()[0].split()[5] == "hybrid"


def test_a_tag_with_white_space_is_refused(tmp_path: Path) -> None:
    with pytest.raises(rankwise.InputError, match="run tag 'my run' must be one word"):
        rankwise.fuse([A, B], output=tmp_path / "x.txt", name="my run")


def test_fused_runs_flow_into_evaluate_and_compare(tmp_path: Path) -> None:
    fused = rankwise.fuse([frame(A), frame(B)], "rrf")
    result = rankwise.evaluate(QRELS, fused, ["nDCG@10", "AP"])
    assert set(result.aggregate) == {"nDCG@10", "AP"}
    path = tmp_path / "fused.txt"
    rankwise.fuse([A, B], "rrf", output=path)
    assert rankwise.evaluate(QRELS, str(path), "AP").aggregate["AP"] == pytest.approx(result.aggregate["AP"])
    comparison = rankwise.compare(QRELS, {"fused": fused, "a": A, "b": B}, ["AP"])
    assert set(comparison.to_polars("systems").get_column("system")) == {"fused", "a", "b"}
    assert comparison.pair("a", "fused", "AP").difference == pytest.approx(  # the baseline: the first system
        rankwise.evaluate(QRELS, A, "AP").aggregate["AP"] - result.aggregate["AP"])


def test_trained_methods_take_qrels_from_a_file(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    from_file = rankwise.fuse([A, B], "posfuse", qrels=str(qrels))
    assert from_file == rankwise.fuse([A, B], "posfuse", qrels=QRELS)
