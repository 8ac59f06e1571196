"""Single-image inference latency of CapsNet, p50 and p95, under torch.inference_mode(): the model
run eagerly, then with its convolutions packed by capsnet.shipping.packed (as the playground runs it), then
compiled by capsnet.shipping.compiled; then both eager and packed on each of --batches (what several
drawings read together cost: playground/batches.py), per batch and per image.

    python -m bench.inference_latency --weights weights --runs 200
    python -m bench.inference_latency --threads 1 --batches 1 2 4 8
    python -m bench.inference_latency --random-init        # no trained weights needed

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import copy
import statistics
import time
from pathlib import Path

import torch

from bench.train_throughput import cpu_model
from capsnet import CapsNet, WeightsError, load_model
from capsnet.shipping.compiled import compile_for_one_image
from capsnet.shipping.packed import pack_convolutions


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation."""
    return statistics.quantiles(values, n=100, method="inclusive")[round(q) - 1]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--weights", type=Path, default=Path("weights"), help="folder from save_pretrained (default: weights)"
    )
    p.add_argument("--random-init", action="store_true", help="time a randomly initialised model instead")
    p.add_argument("--runs", type=int, default=200, help="timed single-image forward passes (default: 200)")
    p.add_argument("--warmup", type=int, default=10, help="untimed passes first (default: 10)")
    p.add_argument(
        "--threads",
        type=int,
        default=torch.get_num_threads(),
        help=f"torch intra-op threads (default: {torch.get_num_threads()})",
    )
    p.add_argument("--batches", type=int, nargs="*", default=[], help="batch sizes timed eagerly (default: none)")
    args = p.parse_args(argv)

    torch.set_num_threads(args.threads)
    if args.random_init:
        model, source = CapsNet(), "random init"
    else:
        try:
            model, source = load_model(args.weights), str(args.weights)
        except WeightsError as error:
            p.error(f"{error} (or pass --random-init)")
    model.eval()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, CPU: {cpu_model()}, weights: {source}")

    images = torch.rand(max([1, *args.batches]), 1, 28, 28, generator=torch.Generator().manual_seed(0))
    packed = pack_convolutions(copy.deepcopy(model))
    for name, forward in [("eager", model), ("packed", packed), ("compiled", compile_for_one_image(model))]:
        latencies = timed(forward, images[:1], args.warmup, args.runs)
        print(
            f"{name:>8}: {args.runs} runs after {args.warmup} warm-up: p50 {percentile(latencies, 50):.2f} ms, "
            f"p95 {percentile(latencies, 95):.2f} ms"
        )
    for size in args.batches:
        for name, forward in [("eager", model), ("packed", packed)]:
            p50 = percentile(timed(forward, images[:size], args.warmup, args.runs), 50)
            print(f"{name}, a batch of {size}: p50 {p50:.2f} ms, {p50 / size:.2f} ms an image")


def timed(forward, images: torch.Tensor, warmup: int, runs: int) -> list[float]:
    """Milliseconds of each of ``runs`` calls of ``forward(images)`` after ``warmup`` untimed ones."""
    latencies = []
    with torch.inference_mode():
        for run in range(warmup + runs):
            start = time.perf_counter()
            forward(images)
            if run >= warmup:
                latencies.append(1000 * (time.perf_counter() - start))
    return latencies


if __name__ == "__main__":
    main()
