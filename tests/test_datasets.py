"""MNIST's download, the validation split and the on-device shifts: what train.py trains, chooses
and tests on."""

import json
import struct
import urllib.error
from collections import Counter
from pathlib import Path

import pytest
import torch
import torchvision.datasets.mnist
import torchvision.transforms.functional as TF
from torchvision import transforms

import train
from capsnet.data.datasets import MAX_SHIFT, mnist, random_offsets, shift, validation_split
from capsnet.shipping import model_card
from capsnet.shipping.saving import load_checkpoint
from capsnet.training import sharded_data
from capsnet.training.processes import Processes
from capsnet.training.run_record import portable_command
from capsnet.training.sharded_data import TrainingData
from tests.support.train_flags import train_flags

OFFSETS = [(top, left) for top in range(2 * MAX_SHIFT + 1) for left in range(2 * MAX_SHIFT + 1)]  # 25


def test_validation_split_is_disjoint_complete_and_fixed_by_the_seed():
    training, held_out = validation_split(60000, 5000, seed=1)
    assert len(held_out) == 5000 and len(training) == 55000
    assert not set(training.tolist()) & set(held_out.tolist())
    assert sorted(training.tolist() + held_out.tolist()) == list(range(60000))
    again_training, again_held_out = validation_split(60000, 5000, seed=1)
    assert torch.equal(held_out, again_held_out) and torch.equal(training, again_training)
    assert not torch.equal(held_out, validation_split(60000, 5000, seed=2)[1])


def test_validation_split_of_nothing_trains_on_everything():
    training, held_out = validation_split(100, 0, seed=1)
    assert training.tolist() == list(range(100)) and held_out.numel() == 0


@pytest.mark.parametrize("val_size", [-1, 100, 101])
def test_validation_split_that_leaves_nothing_to_train_on_is_refused(val_size):
    with pytest.raises(ValueError, match="leaves none to train on"):
        validation_split(100, val_size, seed=1)


def shifted_versions(digits: torch.Tensor) -> set[bytes]:
    """Every digit of uint8 [N, 28, 28] at each of the 25 offsets, as bytes."""
    images = digits.unsqueeze(1).float() / 255
    versions = set()
    for offset in OFFSETS:
        moved = shift(images, torch.tensor([offset]).expand(len(images), 2))
        versions.update(bytes(image.numpy()) for image in (moved[:, 0] * 255).round().to(torch.uint8))
    return versions


@pytest.mark.parametrize("on_device", [True, False], ids=["on-device", "dataloader"])
def test_training_data_holds_exactly_the_training_indices(small_mnist, on_device):
    from capsnet.data.datasets import mnist

    training, held_out = validation_split(512, 64, seed=1)
    data = TrainingData(
        str(small_mnist), training, 32, seed=1, processes=Processes(), device=torch.device("cpu"), on_device=on_device
    )
    full = mnist(small_mnist, train=True)
    trained_on, kept_out = shifted_versions(full.data[training]), shifted_versions(full.data[held_out])
    labels = Counter()
    for images, batch_labels in data.epoch(1):
        labels.update(batch_labels.tolist())
        for image in (images[:, 0] * 255).round().to(torch.uint8):
            assert bytes(image.numpy()) in trained_on, "a training image is not a shifted training digit"
            assert bytes(image.numpy()) not in kept_out, "a held-out digit was trained on"
    assert labels == Counter(full.targets[training].tolist())  # every label kept, each digit once


def test_shift_cuts_what_randomcrop_cuts_at_every_offset(mnist_test):
    images = torch.stack([mnist_test[i][0] for i in range(4)])  # [4, 1, 28, 28]
    for top, left in OFFSETS:
        expected = TF.crop(TF.pad(images, [MAX_SHIFT]), top, left, 28, 28)
        offsets = torch.tensor([[top, left]]).expand(len(images), 2)
        assert torch.equal(shift(images, offsets), expected), (top, left)


def test_shift_keeps_pixel_values_dtype_and_shape(mnist_test):
    images = torch.stack([mnist_test[i][0] for i in range(64)])
    shifted = shift(images, random_offsets(64, torch.Generator().manual_seed(0)))
    assert shifted.shape == images.shape and shifted.dtype == images.dtype
    inside = (
        images[..., :MAX_SHIFT, :].sum((1, 2, 3))
        + images[..., -MAX_SHIFT:, :].sum((1, 2, 3))
        + images[..., :MAX_SHIFT].sum((1, 2, 3))
        + images[..., -MAX_SHIFT:].sum((1, 2, 3))
        == 0
    )
    torch.testing.assert_close(shifted[inside].sum((1, 2, 3)), images[inside].sum((1, 2, 3)))  # no ink lost
    assert set(shifted.unique().tolist()) <= set(images.unique().tolist())


def randomcrop_offset(crop: transforms.RandomCrop) -> tuple[int, int]:
    """Where RandomCrop cut a marked image: one lit pixel shows the offset."""
    marked = torch.zeros(1, 28, 28)
    marked[0, 10, 10] = 1
    row, column = divmod(int(crop(marked).flatten().argmax()), 28)
    return 10 + MAX_SHIFT - row, 10 + MAX_SHIFT - column


def test_on_device_offsets_are_distributed_as_randomcrops():
    draws = 25_000
    torch.manual_seed(0)
    crop = transforms.RandomCrop(28, padding=MAX_SHIFT)
    theirs = Counter(randomcrop_offset(crop) for _ in range(draws))
    ours = Counter(map(tuple, random_offsets(draws, torch.Generator().manual_seed(0)).tolist()))
    assert set(theirs) == set(ours) == set(OFFSETS)
    # Two samples of the same 25-way uniform distribution: a chi-squared test of homogeneity, 24
    # degrees of freedom, at the 0.1% level (critical value 51.18).
    chi2 = sum((ours[o] - theirs[o]) ** 2 / (ours[o] + theirs[o]) for o in OFFSETS)
    assert chi2 < 51.18, chi2
    expected = draws / len(OFFSETS)
    assert sum((ours[o] - expected) ** 2 / expected for o in OFFSETS) < 51.18


@pytest.fixture
def reads(monkeypatch) -> list[bool]:
    """The ``train`` flag of every MNIST set train.py loads, in order (False: the test set)."""
    from capsnet.data.datasets import mnist

    loaded = []
    monkeypatch.setattr(
        train, "mnist", lambda data_dir, train, **kw: loaded.append(train) or mnist(data_dir, train, **kw)
    )
    for module in (sharded_data, model_card):  # where the run's data, and its model card's, are read
        monkeypatch.setattr(
            module, "mnist", lambda data_dir, train, **kw: loaded.append(train) or mnist(data_dir, train, **kw)
        )
    return loaded


@pytest.mark.slow
def test_val_size_0_keeps_the_last_epoch_and_reads_the_test_set_once(tiny_mnist, tmp_path, reads):
    run = tmp_path / "run"
    flags = train_flags(tiny_mnist, run, val_size=0, epochs=2, batch_size=32, device_data="on", no_names=True)
    assert train.main(flags) == 0
    assert reads.count(False) == 1 and reads[-1] is False  # the test set, read once, at the end (the
    # slider names, measured on it after the run, are left out here: tests/test_train_names.py)
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["chosen_epoch"] == 2 and metrics["val_accuracy"] is None and metrics["val_size"] == 0
    assert "last epoch" in metrics["selection"]
    from safetensors.torch import load_file

    saved, last = load_file(run / "model.safetensors"), load_checkpoint(run / "last.pt")["ema"]
    for name, tensor in saved.items():
        assert torch.equal(tensor, last[f"module.{name}"]), name


@pytest.mark.slow
def test_the_epoch_is_chosen_on_validation_and_metrics_record_the_protocol(tiny_mnist, tmp_path, reads):
    run = tmp_path / "run"
    assert train.main(train_flags(tiny_mnist, run, val_size=16, epochs=3, batch_size=16, model="cnn")) == 0
    assert reads.count(False) == 1 and reads[-1] is False
    metrics = json.loads((run / "metrics.json").read_text())
    history = metrics["history"]
    best = max(history, key=lambda epoch: epoch["val_accuracy"])  # the first of the best
    assert metrics["chosen_epoch"] == best["epoch"] and metrics["val_accuracy"] == best["val_accuracy"]
    assert metrics["model"] == "cnn" and metrics["train_images"] == 48 and metrics["global_batch"] == 16
    assert {"train_loss", "val_accuracy", "seconds"} <= history[0].keys()
    for key in ("mnist_test_accuracy", "device", "torch_version", "train_seconds", "processes", "selection"):
        assert key in metrics, key
    assert str(tmp_path) not in metrics["command"] and "--out OUT" in metrics["command"]


def test_portable_command_names_no_path_of_this_machine():
    command = portable_command(
        ["--data-dir", "/home/me/data", "--out=../run/weights", "--checkpoint", "checkpoints/last.pt", "--epochs", "3"]
    )
    assert command == ("python train.py --data-dir DATA --out=OUT --checkpoint checkpoints/last.pt --epochs 3")


@pytest.mark.gpu
def test_on_device_batches_on_cuda_equal_those_on_the_cpu(small_mnist):
    training, _ = validation_split(512, 64, seed=1)
    batches = {}
    for device in ("cpu", "cuda"):
        data = TrainingData(
            str(small_mnist), training, 32, seed=1, processes=Processes(), device=torch.device(device), on_device=True
        )
        batches[device] = [(images.cpu(), labels.cpu()) for images, labels in data.epoch(3)]
    for (cpu_images, cpu_labels), (gpu_images, gpu_labels) in zip(batches["cpu"], batches["cuda"], strict=True):
        assert torch.equal(cpu_images, gpu_images) and torch.equal(cpu_labels, gpu_labels)


@pytest.mark.gpu
@pytest.mark.parametrize("model", ["capsnet", "cnn"])
def test_a_cuda_run_trains_and_saves(small_mnist, tmp_path, model):
    run = tmp_path / model
    assert train.main(train_flags(small_mnist, run, val_size=64, epochs=1, model=model, device="cuda")) == 0
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["device"] == "cuda" and metrics["data_on_device"] is True


def test_a_failed_download_leaves_no_folder_behind(tmp_path, monkeypatch):
    def offline(url, download_root, filename, md5):
        raise urllib.error.URLError("no network")

    monkeypatch.setattr(torchvision.datasets.mnist, "download_and_extract_archive", offline)
    missing = tmp_path / "nowhere" / "data"
    with pytest.raises(RuntimeError, match="could not be downloaded"):
        mnist(missing, train=False)
    assert not (tmp_path / "nowhere").exists()


def test_a_download_lands_in_the_data_dir(tmp_path, monkeypatch):
    def five_blank_digits(url, download_root, filename, md5):
        header = struct.pack(">IIII", 2051, 5, 28, 28) if "images" in filename else struct.pack(">II", 2049, 5)
        (Path(download_root) / filename.removesuffix(".gz")).write_bytes(
            header + bytes(5 * 28 * 28 if "images" in filename else 5)
        )

    monkeypatch.setattr(torchvision.datasets.mnist, "download_and_extract_archive", five_blank_digits)
    test_set = mnist(tmp_path / "fresh", train=False)
    assert len(test_set) == 5 and len(mnist(tmp_path / "fresh", train=True)) == 5
    assert sorted(p.name for p in (tmp_path / "fresh" / "MNIST" / "raw").iterdir()) == [
        "t10k-images-idx3-ubyte",
        "t10k-labels-idx1-ubyte",
        "train-images-idx3-ubyte",
        "train-labels-idx1-ubyte",
    ]
