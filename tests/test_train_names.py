"""A run of train.py as a newcomer makes one: MNIST found through $CAPSNET_DATA_DIR from any folder,
and the chosen CapsNet's sliders named beside its weights (dimensions.json), where the app reads them."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import train
from capsnet.studies import dimension_names
from capsnet.studies.dimension_names_file import NAMES_FILE
from capsnet.training.options import DATA_DIR_VARIABLE
from playground import networks
from tests.support.mnist_files import TINY_MNIST_IMAGES, first_mnist_images
from tests.support.train_flags import tiny_run_flags

TRAIN_PY = Path(train.__file__)
NAMED_TEST_DIGITS = 200  # the first 200 of MNIST's test set hold 10 or more of each class
NAMING_DIGITS = 5  # of each class, in place of the study's 100: 5 name the dimensions, the next 5 check them


@pytest.fixture(scope="module")
def named_mnist(mnist_test, data_dir, tmp_path_factory) -> Path:
    """64 training images and the first 200 test images of MNIST: a tiny run, named on 5 + 5 digits a class."""
    folder = tmp_path_factory.mktemp("named-mnist")
    return first_mnist_images(folder, mnist_test, data_dir, TINY_MNIST_IMAGES, NAMED_TEST_DIGITS)


@pytest.mark.slow  # a whole run of train.py: its cost is its point
def test_a_run_names_its_sliders_beside_its_weights_where_the_app_reads_them(
    named_mnist, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(dimension_names, "DIGITS_PER_CLASS", NAMING_DIGITS)
    assert train.main(tiny_run_flags(named_mnist, tmp_path)) == 0
    weights = tmp_path / "weights"
    assert f"wrote {weights / NAMES_FILE}" in capsys.readouterr().out
    names = networks.dimension_names(str(weights))  # what app.py serves the sliders with
    assert names is not None
    assert [len(digit) for digit in names.paper] == [16] * 10


def test_a_run_on_a_test_set_too_small_to_name_on_says_so_and_leaves_the_sliders_numbered(tiny_run):
    assert not (tiny_run / "weights" / NAMES_FILE).exists()  # tiny_mnist holds one 8 of the 200 the names need
    assert networks.dimension_names(str(tiny_run / "weights")) is None


@pytest.mark.slow  # a whole run of train.py: its cost is its point
def test_no_names_leaves_the_sliders_numbered(named_mnist, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(dimension_names, "DIGITS_PER_CLASS", NAMING_DIGITS)
    assert train.main(tiny_run_flags(named_mnist, tmp_path, "--no-names")) == 0
    assert not (tmp_path / "weights" / NAMES_FILE).exists() and "naming" not in capsys.readouterr().out


@pytest.mark.slow  # MNIST's 10,000 test digits read, then the study on 200 of each class
def test_a_run_on_all_of_mnist_s_test_set_names_its_sliders_as_the_study_does(data_dir, mnist_test, tmp_path):
    """The README's first run, shortened to a tiny run's steps, ends with the names of its sliders."""
    assert train.main(tiny_run_flags(data_dir, tmp_path)) == 0  # --limit 48 of MNIST's 60,000
    names = networks.dimension_names(str(tmp_path / "weights"))
    assert names is not None and [len(digit) for digit in names.paper] == [16] * 10


def test_the_data_dir_is_capsnet_data_dir_where_not_given(tiny_mnist, tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tiny_mnist))
    monkeypatch.chdir(tmp_path)
    assert train.parse_args([]).data_dir == str(tiny_mnist)
    assert train.parse_args(["--data-dir", "elsewhere"]).data_dir == "elsewhere"
    assert train.main(["--dry-run", "--val-size", "16", "--batch-size", "16", "--device", "cpu"]) == 0
    assert list(tmp_path.iterdir()) == []  # no ./data made, nothing downloaded


@pytest.mark.slow  # a process of its own: torch imported again
def test_a_dry_run_with_only_capsnet_data_dir_set_works_from_any_folder(tiny_mnist, tmp_path):
    environment = {**os.environ, DATA_DIR_VARIABLE: str(tiny_mnist)}
    result = subprocess.run(
        [sys.executable, str(TRAIN_PY), "--dry-run", "--val-size", "16", "--batch-size", "16", "--device", "cpu"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []
