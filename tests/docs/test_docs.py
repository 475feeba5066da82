"""The documentation site (issue #28): every page's code blocks run and print what the page shows
(:mod:`markdown_blocks`), the generated reference pages hold every measure, dialect, command and public name
(``docs/hooks.py``), and ``mkdocs build --strict`` passes (no broken link, no missing page)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType

import click
import pytest
from markdown_blocks import blocks, lines_match, run_markdown

import rankwise
from rankwise.cli import SHORT_HELP, load_command
from rankwise.dialects import DIALECTS
from rankwise.measures import FAMILIES

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


def load_hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rankwise_docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOKS = load_hooks()
GENERATED = {DOCS / path for path in HOOKS.PAGES}
PAGES = [*sorted(path for path in DOCS.rglob("*.md") if path not in GENERATED), REPO / "README.md"]


# ---------------------------------------------------------------------------------------------------- the pages


@pytest.mark.parametrize("page", PAGES, ids=[path.relative_to(REPO).as_posix() for path in PAGES])
def test_the_code_blocks_of_a_page_run(page: Path, tmp_path: Path) -> None:
    label = page.relative_to(REPO).as_posix()
    report = run_markdown(page.read_text(), label, REPO, tmp_path)
    assert not report.failures, f"{len(report.failures)} of {report.ran} blocks failed:\n\n" + "\n\n".join(
        report.failures)
    if report.skipped and not report.ran:
        pytest.skip(f"every code block not run: {'; '.join(report.skipped)}")
    if report.skipped:
        warnings.warn(f"{len(report.skipped)} code block(s) not run: {'; '.join(report.skipped)}", stacklevel=1)


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    for package in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(package.split(".")[0]) is None:
            pytest.skip(f"{package} is not installed (pip install -e '.[docs]')")
    site = tmp_path / "site"
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(REPO / "mkdocs.yml"),
               "--site-dir", str(site)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-5000:]
    for page in ("index.html", "reference/measures/index.html", "reference/dialects/index.html",
                 "reference/cli/index.html", "reference/api/index.html", "speed/index.html"):  # fmt: skip
        assert (site / page).is_file(), page
    api = (site / "reference/api/index.html").read_text()
    assert 'id="rankwise.pipeline.evaluate.evaluate"' in api and 'id="rankwise.torch.evaluate"' in api
    assert ":func:<code>" not in api  # the docstrings' Sphinx roles dropped (docs/hooks.py on_page_content)


# ---------------------------------------------------------------------------------------------------- generated pages


def headings(markdown: str) -> list[tuple[str, str]]:
    """(title, anchor) of each heading with an explicit anchor (``### nDCG {#ndcg}``)."""
    return re.findall(r"^#{2,4} `?([^`{\n]+?)`? \{#([^}]+)\}$", markdown, flags=re.MULTILINE)


def test_the_measures_page_holds_every_measure() -> None:
    page = HOOKS.measures_page()
    found = dict(headings(page))
    assert set(found) == {spec.name for spec in FAMILIES}
    assert len(set(re.findall(r"\{#([^}]+)\}", page))) == len(re.findall(r"\{#([^}]+)\}", page))  # unique anchors
    for spec in FAMILIES:
        section = page.split(f"### {spec.name} {{#")[1].split("\n### ")[0]
        assert spec.formula.splitlines()[0] in section, spec.name
        assert all(f"- `{param.name}` (" in section for param in spec.params), spec.name
        assert all(f"    - `{choice}`:" in section for param in spec.params for choice in param.choices), spec.name
    ndcg = page.split("### nDCG {#")[1].split("\n### ")[0]
    assert "`ndcg_cut_k`" in ndcg and "`ndcg_burges`" in ndcg and "`nDCG(gain=exp2)`" in ndcg  # trec_eval, ranx
    assert "| [ranx](dialects.md#ranx) | `ndcg_burges` |" in ndcg
    assert "| \\[" not in page  # links in tables are links, not escaped text


def test_the_dialects_page_holds_every_dialect() -> None:
    page = HOOKS.dialects_page()
    assert {name for name, _ in headings(page)} == {d.key for d in DIALECTS} | {d.name for d in DIALECTS}
    for dialect in DIALECTS:
        section = page.split(f"### {dialect.key} {{#")[1].split("\n### ")[0]
        assert "- Follows: " in section and "- Proven by: " in section, dialect.key
        assert all(f"[{name}](measures.md#" in section for name in dialect.bindings), dialect.key
        assert dialect.names is None or all(f"`{' / '.join((e.name, *e.aliases))}`" in section
                                            for e in dialect.names.names), dialect.key  # fmt: skip
    assert "REL_LEVEL" not in page


def test_the_cli_page_holds_every_command_and_option() -> None:
    page = HOOKS.cli_page()
    expected = {"rankwise"}
    options = []
    for name in SHORT_HELP:
        command = load_command(name)
        assert command is not None, name
        expected.add(f"rankwise {name}")
        subcommands = command.commands.items() if isinstance(command, click.Group) else ()
        expected |= {f"rankwise {name} {sub}" for sub, _ in subcommands}
        for each in [command, *(c for _, c in subcommands)]:
            options += [opt for param in each.params if isinstance(param, click.Option) for opt in param.opts]
    assert {name for name, _ in headings(page)} == expected
    assert all(option in page for option in options), [o for o in options if o not in page]
    assert "-h, --help" in page


def test_the_api_page_documents_every_public_name() -> None:
    page = HOOKS.api_page()
    entries = re.findall(r"^::: (\S+)$", page, flags=re.MULTILINE)
    assert {entry.rsplit(".", 1)[1] for entry in entries if "." in entry} >= set(rankwise.__all__)
    assert {"rankwise.torch", "rankwise.spark", "rankwise.compat.pytrec_eval", "rankwise.compat.ranx"} <= set(entries)
    assert len(entries) == len(set(entries))


def test_the_speed_page_shows_the_report_and_the_notes() -> None:
    page = HOOKS.speed_page()
    assert "python benchmarks/run_all.py --output benchmarks/report.md" in page
    report = REPO / "benchmarks" / "report.md"
    assert (HOOKS.nest(report.read_text(), 3) in page) if report.exists() else ("No report is committed" in page)
    notes = DOCS / "speed-notes.md"
    assert not notes.exists() or HOOKS.nest(notes.read_text(), 2) in page


def test_nested_headings_keep_code_blocks() -> None:
    text = "# Title\n\nText # not a heading\n\n```sh\n# a comment\n```\n\n## Part\n"
    assert HOOKS.nest(text, 3) == "### Title\n\nText # not a heading\n\n```sh\n# a comment\n```\n\n#### Part\n"
    assert HOOKS.nest("## A\n#### B\n", 2) == "## A\n#### B\n"


# ---------------------------------------------------------------------------------------------------- the runner

RUNNER_PAGE = """\
# A page

```python
lines = open("examples/qrels.txt").read().splitlines()
import os
repo = os.environ["RANKWISE_REPO"]
```

```pycon
>>> len(lines)
3
>>> print("a   b")
a b
>>> sorted(os.listdir("."))
['examples']
```

Text, then a block that is not run:

```sh
exit 1
```

<!-- docs: skip (needs a GPU) -->

```python
raise RuntimeError("not run")
```

- In a list:

    ```console
    $ echo one; echo two; echo three
    one
    ...
    $ echo hello world
    hel...rld
    $ printf 'a\\nb\\n' \\
    >   | cat
    a
    b
    $ echo 'rankwise: error: bad' >&2; exit 2
    rankwise: error: bad
    $ python -c "import sys; print('out'); print('err', file=sys.stderr); print('out again')"
    out
    err
    out again
    $ true
    ```
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with three lines of bundled examples and no ``../shared``."""
    root = tmp_path / "repo"
    (root / "src" / "rankwise" / "examples").mkdir(parents=True)
    (root / "src" / "rankwise" / "examples" / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    return root


def test_the_runner_runs_python_pycon_and_console_blocks(repo: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)  # the runner sets it: stdout and stderr in their order
    cwd = Path.cwd()
    report = run_markdown(RUNNER_PAGE, "page.md", repo, tmp_path / "work")
    assert report.failures == []
    assert report.ran == 3 and report.skipped == ["page.md:27 (needs a GPU)"]
    assert Path.cwd() == cwd and "RANKWISE_REPO" not in os.environ and "PYTHONUNBUFFERED" not in os.environ


def test_the_runner_reads_blocks_with_their_lines() -> None:
    found = blocks(RUNNER_PAGE)
    assert [(b.language, b.line) for b in found] == [("python", 4), ("pycon", 10), ("sh", 21), ("python", 27),
                                                     ("console", 33)]  # fmt: skip
    assert found[-1].text.startswith("$ echo one")  # the list's indentation removed
    assert [b.skip for b in found] == [None, None, None, "needs a GPU", None]


@pytest.mark.parametrize(("markdown", "line", "said"), [
    ("x\n\n```console\n$ echo one\ntwo\n```\n", 4, "printed other lines"),
    ("```console\n$ echo a\n$ false\n```\n", 3, "exited 1, expected to exit 0"),
    ("```console\n$ echo 'rankwise: error: x'\nrankwise: error: x\n```\n", 2, "expected to fail"),
    ("```python\nx = 1\n```\n\n```pycon\n>>> x + 1\n3\n```\n", 6, "1 of 1 examples failed"),
    ("\n```python\n1 / 0\n```\n", 3, "ZeroDivisionError"),
    ("```python\nimport sys\n\nsys.exit(2)\n```\n", 4, "raised SystemExit: 2"),
])  # fmt: skip
def test_a_failure_names_the_page_and_line(markdown: str, line: int, said: str, repo: Path, tmp_path: Path) -> None:
    report = run_markdown(markdown, "docs/page.md", repo, tmp_path / "work")
    assert len(report.failures) == 1 and report.failures[0].startswith(f"docs/page.md:{line}: "), report.failures
    assert said in report.failures[0]


def test_a_doctest_failure_names_the_line_of_the_example(repo: Path, tmp_path: Path) -> None:
    markdown = "```pycon\n>>> 1\n1\n>>> 2\n3\n```\n"
    report = run_markdown(markdown, "p.md", repo, tmp_path / "work")
    assert 'File "p.md", line 4' in report.failures[0]


def test_needs_shared_runs_only_with_shared(repo: Path, tmp_path: Path) -> None:
    markdown = "<!-- docs: needs shared -->\n```console\n$ ls shared/\ndata.txt\n```\n"
    report = run_markdown(markdown, "p.md", repo, tmp_path / "without")
    assert report.ran == 0 and report.skipped == ["p.md:3 (needs ../shared, absent here)"]
    (repo.parent / "shared").mkdir()
    (repo.parent / "shared" / "data.txt").write_text("x\n")
    report = run_markdown(markdown, "p.md", repo, tmp_path / "with")
    assert report.ran == 1 and report.failures == []


def test_rankwise_is_on_the_path(repo: Path, tmp_path: Path) -> None:
    markdown = f"```console\n$ rankwise --version\nrankwise, version {rankwise.__version__}\n```\n"
    report = run_markdown(markdown, "p.md", repo, tmp_path / "work")
    assert report.ran == 1 and report.failures == []


@pytest.mark.parametrize(("expected", "actual", "matches"), [
    (["a", "b"], ["a", "b"], True),
    (["a", "b"], ["a", "b", "c"], False),
    (["..."], [], True),
    (["..."], ["x", "y"], True),
    (["a", "...", "d"], ["a", "b", "c", "d"], True),
    (["a", "...", "d"], ["a", "d"], True),
    (["a", "...", "d"], ["a", "b"], False),
    (["nDCG@10 ... 0.5"], ["nDCG@10  all  0.5"], True),
    (["nDCG@10 ... 0.5"], ["nDCG@10  all  0.52"], False),
    (["a.b"], ["axb"], False),  # no other pattern character counts
])  # fmt: skip
def test_lines_match(expected: list[str], actual: list[str], matches: bool) -> None:
    assert lines_match(expected, actual) is matches
