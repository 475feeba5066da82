"""Rankers trained on :class:`~rankwise.ltr.svmlight.LtrData`: LambdaMART through LightGBM or XGBoost, and the
PyTorch scorers of :mod:`rankwise.ltr.neural`, behind one interface.

- :func:`train_ranker` trains a model kind (see :data:`MODEL_KINDS`) with early stopping on a validation set;
- :class:`Ranker` predicts one score per row and saves to / loads from a directory holding
  ``rankwise-model.json`` (kind, width, best iteration, parameters) and the library's own model file
  (``model.txt`` for LightGBM, ``model.json`` for XGBoost, ``model.pt`` for PyTorch), so the native model can
  also be loaded with the library itself.

LightGBM, XGBoost and PyTorch are optional extras (``rankwise[lightgbm]``, ``rankwise[xgboost]``,
``rankwise[torch]``); a missing one is a :class:`~rankwise.errors.RankwiseError` that says what to install.
Validation metrics during training are the libraries' own (LightGBM ``ndcg@k``, XGBoost ``ndcg@k``); the
neural rankers' are rankwise's ``lightgbm`` dialect, which equals LightGBM's.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import RankwiseError
from .svmlight import LtrData

FORMAT = "rankwise.ltr/1"
MANIFEST = "rankwise-model.json"
ProgressCallback = Callable[[int, Mapping[str, float]], None]
"""``on_progress(iteration, {metric: value})`` after every boosting round or epoch (1-based)."""

MODEL_KINDS = {
    "lightgbm": "LambdaMART in LightGBM (objective lambdarank unless -p objective=...)",
    "xgboost": "LambdaMART in XGBoost (objective rank:ndcg; -p objective=rank:pairwise or rank:map)",
    "linear": "a linear scorer in PyTorch, trained with --loss",
    "mlp": "a multilayer perceptron in PyTorch (-p hidden=64,32), trained with --loss",
}
_EXTRA = {"lightgbm": "lightgbm", "xgboost": "xgboost", "torch": "torch"}
_FILES = {"lightgbm": "model.txt", "xgboost": "model.json", "linear": "model.pt", "mlp": "model.pt"}


def _require(module: str) -> Any:
    """Import an optional dependency or say how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise RankwiseError(f"{module} is not installed: pip install 'rankwise[{_EXTRA[module]}]'") from None


@dataclass
class Ranker:
    """A trained model: ``predict(data)`` gives one float64 score per row (higher ranks first).

    ``best_iteration``: the boosting round or epoch (1-based) whose model predicts; ``history``: the validation
    metrics (and the neural training loss) of every iteration run; ``params``: what it was trained with.
    """

    kind: str
    num_features: int
    model: Any
    best_iteration: int | None = None
    params: dict[str, Any] = field(default_factory=dict)
    history: list[dict[str, float]] = field(default_factory=list)
    used_features: int | None = None
    """Features the model could split on (LightGBM: those with more than one histogram bin)."""

    @property
    def best_metrics(self) -> dict[str, float]:
        """The validation metrics of the best iteration (empty without validation)."""
        if not self.history or not self.best_iteration or self.best_iteration > len(self.history):
            return {}
        return dict(self.history[self.best_iteration - 1])

    def predict(self, data: LtrData) -> np.ndarray:
        """Scores for every row of ``data`` (its width must not exceed the model's)."""
        if data.num_features > self.num_features:
            raise RankwiseError(
                f"{data.source}: {data.num_features} features, but the model was trained on {self.num_features}"
            )
        widened = dataclasses.replace(data, num_features=self.num_features)
        if self.kind == "lightgbm":
            return np.asarray(self.model.predict(widened.to_scipy(), num_iteration=self.best_iteration), np.float64)
        if self.kind == "xgboost":
            xgb = _require("xgboost")
            matrix = xgb.DMatrix(widened.to_scipy())
            end = self.best_iteration or 0
            return np.asarray(self.model.predict(matrix, iteration_range=(0, end)), dtype=np.float64)
        return self.model.predict(widened.dense(np.float32))

    def save(self, directory: str | Path) -> Path:
        """Write the model into ``directory`` (created if needed); returns the manifest's path."""
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        native = folder / _FILES[self.kind]
        if self.kind in ("lightgbm", "xgboost"):
            self.model.save_model(str(native))
        else:
            self.model.save(native)
        manifest = {
            "format": FORMAT,
            "kind": self.kind,
            "num_features": self.num_features,
            "best_iteration": self.best_iteration,
            "model_file": native.name,
            "params": self.params,
            "history": self.history,
            "used_features": self.used_features,
        }
        path = folder / MANIFEST
        path.write_text(json.dumps(manifest, indent=1, default=str) + "\n")
        return path

    @classmethod
    def load(cls, directory: str | Path, *, device: str = "auto") -> Ranker:
        """Read a model written by :meth:`save`."""
        folder = Path(directory)
        path = folder / MANIFEST
        try:
            manifest = json.loads(path.read_text())
        except FileNotFoundError:
            raise RankwiseError(f"{folder}: not a rankwise model directory (no {MANIFEST})") from None
        except json.JSONDecodeError as exc:
            raise RankwiseError(f"{path}: not valid JSON (line {exc.lineno})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise RankwiseError(f"{path}: not a rankwise model manifest (format {FORMAT})")
        kind = manifest["kind"]
        native = folder / manifest["model_file"]
        if kind == "lightgbm":
            model = _require("lightgbm").Booster(model_file=str(native))
        elif kind == "xgboost":
            model = _require("xgboost").Booster(model_file=str(native))
        else:
            from .neural import NeuralRanker

            model = NeuralRanker.load(native, device=device)
        return cls(kind, int(manifest["num_features"]), model, manifest.get("best_iteration"),
                   manifest.get("params", {}), manifest.get("history", []), manifest.get("used_features"))  # fmt: skip


def train_ranker(
    kind: str,
    train: LtrData,
    valid: LtrData | None = None,
    *,
    params: Mapping[str, Any] | None = None,
    rounds: int = 100,
    early_stopping: int | None = None,
    eval_at: Sequence[int] = (1, 3, 5),
    seed: int | None = None,
    on_progress: ProgressCallback | None = None,
) -> Ranker:
    """Train a ranker of ``kind`` (a key of :data:`MODEL_KINDS`) on ``train``.

    - ``params``: passed to the library (LightGBM / XGBoost parameter names) or to
      :class:`~rankwise.ltr.neural.NeuralConfig` (``loss``, ``hidden``, ``learning_rate``, ...).
    - ``rounds``: boosting rounds or epochs; ``early_stopping``: stop after that many rounds without a better
      validation nDCG (needs ``valid``), keeping the best; ``eval_at``: the validation nDCG cutoffs (the neural
      rankers stop on the largest).
    - ``seed``: LightGBM's and XGBoost's ``seed``, the neural rankers' seed; None keeps each library's default
      (LightGBM's own seeds, which its published example results depend on; 0 for the neural rankers).
    """
    if kind not in MODEL_KINDS:
        raise RankwiseError(f"unknown model {kind!r}; choose one of {', '.join(MODEL_KINDS)}")
    if early_stopping is not None and valid is None:
        raise RankwiseError("early stopping needs a validation set")
    if valid is not None and valid.num_features > train.num_features:
        raise RankwiseError(
            f"{valid.source}: {valid.num_features} features, more than the {train.num_features} of {train.source}"
        )
    if valid is not None:
        valid = dataclasses.replace(valid, num_features=train.num_features)
    given = dict(params or {})
    trainer = {"lightgbm": _train_lightgbm, "xgboost": _train_xgboost}.get(kind, _train_neural)
    job = _Job(kind, train, valid, given, rounds, early_stopping, list(eval_at), seed, on_progress)
    try:
        return trainer(job)
    except Exception as exc:
        if type(exc).__name__ not in ("LightGBMError", "XGBoostError"):
            raise
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RankwiseError(f"{kind} refused the training: {detail}") from None


@dataclass(frozen=True)
class _Job:
    """One training request, as :func:`train_ranker` checked it."""

    kind: str
    train: LtrData
    valid: LtrData | None
    given: dict[str, Any]
    rounds: int
    early_stopping: int | None
    eval_at: list[int]
    seed: int | None
    on_progress: ProgressCallback | None


def _train_lightgbm(job: _Job) -> Ranker:
    """LightGBM ``lgb.train`` with ``objective=lambdarank``, ``metric=ndcg``, ``eval_at`` and the given params."""
    lgb = _require("lightgbm")
    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": job.eval_at, "verbosity": -1,
              **({"seed": job.seed} if job.seed is not None else {}), **job.given}  # fmt: skip
    train = job.train
    train_set = lgb.Dataset(train.to_scipy(), label=train.labels, group=train.group_sizes, params=params)
    valid_sets, callbacks, history = [], [], []
    if job.valid is not None:
        valid_sets = [lgb.Dataset(job.valid.to_scipy(), label=job.valid.labels, group=job.valid.group_sizes,
                                  reference=train_set)]  # fmt: skip

        def record(env: Any) -> None:
            values = {f"{name}": float(value) for _, name, value, _ in env.evaluation_result_list}
            history.append(values)
            if job.on_progress is not None:
                job.on_progress(env.iteration + 1, values)

        callbacks.append(record)
        if job.early_stopping is not None:
            callbacks.append(lgb.early_stopping(job.early_stopping, verbose=False))
    booster = lgb.train(params, train_set, num_boost_round=job.rounds, valid_sets=valid_sets, valid_names=["valid"],
                        callbacks=callbacks)  # fmt: skip
    best = booster.best_iteration if booster.best_iteration > 0 else booster.current_iteration()
    used = sum(train_set.feature_num_bin(j) > 1 for j in range(train_set.num_feature()))
    return Ranker(job.kind, job.train.num_features, booster, best, params, history, used_features=used)


class _XgbProgress:
    """XGBoost callback that reports each round's validation metrics (built lazily: xgboost is optional)."""

    @staticmethod
    def create(on_progress: ProgressCallback | None, history: list[dict[str, float]]) -> Any:
        xgb = _require("xgboost")

        class Progress(xgb.callback.TrainingCallback):  # type: ignore[misc, name-defined]
            def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
                values = {name: float(series[-1]) for name, series in evals_log.get("valid", {}).items()}
                history.append(values)
                if on_progress is not None:
                    on_progress(epoch + 1, values)
                return False

        return Progress()


def _train_xgboost(job: _Job) -> Ranker:
    """XGBoost ``xgb.train`` with ``objective=rank:ndcg`` and ``eval_metric=ndcg@k`` for each ``eval_at``."""
    xgb = _require("xgboost")
    params = {"objective": "rank:ndcg", "eval_metric": [f"ndcg@{k}" for k in job.eval_at], "seed": job.seed or 0,
              **job.given}  # fmt: skip
    matrix = xgb.DMatrix(job.train.to_scipy(), label=job.train.labels)
    matrix.set_group(job.train.group_sizes)
    evals: list[tuple[Any, str]] = []
    history: list[dict[str, float]] = []
    if job.valid is not None:
        valid_matrix = xgb.DMatrix(job.valid.to_scipy(), label=job.valid.labels)
        valid_matrix.set_group(job.valid.group_sizes)
        evals = [(valid_matrix, "valid")]
    callbacks = [_XgbProgress.create(job.on_progress, history)] if job.valid is not None else []
    booster = xgb.train(params, matrix, num_boost_round=job.rounds, evals=evals,
                        early_stopping_rounds=job.early_stopping,
                        callbacks=callbacks, verbose_eval=False)  # fmt: skip
    best = booster.best_iteration + 1 if job.early_stopping is not None else job.rounds
    return Ranker(job.kind, job.train.num_features, booster, best, params, history)


def _neural_config(job: _Job) -> Any:
    """A :class:`NeuralConfig` from parameters given as text or values (``hidden=64,32``)."""
    from .neural import NeuralConfig

    fields = {f.name: f for f in dataclasses.fields(NeuralConfig)}
    values: dict[str, Any] = {"model": job.kind, "epochs": job.rounds, "eval_k": max(job.eval_at),
                              "seed": job.seed or 0}  # fmt: skip
    if job.early_stopping is not None:
        values["patience"] = job.early_stopping
    else:
        values["patience"] = job.rounds + 1  # never stop early; the best epoch on validation is still kept
    for name, value in job.given.items():
        if name not in fields or name in ("model", "epochs", "seed", "eval_k"):
            allowed = ", ".join(n for n in fields if n not in ("model", "epochs", "seed", "eval_k", "device"))
            raise RankwiseError(f"unknown parameter {name!r} for a neural ranker; it takes: {allowed}, device")
        values[name] = _coerce(name, value, fields[name].default)
    return NeuralConfig(**values)


def _coerce(name: str, value: Any, default: Any) -> Any:
    """Text from the command line to the type of the config field's default."""
    if not isinstance(value, str):
        return value
    try:
        if isinstance(default, bool):
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError
            return value.lower() in ("true", "1")
        if isinstance(default, tuple):
            return tuple(int(part) for part in value.split(",") if part.strip())
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except ValueError:
        raise RankwiseError(f"parameter {name}={value!r} must be like {default!r}") from None
    return value


def _train_neural(job: _Job) -> Ranker:
    """:func:`rankwise.ltr.neural.train_neural` on the dense features; validation nDCG@max(eval_at)."""
    from .neural import train_neural

    config = _neural_config(job)
    name = f"ndcg@{config.eval_k}"

    def report(epoch: int, loss: float, ndcg: float | None) -> None:
        if job.on_progress is not None:
            job.on_progress(epoch, {"loss": loss, **({name: ndcg} if ndcg is not None else {})})

    valid_arrays = None
    if job.valid is not None:
        valid_arrays = (job.valid.dense(np.float32), job.valid.labels, job.valid.group_offsets)
    model = train_neural(job.train.dense(np.float32), job.train.labels, job.train.group_offsets, valid=valid_arrays,
                         config=config, on_epoch=report)  # fmt: skip
    history = [{"loss": h["train_loss"], **({name: h["valid_ndcg"]} if h["valid_ndcg"] is not None else {})}
               for h in model.history]  # fmt: skip
    return Ranker(job.kind, job.train.num_features, model, model.best_epoch, dataclasses.asdict(config), history)
