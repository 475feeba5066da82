"""Every input form gives the same evaluation: TREC text, CSV, TSV, parquet, Arrow, LazyFrame, named columns."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

import rankwise
from rankwise import InputError

MEASURES = ["nDCG@3", "AP", "RR", "P@2", "bpref", "NumRet"]
QRELS = pl.DataFrame(
    {"query_id": ["a", "a", "a", "b", "b"], "doc_id": ["x", "y", "z", "x", "w"], "relevance": [2, 0, 1, 1, -1]}
)
RUN = pl.DataFrame(
    {"query_id": ["a", "a", "a", "b", "b"], "doc_id": ["y", "x", "q", "w", "x"], "score": [3.0, 2.0, 2.0, 0.5, 0.25]}
)


@pytest.fixture(scope="module")
def expected() -> dict[str, float]:
    return rankwise.evaluate(QRELS, RUN, MEASURES).aggregate


def test_reference_values(expected: dict[str, float]) -> None:
    # a: ranking y(0), then x(2) and q(unjudged) tied at 2.0 -> docno_desc puts x before q. R = 2 (x, z).
    #    AP = (1/2)/2 = 0.25; RR = 1/2; P@2 = 1/2; nDCG@3 = (2/log2 3) / (2 + 1/log2 3).
    # b: ranking w(-1), x(1). R = 1. AP = (1/2)/1; RR = 1/2; P@2 = 1/2; nDCG@3 = (1/log2 3)/1.
    #    bpref: a -> x has one judged non-relevant (y) above, N = 1, R = 2: 1 - min(1,2)/min(1,2) = 0 -> 0/2;
    #           b -> w (negative grade) is skipped, so x has none above: 1/1.
    log3 = 1.584962500721156
    assert expected["AP"] == pytest.approx((0.25 + 0.5) / 2, abs=1e-12)
    assert expected["RR"] == pytest.approx(0.5, abs=1e-12)
    assert expected["P@2"] == pytest.approx(0.5, abs=1e-12)
    assert expected["nDCG@3"] == pytest.approx(((2 / log3) / (2 + 1 / log3) + 1 / log3) / 2, abs=1e-12)
    assert expected["bpref"] == pytest.approx(0.5, abs=1e-12)
    assert expected["NumRet"] == 5


def test_trec_csv_tsv_parquet_files(tmp_path: Path, expected: dict[str, float]) -> None:
    trec_q, trec_r = tmp_path / "q.txt", tmp_path / "r.txt"
    trec_q.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS.iter_rows()))
    trec_r.write_text("".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, d, s in RUN.iter_rows()))
    assert rankwise.evaluate(str(trec_q), str(trec_r), MEASURES).aggregate == expected
    QRELS.write_csv(tmp_path / "q.csv")
    RUN.write_csv(tmp_path / "r.csv")
    assert rankwise.evaluate(tmp_path / "q.csv", tmp_path / "r.csv", MEASURES).aggregate == expected
    QRELS.write_csv(tmp_path / "q.tsv", separator="\t")
    RUN.write_csv(tmp_path / "r.tsv", separator="\t")
    assert rankwise.evaluate(tmp_path / "q.tsv", tmp_path / "r.tsv", MEASURES).aggregate == expected
    QRELS.write_parquet(tmp_path / "q.parquet")
    RUN.write_parquet(tmp_path / "r.parquet")
    assert rankwise.evaluate(tmp_path / "q.parquet", tmp_path / "r.parquet", MEASURES).aggregate == expected


def test_arrow_lazyframe_and_renamed_columns(expected: dict[str, float]) -> None:
    assert rankwise.evaluate(QRELS.to_arrow(), pa.table(RUN.to_dict(as_series=False)), MEASURES).aggregate == expected
    assert rankwise.evaluate(QRELS.lazy(), RUN.lazy(), MEASURES).aggregate == expected
    renamed = RUN.rename({"query_id": "user", "doc_id": "movie", "score": "points"})
    columns = {"query_id": "user", "doc_id": "movie", "value": "points"}
    assert rankwise.evaluate(QRELS, renamed, MEASURES, run_columns=columns).aggregate == expected
    with pytest.raises(InputError, match=r"column 'nope' not found"):
        rankwise.evaluate(QRELS, renamed, MEASURES, run_columns={**columns, "value": "nope"})


def test_bad_csv_row_is_named_by_line(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("query_id,doc_id,score\na,x,1.0\na,y,high\n")
    with pytest.raises(InputError, match=r"r\.csv:3: score 'high' is not a number"):
        rankwise.evaluate(QRELS, path, ["AP"])


def test_result_tables() -> None:
    result = rankwise.evaluate(QRELS, RUN, ["RR", "P@2"])
    table = result.to_polars()
    assert table.columns == ["query_id", "measure", "value"]
    assert table.height == 4
    assert table.filter(pl.col("measure") == "RR").get_column("value").to_list() == [0.5, 0.5]
    assert result.to_pandas().shape == (4, 3)
