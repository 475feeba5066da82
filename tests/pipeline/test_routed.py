"""Runs larger than memory, routed: lines moved unparsed into one text file per query range and each range scanned
(rankwise.pipeline.routed) — the numbers, notes and errors of the in-memory evaluation, and the general path
(rankwise.pipeline.partitioned) wherever the text is not what the scanner reads whole."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise
from rankwise.io import blocks
from rankwise.io.native import NATIVE
from rankwise.pipeline import partitioned, routed

pytestmark = pytest.mark.skipif(NATIVE is None, reason="the compiled scanner is not built (no C compiler at install)")

MEASURES = ["P@5", "AP", "nDCG@5", "RR", "bpref", "Rprec", "num_ret"]


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Small windows and ranges; records, per streamed evaluation, whether routing gave its values."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 1500)
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 40)
    seen: list[bool] = []
    original = routed.evaluate_routed

    def spy(*args: object, **kwargs: object) -> routed.Routed | None:
        result = original(*args, **kwargs)  # type: ignore[arg-type]
        seen.append(result is not None)
        return result

    monkeypatch.setattr(routed, "evaluate_routed", spy)
    return seen


def _lines(seed: int) -> tuple[list[str], list[str]]:
    """Qrels and run lines of ~30 queries (some only judged, some only run), shuffled, with score ties."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(30):
        docs = rng.choice(200, int(rng.integers(1, 25)), replace=False)
        if rng.random() < 0.9:
            qrels += [f"q{q} 0 d{d} {int(rng.integers(0, 3))}" for d in docs[: len(docs) // 2 + 1]]
        if rng.random() < 0.9:
            run += [f"q{q} Q0 d{d} {i + 1} {int(rng.integers(0, 4)) / 2} tag{seed}" for i, d in enumerate(docs)]
    return qrels, [run[i] for i in rng.permutation(len(run))]


def _same(qrels: Path | dict, run: Path, **options: object) -> None:
    streamed = rankwise.evaluate(qrels, run, MEASURES, stream=True, **options)  # type: ignore[arg-type]
    whole = rankwise.evaluate(qrels, run, MEASURES, stream=False, **options)  # type: ignore[arg-type]
    assert streamed.query_ids == whole.query_ids
    assert np.array_equal(streamed.values, whole.values, equal_nan=True)
    assert streamed.aggregate == whole.aggregate or all(
        a == b or (np.isnan(a) and np.isnan(b)) for a, b in zip(streamed.aggregate.values(), whole.aggregate.values())
    )
    assert streamed.notes() == whole.notes() and streamed.run_name == whole.run_name
    assert streamed.accounting == whole.accounting


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("layout", ["plain", "crlf", "comments", "no-final-newline", "tabs"])
def test_routed_equals_in_memory(tmp_path: Path, seed: int, layout: str, taken: list[bool]) -> None:
    qrels_lines, run_lines = _lines(seed)
    end = "\r\n" if layout == "crlf" else "\n"
    if layout == "comments":
        run_lines = ["# a comment", "", *run_lines[:7], "   ", "#another", *run_lines[7:]]
    if layout == "tabs":
        run_lines = [line.replace(" ", "\t  ", 2) for line in run_lines]
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(end.join(qrels_lines) + end)
    run.write_text(end.join(run_lines) + ("" if layout == "no-final-newline" else end))
    _same(qrels, run)
    assert taken == [True]


@pytest.mark.parametrize("options", [{"queries": "run"}, {"ties": "input_order"}, {"depth": 3}, {"judged_only": True}])
def test_routed_policies(tmp_path: Path, options: dict, taken: list[bool]) -> None:
    qrels_lines, run_lines = _lines(9)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    run.write_text("\n".join(run_lines) + "\n")
    _same(qrels, run, **options)
    assert taken == [True]


def test_judgments_not_from_a_scanned_file_are_split_by_range(tmp_path: Path, taken: list[bool]) -> None:
    """Qrels from a dict, from gzip, with a byte order mark: the run is routed, the qrels' frame split."""
    qrels_lines, run_lines = _lines(5)
    run = tmp_path / "run.txt"
    run.write_text("\n".join(run_lines) + "\n")
    as_dict: dict[str, dict[str, int]] = {}
    for line in qrels_lines:
        q, _, d, g = line.split()
        as_dict.setdefault(q, {})[d] = int(g)
    _same(as_dict, run)
    packed = tmp_path / "qrels.txt.gz"
    packed.write_bytes(gzip.compress(("\n".join(qrels_lines) + "\n").encode()))
    _same(packed, run)
    marked = tmp_path / "qrels_bom.txt"
    marked.write_bytes(b"\xef\xbb\xbf" + ("\n".join(qrels_lines) + "\n").encode())
    _same(marked, run)
    assert taken == [True, True, True]


def test_what_the_scanner_does_not_read_whole_takes_the_general_path(tmp_path: Path, taken: list[bool]) -> None:
    """Words after the tag (a note naming the file's line), a repeated pair, a bad score, gzip: the general path
    gives the in-memory notes and the file's own line."""
    qrels_lines, run_lines = _lines(3)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    extra = [*run_lines]
    extra[60] += " more words"
    run.write_text("\n".join(extra) + "\n")
    _same(qrels, run)
    assert "line 61" in " ".join(rankwise.evaluate(qrels, run, ["P@5"], stream=True).notes())
    run.write_text("\n".join([*run_lines, run_lines[2]]) + "\n")
    q, _, d = run_lines[2].split()[:3]
    with pytest.raises(rankwise.RankwiseError, match=re.escape(f"{run}:{len(run_lines) + 1}: query '{q}' doc '{d}'")):
        rankwise.evaluate(qrels, run, ["P@5"], stream=True)
    bad = [*run_lines]
    bad[70] = bad[70].rsplit(" ", 2)[0] + " oops tag"
    run.write_text("\n".join(bad) + "\n")
    with pytest.raises(rankwise.RankwiseError, match=r"run.txt:71: score 'oops' is not a number"):
        rankwise.evaluate(qrels, run, ["P@5"], stream=True)
    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(gzip.compress(("\n".join(run_lines) + "\n").encode()))
    _same(qrels, packed)
    assert taken == [False] * 5


def test_a_run_without_data_lines_is_refused_as_in_memory(tmp_path: Path, taken: list[bool]) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("# only a comment\n\n")
    with pytest.raises(rankwise.RankwiseError, match="no ranked documents"):
        rankwise.evaluate(qrels, run, ["P@5"], stream=True)
    run.write_text("other Q0 d1 1 1.0 t\n")
    messages = []
    for stream in (True, False):
        with pytest.raises(rankwise.RankwiseError) as caught:
            rankwise.evaluate(qrels, run, ["P@5"], stream=stream)
        messages.append(str(caught.value))
    assert messages[0] == messages[1] and "no query in common" in messages[0]


LINE = st.builds(
    lambda lead, q, rest, sep: f"{lead}{q}{sep}{rest}",
    st.sampled_from(["", " ", "\t", "\r"]),
    st.text("abq0123#", min_size=1, max_size=4),
    st.sampled_from(["Q0 d1 1 1.0 t", "x", ""]),
    st.sampled_from([" ", "\t", " \r "]),
)


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(st.one_of(LINE, st.sampled_from(["", "   ", "#c", "\r"])), max_size=40),
       final_newline=st.booleans(), parts=st.integers(1, 4), cut=st.integers(1, 60))  # fmt: skip
def test_the_router_moves_each_data_line_to_its_query_s_part(lines: list[str], final_newline: bool, parts: int,
                                                             cut: int) -> None:  # fmt: skip
    """Against the grammar read in Python: a data line is one whose first field (split on " \\t\\r\\v\\f") does not
    start with "#"; its bytes go unchanged, with a line end, to the part of its query, in order; counts per query."""
    assert NATIVE is not None
    text = "\n".join(lines) + ("\n" if final_newline else "")
    data = text.encode()
    first_fields = [line.replace("\r", " ").replace("\t", " ").split() for line in text.split("\n")]
    data_lines = [(line, fields[0]) for line, fields in zip(text.split("\n"), first_fields)
                  if fields and not fields[0].startswith("#")]  # fmt: skip
    router = NATIVE.Router()
    at = 0
    while at < len(data):  # counted in pieces of whole lines, as the file is read
        end = data.find(b"\n", min(at + cut, len(data))) + 1 or len(data)
        assert router.count(data[at:end]) == 0
        at = end
    ids = router.ids()
    assert ids == list(dict.fromkeys(q for _, q in data_lines))
    counts = np.zeros(len(ids), dtype=np.int64)
    router.counts(counts)
    assert counts.tolist() == [sum(q == i for _, q in data_lines) for i in ids]
    if not ids:
        return
    partition = np.array([hash(i) % parts for i in ids], dtype=np.int32)
    routed_parts = router.route(data, partition, parts)
    expected = [b"".join(f"{line}\n".encode() for line, q in data_lines if partition[ids.index(q)] == p)
                for p in range(parts)]  # fmt: skip
    assert routed_parts == expected


def test_the_router_refuses_what_it_cannot_route() -> None:
    assert NATIVE is not None
    router = NATIVE.Router()
    assert router.count("q\u00e9 Q0 d 1 1 t\n".encode()) == 1  # a query id not ASCII: the general path reads it
    router = NATIVE.Router()
    router.count(b"a Q0 d 1 1 t\n")
    with pytest.raises(ValueError, match="not counted"):
        router.route(b"b Q0 d 1 1 t\n", np.zeros(1, dtype=np.int32), 1)
    with pytest.raises(ValueError, match="out of range"):
        router.route(b"a Q0 d 1 1 t\n", np.full(1, 3, dtype=np.int32), 2)
    with pytest.raises(ValueError, match="each query id a part"):
        router.route(b"a Q0 d 1 1 t\n", np.zeros(0, dtype=np.int32), 1)
