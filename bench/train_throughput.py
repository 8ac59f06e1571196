"""Training throughput of capsnet.CapsNet against the naive reference, side by side in one run
(with --cnn, the CNN baseline as train.py trains it and the paper's exact CNN too).

One training step = forward + loss (capsule_loss; the CNN's cross entropy) + backward + Adam step
on a batch of random images.
capsnet.CapsNet is timed in fp32 and, where train.py would use it (a CPU with native bf16), under
bf16 autocast as train.py trains it; the naive reference always in fp32. The contenders alternate
repetition by repetition (A B C A B C ...) so that a noisy machine slows all alike; warm-up steps
are not timed.

    python -m bench.train_throughput --batch-size 64 --steps 10 --repeats 5
    python -m bench.train_throughput --batch-size 64 --steps 5 --repeats 3 --cnn

The figures it measured, with the machine: docs/benchmarks.md.
"""
import argparse
import platform
import statistics
import time
from collections.abc import Callable
from contextlib import nullcontext

import torch

from bench.naive_capsnet import NaiveCapsNet
from capsnet import CapsNet, capsule_loss
from capsnet.baseline import BaselineCNN, BaselineConfig, cross_entropy_loss
from train import use_bf16


def cpu_model() -> str:
    """The CPU's name, family and model from /proc/cpuinfo (virtual machines here often name only
    "AMD EPYC", whatever its generation), the widest vector instructions torch uses on it, and
    whether it computes bf16 natively (which decides how train.py trains on it)."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or "unknown"
    family = f"family {fields['cpu family']} model {fields['model']}, " if "cpu family" in fields else ""
    bf16 = ", native bf16" if use_bf16("auto", torch.device("cpu")) else ""
    return f"{name} ({family}{torch.backends.cpu.get_cpu_capability()}{bf16})"


def make_step(model: torch.nn.Module, images: torch.Tensor, labels: torch.Tensor,
              bf16: bool = False) -> Callable[[], None]:
    """One full training step of ``model`` (a CapsNet, or the CNN baseline) on a fixed batch,
    under bf16 autocast if asked."""
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    autocast = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if bf16 else nullcontext

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        with autocast():
            if isinstance(model, BaselineCNN):
                loss = cross_entropy_loss(model(images), labels)
            else:
                loss = capsule_loss(model(images, labels), images, labels)
        loss.backward()
        optimizer.step()

    return step


def images_per_second(step: Callable[[], None], steps: int, batch_size: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return steps * batch_size / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch-size", type=int, default=64, help="images per step (default: 64)")
    p.add_argument("--steps", type=int, default=10, help="timed steps per repetition (default: 10)")
    p.add_argument("--repeats", type=int, default=5, help="timed repetitions of each implementation (default: 5)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps of each implementation first (default: 3)")
    p.add_argument("--threads", type=int, default=torch.get_num_threads(),
                   help=f"torch intra-op threads (default: {torch.get_num_threads()})")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--cnn", action="store_true",
                   help="also time the CNN baseline as train.py trains it and the paper's exact 35.4M-parameter CNN")
    args = p.parse_args(argv)

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, CPU: {cpu_model()}")

    native_bf16 = use_bf16("auto", torch.device("cpu"))
    print(f"native bf16 on this CPU: {'yes: train.py trains under bf16 autocast' if native_bf16 else 'no: train.py trains in fp32'}")

    ours, ours_bf16, naive = CapsNet(), CapsNet(), NaiveCapsNet()
    ours_bf16.load_state_dict(ours.state_dict(), strict=True)
    naive.load_state_dict(ours.state_dict(), strict=True)
    images = torch.rand(args.batch_size, 1, 28, 28)
    labels = torch.randint(0, 10, (args.batch_size,))
    steps = {"capsnet.CapsNet fp32": make_step(ours, images, labels)}
    if native_bf16:
        steps["capsnet.CapsNet bf16 (train.py)"] = make_step(ours_bf16, images, labels, bf16=True)
    steps["naive (bench/naive_capsnet.py)"] = make_step(naive, images, labels)
    if args.cnn:
        steps["BaselineCNN (train.py)"] = make_step(BaselineCNN(), images, labels, bf16=native_bf16)
        steps["BaselineCNN paper's exact"] = make_step(BaselineCNN(BaselineConfig.paper()), images, labels,
                                                        bf16=native_bf16)

    for step in steps.values():
        for _ in range(args.warmup):
            step()
    rates = {name: [] for name in steps}
    for _ in range(args.repeats):
        for name, step in steps.items():
            rates[name].append(images_per_second(step, args.steps, args.batch_size))

    medians = {name: statistics.median(r) for name, r in rates.items()}
    naive_rate = medians["naive (bench/naive_capsnet.py)"]
    print(f"{args.repeats} repetitions x {args.steps} steps, {args.warmup} warm-up steps each")
    print(f"{'implementation':<32} {'batch':>5} {'images/s':>9} {'min-max':>13} {'speed-up':>8}")
    for name, rate in medians.items():
        spread = f"{min(rates[name]):.1f}-{max(rates[name]):.1f}"
        print(f"{name:<32} {args.batch_size:>5} {rate:>9.1f} {spread:>13} {rate / naive_rate:>7.2f}x")


if __name__ == "__main__":
    main()
