"""The input grammar: TREC qrels and runs read one way by both readers; CSV ids as text; JSON output valid.

TREC text: lines end at ``\\n``; fields are separated by any run of space, tab, CR, VT or FF (C's ``isspace``,
as trec_eval splits them); leading and trailing whitespace is ignored; blank lines and lines whose first field
starts with ``#`` are skipped; a NUL byte or a data line that is not UTF-8 is an error naming its line; a run
line may have fields after the tag (ignored and counted, as trec_eval ignores them), a qrels line may not.
The fast reader (polars' CSV reader), the careful one (line by line) and the compiled scanner (rankwise.io.scan,
which gives way to them on anything irregular) must agree on every input.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import rankwise
from rankwise import InputError
from rankwise.io.native import NATIVE
from rankwise.io.scan import scan_trec
from rankwise.io.table import Kind, Origin, Table
from rankwise.io.trec import _line_mapper, _parse_fast, _plain_separator, parse_trec
from rankwise.pipeline.formats import format_json

WHITESPACE = b" \t\r\x0b\x0c"
SPLIT = re.compile(rb"[ \t\r\x0b\x0c]+")
BOM = b"\xef\xbb\xbf"
WIDTH = {"qrels": 4, "run": 6}
FUZZ_EXAMPLES = int(os.environ.get("RANKWISE_FUZZ_EXAMPLES", "300"))


def write(path: Path, data: str | bytes) -> str:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


# ---------------------------------------------------------------------------------------------------------------
# A reference model of the grammar, in plain Python


def reference(raw: bytes, kind: Kind) -> str | list[tuple[int, list[bytes]]]:
    """The data lines as (line number, fields), or the structural error every reader must report."""
    if raw.startswith(BOM):
        raw = raw[len(BOM) :]
    if not raw or raw.isspace():
        return "f: file is empty"
    if b"\x00" in raw:
        line = raw.count(b"\n", 0, raw.find(b"\x00")) + 1
        return f"f:{line}: NUL byte"
    rows = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        stripped = line.strip(WHITESPACE)
        if stripped and not stripped.startswith(b"#"):
            rows.append((number, stripped, SPLIT.split(stripped)))
    for number, stripped, _ in rows:
        try:
            stripped.decode("utf-8")
        except UnicodeDecodeError:
            return f"f:{number}: not UTF-8 text"
    if not rows:
        return f"f: no {kind} lines"
    width = WIDTH[kind]
    for number, _, fields in rows:
        if len(fields) < width or (kind == "qrels" and len(fields) > width):
            return f"f:{number}: expected {width} columns ("
    return [(number, fields) for number, _, fields in rows]


def outcome(table_or_error: Table | str) -> tuple | str:
    if isinstance(table_or_error, str):
        return table_or_error
    table = table_or_error
    frame = table.frame
    return (
        dict(frame.schema),
        frame.rows(),
        [np.float64(v).tobytes() for v in frame.get_column("value").to_list()],  # -0.0 is not 0.0 here
        table.run_name,
        table.notes,
        [table.origin.locate(row) for row in range(frame.height)],
    )


def read(raw: bytes, kind: Kind, threshold: float | None, careful: bool, scan: bool = False) -> Table | str:
    try:
        return parse_trec(raw, kind, "f", threshold, careful=careful, scan=scan)
    except InputError as exc:
        return str(exc)


# ---------------------------------------------------------------------------------------------------------------
# Random TREC texts: clean ones (the fast reader's) and messy ones (everything the grammar allows or refuses)

NUMBERS = ["0", "1", "2", "3", "-1", "+1", "01", "-0", "1.0", "1.5", ".5", "5.", "1e3", "1E-3", "-2.25", "inf",
           "-inf", "nan", "NaN", "Infinity", "1e400", "0x10", "1_000", "abc", "9223372036854775808", "١",
           "1,5"]  # fmt: skip
QIDS = ["q1", "q2", "007", "7", "Q#", "#q", "é", "q\u00a0", "301"]
DOCS = [f"d{i}" for i in range(40)] + ["007", "7", "D#1", "ü", "a\u2028b", "x\x1cy"]
EXTRA = ["x", "more", "#", "0", "junk at end"]
SEPARATORS = [b" ", b" ", b" ", b"\t", b"  ", b" \t", b"\r", b"\x0b", b"\x0c", b"\t\t", b" \r "]
EDGES = [b"", b"", b"", b" ", b"\t", b"\r", b" \x0c", b"\x0b "]
NOT_UTF8 = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\x80"]
TWISTS = [b"\t", b"\r", b"\x0b", b"\x0c", b"\x00", b"  ", b" ", b"\n", b"\r\n", b"\n\n", b"\n#"]


@st.composite
def trec_text(draw: st.DrawFn, kind: Kind) -> bytes:
    """A qrels or run text. Profiles: ``valid`` (single-space, tab or CRLF files the fast reader takes, each
    maybe with one twist: a whitespace byte, NUL, blank line or extra field in one place), ``clean`` (the same
    separators, some short or long lines and bad values) and ``messy`` (every separator, edge, line end,
    blank, comment, NUL and non-UTF-8 byte the grammar has to handle, anywhere)."""
    profile = draw(st.sampled_from(["valid", "valid", "clean", "messy"]))
    messy, valid = profile == "messy", profile == "valid"
    plain_sep = draw(st.sampled_from([b" ", b" ", b"\t"]))
    eol = draw(st.sampled_from([b"\n", b"\n", b"\r\n"]))
    kinds = ["data"] * 8 + ["comment"] + ([] if valid else ["short", "long"])
    kinds += ["blank", "nul", "bad_utf8", "cr_only"] if messy else []
    width = WIDTH[kind]
    count = draw(st.integers(1, 8))
    docs = draw(st.permutations(DOCS))[:count] if valid else [draw(st.sampled_from(DOCS)) for _ in range(count)]
    lines = []
    for doc in docs:
        what = draw(st.sampled_from(kinds))
        if what == "blank":
            lines.append(draw(st.sampled_from(EDGES)))
            continue
        if what == "comment":
            body = draw(st.sampled_from(["#", "#c", "# a comment", "#q1 0 d1 1", "#\t\x0b"]))
            text = body.encode() if messy else re.sub(r"\s", plain_sep.decode(), body).encode()
            lines.append((draw(st.sampled_from(EDGES)) if messy else b"") + text)
            continue
        fields = [draw(st.sampled_from(QIDS)), draw(st.sampled_from(["0", "Q0"])), doc]
        tricky = not valid and draw(st.integers(0, 4)) == 0
        if kind == "run":
            score = draw(st.one_of(st.floats(-1e6, 1e6).map(repr), st.integers(-5, 5).map(str)))
            fields += [draw(st.sampled_from(["1", "0", "r"])), draw(st.sampled_from(NUMBERS)) if tricky else score]
            fields += [draw(st.sampled_from(["t", "t", "#t"]))]
        else:
            fields += [draw(st.sampled_from(NUMBERS if tricky else ["0", "1", "2", "-1"]))]
        encoded = [field.encode() for field in fields]
        if what == "short":
            encoded = encoded[: draw(st.integers(1, width - 1))]
        elif what == "long":
            encoded += [extra.encode() for extra in draw(st.lists(st.sampled_from(EXTRA), min_size=1, max_size=3))]
        elif what in ("nul", "bad_utf8", "cr_only"):
            i = draw(st.integers(0, len(encoded) - 1))
            insert = {"nul": b"\x00", "bad_utf8": draw(st.sampled_from(NOT_UTF8)), "cr_only": b"\r"}[what]
            encoded[i] = encoded[i][:1] + insert + encoded[i][1:]
        if messy:
            line = encoded[0]
            for field in encoded[1:]:
                line += draw(st.sampled_from(SEPARATORS)) + field
            line = draw(st.sampled_from(EDGES)) + line + draw(st.sampled_from(EDGES))
        else:
            line = plain_sep.join(encoded)
        lines.append(line)
    if not messy and draw(st.booleans()):  # one twist in a clean file: the fast reader must not miss it
        i = draw(st.integers(0, len(lines) - 1))
        twist = draw(st.sampled_from(TWISTS))
        where = draw(st.sampled_from(["start", "end", "end+field", "gap"]))
        gaps = [at for at, byte in enumerate(lines[i]) if byte == plain_sep[0]]
        if where == "start":
            lines[i] = twist + lines[i]
        elif where == "gap" and gaps:
            at = draw(st.sampled_from(gaps))
            lines[i] = lines[i][:at] + twist + lines[i][at + 1 :]
        else:
            lines[i] += twist + (b"x" if where == "end+field" else b"")
    if messy:
        text = b"".join(line + draw(st.sampled_from([b"\n", b"\r\n", b"\n\n"])) for line in lines)
        text = text[:-1] if draw(st.booleans()) else text  # no line end after the last line
        return (BOM if draw(st.integers(0, 9)) == 0 else b"") + text
    return eol.join(lines) + (eol if draw(st.booleans()) else b"")


@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
@given(data=st.data(), kind=st.sampled_from(["qrels", "run"]))
def test_fast_and_careful_readers_agree(data: st.DataObject, kind: Kind) -> None:
    raw = data.draw(trec_text(kind), label="text")
    threshold = data.draw(st.sampled_from([None, None, 1.5]), label="threshold") if kind == "qrels" else None
    careful = read(raw, kind, threshold, careful=True)
    both = read(raw, kind, threshold, careful=False)
    assert outcome(both) == outcome(careful)
    scanned = read(raw, kind, threshold, careful=False, scan=True)  # the compiled scanner first (rankwise.io.scan)
    if not isinstance(scanned, str) and scanned.codes is not None:
        event("scanner accepted")
    assert outcome(scanned) == outcome(careful)

    # Where the fast reader itself accepts the file, it agrees too (not only through its fallback).
    stripped = raw[len(BOM) :] if raw.startswith(BOM) else raw
    separator = _plain_separator(stripped) if stripped and not stripped.isspace() else None
    if separator is not None:
        try:
            fast = _parse_fast(stripped, kind, Origin("f", _line_mapper(stripped)), separator, threshold)
        except Exception:  # any refusal sends the file to the careful reader
            event("fast reader refused; careful reader decided")
        else:
            event("fast reader accepted")
            assert outcome(fast) == outcome(careful)
    else:
        event("careful reader only")

    # Both agree with a plain-Python model of the grammar.
    expected = reference(raw, kind)
    if isinstance(expected, str):
        assert isinstance(careful, str), (expected, careful)
        assert careful.startswith(expected), (expected, careful)
        event(f"refused: {expected.split(': ', 1)[1][:20]}")
    elif isinstance(careful, str):  # a bad value or id, or a duplicate pair: named by its data line
        lines = {f"f:{number}:" for number, _ in expected}
        assert careful.split(" ", 1)[0] in lines, careful
        event("refused: value or duplicate")
    else:
        event("accepted")
        rows = careful.frame.rows(named=True)
        assert [(r["query_id"], r["doc_id"]) for r in rows] == [
            (fields[0].decode(), fields[2].decode()) for _, fields in expected
        ]
        assert [careful.origin.locate(i) for i in range(len(rows))] == [f"f:{number}" for number, _ in expected]
        long_lines = [number for number, fields in expected if len(fields) > WIDTH[kind]]
        if kind == "run":
            assert careful.run_name == expected[0][1][5].decode()
        if long_lines:
            assert careful.notes == (
                f"f: {'1 line has' if len(long_lines) == 1 else f'{len(long_lines)} lines have'} fields after "
                f"the tag (ignored, as trec_eval does); first at line {long_lines[0]}",
            )
        else:
            assert careful.notes == ()


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.data_too_large])  # fmt: skip
@given(data=st.data(), kind=st.sampled_from(["qrels", "run"]), threads=st.sampled_from(["2", "3", "7"]),
       bytes_per_thread=st.sampled_from([1, 5, 40, 200]))  # fmt: skip
def test_the_scanner_on_many_threads_reads_what_one_reads(data: st.DataObject, kind: Kind, threads: str,
                                                          bytes_per_thread: int) -> None:  # fmt: skip
    """Lines split into chunks of a few bytes over several threads (the doc dictionary in as many parts): the same
    rows, values, notes, run name and line of every row as one thread, or the same refusal."""
    if NATIVE is None:
        pytest.skip("the rankwise.io._trecscan extension is not built")
    raw = data.draw(trec_text(kind), label="text")
    raw = raw[len(BOM) :] if raw.startswith(BOM) else raw

    def scanned(count: str, per_thread: int) -> tuple | None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RANKWISE_THREADS", count)
            table = scan_trec(raw, kind, Origin("f", _line_mapper(raw)), bytes_per_thread=per_thread)
        return None if table is None else outcome(table)

    one = scanned("1", 1 << 21)
    event("scanned" if one is not None else "not scanned")
    assert scanned(threads, bytes_per_thread) == one


@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize("separator", [b" ", b"\t"])
@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
def test_one_twist_anywhere_in_a_clean_file(kind: Kind, separator: bytes, eol: bytes) -> None:
    """Every whitespace byte, NUL, line break or extra field at every place of a clean two-line file: the two
    readers agree (the fast reader must notice each one, or read it as the careful reader does)."""
    fields = [b"q1", b"Q0", b"d1", b"1", b"2.5", b"t"] if kind == "run" else [b"q1", b"0", b"d1", b"1"]
    line = separator.join(fields)
    for which in (0, 1):
        lines = [line, line.replace(b"d1", b"d2")]
        gaps = [at for at, byte in enumerate(lines[which]) if byte == separator[0]]
        # a short line whose missing field is an empty one between two separators
        variants = [separator.join([*fields[:j], b"", *fields[j + 1 :]]) for j in range(len(fields))]
        for twist in [*TWISTS, b"\x0b\x0c", b" \t", b"\xff"]:
            variants += [twist + lines[which], lines[which] + twist, lines[which] + twist + b"x"]
            variants += [lines[which][:at] + twist + lines[which][at + 1 :] for at in gaps]
        for variant in variants:
            both = [variant, lines[1]] if which == 0 else [lines[0], variant]
            raw = eol.join(both) + (eol if which == 0 else b"")  # the last line with and without its end
            careful = read(raw, kind, None, careful=True)
            assert outcome(read(raw, kind, None, careful=False)) == outcome(careful), raw


def test_fast_reader_is_taken_for_ordinary_files() -> None:
    """Space- or tab-separated lines, CRLF line ends and comment lines never need the careful reader."""
    rng = np.random.default_rng(3)
    lines = [f"q{q} Q0 d{d} {r} {rng.random():.6f} tag" for q in range(20) for r, d in enumerate(range(50))]
    for text in (
        "\n".join(lines) + "\n",
        "# a comment\n" + "\r\n".join(lines),
        "\n".join(line.replace(" ", "\t") for line in lines) + "\n#c\n",
    ):
        raw = text.encode()
        separator = _plain_separator(raw)
        assert separator is not None
        table = _parse_fast(raw, "run", Origin("f", _line_mapper(raw)), separator, None)
        assert table.frame.height == len(lines) and table.run_name == "tag"


# ---------------------------------------------------------------------------------------------------------------
# The cases of issue #9, one by one


def test_a_tab_is_a_separator_whatever_the_other_lines_hold() -> None:
    """``d3<TAB>2`` is two fields, not a document named ``d3\\t2``: the line has 5 fields, in both readers."""
    for text in (b"q1 0 d1 1\nq1 0 d3\t2 1\n", b"q1 0 d1  1\nq1 0 d3\t2 1\n", b"q1\t0\td1\t1\nq1 0 d3\t2 1\n"):
        for careful in (False, True):
            with pytest.raises(InputError, match=r"^f:2: expected 4 columns .* found 5 \(trec_eval refuses"):
                parse_trec(text, "qrels", "f", careful=careful)


@pytest.mark.parametrize("separator", [b"\t", b"\x0b", b"\x0c", b"\r", b" \t ", b"  "])
def test_every_whitespace_byte_separates(separator: bytes) -> None:
    plain = parse_trec(b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\n", "run", "f")
    text = b"q1 Q0 d1 1 2.5 t\n" + separator.join(b"q1 Q0 d2 2 1.5 t".split(b" ")) + b"\n"
    for careful in (False, True):
        assert parse_trec(text, "run", "f", careful=careful).frame.equals(plain.frame)


def test_blank_whitespace_and_comment_lines_are_skipped() -> None:
    text = b"\xef\xbb\xbf# header\n\n \t\r\n  # indented comment\n\x0c\nq1 0 #d1 1\r\n#q1 0 d2 1\n q2\t0 d2 0 \n"
    for careful in (False, True):
        table = parse_trec(text, "qrels", "f", careful=careful)
        assert table.frame.select("query_id", "doc_id", "value").rows() == [("q1", "#d1", 1), ("q2", "d2", 0)]
        assert [table.origin.locate(i) for i in range(2)] == ["f:6", "f:8"]


def test_run_lines_with_fields_after_the_tag_are_read_and_counted(tmp_path: Path) -> None:
    """trec_eval ignores whatever follows the tag (get_trec_results.c:28); its test data has such lines."""
    plain = "301\tQ0\tD-1\t1\t  2.5\tSTD\n301\tQ0\tD-2\t2\t  1.5\tSTD\n303\tQ0\tD-3\t1\t  0.5\tSTD\n"
    lines = plain.splitlines()
    noisy = "\n".join([lines[0], lines[1] + " words after the tag", lines[2] + " more  "]) + "\n"
    table = rankwise.io.load_run(write(tmp_path / "run.txt", noisy))
    assert table.frame.equals(rankwise.io.load_run(write(tmp_path / "plain.txt", plain)).frame)
    name = str(tmp_path / "run.txt")
    assert table.notes == (f"{name}: 2 lines have fields after the tag (ignored, as trec_eval does); first at line 2",)
    one = rankwise.io.load_run(write(tmp_path / "one.txt", plain.replace("STD\n", "STD x\n", 1)))
    assert one.notes == (f"{tmp_path / 'one.txt'}: 1 line has fields after the tag (ignored, as trec_eval does); "
                         "first at line 1",)  # fmt: skip
    qrels = write(tmp_path / "qrels.txt", "301 0 D-1 1\n303 0 D-3 1\n")
    assert rankwise.evaluate(qrels, name, ["P@1"]).aggregate == {"P@1": 1.0}


def test_qrels_lines_with_extra_fields_are_refused() -> None:
    """trec_eval calls a qrels line with a field after the grade malformed (get_qrels.c:255-261)."""
    for careful in (False, True):
        with pytest.raises(InputError, match=r"^f:2: expected 4 columns \(query_id iteration doc_id grade\), found 5"):
            parse_trec(b"q1 0 d1 1\nq1 0 d2 1 extra\n", "qrels", "f", careful=careful)


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        (b"q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2\n", "run", r"^f:2: expected 6 columns .* found 4$"),
        (b"# c\n\nq1 0 d1\n", "qrels", r"^f:3: expected 4 columns .* found 3$"),
        (b"q1 0 d1 1\nq1 0 d\x002 1\n", "qrels", r"^f:2: NUL byte"),
        (b"q1 0 d1 1\n# a comment \x00\n", "qrels", r"^f:2: NUL byte"),
        (b"q1 0 d1 1\n q1 0 d\xff2 1\n", "qrels", r"^f:2: not UTF-8 text \(byte 0xff at column 8\)$"),
        (b"  \n\t\r\n", "run", r"^f: file is empty$"),
        (b"# only\n  #comments\n", "run", r"^f: no run lines"),
    ],
)
def test_structural_errors_name_the_line(text: bytes, kind: Kind, message: str) -> None:
    for careful in (False, True):
        with pytest.raises(InputError, match=message):
            parse_trec(text, kind, "f", careful=careful)


def test_comment_lines_need_not_be_utf8() -> None:
    for careful in (False, True):
        table = parse_trec(b"#\xff\xfe latin-1 caf\xe9\nq1 0 d1 1\n", "qrels", "f", careful=careful)
        assert table.frame.get_column("doc_id").to_list() == ["d1"]


def test_duplicate_pair_names_both_of_its_lines() -> None:
    """The message names the repeated pair's two lines, not the first two lines that are repeated later."""
    text = b"q 0 a 1\nq 0 b 1\nq 0 c 1\nq 0 b 0\nq 0 a 0\n"
    for careful in (False, True):
        with pytest.raises(InputError, match=r"^f:4: query 'q' doc 'b' appears twice in the qrels \(first at f:2\)$"):
            parse_trec(text, "qrels", "f", careful=careful)


# ---------------------------------------------------------------------------------------------------------------
# CSV / TSV / RecBole ids are text


def test_csv_ids_keep_their_zeros(tmp_path: Path) -> None:
    qrels = write(tmp_path / "qrels.txt", "007 0 001 1\n007 0 002 0\n010 0 7 1\n")
    run = write(tmp_path / "run.csv", "query_id,doc_id,score\n007,002,2.0\n007,001,1.0\n010,007,3.0\n010,7,2.0\n")
    table = rankwise.io.load_run(run)
    assert table.frame.get_column("query_id").to_list() == ["007", "007", "010", "010"]
    assert table.frame.get_column("doc_id").to_list() == ["002", "001", "007", "7"]
    result = rankwise.evaluate(qrels, run, ["P@1", "P@2", "RR"])
    assert result.per_query == {
        "007": {"P@1": 0.0, "P@2": 0.5, "RR": 0.5},
        "010": {"P@1": 0.0, "P@2": 0.5, "RR": 0.5},
    }


def test_tsv_and_recbole_ids_are_text_values_still_numbers(tmp_path: Path) -> None:
    tsv = write(tmp_path / "truth.tsv", "user_id\titem_id\trating\n01\t0042\t5\n01\t42\t3\n")
    table = rankwise.io.load_qrels(tsv, threshold=4)
    assert table.frame.select("query_id", "doc_id", "value").rows() == [("01", "0042", 1), ("01", "42", 0)]
    inter = write(tmp_path / "data.inter", "user_id:token\titem_id:token\trating:float\n1\t1.50\t4.0\n")
    table = rankwise.io.load_qrels(inter, threshold=4)
    assert table.frame.select("query_id", "doc_id", "value").rows() == [("1", "1.50", 1)]
    graded = write(tmp_path / "q.csv", "qid,docno,rel\n1,2,1.0\n1,3,2\n")
    assert rankwise.io.load_qrels(graded).frame.get_column("value").to_list() == [1, 2]
    bad = write(tmp_path / "r.csv", "qid,docno,score\n1,2,1.0\n1,3,high\n")
    with pytest.raises(InputError, match=r"r\.csv:3: score 'high' is not a number"):
        rankwise.io.load_run(bad)


def test_integer_ids_from_typed_sources_stay_integers_and_are_reported_as_text(tmp_path: Path) -> None:
    import polars as pl

    frame = pl.DataFrame({"query_id": [7], "doc_id": [1], "score": [1.0]})
    frame.write_parquet(tmp_path / "r.parquet")
    table = rankwise.io.load_run(tmp_path / "r.parquet")
    assert table.frame.schema["query_id"] == pl.Int64 and table.frame.get_column("query_id").to_list() == [7]
    result = rankwise.evaluate({"7": {"1": 1}}, tmp_path / "r.parquet", "P@1")  # text qrels, integer run ids
    assert result.query_ids == ("7",) and result.aggregate["P@1"] == 1.0


# ---------------------------------------------------------------------------------------------------------------
# JSON output is JSON


def test_json_output_has_no_infinity_or_nan() -> None:
    result = rankwise.evaluate({"q1": {"d1": 1}, "q2": {"d2": 1}}, {"q1": {"d1": 1.0}, "q2": {"d3": 1.0}}, ["DCG@5"])
    values = result.values.copy()
    values[0, :] = [math.inf, -math.inf]
    broken = dataclasses.replace(result, values=values, aggregate={"DCG@5": math.inf})
    text = format_json(broken)
    assert "Infinity" not in text and "NaN" not in text
    payload = json.loads(text, parse_constant=lambda name: pytest.fail(f"non-JSON constant {name}"))
    assert payload == {"aggregate": {"DCG@5": None}, "per_query": {"q1": {"DCG@5": None}, "q2": {"DCG@5": None}}}
    nan = dataclasses.replace(result, values=np.full_like(values, np.nan), aggregate={"DCG@5": math.nan})
    assert json.loads(format_json(nan))["aggregate"] == {"DCG@5": None}
