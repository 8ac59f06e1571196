"""robustness.json, what `capsnet.studies.robustness` writes beside the CapsNet's weights, read
back and checked against both networks' weights: what the page's Turn-it section shows
(`RobustnessFigures`), without the study's measuring code (which loads MNIST through torchvision)."""

from dataclasses import dataclass
from pathlib import Path

from capsnet.studies.results_file import load_measured
from capsnet.studies.statistics import Difference

RESULTS_FILE = "robustness.json"


@dataclass(frozen=True)
class RobustnessFigures:
    """What the page shows of robustness.json; accuracies are fractions."""

    digit_count: int  # the MNIST test digits both networks read, changed alike
    angles: tuple[float, ...]  # the rotation sweep's steps, degrees
    capsnet_turned: tuple[float, ...]  # the CapsNet's accuracy at each step
    cnn_turned: tuple[float, ...]  # the CNN's
    turned_lead: Difference  # CapsNet − CNN, the mean over the steps
    capsnet_unchanged: float  # the accuracy on the digits unchanged
    cnn_unchanged: float
    affnist_images: int  # changed at random within affNIST's ranges
    affnist_ranges: tuple[tuple[str, float, float], ...]  # each change's name, lowest and highest
    capsnet_affnist: float  # the accuracy on those images
    cnn_affnist: float
    affnist_lead: Difference  # CapsNet − CNN on them


def read_figures(results: dict) -> RobustnessFigures:
    """The RobustnessFigures in robustness.json's object."""
    rotation, affnist, clean = results["sweeps"]["rotation"], results["affnist"], results["untransformed"]
    if not rotation["steps"]:
        raise ValueError("the rotation sweep has no steps")

    def turned(network: str) -> tuple[float, ...]:
        return tuple(float(step[network]["accuracy"]) for step in rotation["steps"])

    return RobustnessFigures(
        int(results["digit_count"]),
        tuple(float(step["value"]) for step in rotation["steps"]),
        turned("capsnet"),
        turned("cnn"),
        Difference.of(rotation["mean_paired"]),
        float(clean["capsnet"]["accuracy"]),
        float(clean["cnn"]["accuracy"]),
        int(affnist["images"]),
        tuple((name, float(low), float(high)) for name, (low, high) in affnist["ranges"].items()),
        float(affnist["capsnet"]["accuracy"]),
        float(affnist["cnn"]["accuracy"]),
        Difference.of(affnist["paired"]),
    )


def command(capsnet_folder: str | Path, cnn_folder: str | Path) -> str:
    """The command that measures these two networks and writes robustness.json beside the CapsNet's weights."""
    return f"python -m capsnet.studies.robustness --data-dir DATA --capsnet {capsnet_folder} --cnn {cnn_folder}"


def load_results(path: str | Path, capsnet_folder: str | Path, cnn_folder: str | Path) -> dict:
    """robustness.json, checked against the weights it was measured with.

    Raises:
        ResultsError: the file is missing or not a JSON object, or either network's
            model.safetensors is missing or is not the one whose SHA-256 the file records.
    """
    return load_measured(
        path, {"capsnet": capsnet_folder, "cnn": cnn_folder}, command(capsnet_folder, cnn_folder), dict
    )


def load_figures(path: str | Path, capsnet_folder: str | Path, cnn_folder: str | Path) -> RobustnessFigures:
    """What the page shows of robustness.json, checked as load_results checks it; ResultsError where an
    entry is missing."""
    return load_measured(
        path, {"capsnet": capsnet_folder, "cnn": cnn_folder}, command(capsnet_folder, cnn_folder), read_figures
    )
