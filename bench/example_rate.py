"""How fast training examples are made: the examples as people write them (`capsnet.data.written.render`,
batched tensor operations on the training device) against the paper's pairs (`capsnet.data.pairs.render`,
one pair at a time through PIL, on one CPU core), and how long thinning the training digits takes.
Prints examples/s with the CPU (and the GPU):

    python -m bench.example_rate --data-dir DATA                   # on the CPU
    python -m bench.example_rate --data-dir DATA --device cuda     # the written examples on a GPU
"""

import argparse
import time

import torch

from bench.train_throughput import cpu_model
from capsnet.data.datasets import mnist
from capsnet.data.pairs import draw_pairs, render as render_pairs
from capsnet.data.written import DigitSet, draw_examples, render


def synchronised(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default="./data", help="torchvision's MNIST (default: ./data)")
    p.add_argument("--device", default="cpu", help="where the written examples are drawn (default: cpu)")
    p.add_argument("--batch-size", type=int, default=256, help="examples a batch (default: 256)")
    p.add_argument("--batches", type=int, default=20, help="batches timed, after 3 untimed (default: 20)")
    p.add_argument("--pairs", type=int, default=2000, help="the paper's pairs timed on one core (default: 2000)")
    args = p.parse_args(argv)
    device = torch.device(args.device)
    train = mnist(args.data_dir, train=True)
    gpu = f", GPU: {torch.cuda.get_device_name(device)}" if device.type == "cuda" else ""
    print(f"CPU: {cpu_model()}{gpu}; torch {torch.__version__}")

    started = time.perf_counter()
    digits = DigitSet.of(train.data, train.targets, device)
    synchronised(device)
    print(f"thinning MNIST's {len(train.data):,} training digits on {device}: {time.perf_counter() - started:.1f} s")
    generator = torch.Generator().manual_seed(0)
    batches = [
        draw_examples(digits.labels, torch.randint(len(train.data), (args.batch_size,), generator=generator), generator)
        for _ in range(args.batches + 3)
    ]
    for examples in batches[:3]:
        render(digits, examples)
    synchronised(device)
    started = time.perf_counter()
    for examples in batches[3:]:
        render(digits, examples)
    synchronised(device)
    rate = args.batches * args.batch_size / (time.perf_counter() - started)
    print(
        f"examples as people write them (capsnet.data.written), batch {args.batch_size} on {device}: "
        f"{rate:,.0f} a second"
    )

    torch.set_num_threads(1)
    pairs = draw_pairs(train.targets, torch.arange(args.pairs), torch.Generator().manual_seed(0))
    started = time.perf_counter()
    render_pairs(train.data, pairs)
    rate = args.pairs / (time.perf_counter() - started)
    print(f"the paper's pairs (capsnet.data.pairs), one CPU core: {rate:,.0f} a second")


if __name__ == "__main__":
    main()
