"""Neural learning to rank in PyTorch: linear, MLP and context-aware (transformer, :mod:`rankwise.ltr.context`)
scorers trained with pointwise, pairwise or listwise losses.

Inputs are plain arrays, independent of any file format:

- ``features``: float32 ``[rows, num_features]``
- ``labels``: non-negative integer grades ``[rows]``
- ``offsets``: int64 ``[groups + 1]`` in CSR style: group ``g`` is rows ``offsets[g]:offsets[g + 1]``.

The losses (:mod:`rankwise.ltr.losses`) take padded ``[B, L]`` batches with a mask; the training data is laid out
on the device by :mod:`rankwise.ltr.slates`. A training step reads nothing back from the device: the epoch's loss
is summed there and read once per epoch.

Validation nDCG@k (for early stopping) is computed by :func:`rankwise.evaluate` with the ``lightgbm`` dialect,
so this module holds no metric definitions of its own.

PyTorch is an optional dependency (``pip install '.[torch]'`` in a checkout); nothing else in rankwise imports this
module at import time.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import RankwiseError
from ..wording import counted
from .context import (
    attention_bytes,
    build_transformer,
    check_shape,
    describe,
    reproducible_attention,
    score_slates,
    transformer_state_shapes,
)
from .limits import check_memory
from .losses import (
    LOSSES,
    approx_ndcg,
    lambdarank,
    listmle,
    listnet,
    pointwise_mse,
    ranknet,
    require_torch,
    sigmoid_cross_entropy,
    sigmoid_cross_entropy_graded,
)
from .slates import LAYOUTS, default_batch_groups, padded, resolve_layout, training_batches

try:
    import torch
except ImportError:  # the optional extra is not installed; require_torch() says so
    torch = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from torch import Tensor

FORMAT = "rankwise.neural/1"
MODELS = ("linear", "mlp", "transformer")
PRECISIONS = ("float32", "bf16")
EpochCallback = Callable[[int, float, "float | None"], None]
__all__ = [
    "LOSSES", "NeuralConfig", "NeuralRanker", "approx_ndcg", "evaluate_scores", "lambdarank", "listmle", "listnet",
    "pointwise_mse", "ranknet", "require_torch", "resolve_device", "sigmoid_cross_entropy",
    "sigmoid_cross_entropy_graded", "train_neural",
]  # fmt: skip


# ----------------------------------------------------------------------------------------------- config
@dataclass
class NeuralConfig:
    """How to build and train a neural ranker.

    ``model``: ``"linear"``, ``"mlp"`` (``hidden`` layer widths, ReLU, ``dropout``) or ``"transformer"``
    (self-attention over each query's documents, :mod:`rankwise.ltr.context`: ``blocks`` encoder blocks of
    ``heads`` attention heads over ``d_model`` wide document vectors, ``ff`` wide feed-forward layers, ``dropout``;
    it scores a document in the context of its query, so its ``predict`` needs the query groups); ``loss``: a key of
    :data:`LOSSES`; ``batch_groups``: groups per optimiser step (Adam with ``learning_rate`` and L2
    ``weight_decay``); early stopping after ``patience`` epochs without a better validation nDCG@``eval_k``;
    ``temperature``: ApproxNDCG's T; ``standardize``: scale features by the training mean and std (stored in the
    model); ``device``: ``"auto"`` (CUDA when available), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
    """

    model: str = "mlp"
    loss: str = "lambdarank"
    hidden: tuple[int, ...] = (64, 32)
    dropout: float = 0.0
    epochs: int = 50
    learning_rate: float = 1e-3
    weight_decay: float = 0.0
    batch_groups: int = 0
    patience: int = 5
    eval_k: int = 10
    seed: int = 0
    device: str = "auto"
    temperature: float = 0.1
    standardize: bool = True
    layout: str = "auto"
    precision: str = "float32"
    heads: int = 2
    blocks: int = 2
    d_model: int = 64
    ff: int = 128

    def __post_init__(self) -> None:
        self.hidden = _widths(self.hidden)
        for name in ("epochs", "batch_groups", "patience", "eval_k", "seed", "heads", "blocks", "d_model", "ff"):
            setattr(self, name, _whole(name, getattr(self, name)))
        for name in ("dropout", "learning_rate", "weight_decay", "temperature"):
            setattr(self, name, _real(name, getattr(self, name)))
        if not isinstance(self.standardize, bool) or not isinstance(self.device, str):
            raise RankwiseError(f"standardize must be True or False and device a name, not {self.standardize!r} "
                                f"and {self.device!r}")  # fmt: skip
        if self.model not in MODELS:
            raise RankwiseError(f"unknown model {self.model!r}; models are {', '.join(MODELS)}")
        if self.loss not in LOSSES:
            raise RankwiseError(f"unknown loss {self.loss!r}; losses are {', '.join(LOSSES)}")
        if self.model == "mlp" and (not self.hidden or min(self.hidden) < 1):
            shown = ",".join(map(str, self.hidden)) or "(none)"
            raise RankwiseError(f"an mlp needs hidden layers of width >= 1 (e.g. hidden=64,32), not hidden={shown}")
        wrong = check_shape(self.d_model, self.heads, self.blocks, self.ff) if self.model == "transformer" else None
        if wrong is not None:
            raise RankwiseError(wrong)
        for name in ("epochs", "patience", "eval_k"):
            if getattr(self, name) < 1:
                raise RankwiseError(f"{name} must be >= 1, not {getattr(self, name)}")
        if self.batch_groups < 0:
            raise RankwiseError(f"batch_groups must be >= 1 (or 0: chosen for the device), not {self.batch_groups}")
        if self.layout not in LAYOUTS or self.precision not in PRECISIONS:
            raise RankwiseError(f"layout must be one of {', '.join(LAYOUTS)} and precision one of "
                                f"{', '.join(PRECISIONS)}, not {self.layout!r} and {self.precision!r}")  # fmt: skip
        if not 0.0 <= self.dropout < 1.0:
            raise RankwiseError(f"dropout must be in [0, 1), not {self.dropout}")
        if not self.learning_rate > 0 or not self.weight_decay >= 0 or not self.temperature > 0:
            raise RankwiseError(
                f"learning_rate and temperature must be > 0 and weight_decay >= 0, not {self.learning_rate}, "
                f"{self.temperature} and {self.weight_decay}"
            )


def _widths(hidden: Any) -> tuple[int, ...]:
    """Hidden layer widths as a tuple of ints (one int is one layer); anything else is a RankwiseError."""
    layers = (hidden,) if not isinstance(hidden, (str, bytes)) and np.ndim(hidden) == 0 else hidden
    try:
        return tuple(_whole("hidden", width) for width in layers)
    except (RankwiseError, TypeError):
        raise RankwiseError(f"hidden must be layer widths (integers such as 64,32), not {hidden!r}") from None


def _whole(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise RankwiseError(f"{name} must be an integer, not {value!r}")
    return int(value)


def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise RankwiseError(f"{name} must be a number, not {value!r}")
    return float(value)


def resolve_device(name: str) -> Any:
    """``"auto"`` → CUDA when available, else CPU; anything else as given (CUDA must then be available)."""
    torch = require_torch()
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise RankwiseError(f"unknown device {name!r}; use 'auto', 'cpu', 'cuda' or 'cuda:N'") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise RankwiseError(f"device {name!r}: CUDA is not available")
    return device


# ----------------------------------------------------------------------------------------------- inputs
def _check_inputs(
    features: Any, labels: Any, offsets: Any, what: str, num_features: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.asarray(features)
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise RankwiseError(
            f"{what}: features must be a 2-d array [rows, features] with at least one of each, not shape {x.shape}"
        )
    if not np.issubdtype(x.dtype, np.number):
        raise RankwiseError(f"{what}: features must be numeric, not {x.dtype}")
    x = np.ascontiguousarray(x, dtype=np.float32)
    if not np.isfinite(x).all():
        row = int(np.flatnonzero(~np.isfinite(x).all(axis=1))[0])
        raise RankwiseError(f"{what}: features of row {row} are not all finite")
    if num_features is not None and x.shape[1] != num_features:
        raise RankwiseError(f"{what}: {x.shape[1]} features, but the model was trained on {num_features}")
    y = np.asarray(labels)
    if y.shape != (x.shape[0],):
        raise RankwiseError(f"{what}: labels must have shape ({x.shape[0]},) like the feature rows, not {y.shape}")
    if not (np.issubdtype(y.dtype, np.integer) or (np.issubdtype(y.dtype, np.floating) and np.all(y == np.round(y)))):
        raise RankwiseError(f"{what}: labels must be integer grades")
    if (y < 0).any():
        raise RankwiseError(f"{what}: label of row {int(np.flatnonzero(y < 0)[0])} is negative ({y[y < 0][0]})")
    return x, y.astype(np.int64), _check_offsets(offsets, x.shape[0], what)


def _check_offsets(offsets: Any, rows: int, what: str) -> np.ndarray:
    """CSR group offsets ``[groups + 1]`` as int64: rising from 0 to ``rows``; anything else is one line."""
    o = np.asarray(offsets)
    if o.ndim != 1 or o.shape[0] < 2 or not np.issubdtype(o.dtype, np.integer):
        raise RankwiseError(f"{what}: offsets must be a 1-d integer array [groups + 1], not {o.dtype} {o.shape}")
    o = o.astype(np.int64)
    if o[0] != 0 or o[-1] != rows or (np.diff(o) < 0).any():
        raise RankwiseError(f"{what}: offsets must rise from 0 to the number of rows ({rows}); got {o[0]} … {o[-1]}")
    return o


def evaluate_scores(
    scores: np.ndarray, labels: np.ndarray, offsets: np.ndarray, measures: Sequence[str], *, dialect: str = "lightgbm"
) -> dict[str, float]:
    """Aggregate ``measures`` of ``scores`` against ``labels`` per group, each group a query whose rows are its
    documents in row order (the order in which the ``lightgbm`` dialect breaks score ties); empty groups are left out.

    Computed on padded slates by :func:`rankwise.torch.evaluate` in float64 (no DataFrame: the trainer calls this
    every epoch), or, without PyTorch or where padding would take more than four times the rows (one group far longer
    than the others), by :func:`rankwise.evaluate` on the rows as a table: the same values
    (``tests/ltr/test_ltr_neural.py``)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(offsets)
    filled = np.flatnonzero(sizes > 0)
    width = int(sizes.max(initial=0))
    if torch is not None and filled.size and filled.size * width <= 4 * int(offsets[-1]) + 4096:
        return _evaluate_slates(np.asarray(scores, dtype=np.float64), np.asarray(labels, dtype=np.int64), sizes,
                                filled, width, measures, dialect)  # fmt: skip
    return _evaluate_rows(scores, labels, offsets, measures, dialect)


def _evaluate_slates(scores: np.ndarray, labels: np.ndarray, sizes: np.ndarray, filled: np.ndarray, width: int,
                     measures: Sequence[str], dialect: str) -> dict[str, float]:  # fmt: skip
    """:func:`evaluate_scores` on the non-empty groups as ``[groups, width]`` slates (rows in order, the rest
    masked)."""
    from ..torch.functional import evaluate, mean

    slot = np.repeat(np.cumsum(sizes > 0) - 1, sizes)
    position = np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    score = np.zeros((filled.size, width))
    grade = np.zeros((filled.size, width), dtype=np.int64)
    shown = np.zeros((filled.size, width), dtype=bool)
    score[slot, position], grade[slot, position], shown[slot, position] = scores, labels, True
    values = evaluate(torch.from_numpy(score), torch.from_numpy(grade), list(measures), torch.from_numpy(shown),
                      dialect=dialect, dtype=torch.float64)  # fmt: skip
    return {key: float(value) for key, value in mean(values).items()}


def _evaluate_rows(scores: Any, labels: Any, offsets: np.ndarray, measures: Sequence[str], dialect: str
                   ) -> dict[str, float]:  # fmt: skip
    """:func:`evaluate_scores` through :func:`rankwise.evaluate`: group ``g`` is query ``str(g)``, its rows documents
    ``"0"``, ``"1"``, … in row order."""
    import polars as pl

    from ..pipeline.evaluate import evaluate

    sizes = np.diff(offsets)
    query = np.repeat(np.arange(sizes.shape[0]), sizes).astype(str)
    doc = (np.arange(offsets[-1]) - np.repeat(offsets[:-1], sizes)).astype(str)
    qrels = pl.DataFrame({"query_id": query, "doc_id": doc, "grade": np.asarray(labels, dtype=np.int64)})
    run = pl.DataFrame({"query_id": query, "doc_id": doc, "score": np.asarray(scores, dtype=np.float64)})
    return dict(evaluate(qrels, run, list(measures), dialect=dialect).aggregate)


# ----------------------------------------------------------------------------------------------- model
def _linear_layers(config: NeuralConfig, num_features: int) -> dict[int, tuple[int, int]]:
    """The scorer's linear layers, as position in the ``nn.Sequential`` → (inputs, outputs): each hidden layer is
    followed by a ReLU (and a Dropout when ``dropout > 0``), the last layer gives one score."""
    layers: dict[int, tuple[int, int]] = {}
    position, width = 0, num_features
    for hidden in config.hidden if config.model == "mlp" else ():
        layers[position] = (width, hidden)
        position += 3 if config.dropout > 0 else 2
        width = hidden
    layers[position] = (width, 1)
    return layers


def _state_shapes(config: NeuralConfig, num_features: int) -> dict[str, tuple[int, ...]]:
    """The shape of every tensor in the scorer's ``state_dict``, computed without building it."""
    shapes: dict[str, tuple[int, ...]] = {"mean": (num_features,), "scale": (num_features,)}
    if config.model == "transformer":
        return {**shapes, **transformer_state_shapes(num_features, config.d_model, config.blocks, config.ff)}
    for position, (inputs, outputs) in _linear_layers(config, num_features).items():
        shapes[f"{position}.weight"], shapes[f"{position}.bias"] = (outputs, inputs), (outputs,)
    return shapes


def _check_network_fits(config: NeuralConfig, num_features: int, sizes: np.ndarray) -> None:
    """Refuse, before building it, a network whose training would not fit in memory: float32 weights, their
    gradients, Adam's two moments and the best epoch's copy (5 numbers per parameter); for the transformer also a
    step's activations, ``batch_groups`` slates as long as the longest group (:func:`.context.attention_bytes`)."""
    parameters = sum(math.prod(shape) for shape in _state_shapes(config, num_features).values())
    shape = f"{_shape(config)} on {num_features}" if config.model != "linear" else num_features
    check_memory(5 * 4 * parameters, f"training the {config.model} model ({shape} features)")
    if config.model == "transformer":
        longest, groups = int(sizes.max(initial=0)), min(config.batch_groups, sizes.shape[0])
        check_memory(attention_bytes(groups, longest, config.heads, config.d_model, config.blocks, config.ff),
                     f"a training step of the transformer ({counted(groups, 'slate', 'slates')} of up to {longest} "
                     "documents)")  # fmt: skip


def _shape(config: NeuralConfig) -> str:
    """The config's network sizes in words (``hidden=64,32``; the transformer's ``d_model=64, heads=2, ...``)."""
    if config.model == "transformer":
        return describe(config.d_model, config.heads, config.blocks, config.ff)
    return f"hidden={','.join(map(str, config.hidden))}"


def _build_module(config: NeuralConfig, num_features: int) -> Any:
    """An ``nn.Sequential`` scorer (the transformer: :func:`rankwise.ltr.context.build_transformer`) with buffers
    ``mean`` and ``scale`` (feature standardisation)."""
    torch = require_torch()
    nn = torch.nn
    if config.model == "transformer":
        module = build_transformer(num_features, config.d_model, config.heads, config.blocks, config.ff,
                                   config.dropout)  # fmt: skip
        module.register_buffer("mean", torch.zeros(num_features))
        module.register_buffer("scale", torch.ones(num_features))
        return module
    layers: list[Any] = []
    for inputs, outputs in _linear_layers(config, num_features).values():
        if layers:
            layers.append(nn.ReLU())
            if config.dropout > 0:
                layers.append(nn.Dropout(config.dropout))
        layers.append(nn.Linear(inputs, outputs))
    module = nn.Sequential(*layers)
    module.register_buffer("mean", torch.zeros(num_features))
    module.register_buffer("scale", torch.ones(num_features))
    return module


def _score(module: Any, x: Tensor, mask: Tensor | None = None) -> Tensor:
    """Scores of standardised features: ``[N, F] → [N]`` (linear, mlp), or ``[B, L, F]`` slates with their ``mask``
    → ``[B, L]`` (transformer)."""
    if mask is not None:
        return module((x - module.mean) / module.scale, mask)
    return module((x - module.mean) / module.scale).squeeze(-1)


class NeuralRanker:
    """A trained scorer: ``predict(features)`` gives one float64 score per row (higher ranks first).

    ``best_epoch`` is the (1-based) epoch whose weights were kept; ``history`` has one
    ``{"epoch", "train_loss", "valid_ndcg"}`` dict per epoch run; ``training`` says how it was trained:
    ``{"device", "batch_groups", "layout", "precision"}`` (empty for a model saved before rankwise recorded it).
    """

    def __init__(
        self,
        module: Any,
        config: NeuralConfig,
        num_features: int,
        best_epoch: int,
        history: list[dict[str, Any]],
        training: dict[str, Any] | None = None,
    ) -> None:
        self.training = dict(training or {})
        self.module = module
        self.config = config
        self.num_features = num_features
        self.best_epoch = best_epoch
        self.history = history

    @property
    def device(self) -> Any:
        return self.module.mean.device

    def predict(self, features: Any, offsets: Any = None, *, batch_rows: int = 65536) -> np.ndarray:
        """Scores for ``features`` ``[rows, num_features]``, float64 ``[rows]``.

        ``offsets``: the query groups in CSR style (group ``g`` is rows ``offsets[g]:offsets[g + 1]``), which the
        transformer needs (each group is one slate: a document is scored among its query's documents; groups are
        scored ``batch_rows`` padded cells at a time, shortest first); linear and mlp scorers score each row alone
        and ignore them."""
        torch = require_torch()
        x = np.asarray(features)
        if x.ndim != 2 or x.shape[1] != self.num_features:
            raise RankwiseError(f"predict: features must have shape [rows, {self.num_features}], not {x.shape}")
        context = self.config.model == "transformer"
        if context and offsets is None:
            raise RankwiseError(
                "predict: the transformer scores each document among its query's documents: give the query groups "
                "(offsets [groups + 1]: group g is rows offsets[g]:offsets[g + 1])"
            )
        groups = _check_offsets(offsets, x.shape[0], "predict") if context else None
        x = np.ascontiguousarray(x, dtype=np.float32)
        was_training = self.module.training
        self.module.eval()
        out = np.empty(x.shape[0], dtype=np.float64)
        try:
            with torch.inference_mode():
                if groups is not None:
                    return score_slates(partial(_score, self.module), x, groups, self.device, batch_rows)
                for start in range(0, x.shape[0], batch_rows):
                    chunk = torch.from_numpy(x[start : start + batch_rows]).to(self.device)
                    out[start : start + chunk.shape[0]] = _score(self.module, chunk).double().cpu().numpy()
        finally:
            self.module.train(was_training)
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write weights, standardisation statistics, config and history with ``torch.save`` (plain containers
        and tensors only, so :meth:`load` can use ``weights_only=True``)."""
        torch = require_torch()
        state = {k: v.detach().cpu() for k, v in self.module.state_dict().items()}
        payload = {
            "format": FORMAT,
            "config": dataclasses.asdict(self.config),
            "num_features": self.num_features,
            "state_dict": state,
            "best_epoch": self.best_epoch,
            "history": [dict(h) for h in self.history],
            "training": dict(self.training),
        }
        torch.save(payload, Path(path))

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, device: str = "auto") -> NeuralRanker:
        """Read a model written by :meth:`save` onto ``device``."""
        torch = require_torch()
        try:
            payload = torch.load(Path(path), map_location="cpu", weights_only=True)
        except FileNotFoundError:
            raise RankwiseError(f"{path}: no such file") from None
        except Exception as exc:
            raise RankwiseError(f"{path}: cannot read a rankwise neural model ({type(exc).__name__})") from None
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise RankwiseError(f"{path}: not a rankwise neural model (format {FORMAT})")
        config = NeuralConfig(**{**payload["config"], "device": device})
        num_features = _whole("num_features", payload["num_features"])
        _check_weights(path, config, num_features, payload["state_dict"])  # before anything is allocated
        module = _build_module(config, num_features)
        module.load_state_dict(payload["state_dict"])
        module.to(resolve_device(device)).eval()
        best_epoch = _whole("best_epoch", payload["best_epoch"])
        return cls(module, config, num_features, best_epoch, payload["history"], payload.get("training"))


def _check_weights(path: str | os.PathLike[str], config: NeuralConfig, num_features: int, state: Any) -> None:
    """The saved tensors must be exactly those the config builds, shape for shape, so a config that claims a
    larger network than the file holds is refused before that network is made."""
    expected = _state_shapes(config, num_features)
    state = state if isinstance(state, dict) else {}
    found = {name: tuple(value.shape) if isinstance(value, torch.Tensor) else "not a tensor"
             for name, value in state.items()}  # fmt: skip
    if found == expected:
        return
    name = min((n for n in {*expected, *found} if found.get(n) != expected.get(n)), key=str)
    raise RankwiseError(
        f"{path}: the saved weights do not match the model's config ({name}: {found.get(name, 'missing')} in the "
        f"file, {expected.get(name, 'none')} for model={config.model}, {_shape(config)} and {num_features} features)"
    )


# ----------------------------------------------------------------------------------------------- training
def _loss_function(config: NeuralConfig, labels: np.ndarray) -> Callable[..., Any]:
    function = LOSSES[config.loss]
    if config.loss == "approxndcg":
        return partial(function, temperature=config.temperature)
    if config.loss == "sigmoid_ce_graded":
        return partial(function, label_max=float(max(int(labels.max()), 1)))
    return function


def train_neural(
    features: Any,
    labels: Any,
    offsets: Any,
    *,
    valid: tuple[Any, Any, Any] | None = None,
    config: NeuralConfig | None = None,
    on_epoch: EpochCallback | None = None,
    report_at: Sequence[int] = (),
    on_values: Callable[[int, dict[str, float]], None] | None = None,
) -> NeuralRanker:
    """Train a :class:`NeuralRanker` on groups of rows (see the module docstring for the array layout).

    Each epoch visits the groups in an order shuffled by a generator seeded with ``config.seed``, ``batch_groups``
    at a time (0: chosen for the device, see :class:`NeuralConfig`). The epoch's training loss, the mean of the
    steps' losses weighted by their groups, is summed on the device and read once per epoch. With ``valid =
    (features, labels, offsets)``, validation nDCG@``eval_k`` (LightGBM's definition, computed by
    :func:`rankwise.evaluate`) is measured after every epoch; training stops after ``patience`` epochs without
    improvement and the best epoch's weights are kept. ``on_epoch(epoch, train_loss, valid_ndcg)`` is called after
    each epoch (``valid_ndcg`` None without ``valid``). ``report_at``: more validation cutoffs, measured with
    ``eval_k`` in the same evaluation; ``on_values(epoch, {"loss": train_loss, "nDCG@k": value, ...})`` is called
    after each epoch with the loss and every validation value (nDCG at ``eval_k`` and at each of ``report_at``; only
    the loss without ``valid``). The returned ranker's ``config`` holds the batch size used, and its ``training`` the
    device, layout and precision.

    Runs are reproducible for one seed on one device: weights and dropout use ``torch.manual_seed(seed)``, and
    deterministic algorithms are switched on for the call (on CUDA, ``CUBLAS_WORKSPACE_CONFIG`` is set to
    ``:4096:8`` unless already set).
    """
    torch = require_torch()
    config = config or NeuralConfig()
    x, y, o = _check_inputs(features, labels, offsets, "train")
    if valid is not None:
        vx, vy, vo = _check_inputs(*valid, "valid", num_features=x.shape[1])
    device = resolve_device(config.device)
    if device.type == "cuda":
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    config = dataclasses.replace(config, batch_groups=config.batch_groups or default_batch_groups(device))
    previous = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
                torch.utils.deterministic.fill_uninitialized_memory)  # fmt: skip
    torch.use_deterministic_algorithms(True, warn_only=True)
    # Deterministic mode would also fill every new empty tensor with NaN (one more kernel per allocation); training
    # reads no uninitialised memory, so that costs time and changes nothing.
    torch.utils.deterministic.fill_uninitialized_memory = False
    try:
        torch.manual_seed(config.seed)
        generator = torch.Generator().manual_seed(config.seed)
        _check_network_fits(config, x.shape[1], np.diff(o))
        module = _build_module(config, x.shape[1])
        if config.standardize:
            mean = x.mean(axis=0, dtype=np.float64)
            std = x.std(axis=0, dtype=np.float64)
            module.mean.copy_(torch.from_numpy(mean.astype(np.float32)))
            module.scale.copy_(torch.from_numpy(np.where(std > 1e-12, std, 1.0).astype(np.float32)))
        module.to(device)
        data = training_batches(resolve_layout(config.layout, device), x, y, o, device)
        step = _step_function(module, config, _loss_function(config, y), device)
        groups = np.flatnonzero(data.sizes > 0)
        ranker = NeuralRanker(module, config, x.shape[1], best_epoch=0, history=[])
        ranker.training = {"device": str(device), "batch_groups": config.batch_groups, "layout": data.description,
                           "precision": config.precision}  # fmt: skip
        best_ndcg, best_state, waited = -math.inf, None, 0
        measure = f"nDCG@{config.eval_k}"
        measures = [f"nDCG@{k}" for k in sorted({config.eval_k, *report_at})]
        for epoch in range(1, config.epochs + 1):
            module.train()
            order = groups[torch.randperm(groups.shape[0], generator=generator).numpy()]
            total = torch.zeros((), dtype=torch.float64, device=device)
            for batch in data.epoch(order, config.batch_groups):
                total += step(batch).double() * batch.groups
            train_loss = float(total) / max(order.shape[0], 1)  # the epoch's one read from the device
            values = {} if valid is None else evaluate_scores(ranker.predict(vx, vo), vy, vo, measures)
            valid_ndcg = values.get(measure)
            ranker.history.append({"epoch": epoch, "train_loss": train_loss, "valid_ndcg": valid_ndcg})
            if on_epoch is not None:
                on_epoch(epoch, train_loss, valid_ndcg)
            if on_values is not None:
                on_values(epoch, {"loss": train_loss, **values})
            if valid_ndcg is None:
                ranker.best_epoch = epoch
                continue
            if valid_ndcg > best_ndcg:
                best_ndcg, waited, ranker.best_epoch = valid_ndcg, 0, epoch
                best_state = copy.deepcopy(module.state_dict())
            else:
                waited += 1
                if waited >= config.patience:
                    break
        if best_state is not None:
            module.load_state_dict(best_state)
        module.eval()
        return ranker
    finally:
        torch.use_deterministic_algorithms(previous[0], warn_only=previous[1])
        torch.utils.deterministic.fill_uninitialized_memory = previous[2]


def _step_function(module: Any, config: NeuralConfig, loss_fn: Callable[..., Any], device: Any) -> Any:
    """One optimiser step on a :class:`~rankwise.ltr.slates.Batch`, returning the batch's loss (detached, on the
    device: nothing is read back). With ``precision="bf16"`` the scorer runs under bfloat16 autocast and its
    scores are cast back to float32 before the loss."""
    torch = require_torch()
    optimizer = torch.optim.Adam(module.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
    bf16 = config.precision == "bf16"
    context = config.model == "transformer"
    attention = partial(reproducible_attention, device) if context else contextlib.nullcontext  # one per step

    def step(batch: Any) -> Any:
        features = padded(batch.features, batch.mask) if context and batch.packed else batch.features
        with torch.autocast(device.type, dtype=torch.bfloat16) if bf16 else contextlib.nullcontext(), attention():
            scores = _score(module, features, batch.mask if context else None)
        scores = scores.float()
        if batch.packed and not context:
            scores = padded(scores, batch.mask)
        loss = loss_fn(scores, batch.labels, batch.mask)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss.detach()

    return step
