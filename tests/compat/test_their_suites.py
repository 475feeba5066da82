"""The libraries' own test suites, run against rankwise's compat modules: ir_measures' ``tests/`` from its sdist (and
pytrec_eval's ``tests/`` from a checkout of its repository, which its sdist lacks) with ``import ir_measures``
(``pytrec_eval``) resolving to :mod:`rankwise.compat.ir_measures` (:mod:`rankwise.compat.pytrec_eval`), their
expected values untouched.

``.ci/run`` downloads the sdists into ``.sdists/`` and names the folder in ``RANKWISE_COMPAT_SDISTS``;
``RANKWISE_PYTREC_EVAL_TESTS`` names the ``tests/`` folder of a cvangysel/pytrec_eval checkout. Without them these
tests skip, saying why. Each suite runs in a pytest subprocess whose ``PYTHONPATH`` starts with a package of the
library's name that puts the compat module in its place (``sys.modules``), and its JUnit report is read: every test
must pass but those listed in :data:`EXPECTED_FAILURES`, each with why and a fragment of the failure it must fail with
(so a listed test failing for another reason fails here)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

SDISTS = os.environ.get("RANKWISE_COMPAT_SDISTS")

PROVIDER = "ir_measures' providers (its per-tool back ends) are not emulated: rankwise computes every measure itself"


@dataclass(frozen=True)
class Expected:
    """A test of theirs that fails against the compat module: why, and a fragment of its failure message."""

    why: str
    fails_with: str


EXPECTED_FAILURES: dict[str, dict[str, Expected]] = {
    "ir_measures": {
        "test_accuracy::test_accuracy": Expected(PROVIDER + " (ir_measures.accuracy)", "attribute 'accuracy'"),
        "test_compat::test_measures": Expected(
            "a bug of theirs: compat.qrels and compat.run are not in the sdist (it fails with ir_measures too)",
            "compat.qrels",
        ),
        "test_cwl_eval::test_measures": Expected(
            "a bug of theirs: cwl.qrels is not in the sdist (it fails with ir_measures too)", "cwl.qrels"
        ),
        "test_gdeval::test_ERR": Expected(PROVIDER + " (ir_measures.gdeval)", "attribute 'gdeval'"),
        "test_gdeval::test_nDCG": Expected(PROVIDER + " (ir_measures.gdeval)", "attribute 'gdeval'"),
        "test_judged::test_judged": Expected(PROVIDER + " (ir_measures.judged)", "attribute 'judged'"),
        "test_measures::test_measures": Expected(PROVIDER + " (ir_measures.providers.registry)", "'providers'"),
        "test_providers": Expected(
            PROVIDER + " (it imports ir_measures.measures.accuracy and CwlMetric)", "collection failure"
        ),
        "test_pyndeval::test_ERR_IA": Expected(PROVIDER + " (ir_measures.pyndeval)", "attribute 'pyndeval'"),
        "test_pyndeval::test_measures": Expected(PROVIDER + " (ir_measures.pyndeval)", "attribute 'pyndeval'"),
        "test_pytrec_eval": Expected(
            "a bug of theirs: it imports .base (BaseMeasureTest), which is not in the sdist (fails with ir_measures "
            "too)",
            "collection failure",
        ),
        "test_ranx::test_P": Expected(PROVIDER + " (ir_measures.ranx)", "attribute 'ranx'"),
        "test_runtime::test_define": Expected(
            "out of scope: user-defined measures (ir_measures.define, its runtime provider)", "attribute 'define'"
        ),
        "test_runtime::test_define_byquery": Expected(
            "out of scope: user-defined measures (ir_measures.define_byquery)", "attribute 'define_byquery'"
        ),
        "test_runtime::test_non_doc_qrels": Expected(
            "out of scope: user-defined measures (ir_measures.define_byquery)", "attribute 'define_byquery'"
        ),
        "test_runtime::test_run_qrel_inputs": Expected(
            "out of scope: user-defined measures (ir_measures.define)", "attribute 'define'"
        ),
        "test_util::test_qrels_converter": Expected(
            "out of scope: ir_measures.util's input converter classes (internal; rankwise reads the same inputs)",
            "attribute 'util'",
        ),
        "test_util::test_run_converter": Expected(
            "out of scope: ir_measures.util's input converter classes (internal; rankwise reads the same inputs)",
            "attribute 'util'",
        ),
    },
    "pytrec_eval": {
        "pytrec_eval_tests::test_nicknames": Expected(
            "a quirk of theirs rankwise does not copy: runid and relstring, which trec_eval prints as text, come back "
            "as 0.0 in pytrec_eval's dict; rankwise leaves them out",
            "'relstring'",
        ),
    },
}
"""Per library: test id (``module::test``, or ``module`` for a module that fails to import) → why it fails."""


@dataclass(frozen=True)
class Suite:
    """A library's test suite: the sdist it comes in (in the sdists folder), or a folder of its tests named by an
    environment variable (``checkout``: for a suite its sdist lacks); the compat modules its names resolve to; the
    tests it must have (so an emptied or renamed suite cannot pass by running nothing)."""

    sdist: str
    modules: dict[str, str]
    at_least: int
    checkout: str = ""
    absent: str = ""


SUITES = {
    "ir_measures": Suite("ir_measures-0.4.3.tar.gz", {"ir_measures": "rankwise.compat.ir_measures",
                                                       "ir_measures.measures": "rankwise.compat.ir_measures_measures"},
                         at_least=20),
    "pytrec_eval": Suite("pytrec_eval_terrier-0.5.11.tar.gz", {"pytrec_eval": "rankwise.compat.pytrec_eval"},
                         at_least=5, checkout="RANKWISE_PYTREC_EVAL_TESTS",
                         absent="pytrec-eval-terrier's sdist carries no tests/ (examples/ only; pip cannot even "
                                "download it without GitHub: its build fetches trec_eval there); set "
                                "RANKWISE_PYTREC_EVAL_TESTS to the tests/ folder of a cvangysel/pytrec_eval checkout"),
}  # fmt: skip


def _their_tests(suite: Suite, into: Path) -> Path:
    """Their ``tests/`` folder, copied under ``into`` from the checkout the suite's variable names, else extracted
    from the sdist; skips, saying why, when neither has it."""
    checkout = os.environ.get(suite.checkout) if suite.checkout else None
    if checkout:
        return Path(shutil.copytree(checkout, into / "tests"))
    sdist = Path(SDISTS or ".") / suite.sdist
    if not SDISTS or not sdist.is_file():
        pytest.skip(suite.absent or f"{suite.sdist} is absent: .ci/run downloads it and sets RANKWISE_COMPAT_SDISTS")
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if m.isfile() and m.name.split("/")[1:2] == ["tests"]]
        if not members:
            pytest.skip(suite.absent or f"{sdist.name} carries no tests/ folder")
        for member in members:
            member.name = member.name.split("/", 1)[1]
            archive.extract(member, into, filter="data")
    return into / "tests"


def _shim(suite: Suite, into: Path) -> Path:
    """A folder holding a package of each library name whose ``__init__`` puts the compat modules in its place."""
    top = next(iter(suite.modules)).split(".")[0]
    package = into / "shim" / top
    package.mkdir(parents=True)
    lines = ["import importlib", "import sys"]
    lines += [f"sys.modules[{name!r}] = importlib.import_module({target!r})" for name, target in suite.modules.items()]
    (package / "__init__.py").write_text("\n".join(lines) + "\n")
    return into / "shim"


def _outcomes(report: Path) -> dict[str, list[str]]:
    """Test id → the failure and error messages of its JUnit ``testcase`` (empty: passed)."""
    out: dict[str, list[str]] = {}
    for case in ET.parse(report).iter("testcase"):
        classname, name = case.get("classname") or "", case.get("name") or ""
        test = f"{classname.split('.')[-2]}::{name}" if classname else name.split(".")[-1]  # a module not imported
        problems = [f"{c.get('message') or ''} {c.text or ''}" for c in case if c.tag in ("failure", "error")]
        if any(c.tag == "skipped" for c in case):
            problems.append("skipped")
        out.setdefault(test, []).extend(problems)
    return out


@pytest.mark.parametrize("library", sorted(SUITES))
def test_their_suite_passes_against_compat(library: str, tmp_path: Path) -> None:
    suite = SUITES[library]
    tests = _their_tests(suite, tmp_path / "suite")
    shim = _shim(suite, tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shim), os.environ.get("PYTHONPATH", "")])}
    top = next(iter(suite.modules))
    resolved = subprocess.run([sys.executable, "-c", f"import {top}; print({top}.__name__)"], env=env,
                              capture_output=True, text=True, check=True, cwd=tmp_path)  # fmt: skip
    assert resolved.stdout.strip() == suite.modules[top]  # their import reaches the compat module
    report = tmp_path / "report.xml"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--continue-on-collection-errors",
               "-o", "python_files=*.py", f"--junitxml={report}", str(tests)]  # fmt: skip
    subprocess.run(command, env=env, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    outcomes = _outcomes(report)
    expected = EXPECTED_FAILURES[library]
    assert len(outcomes) >= suite.at_least, sorted(outcomes)
    failed = {test: problems for test, problems in outcomes.items() if problems}
    unexpected = {test: problems[0][:300] for test, problems in failed.items() if test not in expected}
    assert not unexpected, unexpected
    fixed = sorted(set(expected) - set(failed))
    assert not fixed, f"listed as failing but passed (or gone): {fixed}"
    wrong = {t: failed[t][0][:300] for t, e in expected.items() if not any(e.fails_with in p for p in failed[t])}
    assert not wrong, f"failing for another reason than listed: {wrong}"
    passed = sorted(set(outcomes) - set(failed))
    print(f"{library}: {len(passed)} of {len(outcomes)} pass; {len(failed)} fail as listed")
