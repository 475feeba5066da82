"""Neural learning to rank: every loss against hand-derived values, padding, gradients, and training."""

from __future__ import annotations

import math
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from rankwise import RankwiseError  # noqa: E402
from rankwise.ltr.neural import (  # noqa: E402
    LOSSES,
    NeuralConfig,
    NeuralRanker,
    approx_ndcg,
    evaluate_scores,
    lambdarank,
    listmle,
    listnet,
    pointwise_mse,
    ranknet,
    sigmoid_cross_entropy,
    sigmoid_cross_entropy_graded,
    train_neural,
)

D = torch.float64


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """Batches here are tiny: one intra-op thread is faster, and steady on a loaded machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def batch(scores: list[list[float]], labels: list[list[int]]) -> tuple:
    """A padded batch from ragged lists: padding has score 0, label 0 and mask False."""
    width = max(len(row) for row in scores)
    s = torch.zeros(len(scores), width, dtype=D)
    y = torch.zeros(len(scores), width, dtype=D)
    m = torch.zeros(len(scores), width, dtype=torch.bool)
    for g, (row, grades) in enumerate(zip(scores, labels)):
        s[g, : len(row)] = torch.tensor(row, dtype=D)
        y[g, : len(row)] = torch.tensor(grades, dtype=D)
        m[g, : len(row)] = True
    return s, y, m


def softplus(x: float) -> float:
    return math.log1p(math.exp(x))


def log2(x: float) -> float:
    return math.log(x, 2)


# ------------------------------------------------------------------------------------------ hand-derived values
def test_pointwise_losses_by_hand() -> None:
    s, y, m = batch([[1.5, 0.5], [1.0]], [[2, 0], [1]])
    # mean over the 3 real items: ((1.5-2)^2 + (0.5-0)^2 + (1-1)^2) / 3
    assert pointwise_mse(s, y, m).item() == pytest.approx((0.25 + 0.25 + 0.0) / 3)
    s, y, m = batch([[0.4, 1.0]], [[2, 0]])
    # binarised targets t = (1, 0): [softplus(0.4) - 1*0.4 + softplus(1.0) - 0] / 2
    assert sigmoid_cross_entropy(s, y, m).item() == pytest.approx((softplus(0.4) - 0.4 + softplus(1.0)) / 2)
    # graded targets t = y / 4 = (0.5, 0): [softplus(0.4) - 0.5*0.4 + softplus(1.0)] / 2
    graded = sigmoid_cross_entropy_graded(s, y, m, label_max=4).item()
    assert graded == pytest.approx((softplus(0.4) - 0.2 + softplus(1.0)) / 2)
    # without label_max the batch's highest grade (2) scales: t = (1, 0), as binarised here
    assert sigmoid_cross_entropy_graded(s, y, m).item() == pytest.approx(sigmoid_cross_entropy(s, y, m).item())


def test_ranknet_by_hand() -> None:
    # two docs, the relevant one scored lower: log(1 + exp(-(s1 - s2)))
    s, y, m = batch([[0.3, 0.8]], [[1, 0]])
    assert ranknet(s, y, m).item() == pytest.approx(math.log(1 + math.exp(-(0.3 - 0.8))))
    # three docs, grades (2, 0, 1): pairs (0,1), (0,2), (2,1), averaged in the group
    s, y, m = batch([[0.5, 0.1, -0.2]], [[2, 0, 1]])
    expected = (softplus(-(0.5 - 0.1)) + softplus(-(0.5 + 0.2)) + softplus(-(-0.2 - 0.1))) / 3
    assert ranknet(s, y, m).item() == pytest.approx(expected)
    # a one-item group and a group without a relevant item have no pairs: absent from the mean, no NaN
    s, y, m = batch([[0.3, 0.8], [5.0], [0.1, 0.2, 0.3]], [[1, 0], [3], [0, 0, 0]])
    assert ranknet(s, y, m).item() == pytest.approx(math.log(1 + math.exp(0.5)))


def test_listnet_by_hand() -> None:
    scores, grades = [0.5, 0.1, -0.2], [2, 0, 1]
    target = [math.exp(g) / sum(math.exp(h) for h in grades) for g in grades]
    norm = sum(math.exp(v) for v in scores)
    expected = -sum(p * math.log(math.exp(v) / norm) for p, v in zip(target, scores))
    s, y, m = batch([scores, [1.0], [0.0, 2.0]], [grades, [1], [0, 0]])
    assert listnet(s, y, m).item() == pytest.approx(expected)


def test_listmle_by_hand() -> None:
    a, b, c = 0.5, 0.1, -0.2
    # grades (2, 0, 1): π = (0, 2, 1); the last term log(e^b) - b is 0
    expected = (math.log(math.exp(a) + math.exp(c) + math.exp(b)) - a) + (math.log(math.exp(c) + math.exp(b)) - c)
    s, y, m = batch([[a, b, c]], [[2, 0, 1]])
    assert listmle(s, y, m).item() == pytest.approx(expected)
    # tied grades (1, 1, 0) are ordered by score: π = (1, 0, 2) for scores (0.1, 0.5, 0.0) ...
    tied = (math.log(math.exp(0.5) + math.exp(0.1) + 1.0) - 0.5) + (math.log(math.exp(0.1) + 1.0) - 0.1)
    s, y, m = batch([[0.1, 0.5, 0.0]], [[1, 1, 0]])
    assert listmle(s, y, m).item() == pytest.approx(tied)
    # ... whatever the row order
    s, y, m = batch([[0.0, 0.5, 0.1]], [[0, 1, 1]])
    assert listmle(s, y, m).item() == pytest.approx(tied)


def test_lambdarank_by_hand() -> None:
    # grades (2, 0, 1), scores (0.1, 0.3, 0.2): ranks by score (3, 1, 2), gains 2^l - 1 = (3, 0, 1)
    d = [1 / log2(1 + 3), 1 / log2(1 + 1), 1 / log2(1 + 2)]  # discounts per doc: 0.5, 1, 0.6309
    gains = [3, 0, 1]
    idcg = 3 / log2(2) + 1 / log2(3)  # 3.6309
    delta = {
        (0, 1): abs(3 - 0) * abs(d[0] - d[1]) / idcg,  # 3 * 0.5 / IDCG
        (0, 2): abs(3 - 1) * abs(d[0] - d[2]) / idcg,  # 2 * 0.1309 / IDCG
        (2, 1): abs(1 - 0) * abs(d[2] - d[1]) / idcg,  # 1 * 0.3691 / IDCG
    }
    scores = [0.1, 0.3, 0.2]
    expected = sum(w * softplus(-(scores[i] - scores[j])) for (i, j), w in delta.items())
    assert gains == [2**g - 1 for g in (2, 0, 1)]
    assert delta[(0, 1)] == pytest.approx(1.5 / 3.630930, rel=1e-6)
    s, y, m = batch([scores, [0.0], [0.3, 0.1]], [[2, 0, 1], [2], [0, 0]])
    assert lambdarank(s, y, m).item() == pytest.approx(expected)
    # the weights are constants: the gradient is the lambda -Σ |ΔnDCG| σ(-(s_i - s_j))
    s.requires_grad_(True)
    lambdarank(s, y, m).backward()
    sig = lambda x: 1 / (1 + math.exp(-x))  # noqa: E731
    lambda_0 = -(delta[(0, 1)] * sig(-(0.1 - 0.3)) + delta[(0, 2)] * sig(-(0.1 - 0.2)))
    assert s.grad[0, 0].item() == pytest.approx(lambda_0)


def test_approx_ndcg_by_hand() -> None:
    # two tied docs at T = 1: smooth rank of each = 1 + σ(0) = 1.5; IDCG = 1
    s, y, m = batch([[0.0, 0.0]], [[1, 0]])
    assert approx_ndcg(s, y, m, temperature=1.0).item() == pytest.approx(1 - 1 / log2(2.5))
    # as T → 0 the smooth ranks become exact: grades (2, 0, 1), scores (0.1, 0.3, 0.2) → ranks (3, 1, 2)
    exact = (3 / log2(4) + 0 / log2(2) + 1 / log2(3)) / (3 / log2(2) + 1 / log2(3))  # 2.1309 / 3.6309
    s, y, m = batch([[0.1, 0.3, 0.2], [1.0]], [[2, 0, 1], [1]])
    gaps = [abs(approx_ndcg(s, y, m, temperature=t).item() - (1 - exact)) for t in (0.1, 0.03, 0.01, 0.001)]
    assert gaps == sorted(gaps, reverse=True)
    assert gaps[-1] < 1e-12
    assert 1 - exact == pytest.approx(1 - 0.586883, rel=1e-5)


# ------------------------------------------------------------------------------------------ padding, gradients
def loss_variants() -> dict:
    variants = dict(LOSSES)
    variants["sigmoid_ce_graded"] = lambda s, y, m: sigmoid_cross_entropy_graded(s, y, m, label_max=3)
    variants["approxndcg"] = lambda s, y, m: approx_ndcg(s, y, m, temperature=0.5)
    return variants


def random_batch(seed: int = 0) -> tuple:
    gen = torch.Generator().manual_seed(seed)
    s = torch.randn(4, 6, generator=gen, dtype=D)
    y = torch.randint(0, 4, (4, 6), generator=gen).to(D)
    m = torch.tensor([[1] * 6, [1] * 4 + [0] * 2, [1] + [0] * 5, [1] * 3 + [0] * 3], dtype=torch.bool)
    y[3, :3] = 0  # a group without relevant items
    return s, y, m


@pytest.mark.parametrize("name", list(LOSSES))
def test_padding_never_contributes(name: str) -> None:
    loss = loss_variants()[name]
    s, y, m = random_batch()
    s.requires_grad_(True)
    value = loss(s, y, m)
    value.backward()
    # wider rows and an extra all-padding group, filled with garbage
    wide_s = torch.full((5, 9), float("nan"), dtype=D)
    wide_s[:, 7] = 1e6
    wide_s[:, 8] = -math.inf
    wide_y = torch.full((5, 9), 7.0, dtype=D)
    wide_m = torch.zeros(5, 9, dtype=torch.bool)
    wide_s[:4, :6], wide_y[:4, :6], wide_m[:4, :6] = s.detach(), y, m
    wide_s.requires_grad_(True)
    wide = loss(wide_s, wide_y, wide_m)
    wide.backward()
    assert math.isfinite(value.item())
    assert wide.item() == pytest.approx(value.item(), rel=1e-12, abs=1e-12)
    assert torch.allclose(wide_s.grad[:4, :6], s.grad, rtol=1e-10, atol=1e-12)
    assert torch.all(wide_s.grad[~wide_m] == 0)


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize("offset", [0.0, 3e11, -3e11])
def test_padding_never_contributes_at_any_magnitude(name: str, offset: float) -> None:
    """In float32, a fill "10^4 below the lowest score" rounds back onto the scores near 3·10^11 (their spacing is
    32768): padding must be masked, not offset. Each loss of a padded batch equals that of the same groups unpadded.
    """
    loss = loss_variants()[name]
    # the padded row holds the batch minimum twice: a fill that rounds onto it would be a third tied item there
    scores = [[offset + 2**17, offset, offset - 2**17], [offset - 2**17, offset - 2**17]]
    grades = [[2, 1, 0], [0, 1]]
    s, y, m = (t.to(torch.float32) if t.dtype == D else t for t in batch(scores, grades))
    padded = loss(s, y, m).item()
    alone = [loss(s[g : g + 1, : len(row)], y[g : g + 1, : len(row)], m[g : g + 1, : len(row)]).item()
             for g, row in enumerate(scores)]  # fmt: skip
    pointwise = name in ("mse", "sigmoid_ce", "sigmoid_ce_graded")
    expected = (sum(a * len(r) for a, r in zip(alone, scores)) / 5) if pointwise else sum(alone) / 2
    assert math.isfinite(padded) and padded == pytest.approx(expected, rel=1e-6)


def test_listnet_ignores_padding_near_3e11() -> None:
    """The issue's case: three real items whose float32 scores are all 3·10^11 and one padded slot. The score
    softmax is uniform over the real items, so the loss is log 3 (1.099); padding leaking in made it log 4."""
    s = torch.tensor([[3e11, 3e11 + 1, 3e11 - 1, 0.0]], dtype=torch.float32)
    y = torch.tensor([[2.0, 1.0, 0.0, 0.0]])
    m = torch.tensor([[True, True, True, False]])
    assert listnet(s, y, m).item() == pytest.approx(math.log(3), rel=1e-6)


def test_listmle_docstring_example_is_its_gradient() -> None:
    """ListMLE pushes tied items apart: the docstring's worked gradient is the one computed, and by hand."""
    example = re.search(r"grades \((.*?)\), scores \((.*?)\).*?gradient \((.*?)\)", " ".join(listmle.__doc__.split()))
    assert example is not None
    grades, scores, gradient = ([float(v) for v in group.split(", ")] for group in example.groups())
    s = torch.tensor([scores], dtype=D, requires_grad=True)
    listmle(s, torch.tensor([grades], dtype=D), torch.ones(1, 3, dtype=torch.bool)).backward()
    # π = (0, 1, 2): L = [lse(s0, s1, s2) - s0] + [lse(s1, s2) - s1]
    p = [math.exp(v) / sum(math.exp(w) for w in scores) for v in scores]
    q1 = math.exp(scores[1]) / (math.exp(scores[1]) + math.exp(scores[2]))
    by_hand = [p[0] - 1, p[1] + q1 - 1, p[2] + (1 - q1)]
    assert s.grad[0].tolist() == pytest.approx(by_hand, abs=1e-12)
    assert s.grad[0].tolist() == pytest.approx(gradient, abs=5e-4)
    assert s.grad[0, 1] < s.grad[0, 2]  # a descent step widens the gap s1 - s2 between the tied items
    assert "does not push tied items apart" not in listmle.__doc__


@pytest.mark.parametrize("name", list(LOSSES))
def test_gradients_match_finite_differences(name: str) -> None:
    loss = loss_variants()[name]
    s, y, m = random_batch(1)
    s.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda scores: loss(scores, y, m), (s,), eps=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", list(LOSSES))
def test_degenerate_batches_are_finite(name: str) -> None:
    loss = loss_variants()[name]
    for scores, labels in (([[0.5]], [[1]]), ([[0.1, 0.2]], [[0, 0]]), ([[0.3, 0.3]], [[2, 2]])):
        s, y, m = batch(scores, labels)
        s.requires_grad_(True)
        value = loss(s, y, m)
        value.backward()
        assert math.isfinite(value.item()) and torch.isfinite(s.grad).all()
    empty = torch.zeros(2, 3, dtype=D, requires_grad=True)
    value = loss(empty, torch.zeros(2, 3, dtype=D), torch.zeros(2, 3, dtype=torch.bool))
    value.backward()
    assert value.item() == 0.0 and torch.all(empty.grad == 0)


# ------------------------------------------------------------------------------------------ training
def synthetic(groups: int, seed: int, flip: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Groups of 5-15 rows whose grades 0-3 follow a linear function of the features."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 16, size=groups)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    x = rng.normal(size=(offsets[-1], 6)).astype(np.float32)
    signal = x @ np.array([1.0, -0.7, 0.5, 0.0, 0.3, 0.0]) + 0.1 * rng.normal(size=offsets[-1])
    return x, np.digitize(-signal if flip else signal, [0.0, 0.8, 1.6]), offsets


TRAIN = synthetic(100, 0)
VALID = synthetic(40, 1)
FAST = {"hidden": (16,), "learning_rate": 1e-2, "batch_groups": 16, "device": "cpu"}


@pytest.mark.parametrize("name", list(LOSSES))
def test_training_learns_a_linear_signal(name: str) -> None:
    config = NeuralConfig(loss=name, epochs=12, patience=12, **FAST)
    seen = []
    ranker = train_neural(*TRAIN, valid=VALID, config=config, on_epoch=lambda *args: seen.append(args))
    best = ranker.history[ranker.best_epoch - 1]["valid_ndcg"]
    assert best > 0.95
    assert evaluate_scores(ranker.predict(VALID[0]), VALID[1], VALID[2], ["nDCG@10"])["nDCG@10"] == best
    assert [(h["epoch"], h["train_loss"], h["valid_ndcg"]) for h in ranker.history] == seen


def test_linear_model_and_no_validation() -> None:
    config = NeuralConfig(model="linear", loss="ranknet", epochs=5, **{**FAST, "learning_rate": 0.05})
    ranker = train_neural(*TRAIN, config=config)
    assert ranker.best_epoch == 5 and all(h["valid_ndcg"] is None for h in ranker.history)
    assert evaluate_scores(ranker.predict(VALID[0]), VALID[1], VALID[2], ["nDCG@10"])["nDCG@10"] > 0.95


def test_same_seed_same_model() -> None:
    config = NeuralConfig(loss="listnet", epochs=3, dropout=0.2, **FAST)
    first = train_neural(*TRAIN, config=config).predict(VALID[0])
    second = train_neural(*TRAIN, config=config).predict(VALID[0])
    other = train_neural(*TRAIN, config=NeuralConfig(**{**config.__dict__, "seed": 1})).predict(VALID[0])
    assert first.dtype == np.float64
    assert np.array_equal(first, second)
    assert not np.array_equal(first, other)
    assert not torch.are_deterministic_algorithms_enabled()  # the global setting is restored


def test_early_stopping_keeps_the_best_epoch() -> None:
    # validation grades run against the training signal, so validation nDCG falls as training goes on
    valid = synthetic(40, 1, flip=True)
    config = NeuralConfig(loss="lambdarank", epochs=30, patience=3, **FAST)
    ranker = train_neural(*TRAIN, valid=valid, config=config)
    scores = [h["valid_ndcg"] for h in ranker.history]
    assert len(scores) == ranker.best_epoch + 3 < 30
    assert ranker.best_epoch == 1 + int(np.argmax(scores))
    restored = evaluate_scores(ranker.predict(valid[0]), valid[1], valid[2], ["nDCG@10"])["nDCG@10"]
    assert restored == max(scores) > scores[-1]


def test_save_load_round_trip(tmp_path) -> None:
    config = NeuralConfig(loss="approxndcg", epochs=3, dropout=0.1, **FAST)
    ranker = train_neural(*TRAIN, valid=VALID, config=config)
    path = tmp_path / "model.pt"
    ranker.save(path)
    loaded = NeuralRanker.load(path, device="cpu")
    assert np.array_equal(loaded.predict(VALID[0]), ranker.predict(VALID[0]))
    assert loaded.best_epoch == ranker.best_epoch and loaded.history == ranker.history
    assert loaded.config == ranker.config
    assert torch.allclose(loaded.module.mean, torch.from_numpy(TRAIN[0].mean(axis=0)), atol=1e-6)
    (tmp_path / "junk.pt").write_bytes(b"not a model")
    with pytest.raises(RankwiseError, match="cannot read a rankwise neural model"):
        NeuralRanker.load(tmp_path / "junk.pt")
    torch.save({"something": 1}, tmp_path / "other.pt")
    with pytest.raises(RankwiseError, match="not a rankwise neural model"):
        NeuralRanker.load(tmp_path / "other.pt")


def test_bad_input_is_a_rankwise_error() -> None:
    x, y, o = TRAIN
    with pytest.raises(RankwiseError, match="unknown loss 'lambdamart'; losses are mse"):
        NeuralConfig(loss="lambdamart")
    with pytest.raises(RankwiseError, match="unknown model"):
        NeuralConfig(model="forest")
    with pytest.raises(RankwiseError, match="train: offsets must rise from 0"):
        train_neural(x, y, o[:-1], config=NeuralConfig(epochs=1, **FAST))
    with pytest.raises(RankwiseError, match="train: labels must have shape"):
        train_neural(x, y[:-1], o, config=NeuralConfig(epochs=1, **FAST))
    with pytest.raises(RankwiseError, match="valid: 5 features, but the model was trained on 6"):
        train_neural(x, y, o, valid=(VALID[0][:, :5], VALID[1], VALID[2]), config=NeuralConfig(epochs=1, **FAST))
    with pytest.raises(RankwiseError, match="negative"):
        train_neural(x, -y - 1, o, config=NeuralConfig(epochs=1, **FAST))
    ranker = train_neural(x, y, o, config=NeuralConfig(epochs=1, **FAST))
    with pytest.raises(RankwiseError, match=r"predict: features must have shape \[rows, 6\]"):
        ranker.predict(x[:, :3])


@pytest.mark.parametrize(("values", "message"), [
    ({"hidden": 0}, r"an mlp needs hidden layers of width >= 1 \(e\.g\. hidden=64,32\), not hidden=0$"),
    ({"hidden": ()}, r"an mlp needs hidden layers of width >= 1 .*not hidden=\(none\)$"),
    ({"hidden": (16, -2)}, r"not hidden=16,-2$"),
    ({"hidden": "64"}, r"hidden must be layer widths \(integers such as 64,32\), not '64'$"),
    ({"hidden": (1.5,)}, r"hidden must be layer widths .*not \(1\.5,\)$"),
    ({"hidden": [[3]]}, r"hidden must be layer widths"),
    ({"epochs": 2.5}, r"epochs must be an integer, not 2\.5$"),
    ({"seed": "0"}, r"seed must be an integer, not '0'$"),
    ({"dropout": "x"}, r"dropout must be a number, not 'x'$"),
    ({"learning_rate": float("nan")}, r"learning_rate and temperature must be > 0"),
    ({"standardize": "yes"}, r"standardize must be True or False"),
])  # fmt: skip
def test_bad_configs_are_one_line(values: dict, message: str) -> None:
    with pytest.raises(RankwiseError, match=message):
        NeuralConfig(**values)
    assert NeuralConfig(hidden=8).hidden == (8,) and NeuralConfig(hidden=np.int64(4)).hidden == (4,)


def test_no_features_is_refused() -> None:
    x, y, o = TRAIN
    with pytest.raises(RankwiseError, match=r"train: features must be a 2-d array .* not shape \(\d+, 0\)"):
        train_neural(x[:, :0], y, o, config=NeuralConfig(epochs=1, **FAST))


def _crafted(tmp_path, hidden: tuple, weights: dict) -> object:
    """A model file whose config says ``hidden`` while its weights are ``weights``."""
    ranker = train_neural(*TRAIN, config=NeuralConfig(epochs=1, **FAST))
    path = tmp_path / "model.pt"
    ranker.save(path)
    payload = torch.load(path, weights_only=True)
    payload["config"]["hidden"] = hidden
    payload["state_dict"] = {**payload["state_dict"], **weights}
    torch.save(payload, path)
    return path


def test_a_config_claiming_a_huge_network_is_refused_before_building_it(tmp_path, monkeypatch) -> None:
    """hidden=(100000, 100000) would be 10^10 weights (40 GB) built before load_state_dict saw they do not fit."""
    from rankwise.ltr import neural

    path = _crafted(tmp_path, (100000, 100000), {})
    built = []
    monkeypatch.setattr(neural, "_build_module", lambda *args: built.append(args) or pytest.fail("built"))
    expected = (r"model\.pt: the saved weights do not match the model's config \(0\.bias: \(16,\) in the file, "
                r"\(100000,\) for model=mlp, hidden=100000,100000 and 6 features\)$")  # fmt: skip
    with pytest.raises(RankwiseError, match=expected):
        NeuralRanker.load(path)
    assert built == []


def test_weights_of_the_wrong_shape_or_kind_are_one_line(tmp_path) -> None:
    path = _crafted(tmp_path, (16,), {"0.weight": torch.zeros(16, 7)})
    with pytest.raises(RankwiseError, match=r"0\.weight: \(16, 7\) in the file, \(16, 6\) for model=mlp"):
        NeuralRanker.load(path)
    path = _crafted(tmp_path, (16,), {"extra": torch.zeros(1)})
    with pytest.raises(RankwiseError, match=r"extra: \(1,\) in the file, none for model=mlp"):
        NeuralRanker.load(path)
    path = _crafted(tmp_path, (16,), {"mean": [0.0] * 6})
    with pytest.raises(RankwiseError, match=r"mean: not a tensor in the file, \(6,\) for"):
        NeuralRanker.load(path)


def test_a_network_that_cannot_fit_in_memory_is_refused_before_training(monkeypatch) -> None:
    from rankwise.ltr import limits

    monkeypatch.setattr(limits, "physical_memory", lambda: 2**28)
    # (6·100 + 100) + (100·2000 + 2000) + (2000 + 1) weights, 5 float32 numbers each (4 MB) fit in 256 MiB ...
    train_neural(*TRAIN, config=NeuralConfig(epochs=1, **{**FAST, "hidden": (100, 2000)}))
    # ... 100 times as many do not (20,400,701 weights · 20 bytes = 0.38 GiB)
    with pytest.raises(RankwiseError, match=r"^training the mlp model \(hidden=100,200000 on 6 features\) would "
                       r"take 0\.4 GiB, more than this machine's 0\.2 GiB of memory$"):  # fmt: skip
        train_neural(*TRAIN, config=NeuralConfig(epochs=1, **{**FAST, "hidden": (100, 200000)}))


def test_rankwise_imports_without_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import rankwise, rankwise.ltr.neural as neural\n"
        "try:\n    neural.require_torch()\nexcept rankwise.RankwiseError as exc:\n    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == (
        "PyTorch is not installed: pip install '.[torch]' (in a rankwise checkout); for the CPU-only build of "
        "PyTorch run first: pip install torch --index-url https://download.pytorch.org/whl/cpu"
    )


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(0, 9), min_size=1, max_size=12), seed=st.integers(0, 2**16),
       measures=st.sampled_from([["nDCG@10"], ["nDCG@3", "nDCG", "AP@5", "RR"], ["P@2", "R@4", "HitRate@1"]]),
       )  # fmt: skip
def test_validation_on_slates_equals_the_engine(sizes: list[int], seed: int, measures: list[str]) -> None:
    """The trainer's validation measures on padded slates (rankwise.torch, float64) equal rankwise.evaluate on the
    rows as a table, under the lightgbm dialect: ties in row order, empty groups left out, a group without a relevant
    row scoring 1."""
    from rankwise.ltr.neural import _evaluate_rows, _evaluate_slates

    rng = np.random.default_rng(seed)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    if offsets[-1] == 0:
        return
    scores = rng.integers(0, 3, offsets[-1]).astype(np.float64)  # many ties
    labels = rng.integers(0, 3, offsets[-1])
    size = np.diff(offsets)
    slates = _evaluate_slates(scores, labels, size, np.flatnonzero(size > 0), int(size.max()), measures, "lightgbm")
    table = _evaluate_rows(scores, labels, offsets, measures, "lightgbm")
    assert slates.keys() == table.keys()
    for key, value in table.items():
        assert slates[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
    assert evaluate_scores(scores, labels, offsets, measures) == slates
