"""What one turn of Turn it costs the server: `capsnet.data.affine.transform` on one 28x28 digit,
timed over many angles after one untimed run; the median, which the server's Turn-it fallback
pays once a slider's move (its aim: well under a millisecond).

    python -m bench.affine_cost --runs 200
"""

import argparse
import statistics
import time

import torch

from bench.train_throughput import cpu_model
from capsnet.data.affine import AffineChange, transform


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="timed turns (default 200)")
    args = parser.parse_args()
    image = torch.rand(28, 28)
    transform(image, AffineChange(rotation=1))  # untimed: the first call's set-up
    timings = []
    for step in range(args.runs):
        start = time.perf_counter()
        transform(image, AffineChange(rotation=step % 180 - 90, scale=1.1))
        timings.append(time.perf_counter() - start)
    print(f"CPU: {cpu_model()}; torch {torch.__version__}")
    print(
        f"one 28x28 digit turned: median {statistics.median(timings) * 1e3:.3f} ms, worst {max(timings) * 1e3:.3f} ms"
    )


if __name__ == "__main__":
    main()
