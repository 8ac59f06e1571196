"""pairs.json, what `capsnet.studies.pairs_measurement` writes beside the pairs CapsNet's weights,
read back and checked against both pairs networks' weights, with the paper's MultiMNIST figures it
is set beside: what the page's Two-digits section shows, without the study's measuring code (which
loads MNIST through torchvision)."""
from capsnet.studies.results_file import load_measured

RESULTS_FILE = "pairs.json"
PAPER = {"capsnet_error": 0.050, "cnn_error": 0.081, "frame_overlap": 0.80}


COMMAND = "python -m capsnet.studies.pairs_measurement --data-dir DATA --capsnet CAPSNET --cnn CNN"


def load_results(path, capsnet_folder, cnn_folder) -> dict:
    """pairs.json, checked against the two pairs networks' weights it was measured with.

    Raises:
        ResultsError: the file is missing or not a JSON object, or a network's model.safetensors is
            missing or is not the one whose SHA-256 the file records.
    """
    return load_measured(path, {"capsnet": capsnet_folder, "cnn": cnn_folder}, COMMAND, dict)
