"""robustness.json, what `capsnet.studies.robustness` writes beside the CapsNet's weights, read
back and checked against both networks' weights: what the page's Turn-it section shows, without
the study's measuring code (which loads MNIST through torchvision)."""
from pathlib import Path

from capsnet.studies.results_file import load_measured

RESULTS_FILE = "robustness.json"


class RobustnessResultsError(RuntimeError):
    """robustness.json is missing, unreadable or measured with other weights; says how to remake it."""

    def __init__(self, problem: str):
        super().__init__(f"{problem}. Fix: python -m capsnet.studies.robustness --data-dir DATA --capsnet CAPSNET "
                         "--cnn CNN writes it for these weights.")


def load_results(path: str | Path, capsnet_folder: str | Path, cnn_folder: str | Path) -> dict:
    """robustness.json, checked against the weights it was measured with.

    Raises:
        RobustnessResultsError: the file is missing or not JSON, or either network's
            model.safetensors is missing or is not the one whose sha256 the file records.
    """
    return load_measured(path, {"capsnet": capsnet_folder, "cnn": cnn_folder},
                         lambda results, network: results.get(f"{network}_weights_sha256"), RobustnessResultsError)
