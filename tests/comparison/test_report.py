"""Reports of a comparison: significance letters, LaTeX (booktabs, caption), Markdown, CSV/JSON of every number, the
terminal table's width, plots as PNG/SVG, the self-contained HTML page rendered by headless Chromium."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import rankwise
from rankwise.cli import main
from rankwise.comparison.report import render
from rankwise.comparison.report.plots import report_figures, save_figures
from rankwise.comparison.systems import Comparison

EXAMPLES = Path(rankwise.__file__).resolve().parent / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
RUNS = [str(EXAMPLES / name) for name in ("run.txt", "run_rm3.txt", "run_dense.txt")]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def clear() -> Comparison:
    """Three systems on 30 queries: c clearly better than a and b, a and b alike."""
    rng = np.random.default_rng(0)
    qrels = {f"q{q}": {f"d{d}": int(d < 5) for d in range(20)} for q in range(30)}
    runs = []
    for boost in (0.0, 0.05, 2.0):
        runs.append({q: {d: float(rng.random() + boost * g) for d, g in judged.items()} for q, judged in qrels.items()})
    return rankwise.compare(qrels, {"a": runs[0], "b": runs[1], "c": runs[2]}, ["nDCG@10", "P@5"], pairs="all")


def test_letters_mark_the_systems_beaten(clear: Comparison) -> None:
    c_vs_a = clear.pair("c", "a", "nDCG@10")
    assert c_vs_a.significant and c_vs_a.difference > 0
    assert not clear.pair("b", "a", "nDCG@10").significant
    table = render(clear, "markdown")
    assert re.search(r"\| c \| c \| [0-9.]+ᵃᵇ ", table)  # c beats a and b
    assert re.search(r"\| a \| a \| [0-9.]+ \[", table)  # a beats nobody


def test_latex_table_is_booktabs_with_superscripts_and_a_caption(clear: Comparison) -> None:
    text = render(clear, "latex")
    for command in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}{clrr}", r"\label{tab:comparison}"):
        assert command in text
    caption = re.search(r"\\caption\{(.*)\}", text).group(1)
    assert "Paired t-test" in caption and "Holm correction" in caption and r"$\alpha$ = 0.05" in caption
    row_c = next(line for line in text.splitlines() if line.startswith("c & c &"))
    assert r"\textbf{" in row_c and "$^{ab}$" in row_c  # best, and better than a and b
    row_a = next(line for line in text.splitlines() if line.startswith("a & a &"))
    assert r"\hphantom{$^{bc}$}" in row_a and "$^{" not in row_a.replace(r"\hphantom{$^{bc}$}", "")


def test_latex_escapes_names() -> None:
    from rankwise.comparison.report.latex import escape

    assert escape("bm25_rm3 & 50%") == r"bm25\_rm3 \& 50\%"


def test_csv_and_json_hold_every_number(clear: Comparison) -> None:
    rows = list(csv.DictReader(io.StringIO(render(clear, "csv"))))
    assert len(rows) == len(clear.summaries) + len(clear.comparisons)
    system_rows = [r for r in rows if r["kind"] == "system"]
    assert [float(r["value"]) for r in system_rows] == [s.mean for s in clear.summaries]  # full precision
    pair_rows = [r for r in rows if r["kind"] == "pair"]
    assert [float(r["p_adjusted"]) for r in pair_rows] == [c.p_adjusted for c in clear.comparisons]
    payload = json.loads(render(clear, "json"))
    assert payload["systems"] == ["a", "b", "c"] and payload["settings"]["correction"] == "holm"
    assert len(payload["per_query"]["c"]["nDCG@10"]) == len(clear.query_ids) == 30
    assert payload["comparisons"][0]["wins"] == clear.comparisons[0].wins


def test_json_is_valid_with_undefined_values() -> None:
    qrels = {"q1": {"d1": 1}, "q2": {"d1": 0}, "q3": {"d2": 1}}
    run = {q: {"d1": 1.0, "d2": 0.5} for q in qrels}
    comparison = rankwise.compare(qrels, [run, run], ["MeanRank", "RR"], names=["x", "y"])
    payload = json.loads(render(comparison, "json"))  # NaN and inf are null, never NaN tokens
    assert payload["comparisons"][0]["cohens_d"] is None


@pytest.mark.parametrize("width", [40, 60, 80, 120, 200])
def test_terminal_report_never_exceeds_the_width(clear: Comparison, width: int) -> None:
    text = render(clear, "table", width=width)
    assert max(len(line) for line in text.splitlines()) <= width
    assert "ᵃᵇ" in text


def test_plots_saved_as_png_and_svg(clear: Comparison, tmp_path: Path) -> None:
    figures, skipped = report_figures(clear, max_k=8)
    assert {"intervals", "differences", "cutoffs", "precision_recall", "dialects"} <= set(figures) and not skipped
    for image_format in ("png", "svg"):
        written = save_figures(figures, tmp_path / image_format, image_format)
        assert len(written) == len(figures)
        for path in written:
            head = path.read_bytes()[:200]
            assert head.startswith(PNG_SIGNATURE) if image_format == "png" else b"<svg" in path.read_bytes()[:2000]


def test_missing_matplotlib_is_one_line_naming_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import fails as if not installed
    result = CliRunner().invoke(main, ["compare", QRELS, *RUNS[:2], "-m", "AP", "--format", "html"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "rankwise: error: plots and the HTML report need matplotlib: pip install '.[report]' (in a rankwise checkout)"
    )


@pytest.fixture(scope="module")
def html_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("html") / "report.html"
    result = CliRunner().invoke(main, ["compare", QRELS, *RUNS, "-m", "nDCG@10", "-m", "AP", "-m", "P@5",
                                       "--format", "html", "-o", str(path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    return path


def test_html_is_self_contained(html_page: Path) -> None:
    text = html_page.read_text()
    assert text.count("<table>") == 2 and "bm25-demo" in text and "Paired t-test" in text
    sources = re.findall(r'<img alt="[^"]*" src="([^"]+)"', text)
    assert len(sources) == 5  # intervals, differences, cutoffs, precision-recall, dialects
    for source in sources:
        assert source.startswith("data:image/png;base64,")
        assert base64.b64decode(source.split(",", 1)[1]).startswith(PNG_SIGNATURE)
    assert not re.search(r"(src|href)=\"(https?:)?//", text) and "<script" not in text and "@import" not in text


def _chromium() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


@pytest.mark.skipif(_chromium() is None, reason="no chromium binary: `apt-get install chromium` (.ci/run does it)")
def test_html_renders_in_headless_chromium(html_page: Path, tmp_path: Path) -> None:
    """Chromium loads the page offline, the DOM keeps the tables and images, and the screenshot shows the plots:
    coloured pixels (matplotlib's blue and red) that text and table borders do not have."""
    import matplotlib.image

    browser = _chromium()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
             "--no-first-run", "--disable-extensions"]  # fmt: skip
    url = html_page.resolve().as_uri()
    dom = subprocess.run([browser, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert dom.stdout.count("<table>") == 2 and dom.stdout.count("<img ") == 5
    shot = tmp_path / "shot.png"
    done = subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1400,5000", url],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    assert shot.read_bytes().startswith(PNG_SIGNATURE)
    pixels = matplotlib.image.imread(str(shot))[..., :3]
    assert pixels.shape[0] >= 1000 and pixels.std() > 0.05  # not blank
    saturation = pixels.max(axis=2) - pixels.min(axis=2)
    assert (saturation > 0.4).mean() > 0.001  # plots drew in colour
