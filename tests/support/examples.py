"""The app's examples (assets/examples/): ten MNIST test digits, one of each, saved 10x as black on white."""

import re
from pathlib import Path

import numpy as np
import torch
from PIL import Image

from harness.paths import REPO

EXAMPLES = sorted((REPO / "assets" / "examples").glob("*.png"))


def label_of(example: Path) -> int:
    """The digit in an example's name: mnist_test_0003_digit_0.png -> 0."""
    return int(re.fullmatch(r"mnist_test_\d+_digit_(\d)", example.stem).group(1))


def example_pixels(example: Path) -> np.ndarray:
    """An example as /predict receives it: the 280x280 picture, dark ink on white, uint8 RGB."""
    return np.asarray(Image.open(example).convert("RGB"))


def example_digits() -> tuple[torch.Tensor, torch.Tensor]:
    """The examples as the network takes them, [10, 1, 28, 28] floats in [0, 1] (each saved 10x
    as black on white), and their labels [10]: real MNIST test digits, with no data set needed."""
    pages = [Image.open(example).convert("L") for example in EXAMPLES]
    ink = np.stack([255 - np.asarray(page.reduce(page.width // 28)) for page in pages])  # [10, 28, 28]
    return torch.from_numpy(ink).unsqueeze(1).float() / 255, torch.tensor([label_of(e) for e in EXAMPLES])
