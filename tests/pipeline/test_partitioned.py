"""Runs larger than memory (``stream=True``): read in blocks, partitioned by query on disk, computed partition by
partition — with the numbers, query order and notes of the in-memory evaluation, bit for bit. Plain TREC text is
routed (tests/pipeline/test_routed.py) where it can be; these tests hold both paths to the same answers."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import rankwise
from rankwise.dialects import DIALECTS
from rankwise.engine import rowops
from rankwise.io import blocks
from rankwise.pipeline import partitioned, routed

MEASURES = ["P@5", "R@5", "AP", "nDCG@5", "nDCG", "RR", "HitRate@5", "AUC", "bpref", "NumRelRet@5", "Rprec",
            "num_ret", "map", "gm_map"]  # fmt: skip


def _write(tmp_path: Path, seed: int, grouped: bool) -> tuple[Path, Path]:
    """A qrels and a run file: ~40 queries (some only in the run, some only judged), heavy score ties, comment and
    blank lines; the run's lines grouped by query or shuffled."""
    rng = np.random.default_rng(seed)
    qrels_lines, run_lines = [], []
    for q in range(40):
        docs = rng.choice(300, int(rng.integers(1, 30)), replace=False)
        if rng.random() < 0.9:
            judged = docs[: len(docs) // 2 + 1].tolist() + rng.choice(300, 3).tolist()
            qrels_lines += [f"q{q} 0 d{d} {int(rng.integers(-1, 4))}" for d in dict.fromkeys(judged)]
        if rng.random() < 0.9:
            run_lines += [f"q{q} Q0 d{d} {i + 1} {int(rng.integers(0, 4)) / 2} tag" for i, d in enumerate(docs)]
    if not grouped:
        run_lines = [run_lines[i] for i in rng.permutation(len(run_lines))]
    run_lines.insert(len(run_lines) // 2, "# a comment line\n")
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    run.write_text("\n".join(run_lines) + "\n")
    return qrels, run


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of ~2 KB and partitions of ~50 rows: dozens of each on the test files."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 2048)
    monkeypatch.setattr(blocks, "BLOCK_ROWS", 37)
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 50)


def _same(streamed: rankwise.EvaluationResult, whole: rankwise.EvaluationResult) -> None:
    assert streamed.query_ids == whole.query_ids
    assert np.array_equal(streamed.values, whole.values, equal_nan=True)
    assert list(streamed.aggregate) == list(whole.aggregate)
    for key, value in whole.aggregate.items():
        assert streamed.aggregate[key] == value or (np.isnan(value) and np.isnan(streamed.aggregate[key])), key
    assert streamed.notes() == whole.notes()
    assert streamed.accounting == whole.accounting
    assert streamed.run_name == whole.run_name


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dialect", [None, *sorted({d.key for d in DIALECTS})])
def test_streamed_equals_in_memory(tmp_path: Path, seed: int, grouped: bool, dialect: str | None,
                                   small_parts: None) -> None:  # fmt: skip
    qrels, run = _write(tmp_path, seed, grouped)
    measures = MEASURES if dialect is None else MEASURES[:11]
    train = pl.DataFrame({"user_id": ["q0"], "item_id": ["none"]})

    def run_it(stream: bool) -> rankwise.EvaluationResult | str:
        try:
            return rankwise.evaluate(qrels, run, measures, dialect=dialect, stream=stream, train=train, catalog=999)
        except rankwise.RankwiseError as exc:
            return str(exc)

    streamed, whole = run_it(True), run_it(False)
    if isinstance(whole, str) or isinstance(streamed, str):
        assert streamed == whole
        return
    _same(streamed, whole)


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_general_path_equals_in_memory(tmp_path: Path, seed: int, grouped: bool, small_parts: None,
                                       monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """The path every run file can take (TREC text that is not routed: rankwise.pipeline.routed gives way)."""
    monkeypatch.setattr(routed, "evaluate_routed", lambda *args, **kwargs: None)
    qrels, run = _write(tmp_path, seed, grouped)
    _same(rankwise.evaluate(qrels, run, MEASURES, stream=True), rankwise.evaluate(qrels, run, MEASURES, stream=False))


@pytest.mark.parametrize("options", [{"queries": "qrels"}, {"queries": "run"}, {"ties": "input_order"},
                                     {"depth": 7}, {"ties": "average"}, {"queries": "relevant", "rel_level": 2},
                                     {"judged_only": True, "depth": 9}])
def test_streamed_policies(tmp_path: Path, options: dict, small_parts: None) -> None:
    qrels, run = _write(tmp_path, 7, grouped=False)
    _same(rankwise.evaluate(qrels, run, MEASURES, stream=True, **options),
          rankwise.evaluate(qrels, run, MEASURES, stream=False, **options))  # fmt: skip


def test_gzip_and_parquet_runs_stream(tmp_path: Path, small_parts: None) -> None:
    qrels, run = _write(tmp_path, 3, grouped=False)
    whole = rankwise.evaluate(qrels, run, MEASURES)
    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(gzip.compress(run.read_bytes()))
    _same(rankwise.evaluate(qrels, packed, MEASURES, stream=True), whole)
    table = rankwise.io.load_run(run).frame.select("query_id", "doc_id", pl.col("value").alias("score"))
    table.write_parquet(tmp_path / "run.parquet")
    from_parquet = rankwise.evaluate(qrels, tmp_path / "run.parquet", MEASURES, stream=True)
    assert from_parquet.query_ids == whole.query_ids
    assert np.array_equal(from_parquet.values, whole.values, equal_nan=True)


def test_errors_name_the_file_line_across_blocks(tmp_path: Path, small_parts: None) -> None:
    """A bad score deep in the file names its line; a (query, doc) pair repeated in another block names both."""
    qrels, run = _write(tmp_path, 1, grouped=True)
    lines = run.read_text().splitlines()
    bad = lines.copy()
    bad[150] = bad[150].rsplit(" ", 2)[0] + " oops tag"
    run.write_text("\n".join(bad) + "\n")
    with pytest.raises(rankwise.RankwiseError, match=r"run.txt:151: score 'oops' is not a number"):
        rankwise.evaluate(qrels, run, ["P@5"], stream=True)
    first = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    repeated = [*lines, lines[first]]  # far from the first: another block
    run.write_text("\n".join(repeated) + "\n")
    q, _, d = lines[first].split()[:3]
    message = f"{run}:{len(repeated)}: query '{q}' doc '{d}' appears twice in the run (first at {run}:{first + 1})"
    with pytest.raises(rankwise.RankwiseError, match=re.escape(message)):
        rankwise.evaluate(qrels, run, ["P@5"], stream=True)
    with pytest.raises(rankwise.RankwiseError, match="appears twice"):
        rankwise.evaluate(qrels, run, ["P@5"], stream=False)


def test_no_common_query_is_the_same_error(tmp_path: Path, small_parts: None) -> None:
    qrels, run = _write(tmp_path, 2, grouped=True)
    qrels.write_text("other 0 d1 1\n")
    with pytest.raises(rankwise.RankwiseError) as streamed:
        rankwise.evaluate(qrels, run, ["P@5"], stream=True)
    with pytest.raises(rankwise.RankwiseError) as whole:
        rankwise.evaluate(qrels, run, ["P@5"], stream=False)
    assert str(streamed.value) == str(whole.value)


def test_stream_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(rankwise.RankwiseError, match="stream=True reads a run file"):
        rankwise.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["P@5"], stream=True)
    empty = tmp_path / "run.txt"
    empty.write_text("# nothing\n\n")
    with pytest.raises(rankwise.RankwiseError, match="no ranked documents"):
        rankwise.evaluate({"q": {"d": 1}}, empty, ["P@5"], stream=True)


def test_progress_is_reported(tmp_path: Path, small_parts: None) -> None:
    qrels, run = _write(tmp_path, 4, grouped=False)
    seen: list[tuple[str, int, int]] = []
    rankwise.evaluate(qrels, run, ["P@5"], stream=True, progress=lambda *event: seen.append(event))
    reading = [e for e in seen if e[0] == "reading"]
    computing = [e for e in seen if e[0] == "computing"]
    assert len(reading) > 3 and reading[-1][1] == reading[-1][2] == run.stat().st_size
    assert len(computing) > 3 and computing[-1][1] == computing[-1][2]


def test_cli_stream_prints_what_memory_prints(tmp_path: Path, small_parts: None) -> None:
    from click.testing import CliRunner

    from rankwise.cli import main

    qrels, run = _write(tmp_path, 5, grouped=False)
    outputs = []
    for flag in ("--stream", "--no-stream"):
        result = CliRunner().invoke(main, ["evaluate", str(qrels), str(run), "-q", "--format", "trec", flag, "--quiet"])
        assert result.exit_code == 0, result.output
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1] and outputs[0].count("\n") > 100


def test_progress_bar_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rankwise.cli.common import progress_bar

    with progress_bar() as report:
        assert report is None  # pytest's stderr is not a terminal
    terminal = io.StringIO()
    monkeypatch.setattr(terminal, "isatty", lambda: True)
    monkeypatch.setattr("sys.stderr", terminal)
    with progress_bar(enabled=False) as report:
        assert report is None
    with progress_bar() as report:
        assert report is not None
        report("reading", 5, 10)
        report("reading", 10, 10)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("dialect", [None, *sorted({d.key for d in DIALECTS})])
def test_in_memory_partitions_equal_one_pass(tmp_path: Path, seed: int, dialect: str | None,
                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Inputs in memory with more rows than a partition are computed range by range: the same result."""
    qrels_path, run_path = _write(tmp_path, seed, grouped=False)
    qrels, run = rankwise.io.load_qrels(qrels_path), rankwise.io.load_run(run_path)
    measures = MEASURES if dialect is None else MEASURES[:11]
    train = pl.DataFrame({"user_id": ["q0"], "item_id": ["none"]})

    def run_it() -> rankwise.EvaluationResult | str:
        try:
            return rankwise.evaluate(qrels, run, measures, dialect=dialect, train=train, catalog=999)
        except rankwise.RankwiseError as exc:
            return str(exc)

    whole = run_it()
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 40)
    parts = run_it()
    if isinstance(whole, str) or isinstance(parts, str):
        assert parts == whole
        return
    _same(parts, whole)


@pytest.mark.parametrize("integer_ids", [True, False])
def test_chunked_frames_in_partitions_equal_one_pass(integer_ids: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """DataFrames of many chunks (as parquet's row groups read) are read chunk by chunk, never copied whole: the
    same values in query ranges as from the same frames in one chunk, in one pass."""
    rng = np.random.default_rng(3)
    users, per_user = 60, 12
    recs = pl.DataFrame({"user_id": np.repeat(np.arange(users), per_user),
                         "item_id": rng.integers(0, 90, users * per_user),
                         "score": rng.random(users * per_user).round(2)})  # fmt: skip
    recs = recs.unique(["user_id", "item_id"], maintain_order=True).sample(fraction=1.0, shuffle=True, seed=1)
    truth = recs.sample(fraction=0.3, seed=2).select("user_id", "item_id").with_columns(rating=pl.lit(1, pl.Int64))
    if not integer_ids:
        as_text = (pl.col("user_id").cast(pl.String), pl.col("item_id").cast(pl.String))
        recs, truth = recs.with_columns(*as_text), truth.with_columns(*as_text)

    def chunked(frame: pl.DataFrame) -> pl.DataFrame:
        return pl.concat([frame.slice(start, 37) for start in range(0, frame.height, 37)], rechunk=False)

    measures = ["nDCG@10", "AP@10", "RR@10", "HitRate@10", "P@10", "R@10"]
    whole = rankwise.evaluate(truth, recs, measures, dialect="replay")
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 100)
    parts = rankwise.evaluate(chunked(truth), chunked(recs), measures, dialect="replay")
    assert chunked(recs).n_chunks() > 1
    _same(parts, whole)


def _sampled_lists(users: int, candidates: int, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Each user: 1 held-out positive scored among ``candidates − 1`` sampled negatives."""
    rng = np.random.default_rng(seed)
    items = np.stack([rng.choice(5000, candidates, replace=False) for _ in range(users)])
    recs = pl.DataFrame({"user_id": np.repeat(np.arange(users), candidates), "item_id": items.reshape(-1),
                         "score": rng.random(users * candidates)})  # fmt: skip
    truth = pl.DataFrame({"user_id": np.arange(users), "item_id": items[:, 0], "rating": np.ones(users, np.int64)})
    return truth, recs


def test_sampled_candidates_get_a_note_in_memory_and_in_partitions(monkeypatch: pytest.MonkeyPatch) -> None:
    truth, recs = _sampled_lists(30, 101)
    whole = rankwise.evaluate(truth, recs, ["nDCG@10", "HitRate@10"])
    note = [n for n in whole.notes() if n.startswith("sampled candidates?")]
    assert len(note) == 1 and "exactly 101 documents" in note[0] and "Krichene & Rendle" in note[0]
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 500)
    assert rankwise.evaluate(truth, recs, ["nDCG@10", "HitRate@10"]).notes() == whole.notes()
    top_k = recs.sort(["user_id", "score"], descending=[False, True]).group_by("user_id", maintain_order=True).head(10)
    assert not any(n.startswith("sampled") for n in rankwise.evaluate(truth, top_k, ["nDCG@10"]).notes())
    uneven = recs.with_row_index("i").filter(pl.col("i") != 3 * 101 + 100).drop("i")  # user 3: 100 candidates
    assert not any(n.startswith("sampled") for n in rankwise.evaluate(truth, uneven, ["nDCG@10"]).notes())


def test_parquet_duplicate_across_blocks_names_its_row(tmp_path: Path, small_parts: None) -> None:
    """Named columns (run_columns=) are read again with the same names to locate a pair repeated in another block."""
    rows = [(f"q{i % 7}", f"d{i}", float(i % 3)) for i in range(120)] + [("q0", "d0", 9.0)]
    path = tmp_path / "run.parquet"
    pl.DataFrame(rows, schema=["u", "i", "s"], orient="row").write_parquet(path)
    with pytest.raises(rankwise.RankwiseError, match=re.escape(f"{path} row 120: query 'q0' doc 'd0' appears twice "
                                                                  f"in the run (first at {path} row 0)")):  # fmt: skip
        rankwise.evaluate({"q0": {"d0": 1}}, path, ["P@5"], stream=True, run_columns=("u", "i", "s"))


@pytest.mark.parametrize("spread", ["narrow", "negative", "wide", "widening"])
def test_integer_ids_of_a_parquet_run_stream(tmp_path: Path, small_parts: None, spread: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Int64 user ids of a streamed parquet run are counted and routed through dense arrays where their range is
    narrow, through polars' group_by and join where it is not ("wide"), and switch from the first to the second when a
    later block widens the range: the in-memory numbers and notes every time."""
    rng = np.random.default_rng(7)
    users = {"narrow": np.arange(80), "negative": np.arange(80) - 1000, "wide": np.arange(80) * 10**12,
             "widening": np.concatenate([np.arange(79), [10**15]])}[spread]  # fmt: skip
    if spread == "widening":  # the wide id's rows last, so that earlier blocks were counted densely
        monkeypatch.setattr(rowops, "DENSE_SPAN_PER_ROW", 1)
    recs = pl.DataFrame({"user_id": np.repeat(users, 9), "item_id": rng.integers(0, 40, len(users) * 9),
                         "score": rng.integers(0, 5, len(users) * 9) / 4})  # fmt: skip
    recs = recs.unique(["user_id", "item_id"], maintain_order=True)
    if spread != "widening":
        recs = recs.sample(fraction=1.0, shuffle=True, seed=1)
    truth = recs.sample(fraction=0.4, seed=2).select("user_id", "item_id").with_columns(rating=pl.lit(1, pl.Int64))
    truth = pl.concat([truth, pl.DataFrame({"user_id": [int(users[0]) - 5], "item_id": [3], "rating": [1]})])
    recs.write_parquet(tmp_path / "recs.parquet", row_group_size=50)
    measures = ["nDCG@10", "AP@10", "RR@10", "P@10", "R@10"]
    for queries in ("qrels", "intersection"):  # a judged user with no list: counted 0 run rows
        whole = rankwise.evaluate(truth, recs, measures, queries=queries)
        _same(rankwise.evaluate(truth, tmp_path / "recs.parquet", measures, queries=queries, stream=True), whole)


@pytest.mark.parametrize("seed", range(4))
def test_dense_counts_and_partitions_are_polars_ones(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows per query id counted block by block (dense while the range stays narrow), and a frame split by its
    queries' partitions: the same as polars' group_by and join."""
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(rowops, "DENSE_SPAN_PER_ROW", 2)
    monkeypatch.setattr(partitioned, "DENSE_MOST", 1 << 21)
    blocks_ = [rng.integers(-50, 50, 300) * int(rng.choice([1, 1, 1, 10**5])) for _ in range(6)]
    counts = partitioned._QueryCounts()
    for ids in blocks_:
        counts.add(pl.Series("query_id", ids))
    got = counts.frame().sort("query_id")
    expected = pl.Series("query_id", np.concatenate(blocks_)).to_frame().group_by("query_id").len().sort("query_id")
    assert got.get_column("query_id").to_list() == expected.get_column("query_id").to_list()
    assert got.get_column("len").to_list() == expected.get_column("len").to_list()
    ids = got.get_column("query_id")
    queries = pl.DataFrame({"query_id": ids, "partition": rng.integers(0, 5, len(ids))})
    frame = pl.DataFrame({"query_id": np.concatenate(blocks_), "row": np.arange(1800)})
    lookup = partitioned._partition_lookup(queries)
    split, joined = partitioned._split(frame, queries, lookup), partitioned._split(frame, queries, None)
    assert sorted(split) == sorted(joined)
    assert all(split[key].equals(joined[key]) for key in joined)
