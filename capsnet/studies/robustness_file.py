"""robustness.json, what `capsnet.studies.robustness` writes beside the CapsNet's weights, read
back and checked against both networks' weights: what the page's Turn-it section shows, without
the study's measuring code (which loads MNIST through torchvision)."""
from pathlib import Path

from capsnet.studies.results_file import load_measured

RESULTS_FILE = "robustness.json"


COMMAND = "python -m capsnet.studies.robustness --data-dir DATA --capsnet CAPSNET --cnn CNN"


def load_results(path: str | Path, capsnet_folder: str | Path, cnn_folder: str | Path) -> dict:
    """robustness.json, checked against the weights it was measured with.

    Raises:
        ResultsError: the file is missing or not a JSON object, or either network's
            model.safetensors is missing or is not the one whose SHA-256 the file records.
    """
    return load_measured(path, {"capsnet": capsnet_folder, "cnn": cnn_folder}, COMMAND, dict)
