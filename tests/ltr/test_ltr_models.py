"""Rankers behind one interface (rankwise.ltr.models) and the `rankwise ltr` commands.

The LightGBM check reproduces the published result of LightGBM's LambdaRank example (../shared/data/lambdarank):
best iteration 6, valid nDCG@1/3/5 = 0.549333 / 0.596228 / 0.639418, and rankwise's `lightgbm` dialect applied
to the saved model's predictions gives the same numbers as LightGBM's own evaluation.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import rankwise
from rankwise.cli import main
from rankwise.errors import RankwiseError
from rankwise.ltr import LtrData, read_svmlight_files, write_svmlight
from rankwise.ltr.models import Ranker, train_ranker

LAMBDARANK = Path(__file__).resolve().parents[3] / "shared" / "data" / "lambdarank"
EXAMPLE_PARAMS = {"num_leaves": 31, "min_data_in_leaf": 50, "bagging_freq": 1, "bagging_fraction": 0.9,
                  "min_sum_hessian_in_leaf": 5.0, "learning_rate": 0.01}  # fmt: skip
CUTOFFS = (1, 3, 5)


def synthetic(seed: int, groups: int = 40, width: int = 6, binary: bool = False) -> LtrData:
    """Groups of 3-12 rows whose grade (0-4, or 0/1) follows a noisy linear function of dense features."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 13, groups)
    rows = int(sizes.sum())
    x = rng.normal(size=(rows, width))
    labels = np.clip(np.round(x @ np.linspace(1, 0.2, width) / 1.5 + 1 + rng.normal(0, 0.3, rows)), 0, 4)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    if binary:
        labels = labels >= 2
    return LtrData(labels=labels.astype(np.int64), qids=np.arange(groups), group_offsets=offsets,
                   indptr=np.arange(rows + 1) * width, indices=np.tile(np.arange(width), rows),
                   values=x.reshape(-1), num_features=width)  # fmt: skip


def rankwise_ndcg(data: LtrData, scores: np.ndarray, dialect: str = "lightgbm") -> dict[str, float]:
    result = rankwise.evaluate(data.to_qrels(), data.to_run(scores), [f"nDCG@{k}" for k in CUTOFFS], dialect=dialect)
    return {f"ndcg@{k}": result.aggregate[f"nDCG@{k}"] for k in CUTOFFS}


@pytest.fixture(scope="module")
def lambdarank() -> tuple[LtrData, LtrData]:
    if not (LAMBDARANK / "rank.train").exists():
        pytest.skip(f"{LAMBDARANK} not found (shared data is optional)")
    train, test = read_svmlight_files([LAMBDARANK / "rank.train", LAMBDARANK / "rank.test"])
    return train, test


def test_lightgbm_reproduces_the_lambdarank_example(lambdarank, tmp_path: Path) -> None:
    pytest.importorskip("lightgbm")
    train, test = lambdarank
    rounds = []
    ranker = train_ranker("lightgbm", train, test, params=EXAMPLE_PARAMS, rounds=100, early_stopping=5,
                          on_progress=lambda i, values: rounds.append(i))  # fmt: skip
    assert (train.num_rows, ranker.used_features, ranker.best_iteration) == (3005, 211, 6)
    assert rounds == list(range(1, len(rounds) + 1)) and len(rounds) == 11  # 5 rounds past the best
    expected = {"ndcg@1": 0.549333, "ndcg@3": 0.596228, "ndcg@5": 0.639418}
    assert ranker.best_metrics == pytest.approx(expected, abs=5e-7)
    ranker.save(tmp_path / "model")
    loaded = Ranker.load(tmp_path / "model")
    ours = rankwise_ndcg(test, loaded.predict(test))
    for key, value in ranker.best_metrics.items():  # LightGBM's own evaluation = rankwise's lightgbm dialect
        assert math.isclose(ours[key], value, rel_tol=1e-12), key


@pytest.mark.parametrize("objective", ["rank:ndcg", "rank:pairwise", "rank:map"])
def test_xgboost_rankers_and_its_own_ndcg_equal_the_xgboost_dialect(objective: str, tmp_path: Path) -> None:
    pytest.importorskip("xgboost")
    train, valid = synthetic(1, binary=objective == "rank:map"), synthetic(2, binary=objective == "rank:map")
    ranker = train_ranker("xgboost", train, valid, params={"objective": objective, "max_depth": 3}, rounds=30,
                          early_stopping=5)  # fmt: skip
    assert 1 <= ranker.best_iteration <= 30
    ranker.save(tmp_path / "xgb")
    scores = Ranker.load(tmp_path / "xgb").predict(valid)
    np.testing.assert_array_equal(scores, ranker.predict(valid))
    ours = rankwise_ndcg(valid, scores, dialect="xgboost")
    for key, value in ranker.best_metrics.items():
        assert math.isclose(ours[key], value, rel_tol=1e-6), key  # XGBoost reports its metrics in float32
    assert ours["ndcg@5"] > 0.8


@pytest.mark.parametrize("kind", ["linear", "mlp"])
def test_neural_rankers_behind_the_same_interface(kind: str, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    train, valid = synthetic(3), synthetic(4)
    ranker = train_ranker(kind, train, valid, params={"loss": "listnet", "learning_rate": "0.01"}, rounds=15,
                          early_stopping=4, seed=0)  # fmt: skip
    assert ranker.best_metrics["ndcg@5"] == pytest.approx(rankwise_ndcg(valid, ranker.predict(valid))["ndcg@5"])
    ranker.save(tmp_path / kind)
    np.testing.assert_allclose(Ranker.load(tmp_path / kind).predict(valid), ranker.predict(valid), rtol=1e-6)
    assert ranker.best_metrics["ndcg@5"] > 0.8


def test_bad_requests_are_clear() -> None:
    data = synthetic(5)
    with pytest.raises(RankwiseError, match="unknown model 'forest'"):
        train_ranker("forest", data)
    with pytest.raises(RankwiseError, match="early stopping needs a validation set"):
        train_ranker("lightgbm", data, early_stopping=3)
    pytest.importorskip("xgboost")
    with pytest.raises(RankwiseError, match=r"xgboost refused the training: .*map can only be used with binary"):
        train_ranker("xgboost", data, params={"objective": "rank:map"}, rounds=1)
    pytest.importorskip("torch")
    with pytest.raises(RankwiseError, match="unknown parameter 'layers'"):
        train_ranker("mlp", data, params={"layers": 3}, rounds=1)
    with pytest.raises(RankwiseError, match="hidden='x' must be like"):
        train_ranker("mlp", data, params={"hidden": "x"}, rounds=1)


def test_a_missing_extra_says_what_to_install(monkeypatch) -> None:
    import importlib

    real = importlib.import_module

    def without_lightgbm(name: str, *args, **kwargs):
        if name == "lightgbm":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", without_lightgbm)
    with pytest.raises(RankwiseError, match=r"pip install '\.\[lightgbm\]' \(in a rankwise checkout\)"):
        train_ranker("lightgbm", synthetic(6))


def test_cli_train_predict_qrels_evaluate(tmp_path: Path) -> None:
    pytest.importorskip("lightgbm")
    train_file, valid_file = tmp_path / "train.txt", tmp_path / "valid.txt"
    write_svmlight(synthetic(7), train_file)
    write_svmlight(synthetic(8), valid_file, query_file=True)  # groups from valid.txt.query
    runner = CliRunner()
    model = tmp_path / "model"
    trained = runner.invoke(main, ["ltr", "train", str(train_file), "--valid", str(valid_file), "-p",
                                   "num_leaves=7", "-p", "min_data_in_leaf=5", "--rounds", "20",
                                   "--early-stopping", "3", "-o", str(model)])  # fmt: skip
    assert trained.exit_code == 0, trained.output
    assert "[   1] ndcg@1=" in trained.stderr and "best iteration" in trained.stderr
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    assert runner.invoke(main, ["ltr", "predict", str(model), str(valid_file), "-o", str(run)]).exit_code == 0
    assert runner.invoke(main, ["ltr", "qrels", str(valid_file), "-o", str(qrels)]).exit_code == 0
    first = run.read_text().splitlines()[0].split()
    assert first[1] == "Q0" and first[3] == "1" and first[5] == "rankwise"
    via_files = runner.invoke(main, ["evaluate", str(qrels), str(run), "--dialect", "lightgbm", "-m", "nDCG@5",
                                     "--format", "json"])  # fmt: skip
    direct = runner.invoke(main, ["ltr", "evaluate", str(model), str(valid_file), "--dialect", "lightgbm", "-m",
                                  "nDCG@5", "--format", "json"])  # fmt: skip
    assert via_files.exit_code == direct.exit_code == 0
    assert via_files.stdout == direct.stdout
    ranker = Ranker.load(model)
    import json

    assert json.loads(direct.stdout)["aggregate"]["nDCG@5"] == pytest.approx(ranker.best_metrics["ndcg@5"], abs=1e-12)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ltr", "train", "TRAIN", "-p", "noequals", "-o", "m"], "parameters are KEY=VALUE"),
        (["ltr", "train", "TRAIN", "--loss", "listnet", "-o", "m"], "--loss is for the neural models"),
        (["ltr", "train", "TRAIN", "--eval-at", "1,x", "-o", "m"], "cutoffs must be integers"),
        (["ltr", "predict", "nowhere", "TRAIN"], "not a rankwise model directory"),
        (["ltr", "train", "missing.txt", "-o", "m"], "missing.txt"),
    ],
)
def test_cli_errors_are_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    train_file = tmp_path / "train.txt"
    write_svmlight(synthetic(9, groups=3), train_file)
    args = [str(train_file) if a == "TRAIN" else str(tmp_path / a) if a in ("m", "nowhere") else a for a in args]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_cli_qid_order(tmp_path: Path) -> None:
    """qids that fall are refused with one line naming the file and line, unless --any-qid-order."""
    path = tmp_path / "unsorted.txt"
    path.write_text("1 qid:7 1:0.5\n0 qid:7 1:0.1\n2 qid:3 1:0.9\n")
    runner = CliRunner()
    refused = runner.invoke(main, ["ltr", "qrels", str(path)])
    assert refused.exit_code == 2
    assert refused.stderr.strip() == (
        f"rankwise: error: {path}:3: qid 3 comes after qid 7 (line 1); qids must increase (qid_order='any', on the "
        "command line --any-qid-order, accepts contiguous groups in any order)"
    )
    accepted = runner.invoke(main, ["ltr", "qrels", str(path), "--any-qid-order"])
    assert accepted.exit_code == 0, accepted.output
    assert accepted.stdout.splitlines() == ["7 0 0 1", "7 0 1 0", "3 0 0 2"]


def test_cli_doc_ids_from_comments(tmp_path: Path) -> None:
    """With --doc-ids-from-comments, ltr predict and ltr qrels name documents by their comments, and rankwise
    evaluate on those files equals ltr evaluate."""
    pytest.importorskip("lightgbm")
    data = synthetic(12, groups=12)
    named = LtrData(*(getattr(data, f) for f in ("labels", "qids", "group_offsets", "indptr", "indices", "values")),
                    num_features=data.num_features, docnos=[f"D{r:04d}" for r in range(data.num_rows)])  # fmt: skip
    path = tmp_path / "named.txt"
    write_svmlight(named, path)
    runner = CliRunner()
    model = tmp_path / "model"
    trained = runner.invoke(main, ["ltr", "train", str(path), "-p", "min_data_in_leaf=5", "--rounds", "5", "--quiet",
                                   "-o", str(model)])  # fmt: skip
    assert trained.exit_code == 0, trained.output
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    for command, output in (["predict", str(model)], run), (["qrels"], qrels):
        done = runner.invoke(main, ["ltr", *command, str(path), "--doc-ids-from-comments", "-o", str(output)])
        assert done.exit_code == 0, done.output
    assert {line.split()[2] for line in run.read_text().splitlines()} == set(named.docnos.tolist())
    assert [line.split()[2] for line in qrels.read_text().splitlines()] == named.docnos.tolist()
    via_files = runner.invoke(main, ["evaluate", str(qrels), str(run), "-m", "nDCG@5", "-m", "AP", "--format", "json"])
    direct = runner.invoke(main, ["ltr", "evaluate", str(model), str(path), "--doc-ids-from-comments", "-m", "nDCG@5",
                                  "-m", "AP", "--format", "json"])  # fmt: skip
    assert via_files.exit_code == direct.exit_code == 0
    assert via_files.stdout == direct.stdout
    unnamed = tmp_path / "unnamed.txt"
    write_svmlight(data, unnamed)
    refused = runner.invoke(main, ["ltr", "qrels", str(unnamed), "--doc-ids-from-comments"])
    assert refused.exit_code == 2 and "no document id in a trailing comment" in refused.stderr
