"""load_model: the happy path round-trips; every broken weights folder gives a WeightsError that
names the file and the fix, and the commands a fix names are ones train.py runs."""

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
import torch
from huggingface_hub import constants
from safetensors.torch import load_file, save_file

import train
from capsnet import CapsNet, CapsNetConfig, WeightsError, load_model
from capsnet.shipping.pretrained import SERVED_BY, served_fix

FIX = "CAPSNET_WEIGHTS"  # every message ends with the fix, which names the variable to set


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    """A randomly initialised CapsNet saved with save_pretrained."""
    folder = tmp_path_factory.mktemp("saved")
    torch.manual_seed(0)
    CapsNet(CapsNetConfig()).save_pretrained(folder)
    return folder


@pytest.fixture
def folder(saved, tmp_path) -> Path:
    """A private copy of ``saved`` that a test may break."""
    return Path(shutil.copytree(saved, tmp_path / "weights"))


def expect_error(source, *fragments: str) -> str:
    with pytest.raises(WeightsError) as raised:
        load_model(source)
    message = str(raised.value)
    for fragment in (*fragments, FIX, "python train.py"):
        assert fragment in message, message
    return message


def test_round_trip_gives_identical_outputs(saved):
    torch.manual_seed(1)
    images = torch.rand(4, 1, 28, 28)
    original = CapsNet.from_pretrained(saved).eval()
    loaded = load_model(saved)
    assert not loaded.training
    assert loaded.config == CapsNetConfig()
    with torch.inference_mode():
        expected, actual = original(images), loaded(images)
    for field in ("capsules", "lengths", "prediction", "reconstruction", "couplings"):
        assert torch.equal(getattr(actual, field), getattr(expected, field)), field


def test_accepts_a_path_object_and_a_string(saved):
    for source in (saved, str(saved)):
        assert isinstance(load_model(source), CapsNet)


@pytest.mark.parametrize("source", ["no-such-folder", "./weights-nowhere", "../a/b", "a/b/c", Path("user/repo")])
def test_missing_folder(tmp_path, monkeypatch, source):
    monkeypatch.chdir(tmp_path)
    expect_error(source, str(Path(source)), "does not exist")


def test_empty_path():
    expect_error("", "empty path")


def test_folder_without_weights(folder):
    (folder / "model.safetensors").unlink()
    expect_error(folder, str(folder / "model.safetensors"), "missing")


def test_pickle_weights_are_never_loaded(folder):
    state = load_file(folder / "model.safetensors")
    (folder / "model.safetensors").unlink()
    torch.save(state, folder / "pytorch_model.bin")
    expect_error(folder, str(folder / "model.safetensors"), "missing")


@pytest.mark.parametrize(
    "corrupt",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="truncated-half"),
        pytest.param(lambda data: data[:-1], id="truncated-one-byte"),
        pytest.param(lambda data: data[:5], id="truncated-header"),
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: b"not a safetensors file" * 100, id="garbage"),
    ],
)
def test_corrupt_weights(folder, corrupt):
    weights = folder / "model.safetensors"
    weights.write_bytes(corrupt(weights.read_bytes()))
    expect_error(folder, str(weights), "corrupt or truncated")


def test_config_missing(folder):
    (folder / "config.json").unlink()
    expect_error(folder, str(folder / "config.json"), "missing")


@pytest.mark.parametrize("text", ["{", "", "conv1_channels: 256", "\xff\xfe"])
def test_config_not_json(folder, text):
    (folder / "config.json").write_bytes(text.encode("latin-1"))
    expect_error(folder, str(folder / "config.json"), "not valid JSON")


def test_config_is_a_folder(folder):
    (folder / "config.json").unlink()
    (folder / "config.json").mkdir()
    expect_error(folder, str(folder / "config.json"), "cannot be read")


def test_config_not_an_object(folder):
    (folder / "config.json").write_text("[1, 2, 3]")
    expect_error(folder, str(folder / "config.json"), "JSON object")


def edit_config(folder: Path, **changes) -> None:
    path = folder / "config.json"
    config = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            del config[key]
        else:
            config[key] = value
    path.write_text(json.dumps(config))


def test_config_missing_keys(folder):
    edit_config(folder, conv1_channels=None, kernel_size=None)
    expect_error(folder, str(folder / "config.json"), "lacks the keys conv1_channels, kernel_size")


def test_config_unknown_keys(folder):
    edit_config(folder, dropout=0.5)
    expect_error(folder, str(folder / "config.json"), "unknown keys dropout")


@pytest.mark.parametrize(
    "key, value",
    [
        ("conv1_channels", "256"),
        ("conv1_channels", 0),
        ("conv1_channels", -3),
        ("conv1_channels", 256.0),
        ("routing_iterations", True),
        ("num_classes", [10]),
        ("decoder_hidden", [512]),
        ("decoder_hidden", [512, "1024"]),
        ("decoder_hidden", 512),
    ],
)
def test_config_wrong_values(folder, key, value):
    edit_config(folder, **{key: value})
    expect_error(folder, str(folder / "config.json"), f"{key} = {json.dumps(value)} is not")


def test_config_with_no_capsule_grid(folder):
    edit_config(folder, image_size=10)
    expect_error(folder, str(folder / "config.json"), "too small")


def test_config_that_does_not_match_the_tensors(folder):
    edit_config(folder, conv1_channels=128)
    expect_error(
        folder,
        str(folder / "model.safetensors"),
        "tensor conv1.weight has shape [256, 1, 9, 9]",
        "implies [128, 1, 9, 9]",
    )


def rewrite_tensors(folder: Path, edit) -> None:
    state = load_file(folder / "model.safetensors")
    edit(state)
    save_file(state, folder / "model.safetensors")


def test_missing_tensor(folder):
    rewrite_tensors(folder, lambda state: state.pop("digits.W"))
    expect_error(folder, str(folder / "model.safetensors"), "lacks the tensors digits.W")


def test_unexpected_tensor(folder):
    rewrite_tensors(folder, lambda state: state.update(extra=torch.zeros(3)))
    expect_error(folder, str(folder / "model.safetensors"), "unexpected tensors extra")


def test_tensor_of_the_wrong_shape(folder):
    rewrite_tensors(folder, lambda state: state.update({"decoder.4.bias": torch.zeros(100)}))
    expect_error(folder, str(folder / "model.safetensors"), "decoder.4.bias has shape [100]", "implies [784]")


def test_non_finite_tensor(folder):
    def poison(state):
        state["conv1.bias"][3] = float("nan")

    rewrite_tensors(folder, poison)
    expect_error(folder, str(folder / "model.safetensors"), "conv1.bias holds NaN")


def fake_hub_cache(cache: Path, repo_id: str, files: dict[str, Path]) -> None:
    """The layout hf_hub_download leaves behind: refs/main names a snapshot holding the files."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    for name, source in files.items():
        shutil.copy(source, snapshot / name)


@pytest.fixture
def offline_hub(tmp_path, monkeypatch) -> Path:
    """HF_HUB_OFFLINE=1 with an empty cache of our own: the Hub is only what the test puts there."""
    cache = tmp_path / "hub-cache"
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    return cache


def test_hub_repo_id_offline_without_cache(offline_hub):
    expect_error("someone/capsnet", "someone/capsnet", "config.json", "model.safetensors")


def test_hub_repo_id_from_the_cache(offline_hub, saved):
    fake_hub_cache(
        offline_hub, "someone/capsnet", {name: saved / name for name in ("config.json", "model.safetensors")}
    )
    model = load_model("someone/capsnet")
    assert not model.training
    reference = CapsNet.from_pretrained(saved)
    for name, tensor in model.state_dict().items():
        assert torch.equal(tensor, reference.state_dict()[name]), name


def test_hub_repo_with_only_pickle_weights_is_refused(offline_hub, saved, tmp_path):
    torch.save(load_file(saved / "model.safetensors"), tmp_path / "pytorch_model.bin")
    fake_hub_cache(
        offline_hub,
        "someone/capsnet",
        {"config.json": saved / "config.json", "pytorch_model.bin": tmp_path / "pytorch_model.bin"},
    )
    expect_error("someone/capsnet", "someone/capsnet", "model.safetensors")


@pytest.mark.parametrize(
    "networks", [[("capsnet", "digits")], [("cnn", "digits")], [("capsnet", "pairs"), ("cnn", "pairs")]], ids=str
)
def test_a_fix_names_the_commands_that_train_the_page_its_networks(tmp_path, monkeypatch, networks):
    """Each command parses with train.py's own flags and passes its checks where the weights are
    missing (what the fix is for), and trains the network it is named for into the folder the page reads."""
    monkeypatch.chdir(tmp_path)
    commands = re.findall(r"`python train\.py ([^`]*)`", served_fix(*networks))
    assert len(commands) == len(networks)
    for (model, task), command in zip(networks, commands, strict=True):
        options = train.parse_args(shlex.split(command))
        train.check_flags(options, world=1)
        assert (options.model, options.task, options.out) == (model, task, SERVED_BY[model, task].folder)
        assert options.init_from == (SERVED_BY[model, "digits"].folder if task == "pairs" else None)
