"""rankwise.bias_disparity: Elliot's BiasDisparityBS, BR and BD (sisinflab/elliot at fc27efe,
elliot/evaluation/metrics/fairness/BiasDisparity/) — a worked example by hand, the undefined cells and bad input
(always run), and Elliot's own three classes run by :mod:`elliot_harness` (``RANKWISE_ELLIOT``) on 60 random cases
and on the ML-100K lists grouped by RecBole's user attributes and the items' first genre."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import elliot_harness as harness
import rankwise

RECS = {"u1": {"a": 3.0, "b": 2.0, "c": 1.0}, "u2": {"c": 3.0, "d": 2.0, "a": 1.0}, "u3": {"b": 1.0}}
TRAIN = {"u1": ["a", "d"], "u2": ["b", "c", "x"], "u3": ["a"]}
USERS = {"u1": "0", "u2": "1", "u3": "1"}
ITEMS = {"a": "0", "b": "0", "c": "1", "d": "1"}


def test_by_hand() -> None:
    """P(C) = 2/4 each (BiasDisparityBS.py:95-96 over the clustering file's items). Group 1 (u2, u3): training pairs
    of grouped items b (C0), c (C1), a (C0) — x is in no item group, skipped (BiasDisparityBS.py:88-90) — so
    PR_S = (2/3, 1/3), B_S = (4/3, 2/3); top 2: u2 c, d (C1), u3 b (C0): PR_R = (1/3, 2/3), B_R = (2/3, 4/3);
    BD = (2/3 − 4/3)/(4/3) = −1/2 and (4/3 − 2/3)/(2/3) = 1 (BiasDisparityBD.py:103). Group 0 (u1): a (C0), d (C1):
    B_S = (1, 1); top 2 a, b: B_R = (2, 0); BD = (1, −1)."""
    result = rankwise.bias_disparity(RECS, TRAIN, k=2, groups=USERS, item_groups=ITEMS)
    expected = {("0", "0"): (1, 2, 1), ("0", "1"): (1, 0, -1), ("1", "0"): (4 / 3, 2 / 3, -1 / 2),
                ("1", "1"): (2 / 3, 4 / 3, 1)}  # fmt: skip
    for (u, c), (bs, br, bd) in expected.items():
        assert math.isclose(result.value("BS", u, c), bs, rel_tol=1e-12)
        assert math.isclose(result.value("BR", u, c), br, rel_tol=1e-12)
        assert math.isclose(result.value("BD", u, c), bd, rel_tol=1e-12)
    assert result.training_users == (1, 2) and result.recommended_users == (1, 2)
    assert any("1 training pair is of an item in no item group" in n for n in result.notes)
    frame = result.to_polars()
    assert frame.columns == ["user_group", "item_group", "BS", "BR", "BD"] and frame.height == 4
    assert result.to_pandas().shape == (4, 5)
    assert result.record()["rows"][0] == {"user_group": "0", "item_group": "0", "BS": 1.0, "BR": 2.0, "BD": 1.0}


def test_undefined_cells_are_nan_and_counted() -> None:
    """B_S = 0 (no training pair of group 0 in C1): Elliot's BD is inf (B_R > 0) — rankwise NaN, counted; a user
    group without a recommended pair (u4 has no list): its B_R row is NaN (Elliot 0/0), counted."""
    train = {"u1": ["a"], "u4": ["c"]}
    result = rankwise.bias_disparity({"u1": {"c": 1.0}}, train, k=1, groups={"u1": "0", "u4": "1"},
                                     item_groups={"a": "0", "c": "1"})  # fmt: skip
    assert result.value("BS", "0", "1") == 0 and result.value("BR", "0", "1") == 2
    assert math.isnan(result.value("BD", "0", "1"))
    assert math.isnan(result.value("BR", "1", "0")) and math.isnan(result.value("BD", "1", "1"))
    assert any("B_S = 0" in n and "BD undefined" in n for n in result.notes)
    assert any("no recommended pair" in n and "for 1" in n for n in result.notes)
    assert result.record()["rows"][1]["BD"] is None


def test_unknown_ids_and_users_in_no_group_are_notes() -> None:
    groups = {**USERS, "ghost": "1"}
    del groups["u3"]
    result = rankwise.bias_disparity(RECS, TRAIN, k=2, groups=groups, item_groups={**ITEMS, "zz": "1"})
    notes = " | ".join(result.notes)
    assert "1 id is no user of the training interactions or the lists (not used): ghost" in notes
    assert "1 training pair is of a user in no user group" in notes
    assert "1 recommended pair is of a user in no user group" in notes
    assert result.share.tolist() == [0.4, 0.6]  # zz counts in P(C), as Elliot's len(self._item_clustering)


def test_bad_input_is_one_line() -> None:
    with pytest.raises(rankwise.InputError, match="give train="):
        rankwise.bias_disparity(RECS, None, k=2, groups=USERS, item_groups=ITEMS)
    with pytest.raises(rankwise.InputError, match="k must be a positive integer"):
        rankwise.bias_disparity(RECS, TRAIN, k=0, groups=USERS, item_groups=ITEMS)
    with pytest.raises(rankwise.InputError, match="no such file"):
        rankwise.bias_disparity(RECS, "/nonexistent/train.tsv", k=2, groups=USERS, item_groups=ITEMS)


def test_activity_and_popularity_groups() -> None:
    """The group sources of rankwise.evaluate work here too: user activity and the items' popularity split."""
    result = rankwise.bias_disparity(RECS, TRAIN, k=2, groups="activity:thresholds=2,3", item_groups="popularity")
    assert result.user_groups == ("cold", "regular", "heavy")
    assert set(result.item_groups) <= {"head", "tail"}


# ---------------------------------------------------------------------------------------------------------------
# Elliot's own code


def elliot_bias(case: harness.Case, tmp_path: Path) -> dict[str, np.ndarray]:
    """Elliot's B_S, B_R and BD matrices (BiasDisparityBS.get_BS, BR.get_BR, BD's values by its names)."""
    objects = harness.eval_objects(case.k, case.train, case.test, case.threshold)
    additional = {"item_clustering_file": harness.write_clustering(tmp_path / "items.tsv", case.items),
                  "item_clustering_name": "i", "user_clustering_file": harness.write_clustering(tmp_path / "users.tsv",
                                                                                       case.users),
                  "user_clustering_name": "u"}  # fmt: skip
    path = "fairness.BiasDisparity"
    with np.errstate(all="ignore"):
        bs = harness.metric(path, "BiasDisparityBS")(case.recs, None, None, objects, additional).get_BS()
        br = harness.metric(path, "BiasDisparityBR")(case.recs, None, None, objects, additional).get_BR()
        bd_metrics = harness.metric(path, "BiasDisparityBD")(case.recs, None, None, objects, additional).get()
    bd = np.array([m.eval() for m in bd_metrics], dtype=np.float64).reshape(bs.shape)
    return {"BS": bs, "BR": br, "BD": bd}


def assert_matches(case: harness.Case, tmp_path: Path) -> int:
    """rankwise's table against Elliot's matrices, cell by cell: equal where Elliot's value is finite; NaN where
    Elliot's is nan or inf (its BD for B_S = 0). Returns the cells compared."""
    theirs = elliot_bias(case, tmp_path)
    recs = {str(u): {str(i): s for i, s in lst} for u, lst in case.recs.items()}
    ours = rankwise.bias_disparity(recs, case.train_pairs(), k=case.k, groups=harness.labels(case.users),
                                   item_groups=harness.labels(case.items))  # fmt: skip
    assert ours.user_groups == tuple(str(g) for g in range(theirs["BS"].shape[0]))
    assert ours.item_groups == tuple(str(c) for c in range(theirs["BS"].shape[1]))
    for name, table in (("BS", ours.source), ("BR", ours.recommended), ("BD", ours.disparity)):
        elliot = theirs[name]
        finite = np.isfinite(elliot)
        np.testing.assert_allclose(table[finite], elliot[finite], rtol=1e-12, atol=0, err_msg=name)
        assert np.isnan(table[~finite]).all(), (name, table, elliot)
    return int(theirs["BS"].size)


def test_bias_disparity_is_elliots(tmp_path: Path) -> None:
    harness.elliot_or_skip()
    cases = [c for c in (harness.Case(seed) for seed in range(60)) if c.recs]
    assert len(cases) >= 50
    assert sum(assert_matches(case, tmp_path) for case in cases) >= 300


@pytest.mark.parametrize("attribute", ["gender", "occupation"])
def test_bias_disparity_ml100k_is_elliots(tmp_path: Path, attribute: str) -> None:
    harness.elliot_or_skip()
    user_file, item_file = harness.ml100k_groups_or_skip()
    case = harness.ml100k_case()
    case.items, case.users = harness.first_genre_codes(item_file), harness.user_codes(user_file, attribute)
    assert assert_matches(case, tmp_path) >= 2 * 10
