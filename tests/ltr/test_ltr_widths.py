"""A width the boosting libraries cannot index (issue #27): ``--num-features 4000000000`` ended in LightGBM's assert,
``99999999999999999999`` in numpy's OverflowError. LightGBM and XGBoost index feature columns with 32-bit integers
(LightGBM asserts ``shape[1] <= 2^31 - 1``), so a width past 2^31 − 1 is one line, before any array is made."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from rankwise.cli import main
from rankwise.errors import RankwiseError
from rankwise.ltr import read_svmlight
from rankwise.ltr.limits import MAX_WIDTH

TEXT = "1 qid:1 1:0.5 2:0.1\n0 qid:1 1:0.1 2:0.3\n1 qid:2 1:0.7 2:0.2\n0 qid:2 1:0.2 2:0.9\n"


def test_the_limit_is_int32() -> None:
    assert MAX_WIDTH == 2**31 - 1


@pytest.mark.parametrize("width", [2**31, 4_000_000_000, 99999999999999999999])
def test_a_width_past_int32_is_one_line(tmp_path: Path, width: int) -> None:
    path = tmp_path / "train.txt"
    path.write_text(TEXT)
    with pytest.raises(RankwiseError, match=f"num_features must be an integer from 0 to {MAX_WIDTH:,}") as caught:
        read_svmlight(path, num_features=width)
    assert "\n" not in str(caught.value)
    result = CliRunner().invoke(main, ["ltr", "train", str(path), "--num-features", str(width), "-o",
                                       str(tmp_path / "model")])  # fmt: skip
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{width} is not in the range 0<=x<={MAX_WIDTH}" in result.stderr


def test_the_widest_width_is_read(tmp_path: Path) -> None:
    path = tmp_path / "train.txt"
    path.write_text(TEXT)
    assert read_svmlight(path, num_features=MAX_WIDTH).num_features == MAX_WIDTH
