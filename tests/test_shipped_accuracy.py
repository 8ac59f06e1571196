"""The shipped weights reach the accuracy that weights/metrics.json records."""

import json

import pytest
import torch

from capsnet.data.datasets import batches
from capsnet.shipping.evaluate import accuracy
from harness.paths import WEIGHTS


@pytest.mark.slow
def test_shipped_weights_reach_the_recorded_mnist_accuracy(trained_model, mnist_test):
    metrics = json.loads((WEIGHTS / "metrics.json").read_text())
    measured = accuracy(trained_model, batches(mnist_test, 500), torch.device("cpu"))
    assert len(mnist_test) == 10_000
    assert measured == pytest.approx(metrics["mnist_test_accuracy"], abs=0.0002)  # 0.02 points
