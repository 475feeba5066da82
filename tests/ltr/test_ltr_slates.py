"""Neural training at device speed: the batch layouts, the once-per-epoch loss, bit-identical repeats, bf16, the
device's default batch size; and, on a GPU, CUDA against the CPU."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_ltr_neural import one_thread  # noqa: E402, F401  (autouse: one intra-op thread, as there)

from rankwise import RankwiseError  # noqa: E402
from rankwise.ltr import neural, slates  # noqa: E402
from rankwise.ltr.losses import LOSSES  # noqa: E402
from rankwise.ltr.neural import NeuralConfig, NeuralRanker, evaluate_scores, train_neural  # noqa: E402
from rankwise.ltr.slates import DeviceSlates, PackedRows, padded  # noqa: E402

NO_GPU = "needs a CUDA GPU (torch.cuda.is_available() is False on this machine)"


def ragged(sizes: list[int], seed: int = 0, features: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Groups of the given sizes (0 allowed), grades 0-3 from a noisy linear signal."""
    rng = np.random.default_rng(seed)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    x = rng.normal(size=(int(offsets[-1]), features)).astype(np.float32)
    signal = x @ rng.normal(size=features) + 0.3 * rng.normal(size=x.shape[0])
    return x, np.digitize(signal, [-0.5, 0.5, 1.5]), offsets


SIZES = [1, 7, 3, 0, 12, 2, 9, 1, 5, 11, 4, 6, 8, 2, 10, 3, 1, 7, 12, 5] * 3
TRAIN = ragged(SIZES)
VALID = ragged(SIZES[:20], seed=1)
FAST = {"hidden": (16, 8), "learning_rate": 1e-2, "batch_groups": 8, "device": "cpu"}


# ------------------------------------------------------------------------------------------ batches
def by_hand(x, y, o, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The padded batch of ``groups`` built with Python loops: features, labels, mask."""
    sizes = [int(o[g + 1] - o[g]) for g in groups]
    width = max(max(sizes), 1)
    fx = np.zeros((len(groups), width, x.shape[1]), dtype=np.float32)
    fy = np.zeros((len(groups), width), dtype=np.float32)
    mask = np.zeros((len(groups), width), dtype=bool)
    for b, (g, size) in enumerate(zip(groups, sizes)):
        for i in range(size):
            fx[b, i], fy[b, i], mask[b, i] = x[o[g] + i], y[o[g] + i], True
    return fx, fy, mask


@pytest.mark.parametrize("padding_limit", [3.0, 0.0])  # padded slates; the CSR rows gathered on the device
def test_slate_batches_are_the_groups_padded(padding_limit: float) -> None:
    x, y, o = TRAIN
    data = DeviceSlates(x, y, o, torch.device("cpu"), padding_limit=padding_limit)
    assert data.padded == (padding_limit > 0)
    order = np.array([16, 4, 0, 2, 9, 1, 18, 5, 7])  # groups of 1 doc next to groups of 11 and 12
    batches = list(data.epoch(order, 4))
    assert [b.groups for b in batches] == [4, 4, 1]
    for start, batch in zip((0, 4, 8), batches):
        fx, fy, mask = by_hand(x, y, o, order[start : start + 4])
        assert not batch.packed and batch.mask.dtype == torch.bool
        assert np.array_equal(batch.mask.numpy(), mask)
        assert np.array_equal(batch.features.numpy(), fx) and np.array_equal(batch.labels.numpy(), fy)
    assert batches[2].features.shape == (1, 1, x.shape[1])  # a batch of one 1-doc group is 1 wide


def test_packed_batches_are_the_real_rows() -> None:
    x, y, o = TRAIN
    order = np.array([16, 4, 0, 7])
    batch = next(PackedRows(x, y, o, torch.device("cpu")).epoch(order, 4))
    fx, fy, mask = by_hand(x, y, o, order)
    assert batch.packed and np.array_equal(batch.mask.numpy(), mask)
    assert np.array_equal(batch.features.numpy(), fx[mask]) and np.array_equal(batch.labels.numpy(), fy)
    assert np.array_equal(padded(torch.from_numpy(fx[mask][:, 0]), batch.mask).numpy(), fx[..., 0])


def test_one_huge_group_is_not_padded_into_memory() -> None:
    """The memory guard: 200 groups of 2 and one of 3,000 would pad to 201 × 3,000 cells (178× the rows): the
    rows stay in CSR order and are gathered per batch, with the same result as padding."""
    x, y, o = ragged([2] * 200 + [3000], features=3)
    data = DeviceSlates(x, y, o, torch.device("cpu"))
    assert not data.padded and tuple(data.features.shape) == (3401, 3)
    assert "rows gathered on the device: padding to 3000 would take 177.4× the 3400 rows" in data.description
    config = NeuralConfig(epochs=2, layout="slates", **{**FAST, "hidden": (4,)})
    ranker = train_neural(x, y, o, config=config)
    assert "rows gathered" in ranker.training["layout"]
    forced = DeviceSlates(x, y, o, torch.device("cpu"), padding_limit=1e9)
    assert forced.padded
    order = np.array([200, 3, 0])
    for mine, theirs in zip(data.epoch(order, 2), forced.epoch(order, 2)):
        assert all(torch.equal(a, b) for a, b in zip(mine[1:4], theirs[1:4]))


# ------------------------------------------------------------------------------------------ training
def reference_epoch(config: NeuralConfig, x, y, o, packed: bool) -> tuple[list[float], list[int], dict]:
    """One epoch written out by hand with host-built batches (the loop before issue #26: numpy masks, one
    ``float(loss)`` per step): each step's loss, groups, and the weights after it."""
    torch.manual_seed(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    module = neural._build_module(config, x.shape[1])
    std = x.std(axis=0, dtype=np.float64)
    module.mean.copy_(torch.from_numpy(x.mean(axis=0, dtype=np.float64).astype(np.float32)))
    module.scale.copy_(torch.from_numpy(np.where(std > 1e-12, std, 1.0).astype(np.float32)))
    optimizer = torch.optim.Adam(module.parameters(), lr=config.learning_rate)
    sizes = np.diff(o)
    groups = np.flatnonzero(sizes > 0)
    order = groups[torch.randperm(groups.shape[0], generator=generator).numpy()]
    losses, counts = [], []
    for start in range(0, order.shape[0], config.batch_groups):
        fx, fy, mask = by_hand(x, y, o, order[start : start + config.batch_groups])
        mask_t = torch.from_numpy(mask)
        if packed:
            scores = padded(neural._score(module, torch.from_numpy(fx[mask])), mask_t)
        else:
            scores = neural._score(module, torch.from_numpy(fx))
        loss = LOSSES[config.loss](scores, torch.from_numpy(fy), mask_t)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
        counts.append(int(mask.shape[0]))
    return losses, counts, module.state_dict()


@pytest.mark.parametrize(("layout", "padding_limit"), [("packed", None), ("slates", 3.0), ("slates", 0.0)])
@pytest.mark.parametrize("loss", ["lambdarank", "listnet"])
def test_the_epoch_loss_read_once_is_the_sum_of_the_steps(layout: str, padding_limit, loss: str, monkeypatch) -> None:
    """Training equals the loop written out by hand, bit for bit: the same shuffled groups per step, the same
    weights after the epoch, and the epoch's loss (summed on the device, read once) the steps' losses weighted by
    their groups. ``packed`` is the CPU's path as it always was; ``slates`` (padded, or gathered from the rows)
    scores the padded cells too."""
    monkeypatch.setattr(slates, "PADDING_LIMIT", padding_limit)
    config = NeuralConfig(epochs=1, loss=loss, layout=layout, **FAST)
    ranker = train_neural(*TRAIN, config=config)
    if padding_limit is not None:
        assert ("padded [" in ranker.training["layout"]) == (padding_limit > 0)
    losses, counts, state = reference_epoch(config, *TRAIN, packed=layout == "packed")
    total = 0.0
    for value, count in zip(losses, counts):
        total += value * count
    assert ranker.history[0]["train_loss"] == total / sum(counts)
    assert all(torch.equal(state[name], value) for name, value in ranker.module.state_dict().items())


def test_layouts_agree_to_float32_rounding() -> None:
    """The slates score the padded cells too, so their weight gradients sum in another order: the two layouts
    agree to float32 rounding, not bit for bit (each is bit-identical with itself). LambdaRank does not see a
    shift of all scores, so the output bias only follows rounding noise (which Adam scales up to steps of the
    learning rate): the scores agree up to one constant."""
    runs = {layout: train_neural(*TRAIN, config=NeuralConfig(epochs=3, layout=layout, **FAST))
            for layout in ("packed", "slates")}  # fmt: skip
    losses = {layout: [h["train_loss"] for h in ranker.history] for layout, ranker in runs.items()}
    assert losses["packed"] == pytest.approx(losses["slates"], rel=1e-4)
    packed, slates = (runs[layout].predict(VALID[0]) for layout in ("packed", "slates"))
    assert np.allclose(packed - packed.mean(), slates - slates.mean(), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("layout", ["packed", "slates"])
@pytest.mark.parametrize("precision", ["float32", "bf16"])
def test_the_same_seed_gives_bit_identical_weights_and_scores(layout: str, precision: str) -> None:
    config = NeuralConfig(epochs=2, dropout=0.2, layout=layout, precision=precision, **FAST)
    first, second = (train_neural(*TRAIN, valid=VALID, config=config) for _ in range(2))
    assert first.history == second.history
    assert all(torch.equal(first.module.state_dict()[k], v) for k, v in second.module.state_dict().items())
    assert np.array_equal(first.predict(VALID[0]), second.predict(VALID[0]))


def test_bf16_runs_and_is_close_to_float32() -> None:
    runs = {p: train_neural(*TRAIN, config=NeuralConfig(epochs=4, precision=p, **FAST)) for p in ("float32", "bf16")}
    assert runs["bf16"].training["precision"] == "bf16"
    losses = {p: np.array([h["train_loss"] for h in r.history]) for p, r in runs.items()}
    assert np.all(np.isfinite(losses["bf16"])) and np.allclose(losses["bf16"], losses["float32"], rtol=0.05)
    ndcg = {p: evaluate_scores(r.predict(VALID[0]), *VALID[1:], ["nDCG@10"])["nDCG@10"] for p, r in runs.items()}
    assert abs(ndcg["bf16"] - ndcg["float32"]) < 0.05


def test_the_batch_size_is_chosen_for_the_device_and_stated(tmp_path) -> None:
    assert NeuralConfig().batch_groups == 0
    ranker = train_neural(*TRAIN, config=NeuralConfig(epochs=1, **{**FAST, "batch_groups": 0}))
    assert ranker.config.batch_groups == 32
    assert ranker.training == {"device": "cpu", "batch_groups": 32, "layout": ranker.training["layout"],
                               "precision": "float32"}  # fmt: skip
    assert ranker.training["layout"].startswith("packed")
    ranker.save(tmp_path / "model.pt")
    loaded = NeuralRanker.load(tmp_path / "model.pt", device="cpu")
    assert loaded.training == ranker.training and loaded.config.batch_groups == 32


@pytest.mark.parametrize(("values", "message"), [
    ({"layout": "dense"}, r"layout must be one of auto, packed, slates and precision one of float32, bf16, not "
                          r"'dense' and 'float32'$"),
    ({"precision": "fp16"}, r"not 'auto' and 'fp16'$"),
    ({"batch_groups": -1}, r"batch_groups must be >= 1 \(or 0: chosen for the device\), not -1$"),
])  # fmt: skip
def test_bad_layout_precision_or_batch_size_is_one_line(values: dict, message: str) -> None:
    with pytest.raises(RankwiseError, match=message):
        NeuralConfig(**values)


# ------------------------------------------------------------------------------------------ on a GPU
cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_GPU)


@cuda
def test_cuda_repeats_are_bit_identical() -> None:
    config = NeuralConfig(epochs=3, dropout=0.1, **{**FAST, "device": "cuda"})
    first, second = (train_neural(*TRAIN, valid=VALID, config=config) for _ in range(2))
    assert first.history == second.history and first.training["layout"].startswith("slates")
    assert np.array_equal(first.predict(VALID[0]), second.predict(VALID[0]))


@cuda
@pytest.mark.parametrize("loss", list(LOSSES))
def test_cuda_agrees_with_the_cpu_to_float32_tolerance(loss: str) -> None:
    runs = {device: train_neural(*TRAIN, valid=VALID, config=NeuralConfig(
        epochs=3, loss=loss, layout="slates", **{**FAST, "device": device})) for device in ("cpu", "cuda")}  # fmt: skip
    for key, tolerance in (("train_loss", 1e-5), ("valid_ndcg", 1e-3)):
        cpu, gpu = ([h[key] for h in runs[d].history] for d in ("cpu", "cuda"))
        assert cpu == pytest.approx(gpu, rel=1e-4, abs=tolerance)
    # up to one constant: the ranking losses leave the output bias to rounding noise (see the layouts' test)
    cpu, gpu = (runs[d].predict(VALID[0]) for d in ("cpu", "cuda"))
    assert np.allclose(cpu - cpu.mean(), gpu - gpu.mean(), rtol=1e-3, atol=1e-3)


@cuda
def test_a_cuda_step_never_synchronises() -> None:
    """After the epoch's order is on the device, the steps read nothing back (sync debug mode raises if one does)."""
    config = NeuralConfig(epochs=1, **{**FAST, "device": "cuda"})
    module = neural._build_module(config, TRAIN[0].shape[1]).cuda()
    step = neural._step_function(module, config, LOSSES["lambdarank"], torch.device("cuda"))
    data = DeviceSlates(*TRAIN, torch.device("cuda"))
    batches = data.epoch(np.flatnonzero(np.diff(TRAIN[2]) > 0), 8)
    first = next(batches)  # copies the order to the device
    step(first)
    torch.cuda.synchronize()
    total = torch.zeros((), dtype=torch.float64, device="cuda")
    torch.cuda.set_sync_debug_mode("error")
    try:
        for batch in batches:
            total += step(batch).double() * batch.groups
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert np.isfinite(float(total))
