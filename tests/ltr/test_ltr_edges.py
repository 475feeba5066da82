"""Learning-to-rank edges: a model directory reads only its own files and every bad manifest or model file is one
line; unknown library parameters and impossible round counts are refused; errors speak the command line's
language."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_ltr_models import synthetic
from test_ltr_svmlight import TOKENS, svmlight_text

from rankwise.cli import main
from rankwise.errors import RankwiseError
from rankwise.ltr import write_svmlight
from rankwise.ltr.models import MANIFEST, Ranker, train_ranker


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
    ("kind missing", _edit_manifest(kind=_DROP), r"kind must be one of lightgbm, xgboost, .*, transformer, not '<miss"),
    ("kind of the wrong type", _edit_manifest(kind=5), r"kind must be one of .*, not 5$"),
    ("num_features text", _edit_manifest(num_features="6"), r"num_features must be an integer >= 1, not '6'$"),
    ("negative best_iteration", _edit_manifest(best_iteration=-1), r"best_iteration must be an integer >= 1 or null"),
    ("params a list", _edit_manifest(params=[1]), r"params must be an object, not \[1\]$"),
    ("history of numbers", _edit_manifest(history=[1, 2]), r"history must be a list of objects"),
    ("used_features negative", _edit_manifest(used_features=-2), r"used_features must be an integer >= 0 or null"),
    ("num_features not the model's", _edit_manifest(num_features=2**31 - 1),
     r"rankwise-model\.json: num_features is 2147483647, but model\.txt holds a model of 6 features$"),
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


# ------------------------------------------------------------------- training says what it does, every round
@pytest.mark.parametrize(("kind", "first"), [("lightgbm", "[   1] train_ndcg@1="), ("xgboost", "[   1] train_ndcg@1="),
                                             ("linear", "[   1] loss=")])  # fmt: skip
def test_progress_every_round_without_validation(tmp_path: Path, kind: str, first: str) -> None:
    pytest.importorskip({"linear": "torch"}.get(kind, kind))
    data = tmp_path / "train.txt"
    write_svmlight(synthetic(0), data)
    params = ["-p", "min_data_in_leaf=5"] if kind == "lightgbm" else []
    args = ["ltr", "train", str(data), "--model", kind, "--rounds", "3", *params, "-o", str(tmp_path / "m")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert [line[:7] for line in lines[:3]] == ["[   1] ", "[   2] ", "[   3] "] and lines[0].startswith(first)
    assert len(lines) == 4 and lines[3].endswith(
        f"; 3 iterations (no --valid: the last is kept); saved to {tmp_path}/m"
    )
    assert " ;" not in lines[3]
    quiet = CliRunner().invoke(main, [*args, "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr.splitlines() == lines[3:]


def test_the_summary_with_validation_names_the_best_round(tmp_path: Path) -> None:
    pytest.importorskip("lightgbm")
    train, valid = tmp_path / "train.txt", tmp_path / "valid.txt"
    write_svmlight(synthetic(0), train)
    write_svmlight(synthetic(1), valid)
    result = CliRunner().invoke(main, ["ltr", "train", str(train), "--valid", str(valid), "--rounds", "4", "-p",
                                       "min_data_in_leaf=5", "--eval-at", "3", "-o", str(tmp_path / "m")])  # fmt: skip
    assert result.exit_code == 0, result.output
    *rounds, summary = result.stderr.splitlines()
    assert [line.split("] ")[1].split("=")[0] for line in rounds] == ["ndcg@3"] * 4
    best = Ranker.load(tmp_path / "m")
    assert f"; best iteration {best.best_iteration} of 4: ndcg@3={best.best_metrics['ndcg@3']:.6f}; saved" in summary


# ------------------------------------------------------------------- what a small input may make rankwise allocate
def _file(tmp_path: Path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text)
    return str(tmp_path / name)


WIDE = "far beyond the {stored} stored values: a width read from the data may be at most 65536 (the larger of 65536 " \
       "and the stored values); give the width (num_features=, on the command line --num-features) if the data is " \
       "this wide"  # fmt: skip

BAD_TRAINING = [
    ("index 1e8 in 80 bytes", "0 qid:1 1:0.5 2:1\n1 qid:1 100000000:1\n2 qid:2 1:1 3:1\n0 qid:2 2:0.25\n", [],
     "{f}:2: feature index 100000000 is " + WIDE.format(stored=6)),
    ("index near 2^31, linear", "1 qid:1 1:0.5\n0 qid:1 2147483000:1\n", ["--model", "linear"],
     "{f}:2: feature index 2147483000 is " + WIDE.format(stored=2)),
    ("index past int32", "1 qid:1 1:0.5\n0 qid:1 2147483649:1\n", ["--model", "linear"],
     "{f}:2: feature index 2147483649 is too large"),
    ("no features, mlp", "1 qid:1\n0 qid:1\n", ["--model", "mlp"], "{f}: no features to train on (no row has an "
                                                                    "index:value)"),
    ("no features, lightgbm", "1 qid:1\n0 qid:1\n", [], "{f}: no features to train on (no row has an index:value)"),
    ("negative label, lightgbm", "-1 qid:1 1:0.5\n0 qid:1 2:1\n", [],
     "{f}: row 1 (qid 1, document 0) has label -1; ranking grades are integers >= 0"),
    ("negative label, xgboost", "0 qid:1 1:0.5\n-2 qid:1 2:1\n", ["--model", "xgboost"],
     "{f}: row 2 (qid 1, document 1) has label -2; ranking grades are integers >= 0"),
    ("negative label, linear", "0 qid:1 1:0.5\n-2 qid:1 2:1\n", ["--model", "linear"],
     "{f}: row 2 (qid 1, document 1) has label -2; ranking grades are integers >= 0"),
    ("label 31, lightgbm", "1 qid:1 1:0.5\n0 qid:1 2:1\n0 qid:2 1:1\n31 qid:2 2:1\n", [],
     "{f}: row 4 (qid 2, document 1) has label 31; lightgbm ranks grades 0 to 30 (give one gain per grade for "
     "more: -p label_gain=0,1,3,...)"),
    ("NaN feature, linear", "1 qid:1 1:0.5\n0 qid:1 2:nan\n", ["--model", "linear"],
     "{f}: row 2 (qid 1, document 1) has the feature value nan; the linear model needs finite float32 values "
     "(lightgbm and xgboost read NaN as missing)"),
    ("1e308 feature, mlp", "1 qid:1 1:0.5\n0 qid:1 2:1e308\n", ["--model", "mlp"],
     "{f}: row 2 (qid 1, document 1) has the feature value 1e+308; the mlp model needs finite float32 values "
     "(lightgbm and xgboost read NaN as missing)"),
    ("inf feature, xgboost", "1 qid:1 1:inf\n0 qid:1 1:1\n", ["--model", "xgboost"],
     "xgboost refused the training: Input data contains `inf` or a value too large, while `missing` is not set to "
     "`inf`"),
    ("hidden=0", None, ["--model", "mlp", "-p", "hidden=0"],
     "an mlp needs hidden layers of width >= 1 (e.g. hidden=64,32), not hidden=0"),
    ("hidden=-3,2", None, ["--model", "mlp", "-p", "hidden=-3,2"], "an mlp needs hidden layers of width >= 1 "
                                                                   "(e.g. hidden=64,32), not hidden=-3,2"),
    ("hidden=1.5", None, ["--model", "mlp", "-p", "hidden=1.5"], "hidden must be layer widths (integers such as "
                                                                 "64,32), not 1.5"),
    ("standardize=2", None, ["--model", "linear", "-p", "standardize=2"], "standardize must be True or False and "
                                                                          "device a name, not 2 and 'auto'"),
    ("batch_groups=0.5", None, ["--model", "linear", "-p", "batch_groups=0.5"], "batch_groups must be an integer, "
                                                                                "not 0.5"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "args", "message"), BAD_TRAINING, ids=[c[0] for c in BAD_TRAINING])
def test_bad_training_inputs_are_one_line(tmp_path: Path, case: str, text: str | None, args: list[str],
                                          message: str) -> None:  # fmt: skip
    kind = args[args.index("--model") + 1] if "--model" in args else "lightgbm"
    pytest.importorskip({"linear": "torch", "mlp": "torch"}.get(kind, kind))
    if text is None:
        data = str(tmp_path / "train.txt")
        write_svmlight(synthetic(0), data)
    else:
        data = _file(tmp_path, "train.txt", text)
    result = CliRunner().invoke(main, ["ltr", "train", data, *args, "--rounds", "1", "-o", str(tmp_path / "m")])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"rankwise: error: {message.format(f=data)}\n"


def test_a_wide_width_is_read_when_asked_for(tmp_path: Path) -> None:
    from rankwise.ltr import read_svmlight, read_svmlight_files

    wide = _file(tmp_path, "wide.txt", "1 qid:1 1:0.5\n0 qid:1 100000000:1\n")
    assert read_svmlight(wide, num_features=100000000).num_features == 100000000
    result = CliRunner().invoke(main, ["ltr", "qrels", wide, "--num-features", "100000000"])
    assert (result.exit_code, result.stdout) == (0, "1 0 0 1\n1 0 1 0\n")
    refused = CliRunner().invoke(main, ["ltr", "qrels", wide])
    assert refused.exit_code == 2 and f"{wide}:2: feature index 100000000 is far beyond" in refused.stderr
    # a width of 65536 needs no asking; more needs as many stored values, over all the files read together
    assert read_svmlight(_file(tmp_path, "edge.txt", "1 qid:1 65536:1\n")).num_features == 65536
    dense = _file(tmp_path, "dense.txt", "1 qid:1 " + " ".join(f"{j}:1" for j in range(1, 70001)) + "\n")
    sparse = _file(tmp_path, "sparse.txt", "1 qid:1 1:1\n0 qid:1 70000:1\n")
    assert [d.num_features for d in read_svmlight_files([dense, sparse])] == [70000, 70000]
    with pytest.raises(RankwiseError, match=r"sparse\.txt:2: feature index 70000 is far beyond the 2 stored values"):
        read_svmlight(sparse)
    with pytest.raises(RankwiseError, match=r"sparse\.txt:2: feature index 70000 is far beyond the 4 stored values"):
        read_svmlight_files([_file(tmp_path, "small.txt", "1 qid:1 1:1 2:1\n"), sparse])


def test_dense_features_that_cannot_fit_in_memory_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rankwise.ltr import limits, read_svmlight

    data = read_svmlight(_file(tmp_path, "wide.txt", "1 qid:1 1:0.5\n0 qid:1 5000:1\n"))
    monkeypatch.setattr(limits, "physical_memory", lambda: 2**15)
    with pytest.raises(RankwiseError, match=r"wide\.txt: dense features \(2 rows × 5000 columns\) would take 0\.0 GiB, "
                                            r"more than this machine's 0\.0 GiB of memory$"):  # fmt: skip
        data.dense()
    monkeypatch.setattr(limits, "physical_memory", lambda: 2**16)
    assert data.dense().shape == (2, 5000)


# ------------------------------------------------------------------- runs that rankwise reads back as written
@pytest.fixture(scope="module")
def linear_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("linear")
    train_ranker("linear", synthetic(0), params={"device": "cpu"}, rounds=2, seed=0).save(folder)
    return folder


def _named(values_at: dict[int, float] | None = None, docnos: dict[int, str] | None = None):
    from rankwise.ltr import LtrData

    data = synthetic(3, groups=3)
    values = data.values.copy()
    for entry, value in (values_at or {}).items():
        values[entry] = value
    names = [f"d{row}" for row in range(data.num_rows)]
    for row, name in (docnos or {}).items():
        names[row] = name
    return LtrData(data.labels, data.qids, data.group_offsets, data.indptr, data.indices, values, data.num_features,
                   docnos=names)  # fmt: skip


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
@pytest.mark.parametrize("command", ["predict", "evaluate"])
def test_a_score_that_is_not_a_number_is_an_error(tmp_path: Path, linear_model: Path, value: float,
                                                  command: str) -> None:  # fmt: skip
    data = tmp_path / "data.txt"
    write_svmlight(_named({6 * 4 + 2: value}), data)  # row 5 (1-based), the third of its query
    result = CliRunner().invoke(main, ["ltr", command, str(linear_model), str(data), "--doc-ids-from-comments"])
    assert (result.exit_code, result.stdout) == (2, "")
    shown = "nan" if value != value else "inf"
    assert result.stderr.startswith(f"rankwise: error: {data}: the linear model scores row 5 (qid 0, document d4) as ")
    assert result.stderr.endswith(f": one of its feature values is {shown}; 1 row has no finite score, of 18\n")


def test_lightgbm_scores_nan_features_as_missing(tmp_path: Path, saved: Path) -> None:
    data = tmp_path / "data.txt"
    write_svmlight(_named({6 * 4 + 2: float("nan")}), data)
    result = CliRunner().invoke(main, ["ltr", "predict", str(saved), str(data)])
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 18


@pytest.mark.parametrize("name", ["a b", "a\tb", "", "x\n"])
def test_a_run_name_is_one_word(tmp_path: Path, saved: Path, name: str) -> None:
    data = tmp_path / "data.txt"
    write_svmlight(synthetic(1), data)
    result = CliRunner().invoke(main, ["ltr", "predict", str(saved), str(data), "--run-name", name])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"rankwise: error: --run-name {name!r}: a run name is one word (no spaces, tabs or line " \
                            "breaks)\n"  # fmt: skip


def test_trec_fields_are_written_as_they_are(tmp_path: Path, saved: Path) -> None:
    """A document id with a quote or a comma is written raw (never CSV-quoted), so rankwise reads back the same."""
    data, run, qrels = tmp_path / "data.txt", tmp_path / "run.txt", tmp_path / "qrels.txt"
    write_svmlight(_named(docnos={0: 'a"b', 1: "c,d", 2: "'e'"}), data)
    runner = CliRunner()
    for command, output in ((["predict", str(saved)], run), (["qrels"], qrels)):
        done = runner.invoke(main, ["ltr", *command, str(data), "--doc-ids-from-comments", "-o", str(output),
                                    *(["--run-name", 'r"1'] if command[0] == "predict" else [])])  # fmt: skip
        assert done.exit_code == 0, done.output
    run_lines = [line.split(" ") for line in run.read_text().splitlines()]
    assert {'a"b', "c,d", "'e'"} <= {fields[2] for fields in run_lines}
    assert {len(fields) for fields in run_lines} == {6} and {fields[5] for fields in run_lines} == {'r"1'}
    assert [line.split(" ")[2] for line in qrels.read_text().splitlines()[:3]] == ['a"b', "c,d", "'e'"]
    via_files = runner.invoke(main, ["evaluate", str(qrels), str(run), "-m", "nDCG@3", "--format", "json"])
    direct = runner.invoke(main, ["ltr", "evaluate", str(saved), str(data), "--doc-ids-from-comments", "-m", "nDCG@3",
                                  "--format", "json"])  # fmt: skip
    assert via_files.exit_code == direct.exit_code == 0 and via_files.stdout == direct.stdout


def test_document_ids_with_white_space_are_refused(tmp_path: Path) -> None:
    from rankwise.cli.ltr import trec_run

    data = _named(docnos={4: "two words"})
    with pytest.raises(RankwiseError, match=r"<memory>: document id 'two words' of row 5 cannot be a TREC field"):
        trec_run(data, np.zeros(data.num_rows), "run")


# ------------------------------------------------------------------- the fuzzer, at a budget the suite can afford
ODD_TOKENS = st.sampled_from(["0:1", "65536:1", "65537:1", "100000000:1", "2147483647:1", "2147483648:1", "1:nan",
                              "2:inf", "3:-inf", "4:1e308", "5:1e-320", "1:1e400"])  # fmt: skip
PLAIN_TOKENS = st.sampled_from(["1:0.5", "2:-3", "3:7", "6:1", "2:0", "4:0.25"])


@st.composite
def ltr_text(draw: st.DrawFn) -> bytes:
    """SVMlight text that mostly reaches training (plain grades and features) with odd widths, values, labels
    and the parser fuzzer's tokens mixed in; or the parser fuzzer's text itself."""
    if draw(st.integers(0, 3)) == 0:
        return draw(svmlight_text())
    lines = []
    for qid in range(1, draw(st.integers(1, 3)) + 1):
        for _ in range(draw(st.integers(1, 4))):
            odd = draw(st.integers(0, 9)) == 0
            label = draw(st.sampled_from(["4", "31", "-1", "1.5", "7"] if odd else ["0", "1", "2"]))
            features = draw(st.lists(st.one_of(PLAIN_TOKENS, PLAIN_TOKENS, PLAIN_TOKENS, ODD_TOKENS, TOKENS) if odd
                                     else PLAIN_TOKENS, max_size=4))  # fmt: skip
            lines.append(" ".join([label, f"qid:{qid}", *features]))
    return ("\n".join(lines) + "\n").encode()


def _one_line_or_success(result: Any, what: str) -> None:
    assert result.exit_code in (0, 2), f"{what}: {result.exception!r}\n{result.output}"
    if result.exit_code == 2:
        assert result.stdout == "" and result.stderr.startswith("rankwise: error: "), result.output
        assert result.stderr.count("\n") == 1, result.stderr


FUZZ_EXAMPLES = int(os.environ.get("RANKWISE_FUZZ_EXAMPLES", "60"))
"""The suite's budget; ``RANKWISE_FUZZ_EXAMPLES=2000`` fuzzes for real."""


@settings(max_examples=FUZZ_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])  # fmt: skip
@given(text=ltr_text(), kind=st.sampled_from(["lightgbm", "xgboost", "linear"]))
def test_fuzz_ltr_commands_succeed_or_say_one_line(tmp_path: Path, linear_model: Path, capfd: pytest.CaptureFixture,
                                                   text: bytes, kind: str) -> None:  # fmt: skip
    """Every ltr command on generated files: exit 0 with a well-formed output, or exit 2 with one line."""
    pytest.importorskip(kind if kind != "linear" else "torch")
    data = tmp_path / "fuzz.txt"
    data.write_bytes(text)
    runner = CliRunner()
    qrels = runner.invoke(main, ["ltr", "qrels", str(data)])
    _one_line_or_success(qrels, "qrels")
    params = ["-p", "min_data_in_leaf=1", "-p", "min_sum_hessian_in_leaf=0"] if kind == "lightgbm" else []
    trained = runner.invoke(main, ["ltr", "train", str(data), "--model", kind, "--rounds", "2", *params, "--quiet",
                                   "-o", str(tmp_path / "model")])  # fmt: skip
    _one_line_or_success(trained, "train")
    event(f"train {kind}: exit {trained.exit_code}")
    predicted = runner.invoke(main, ["ltr", "predict", str(linear_model), str(data)])
    _one_line_or_success(predicted, "predict")
    if predicted.exit_code == 0:
        fields = [line.split(" ") for line in predicted.stdout.splitlines()]
        assert {len(f) for f in fields} == {6} and all(np.isfinite(float(f[4])) for f in fields)
    evaluated = runner.invoke(main, ["ltr", "evaluate", str(linear_model), str(data), "--format", "json"])
    _one_line_or_success(evaluated, "evaluate")
    native = capfd.readouterr()  # what the libraries' C++ cores wrote past Python (LightGBM's "[Fatal] ...")
    assert (native.out, native.err) == ("", "")
