"""The first MNIST images as a data folder of their own, in torchvision's raw idx files: training
runs on it take seconds, test evaluation included."""

import struct
from pathlib import Path

import numpy as np

TINY_MNIST_IMAGES = 64  # training and test images in the tiny_mnist data set (tests/conftest.py)


def first_mnist_images(folder: Path, mnist_test, data_dir: Path, train_count: int, test_count: int) -> Path:
    """The first ``train_count`` MNIST training images and ``test_count`` test images (of
    ``mnist_test``) written as torchvision's raw idx files under ``folder``, a data dir of their own."""
    from capsnet.data.datasets import mnist

    raw = folder / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for prefix, dataset, count in (
        ("train", mnist(data_dir, train=True), train_count),
        ("t10k", mnist_test, test_count),
    ):
        images = dataset.data[:count].numpy().astype(np.uint8)  # [N, 28, 28]
        labels = dataset.targets[:count].numpy().astype(np.uint8)  # [N]
        (raw / f"{prefix}-images-idx3-ubyte").write_bytes(struct.pack(">IIII", 2051, count, 28, 28) + images.tobytes())
        (raw / f"{prefix}-labels-idx1-ubyte").write_bytes(struct.pack(">II", 2049, count) + labels.tobytes())
    return folder
