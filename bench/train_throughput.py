"""Training throughput of capsnet.CapsNet against the naive reference, side by side in one run
(with --cnn, the CNN baseline as train.py trains it and the paper's exact CNN too).

One training step = forward + loss (capsule_loss; the CNN's cross entropy) + backward + Adam step
on a batch of random images.
capsnet.CapsNet is timed in fp32 and, where train.py would use it (a CPU with native bf16, a CUDA
GPU with bf16), under bf16 autocast as train.py trains it; the naive reference always in fp32. The
contenders alternate repetition by repetition (A B C A B C ...) so that a noisy machine slows all
alike; warm-up steps are not timed.

    python -m bench.train_throughput --batch-size 64 --steps 10 --repeats 5
    python -m bench.train_throughput --batch-size 64 --steps 5 --repeats 3 --cnn
    python -m bench.train_throughput --device cuda --batch-size 64 128 256 512 1024 --steps 50 --profile
    python -m bench.train_throughput --device cuda --batch-size 128 512 --compile default reduce-overhead

On CUDA (Adam fused, as train.py runs it there) it also measures the card's own bf16 matrix
product rate (8192x8192x8192, random data) and gives each step's rate as a fraction of it, the
step's floating-point operations counted by torch.utils.flop_counter; --profile prints where a
bf16 step's time goes (torch.profiler, at the first batch size). --compile adds the CapsNet's step
with its forward pass and loss compiled by torch.compile in each mode named (reduce-overhead: CUDA
graphs on a GPU), under bf16 autocast where train.py uses it; the backward pass is AOTAutograd's,
Adam stays eager. Compilation happens in the warm-up steps, which are not timed.

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import platform
import statistics
import time
from collections.abc import Callable
from contextlib import nullcontext

import torch
from torch.utils.flop_counter import FlopCounterMode

from capsnet import CapsNet, capsule_loss
from capsnet.baseline import BaselineCNN, BaselineConfig, cross_entropy_loss
from capsnet.training.processes import use_bf16
from harness.naive_capsnet import NaiveCapsNet


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


def make_step(
    model: torch.nn.Module,
    images: torch.Tensor,
    labels: torch.Tensor,
    bf16: bool = False,
    compile_mode: str | None = None,
) -> Callable[[], None]:
    """One full training step of ``model`` (a CapsNet, or the CNN baseline) on a fixed batch, on
    the batch's device, under bf16 autocast if asked; its forward pass and loss compiled by
    torch.compile in ``compile_mode`` if one is given."""
    on_cuda = images.device.type == "cuda"
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, fused=on_cuda)  # as train.py
    autocast = (lambda: torch.autocast(images.device.type, dtype=torch.bfloat16)) if bf16 else nullcontext

    def loss_of(images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        if isinstance(model, BaselineCNN):
            return cross_entropy_loss(model(images), labels)
        return capsule_loss(model(images, labels), images, labels)

    forward_and_loss = torch.compile(loss_of, mode=compile_mode) if compile_mode else loss_of

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        with autocast():
            loss = forward_and_loss(images, labels)
        loss.backward()
        optimizer.step()

    return step


def images_per_second(step: Callable[[], None], steps: int, batch_size: int, device: torch.device) -> float:
    synchronize = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    synchronize()  # the GPU's queue emptied: every step done, not only launched
    return steps * batch_size / (time.perf_counter() - start)


def step_flops(step: Callable[[], None]) -> int:
    """The floating-point operations of one call of ``step`` (matrix products and convolutions:
    what torch.utils.flop_counter counts)."""
    with FlopCounterMode(display=False) as counter:
        step()
    return counter.get_total_flops()


def bf16_matmul_rate(size: int = 8192, repeats: int = 10) -> float:
    """The card's own bf16 matrix product rate in FLOP/s: the median of ``repeats`` timed
    size x size x size products of random matrices, after three untimed ones."""
    a, b = (torch.randn(size, size, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    for _ in range(3):
        a @ b
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        a @ b
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return 2 * size**3 / statistics.median(times)


def print_profile(step: Callable[[], None], steps: int) -> None:
    """Where the time of ``steps`` steps goes on the GPU and on the host, by torch.profiler."""
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as profile:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    events = profile.key_averages()
    on_gpu = [event for event in events if event.device_type == torch.autograd.DeviceType.CUDA]  # kernels, copies
    gpu_busy = sum(event.self_device_time_total for event in on_gpu) / 1e3 / steps
    kernels = sum(event.count for event in on_gpu) / steps
    print(f"profile of {steps} steps: the GPU busy {gpu_busy:.2f} ms a step in {kernels:.0f} kernels a step")
    print(events.table(sort_by="self_device_time_total", row_limit=20))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--batch-size", type=int, nargs="+", default=[64], help="images per step; several: each is timed (default: 64)"
    )
    p.add_argument("--steps", type=int, default=10, help="timed steps per repetition (default: 10)")
    p.add_argument("--repeats", type=int, default=5, help="timed repetitions of each implementation (default: 5)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps of each implementation first (default: 3)")
    p.add_argument(
        "--threads",
        type=int,
        default=torch.get_num_threads(),
        help=f"torch intra-op threads (default: {torch.get_num_threads()})",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument(
        "--cnn",
        action="store_true",
        help="also time the CNN baseline as train.py trains it and the paper's exact 35.4M-parameter CNN",
    )
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where to train (default: cpu)")
    p.add_argument("--profile", action="store_true", help="CUDA: print torch.profiler's table of a bf16 step")
    p.add_argument(
        "--tf32",
        action="store_true",
        help="fp32 matrix products (the routing's, which stays in fp32) on TF32 tensor cores: "
        "torch.set_float32_matmul_precision('high'); train.py does not (default: off)",
    )
    p.add_argument(
        "--compile",
        nargs="+",
        default=[],
        metavar="MODE",
        choices=["default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"],
        help="also time the CapsNet's step compiled by torch.compile in each of these modes "
        "(reduce-overhead: CUDA graphs on a GPU); train.py does not compile (default: none)",
    )
    args = p.parse_args(argv)

    device = torch.device(args.device)
    if args.tf32:
        torch.set_float32_matmul_precision("high")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    gpu = f", GPU: {torch.cuda.get_device_name()}" if device.type == "cuda" else ""
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, CPU: {cpu_model()}{gpu}")
    bf16 = use_bf16("auto", device)
    trains = "yes: train.py trains under bf16 autocast" if bf16 else "no: train.py trains in fp32"
    print(f"bf16 on this {args.device}: {trains}")
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True  # as train.py on CUDA
        matmul_rate = bf16_matmul_rate()
        print(f"the card's bf16 matrix product (8192^3, random): {matmul_rate / 1e12:.0f} TFLOP/s")
    print(
        f"{args.repeats} repetitions x {args.steps} steps, {args.warmup} warm-up steps each"
        + (", fp32 matrix products on TF32" if args.tf32 else "")
    )
    header = f"{'implementation':<32} {'batch':>5} {'images/s':>9} {'min-max':>15} {'speed-up':>8}"
    print(header + (f" {'TFLOP/s':>8} {'of bf16 matmul':>14}" if device.type == "cuda" else ""))
    for batch_size in args.batch_size:
        ours, ours_bf16, naive = CapsNet().to(device), CapsNet().to(device), NaiveCapsNet().to(device)
        ours_bf16.load_state_dict(ours.state_dict(), strict=True)
        naive.load_state_dict(ours.state_dict(), strict=True)
        images = torch.rand(batch_size, 1, 28, 28, device=device)
        labels = torch.randint(0, 10, (batch_size,), device=device)
        steps = {"capsnet.CapsNet fp32": make_step(ours, images, labels)}
        if bf16:
            steps["capsnet.CapsNet bf16 (train.py)"] = make_step(ours_bf16, images, labels, bf16=True)
        eager_twin = {}  # a compiled step's operations are counted on the same step run eagerly
        for mode in args.compile:
            compiled = CapsNet().to(device)
            compiled.load_state_dict(ours.state_dict(), strict=True)
            name = f"CapsNet {'bf16' if bf16 else 'fp32'} compiled {mode}"
            steps[name] = make_step(compiled, images, labels, bf16=bf16, compile_mode=mode)
            eager_twin[name] = "capsnet.CapsNet bf16 (train.py)" if bf16 else "capsnet.CapsNet fp32"
        steps["naive (harness/naive_capsnet.py)"] = make_step(naive, images, labels)
        if args.cnn:
            steps["BaselineCNN (train.py)"] = make_step(BaselineCNN().to(device), images, labels, bf16=bf16)
            steps["BaselineCNN paper's exact"] = make_step(
                BaselineCNN(BaselineConfig.paper()).to(device), images, labels, bf16=bf16
            )

        for step in steps.values():
            for _ in range(args.warmup):
                step()
        rates = {name: [] for name in steps}
        for _ in range(args.repeats):
            for name, step in steps.items():
                rates[name].append(images_per_second(step, args.steps, batch_size, device))

        medians = {name: statistics.median(r) for name, r in rates.items()}
        naive_rate = medians["naive (harness/naive_capsnet.py)"]
        for name, rate in medians.items():
            spread = f"{min(rates[name]):.1f}-{max(rates[name]):.1f}"
            line = f"{name:<32} {batch_size:>5} {rate:>9.1f} {spread:>15} {rate / naive_rate:>7.2f}x"
            if device.type == "cuda":
                achieved = step_flops(steps[eager_twin.get(name, name)]) * rate / batch_size
                line += f" {achieved / 1e12:>8.1f} {achieved / matmul_rate:>14.1%}"
            print(line)
        if args.profile and batch_size == args.batch_size[0] and device.type == "cuda":
            print_profile(steps["capsnet.CapsNet bf16 (train.py)" if bf16 else "capsnet.CapsNet fp32"], args.steps)


if __name__ == "__main__":
    main()
