"""Output that fits the terminal (issue #28): every command's help and human output at the terminal's width
(``COLUMNS``, else the terminal's, else 100), wrapped at spaces and never inside a word; data formats never wrapped;
notes wrapped on a terminal only; the HTML report's tables inside a 1,200 px window."""

from __future__ import annotations

import html
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from test_output_fits import _all_commands

import rankwise
from rankwise.cli import main
from rankwise.cli.common import echo_notes
from rankwise.cli.layout import paragraphs
from rankwise.cli.recsys import _blocks
from rankwise.pipeline.formats import plain_table
from rankwise.wording import DEFAULT_WIDTH, MIN_WIDTH, fit, terminal_width, wrap

EXAMPLES = Path(rankwise.__file__).resolve().parent / "examples"
QRELS, RUN, RM3, DENSE = (str(EXAMPLES / name) for name in ("qrels.txt", "run.txt", "run_rm3.txt", "run_dense.txt"))
WIDTHS = (80, 100)
WIDE = 10_000
"""A width at which nothing wraps: the text as written, its words whole."""

RULE = re.compile(r"^[─━┏┓┗┛┡┩┃│┠┨╇╈┳┻┣┫├┤┼┬┴└┘┌┐╭╮╰╯═║]+$")


def invoke(args: list[str], width: int) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, args, env={"COLUMNS": str(width)})
    return result.exit_code, result.stdout, result.stderr


def too_wide(text: str, width: int) -> list[str]:
    """The lines of ``text`` longer than ``width``, but for a line that is one word longer than the width by
    itself (data: a path, a long measure name; it is never cut, so it cannot fit)."""
    one_word = [line.strip() for line in text.splitlines() if " " not in line.strip() and len(line.strip()) > width]
    return [line for line in text.splitlines() if len(line) > width and line.strip() not in one_word]


def words(text: str) -> set[str]:
    return {word for word in text.split() if not RULE.match(word)}


# --------------------------------------------------------------------------------------------------- the helpers
def test_the_width_is_columns_else_the_terminal_else_100(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_terminal(fd: int = 1) -> os.terminal_size:
        raise OSError("not a terminal")

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    assert terminal_width() == DEFAULT_WIDTH == 100 and terminal_width(default=77) == 77
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=1: os.terminal_size((123, 40)))
    assert terminal_width() == 123 and terminal_width(stream=sys.stderr) == 123
    monkeypatch.setenv("COLUMNS", "90")
    assert terminal_width() == 90 and terminal_width(stream=sys.stderr) == 90
    monkeypatch.setenv("COLUMNS", "12")
    assert terminal_width() == MIN_WIDTH


TEXT = st.lists(st.text("abcdefghij-/.()=@", min_size=1, max_size=30), min_size=1, max_size=40).map(" ".join)


@given(text=TEXT, width=st.integers(10, 120), indent=st.integers(0, 8), hang=st.integers(0, 8))
def test_wrap_keeps_every_word_whole_and_in_order(text: str, width: int, indent: int, hang: int) -> None:
    lines = wrap(text, width, " " * indent, " " * hang)
    assert " ".join(line.strip() for line in lines).split() == text.split()  # no word cut, lost or reordered
    for line in lines:
        assert len(line) <= width or " " not in line.strip(), line  # only a word longer than the width overflows
        assert len(line) <= max(width, len(line.strip()))  # and then it is not indented past what it needs


def test_a_long_path_moves_left_to_fit_rather_than_overflow() -> None:
    path = "mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala"  # 75 characters
    lines = wrap(f"follows Spark 4.0 {path} and more", 80, " " * 19)
    assert lines == [" " * 19 + "follows Spark 4.0", " " * 5 + path, " " * 19 + "and more"]
    assert wrap("the beyond-accuracy measures", 16) == ["the", "beyond-accuracy", "measures"]  # not "beyond-"
    fitted = fit("  short\n  " + "x " * 30, 30, hang=4).split("\n")
    assert fitted == ["  short", "  x" + " x" * 13, "      x" + " x" * 11, "      x" + " x" * 3]


def test_a_table_too_wide_wraps_headers_first_then_cells_then_becomes_records() -> None:
    headers = ["group", "items", "slot share", "note"]
    columns = [["big", "small publisher"], ["51", "25"], ["0.6200", "0.3800"], ["as the paper says", "–"]]
    natural = plain_table(headers, columns, [False, True, True, False])
    assert plain_table(headers, columns, [False, True, True, False], 200) == natural  # it fits: unchanged
    narrow = plain_table(headers, columns, [False, True, True, False], 44)
    assert max(map(len, narrow)) <= 44 and narrow[0].split() == ["group", "items", "slot", "note"]
    assert narrow[1].split() == ["share"] and words("\n".join(narrow)) == words("\n".join(natural))
    narrower = plain_table(headers, columns, [False, True, True, False], 34)
    assert max(map(len, narrower)) <= 34 and words("\n".join(narrower)) == words("\n".join(natural))
    records = plain_table(headers, columns, [False, True, True, False], 20)  # "publisher" + 3 numbers: too wide
    assert records[:6] == ["big", "    items: 51", "    slot share:", "      0.6200", "    note: as the",
                           "      paper says"] and records[6] == "small publisher"  # fmt: skip


def test_metric_columns_come_in_even_blocks_beside_the_first() -> None:
    assert _blocks([22, 10, 6, 6, 6, 6, 7, 6], 80) == [[0, 1, 2, 3, 4], [0, 5, 6, 7]]
    assert _blocks([22, 10, 6], 100) == [[0, 1, 2]]
    assert _blocks([22, 90, 6], 40) == [[0, 1], [0, 2]]  # too wide even alone: a block of its own
    assert _blocks([5], 40) == [[0]]


def test_click_paragraphs_keep_raw_blocks_and_wrap_the_rest() -> None:
    text = "One two three four five six.\n\n\b\nrankwise fuse a.txt b.txt -m wsum --norm min-max -o out.txt\nshort"
    assert paragraphs(text, 30, "  ") == ["  One two three four five six.", "", "  rankwise fuse a.txt b.txt -m",
                                          "      wsum --norm min-max -o", "      out.txt", "  short"]  # fmt: skip


# ------------------------------------------------------------------------------------------------------ help
PATHS = _all_commands(main)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "rankwise")
def test_help_fits_and_breaks_no_word(path: tuple[str, ...]) -> None:
    code, whole, _ = invoke([*path, "--help"], WIDE)
    assert code == 0
    for width in WIDTHS:
        code, out, _ = invoke([*path, "--help"], width)
        assert code == 0
        assert too_wide(out, width) == [], (width, too_wide(out, width))
        assert words(out) <= words(whole), (width, sorted(words(out) - words(whole)))  # each a word of the text


def test_help_uses_the_terminals_width_not_80() -> None:
    _, out, _ = invoke(["evaluate", "--help"], 140)
    assert max(map(len, out.splitlines())) > 100
    _, narrow, _ = invoke(["evaluate", "--help"], 100)
    assert 90 < max(map(len, narrow.splitlines())) <= 100


def test_every_command_is_enumerated_ltr_included() -> None:
    names = {" ".join(p) for p in PATHS}
    assert {"evaluate", "measures", "explain", "dialects", "compare", "recsys-experiment", "trec_eval"} <= names
    assert {"ltr train", "ltr predict", "ltr evaluate"} <= names


# ----------------------------------------------------------------------------------------------- human output
@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A ratings log for recsys-experiment (40 users × 15 of 60 items, random times: it runs in about a second),
    query groups of the example queries, item groups of the example run's documents."""
    folder = tmp_path_factory.mktemp("width")
    rng = random.Random(0)
    rows = [f"{u},{i},{rng.choice([1, 2, 3, 4, 5])},{rng.randint(0, 10**6)}"
            for u in range(40) for i in rng.sample(range(60), 15)]  # fmt: skip
    (folder / "ratings.csv").write_text("user_id,item_id,rating,timestamp\n" + "\n".join(rows) + "\n")
    (folder / "groups.tsv").write_text("qid\tlength\n301\tshort\n302\tlong\n303\tshort\n304\tlong\n305\tlong\n")
    docs = sorted({line.split()[2] for line in Path(RUN).read_text().splitlines()})
    (folder / "items.csv").write_text("item_id,provider\n" + "".join(f"{d},{'small publisher' if k % 3 else 'big'}\n"
                                                                      for k, d in enumerate(docs)))  # fmt: skip
    return {name.split(".")[0]: str(folder / name) for name in ("ratings.csv", "groups.tsv", "items.csv")}


HUMAN = {
    "measures": ["measures"],
    "explain": ["explain", "nDCG@10"],
    "explain dialect": ["explain", "AP(denom=min_k_R)@20", "--dialect", "elliot"],
    "explain global": ["explain", "Gini@10"],
    "dialects": ["dialects"],
    "dialects ranx": ["dialects", "ranx"],
    "dialects elliot": ["dialects", "elliot"],
    "dialects compared": ["dialects", QRELS, RUN, "-m", "AP@10", "-m", "nDCG@10"],
    "evaluate": ["evaluate", QRELS, RUN],
    "evaluate per query": ["evaluate", QRELS, RUN, "-q"],
    "evaluate groups": ["evaluate", QRELS, RUN, "-m", "nDCG@10", "-m", "AP", "--groups", "{groups}:length",
                        "--gap-interval", "stratified", "--resamples", "200"],
    "compare": ["compare", QRELS, RUN, RM3, DENSE, "-m", "nDCG@10", "-m", "AP", "-m", "P@5"],
    "compare groups": ["compare", QRELS, RUN, RM3, "-m", "nDCG@10", "--groups", "{groups}:length"],
    "item-groups": ["item-groups", RUN, "--item-groups", "{items}:provider", "-k", "10", "--qrels", QRELS],
    "recsys-experiment": ["recsys-experiment", "{ratings}", "--model", "popular"],
    "trec_eval -h": ["trec_eval", "-h"],
}  # fmt: skip
"""Each command's human output on the bundled examples (and small generated files)."""

PROSE = ("measures", "explain", "explain dialect", "explain global", "dialects", "recsys-experiment", "trec_eval -h")
"""Outputs that are text, laid out alike at every width but for their wrapping: their words at 80 columns are the
words at 10,000 (tables change layout with the width, and their rules change length)."""


@pytest.mark.parametrize("name", HUMAN)
def test_human_output_fits(name: str, files: dict[str, str]) -> None:
    args = [arg.format(**files) for arg in HUMAN[name]]
    outputs = {}
    for width in (*WIDTHS, WIDE) if name in PROSE else WIDTHS:
        code, out, err = invoke(args, width)
        assert code == 0, err
        outputs[width] = out
    for width in WIDTHS:
        assert too_wide(outputs[width], width) == [], (width, too_wide(outputs[width], width))
        if name in PROSE:
            assert words(outputs[width]) == words(outputs[WIDE]), sorted(words(outputs[width]) ^ words(outputs[WIDE]))


def test_the_issues_outputs_were_wide_and_the_names_stay_whole(files: dict[str, str]) -> None:
    """What #28 measured (measures past 100 columns, "why:" lines of 1,014 characters) reads whole at 80."""
    _, wide, _ = invoke(["recsys-experiment", files["ratings"], "--model", "popular"], WIDE)
    assert max(map(len, wide.splitlines())) > 300  # a reason line, unwrapped
    _, out, _ = invoke(["recsys-experiment", files["ratings"], "--model", "popular"], 80)
    for dialect in ("trec_eval@10", "daisyrec@2.0-benchmark", "openrec@tf1", "recsys_pytorch@0"):
        assert re.search(rf"^{re.escape(dialect)}\s+\S", out, re.M) and f"  {dialect}: " in out
    _, out, _ = invoke(["measures"], 80)
    for name in ("nDCG@k", "IPrec@x", "bpref", "GMAP"):
        assert re.search(rf"^{re.escape(name)}\s", out, re.M), name


DATA = {
    **{fmt: ["evaluate", QRELS, RUN, "-q", "--format", fmt] for fmt in ("csv", "json", "trec")},
    "dialects csv": ["dialects", "--format", "csv"],
    "dialects json": ["dialects", QRELS, RUN, "-m", "AP@10", "--format", "json"],
    "recsys csv": ["recsys-experiment", "{ratings}", "--model", "popular", "--format", "csv"],
}


@pytest.mark.parametrize("args", DATA.values(), ids=DATA.keys())
def test_data_formats_are_never_wrapped(args: list[str], files: dict[str, str]) -> None:
    args = [arg.format(**files) for arg in args]
    _, narrow, _ = invoke(args, 40)
    _, wide, _ = invoke(args, WIDE)
    assert narrow == wide and narrow


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_notes_wrap_on_a_terminal_and_stay_one_line_in_a_log(monkeypatch: pytest.MonkeyPatch) -> None:
    note = "1 judged query is missing from the run and was not evaluated (queries='qrels' / -c scores them 0): 306"
    monkeypatch.setenv("COLUMNS", "60")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    echo_notes([note])
    lines = terminal.getvalue().splitlines()
    assert len(lines) > 1 and all(len(line) <= 60 for line in lines)
    assert lines[0].startswith("rankwise: note: ") and all(line.startswith("    ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines) == f"rankwise: note: {note}"
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    echo_notes([note])
    assert log.getvalue() == f"rankwise: note: {note}\n"  # grep 'rankwise: note:' finds it whole


# -------------------------------------------------------------------------------------------------- HTML report
@pytest.fixture(scope="module")
def html_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("matplotlib", reason="the HTML report draws its plots with matplotlib")
    path = tmp_path_factory.mktemp("html") / "report.html"
    result = CliRunner().invoke(main, ["compare", QRELS, RUN, RM3, DENSE, "-m", "nDCG@10", "-m", "AP", "-m", "P@5",
                                       "--format", "html", "-o", str(path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    return path


def test_html_tables_may_wrap_their_text(html_page: Path) -> None:
    """The rules that let the tables fit: a table no wider than its box, text cells (names, the test) wrapping at
    spaces, numbers on one line, and a box that scrolls a table that cannot fit instead of the page."""
    text = html_page.read_text()
    style = re.search(r"<style>(.*?)</style>", text, re.S).group(1)  # type: ignore[union-attr]
    for rule in (r"table \{[^}]*max-width: 100%", r"td\.text \{[^}]*white-space: normal",
                 r"th, td \{[^}]*white-space: nowrap", r"\.fit \{[^}]*overflow-x: auto"):  # fmt: skip
        assert re.search(rule, style), rule
    comparisons = text.split("<h2>Comparisons</h2>")[1].split("</table>")[0].strip()
    assert comparisons.startswith('<div class="fit"><table>')
    rows = comparisons.count("</tr>") - 1  # after the header
    assert rows == 6 and comparisons.count('<td class="text">') == 4 * rows  # measure, system, against, test


def _chromium() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


PROBE = ('<script>addEventListener("load", () => document.body.setAttribute("data-widths", JSON.stringify({'
         'page: document.documentElement.scrollWidth, window: innerWidth, tables: [...document.querySelectorAll('
         '"table")].map(t => Math.ceil(t.getBoundingClientRect().right))})));</script>')  # fmt: skip
"""Added to a copy of the page (the report itself has no script): the page's and each table's rendered width."""


@pytest.mark.skipif(_chromium() is None, reason="no chromium binary: `apt-get install chromium` (.ci/run does it)")
def test_html_tables_fit_a_1200px_window(html_page: Path, tmp_path: Path) -> None:
    probe = tmp_path / "probe.html"
    probe.write_text(html_page.read_text().replace("</body>", PROBE + "</body>"))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
             "--no-first-run", "--disable-extensions"]  # fmt: skip
    for window in (1200, 900):
        done = subprocess.run([_chromium(), *flags, f"--window-size={window},900", "--dump-dom", probe.as_uri()],
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        found = re.search(r'data-widths="([^"]*)"', done.stdout)
        assert found is not None, done.stdout[-2000:]
        widths = json.loads(html.unescape(found.group(1)))
        assert widths["window"] == window and widths["page"] <= window, widths  # the page never scrolls sideways
        if window == 1200:
            assert len(widths["tables"]) == 2 and max(widths["tables"]) <= window, widths  # was 1,332 px
