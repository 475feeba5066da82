"""The one suggestion code behind every "did you mean ...?" (measure names, trec_eval's ``-m`` names, dialects):
:func:`rankwise.measures.catalog.closest` names each candidate once, at most ``n``, the same name in another case
first (issue #28: a dialect with two version bindings was suggested twice)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rankwise.measures.catalog import closest

NAMES = st.lists(st.text(alphabet="abcdeABCDE_.", min_size=1, max_size=6), max_size=12)


@given(st.text(alphabet="abcdeABCDE_.", min_size=1, max_size=6), NAMES, st.integers(1, 4))
def test_each_candidate_once_and_at_most_n(name: str, candidates: list[str], n: int) -> None:
    shown = closest(name, candidates, n=n)
    assert len(shown) <= n and set(shown) <= set(candidates)
    assert len({s.lower() for s in shown}) == len(shown)


@given(st.text(alphabet="abcde", min_size=1, max_size=6), NAMES)
def test_the_same_name_in_another_case_comes_first(name: str, candidates: list[str]) -> None:
    shown = closest(name, [*candidates, name.upper()])
    assert shown[0].lower() == name.lower()


def test_repeated_candidates_and_shorter_forms() -> None:
    assert closest("openrek", ["openrec", "openrec", "ranx"]) == ["openrec"]
    assert closest("zzzz", ["openrec", "ranx"]) == []
    # ``also``: a shorter form of the name (a measure's name before its parameters) is matched too
    assert closest("nDGC(gain=exp2)@10", ["nDCG", "P"], also=["nDGC"]) == ["nDCG"]
    assert closest("Rprec", ["rprec", "Rprec_mult", "RPREC"]) == ["rprec", "Rprec_mult"]
