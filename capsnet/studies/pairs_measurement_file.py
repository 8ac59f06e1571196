"""pairs.json, what `capsnet.studies.pairs_measurement` writes beside the pairs CapsNet's weights,
read back and checked against both pairs networks' weights, with the paper's MultiMNIST figures it
is set beside: what the page's Two-digits section shows (`PairFigures`), without the study's
measuring code (which loads MNIST through torchvision)."""

from dataclasses import dataclass
from pathlib import Path

from capsnet.digit_count import CountRule
from capsnet.studies.results_file import load_measured
from capsnet.studies.statistics import Difference

RESULTS_FILE = "pairs.json"
PAPER = {"capsnet_error": 0.050, "cnn_error": 0.081, "frame_overlap": 0.80}
COMMAND = "python -m capsnet.studies.pairs_measurement --data-dir DATA --capsnet CAPSNET --cnn CNN"


@dataclass(frozen=True)
class PairFigures:
    """What the page shows of pairs.json; shares are fractions."""

    test_pairs: int  # the MNIST test pairs both networks read
    capsnet_both_right: float  # the share of them whose two digits the CapsNet names
    cnn_both_right: float
    lead: Difference  # CapsNet − CNN, both right
    unrouted_both_right: float  # the CapsNet with 1 routing iteration
    unrouted_gain: Difference  # ... against the routing it trained with
    redrawn_error: float  # the share of a digit's ink its own capsule's redrawing misses
    overlay_error: float  # ... and the whole overlay's
    semeion_pairs_right: float  # Semeion's digits laid in pairs: the CapsNet's strongest digits right
    semeion_singles_right: float  # ... and alone
    mnist_singles_counted: float  # MNIST's single test digits the CapsNet counts right (one)
    mnist_pairs_counted: float  # ... and its test pairs (two)
    rule: CountRule  # where the CapsNet reads a second digit
    cnn_rule: CountRule  # where the CNN does


def read_figures(results: dict) -> PairFigures:
    """The PairFigures in pairs.json's object."""
    capsnet, people = results["capsnet"], results["people"]
    unrouted = {row["iterations"]: row for row in capsnet["by_routing_iterations"]}[1]

    def capsnet_share(examples: str, measure: str) -> float:
        return float(people["capsnet"][examples][measure]["share"])

    return PairFigures(
        int(results["test_pairs"]),
        float(capsnet["both_right"]),
        float(results["cnn"]["both_right"]),
        Difference.of(results["lead"]),
        float(unrouted["both_right"]),
        Difference.of(unrouted["gain"]),
        float(capsnet["redrawn_error"]),
        float(capsnet["overlay_error"]),
        capsnet_share("semeion_pairs", "strongest_right"),
        capsnet_share("semeion_singles", "strongest_right"),
        capsnet_share("mnist_singles", "count_right"),
        capsnet_share("mnist_pairs", "count_right"),
        CountRule.from_record(people["capsnet"]["count"]),
        CountRule.from_record(people["cnn"]["count"]),
    )


def load_results(path: str | Path, capsnet_folder: str | Path, cnn_folder: str | Path) -> dict:
    """pairs.json, checked against the two pairs networks' weights it was measured with.

    Raises:
        ResultsError: the file is missing or not a JSON object, or a network's model.safetensors is
            missing or is not the one whose SHA-256 the file records.
    """
    return load_measured(path, {"capsnet": capsnet_folder, "cnn": cnn_folder}, COMMAND, dict)


def load_figures(path: str | Path, capsnet_folder: str | Path, cnn_folder: str | Path) -> PairFigures:
    """What the page shows of pairs.json, checked as load_results checks it; ResultsError where an
    entry is missing."""
    return load_measured(path, {"capsnet": capsnet_folder, "cnn": cnn_folder}, COMMAND, read_figures)
