"""rankwise.compare: per-query alignment, the missing-query policy, tests and corrections against scipy.stats on the
same vectors, ranx's compare as a peer (t-test and Fisher p-values), errors, and the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as sp

import rankwise
from rankwise.cli import main
from rankwise.comparison.stats import adjust
from rankwise.comparison.systems import Comparison

EXAMPLES = Path(rankwise.__file__).resolve().parent / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
RUNS = [str(EXAMPLES / name) for name in ("run.txt", "run_rm3.txt", "run_dense.txt")]
MEASURES = ["nDCG@10", "AP", "P@5", "RR"]


def synthetic(queries: int = 40, systems: int = 3, seed: int = 0, shift: float = 0.4):
    """Qrels and tie-free runs as dicts; system s scores relevant documents higher by s × shift on average."""
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(30)} for q in range(queries)}
    for q in qrels:
        qrels[q]["d0"] = 2  # every query has a relevant document
    runs = []
    for s in range(systems):
        run = {}
        for q, judged in qrels.items():
            noise = rng.random(30) + np.arange(30) * 1e-9  # distinct scores: no ties
            run[q] = {f"d{d}": float(noise[d] + s * shift * judged[f"d{d}"] * rng.random()) for d in range(30)}
        runs.append(run)
    return qrels, runs


@pytest.fixture(scope="module")
def example() -> Comparison:
    return rankwise.compare(QRELS, RUNS, MEASURES)


def test_example_systems_means_and_per_query_values_are_evaluates(example: Comparison) -> None:
    assert example.systems == ("bm25-demo", "rm3-demo", "dense-demo")
    for s, run in enumerate(RUNS):
        result = rankwise.evaluate(QRELS, run, MEASURES)
        for m, key in enumerate(MEASURES):
            assert example.summary(example.systems[s], key).mean == pytest.approx(result.aggregate[key], abs=1e-15)
            columns = [example.query_ids.index(q) for q in result.query_ids]
            assert example.values[s, m, columns] == pytest.approx(result.values[m], abs=0)
    assert len(example.comparisons) == 2 * len(MEASURES)


def test_example_pairs_equal_scipy_on_the_same_vectors(example: Comparison) -> None:
    for c in example.comparisons:
        s, t, m = example.systems.index(c.system), example.systems.index(c.against), example.keys.index(c.measure)
        x, y = example.values[s, m], example.values[t, m]
        ref = sp.ttest_rel(x, y)
        assert c.statistic == pytest.approx(ref.statistic, rel=1e-9)
        assert c.p_value == pytest.approx(ref.pvalue, rel=1e-9)
        assert c.difference == pytest.approx(float(np.mean(x - y)), abs=1e-15)
        assert (c.wins, c.ties, c.losses) == (int((x > y).sum()), int((x == y).sum()), int((x < y).sum()))
    for key in example.keys:
        group = [c for c in example.comparisons if c.measure == key]
        expected = adjust(np.array([c.p_value for c in group]), "holm")
        assert [c.p_adjusted for c in group] == pytest.approx(expected.tolist())
        assert all(c.significant == (c.p_adjusted <= 0.05) for c in group)


@pytest.mark.parametrize("test", ["wilcoxon", "sign", "randomization"])
def test_other_tests_equal_scipy_through_compare(test: str) -> None:
    qrels, runs = synthetic(queries=16, systems=2)
    comparison = rankwise.compare(qrels, runs, ["nDCG@10", "AP"], test=test, correction="none")
    for c in comparison.comparisons:
        m = comparison.keys.index(c.measure)
        x, y = comparison.values[1, m], comparison.values[0, m]
        d = x - y
        if test == "wilcoxon":
            expected = sp.wilcoxon(x, y, method=sp.PermutationMethod(n_resamples=np.inf)).pvalue
        elif test == "sign":
            expected = sp.binomtest(int((d > 0).sum()), int((d != 0).sum())).pvalue
        else:
            expected = sp.permutation_test((x, y), lambda a, b: np.mean(a - b), permutation_type="samples",
                                           n_resamples=np.inf).pvalue  # fmt: skip
        assert c.p_value == pytest.approx(expected, rel=1e-9), c


def test_intervals_equal_scipy_bootstrap_on_the_same_vectors() -> None:
    qrels, runs = synthetic(queries=30, systems=2)
    comparison = rankwise.compare(qrels, runs, ["nDCG@10"], interval="percentile", resamples=2000, seed=5)
    for s, system in enumerate(comparison.systems):
        summary = comparison.summary(system, "nDCG@10")
        ref = sp.bootstrap((comparison.values[s, 0],), np.mean, n_resamples=2000, method="percentile",
                           rng=np.random.default_rng(5)).confidence_interval  # fmt: skip
        assert (summary.low, summary.high) == pytest.approx((ref.low, ref.high), abs=1e-12)
    pair = comparison.comparisons[0]
    ref = sp.bootstrap((comparison.values[1, 0] - comparison.values[0, 0],), np.mean, n_resamples=2000,
                       method="percentile", rng=np.random.default_rng(5)).confidence_interval  # fmt: skip
    assert (pair.low, pair.high) == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_ranx_compare_is_a_peer_for_t_test_and_fisher_p_values() -> None:
    """Same per-query values (ranx dialect, tie-free runs). Student: equal to 1e-9. Fisher: ranx draws its own
    permutations (numba's RNG), so its p and ours (Monte Carlo, 40 queries > 20) agree only within Monte-Carlo
    error: |Δp| ≤ 4·sqrt(p(1−p)(1/B₁ + 1/B₂)) + 2/B (ranx's p is #/B, ours (1 + #)/(1 + B))."""
    ranx = pytest.importorskip("ranx")
    qrels, runs = synthetic(queries=40, systems=3, shift=0.15)
    names = ["a", "b", "c"]
    ranx_runs = [ranx.Run(run, name=name) for run, name in zip(runs, names)]
    resamples = 10_000
    for stat_test, ours in (("student", "t"), ("fisher", "randomization")):
        report = ranx.compare(ranx.Qrels(qrels), ranx_runs, ["ndcg@10", "map"], stat_test=stat_test,
                              n_permutations=resamples, max_p=0.05)  # fmt: skip
        comparison = rankwise.compare(qrels, runs, ["nDCG@10", "AP"], names=names, dialect="ranx", test=ours,
                                      pairs="all", correction="none", resamples=resamples, seed=1)  # fmt: skip
        for ranx_key, key in (("ndcg@10", "nDCG@10"), ("map", "AP")):
            for name in names:
                assert comparison.summary(name, key).mean == pytest.approx(report.results[name][ranx_key], abs=1e-9)
            for c in (c for c in comparison.comparisons if c.measure == key):
                theirs = report.comparisons[c.system, c.against][ranx_key]["p_value"]
                if ours == "t":
                    assert c.p_value == pytest.approx(theirs, rel=1e-9)
                else:
                    p = (c.p_value + theirs) / 2
                    assert abs(c.p_value - theirs) <= 4 * math.sqrt(p * (1 - p) * 2 / resamples) + 2 / resamples


def test_missing_queries_scored_empty_or_dropped_and_counted() -> None:
    qrels, runs = synthetic(queries=12, systems=2)
    del runs[1]["q3"], runs[1]["q7"]
    empty = rankwise.compare(qrels, runs, ["nDCG@10", "RR"])
    full = rankwise.evaluate(qrels, runs[1], ["nDCG@10", "RR"], queries="qrels")
    assert len(empty.query_ids) == 12
    for m in range(2):
        assert empty.values[1, m] == pytest.approx(full.values[m], abs=0)  # empty rankings score 0
        assert empty.values[1, m, empty.query_ids.index("q3")] == 0.0
    assert any("2 queries evaluated for other systems but missing from this run were scored as empty" in n
               for n in empty.notes())  # fmt: skip
    assert all(c.n == 12 for c in empty.comparisons)
    dropped = rankwise.compare(qrels, runs, ["nDCG@10", "RR"], missing="drop")
    assert all(c.n == 10 for c in dropped.comparisons)
    assert dropped.summary(dropped.systems[1], "RR").n == 10 and dropped.summary(dropped.systems[0], "RR").n == 12
    assert any("left out of" in n and "missing=drop" in n for n in dropped.notes())


def test_undefined_values_are_left_out_pair_by_pair() -> None:
    qrels, runs = synthetic(queries=10, systems=2)
    for q in ("q1", "q2"):
        qrels[q] = {d: 0 for d in qrels[q]}  # no relevant document: MeanRank undefined
    comparison = rankwise.compare(qrels, runs, ["MeanRank", "RR"])
    assert comparison.pair(comparison.systems[1], comparison.systems[0], "MeanRank").n == 8
    assert comparison.pair(comparison.systems[1], comparison.systems[0], "RR").n == 10
    assert any("MeanRank: undefined for 2 of 10 queries" in n for n in comparison.notes())


def test_all_pairs_baselines_tukey_and_family() -> None:
    qrels, runs = synthetic(queries=30, systems=4, shift=0.3)
    every = rankwise.compare(qrels, runs, ["nDCG@10", "AP"], pairs="all", correction="bonferroni", family="all")
    assert len(every.comparisons) == 6 * 2
    raw = np.array([c.p_value for c in every.comparisons])
    assert [c.p_adjusted for c in every.comparisons] == pytest.approx(np.minimum(1, raw * 12).tolist())
    by_name = rankwise.compare(qrels, runs, ["nDCG@10"], baseline=every.systems[2])
    assert {c.against for c in by_name.comparisons} == {every.systems[2]}
    tukey = rankwise.compare(qrels, runs, ["nDCG@10"], test="tukey", pairs="all", resamples=2000)
    assert tukey.settings.correction.value == "none" and any("Tukey" in n for n in tukey.notes())
    assert all(0 < c.p_value <= 1 and c.p_value == c.p_adjusted for c in tukey.comparisons)
    strongest = max(tukey.comparisons, key=lambda c: abs(c.difference))
    assert strongest.p_value < 0.01


def test_inputs_names_and_tables(tmp_path: Path) -> None:
    qrels, runs = synthetic(queries=8, systems=2)
    named = rankwise.compare(qrels, {"base": runs[0], "new": runs[1]}, ["nDCG@10"], interval="t")
    assert named.systems == ("base", "new")
    assert named.to_polars("systems").shape == (2, 6)
    assert named.to_polars().columns[:4] == ["system", "against", "measure", "n"]
    assert named.to_polars("per_query").shape == (2 * 8, 4)
    assert named.to_pandas("systems")["mean"].tolist() == pytest.approx([s.mean for s in named.summaries])
    copies = [tmp_path / "first.txt", tmp_path / "second.txt"]
    for copy in copies:
        copy.write_text(Path(RUNS[0]).read_text())
    assert rankwise.compare(QRELS, copies, ["RR"]).systems == ("first.txt", "second.txt")  # same tags: file names
    assert rankwise.compare(QRELS, [RUNS[0], RUNS[0]], ["RR"]).systems == ("bm25-demo#1", "bm25-demo#2")
    default = rankwise.compare(QRELS, RUNS[:2])
    assert "map" in default.keys and "num_ret" not in default.keys
    assert any("left out (not a mean of per-query values): num_q" in n for n in default.notes())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"runs": RUNS[:1]}, "at least two runs"),
        ({"bogus": 1}, "unknown option 'bogus'"),
        ({"baseline": "nope"}, "baseline 'nope' is not one of the systems"),
        ({"measures": ["num_ret"]}, "aggregates by sum"),
        ({"alpha": 1.5}, "alpha must lie in"),
        ({"test": "z"}, "unknown test 'z'"),
        ({"names": ["a"]}, "1 names for 3 runs"),
    ],
)
def test_bad_requests_are_one_line_errors(kwargs: dict, message: str) -> None:
    arguments = {"runs": RUNS, "measures": ["RR"], **kwargs}
    with pytest.raises(rankwise.RankwiseError, match=message):
        rankwise.compare(QRELS, arguments.pop("runs"), arguments.pop("measures"), **arguments)


def invoke(*args: str, width: int = 100):
    return CliRunner().invoke(main, list(args), env={"COLUMNS": str(width)})


@pytest.mark.parametrize("width", [60, 100, 160])
def test_cli_table_fits_the_terminal(width: int) -> None:
    result = invoke("compare", QRELS, *RUNS, "-m", "nDCG@10", "-m", "AP", "-m", "P@5", "-m", "RR", width=width)
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.stdout.splitlines()) <= width
    assert "rm3-demo" in result.stdout and "Paired t-test against bm25-demo" in result.stdout.replace("\n", " ")
    assert "rankwise: note:" in result.stderr and "rankwise: note:" not in result.stdout


def test_cli_formats_options_and_output_file(tmp_path: Path) -> None:
    result = invoke("compare", QRELS, *RUNS, "-m", "nDCG@10", "--format", "json", "--test", "randomization",
                    "--baseline", "2", "-c", "--interval", "t")  # fmt: skip
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["settings"]["baseline"] == "rm3-demo" and payload["settings"]["test"] == "randomization"
    assert len(payload["query_ids"]) == 6  # -c: query 306, missing from every run, scored as empty rankings
    out = tmp_path / "table.tex"
    result = invoke("compare", QRELS, *RUNS, "-m", "AP", "--format", "latex", "-o", str(out))
    assert result.exit_code == 0 and result.stdout == "" and r"\toprule" in out.read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", QRELS, RUNS[0]], "at least two runs"),
        (["compare", QRELS, RUNS[0], "missing.txt"], "missing.txt"),
        (["compare", QRELS, *RUNS, "-m", "nDGC@10"], "did you mean"),
        (["compare", QRELS, *RUNS, "-c", "--queries", "run"], "-c contradicts"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(args: list[str], message: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("rankwise: error:") and message in lines[-1]
    assert "Traceback" not in result.output
