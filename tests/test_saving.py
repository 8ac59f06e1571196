"""What a run leaves in --out: weights written atomically without touching the model card there,
temporary files of fixed names that the next write replaces, the card of the run that wrote the
weights, the earlier runs' history kept, and --push-to-hub pushing that folder as it is."""

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
import torch.nn as nn
from huggingface_hub import PyTorchModelHubMixin

import train
from capsnet.shipping.saving import atomic_save_pretrained, atomic_torch_save, atomic_write_text
from capsnet.training import hub, losses
from tests.support.interrupted_runs import nan_after
from tests.support.mnist_files import TINY_MNIST_IMAGES

VAL_IMAGES, BATCH_SIZE = 16, 16


class Tiny(nn.Module, PyTorchModelHubMixin):
    def __init__(self, width: int = 2):
        super().__init__()
        self.linear = nn.Linear(width, width)


def flags(data: Path, out: Path, checkpoint: Path, *extra: str) -> list[str]:
    return [
        "--data-dir",
        str(data),
        "--out",
        str(out),
        "--checkpoint",
        str(checkpoint),
        "--limit",
        str(TINY_MNIST_IMAGES - VAL_IMAGES),
        "--val-size",
        str(VAL_IMAGES),
        "--batch-size",
        str(BATCH_SIZE),
        "--epochs",
        "1",
        "--device",
        "cpu",
        "--amp",
        "off",
        *extra,
    ]


def test_saving_weights_leaves_the_model_card_there_as_it_is(tmp_path):
    (tmp_path / "README.md").write_text("the card of the run that wrote these weights")
    atomic_save_pretrained(Tiny(), tmp_path)
    assert (tmp_path / "README.md").read_text() == "the card of the run that wrote these weights"
    assert sorted(file.name for file in tmp_path.iterdir()) == ["README.md", "config.json", "model.safetensors"]
    fresh = tmp_path / "fresh"
    atomic_save_pretrained(Tiny(), fresh)  # no card yet: none is made up (not the mixin's stub)
    assert sorted(file.name for file in fresh.iterdir()) == ["config.json", "model.safetensors"]


def test_the_temporary_files_a_killed_write_leaves_are_replaced_by_the_next_write(tmp_path):
    (tmp_path / "last.pt.tmp").write_bytes(b"half a checkpoint")  # as kill -9 leaves them
    (tmp_path / "metrics.json.tmp").write_text("{")
    (tmp_path / ".saving").mkdir()
    (tmp_path / ".saving" / "model.safetensors").write_bytes(b"half the weights")
    atomic_torch_save({"epoch": 1}, tmp_path / "last.pt")
    atomic_write_text(tmp_path / "metrics.json", "{}\n")
    atomic_save_pretrained(Tiny(), tmp_path)
    assert sorted(file.name for file in tmp_path.iterdir()) == [
        "config.json",
        "last.pt",
        "metrics.json",
        "model.safetensors",
    ]


@pytest.fixture(scope="module")
def first_run(tiny_run) -> Path:
    """The weights, metrics.json and model card of a whole run."""
    return tiny_run / "weights"


def test_a_finished_run_writes_its_own_model_card_with_the_test_accuracy(first_run):
    card = (first_run / "README.md").read_text()
    metrics = json.loads((first_run / "metrics.json").read_text())
    assert "model-index" in card and f"value: {round(metrics['mnist_test_accuracy'], 4)}" in card
    assert metrics["command"] in card


@pytest.mark.slow
def test_a_fine_tune_into_its_own_folder_keeps_the_card_until_it_ends_and_the_history_after(
    first_run, tiny_mnist, tmp_path, monkeypatch, capsys
):
    weights = tmp_path / "weights"
    shutil.copytree(first_run, weights)
    card, earlier = (weights / "README.md").read_text(), json.loads((weights / "metrics.json").read_text())
    fine_tune = flags(
        tiny_mnist,
        weights,
        tmp_path / "last.pt",
        "--init-from",
        str(weights),
        "--val-size",
        "0",
        "--epochs",
        "2",
        "--lr",
        "2e-4",
        "--overwrite",
    )
    monkeypatch.setattr(losses, "capsule_loss", nan_after((TINY_MNIST_IMAGES - VAL_IMAGES) // BATCH_SIZE))
    assert train.main(fine_tune) == 1  # epoch 1 saved over the weights, then a NaN
    assert (weights / "model.safetensors").read_bytes() != (first_run / "model.safetensors").read_bytes()
    assert (weights / "README.md").read_text() == card  # the mixin's stub never replaces it
    capsys.readouterr()

    monkeypatch.undo()
    assert train.main([*fine_tune, "--resume"]) == 0
    metrics = json.loads((weights / "metrics.json").read_text())
    assert metrics["earlier"] == earlier and [e["epoch"] for e in metrics["history"]] == [1, 2]
    new_card = (weights / "README.md").read_text()
    assert "model-index" in new_card and f"value: {round(metrics['mnist_test_accuracy'], 4)}" in new_card
    assert earlier["command"] in new_card and metrics["command"] in new_card  # both runs, in order


class FakeHub:
    """HfApi's create_repo and upload_folder, recording what would be uploaded."""

    uploaded: dict[str, bytes] = {}

    def create_repo(self, repo_id, exist_ok=False):
        assert exist_ok
        return type("RepoUrl", (), {"repo_id": repo_id})()

    def upload_folder(self, repo_id, folder_path, ignore_patterns, commit_message):
        FakeHub.uploaded = {
            file.name: file.read_bytes()
            for file in Path(folder_path).iterdir()
            if not any(file.match(pattern) for pattern in ignore_patterns)
        }


class NoNetwork(FakeHub):
    def create_repo(self, repo_id, exist_ok=False):
        raise OSError("[Errno -2] Name or service not known")


@pytest.mark.slow
def test_push_to_hub_uploads_the_weights_with_their_own_card(tiny_mnist, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(hub, "HfApi", FakeHub)
    out = tmp_path / "weights"
    assert train.main(flags(tiny_mnist, out, out / "last.pt", "--push-to-hub", "me/capsnet")) == 0
    assert (out / "last.pt").is_file()  # the run's checkpoint, kept in its folder, stays there
    assert set(FakeHub.uploaded) == {"model.safetensors", "config.json", "README.md", "metrics.json"}
    assert FakeHub.uploaded["README.md"] == (out / "README.md").read_bytes()
    assert b"model-index" in FakeHub.uploaded["README.md"]
    assert "pushed" in capsys.readouterr().out


def test_push_to_hub_without_a_network_says_so_in_one_line(first_run, monkeypatch, capsys):
    monkeypatch.setattr(hub, "HfApi", NoNetwork)
    assert hub.push(first_run, "me/capsnet") == 1  # train.main returns it
    error = capsys.readouterr().err
    assert error.startswith("train.py: error: --push-to-hub me/capsnet: the upload failed (OSError: ")
    assert error.count("\n") == 1 and str(first_run) in error


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077], ids=oct)
def test_files_written_atomically_get_the_mode_an_ordinary_open_gives(tmp_path, umask):
    """safetensors writes its file 0600: the weights must be as readable as the files beside them."""
    previous = os.umask(umask)
    try:
        (tmp_path / "ordinary").write_text("")
        atomic_save_pretrained(Tiny(), tmp_path)
        atomic_write_text(tmp_path / "metrics.json", "{}\n")
        atomic_torch_save({"epoch": 1}, tmp_path / "last.pt")
    finally:
        os.umask(previous)
    modes = {file.name: stat.S_IMODE(file.stat().st_mode) for file in tmp_path.iterdir()}
    assert modes == dict.fromkeys(
        ["ordinary", "config.json", "model.safetensors", "metrics.json", "last.pt"], 0o666 & ~umask
    )
