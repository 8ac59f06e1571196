import os
import re
import struct
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from capsnet import CapsNet

REPO = Path(__file__).resolve().parent.parent
WEIGHTS = REPO / "weights"
EXAMPLES = sorted((REPO / "assets" / "examples").glob("*.png"))  # the app's MNIST test digits
TINY_MNIST_IMAGES = 64  # training and test images in the tiny_mnist data set


def label_of(example: Path) -> int:
    """The digit in an example's name: mnist_test_0003_digit_0.png -> 0."""
    return int(re.fullmatch(r"mnist_test_\d+_digit_(\d)", example.stem).group(1))


def example_pixels(example: Path) -> np.ndarray:
    """An example as /predict receives it: the 280x280 picture, dark ink on white, uint8 RGB."""
    return np.asarray(Image.open(example).convert("RGB"))


def pytest_configure(config):
    torch.set_num_threads(min(2, torch.get_num_threads()))


def pytest_collection_modifyitems(items):
    """Every test that starts a server or a browser belongs to the slow tier."""
    for item in items:
        if item.get_closest_marker("server") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def app():
    """app.py, imported (the network loaded) only by the tests that use it; a skip saying why
    where there are no trained weights."""
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}: the app needs them (run train.py)")
    import app
    return app


@pytest.fixture(scope="module")
def url(app):
    """The URL of `python app.py` served on a free loopback port, one server per test module."""
    from app_server import serving_app

    with pytest.MonkeyPatch.context() as env:
        env.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        with serving_app(start_timeout=600) as served:
            yield served


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """MNIST's folder: $CAPSNET_DATA_DIR (CI: ../shared/data), else ./data, downloaded when missing."""
    return Path(os.environ.get("CAPSNET_DATA_DIR", REPO / "data"))


@pytest.fixture(scope="session")
def mnist_test(data_dir):
    """MNIST's 10,000 test images, or a skip that says why they cannot be had."""
    from capsnet.data import mnist
    try:
        return mnist(data_dir, train=False)
    except RuntimeError as error:
        pytest.skip(f"MNIST is neither in {data_dir} nor downloadable: {error}")


@pytest.fixture(scope="session")
def tiny_mnist(mnist_test, data_dir, tmp_path_factory) -> Path:
    """The first MNIST images written as torchvision's raw idx files, in a data dir of their own:
    training runs on it take seconds, test evaluation included."""
    from capsnet.data import mnist
    raw = tmp_path_factory.mktemp("tiny-mnist") / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for prefix, dataset, count in (("train", mnist(data_dir, train=True), TINY_MNIST_IMAGES),
                                   ("t10k", mnist_test, TINY_MNIST_IMAGES)):
        images = dataset.data[:count].numpy().astype(np.uint8)    # [N, 28, 28]
        labels = dataset.targets[:count].numpy().astype(np.uint8)  # [N]
        (raw / f"{prefix}-images-idx3-ubyte").write_bytes(struct.pack(">IIII", 2051, count, 28, 28) + images.tobytes())
        (raw / f"{prefix}-labels-idx1-ubyte").write_bytes(struct.pack(">II", 2049, count) + labels.tobytes())
    return raw.parent.parent


@pytest.fixture(scope="session")
def trained_model() -> CapsNet:
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}: run train.py first")
    return CapsNet.from_pretrained(WEIGHTS).eval()


@pytest.fixture
def model() -> CapsNet:
    torch.manual_seed(0)
    return CapsNet()
