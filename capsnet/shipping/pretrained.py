"""Load trained weights from a folder or a Hugging Face Hub repo, checking every file on the way.

Weights come only from model.safetensors (never a pickle such as pytorch_model.bin).
"""

import dataclasses
import json
import os
import re
from pathlib import Path
from typing import NamedTuple

import torch
import torch.nn as nn
from huggingface_hub import snapshot_download
from huggingface_hub.errors import EntryNotFoundError, HFValidationError
from safetensors import SafetensorError, safe_open

from capsnet.baseline import BaselineCNN, BaselineConfig
from capsnet.model import CapsNet, CapsNetConfig

WEIGHTS_FILE = "model.safetensors"
CONFIG_FILE = "config.json"
# namespace/name, e.g. "user/capsnet-mnist", and @revision where it is pinned ("user/capsnet-mnist@0a1b2c...")
HUB_REPO_ID = re.compile(r"\b[\w.-]+\b/\b[\w.-]+\b(@[\w.-]+)?")
# What download fetches of a repo: the weights, config.json and the studies' results beside them
# (*.json), and the graphs a browser runs of them (onnx/: capsnet.shipping.published_graphs),
# but not their gzipped copies, which only a browser fetches
HUB_FILES = [WEIGHTS_FILE, "*.json", "onnx/*.onnx"]
NETWORKS = {"capsnet": CapsNet, "cnn": BaselineCNN}  # the commands' --model
CONFIGS = {CapsNet: CapsNetConfig, BaselineCNN: BaselineConfig}


class Served(NamedTuple):
    """Where the page takes one network's weights from."""

    variable: str  # the environment variable that names a folder or Hub repo id
    folder: str  # where they are without it


SERVED_BY = {  # (--model, --task): where the page takes those weights from
    ("capsnet", "digits"): Served("CAPSNET_WEIGHTS", "weights"),
    ("cnn", "digits"): Served("CAPSNET_CNN_WEIGHTS", "weights/cnn"),
    ("capsnet", "pairs"): Served("CAPSNET_PAIRS_WEIGHTS", "weights/pairs"),
    ("cnn", "pairs"): Served("CAPSNET_PAIRS_CNN_WEIGHTS", "weights/pairs-cnn"),
}


def train_command(model: str, task: str) -> str:
    """The command that trains the page's ``model`` for ``task`` into its default folder; a pairs
    network starts from the digits network of its kind, as the shipped ones did (their metrics.json)."""
    flags = ["--task pairs"] if task == "pairs" else []
    flags += [] if model == "capsnet" else [f"--model {model}"]
    flags += [f"--init-from {SERVED_BY[model, 'digits'].folder}"] if task == "pairs" else []
    return " ".join(["python train.py", *flags, "--data-dir DATA", f"--out {SERVED_BY[model, task].folder}"])


def served_fix(*networks: tuple[str, str]) -> str:
    """How to mend weights of the page's ``networks`` ((--model, --task) each) that cannot be loaded:
    the commands that train them, or the environment variables that point the page elsewhere."""
    commands = " and ".join(f"`{train_command(*network)}`" for network in networks)
    variables = " and ".join(SERVED_BY[network].variable for network in networks)
    held = "a folder or Hugging Face Hub repo id that holds" if len(networks) == 1 else "folders that hold"
    return (
        f"Fix: train {'a model' if len(networks) == 1 else 'them'} with {commands}, or set {variables} "
        f"to {held} {WEIGHTS_FILE} and {CONFIG_FILE}."
    )


FIX = served_fix(("capsnet", "digits"))  # load_model's


class WeightsError(RuntimeError):
    """The weights cannot be loaded; the message names the file and the fix (``problem``: the
    message without the fix)."""

    def __init__(self, problem: str, fix: str = FIX):
        self.problem = problem
        super().__init__(f"{problem}. {fix}")


def load_model(source: str | os.PathLike, network: type[nn.Module] = CapsNet) -> nn.Module:
    """A trained network in eval mode, from a local folder or a Hub repo id ("namespace/name").

    Args:
        source: a folder holding model.safetensors and config.json (what save_pretrained writes),
            or the id of a Hugging Face Hub model repo holding them.
        network: CapsNet, or BaselineCNN for the paper's CNN baseline.

    Raises:
        WeightsError: a file is missing, unreadable or does not match the network.
    """
    folder = local_folder(source)
    config_file, weights_file = folder / CONFIG_FILE, folder / WEIGHTS_FILE
    if not weights_file.is_file():
        raise WeightsError(f"{weights_file} is missing")
    config = read_config(config_file, CONFIGS[network])
    with torch.device("meta"):
        check_tensor_shapes(weights_file, network(config))
    try:
        model = network.from_pretrained(folder, strict=True, config=config)
    except (SafetensorError, RuntimeError) as error:
        raise WeightsError(f"{weights_file} cannot be loaded ({' '.join(str(error).split())})") from None
    for name, tensor in model.state_dict().items():
        if not torch.isfinite(tensor).all():
            raise WeightsError(f"{weights_file}: tensor {name} holds NaN or infinite values")
    return model.eval()


def local_folder(source: str | os.PathLike) -> Path:
    """The folder ``source`` names, or where it names a Hub repo ("namespace/name", or
    "namespace/name@revision"), the local snapshot of it (`download`).

    Raises:
        WeightsError: it is neither a folder nor a repo whose files can be had.
    """
    if not os.fspath(source):
        raise WeightsError("the weights folder is an empty path")
    folder = Path(source)
    if not folder.is_dir():
        if isinstance(source, os.PathLike) or not HUB_REPO_ID.fullmatch(source):
            raise WeightsError(f"weights folder {folder} does not exist")
        folder = download(source)
    return folder


def download(source: str) -> Path:
    """The local snapshot folder of the Hub repo ``source`` ("namespace/name", or with
    "@revision" at that revision), holding its HUB_FILES."""
    repo_id, _, revision = source.partition("@")
    try:
        folder = Path(snapshot_download(repo_id, revision=revision or None, allow_patterns=HUB_FILES))
    except (OSError, EntryNotFoundError, HFValidationError) as error:
        reason = str(error).splitlines()[0] if str(error) else error.__class__.__name__
        raise WeightsError(
            f"{source} is not a local folder, and its {CONFIG_FILE} and {WEIGHTS_FILE} "
            f"cannot be had from the Hugging Face Hub ({reason})"
        ) from None
    if missing := [name for name in (CONFIG_FILE, WEIGHTS_FILE) if not (folder / name).is_file()]:
        raise WeightsError(f"the Hub repo {source} holds no {' and no '.join(missing)}")
    return folder


def read_config(path: Path, config_class: type = CapsNetConfig):
    """The ``config_class`` in ``path``: exactly its keys, each a count (a positive integer, or a
    list of as many as the default has), a padding (0 allowed) or a dropout in [0, 1)."""
    values = read_json_object(path, f"{config_class.__name__} fields")
    defaults = {field.name: field.default for field in dataclasses.fields(config_class)}
    if missing := sorted(defaults.keys() - values.keys()):
        raise WeightsError(f"{path} lacks the keys {', '.join(missing)}")
    if unknown := sorted(values.keys() - defaults.keys()):
        raise WeightsError(f"{path} has unknown keys {', '.join(unknown)}")
    for key, value in values.items():
        least = 0 if key == "padding" else 1
        count = "a non-negative integer" if least == 0 else "a positive integer"
        default = defaults[key]
        if isinstance(default, float):
            valid, expected = is_number(value) and 0 <= value < 1, "a number in [0, 1)"
        elif isinstance(default, tuple):
            valid = (
                isinstance(value, list) and len(value) == len(default) and all(is_int(item, least) for item in value)
            )
            expected = f"a list of {len(default)} {count.removeprefix('a ')}s"
        else:
            valid, expected = is_int(value, least), count
        if not valid:
            raise WeightsError(f"{path}: {key} = {json.dumps(value)} is not {expected}")
    config = config_class(**values)
    side = config.primary_grid if isinstance(config, CapsNetConfig) else config.feature_side
    if side < 1:
        raise WeightsError(
            f"{path}: image_size {config.image_size} is too small for kernel_size "
            f"{config.kernel_size} (the convolutions leave no feature map)"
        )
    return config


def read_json_object(path: Path, holding: str) -> dict:
    """The JSON object in ``path`` (a file beside the weights: config.json, a study's results).

    Raises:
        WeightsError: the file is missing, unreadable, not JSON, or not an object (of ``holding``).
    """
    try:
        values = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WeightsError(f"{path} is missing") from None
    except OSError as error:
        raise WeightsError(f"{path} cannot be read ({error.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise WeightsError(f"{path} is not valid JSON ({error})") from None
    if not isinstance(values, dict):
        raise WeightsError(f"{path} must hold a JSON object of {holding}, not a JSON {type(values).__name__}")
    return values


def is_int(value, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_tensor_shapes(weights_file: Path, model_on_meta) -> None:
    """The file's tensors are exactly those of the network, shape for shape (read from the
    safetensors header, so a config that does not match allocates nothing)."""
    expected = {name: tuple(tensor.shape) for name, tensor in model_on_meta.state_dict().items()}
    try:
        with safe_open(weights_file, framework="pt") as f:
            found = {name: tuple(f.get_slice(name).get_shape()) for name in f.keys()}
    except SafetensorError as error:
        raise WeightsError(f"{weights_file} is corrupt or truncated ({error})") from None
    except OSError as error:
        raise WeightsError(f"{weights_file} cannot be read ({error.strerror})") from None
    if missing := sorted(expected.keys() - found.keys()):
        raise WeightsError(f"{weights_file} lacks the tensors {', '.join(missing)}")
    if unexpected := sorted(found.keys() - expected.keys()):
        raise WeightsError(f"{weights_file} has unexpected tensors {', '.join(unexpected)}")
    for name, shape in expected.items():
        if found[name] != shape:
            raise WeightsError(
                f"{weights_file}: tensor {name} has shape {list(found[name])} but "
                f"{weights_file.parent / CONFIG_FILE} implies {list(shape)}"
            )


def load_pair_networks(capsnet_folder, cnn_folder) -> tuple:
    """The pairs CapsNet and the pairs CNN, eval mode.

    Raises:
        WeightsError: a folder or file is missing or wrong; the message names it and how to train them.
    """
    try:
        return load_model(capsnet_folder), load_model(cnn_folder, BaselineCNN)
    except WeightsError as error:
        raise WeightsError(error.problem, served_fix(("capsnet", "pairs"), ("cnn", "pairs"))) from None
