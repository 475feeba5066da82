"""rankwise.torch against torchmetrics' retrieval metrics on the same tensors, on the CPU or a GPU.

    python benchmarks/bench_torch_metrics.py [--device cpu|cuda] [--repeats 5] [--sizes 8000x40 50000x100] [--threads N]

Data (seeded): ``queries`` slates of ``docs`` documents, float32 scores from a noisy signal (distinct: no ties),
grades 0-4. Measures: nDCG@10, AP@10, RR@10, P@10, R@10, HitRate@10 under ``dialect="torchmetrics"`` (ties in slate
order: with distinct scores every tie policy agrees). torchmetrics: one ``Retrieval*`` metric per measure, ``update``
with ``indexes`` (query b's rows get index b, the only way its modular metrics take queries; binary targets
``grade > 0`` for all but nDCG) then ``compute``. rankwise.torch: one :func:`rankwise.torch.evaluate` of the six and
:func:`rankwise.torch.mean`. Each (tool, size) runs in its own process: one warm-up, then the median of ``--repeats``
timed runs (the device synchronised at the end), the process's peak memory (max RSS; on CUDA also the peak device
memory) and the six means, which must agree across tools to 1e-5. ``--threads N``: torch's intra-op threads in
both (default: torch's own choice; on a machine shared with other work, 1 avoids timing the threads' waits for each
other). The table goes to stdout.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

import torch

MEASURES = {"nDCG@10": "RetrievalNormalizedDCG", "AP@10": "RetrievalMAP", "RR@10": "RetrievalMRR",
            "P@10": "RetrievalPrecision", "R@10": "RetrievalRecall", "HitRate@10": "RetrievalHitRate"}  # fmt: skip


def batch(queries: int, docs: int, device: str, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Scores [queries, docs] (float32, a noisy signal of the grade) and grades 0-4."""
    g = torch.Generator().manual_seed(seed)
    grades = torch.bucketize(torch.rand(queries, docs, generator=g), torch.tensor([0.6, 0.8, 0.9, 0.97]))
    scores = grades.float() * 0.5 + torch.randn(queries, docs, generator=g)
    return scores.to(device), grades.to(device)


def run_rankwise(scores: torch.Tensor, labels: torch.Tensor) -> dict[str, float]:
    import rankwise.torch as rt

    values = rt.mean(rt.evaluate(scores, labels, list(MEASURES), dialect="torchmetrics", ties="input_order"))
    return {key: float(value) for key, value in values.items()}


def run_torchmetrics(scores: torch.Tensor, labels: torch.Tensor) -> dict[str, float]:
    from torchmetrics import retrieval

    indexes = torch.arange(scores.shape[0], device=scores.device).unsqueeze(1).expand_as(scores).reshape(-1)
    preds, graded = scores.reshape(-1), labels.reshape(-1)
    out = {}
    for key, name in MEASURES.items():
        metric = getattr(retrieval, name)(top_k=10).to(scores.device)
        metric.update(preds, graded if key.startswith("nDCG") else graded > 0, indexes=indexes)
        out[key] = float(metric.compute())
    return out


def child(tool: str, queries: int, docs: int, device: str, repeats: int) -> dict[str, Any]:
    """Time one tool at one size in this process."""
    scores, labels = batch(queries, docs, device)
    fn = run_rankwise if tool == "rankwise" else run_torchmetrics
    values = fn(scores, labels)  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        values = fn(scores, labels)
        if device == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux → MiB
    device_peak = torch.cuda.max_memory_allocated() / 2**20 if device == "cuda" else None
    return {"median_s": statistics.median(times), "times": times, "peak_rss_mib": peak,
            "peak_device_mib": device_peak, "values": values}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", nargs="+", default=["8000x40", "50000x100"])
    parser.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    parser.add_argument("--child", nargs=3, metavar=("TOOL", "QUERIES", "DOCS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.child:
        tool, queries, docs = args.child
        print(json.dumps(child(tool, int(queries), int(docs), args.device, args.repeats)))
        return
    import torchmetrics

    print(
        f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, device {args.device}, "
        f"{torch.get_num_threads()} threads; the six measures {', '.join(MEASURES)}; median of {args.repeats}\n"
    )
    print("| queries × docs | rankwise.torch (s) | torchmetrics (s) | ratio | peak RSS rankwise / torchmetrics (MiB) |")
    print("|---|---|---|---|---|")
    for size in args.sizes:
        queries, docs = size.split("x")
        results = {}
        for tool in ("rankwise", "torchmetrics"):
            command = [sys.executable, __file__, "--device", args.device, "--repeats", str(args.repeats),
                       "--threads", str(args.threads), "--child", tool, queries, docs]  # fmt: skip
            out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            results[tool] = json.loads(out.strip().splitlines()[-1])
        ours, theirs = results["rankwise"], results["torchmetrics"]
        for key, value in ours["values"].items():
            assert abs(value - theirs["values"][key]) < 1e-5, (size, key, value, theirs["values"][key])
        print(f"| {int(queries):,} × {int(docs)} | {ours['median_s']:.4f} | {theirs['median_s']:.3f} | "
              f"{theirs['median_s'] / ours['median_s']:.0f}× | {ours['peak_rss_mib']:.0f} / "
              f"{theirs['peak_rss_mib']:.0f} |")  # fmt: skip
    print("\nThe six means agree across tools to 1e-5 at every size.")


if __name__ == "__main__":
    main()
