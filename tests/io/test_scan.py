"""The compiled TREC scanner (rankwise.io.scan): ordinary files become tables of codes, anything irregular goes to the
polars readers, and an evaluation of scanned files is bit for bit the evaluation of the same rows read by polars.

tests/io/test_io_grammar.py fuzzes the scanner against the careful reader on every grammar case; here: which files
it takes, its number parsing against Python's float(), its repeated-pair check against a plain model, and whole
evaluations (ties, queries on one side only, documents judged but not ranked) against the frame path."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from rankwise import InputError
from rankwise.io import load_qrels, load_run
from rankwise.io.scan import NATIVE, scan_trec
from rankwise.io.table import Origin
from rankwise.io.trec import parse_trec

pytestmark = pytest.mark.skipif(NATIVE is None, reason="the rankwise.io._trecscan extension is not built")


def write(path: Path, text: str | bytes) -> str:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def test_ordinary_files_are_scanned_into_codes(tmp_path: Path) -> None:
    qrels = load_qrels(write(tmp_path / "q", "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"))
    run = load_run(write(tmp_path / "r", "# a comment\nq1 Q0 d1 1 2.5 tag\nq1\tQ0 d2 2 1.5 tag x\r\n"))
    assert qrels.codes is not None and run.codes is not None
    assert run.run_name == "tag" and run.height == 2
    assert run.notes == (f"{tmp_path / 'r'}: 1 line has fields after the tag (ignored, as trec_eval does); first at "
                         "line 3",)  # fmt: skip
    assert qrels.frame.rows() == [("q1", "d1", 0, 1), ("q1", "d2", 1, 0), ("q2", "d1", 2, 2)]
    assert run.frame.rows() == [("q1", "d1", 0, 2.5), ("q1", "d2", 1, 1.5)]
    assert run.origin.locate(1) == f"{tmp_path / 'r'}:3"


@pytest.mark.parametrize(
    "text, kind",
    [
        (b"q1 0 d1 1\nq1 0 d1 2\n", "qrels"),  # a repeated pair: the polars reader names both lines
        ("q1 0 d\u00e9 1\n".encode(), "qrels"),  # not ASCII
        (b"q1 0 d1 1.5\n", "qrels"),  # a real grade
        (b"q1 0 d1 99999999999999999999\n", "qrels"),  # beyond 64 bits
        (b"q1 Q0 d1 1 inf t\n", "run"),  # not finite
        (b"q1 Q0 d1 1 0x10 t\n", "run"),  # outside the grammar
        (b"q1 Q0 d1 1 1e400 t\n", "run"),  # overflows
        (b"q1 Q0 d1 1\n", "run"),  # short
        (b"q1 0 d1 1 x\n", "qrels"),  # long
        (b"# only a comment\n", "run"),
    ],
)
def test_irregular_input_goes_to_the_polars_readers(text: bytes, kind: str) -> None:
    assert scan_trec(text, kind, Origin("f")) is None  # type: ignore[arg-type]
    try:
        expected: object = parse_trec(text, kind, "f", careful=True).frame.rows()  # type: ignore[arg-type]
    except InputError as exc:
        expected = str(exc)
    try:
        got: object = parse_trec(text, kind, "f", scan=True).frame.rows()  # type: ignore[arg-type]
    except InputError as exc:
        got = str(exc)
    assert got == expected


def test_real_grades_and_thresholds_are_read_by_polars(tmp_path: Path) -> None:
    path = write(tmp_path / "q", "q1 0 d1 1\n")
    assert load_qrels(path, grades="real").codes is None
    assert load_qrels(path, threshold=1).codes is None


DECIMAL = st.from_regex(r"\A[+-]?([0-9]{1,25}(\.[0-9]{0,25})?|\.[0-9]{1,25})([eE][+-]?[0-9]{1,3})?\Z")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(DECIMAL, st.floats(allow_nan=False, allow_infinity=False).map(repr)), min_size=1,
                max_size=30))  # fmt: skip
def test_scores_parse_as_python_floats_do(texts: list[str]) -> None:
    finite = [t for t in texts if np.isfinite(float(t))]
    if not finite:
        return
    raw = "".join(f"q Q0 d{i} 1 {t} x\n" for i, t in enumerate(finite)).encode()
    table = scan_trec(raw, "run", Origin("f"))
    assert table is not None and table.codes is not None
    expected = np.array([float(t) + 0.0 for t in finite])
    assert table.codes.value.tobytes() == expected.tobytes()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 6)), min_size=1, max_size=40), st.booleans(), st.data())
def test_repeated_pair_is_the_first_row_repeating_an_earlier_one(pairs: list[tuple[int, int]], grouped: bool,
                                                                 data: st.DataObject) -> None:
    """Rows in any order, or grouped by query as runs are written (searched in one pass, without sorting); the
    columns whole or in chunks (split at other rows in each: read in place, or joined to be grouped)."""
    assert NATIVE is not None
    if grouped:
        pairs = sorted(pairs, key=lambda pair: pair[0])  # stable: each query's rows keep their order
    query = np.array([q for q, _ in pairs], dtype=np.int64)
    doc = np.array([d for _, d in pairs], dtype=np.int64)
    seen: set[tuple[int, int]] = set()
    expected = -1
    for row, pair in enumerate(pairs):
        if pair in seen:
            expected = row
            break
        seen.add(pair)
    assert NATIVE.first_repeated_pair((query,), 5, (doc,), 7) == expected
    for threads in (2, 3, 7):  # one range of queries per thread (at most one per 1 M rows: these are one range)
        assert NATIVE.first_repeated_pair((query,), 5, (doc,), 7, threads) == expected
    assert NATIVE.first_repeated_pair((query + 10,), 5, (doc - 3,), 7, 1, 10, -3) == expected  # ids offset by q0, d0
    cuts = sorted(data.draw(st.lists(st.integers(0, len(pairs)), max_size=4)))  # the columns' chunks, split apart
    query_chunks = tuple(np.split(query, cuts))
    doc_chunks = tuple(np.split(doc, sorted(data.draw(st.lists(st.integers(0, len(pairs)), max_size=4)))))
    assert NATIVE.first_repeated_pair(query_chunks, 5, doc_chunks, 7, 2) == expected


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text("ab1-_.", min_size=1, max_size=5), min_size=1, max_size=40, unique=True), st.randoms())
def test_coder_orders_ids_by_their_bytes_as_python_sorts_them(docs: list[str], rng: random.Random) -> None:
    """The scanner's text order of doc codes (no str made) is Python's sorted() of the ids (ASCII: the byte order;
    a prefix first), with some codes repeated and out of order."""
    assert NATIVE is not None
    table = scan_trec("".join(f"q1 Q0 {d} 1 {i} t\n" for i, d in enumerate(docs)).encode(), "run", Origin("r"))
    assert table is not None and table.codes is not None
    ids = table.codes.ids
    codes = np.array([rng.randrange(len(docs)) for _ in range(rng.randrange(1, 50))], dtype=np.int64)
    names = ids.text("doc", codes)
    assert ids.text_order("doc", codes).tolist() == sorted(range(len(codes)), key=lambda i: (names[i], i))


def random_files(rng: random.Random, tmp_path: Path) -> tuple[str, str]:
    """A run with tied scores, queries only in the run or only in the qrels, docs judged but never ranked."""
    qrels, run = [], []
    for q in range(rng.randint(1, 12)):
        qid = f"q{rng.randint(0, 30)}"
        docs = rng.sample(range(40), rng.randint(1, 20))
        if rng.random() < 0.85:
            qrels += [f"{qid} 0 d{d} {rng.choice([0, 0, 1, 2, 3, -1])}" for d in docs[: rng.randint(1, len(docs))]]
            qrels += [f"{qid} 0 j{q}_{k} {rng.randint(0, 2)}" for k in range(rng.randint(0, 3))]
        if rng.random() < 0.9:
            run += [f"{qid} Q0 d{d} 0 {rng.choice([1, 2, 2.5, 3, 0.1 * rng.randint(0, 9)])} t" for d in docs]
    qrels = first_of_each_pair(qrels) or ["q0 0 d0 1"]
    run = first_of_each_pair(run) or ["q0 Q0 d0 1 1 t"]
    rng.shuffle(run)
    return write(tmp_path / "qrels", "\n".join(qrels) + "\n"), write(tmp_path / "run", "\n".join(run) + "\n")


def first_of_each_pair(lines: list[str]) -> list[str]:
    """The lines whose (query, doc) pair no earlier line has."""
    kept: dict[tuple[str, str], str] = {}
    for line in lines:
        fields = line.split()
        kept.setdefault((fields[0], fields[2]), line)
    return list(kept.values())


MEASURES = ["nDCG@5", "AP", "RR", "P@3", "R@10", "Judged@5", "nDCG(ideal=uncut)@10", "bpref", "ERR@5", "NumRet"]


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("policies", [{}, {"ties": "docno_asc", "queries": "qrels"}, {"ties": "input_order"},
                                      {"ties": "average", "queries": "run"}, {"dialect": "ranx"},
                                      {"queries": "relevant", "depth": 3, "judged_only": True}])  # fmt: skip
def test_scanned_files_evaluate_as_frames_do(seed: int, policies: dict, tmp_path: Path) -> None:
    qrels_path, run_path = random_files(random.Random(seed), tmp_path)
    scanned_qrels, scanned_run = load_qrels(qrels_path), load_run(run_path)
    assert scanned_qrels.codes is not None and scanned_run.codes is not None
    frames = (parse_trec(Path(qrels_path).read_bytes(), "qrels", qrels_path, careful=True),
              parse_trec(Path(run_path).read_bytes(), "run", run_path, careful=True))  # fmt: skip
    measures = ["nDCG@5", "AP", "RR", "P@3"] if "dialect" in policies else MEASURES
    try:
        expected = rankwise.evaluate(*frames, measures, **policies)
    except InputError as exc:
        with pytest.raises(InputError, match=str(exc).split(":")[-1].strip()[:30]):
            rankwise.evaluate(scanned_qrels, scanned_run, measures, **policies)
        return
    pairs = ((scanned_qrels, scanned_run), (scanned_qrels, scanned_run), (scanned_qrels, frames[1]),
             (frames[0], scanned_run))  # the scanned pair twice: its hash tables are dropped after the first join
    for qrels, run in pairs:
        got = rankwise.evaluate(qrels, run, measures, **policies)
        assert got.query_ids == expected.query_ids
        assert got.values.tobytes() == expected.values.tobytes()
        assert got.notes() == expected.notes()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 6), st.integers(100, 140)), min_size=1, max_size=60),
       st.sampled_from([0, 10**12]))  # fmt: skip
def test_integer_id_frames_refuse_a_repeated_pair_by_its_rows(pairs: list[tuple[int, int]], shift: int) -> None:
    """Integer ids in a narrow range are checked by the compiled pass, wide ones by the int64 key: both refuse exactly
    the frames with a repeated (query, doc) pair, naming its first repetition and the row it repeats."""
    import polars as pl

    from rankwise.io.table import make_table

    frame = pl.DataFrame({"query_id": [q for q, _ in pairs], "doc_id": [d * (1 + shift) for _, d in pairs],
                          "value": [1] * len(pairs)})  # fmt: skip
    first: dict[tuple[int, int], int] = {}
    repeat = next(((row, first[pair]) for row, pair in enumerate(pairs) if pair in first or first.setdefault(pair, row)
                   is None), None)  # fmt: skip
    if repeat is None:
        assert make_table(frame, "qrels", Origin("f")).frame.height == len(pairs)
        return
    with pytest.raises(InputError, match=rf"^f row {repeat[0]}: .* appears twice in the qrels \(first at f row "
                                         rf"{repeat[1]}\)$"):  # fmt: skip
        make_table(frame, "qrels", Origin("f"))


def regular_text(rng: random.Random, kind: str) -> bytes:
    """A file the scanner takes: many lines, every separator and line end, comments, blank lines, extra run fields,
    lines on both sides of 64 bytes (split with bit masks below, byte by byte above)."""
    lines = []
    width = 4 if kind == "qrels" else 6
    for i in range(rng.randint(1, 300)):
        what = rng.random()
        if what < 0.08:
            lines.append(rng.choice(["", " ", "\t", "\r", "# a comment", "  #c x y"]))
            continue
        fields = [f"q{rng.randint(0, 20)}", "0", f"d{i}" + "x" * rng.choice([0, 0, 0, rng.randint(30, 70)])]
        fields += [str(rng.randint(-1, 3))] if kind == "qrels" else ["1", rng.choice(["1", "-0", "2.5", "1e-3", ".5",
                                                                                      "7."]), "tag"]  # fmt: skip
        if kind == "run" and what > 0.9:
            fields += ["extra", "more"]
        seps = [rng.choice([" ", "\t", "  ", " \t", "\x0b", "\x0c", "\r"]) for _ in range(len(fields) - 1)]
        line = fields[0] + "".join(sep + field for sep, field in zip(seps, fields[1:]))
        lines.append(rng.choice(["", " ", "\t"]) + line + rng.choice(["", " ", "\r"]))
    assert width
    end = rng.choice(["\n", "\r\n"])
    return (end.join(lines) + rng.choice(["", end])).encode()


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_chunks_and_threads_read_regular_files_as_the_careful_reader(seed: int, kind: str) -> None:
    """Files of up to 300 lines cut into chunks of 1 to 300 bytes over 1 to 7 threads: the rows, values, notes, run
    name and every row's line are the careful reader's."""
    rng = random.Random(seed)
    raw = regular_text(rng, kind)
    try:
        expected = parse_trec(raw, kind, "f", careful=True)  # type: ignore[arg-type]
    except InputError:
        assert scan_trec(raw, kind, Origin("f")) is None  # type: ignore[arg-type]
        return
    lines = [expected.origin.locate(row) for row in range(expected.height)]
    for threads, per_thread in ((1, 1 << 21), (2, 1), (3, rng.randint(1, 300)), (7, rng.randint(1, 40))):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RANKWISE_THREADS", str(threads))
            table = parse_trec(raw, kind, "f", scan=True)  # type: ignore[arg-type]
            direct = scan_trec(raw, kind, Origin("f"), bytes_per_thread=per_thread)  # type: ignore[arg-type]
        assert table.codes is not None and direct is not None
        for got in (table, direct):
            assert got.frame.rows() == expected.frame.rows()
            values = got.frame.get_column("value").to_numpy()  # bit for bit: -0 is read as 0 by every reader
            assert values.tobytes() == expected.frame.get_column("value").to_numpy().tobytes()
            assert (got.run_name, got.notes) == (expected.run_name, expected.notes)
        assert [table.origin.locate(row) for row in range(table.height)] == lines


@pytest.mark.parametrize("seed", range(3))
def test_repeated_pair_over_query_ranges_in_threads(seed: int) -> None:
    """Above 1 M rows the queries are split over threads: the same first repeated row as one thread and as numpy, the
    columns whole or in chunks."""
    assert NATIVE is not None
    rng = np.random.default_rng(seed)
    n, num_queries, num_docs = 3_000_000, 200_000, 2_000
    query, doc = rng.integers(0, num_queries, n), rng.integers(0, num_docs, n)
    key = query * num_docs + doc
    _, first = np.unique(key, return_index=True)
    repeated = np.ones(n, dtype=bool)
    repeated[first] = False
    expected = int(np.flatnonzero(repeated)[0]) if repeated.any() else -1
    assert [NATIVE.first_repeated_pair((query,), num_queries, (doc,), num_docs, t) for t in (1, 2, 3)] == [expected] * 3
    distinct = np.unique(key)  # no repeat at all
    assert NATIVE.first_repeated_pair((distinct // num_docs,), num_queries, (distinct % num_docs,), num_docs, 3) == -1
    shuffled = distinct[rng.permutation(len(distinct))]  # one repeat, near the end, of a row near the start: the
    late = len(shuffled) - 5  # two rows are counted and placed by different threads
    shuffled = np.insert(shuffled, late, shuffled[3])
    found = [NATIVE.first_repeated_pair((shuffled // num_docs,), num_queries, (shuffled % num_docs,), num_docs, t)
             for t in (1, 2, 3)]  # fmt: skip
    assert found == [late] * 3
    for cuts in ([late], sorted(rng.integers(0, len(shuffled), 40)), [1_000_000, 1_000_001, 2_500_000]):
        query_chunks = tuple(np.split(shuffled // num_docs, cuts))  # chunks read in place, cut where threads' blocks
        doc_chunks = tuple(np.split(shuffled % num_docs, sorted(rng.integers(0, len(shuffled), 7))))  # are not
        assert [NATIVE.first_repeated_pair(query_chunks, num_queries, doc_chunks, num_docs, t) for t in (1, 2, 3)] \
            == [late] * 3


def test_finding_another_files_ids_in_threads() -> None:
    """A run's codes for the qrels' ids (above 65,536 ids, split over threads): each id's code in the run, or −1."""
    rng = random.Random(5)
    run_docs = [f"d{rng.randint(0, 400_000)}" for _ in range(150_000)]
    qrels_docs = [f"d{rng.randint(0, 400_000)}" for _ in range(120_000)]
    run = scan_trec("".join(f"q{i % 7} Q0 {d} 1 1 t\n" for i, d in enumerate(dict.fromkeys(run_docs))).encode(), "run",
                    Origin("r"))  # fmt: skip
    qrels = scan_trec("".join(f"q1 0 {d} 1\n" for d in dict.fromkeys(qrels_docs)).encode(), "qrels", Origin("q"))
    assert run is not None and qrels is not None and run.codes is not None and qrels.codes is not None
    run_ids, qrels_ids = run.codes.ids, qrels.codes.ids
    position = {d: c for c, d in enumerate(run_ids.text("doc"))}  # type: ignore[attr-defined]
    expected = [position.get(d, -1) for d in qrels_ids.text("doc")]  # type: ignore[attr-defined]
    for threads in ("1", "3"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RANKWISE_THREADS", threads)
            assert run_ids.codes_of("doc", qrels_ids).tolist() == expected  # type: ignore[attr-defined]
            assert run_ids.codes_of("query", qrels_ids).tolist() == [1]  # type: ignore[attr-defined]
            run_ids.drop_index()  # type: ignore[attr-defined]  # freed after a join; built again when asked
            qrels_ids.drop_index()  # type: ignore[attr-defined]
            assert run_ids.codes_of("doc", qrels_ids).tolist() == expected  # type: ignore[attr-defined]


def test_files_are_scanned_where_they_lie(tmp_path: Path) -> None:
    """A plain file is scanned from its mapped pages, its rows named by their lines (read again only when asked); a
    byte order mark, gzip or text that is not ASCII is read, then scanned or given to the polars readers."""
    import gzip

    text = "# comment\nq1 Q0 d1 1 2.5 t\n\nq1 Q0 d2 2 1.5 t\nq2 Q0 d1 1 1 t\n"
    plain = load_run(write(tmp_path / "run", text))
    assert plain.codes is not None and [plain.origin.locate(row) for row in range(3)] == [
        f"{tmp_path / 'run'}:{line}" for line in (2, 4, 5)]  # fmt: skip
    bom = load_run(write(tmp_path / "bom", b"\xef\xbb\xbf" + text.encode()))
    (tmp_path / "run.gz").write_bytes(gzip.compress(text.encode()))
    zipped = load_run(tmp_path / "run.gz")
    assert bom.codes is not None and zipped.codes is not None
    assert bom.frame.rows() == zipped.frame.rows() == plain.frame.rows()
    latin = load_run(write(tmp_path / "latin", text.replace("d2", "d\u00e9")))
    assert latin.codes is None and latin.frame.get_column("doc_id").to_list() == ["d1", "d\u00e9", "d1"]
    with pytest.raises(rankwise.errors.EmptyInputError):
        load_run(write(tmp_path / "empty", ""))
