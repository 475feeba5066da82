"""The context-aware scorer (``model="transformer"``, rankwise.ltr.context): it learns what a per-document scorer
cannot, padding never reaches a real document, scores are permutation-equivariant, repeats are bit-identical, models
round-trip, bad requests are one line, the command line trains and evaluates it, and with the same weights allRank's
own transformer (a checkout: ``RANKWISE_ALLRANK_PATH``) gives the same scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

torch = pytest.importorskip("torch")

from test_ltr_neural import one_thread  # noqa: E402, F401  (autouse: one intra-op thread, as there)

from allrank_checkout import allrank_modules  # noqa: E402
from rankwise import RankwiseError  # noqa: E402
from rankwise.cli import main  # noqa: E402
from rankwise.ltr import LtrData, write_svmlight  # noqa: E402
from rankwise.ltr.context import slate_chunks  # noqa: E402
from rankwise.ltr.models import Ranker, train_ranker  # noqa: E402
from rankwise.ltr.neural import NeuralConfig, NeuralRanker, _build_module, _score, evaluate_scores, train_neural  # noqa: E402

SMALL = {"model": "transformer", "d_model": 16, "heads": 2, "blocks": 2, "ff": 32, "device": "cpu"}


def context_data(groups: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Groups of 6-12 rows whose grade is how close feature 0 is to *its group's* mean of feature 0, the group means
    spread over [-3, 3]: no function of one row's features ranks them; one that sees the slate can."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(6, 13, groups)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    rows = int(offsets[-1])
    centre = np.repeat(rng.uniform(-3, 3, groups), sizes)
    x = np.stack([centre + rng.normal(size=rows), rng.normal(size=rows), rng.normal(size=rows)], 1).astype(np.float32)
    means = np.repeat(np.add.reduceat(x[:, 0], offsets[:-1]) / sizes, sizes)
    return x, np.digitize(-np.abs(x[:, 0] - means), [-1.0, -0.5, -0.2]), offsets


TRAIN, VALID = context_data(150, 0), context_data(60, 1)
FIT = {"loss": "listnet", "epochs": 15, "patience": 15, "learning_rate": 3e-3, "batch_groups": 16}


def ndcg(scores: np.ndarray, data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> float:
    return evaluate_scores(scores, data[1], data[2], ["nDCG@10"])["nDCG@10"]


def test_it_learns_from_the_slate_what_a_per_document_scorer_cannot() -> None:
    transformer = train_neural(*TRAIN, valid=VALID, config=NeuralConfig(**SMALL, **FIT))
    mlp = train_neural(*TRAIN, valid=VALID, config=NeuralConfig(**{**SMALL, "model": "mlp"}, hidden=(32, 16), **FIT))
    chance = np.mean([ndcg(np.random.default_rng(seed).random(VALID[0].shape[0]), VALID) for seed in range(20)])
    losses = [h["train_loss"] for h in transformer.history]
    best = transformer.history[transformer.best_epoch - 1]["valid_ndcg"]
    assert losses[-1] < 0.97 * losses[0]
    assert ndcg(transformer.predict(VALID[0], VALID[2]), VALID) == best > 0.95
    assert max(h["valid_ndcg"] for h in mlp.history) < 0.8 < best  # an mlp stays near chance ...
    assert chance < 0.72  # ... which is this


def random_scorer(seed: int = 0, dtype: Any = torch.float64, **sizes: Any) -> Any:
    """A transformer with random weights, random standardisation and nonzero norm gains/biases, in eval mode."""
    torch.manual_seed(seed)
    config = NeuralConfig(**{**SMALL, **sizes})
    module = _build_module(config, 5)
    with torch.no_grad():
        for tensor in [*module.parameters(), module.mean]:
            tensor.add_(0.3 * torch.randn_like(tensor))
        module.scale.uniform_(0.5, 2.0)
    return module.to(dtype).eval()


def slates(seed: int, groups: int = 12, width: int = 9, dtype: Any = torch.float64) -> tuple[Any, Any]:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(groups, width, 5, generator=g, dtype=dtype)
    lengths = torch.randint(1, width + 1, (groups,), generator=g)
    return x, torch.arange(width)[None, :] < lengths[:, None]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_padding_never_changes_a_real_document(seed: int) -> None:
    module = random_scorer(seed)
    x, mask = slates(seed)
    with torch.no_grad():
        base = _score(module, x, mask)
        noisy = torch.where(mask[..., None], x, 1e6 * torch.randn_like(x))  # other padding content: bit for bit
        assert torch.equal(_score(module, noisy, mask)[mask], base[mask])
        longer = torch.cat([noisy, torch.randn(x.shape[0], 7, 5, dtype=x.dtype)], 1)  # longer padding
        wider = torch.cat([mask, torch.zeros(mask.shape[0], 7, dtype=torch.bool)], 1)
        torch.testing.assert_close(_score(module, longer, wider)[wider], base[mask], rtol=1e-13, atol=1e-13)
    # no gradient flows from a real document's score into any padded feature
    x = x.clone().requires_grad_(True)
    _score(module, x, mask)[mask].sum().backward()
    assert x.grad is not None and torch.all(x.grad[~mask] == 0) and torch.any(x.grad[mask] != 0)


@pytest.mark.parametrize("seed", [0, 1])
def test_scores_are_permutation_equivariant(seed: int) -> None:
    module = random_scorer(seed)
    x, mask = slates(seed, groups=6)
    g = torch.Generator().manual_seed(seed)
    order = torch.stack([torch.randperm(x.shape[1], generator=g) for _ in range(x.shape[0])])  # padding moves too
    with torch.no_grad():
        base = _score(module, x, mask)
        shuffled = _score(module, x.gather(1, order[..., None].expand_as(x)), mask.gather(1, order))
    expected, moved = base.gather(1, order), mask.gather(1, order)
    torch.testing.assert_close(shuffled[moved], expected[moved], rtol=1e-13, atol=1e-13)


def test_predict_scores_each_group_as_a_slate_in_any_chunks() -> None:
    module = random_scorer(3, dtype=torch.float32)
    ranker = NeuralRanker(module, NeuralConfig(**SMALL), 5, best_epoch=1, history=[])
    rng = np.random.default_rng(3)
    sizes = np.array([4, 0, 1, 9, 3, 0, 7, 2])  # empty groups too
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    x = rng.normal(size=(offsets[-1], 5)).astype(np.float32)
    whole = ranker.predict(x, offsets)
    for g in np.flatnonzero(sizes):  # one group at a time, as its own slate
        rows = slice(offsets[g], offsets[g + 1])
        alone = ranker.predict(x[rows], np.array([0, sizes[g]]))
        np.testing.assert_allclose(whole[rows], alone, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ranker.predict(x, offsets, batch_rows=1), whole, rtol=1e-6, atol=1e-6)
    chunks = slate_chunks(offsets, 12)
    assert sorted(int(g) for groups, _ in chunks for g in groups) == list(np.flatnonzero(sizes))
    assert all(len(groups) * width <= 12 or len(groups) == 1 for groups, width in chunks)


def test_repeats_are_bit_identical_and_layouts_agree() -> None:
    config = NeuralConfig(**SMALL, **{**FIT, "epochs": 3}, dropout=0.1)
    first = train_neural(*TRAIN, valid=VALID, config=config)
    second = train_neural(*TRAIN, valid=VALID, config=config)
    other = train_neural(*TRAIN, config=NeuralConfig(**{**config.__dict__, "seed": 1}))
    slated = train_neural(*TRAIN, valid=VALID, config=NeuralConfig(**{**config.__dict__, "layout": "slates"}))
    scores = first.predict(VALID[0], VALID[2])
    assert first.history == second.history and np.array_equal(scores, second.predict(VALID[0], VALID[2]))
    assert not np.array_equal(scores, other.predict(VALID[0], VALID[2]))
    assert first.training["layout"].startswith("packed") and slated.training["layout"].startswith("slates")
    np.testing.assert_allclose(slated.predict(VALID[0], VALID[2]), scores, rtol=1e-4, atol=1e-4)


def test_the_math_backend_used_for_cuda_training_gives_the_same_scores() -> None:
    """On CUDA a training step runs attention on the math backend (reproducible backward); entered afresh each step,
    it gives the scores of the default kernel (checked here on the CPU)."""
    from rankwise.ltr.context import reproducible_attention

    module = random_scorer(4)
    x, mask = slates(4)
    with torch.no_grad():
        base = _score(module, x, mask)
        for _ in range(2):
            with reproducible_attention(torch.device("cuda")):
                torch.testing.assert_close(_score(module, x, mask)[mask], base[mask], rtol=1e-12, atol=1e-12)


def test_save_load_round_trip(tmp_path: Path) -> None:
    ranker = train_neural(*TRAIN, config=NeuralConfig(**{**SMALL, "heads": 4, "blocks": 1}, **{**FIT, "epochs": 2}))
    ranker.save(tmp_path / "model.pt")
    loaded = NeuralRanker.load(tmp_path / "model.pt", device="cpu")
    assert loaded.config == ranker.config and (loaded.config.heads, loaded.config.blocks) == (4, 1)
    assert np.array_equal(loaded.predict(VALID[0], VALID[2]), ranker.predict(VALID[0], VALID[2]))
    payload = torch.load(tmp_path / "model.pt", weights_only=True)
    payload["config"]["d_model"] = 32  # a config that claims other weights than the file holds
    torch.save(payload, tmp_path / "claims.pt")
    with pytest.raises(RankwiseError, match=r"claims\.pt: the saved weights do not match the model's config "
                       r"\(blocks\.0\.attention_norm\.bias: \(16,\) in the file, \(32,\) for model=transformer, "
                       r"d_model=32, heads=4, blocks=1, ff=32 and 3 features\)$"):  # fmt: skip
        NeuralRanker.load(tmp_path / "claims.pt")


def as_ltr(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> LtrData:
    x, y, offsets = data
    rows, width = x.shape
    return LtrData(labels=y.astype(np.int64), qids=np.arange(offsets.shape[0] - 1), group_offsets=offsets,
                   indptr=np.arange(rows + 1) * width, indices=np.tile(np.arange(width), rows),
                   values=x.astype(np.float64).reshape(-1), num_features=width)  # fmt: skip


def test_ranker_interface_and_manifest(tmp_path: Path) -> None:
    train, valid = as_ltr(TRAIN), as_ltr(VALID)
    params = {"loss": "listnet", "d_model": "16", "heads": 2, "ff": 32, "learning_rate": 3e-3}
    ranker = train_ranker("transformer", train, valid, params=params, rounds=3, seed=0)
    ranker.save(tmp_path / "m")
    manifest = json.loads((tmp_path / "m" / "rankwise-model.json").read_text())
    assert manifest["kind"] == "transformer" and manifest["model_file"] == "model.pt"
    assert {k: manifest["params"][k] for k in ("model", "d_model", "heads", "blocks", "ff")} == {
        "model": "transformer", "d_model": 16, "heads": 2, "blocks": 2, "ff": 32}  # fmt: skip
    loaded = Ranker.load(tmp_path / "m", device="cpu")
    assert np.array_equal(loaded.predict(valid), ranker.predict(valid))
    assert ranker.predict(valid) == pytest.approx(ranker.model.predict(VALID[0], VALID[2]), abs=1e-6)


@pytest.mark.parametrize(("values", "message"), [
    ({"d_model": 15, "heads": 2}, r"^d_model \(15\) must be a multiple of heads \(2\): each head attends over "),
    ({"heads": 0}, r"^a transformer needs d_model >= 2 and heads, blocks, ff >= 1, not d_model=16, heads=0, "
                   r"blocks=2, ff=32$"),
    ({"d_model": 1, "heads": 1}, r"^a transformer needs d_model >= 2"),
    ({"blocks": 1.5}, r"^blocks must be an integer, not 1\.5$"),
    ({"ff": "x"}, r"^ff must be an integer, not 'x'$"),
])  # fmt: skip
def test_bad_configs_are_one_line(values: dict, message: str) -> None:
    with pytest.raises(RankwiseError, match=message):
        NeuralConfig(**{**SMALL, **values})


def test_refusals_are_one_line(monkeypatch) -> None:
    ranker = train_neural(*TRAIN, config=NeuralConfig(**SMALL, epochs=1))
    with pytest.raises(RankwiseError, match=r"^predict: the transformer scores each document among its query's "
                       r"documents: give the query groups \(offsets \[groups \+ 1\]: .*\)$"):  # fmt: skip
        ranker.predict(VALID[0])
    with pytest.raises(RankwiseError, match=r"^predict: offsets must rise from 0 to the number of rows"):
        ranker.predict(VALID[0], VALID[2][:-1])
    data = as_ltr(TRAIN)
    with pytest.raises(RankwiseError, match=r"^parameter 'heads' is for --model transformer, not mlp$"):
        train_ranker("mlp", data, params={"heads": 2}, rounds=1)
    with pytest.raises(RankwiseError, match=r"^parameter 'hidden' is for --model mlp, not transformer$"):
        train_ranker("transformer", data, params={"hidden": "8"}, rounds=1)
    from rankwise.ltr import limits

    monkeypatch.setattr(limits, "physical_memory", lambda: 2**26)
    rows = np.random.default_rng(0).normal(size=(3000, 3)).astype(np.float32)
    # one step: 2 blocks · 2 heads · 2 · 3000² float32 attention weights alone are 0.27 GiB
    with pytest.raises(RankwiseError, match=r"^a training step of the transformer \(1 slate of up to 3000 documents\) "
                       r"would take 0\.3 GiB, more than this machine's 0\.1 GiB of memory$"):  # fmt: skip
        train_neural(rows, np.zeros(3000, dtype=np.int64), np.array([0, 3000]), config=NeuralConfig(**SMALL))


def test_mlp_ignores_groups() -> None:
    ranker = train_neural(*TRAIN, config=NeuralConfig(**{**SMALL, "model": "mlp"}, hidden=(8,), epochs=1))
    assert np.array_equal(ranker.predict(VALID[0], VALID[2]), ranker.predict(VALID[0]))


def test_cli_train_then_evaluate(tmp_path: Path) -> None:
    train_file, valid_file, model = tmp_path / "train.txt", tmp_path / "valid.txt", tmp_path / "model"
    write_svmlight(as_ltr(context_data(40, 2)), train_file)
    write_svmlight(as_ltr(context_data(15, 3)), valid_file)
    runner = CliRunner()
    trained = runner.invoke(main, ["ltr", "train", str(train_file), "--valid", str(valid_file), "--model",
                                   "transformer", "--loss", "listnet", "-p", "d_model=16", "-p", "heads=2", "-p",
                                   "ff=32", "-p", "device=cpu", "--rounds", "3", "--eval-at", "5",
                                   "-o", str(model)])  # fmt: skip
    assert trained.exit_code == 0, trained.output
    assert "transformer: " in trained.stderr and "best iteration" in trained.stderr
    evaluated = runner.invoke(main, ["ltr", "evaluate", str(model), str(valid_file), "--dialect", "lightgbm", "-m",
                                     "nDCG@5", "--format", "json"])  # fmt: skip
    assert evaluated.exit_code == 0, evaluated.output
    best = Ranker.load(model).best_metrics["ndcg@5"]
    assert json.loads(evaluated.stdout)["aggregate"]["nDCG@5"] == pytest.approx(best, abs=1e-12)
    run = tmp_path / "run.txt"
    assert runner.invoke(main, ["ltr", "predict", str(model), str(valid_file), "-o", str(run)]).exit_code == 0
    assert len(run.read_text().splitlines()) == context_data(15, 3)[0].shape[0]
    refused = runner.invoke(main, ["ltr", "train", str(train_file), "--model", "transformer", "-p", "heads=3",
                                   "-o", str(tmp_path / "no")])  # fmt: skip
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "d_model (64) must be a multiple of heads (3)" in refused.stderr


# ------------------------------------------------------------------------------------ allRank's own code
def from_allrank(state: dict[str, Any], blocks: int) -> dict[str, Any]:
    """allRank's LTRModel state dict (fc_model of one layer, no positional encoding, d_output 1) in rankwise's names:
    the query, key and value projections (MultiHeadedAttention.linears[0:3]) stacked into one."""
    out = {"project.weight": state.pop("input_layer.layers.0.weight"),
           "project.bias": state.pop("input_layer.layers.0.bias"),
           "norm.gain": state.pop("encoder.norm.a_2"), "norm.bias": state.pop("encoder.norm.b_2"),
           "output.weight": state.pop("output_layer.w_1.weight"),
           "output.bias": state.pop("output_layer.w_1.bias")}  # fmt: skip
    for b in range(blocks):
        theirs, ours = f"encoder.layers.{b}.", f"blocks.{b}."
        for kind in ("weight", "bias"):
            out[f"{ours}qkv.{kind}"] = torch.cat([state.pop(f"{theirs}self_attn.linears.{i}.{kind}") for i in range(3)])
            out[f"{ours}out.{kind}"] = state.pop(f"{theirs}self_attn.linears.3.{kind}")
            out[f"{ours}ff_in.{kind}"] = state.pop(f"{theirs}feed_forward.w_1.{kind}")
            out[f"{ours}ff_out.{kind}"] = state.pop(f"{theirs}feed_forward.w_2.{kind}")
        for i, norm in enumerate(("attention_norm", "ff_norm")):
            out[f"{ours}{norm}.gain"] = state.pop(f"{theirs}sublayer.{i}.norm.a_2")
            out[f"{ours}{norm}.bias"] = state.pop(f"{theirs}sublayer.{i}.norm.b_2")
    assert not state, f"allRank tensors left unmapped: {sorted(state)}"
    return out


@pytest.mark.parametrize(("heads", "blocks", "seed"), [(2, 2, 0), (1, 1, 1), (4, 3, 2)])
def test_equals_allranks_own_transformer(heads: int, blocks: int, seed: int) -> None:
    """allRank's make_model (fc_model sizes [d_model], no input_norm, activation null; transformer N, d_ff, h,
    positional_encoding null; post_model d_output 1, output_activation null), its weights perturbed at random, loaded
    into rankwise's scorer: LTRModel.score equals rankwise's scores at every real document of random padded slates,
    in float64 and through NeuralRanker.predict (float32)."""
    model, config = allrank_modules("allrank.models.model", "allrank.config")
    width, d_model, ff = 5, 16, 24
    torch.manual_seed(seed)
    reference = model.make_model({"sizes": [d_model], "input_norm": False, "activation": None, "dropout": 0.0},
                                 config.TransformerConfig(N=blocks, d_ff=ff, h=heads, positional_encoding=None,
                                                          dropout=0.1),
                                 {"d_output": 1, "output_activation": None}, width)  # fmt: skip
    with torch.no_grad():
        for tensor in reference.parameters():
            tensor.add_(0.3 * torch.randn_like(tensor))  # norm gains and biases away from 1 and 0
    reference = reference.double().eval()
    ours = _build_module(NeuralConfig(**{**SMALL, "heads": heads, "blocks": blocks, "ff": ff}), width)
    mean, scale = torch.randn(width), torch.rand(width) + 0.5
    ours.load_state_dict({**from_allrank(dict(reference.state_dict()), blocks), "mean": mean, "scale": scale})
    ours = ours.double().eval()
    x, real = slates(seed, groups=40, width=11)
    indices = torch.arange(x.shape[1]).expand(x.shape[0], -1)
    with torch.no_grad():
        theirs = reference.score((x - mean.double()) / scale.double(), ~real, indices)  # allRank's mask: padding
        mine = _score(ours, x, real)
    torch.testing.assert_close(mine[real], theirs[real], rtol=1e-12, atol=1e-12)
    # the float32 scorer, fed rows and query groups
    ranker = NeuralRanker(ours.float(), NeuralConfig(**{**SMALL, "heads": heads, "blocks": blocks, "ff": ff}), width,
                          best_epoch=1, history=[])  # fmt: skip
    sizes = real.sum(1).numpy()
    predicted = ranker.predict(x[real].float().numpy(), np.concatenate([[0], np.cumsum(sizes)]))
    np.testing.assert_allclose(predicted, theirs[real].numpy(), rtol=1e-4, atol=1e-4)
