"""The Two-digits section's examples under its pad (assets/pairs/), made from MNIST: the first
EXAMPLE_COUNT test pairs of `capsnet.data.pairs.fixed_pairs` (the ones
`capsnet.studies.pairs_measurement` reads), whatever the networks make of them, each digit alone as
the network's preprocessing placed it, side by side as a 56x28 PNG of black ink on white
(`playground.two_digits_pad.example_layers` reads them back).

    python -m bench.pair_examples --data-dir DATA          # writes assets/pairs/
"""

import argparse
from pathlib import Path

import numpy as np
from PIL import Image

from capsnet.data.datasets import mnist
from capsnet.data.pairs import TEST_SEED, fixed_pairs
from playground.two_digits_pad import EXAMPLES_FOLDER

EXAMPLE_COUNT = 8


def save_examples(data_dir: str, out: Path = EXAMPLES_FOLDER, count: int = EXAMPLE_COUNT) -> None:
    """Write the first ``count`` test pairs, each digit alone as the network's preprocessing
    placed it, side by side as a 56x28 PNG of black ink on white."""
    test = mnist(data_dir, train=False)
    _, digits, labels, _ = fixed_pairs(test.data, test.targets, TEST_SEED)  # digits [N, 2, 1, 28, 28]
    out.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        ink = np.rint(digits[index, :, 0].numpy() * 255).astype(np.uint8)  # [2, 28, 28]
        a, b = labels[index].tolist()
        Image.fromarray(255 - np.concatenate(list(ink), axis=1)).save(out / f"mnist_test_pair_{index:04d}_{a}_{b}.png")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description=f"Write the Two-digits section's examples, the first {EXAMPLE_COUNT} "
        f"MNIST test pairs, to {EXAMPLES_FOLDER}."
    )
    p.add_argument("--data-dir", default="./data", help="torchvision's MNIST folder (default: ./data)")
    save_examples(p.parse_args(argv).data_dir)


if __name__ == "__main__":
    main()
