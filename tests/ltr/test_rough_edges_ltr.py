"""``rankwise ltr train`` where a newcomer goes wrong (issue #28): a LightGBM parameter value LightGBM cannot read is
one rankwise line (LightGBM's own ``[LightGBM] [Fatal]`` line, written from C++ to the process's stderr, is not
shown), and the neural rankers' progress shows the validation nDCG at every ``--eval-at`` cutoff, as LightGBM's
does."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from test_ltr_models import CUTOFFS, rankwise_ndcg, synthetic

from rankwise.cli import main
from rankwise.errors import RankwiseError
from rankwise.ltr import write_svmlight
from rankwise.ltr.models import LIGHTGBM_PARAMETERS, Ranker, train_ranker

BAD_VALUES = [
    ("num_leaves=abc", "num_leaves=abc: should be of type int"),
    ("num_leaves=1", "num_leaves=1: must be > 1"),
    ("learning_rate=abc", "learning_rate=abc: is not a number"),
    ("xgboost_dart_mode=maybe", 'xgboost_dart_mode=maybe: should be "true"/"+" or "false"/"-"'),
    ("label_gain=0,1,x", "label_gain=0,1,x: is not a number"),
]


@pytest.fixture(scope="module")
def train_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ltr") / "train.txt"
    write_svmlight(synthetic(0), path)
    return path


def test_lightgbm_itself_writes_its_fatal_line_to_the_process_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    lgb = pytest.importorskip("lightgbm")
    with pytest.raises(lgb.basic.LightGBMError, match="should be of type int"):
        lgb.Dataset(np.zeros((4, 1)), label=np.zeros(4), params={"num_leaves": "abc", "verbosity": -1}).construct()
    assert '[LightGBM] [Fatal] Parameter num_leaves should be of type int, got "abc"' in capfd.readouterr().err


@pytest.mark.parametrize(("param", "message"), BAD_VALUES)
def test_a_bad_value_is_one_rankwise_line(train_file: Path, tmp_path: Path, param: str, message: str) -> None:
    pytest.importorskip("lightgbm")
    done = subprocess.run([sys.executable, "-m", "rankwise", "ltr", "train", str(train_file), "-o", str(tmp_path / "m"),
                           "-p", "min_data_in_leaf=5", "-p", param], capture_output=True, text=True)  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"rankwise: error: lightgbm parameter {message} (its parameters: {LIGHTGBM_PARAMETERS})\n"


def test_the_api_names_the_parameter_and_keeps_stderr_clean(capfd: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("lightgbm")
    with pytest.raises(RankwiseError, match=r"^lightgbm parameter num_leaves=abc: should be of type int \(its"):
        train_ranker("lightgbm", synthetic(0), params={"min_data_in_leaf": 5, "num_leaves": "abc"}, rounds=1)
    with pytest.raises(RankwiseError, match=r"^lightgbm parameter num_leaves=\{'a': 1\}: Unknown type of parameter"):
        train_ranker("lightgbm", synthetic(0), params={"num_leaves": {"a": 1}}, rounds=1)
    # values that fail only together are refused together (rankwise trains with metric=ndcg)
    with pytest.raises(RankwiseError, match=r"^lightgbm refused the parameters together: Multiclass objective and"):
        train_ranker("lightgbm", synthetic(0), params={"objective": "multiclass", "num_class": 3}, rounds=1)
    os.write(2, b"still here\n")  # the process's stderr is back after each check
    assert capfd.readouterr().err == "still here\n"
    good = train_ranker("lightgbm", synthetic(0), params={"min_data_in_leaf": 5, "num_leaves": 7}, rounds=2)
    assert good.params["num_leaves"] == 7


@pytest.mark.parametrize("kind", ["linear", "mlp"])
def test_neural_progress_shows_every_cutoff_as_lightgbm_does(tmp_path: Path, train_file: Path, kind: str) -> None:
    pytest.importorskip("torch")
    valid = tmp_path / "valid.txt"
    write_svmlight(synthetic(1), valid)
    args = ["ltr", "train", str(train_file), "--valid", str(valid), "--rounds", "3", "-o", str(tmp_path / "m")]
    result = CliRunner().invoke(main, [*args, "--model", kind, "-p", "device=cpu"])
    assert result.exit_code == 0, result.output
    *rounds, summary = result.stderr.splitlines()
    shown = [dict(part.split("=") for part in line.split("] ", 1)[1].split("  ")) for line in rounds]
    assert [list(values) for values in shown] == [["loss", "ndcg@1", "ndcg@3", "ndcg@5"]] * 3
    ranker = Ranker.load(tmp_path / "m")
    best = "  ".join(f"{key}={value}" for key, value in shown[ranker.best_iteration - 1].items())
    assert f"best iteration {ranker.best_iteration} of 3: {best};" in summary  # the summary names every cutoff too
    expected = rankwise_ndcg(synthetic(1), ranker.predict(synthetic(1)))  # the kept epoch's weights
    kept = shown[ranker.best_iteration - 1]
    assert {f"ndcg@{k}": float(kept[f"ndcg@{k}"]) for k in CUTOFFS} == pytest.approx(expected, abs=1e-6)
    if importlib.util.find_spec("lightgbm") is not None:  # LightGBM's own progress names the same cutoffs
        boosted = CliRunner().invoke(main, [*args, "-p", "min_data_in_leaf=5"])
        first = boosted.stderr.splitlines()[0].split("] ", 1)[1]
        assert [part.split("=")[0] for part in first.split("  ")] == ["ndcg@1", "ndcg@3", "ndcg@5"]


def test_train_neural_reports_every_cutoff_in_one_evaluation() -> None:
    pytest.importorskip("torch")
    from rankwise.ltr.neural import NeuralConfig, evaluate_scores, train_neural

    train, valid = synthetic(0), synthetic(1)
    arrays = [(d.dense(np.float32), d.labels, d.group_offsets) for d in (train, valid)]
    epochs: list[tuple[int, float, float | None]] = []
    values: list[tuple[int, dict[str, float]]] = []
    config = NeuralConfig(model="linear", epochs=2, patience=3, eval_k=5, device="cpu", batch_groups=8)
    ranker = train_neural(*arrays[0], valid=arrays[1], config=config, report_at=(1, 3),
                          on_epoch=lambda *args: epochs.append(args), on_values=lambda e, v: values.append((e, v))
                          )  # fmt: skip
    assert [list(v) for _, v in values] == [["loss", "nDCG@1", "nDCG@3", "nDCG@5"]] * 2
    # the stopping measure is the one on_epoch gets, the loss the same
    assert [(e, v["loss"], v["nDCG@5"]) for e, v in values] == epochs
    kept = evaluate_scores(ranker.predict(arrays[1][0]), *arrays[1][1:], ["nDCG@1", "nDCG@3", "nDCG@5"])
    best = values[ranker.best_epoch - 1][1]  # the kept epoch's weights give the values it reported
    assert {name: best[name] for name in kept} == kept
    no_valid: list[dict[str, float]] = []
    train_neural(*arrays[0], config=config, report_at=(1, 3), on_values=lambda e, v: no_valid.append(v))
    assert [list(v) for v in no_valid] == [["loss"]] * 2
