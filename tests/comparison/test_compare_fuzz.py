"""A fuzzer of ``rankwise compare`` (issue #27), at a budget the suite can afford: few queries (0 to 5 shared),
every test, odd option values (seeds, resamples, α, names with ``$``, curve sizes). It holds: exit 0 with a report or
exit 2 with one error line (click's usage error for an option out of range), no traceback, no numpy warning (warnings
are errors here), less than 256 MB allocated (tracemalloc; the limits are in rankwise.limits), and no p-value below
what the test resolves with that many queries — so nothing over fewer than two queries is called significant."""

from __future__ import annotations

import csv
import io
import math
import os
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rankwise.cli import main
from rankwise.comparison.stats import smallest_p

pytestmark = pytest.mark.filterwarnings("error")

FUZZ_EXAMPLES = int(os.environ.get("RANKWISE_FUZZ_EXAMPLES", "25"))
"""The suite's budget (about 0.1 s an example); ``RANKWISE_FUZZ_EXAMPLES=1000`` fuzzes for real."""
MEMORY_BOUND = 256 << 20


def _files(root: Path, grades: list[list[int]], orders: list[list[list[int]]]) -> list[str]:
    """Qrels of the queries' grades and one run per system, ranking each query's documents in the order given."""
    (root / "qrels.txt").write_text("".join(f"q{q} 0 d{d} {g}\n" for q, row in enumerate(grades)
                                            for d, g in enumerate(row)))  # fmt: skip
    paths = [str(root / "qrels.txt")]
    for s, system in enumerate(orders):
        path = root / f"run{s}.txt"
        path.write_text("".join(f"q{q} Q0 d{d} {r + 1} {10 - r} s{s}\n" for q, order in enumerate(system)
                                for r, d in enumerate(order)))  # fmt: skip
        paths.append(str(path))
    return paths


@st.composite
def comparisons(draw: st.DrawFn) -> tuple[list[list[int]], list[list[list[int]]]]:
    queries = draw(st.integers(1, 5))
    grades = [draw(st.lists(st.integers(0, 2), min_size=3, max_size=3)) for _ in range(queries)]
    systems = draw(st.integers(2, 3))
    orders = [[draw(st.permutations([0, 1, 2])) for _ in range(queries)] for _ in range(systems)]
    return grades, orders


OPTIONS = st.fixed_dictionaries({}, optional={
    "--test": st.sampled_from(["t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey"]),
    "--resamples": st.sampled_from(["1", "39", "40", "500", "0", "-3", "100000000", "2.5"]),
    "--seed": st.sampled_from(["0", "7", "-1", "4294967296", "x"]),
    "--alpha": st.sampled_from(["0.05", "0.5", "0", "1", "nan"]),
    "--interval": st.sampled_from(["t", "percentile", "bca"]),
    "--names": st.sampled_from(["a$b,c$^{", "x,", "a,a", "$x$,$y$,$z$", "n1,n2"]),
    "--correction": st.sampled_from(["none", "holm", "bh"]),
    "--curve-k": st.sampled_from(["1", "3", "0", "1000000000"]),
})  # fmt: skip


@settings(max_examples=FUZZ_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip
@given(case=comparisons(), options=OPTIONS, output=st.sampled_from(["csv", "table"]), all_pairs=st.booleans())
def test_fuzz_compare_reports_or_says_one_line(tmp_path: Path, case, options: dict, output: str,
                                               all_pairs: bool) -> None:  # fmt: skip
    grades, orders = case
    files = _files(tmp_path, grades, orders)
    args = ["compare", *files, "-m", "AP", "-m", "nDCG@2", "--format", output, "--spread", "none"]
    args += [item for pair in options.items() for item in pair] + (["--all-pairs"] if all_pairs else [])
    tracemalloc.start()
    try:
        result = CliRunner().invoke(main, args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.exit_code in (0, 2) and "Traceback" not in result.output, (args, result.exception, result.output)
    assert peak < MEMORY_BOUND, (args, peak)
    event(f"exit {result.exit_code}")
    errors = [line for line in result.stderr.splitlines() if line and not line.startswith("rankwise: note: ")]
    if result.exit_code == 2:
        assert result.stdout == "", args
        usage = errors and errors[-1].startswith("Error: Invalid value")  # click: Usage / Try / Error lines
        assert usage or (len(errors) == 1 and errors[0].startswith("rankwise: error: ")), (args, result.stderr)
        return
    assert errors == [], (args, result.stderr)
    if output != "csv":
        return
    test = options.get("--test", "t")
    resamples = int(options.get("--resamples", "10000"))
    systems = len(orders)
    for row in csv.DictReader(io.StringIO(result.stdout)):
        if row["kind"] != "pair":
            continue
        n, p = int(row["n"]), float(row["p_value"] or "nan")
        if n < 2 or math.isnan(p):
            assert row["significant"] != "True", (args, row)
            continue
        assert p >= smallest_p(test, n, resamples, systems) * (1 - 1e-12), (args, row)
