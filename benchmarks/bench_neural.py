"""How close rankwise's neural LTR trainer comes to a plain PyTorch loop, on the CPU or a GPU.

    python benchmarks/bench_neural.py [--device cpu|cuda] [--repeats 3] [--layout auto|packed|slates]
    python benchmarks/bench_neural.py --mslr [--device cuda] [--epochs 3]

The table: :func:`rankwise.ltr.neural.train_neural` against :func:`plain_loop` — the data padded on the device
once, batches drawn by index on the device, the same LambdaRank loss (:func:`rankwise.ltr.losses.lambdarank`),
Adam, no read-back per step (the loss summed on the device, read once per epoch) — at ``batch_groups`` 32 and 256,
on synthetic MSLR-shaped data (3,000 queries × 100 documents × 136 features, grades 0-4 from a noisy linear signal,
a seeded generator), MLP (256, 128), 5 epochs, no validation. Each configuration runs in its own process: one
warm-up run, then the median of ``--repeats`` timed runs (wall clock of the whole call, data set-up included, the
device synchronised at the end). ``--impl PATH`` times another copy of ``neural.py`` (e.g. an older one) in place
of the installed trainer.

``--mslr``: the seconds per epoch of ``train_neural`` (the device's default batch size) on an MSLR-WEB30K-shaped
training set: 18,919 queries of 1 to 240 documents (uniform), 136 features.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from typing import Any

import numpy as np
import torch

from rankwise.ltr.losses import lambdarank

HIDDEN = (256, 128)


def synthetic(queries: int, docs: int, features: int, seed: int, *, ragged: bool = False) -> tuple[Any, Any, Any]:
    """``queries`` groups of ``docs`` rows (1 to ``docs``, uniform, when ``ragged``), grades 0-4."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, docs + 1, size=queries) if ragged else np.full(queries, docs)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    x = rng.normal(size=(int(offsets[-1]), features)).astype(np.float32)
    signal = x[:, :10] @ rng.normal(size=10) + rng.normal(size=x.shape[0])
    return x, np.digitize(signal, np.quantile(signal, [0.5, 0.75, 0.9, 0.97])), offsets


def plain_loop(x: Any, y: Any, offsets: Any, device: str, batch_groups: int, epochs: int, seed: int = 0) -> float:
    """The reference loop; returns the last epoch's mean loss."""
    torch.manual_seed(seed)
    sizes = np.diff(offsets)
    groups, longest = sizes.shape[0], int(sizes.max())
    group, within = np.repeat(np.arange(groups), sizes), np.arange(x.shape[0]) - np.repeat(offsets[:-1], sizes)
    slate_x = np.zeros((groups, longest, x.shape[1]), dtype=np.float32)
    slate_y = np.zeros((groups, longest), dtype=np.float32)
    slate_x[group, within], slate_y[group, within] = x, y
    feats, labels = torch.from_numpy(slate_x).to(device), torch.from_numpy(slate_y).to(device)
    sizes_t, positions = torch.from_numpy(sizes).to(device), torch.arange(longest, device=device)
    layers: list[Any] = []
    width = x.shape[1]
    for hidden in HIDDEN:
        layers += [torch.nn.Linear(width, hidden), torch.nn.ReLU()]
        width = hidden
    module = torch.nn.Sequential(*layers, torch.nn.Linear(width, 1)).to(device)
    optimizer = torch.optim.Adam(module.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(seed)
    loss_value = 0.0
    for _ in range(epochs):
        order = torch.randperm(groups, generator=generator).to(device)
        total = torch.zeros((), device=device)
        for start in range(0, groups, batch_groups):
            index = order[start : start + batch_groups]
            mask = positions[None, :] < sizes_t[index][:, None]
            loss = lambdarank(module(feats[index]).squeeze(-1), labels[index], mask)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            total += loss.detach()
        loss_value = float(total) / -(-groups // batch_groups)
    return loss_value


def _trainer(impl: str | None) -> Any:
    if impl is None:
        from rankwise.ltr import neural
    else:  # another copy of neural.py, imported as a module of rankwise.ltr (its relative imports resolve there)
        spec = importlib.util.spec_from_file_location("rankwise.ltr._bench_neural", impl)
        assert spec is not None and spec.loader is not None
        neural = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = neural  # dataclasses look their module up there
        spec.loader.exec_module(neural)
    return neural


def _config(neural: Any, args: argparse.Namespace, batch_groups: int, epochs: int) -> Any:
    extra = {"layout": args.layout} if args.layout else {}
    if args.precision:
        extra["precision"] = args.precision
    return neural.NeuralConfig(model="mlp", hidden=HIDDEN, loss="lambdarank", epochs=epochs,
                               batch_groups=batch_groups, device=args.device, **extra)  # fmt: skip


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def one(args: argparse.Namespace) -> dict[str, Any]:
    """Time one configuration (in this process): a warm-up, then ``repeats`` runs."""
    kind, batch_groups = args.one[0], int(args.one[1])
    data = synthetic(args.queries, args.docs, 136, seed=0)
    if kind == "plain":
        run = lambda epochs: plain_loop(*data, args.device, batch_groups, epochs)  # noqa: E731
    else:
        neural = _trainer(args.impl)
        run = lambda epochs: neural.train_neural(*data, config=_config(neural, args, batch_groups, epochs))  # noqa: E731
    run(1)
    _sync(args.device)
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        run(args.epochs)
        _sync(args.device)
        times.append(time.perf_counter() - start)
    return {"kind": kind, "batch_groups": batch_groups, "median_s": statistics.median(times), "times": times}


def mslr(args: argparse.Namespace) -> None:
    """Seconds per epoch on the MSLR-WEB30K-shaped set (the epochs after the first)."""
    neural = _trainer(args.impl)
    data = synthetic(18919, 240, 136, seed=0, ragged=True)
    stamps: list[float] = []
    config = _config(neural, args, args.batch_groups, max(args.epochs, 2))
    start = time.perf_counter()
    ranker = neural.train_neural(*data, config=config, on_epoch=lambda *_: stamps.append(time.perf_counter()))
    epochs = np.diff([start, *stamps])
    training = getattr(ranker, "training", {})
    print(f"MSLR-shaped: {data[2].shape[0] - 1} queries, {data[0].shape[0]} rows, 136 features on {args.device}; "
          f"{training}")  # fmt: skip
    print(f"first epoch (with set-up) {epochs[0]:.3f} s; later epochs median {np.median(epochs[1:]):.3f} s "
          f"({', '.join(f'{e:.3f}' for e in epochs[1:])})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--queries", type=int, default=3000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--batch-groups", type=int, default=0, help="--mslr: 0 is the device's default")
    parser.add_argument("--layout", default=None, help="train_neural's layout (default: its own, auto)")
    parser.add_argument("--precision", default=None, help="train_neural's precision (float32 or bf16)")
    parser.add_argument("--impl", default=None, help="time this copy of neural.py instead of the installed one")
    parser.add_argument("--mslr", action="store_true")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "BATCH_GROUPS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args)))
        return
    if args.mslr:
        mslr(args)
        return
    passed = [a for a in sys.argv[1:]]
    print(f"train_neural vs plain loop: {args.queries} queries × {args.docs} docs × 136 features, MLP {HIDDEN}, "
          f"LambdaRank, {args.epochs} epochs, on {args.device} ({torch.get_num_threads()} threads), "
          f"median of {args.repeats}")  # fmt: skip
    print(f"{'batch_groups':>12}  {'train_neural s':>14}  {'plain loop s':>12}  {'ratio':>6}")
    for batch_groups in (32, 256):
        results = {}
        for kind in ("train_neural", "plain"):
            command = [sys.executable, __file__, *passed, "--one", kind, str(batch_groups)]
            out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            results[kind] = json.loads(out.strip().splitlines()[-1])["median_s"]
        ratio = results["train_neural"] / results["plain"]
        print(f"{batch_groups:>12}  {results['train_neural']:>14.3f}  {results['plain']:>12.3f}  {ratio:>6.2f}")


if __name__ == "__main__":
    main()
