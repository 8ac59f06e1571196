import os
from pathlib import Path

import pytest
import torch

from capsnet import CapsNet, CapsNetConfig

REPO = Path(__file__).resolve().parent.parent
WEIGHTS = REPO / "weights"


def pytest_configure(config):
    torch.set_num_threads(min(2, torch.get_num_threads()))


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
def trained_model() -> CapsNet:
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}: run train.py first")
    return CapsNet.from_pretrained(WEIGHTS).eval()


@pytest.fixture
def model() -> CapsNet:
    torch.manual_seed(0)
    return CapsNet(CapsNetConfig())
