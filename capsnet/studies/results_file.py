"""A study's results file: the JSON it writes beside the weights it measured, read back and
checked against those weights (their sha256), so that no figure is shown for other weights."""
import json
from collections.abc import Callable
from pathlib import Path

from capsnet.pretrained import WEIGHTS_FILE
from capsnet.saving import sha256


def load_measured(path: str | Path, folders: dict[str, str | Path], recorded: Callable[[dict, str], object],
                  error: type[Exception]) -> dict:
    """The results file at ``path``, checked against each network's weights in ``folders``
    ({"capsnet": folder, "cnn": folder}); ``recorded(results, network)`` is the sha256 the file
    records for that network.

    Raises:
        error: the file is missing or not a JSON object, or a network's model.safetensors is
            missing or is not the one whose sha256 the file records.
    """
    path = Path(path)
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path} is missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as problem:
        raise error(f"{path} cannot be read as JSON ({problem})") from None
    if not isinstance(results, dict):
        raise error(f"{path} holds no results (a JSON {type(results).__name__}, not an object)")
    for network, folder in folders.items():
        weights = Path(folder) / WEIGHTS_FILE
        if not weights.is_file():
            raise error(f"{weights} is missing, so {path} cannot be checked against it")
        expected = recorded(results, network)
        if expected != (actual := sha256(weights)):
            raise error(f"{path} was measured with other weights than {weights} (it records "
                        f"{str(expected)[:12]}…, the file is {actual[:12]}…)")
    return results
