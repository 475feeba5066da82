"""Systems compared within each user group (``rankwise.compare(..., groups=...)``, :func:`compare_groups`): each
group's paired tests are scipy's on the group's queries, and every report format carries a section per group (the
HTML page and ``--plots`` a plot of each measure by group)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import rankwise
from conftest import run_cli
from rankwise.comparison.groups import GroupComparison, compare_groups
from rankwise.comparison.report import render
from rankwise.comparison.report.plots import report_figures
from rankwise.comparison.systems import Comparison

MEASURES = ["nDCG@10", "P@5"]


def _inputs() -> tuple[dict, dict, dict[str, str]]:
    """40 queries; system b is clearly better on the "cold" half only."""
    rng = np.random.default_rng(5)
    qrels = {f"q{q}": {f"d{d}": int(d < 4) for d in range(20)} for q in range(40)}
    labels = {q: "cold" if i % 2 else "heavy" for i, q in enumerate(qrels)}
    runs = {}
    for name, boost in (("a", 0.0), ("b", 3.0)):
        runs[name] = {q: {d: float(rng.random() + (boost * g if labels[q] == "cold" else 0.0))
                          for d, g in judged.items()} for q, judged in qrels.items()}  # fmt: skip
    return qrels, runs, labels


QRELS, RUNS, LABELS = _inputs()


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return rankwise.compare(QRELS, RUNS, MEASURES, groups=LABELS, resamples=2000)


@pytest.fixture(scope="module")
def by_group(comparison: Comparison) -> GroupComparison:
    found = compare_groups(comparison)
    assert found is not None
    return found


def test_each_groups_test_is_scipys_on_the_groups_queries(comparison: Comparison, by_group: GroupComparison) -> None:
    assert by_group.name == "group" and by_group.sizes == {"cold": 20, "heavy": 20}
    for label in by_group.labels:
        part = by_group.part(label)
        members = [j for j, q in enumerate(comparison.query_ids) if LABELS[q] == label]
        assert list(part.query_ids) == [comparison.query_ids[j] for j in members]
        for m, key in enumerate(MEASURES):
            a, b = comparison.values[0, m, members], comparison.values[1, m, members]
            pair = part.pair("b", "a", key)
            expected = stats.ttest_rel(b, a)
            assert pair.n == len(members) and pair.difference == pytest.approx(float((b - a).mean()), rel=1e-12)
            assert pair.p_value == pytest.approx(expected.pvalue, rel=1e-9)
            assert part.summary("a", key).mean == pytest.approx(float(a.mean()), rel=1e-12)
        # Holm over the group's comparisons of each measure: one pair a measure, so the p-value stands
        assert [c.p_adjusted for c in part.comparisons] == [c.p_value for c in part.comparisons]
    cold, heavy = by_group.part("cold").pair("b", "a", "nDCG@10"), by_group.part("heavy").pair("b", "a", "nDCG@10")
    assert cold.significant and cold.difference > 0 and not heavy.significant  # b is better for the cold users only


def test_without_groups_there_is_no_group_section() -> None:
    plain = rankwise.compare(QRELS, RUNS, ["P@5"], resamples=2000)
    assert compare_groups(plain) is None
    assert "cold" not in render(plain, "markdown") and "group" not in render(plain, "json")


def test_every_report_format_has_a_section_per_group(comparison: Comparison, by_group: GroupComparison) -> None:
    markdown = render(comparison, "markdown", by_group=by_group)
    assert re.findall(r"^### (.*)$", markdown, re.M) == ["group = cold (20 queries)", "group = heavy (20 queries)"]
    latex = render(comparison, "latex", by_group=by_group)
    assert latex.count(r"\begin{table}") == 3 and r"\label{tab:comparison-2}" in latex
    assert r"\caption{group = cold (20 queries). Mean over 20 queries" in latex
    table = render(comparison, "table", width=200, by_group=by_group)
    assert table.count("Systems — group = ") == 2 and "Comparisons (difference = system − against; * significant) — " \
        "group = heavy (20 queries)" in table  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(render(comparison, "csv", by_group=by_group))))
    grouped = [r for r in rows if r["kind"].startswith("group_")]
    assert len(grouped) == sum(len(p.summaries) + len(p.comparisons) for _, p in by_group.parts)
    cold_pair = next(r for r in grouped if r["kind"] == "group_pair" and r["group"] == "cold" and r["measure"] == "P@5")
    assert float(cold_pair["p_adjusted"]) == by_group.part("cold").pair("b", "a", "P@5").p_adjusted
    payload = json.loads(render(comparison, "json", by_group=by_group))
    assert payload["groups"]["sizes"] == {"cold": 20, "heavy": 20}
    assert len(payload["groups"]["comparisons"]) == len(MEASURES) * 2


def test_the_html_page_and_the_plots_show_each_measure_by_group(comparison: Comparison, by_group: GroupComparison,
                                                                tmp_path: Path) -> None:  # fmt: skip
    pytest.importorskip("matplotlib")
    figures, _ = report_figures(comparison, max_k=5, spread_measure="", by_group=by_group)
    assert "groups" in figures
    panels = [ax for ax in figures["groups"].axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == [f"{key} by group" for key in MEASURES]
    assert [t.get_text() for t in panels[0].get_xticklabels()] == ["cold", "heavy"]
    page = render(comparison, "html", by_group=by_group, max_k=5, spread_measure="")
    assert "<h2>group = cold (20 queries)</h2>" in page and "Each measure by group" in page


def test_compare_on_the_command_line_with_groups(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, judged in QRELS.items() for d, g in judged.items()))
    runs = []
    for name, run in RUNS.items():
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(f"{q} Q0 {d} 0 {s!r} {name}\n" for q, docs in run.items() for d, s in docs.items()))
        runs.append(str(path))
    groups = tmp_path / "users.csv"
    groups.write_text("user_id,activity_band\n" + "".join(f"{q},{g}\n" for q, g in LABELS.items()))
    plots = str(tmp_path / "plots")
    code, out, err = run_cli("compare", str(qrels), *runs, "-m", "nDCG@10", "--groups", f"{groups}:activity_band",
                             "--format", "markdown", "--resamples", "1000", "--plots", plots)  # fmt: skip
    assert code == 0, err
    assert "### activity_band = cold (20 queries)" in out and "### activity_band = heavy (20 queries)" in out
    assert (tmp_path / "plots" / "groups.png").exists()
