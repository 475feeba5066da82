"""Rankers trained on :class:`~rankwise.ltr.data.LtrData`: LambdaMART through LightGBM or XGBoost, and the
PyTorch scorers of :mod:`rankwise.ltr.neural`, behind one interface.

- :func:`train_ranker` trains a model kind (see :data:`MODEL_KINDS`) with early stopping on a validation set;
- :class:`Ranker` predicts one score per row and saves to / loads from a directory holding
  ``rankwise-model.json`` (kind, width, best iteration, parameters) and the library's own model file
  (``model.txt`` for LightGBM, ``model.json`` for XGBoost, ``model.pt`` for PyTorch), so the native model can
  also be loaded with the library itself.

LightGBM, XGBoost and PyTorch are optional extras (``pip install '.[lightgbm]'``, ``'.[xgboost]'``, ``'.[torch]'``
in a checkout); a missing one is a :class:`~rankwise.errors.RankwiseError` that says what to install.
Validation metrics during training are the libraries' own (LightGBM ``ndcg@k``, XGBoost ``ndcg@k``); the
neural rankers' are rankwise's ``lightgbm`` dialect, which equals LightGBM's.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import RankwiseError
from ..wording import counted, install_hint, shorten
from .data import LtrData
from .kinds import MODEL_KINDS

FORMAT = "rankwise.ltr/1"
MANIFEST = "rankwise-model.json"
ProgressCallback = Callable[[int, Mapping[str, float]], None]
"""``on_progress(iteration, {metric: value})`` after every boosting round or epoch (1-based): the validation
metrics (``ndcg@k``), or without a validation set the training set's (``train_ndcg@k``) for LightGBM and XGBoost,
and the training loss (``loss``) for the neural rankers."""

_EXTRA = {"lightgbm": "lightgbm", "xgboost": "xgboost", "torch": "torch"}
_FILES = {"lightgbm": "model.txt", "xgboost": "model.json", "linear": "model.pt", "mlp": "model.pt",
          "transformer": "model.pt"}  # fmt: skip
_TRANSFORMER_ONLY = ("heads", "blocks", "d_model", "ff")
"""The neural parameters only ``transformer`` takes (``hidden`` only ``mlp``)."""


def _require(module: str) -> Any:
    """Import an optional dependency or say how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise RankwiseError(f"{module} is not installed: {install_hint(_EXTRA[module])}") from None


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
        """Scores for every row of ``data`` (its width must not exceed the model's). A score that is not finite
        (a PyTorch model given a NaN or infinite feature value) is a :class:`RankwiseError` naming the row, its
        query and document: a run cannot hold it."""
        if data.num_features > self.num_features:
            raise RankwiseError(
                f"{data.source}: {data.num_features} features, but the model was trained on {self.num_features}"
            )
        scores = self._scores(dataclasses.replace(data, num_features=self.num_features))
        unscored = ~np.isfinite(scores)
        if unscored.any():
            row = int(np.argmax(unscored))
            values = data.values[data.indptr[row] : data.indptr[row + 1]]
            entry = _first_beyond_float32(values)
            cause = f": one of its feature values is {values[entry]}" if entry is not None else ""
            raise RankwiseError(
                f"{data.source}: the {self.kind} model scores {data.describe_row(row)} as {scores[row]}{cause}; "
                f"{counted(int(unscored.sum()), 'row has', 'rows have')} no finite score, of {len(scores)}"
            )
        return scores

    def _scores(self, data: LtrData) -> np.ndarray:
        if self.kind == "lightgbm":
            return np.asarray(self.model.predict(data.to_scipy(), num_iteration=self.best_iteration), np.float64)
        if self.kind == "xgboost":
            xgb = _require("xgboost")
            matrix = xgb.DMatrix(data.to_scipy())
            end = self.best_iteration or 0
            return np.asarray(self.model.predict(matrix, iteration_range=(0, end)), dtype=np.float64)
        # the query groups: the transformer scores each document among its query's (linear and mlp ignore them)
        return np.asarray(self.model.predict(data.dense(np.float32), data.group_offsets), dtype=np.float64)

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
        """Read a model written by :meth:`save`. The manifest is checked field by field and the model file must be
        a regular file inside ``directory`` (never a path elsewhere, a link out of it or a device); every problem
        is one :class:`RankwiseError` line naming the file."""
        folder = Path(directory)
        if not folder.is_dir():
            raise RankwiseError(f"{folder}: not a rankwise model directory (no such directory)")
        path = folder / MANIFEST
        if not path.exists():
            raise RankwiseError(f"{folder}: not a rankwise model directory (no {MANIFEST})")
        manifest = _read_manifest(_inside(folder, path, "the manifest"), path)
        kind = manifest["kind"]
        native = _inside(folder, folder / manifest["model_file"], "model_file")
        try:
            if kind == "lightgbm":
                lgb = _require("lightgbm")
                check_lightgbm_model_file(native)  # LightGBM aborts the process on a truncated file
                model = lgb.Booster(model_file=str(native))
            elif kind == "xgboost":
                model = _require("xgboost").Booster(model_file=str(native))
            else:
                from .neural import NeuralRanker

                model = NeuralRanker.load(native, device=device)
        except RankwiseError:
            raise
        except Exception as exc:  # the libraries' own errors on a truncated or foreign file
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise RankwiseError(f"{native}: cannot be read as a {kind} model ({shorten(detail, 160)})") from None
        width = _native_width(kind, model)
        if width != manifest["num_features"]:
            raise RankwiseError(f"{path}: num_features is {manifest['num_features']}, but {native.name} holds a model "
                                f"of {width} features")  # fmt: skip
        return cls(kind, manifest["num_features"], model, manifest["best_iteration"], manifest["params"],
                   manifest["history"], manifest["used_features"])  # fmt: skip


MAX_MANIFEST_BYTES = 64 << 20


def _first_beyond_float32(values: np.ndarray) -> int | None:
    """The position of the first value that is NaN, infinite or too large for float32 (the PyTorch models' dtype),
    or None."""
    with np.errstate(over="ignore"):
        odd = ~np.isfinite(values.astype(np.float32))
    return int(np.argmax(odd)) if odd.any() else None


def _native_width(kind: str, model: Any) -> int:
    """The number of features the library's own model takes."""
    if kind == "lightgbm":
        return int(model.num_feature())
    if kind == "xgboost":
        return int(model.num_features())
    return int(model.num_features)


def check_lightgbm_model_file(path: Path) -> None:
    """Refuse a LightGBM text model that is not whole before LightGBM reads it (its C++ parser aborts the whole
    process on some truncated files): it must start with ``tree``, end its trees with ``end of trees`` and its
    parameters with ``end of parameters``, and the trees must take exactly the bytes its ``tree_sizes`` line
    declares."""
    text = path.read_bytes()
    sizes = re.search(rb"^tree_sizes=([0-9 ]*)$", text, re.M)
    start, end = text.find(b"\nTree="), text.find(b"\nend of trees\n")
    whole = text.startswith(b"tree\n") and end >= 0 and b"\nend of parameters\n" in text[end:]
    if whole and sizes is not None:
        declared = sum(int(size) for size in sizes.group(1).split())
        whole = (start < 0 and declared == 0) or (0 <= start < end and declared == end + 1 - (start + 1))
    if not whole:
        raise RankwiseError(f"{path}: cannot be read as a lightgbm model (not a whole LightGBM model file: truncated?)")


def _inside(folder: Path, path: Path, what: str) -> Path:
    """``path`` resolved, if it is a regular file inside ``folder`` (links resolved first); else one line saying
    why it is refused. A model directory only ever reads its own files."""
    resolved, home = path.resolve(), folder.resolve()
    if home not in resolved.parents:
        raise RankwiseError(f"{path}: {what} must be a file inside the model directory {folder}")
    if not resolved.is_file():
        raise RankwiseError(f"{path}: {what} is missing or not a regular file")
    return resolved


def _read_manifest(resolved: Path, path: Path) -> dict[str, Any]:
    """The manifest's fields, each checked: kind, num_features, model_file (a plain file name), best_iteration,
    params, history, used_features."""
    if resolved.stat().st_size > MAX_MANIFEST_BYTES:
        raise RankwiseError(f"{path}: {resolved.stat().st_size} bytes, too large for a model manifest")
    try:
        manifest = json.loads(resolved.read_bytes())
    except json.JSONDecodeError as exc:
        raise RankwiseError(f"{path}: not valid JSON (line {exc.lineno})") from None
    except UnicodeDecodeError:
        raise RankwiseError(f"{path}: not UTF-8 JSON") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise RankwiseError(f"{path}: not a rankwise model manifest (format {FORMAT})")

    def field_error(name: str, expected: str) -> RankwiseError:
        value = shorten(repr(manifest.get(name, "<missing>")))
        return RankwiseError(f"{path}: {name} must be {expected}, not {value}")

    def whole(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    if manifest.get("kind") not in MODEL_KINDS:
        raise field_error("kind", f"one of {', '.join(MODEL_KINDS)}")
    if not whole(manifest.get("num_features")) or manifest["num_features"] < 1:
        raise field_error("num_features", "an integer >= 1")
    name = manifest.get("model_file")
    if not isinstance(name, str) or not name or Path(name).name != name or name in (".", ".."):
        raise field_error("model_file", "the name of a file in the model directory")
    if manifest.get("best_iteration") is not None and (not whole(manifest["best_iteration"])
                                                       or manifest["best_iteration"] < 1):  # fmt: skip
        raise field_error("best_iteration", "an integer >= 1 or null")
    if not isinstance(manifest.setdefault("params", {}), dict):
        raise field_error("params", "an object")
    history = manifest.setdefault("history", [])
    if not isinstance(history, list) or not all(isinstance(h, dict) for h in history):
        raise field_error("history", "a list of objects")
    used = manifest.setdefault("used_features", None)
    if used is not None and (not whole(used) or used < 0):
        raise field_error("used_features", "an integer >= 0 or null")
    manifest.setdefault("best_iteration", None)
    return manifest


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
    - ``on_progress``: called after every round (see :data:`ProgressCallback`); without a validation set,
      LightGBM and XGBoost then also evaluate the training set every round, to have something to report.
    """
    if kind not in MODEL_KINDS:
        raise RankwiseError(f"unknown model {kind!r}; choose one of {', '.join(MODEL_KINDS)}")
    for name, value, least in (("rounds", rounds, 1), ("early_stopping", early_stopping, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
            raise RankwiseError(f"{name} must be an integer >= {least}, not {value!r} (--{name.replace('_', '-')})")
    if early_stopping is not None and valid is None:
        raise RankwiseError("early stopping needs a validation set")
    if train.num_features == 0:
        raise RankwiseError(f"{train.source}: no features to train on (no row has an index:value)")
    for data in (train, valid):
        if data is not None and data.num_rows and data.labels.min() < 0:
            row = int(np.argmax(data.labels < 0))
            raise RankwiseError(f"{data.source}: {data.describe_row(row)} has label {data.labels[row]}; ranking "
                                "grades are integers >= 0")  # fmt: skip
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
        detail = re.sub(r"^\[[\d:]+\] \S+:\d+: (Check failed: \w+: )?", "", detail)  # XGBoost's time and source line
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


LIGHTGBM_PARAMETERS = "https://lightgbm.readthedocs.io/en/stable/Parameters.html"
XGBOOST_PARAMETERS = "https://xgboost.readthedocs.io/en/stable/parameter.html"


def _refuse_unknown(kind: str, unknown: list[str], known: Iterable[str], reference: str) -> None:
    """One line naming parameters the library does not know, the closest known names, and where the rest are."""
    if not unknown:
        return
    import difflib

    close = sorted({c for name in unknown for c in difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)})
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise RankwiseError(f"{kind} has no parameter {', '.join(map(repr, unknown))}{hint} (its parameters: {reference})")


def _check_lightgbm_params(lgb: Any, given: Mapping[str, Any]) -> None:
    """Refuse a parameter LightGBM does not know (it would ignore it with a warning on stderr)."""
    try:
        table = lgb.basic._ConfigAliases._get_all_param_aliases()
    except AttributeError:  # a LightGBM without the alias table: leave the check to LightGBM
        return
    known = {alias for name, aliases in table.items() for alias in (name, *aliases)}
    _refuse_unknown("lightgbm", [k for k in given if k not in known], known, LIGHTGBM_PARAMETERS)
    _check_lightgbm_values(lgb, given)


def _check_lightgbm_values(lgb: Any, given: Mapping[str, Any]) -> None:
    """Refuse a value LightGBM cannot read (``num_leaves=abc``, ``num_leaves=1``) in one line naming the parameter and
    the value. LightGBM reads its parameters (``Config::Set``) when it builds a Dataset and reports a bad one by
    writing ``[LightGBM] [Fatal] ...`` to the process's stderr from C++ before raising, which no Python setting
    silences; so they are read here first, as training will read them (``objective=lambdarank``, ``metric=ndcg``
    unless given), by ``LGBM_GetSampleCount`` (which reads the config and nothing else) with file descriptor 2 on
    /dev/null for the call; when they fail, each alone is read again to name the one that fails the same way."""
    import ctypes
    import os
    import sys

    basic = lgb.basic

    def refusal(params: Mapping[str, Any]) -> str | None:
        try:
            text = basic._c_str(basic._param_dict_to_str({"objective": "lambdarank", "metric": "ndcg", **params}))
        except TypeError as exc:  # a value LightGBM's Python package cannot write as text (a dict, ...)
            return str(exc)
        sys.stderr.flush()
        saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
            basic._safe_call(basic._LIB.LGBM_GetSampleCount(ctypes.c_int32(2), text, ctypes.byref(ctypes.c_int())))
        except basic.LightGBMError as exc:
            return str(exc)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.close(null)
        return None

    if not given or not hasattr(basic, "_param_dict_to_str"):
        return  # a LightGBM without these helpers: left to LightGBM
    together = refusal(given)
    if together is None:
        return
    for key, value in given.items():  # the one that fails alone as all do together
        if refusal({key: value}) == together:
            raise RankwiseError(f"lightgbm parameter {key}={shorten(str(value))}: {_lightgbm_reason(together)} (its "
                                f"parameters: {LIGHTGBM_PARAMETERS})")  # fmt: skip
    raise RankwiseError(f"lightgbm refused the parameters together: {_lightgbm_reason(together)}")


def _lightgbm_reason(detail: str) -> str:
    """LightGBM's message about a parameter, in words: ``Parameter num_leaves should be of type int, got "abc"`` →
    ``should be of type int``; ``Check failed: (num_leaves) > (1) at FILE, line N .`` → ``must be > 1``; ``Unknown
    token abc in data file`` (a number it could not read) → ``is not a number``."""
    detail = detail.strip().splitlines()[0] if detail.strip() else "refused"
    if found := re.match(r"Parameter \S+ (should .*?), got ", detail):
        return found[1]
    if found := re.match(r"Check failed: \(\S+\) (\S+) \((.*?)\) at ", detail):
        return f"must be {found[1]} {found[2]}"
    if re.match(r"Unknown token \S+ in data file|stod$", detail):
        return "is not a number"
    return detail


def _check_xgboost_params(xgb: Any, params: Mapping[str, Any], matrix: Any, given: Mapping[str, Any]) -> None:
    """Refuse a parameter XGBoost does not use: it says so only in a warning, which is read here before any
    training."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        xgb.Booster(dict(params), [matrix]).save_config()
    unused: list[str] = []
    for warning in caught:
        found = re.search(r"Parameters: \{(.*?)\} are not used", str(warning.message), re.S)
        if found:
            unused += [name.strip().strip('"') for name in found.group(1).split(",") if name.strip()]
    _refuse_unknown("xgboost", [k for k in given if k in unused], [], XGBOOST_PARAMETERS)


def _train_lightgbm(job: _Job) -> Ranker:
    """LightGBM ``lgb.train`` with ``objective=lambdarank``, ``metric=ndcg``, ``eval_at`` and the given params."""
    lgb = _require("lightgbm")
    _check_lightgbm_params(lgb, job.given)
    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": job.eval_at, "verbosity": -1,
              **({"seed": job.seed} if job.seed is not None else {}), **job.given}  # fmt: skip
    _check_label_gains(job, params.get("label_gain"))
    train = job.train
    train_set = lgb.Dataset(train.to_scipy(), label=train.labels, group=train.group_sizes, params=params)
    watched, callbacks = _Watched(job), []
    history: list[dict[str, float]] = []
    valid_sets = [train_set] if watched.name == "train" else []
    if job.valid is not None:
        valid_sets = [lgb.Dataset(job.valid.to_scipy(), label=job.valid.labels, group=job.valid.group_sizes,
                                  reference=train_set)]  # fmt: skip
    if valid_sets:

        def record(env: Any) -> None:
            watched.report(env.iteration + 1, {name: value for _, name, value, _ in env.evaluation_result_list},
                           history)  # fmt: skip

        callbacks.append(record)
    if job.early_stopping is not None:
        callbacks.append(lgb.early_stopping(job.early_stopping, verbose=False))
    booster = lgb.train(params, train_set, num_boost_round=job.rounds, valid_sets=valid_sets,
                        valid_names=[watched.name] * len(valid_sets), callbacks=callbacks)  # fmt: skip
    best = booster.best_iteration if booster.best_iteration > 0 else booster.current_iteration()
    used = sum(train_set.feature_num_bin(j) > 1 for j in range(train_set.num_feature()))
    return Ranker(job.kind, job.train.num_features, booster, best, params, history, used_features=used)


def _check_label_gains(job: _Job, gains: Any) -> None:
    """LightGBM's ndcg (metric and lambdarank) has one gain per grade, 31 by default (grades 0 to 30); a higher
    grade is a C++ fatal error that LightGBM also prints on the process's stderr, so it is refused here first."""
    if gains is None:
        count = 31
    elif isinstance(gains, str):
        count = len([g for g in gains.split(",") if g.strip()])
    elif isinstance(gains, Sequence):
        count = len(gains)
    else:
        return  # LightGBM says what is wrong with it
    for data in [d for d in (job.train, job.valid) if d is not None]:
        if data.num_rows and data.labels.max() >= count:
            row = int(np.argmax(data.labels >= count))
            raise RankwiseError(
                f"{data.source}: {data.describe_row(row)} has label {data.labels[row]}; lightgbm ranks grades 0 to "
                f"{count - 1} (give one gain per grade for more: -p label_gain=0,1,3,...)"
            )


@dataclass(frozen=True)
class _Watched:
    """Which set a boosting library evaluates every round: ``"valid"`` (its metrics go to the history and to
    ``on_progress``), ``"train"`` (no validation set but someone to report to: ``on_progress`` only, names prefixed
    ``train_``) or ``None`` (neither)."""

    job: _Job

    @property
    def name(self) -> str | None:
        if self.job.valid is not None:
            return "valid"
        return "train" if self.job.on_progress is not None else None

    def report(self, iteration: int, values: Mapping[str, Any], history: list[dict[str, float]]) -> None:
        """Record one round's metrics (validation only) and pass them on."""
        prefix = "train_" if self.name == "train" else ""
        shown = {f"{prefix}{name}": float(value) for name, value in values.items()}
        if self.name == "valid":
            history.append(shown)
        if self.job.on_progress is not None:
            self.job.on_progress(iteration, shown)


class _XgbProgress:
    """XGBoost callback that reports each round's metrics (built lazily: xgboost is optional)."""

    @staticmethod
    def create(watched: _Watched, history: list[dict[str, float]]) -> Any:
        xgb = _require("xgboost")

        class Progress(xgb.callback.TrainingCallback):  # type: ignore[misc, name-defined]
            def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
                latest = {name: series[-1] for name, series in evals_log.get(watched.name, {}).items()}
                watched.report(epoch + 1, latest, history)
                return False

        return Progress()


def _train_xgboost(job: _Job) -> Ranker:
    """XGBoost ``xgb.train`` with ``objective=rank:ndcg`` and ``eval_metric=ndcg@k`` for each ``eval_at``."""
    xgb = _require("xgboost")
    params = {"objective": "rank:ndcg", "eval_metric": [f"ndcg@{k}" for k in job.eval_at], "seed": job.seed or 0,
              **job.given}  # fmt: skip
    matrix = xgb.DMatrix(job.train.to_scipy(), label=job.train.labels)
    matrix.set_group(job.train.group_sizes)
    _check_xgboost_params(xgb, params, matrix, job.given)
    watched = _Watched(job)
    evals: list[tuple[Any, str]] = [(matrix, "train")] if watched.name == "train" else []
    history: list[dict[str, float]] = []
    if job.valid is not None:
        valid_matrix = xgb.DMatrix(job.valid.to_scipy(), label=job.valid.labels)
        valid_matrix.set_group(job.valid.group_sizes)
        evals = [(valid_matrix, "valid")]
    callbacks = [_XgbProgress.create(watched, history)] if evals else []
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
        if (name in _TRANSFORMER_ONLY) != (job.kind == "transformer") and name in (*_TRANSFORMER_ONLY, "hidden"):
            owner = "transformer" if name in _TRANSFORMER_ONLY else "mlp"
            raise RankwiseError(f"parameter {name!r} is for --model {owner}, not {job.kind}")
        values[name] = _coerce(name, value, fields[name].default)
    return NeuralConfig(**values)


def _coerce(name: str, value: Any, default: Any) -> Any:
    """Text from the command line to the type of the config field's default (``-p standardize=0`` reads as a
    number first: 0 and 1 are also False and True); :class:`NeuralConfig` checks the result."""
    if isinstance(default, bool) and type(value) is int and value in (0, 1):
        return bool(value)
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
    reported: dict[int, dict[str, float]] = {}

    def report(epoch: int, values: dict[str, float]) -> None:  # every eval_at cutoff, named as LightGBM's
        reported[epoch] = {key.replace("nDCG@", "ndcg@"): value for key, value in values.items()}
        if job.on_progress is not None:
            job.on_progress(epoch, reported[epoch])

    for data in [d for d in (job.train, job.valid) if d is not None]:
        entry = _first_beyond_float32(data.values)
        if entry is not None:
            row = int(np.searchsorted(data.indptr, entry, side="right")) - 1
            raise RankwiseError(f"{data.source}: {data.describe_row(row)} has the feature value {data.values[entry]}; "
                                f"the {job.kind} model needs finite float32 values (lightgbm and xgboost read NaN as "
                                "missing)")  # fmt: skip
    valid_arrays = None
    if job.valid is not None:
        valid_arrays = (job.valid.dense(np.float32), job.valid.labels, job.valid.group_offsets)
    model = train_neural(job.train.dense(np.float32), job.train.labels, job.train.group_offsets, valid=valid_arrays,
                         config=config, report_at=job.eval_at, on_values=report)  # fmt: skip
    history = [reported[h["epoch"]] for h in model.history]  # every epoch reported: its loss and every cutoff
    return Ranker(job.kind, job.train.num_features, model, model.best_epoch, dataclasses.asdict(model.config), history)
