"""Evaluation and the model card measure a network wherever it is: its inputs go to the device and
dtype of its weights and its readings come back to the CPU. On the CPU a float64 network stands
for one elsewhere (tests/test_cuda.py has a network on a GPU)."""

import copy
import json
import shutil

import numpy as np
import pytest
import torch

from capsnet.shipping import evaluate, model_card
from capsnet.shipping.model_card import mnist_misreadings
from harness.paths import WEIGHTS
from tests.support.mnist_files import TINY_MNIST_IMAGES

SEMEION_ROWS = 40


@pytest.fixture(scope="module")
def few_semeion_digits(semeion_path, tmp_path_factory):
    """The first 40 of Semeion's digits, in a file of their own."""
    path = tmp_path_factory.mktemp("semeion") / "semeion.data"
    path.write_text("".join(semeion_path.read_text().splitlines(keepends=True)[:SEMEION_ROWS]))
    return path


@pytest.fixture(scope="module")
def float64_model(trained_model):
    return copy.deepcopy(trained_model).to(torch.float64)


def test_semeion_is_read_by_a_network_in_another_dtype_as_in_fp32(trained_model, float64_model, few_semeion_digits):
    read = evaluate.semeion_predictions(float64_model, few_semeion_digits)
    assert read.shape == (SEMEION_ROWS,)
    np.testing.assert_array_equal(read, evaluate.semeion_predictions(trained_model, few_semeion_digits))


@pytest.mark.slow
def test_the_cards_misreadings_are_measured_on_a_network_in_another_dtype_as_in_fp32(
    trained_model, float64_model, tiny_mnist
):
    accuracy, mistakes = mnist_misreadings(float64_model, tiny_mnist)
    assert (accuracy, mistakes) == mnist_misreadings(trained_model, tiny_mnist)
    assert sum(mistakes.values()) == round((1 - accuracy) * TINY_MNIST_IMAGES)


def test_evaluate_and_the_card_take_the_device_to_run_on(tiny_mnist, tmp_path, capsys):
    evaluate.main(["--weights", str(WEIGHTS), "--data-dir", str(tiny_mnist), "--device", "cpu"])
    printed = capsys.readouterr().out
    assert 0.9 <= json.loads(printed[printed.index("{") :])["mnist_test_accuracy"] <= 1
    folder = tmp_path / "weights"
    shutil.copytree(WEIGHTS, folder, ignore=shutil.ignore_patterns("cnn", "pairs*"))
    model_card.main(["--weights", str(folder), "--data-dir", str(tiny_mnist), "--device", "cpu"])
    assert "## What it misreads (measured)" in (folder / "README.md").read_text()
