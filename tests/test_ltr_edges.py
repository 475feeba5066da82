"""Learning-to-rank edges: a model directory reads only its own files and every bad manifest or model file is one
line; unknown library parameters and impossible round counts are refused; errors speak the command line's
language."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from rankwise.cli import main
from rankwise.errors import RankwiseError
from rankwise.ltr import write_svmlight
from rankwise.ltr.models import MANIFEST, Ranker, train_ranker
from test_ltr_models import synthetic


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("lightgbm")
    folder = tmp_path_factory.mktemp("model")
    train_ranker("lightgbm", synthetic(0), params={"min_data_in_leaf": 5, "verbosity": -1}, rounds=3).save(folder)
    return folder


def _copy(saved: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(saved, folder)
    return folder


def _edit_manifest(**changes: object) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        manifest = json.loads((folder / MANIFEST).read_text())
        for key, value in changes.items():
            if value is _DROP:
                manifest.pop(key)
            else:
                manifest[key] = value
        (folder / MANIFEST).write_text(json.dumps(manifest))

    return edit


_DROP = object()


def _link(name: str, target: str) -> Callable[[Path], None]:
    def link(folder: Path) -> None:
        (folder / name).unlink()
        os.symlink(target, folder / name)

    return link


def _truncate(folder: Path) -> None:
    text = (folder / "model.txt").read_text()
    (folder / "model.txt").write_text(text[: len(text) // 3])


BAD_MODELS = [
    ("model_file elsewhere", _edit_manifest(model_file="/etc/passwd"), r"model_file must be the name of a file in"),
    ("model_file climbing out", _edit_manifest(model_file="../model.txt"), r"model_file must be the name of a file"),
    ("model file linked out", _link("model.txt", "/etc/passwd"), r"model_file must be a file inside the model dir"),
    ("manifest linked to /dev/zero", _link(MANIFEST, "/dev/zero"), r"the manifest must be a file inside the model"),
    ("truncated model.txt", _truncate, r"model\.txt: cannot be read as a lightgbm model \(not a whole LightGBM"),
    ("model file missing", lambda f: (f / "model.txt").unlink(), r"model\.txt: model_file is missing or not a regular"),
    ("kind missing", _edit_manifest(kind=_DROP), r"kind must be one of lightgbm, xgboost, linear, mlp, not '<miss"),
    ("kind of the wrong type", _edit_manifest(kind=5), r"kind must be one of .*, not 5$"),
    ("num_features text", _edit_manifest(num_features="6"), r"num_features must be an integer >= 1, not '6'$"),
    ("negative best_iteration", _edit_manifest(best_iteration=-1), r"best_iteration must be an integer >= 1 or null"),
    ("params a list", _edit_manifest(params=[1]), r"params must be an object, not \[1\]$"),
    ("history of numbers", _edit_manifest(history=[1, 2]), r"history must be a list of objects"),
    ("used_features negative", _edit_manifest(used_features=-2), r"used_features must be an integer >= 0 or null"),
    ("manifest not JSON", lambda f: (f / MANIFEST).write_text("{"), r"not valid JSON \(line 1\)"),
    ("manifest not UTF-8", lambda f: (f / MANIFEST).write_bytes(b"\xff\xfe"), r"not UTF-8 JSON|not valid JSON"),
    ("no manifest", lambda f: (f / MANIFEST).unlink(), r"not a rankwise model directory \(no rankwise-model\.json\)"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "damage", "message"), BAD_MODELS, ids=[c[0] for c in BAD_MODELS])
def test_bad_model_directories_are_one_line(
    saved: Path, tmp_path: Path, case: str, damage: Callable[[Path], None], message: str
) -> None:
    folder = _copy(saved, tmp_path)
    damage(folder)
    with pytest.raises(RankwiseError, match=message) as info:
        Ranker.load(folder)
    assert "\n" not in str(info.value)
    data = tmp_path / "data.txt"
    write_svmlight(synthetic(1), data)
    result = CliRunner().invoke(main, ["ltr", "predict", str(folder), str(data)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("rankwise: error: ") and result.stderr.count("\n") == 1


def test_a_good_model_still_loads(saved: Path) -> None:
    ranker = Ranker.load(saved)
    assert ranker.kind == "lightgbm" and ranker.num_features == 6 and len(ranker.predict(synthetic(1))) > 0


@pytest.mark.parametrize("kind", ["lightgbm", "xgboost"])
def test_unknown_library_parameters_are_refused(kind: str) -> None:
    pytest.importorskip(kind)
    with pytest.raises(RankwiseError, match=rf"^{kind} has no parameter 'nonsense_param' \(its parameters: https"):
        train_ranker(kind, synthetic(0), params={"nonsense_param": 1}, rounds=1)
    with pytest.raises(RankwiseError, match=r"has no parameter 'num_leave'; did you mean .*num_leaves\?"):
        train_ranker("lightgbm", synthetic(0), params={"num_leave": 7}, rounds=1)
    known = {"lightgbm": {"num_leaves": 7, "min_data_in_leaf": 5}, "xgboost": {"max_depth": 3, "eta": 0.3}}[kind]
    assert train_ranker(kind, synthetic(0), params=known, rounds=2).kind == kind


@pytest.mark.parametrize(("args", "message"), [
    (["--rounds", "0"], "rankwise: error: rounds must be an integer >= 1, not 0 (--rounds)"),
    (["--rounds", "-1"], "rankwise: error: rounds must be an integer >= 1, not -1 (--rounds)"),
    (["-p", "nonsense_param=1"], "rankwise: error: lightgbm has no parameter 'nonsense_param' (its parameters: "
                                 "https://lightgbm.readthedocs.io/en/stable/Parameters.html)"),
])  # fmt: skip
def test_training_errors_on_the_command_line(tmp_path: Path, args: list[str], message: str) -> None:
    pytest.importorskip("lightgbm")
    data = tmp_path / "train.txt"
    write_svmlight(synthetic(0), data)
    result = CliRunner().invoke(main, ["ltr", "train", str(data), "-o", str(tmp_path / "m"), *args])
    assert (result.exit_code, result.stderr) == (2, message + "\n")


def test_missing_groups_are_explained_in_command_line_terms(tmp_path: Path) -> None:
    data = tmp_path / "flat.txt"
    data.write_text("1 1:0.5\n0 1:0.1\n")
    result = CliRunner().invoke(main, ["ltr", "qrels", str(data)])
    assert result.exit_code == 2
    assert f"write each query's row count to {data}.query, one per line" in result.stderr
    assert result.stderr.count("\n") == 1
