"""Output that fits: the table format and ``rankwise dialects`` fitted to the terminal without cutting a name,
machine-readable dialect output, a comparison as a DataFrame, and help text that reads whole."""

from __future__ import annotations

import csv
import io
import json
import re
import time
from pathlib import Path

import click
import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

import rankwise
from rankwise.cli import main
from rankwise.pipeline.formats import format_table

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "rankwise" / "examples"
QRELS, RUN = str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "run.txt")


def invoke(*args: str, width: int = 100) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), env={"COLUMNS": str(width)})
    return result.exit_code, result.stdout, result.stderr


def test_per_query_default_measures_switch_to_the_long_layout_and_cut_no_name() -> None:
    result = rankwise.evaluate(QRELS, RUN)
    text = format_table(result, per_query=True, width=100)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert lines[0].split() == ["query", "measure", "value"]
    rows = [line.split() for line in lines[2:-1]]
    assert len(rows) == (len(result.query_ids) + 1) * len(result.keys)  # every (query, measure), then "all"
    assert {row[1] for row in rows} == set(result.keys)  # every name whole: iprec_at_recall_0.10, not cut
    by_cell = {(row[0], row[1]): row[2] for row in rows}
    assert by_cell[("301", "map")] == f"{result.per_query['301']['map']:.4f}"
    assert by_cell[("all", "num_q")] == "5"


def test_per_query_table_is_wide_when_it_fits() -> None:
    result = rankwise.evaluate(QRELS, RUN, ["nDCG@10", "AP", "P@5"])
    lines = format_table(result, per_query=True, width=100).splitlines()
    assert lines[0].split() == ["query", "nDCG@10", "AP", "P@5"]
    assert lines[-2].split()[0] == "all" and lines[-1] == "5 queries, run bm25-demo"
    assert lines[2].split() == ["301", *(f"{result.per_query['301'][k]:.4f}" for k in result.keys)]
    assert format_table(result, per_query=True, width=20).splitlines()[0].split() == ["query", "measure", "value"]


def test_a_long_measure_name_is_never_cut() -> None:
    name = "AP(denom=min_k_R,precisions=every,precision_at=rank)@10"
    result = rankwise.evaluate(QRELS, RUN, [name])
    for per_query in (False, True):
        assert name in format_table(result, per_query=per_query, width=40)


def test_ten_thousand_queries_render_well_under_a_second() -> None:
    rng = np.random.default_rng(0)
    nq, nd = 10_000, 20
    qids, dids = np.repeat(np.arange(nq), nd).astype(str), np.tile(np.arange(nd), nq).astype(str)
    qrels = pl.DataFrame({"query_id": qids, "doc_id": dids, "relevance": rng.integers(0, 3, nq * nd)})
    run = pl.DataFrame({"query_id": qids, "doc_id": dids, "score": rng.random(nq * nd)})
    result = rankwise.evaluate(qrels, run, ["nDCG@10", "AP", "RR", "P@10", "R@100", "bpref", "NumRet"])
    for width in (200, 60):  # the wide layout, then the long one (70,000 rows)
        start = time.perf_counter()
        text = format_table(result, per_query=True, width=width)
        assert time.perf_counter() - start < 1.0
        assert text.count("\n") == 3 + (nq + 1) * (1 if width == 200 else 7)


def test_dialects_list_fits_the_terminal() -> None:
    for width in (80, 120):
        code, out, _ = invoke("dialects", width=width)
        assert code == 0
        too_wide = [line for line in out.splitlines() if len(line) > width and " " in line.strip()]
        assert too_wide == []
        assert "trec_eval@10" in out and "elliot@0.3" in out


def test_dialects_list_as_json_and_csv() -> None:
    _, out, _ = invoke("dialects", "--format", "json")
    records = json.loads(out)
    assert records[0]["dialect"] == "trec_eval@10" and {"summary", "follows", "proven"} <= set(records[0])
    _, out, _ = invoke("dialects", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [row["dialect"] for row in rows] == [record["dialect"] for record in records]


def test_dialect_comparison_fits_and_is_machine_readable() -> None:
    code, out, err = invoke("dialects", QRELS, RUN, "-m", "AP@10", "-m", "nDCG@10", width=80)
    assert code == 0, err
    assert all(len(line) <= 80 for line in out.splitlines() if " " in line.strip())
    assert out.splitlines()[0].split() == ["group", "dialect", "AP@10", "nDCG@10"]
    comparison = rankwise.compare_dialects(QRELS, RUN, ["AP@10", "nDCG@10"])
    trec = next(row for row in comparison.rows if row.dialect == "trec_eval@10")
    _, out, _ = invoke("dialects", QRELS, RUN, "-m", "AP@10", "-m", "nDCG@10", "--format", "json")
    payload = json.loads(out)
    assert payload["measures"] == ["AP@10", "nDCG@10"]
    assert payload["dialects"][0] == {"dialect": "trec_eval@10", "group": 1, "values": trec.values, "why": []}
    _, out, _ = invoke("dialects", QRELS, RUN, "-m", "AP@10", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[0]["dialect"] == "trec_eval@10" and float(rows[0]["value"]) == trec.values["AP@10"]


def test_compare_dialects_gives_dataframes_as_evaluate_does() -> None:
    comparison = rankwise.compare_dialects(QRELS, RUN, ["AP@10", "nDCG@10"], dialects=["trec_eval", "lightgbm"])
    frame = comparison.to_polars()
    assert frame.columns == ["dialect", "group", "measure", "value", "why"]
    assert frame.height == 4
    lightgbm = frame.filter((pl.col("dialect") == "lightgbm@4") & (pl.col("measure") == "AP@10"))
    assert lightgbm.get_column("value")[0] == comparison.rows[1].values["AP@10"]
    assert "denom=min_k_R" in lightgbm.get_column("why")[0]
    assert comparison.to_pandas().shape == (4, 5)


def _all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path, asked of the group as click does (the main group loads its commands only when asked)."""
    found = [prefix]
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        found += _all_commands(command, (*prefix, name)) if isinstance(command, click.Group) else [(*prefix, name)]
    return found


def test_every_command_is_checked() -> None:
    paths = _all_commands(main)
    assert ("evaluate",) in paths and ("trec_eval",) in paths and ("ltr", "train") in paths and len(paths) > 12


@pytest.mark.parametrize("path", _all_commands(main), ids=lambda p: " ".join(p) or "rankwise")
def test_help_reads_whole(path: tuple[str, ...]) -> None:
    code, out, _ = invoke(*path, "--help", width=80)
    assert code == 0
    assert "``" not in out and not re.search(r"(?<![\w'])`\w", out)  # no raw RST markup
    in_commands = False
    for line in out.splitlines():
        in_commands = in_commands or line.startswith("Commands:")
        if in_commands and line.startswith("  "):
            assert not line.rstrip().endswith("..."), line  # a summary cut mid-sentence


def test_short_version_flag() -> None:
    code, out, _ = invoke("-V")
    assert code == 0 and out.strip() == f"rankwise, version {rankwise.__version__}"
