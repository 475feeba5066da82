"""The methods and normalisations as data: every entry complete, every name read, the definitions printed."""

from __future__ import annotations

import pytest

from rankwise.errors import RankwiseError
from rankwise.fusion import METHODS, NORMALISATIONS, explain
from rankwise.fusion.catalog import method, normalisation


def test_the_catalog_holds_ranx_methods_and_normalisations() -> None:
    assert len(METHODS) == 25 and len({m.name for m in METHODS}) == 25
    assert {n.name for n in NORMALISATIONS} == {"min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda",
                                                "none"}  # fmt: skip
    for m in METHODS:
        assert m.formula and m.reference and m.source and m.inputs in ("scores", "positions", "both"), m.name
        for p in m.params:
            values = p.values()
            assert values == sorted(values) and p.low <= p.default <= p.high, (m.name, p.name)


@pytest.mark.parametrize(("name", "expected"), [("RRF", "rrf"), ("CombSUM", "sum"), ("comb_mnz", "mnz"),
                                                ("comb-anz", "anz"), ("Weighted BordaFuse", "w_bordafuse"),
                                                ("weighted_sum", "wsum"), ("LogN_ISR", "logn_isr")])  # fmt: skip
def test_every_spelling_reads(name: str, expected: str) -> None:
    assert method(name).name == expected


def test_normalisation_names() -> None:
    assert normalisation("min_max").name == "min-max" and normalisation(None).name == "none"
    with pytest.raises(RankwiseError, match="unknown normalisation"):
        normalisation("softmax")


def test_explain_states_formula_parameters_and_reference() -> None:
    text = explain("rrf")
    assert "1/(k + p_r(d) + 1)" in text and "default 60" in text and "searched 10 to 100 (10 values)" in text
    assert "Cormack" in text and "ranx/fusion/rrf.py" in text and "trectools/fusion.py" in text
    assert "needed (qrels=)" in explain("probfuse")
    assert explain("zmuv").startswith("zmuv (normalisation)")
