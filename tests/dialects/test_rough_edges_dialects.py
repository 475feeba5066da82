"""An unknown dialect name is answered with distinct, sensible suggestions (issue #28: "did you mean pytrec_eval,
openrec, openrec?" named one dialect twice, once per version binding)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from rankwise import RankwiseError, get_dialect
from rankwise.cli import main
from rankwise.dialects import DIALECTS, dialect_names


def _suggested(name: str) -> list[str]:
    with pytest.raises(RankwiseError) as info:
        get_dialect(name)
    message = str(info.value)
    assert message.startswith(f"unknown dialect {name!r}; ") and "\n" not in message
    if "; did you mean " not in message:
        return []
    return message.split("; did you mean ", 1)[1].removesuffix("?").split(", ")


def test_the_catalog_holds_names_with_several_bindings() -> None:
    # the case that repeated a name: one dialect, several versions
    names = [d.name for d in DIALECTS]
    assert len(names) > len(set(names)) and names.count("openrec") >= 2


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("pytrec", ["pytrec_eval"]),  # a name begun: the names it begins (was "pytrec_eval, openrec, openrec")
        ("openrek", ["openrec"]),  # was "openrec, openrec"
        ("recbol", ["recbole"]),
        ("trec", ["trec_eval", "trec_fair", "trectools"]),
        ("lightgbn", ["lightgbm"]),
        ("PyTrec", ["pytrec_eval"]),
    ],
)
def test_suggestions_are_distinct_and_close(typed: str, expected: list[str]) -> None:
    assert _suggested(typed) == expected


@given(st.text(alphabet="abcdeilmnoprstx_", min_size=1, max_size=12))
def test_every_suggestion_is_a_dialect_named_once(typed: str) -> None:
    if typed.strip().lower() in dialect_names():
        return
    shown = _suggested(typed)
    assert len(shown) == len(set(shown)) <= 3
    assert set(shown) <= set(dialect_names())


def test_far_from_every_name_lists_them_all_once() -> None:
    with pytest.raises(RankwiseError) as info:
        get_dialect("zzzz")
    listed = str(info.value).split("; known: ", 1)[1].split(", ")
    assert listed == dialect_names() and len(listed) == len(set(listed))


def test_the_command_line_says_it_in_one_line(tmp_path) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q 0 d 1\n")
    run.write_text("q Q0 d 1 1.0 r\n")
    result = CliRunner().invoke(main, ["evaluate", str(qrels), str(run), "-m", "P@1", "--dialect", "openrek"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "rankwise: error: unknown dialect 'openrek'; did you mean openrec?\n"
