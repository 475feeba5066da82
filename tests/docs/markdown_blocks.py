"""Run the code blocks of a Markdown page, so that the documentation cannot drift from the code (issue #28).

- ```` ```python ```` blocks run in order in one namespace, in a fresh temporary folder holding a copy of the
  bundled examples (``src/rankwise/examples/`` as ``examples/``); a block must not raise.
- ```` ```pycon ```` blocks are doctests (``>>>`` prompts, the expected output after them; ELLIPSIS and
  NORMALIZE_WHITESPACE on), in the same namespace and folder.
- ```` ```console ```` blocks: each line starting with ``$ `` is a shell command (a line ending in ``\\`` continues
  on the next, which may start with ``>``), run in that folder with ``rankwise`` on the PATH; the lines after it up
  to the next ``$ `` are its output (stdout and stderr together, as a terminal shows them), compared line by line
  after stripping trailing spaces: a line ``...`` matches any number of lines, ``...`` inside a line any text. A
  command must exit 0, unless its expected output shows an error (a line starting with ``rankwise: error:`` or
  ``Error:``): then it must fail.
- Other languages (``sh``, ``text``, ``toml``, ...) are not run.
- A block preceded by ``<!-- docs: skip (REASON) -->`` is not run, and counted; one preceded by
  ``<!-- docs: needs shared -->`` runs only where ``<repo>/../shared`` exists (the folder then has a link
  ``shared`` to it). The environment variable ``RANKWISE_REPO`` is the repository's root.

Output is read at 100 columns, without colour, stdout and stderr in the order they were written (:data:`ENVIRONMENT`).
"""

from __future__ import annotations

import contextlib
import difflib
import doctest
import io
import os
import re
import shutil
import subprocess
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

RUN = ("python", "pycon", "console")
"""The languages whose blocks run."""

SKIP_RE = re.compile(r"^<!--\s*docs:\s*skip\s*\((?P<reason>.*)\)\s*-->$")
SHARED_RE = re.compile(r"^<!--\s*docs:\s*needs shared\s*-->$")
FENCE_RE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
ERROR_LINE = re.compile(r"^(rankwise: error:|Error:)")
COMMAND_TIMEOUT = 300
ENVIRONMENT = {"COLUMNS": "100", "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
"""Output at 100 columns (rankwise's width when it does not write to a terminal), without colour, and stdout and
stderr written as they come (as on a terminal; a pipe would hold stdout back and print the notes first)."""


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, the page line of its first content line, its text (the fence's
    indentation removed), and what the comment before it says (``skip``: the reason; ``needs_shared``)."""

    language: str
    line: int
    text: str
    skip: str | None = None
    needs_shared: bool = False


@dataclass
class Report:
    """What running a page's blocks gave: how many ran, the skipped ones (``page:line (reason)``) and each failure
    (``page:line: what went wrong``)."""

    page: str
    ran: int = 0
    skipped: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def blocks(markdown: str) -> list[Block]:
    """Every fenced code block of a page, in order."""
    found = []
    lines = markdown.splitlines()
    previous = ""  # the last non-blank line before the current one
    i = 0
    while i < len(lines):
        opening = FENCE_RE.match(lines[i])
        if opening is None:
            previous = lines[i].strip() or previous
            i += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        info = opening["info"].strip().lstrip("{").strip().lstrip(".")
        language = info.split()[0].lower() if info.split() else ""
        body, j = [], i + 1
        while j < len(lines):
            closing = FENCE_RE.match(lines[j])
            if closing and closing["fence"][0] == fence[0] and len(closing["fence"]) >= len(fence) and not closing[
                    "info"].strip():  # fmt: skip
                break
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j].lstrip())
            j += 1
        skip = SKIP_RE.match(previous)
        found.append(Block(language, i + 2, "\n".join(body) + "\n", skip["reason"] if skip else None,
                           bool(SHARED_RE.match(previous))))  # fmt: skip
        previous = ""
        i = j + 1
    return found


def line_matches(expected: str, actual: str) -> bool:
    """One expected line against one output line: ``...`` inside it matches any text."""
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None


def lines_match(expected: list[str], actual: list[str]) -> bool:
    """Expected lines against output lines: a line ``...`` matches any number of lines (none included)."""
    memo: dict[tuple[int, int], bool] = {}

    def match(i: int, j: int) -> bool:
        if (i, j) not in memo:
            if i == len(expected):
                memo[i, j] = j == len(actual)
            elif expected[i].strip() == "...":
                memo[i, j] = match(i + 1, j) or (j < len(actual) and match(i, j + 1))
            else:
                memo[i, j] = j < len(actual) and line_matches(expected[i], actual[j]) and match(i + 1, j + 1)
        return memo[i, j]

    return match(0, 0)


def commands(block: Block) -> Iterator[tuple[int, str, list[str]]]:
    """Each command of a console block: its page line, the command, its expected output lines."""
    lines = block.text.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1  # text before the first command: not checked
            continue
        start, command = i, lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command += "\n" + re.sub(r"^> ?", "", lines[i])  # bash reads the backslash-newline
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i].rstrip())
            i += 1
        while expected and not expected[-1]:
            expected.pop()
        yield block.line + start, command, expected


def prepare(workdir: Path, repo: Path) -> None:
    """The folder blocks run in: the bundled examples as ``examples/``, and ``shared`` linking ``../shared``."""
    shutil.copytree(repo / "src" / "rankwise" / "examples", workdir / "examples")
    shared = repo.parent / "shared"
    if shared.is_dir():
        (workdir / "shared").symlink_to(shared.resolve(), target_is_directory=True)


@contextlib.contextmanager
def inside(workdir: Path, repo: Path) -> Iterator[dict[str, str]]:
    """Working directory ``workdir`` and the blocks' environment (restored after); yields that environment with
    this Python's scripts (``rankwise``) first on the PATH, for the shell commands."""
    before, cwd = dict(os.environ), Path.cwd()
    os.environ.update(ENVIRONMENT, RANKWISE_REPO=str(repo))
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    os.chdir(workdir)
    try:
        yield dict(os.environ)
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(before)


def run_python(block: Block, label: str, namespace: dict[str, object]) -> str | None:
    """Run a python block; the failure, or None."""
    name = f"{label}:{block.line}"
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block.text, name, "exec"), namespace)
    except (Exception, SystemExit) as error:  # a block that exits (a click command's main) fails unless with 0
        if isinstance(error, SystemExit) and error.code in (0, None):
            return None
        own = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == name]
        line = block.line + (own[-1].lineno or 1) - 1 if own else block.line
        frames = "".join(traceback.format_exception(error)[-3:])
        return f"{label}:{line}: the python block of line {block.line} raised {type(error).__name__}: {error}\n{frames}"
    return None


def run_pycon(block: Block, label: str, namespace: dict[str, object]) -> str | None:
    """Run a pycon block as a doctest; the failure (doctest's report, with page lines), or None."""
    test = doctest.DocTestParser().get_doctest(block.text, namespace, label, label, block.line - 1)
    runner = doctest.DocTestRunner(verbose=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    result = runner.run(test, out=report.write, clear_globs=False)
    namespace.update(test.globs)  # doctest ran in a copy of the namespace: what the block named, later blocks see
    if result.failed:
        return f"{label}:{block.line}: {result.failed} of {result.attempted} examples failed\n{report.getvalue()}"
    return None


def run_console(block: Block, label: str, environment: dict[str, str]) -> list[str]:
    """Run a console block's commands; the failures."""
    failures = []
    for line, command, expected in commands(block):
        try:
            done = subprocess.run(command, shell=True, executable="/bin/bash", env=environment, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT)
        except subprocess.TimeoutExpired:
            failures.append(f"{label}:{line}: `$ {command}` ran past {COMMAND_TIMEOUT} s")
            continue
        actual = [text.rstrip() for text in done.stdout.rstrip("\n").split("\n")] if done.stdout.strip() else []
        should_fail = any(ERROR_LINE.match(text) for text in expected)
        if (done.returncode != 0) != should_fail:
            wanted = "to fail (its output shows an error)" if should_fail else "to exit 0"
            failures.append(f"{label}:{line}: `$ {command}` exited {done.returncode}, expected {wanted}; it "
                            "printed:\n" + "\n".join(actual[-20:]))  # fmt: skip
        elif expected and not lines_match(expected, actual):
            diff = difflib.unified_diff(expected, actual, "expected", "printed", lineterm="", n=2)
            failures.append(f"{label}:{line}: `$ {command}` printed other lines than the page shows:\n"
                            + "\n".join(list(diff)[:60]))  # fmt: skip
    return failures


def run_markdown(markdown: str, label: str, repo: Path, workdir: Path) -> Report:
    """Run every block of a page (``label`` names it in the report) in ``workdir`` (made ready here)."""
    report = Report(label)
    prepare(workdir, repo)
    namespace: dict[str, object] = {"__name__": "__main__"}
    has_shared = (repo.parent / "shared").is_dir()
    with inside(workdir, repo) as environment:
        for block in blocks(markdown):
            if block.language not in RUN:
                continue
            if block.skip is not None or (block.needs_shared and not has_shared):
                reason = block.skip if block.skip is not None else "needs ../shared, absent here"
                report.skipped.append(f"{label}:{block.line} ({reason})")
                continue
            report.ran += 1
            if block.language == "python":
                failure = run_python(block, label, namespace)
                report.failures += [failure] if failure else []
            elif block.language == "pycon":
                failure = run_pycon(block, label, namespace)
                report.failures += [failure] if failure else []
            else:
                report.failures += run_console(block, label, environment)
    return report
