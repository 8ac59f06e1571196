"""Every network the page reads with, and what was measured about them, loaded in one place as the
app starts (`load`), each through the library, its convolutions packed for reading on the CPU
(capsnet/shipping/packed.py: a reading takes about half the time).

The environment names where each comes from, a folder (or a Hugging Face Hub repo id):

    CAPSNET_WEIGHTS            the CapsNet (default `weights`), whose decoder the page also redraws
                               with (its graph: page_network.py); beside it the measured names of its
                               dimensions (dimensions.json) and the robustness measurement
                               (robustness.json, made with both networks)
    CAPSNET_CNN_WEIGHTS        the CNN baseline that reads beside it in the Turn-it section (`weights/cnn`)
    CAPSNET_PAIRS_WEIGHTS      the networks trained on two overlapping digits, for the Two-digits
    CAPSNET_PAIRS_CNN_WEIGHTS  section (`weights/pairs`, `weights/pairs-cnn`); beside the CapsNet
                               the pairs measurement (pairs.json)

A Space made by `python -m playground.publish` holds no weights: its playground/published.json
names, for each variable, the model repo and the revision its README.md preloads (a Space's
variables are set in its settings, not in its files), which a variable set still overrides. A Hub
repo is read from its local snapshot, downloaded where missing (`capsnet.shipping.pretrained`), and
each network's graphs from its onnx/ where they are published there, else exported
(`capsnet.shipping.published_graphs`; which graphs: page_graphs.py).

A CapsNet or CNN that cannot be loaded stops the app with WeightsError's message, which names the
file and the fix. Without the pairs networks the app still starts, and the Two-digits section says
why; without the names the sliders are numbered; without a measurement (its file missing, made
for other weights, or lacking an entry the page shows: each checked as the app starts) its
section says why, naming the file and the command that writes it again.
"""

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from capsnet.baseline import BaselineCNN
from capsnet.model import CapsNet
from capsnet.shipping.packed import pack_convolutions
from capsnet.shipping.pretrained import (
    SERVED_BY,
    WeightsError,
    load_model,
    load_pair_networks,
    local_folder,
    served_fix,
)
from capsnet.studies import pairs_measurement_file, robustness_file
from capsnet.studies.dimension_names_file import DimensionNames, load_dimension_names
from capsnet.studies.pairs_measurement_file import PairFigures
from capsnet.studies.results_file import ResultsError
from capsnet.studies.robustness_file import RobustnessFigures

log = logging.getLogger("playground")
PUBLISHED = Path(__file__).with_name("published.json")  # a published Space's {variable: "owner/name@revision"}


@dataclass(frozen=True)
class Measurement:
    """What the page shows of a study's results file for the weights it reads with, or why there is none."""

    results: PairFigures | RobustnessFigures | None  # read where the file is, checked against the weights
    why_not: str = ""  # where results is None: what is wrong (the study's error, without its fix)
    command: str = ""  # where results is None: the command that measures these weights (the error's fix)


@dataclass(frozen=True)
class PairNetworks:
    """The CapsNet and the CNN trained on pairs and pairs.json measured on them; or why they cannot
    be loaded (``problem``: which file, and how to train them)."""

    capsnet: CapsNet | None
    cnn: BaselineCNN | None
    measurement: Measurement | None  # None without the networks
    problem: str | None = None
    folders: tuple[str, str] | None = None  # the local folders of the CapsNet and the CNN; None without them


@dataclass(frozen=True)
class Networks:
    """What the page reads with."""

    weights: str  # the local folder the CapsNet came from
    capsnet: CapsNet
    cnn_weights: str  # the local folder the CNN baseline came from
    cnn: BaselineCNN
    names: DimensionNames | None  # the measured names of the CapsNet's dimensions, or None
    robustness: Measurement  # robustness.json, for the CapsNet and the CNN
    pairs: PairNetworks


def published_source(variable: str, default: str) -> str:
    """The environment's ``variable``, else the repo published.json names for it, else ``default``."""
    published = json.loads(PUBLISHED.read_text(encoding="utf-8")) if PUBLISHED.is_file() else {}
    return os.environ.get(variable, published.get(variable, default))


def served(model: str, task: str) -> str:
    """Where the page takes the weights of ``model`` on ``task`` from: its environment variable,
    else the model repo published.json names for it, else its folder."""
    return published_source(*SERVED_BY[model, task])


def served_folder(model: str, task: str) -> str:
    """The local folder of `served`'s weights (a Hub repo's snapshot, downloaded where missing).

    Raises:
        WeightsError: neither a folder nor a repo whose files can be had; the fix for that network.
    """
    try:
        return str(local_folder(served(model, task)))
    except WeightsError as error:
        raise WeightsError(error.problem, served_fix((model, task))) from None


def load_cnn(source: str) -> BaselineCNN:
    """The CNN baseline that reads beside the CapsNet, in eval mode.

    Raises:
        WeightsError: as load_model's, with the CNN's own fix (CAPSNET_CNN_WEIGHTS, not CAPSNET_WEIGHTS).
    """
    try:
        return load_model(source, BaselineCNN)
    except WeightsError as error:
        raise WeightsError(error.problem, served_fix(("cnn", "digits"))) from None


def dimension_names(weights: str) -> DimensionNames | None:
    """The measured names of the dimensions shipped beside the weights, or None (plain numbered
    sliders) where there are none for these weights."""
    try:
        return load_dimension_names(weights)
    except ResultsError as error:
        log.warning("The sliders are numbered, not named: %s", error)
        return None


def robustness_results(capsnet_weights: str, cnn_weights: str) -> Measurement:
    """robustness.json beside the CapsNet's weights, checked against both networks' weights."""
    try:
        return Measurement(
            robustness_file.load_figures(
                Path(capsnet_weights) / robustness_file.RESULTS_FILE, capsnet_weights, cnn_weights
            )
        )
    except ResultsError as error:
        log.warning("The Turn-it section shows no measurement over MNIST: %s", error)
        return Measurement(None, error.problem, error.command)


def pairs_results(capsnet_weights: str, cnn_weights: str) -> Measurement:
    """pairs.json beside the pairs CapsNet's weights, checked against both pairs networks' weights."""
    try:
        path = Path(capsnet_weights) / pairs_measurement_file.RESULTS_FILE
        return Measurement(pairs_measurement_file.load_figures(path, capsnet_weights, cnn_weights))
    except ResultsError as error:
        log.warning("The Two-digits section shows no measurement: %s", error)
        return Measurement(None, error.problem, error.command)


def pair_networks(capsnet_weights: str, cnn_weights: str) -> PairNetworks:
    """The pairs networks in these folders (or Hub repos) and their measurement; without them, why
    and how to train them."""
    try:
        folders = str(local_folder(capsnet_weights)), str(local_folder(cnn_weights))
        capsnet, cnn = load_pair_networks(*folders)
    except WeightsError as error:
        problem = str(WeightsError(error.problem, served_fix(("capsnet", "pairs"), ("cnn", "pairs"))))
        log.warning("The Two-digits section cannot read: %s", problem)
        return PairNetworks(None, None, None, problem)
    measurement = pairs_results(*folders)
    return PairNetworks(pack_convolutions(capsnet), pack_convolutions(cnn), measurement, folders=folders)


def load() -> Networks:
    """Every network the page reads with, from where the environment says (the module's docstring).

    Raises:
        WeightsError: the CapsNet or the CNN baseline cannot be loaded.
    """
    weights, cnn_weights = served_folder("capsnet", "digits"), served_folder("cnn", "digits")
    return Networks(
        weights,
        pack_convolutions(load_model(weights)),
        cnn_weights,
        pack_convolutions(load_cnn(cnn_weights)),
        dimension_names(weights),
        robustness_results(weights, cnn_weights),
        pair_networks(served("capsnet", "pairs"), served("cnn", "pairs")),
    )
