"""A study's results file: the JSON it writes beside the weights it measured, read back and
checked against those weights (the SHA-256 of each network's, under WEIGHTS_SHA256), so that no
figure is shown for other weights, and turned into what its reader reads, so that an entry missing
or renamed fails where the file is read."""

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from capsnet.shipping.pretrained import WEIGHTS_FILE, WeightsError, read_json_object
from capsnet.shipping.saving import sha256

WEIGHTS_SHA256 = "weights_sha256"  # every results file's {network: the SHA-256 of its model.safetensors}
Read = TypeVar("Read")


class ResultsError(WeightsError):
    """A results file is missing, malformed or measured with other weights; the message names the
    file and the command that writes it again."""

    def __init__(self, problem: str, command: str):
        super().__init__(problem, f"Fix: {command} writes it for these weights.")
        self.command = command


def weights_sha256(folders: dict[str, str | Path]) -> dict[str, str]:
    """What a results file records under WEIGHTS_SHA256 for the networks in ``folders`` ({network: folder})."""
    return {network: sha256(Path(folder) / WEIGHTS_FILE) for network, folder in folders.items()}


def load_measured(path: str | Path, folders: dict[str, str | Path], command: str, read: Callable[[dict], Read]) -> Read:
    """``read`` of the results file at ``path``, once the file is checked against each network's
    weights in ``folders`` ({"capsnet": folder, "cnn": folder}).

    Args:
        command: the command that writes the file again, for the error's fix.
        read: what the caller reads, made from the file's JSON object; it raises KeyError, TypeError,
            ValueError or IndexError where an entry it needs is missing or malformed.

    Raises:
        ResultsError: the file is missing or not a JSON object, a network's model.safetensors is
            missing or is not the one whose SHA-256 the file records, or ``read`` fails.
    """
    path = Path(path)
    try:
        results = read_json_object(path, "results")
    except WeightsError as error:
        raise ResultsError(error.problem, command) from None
    hashes = results.get(WEIGHTS_SHA256)
    for network, folder in folders.items():
        weights = Path(folder) / WEIGHTS_FILE
        if not weights.is_file():
            raise ResultsError(f"{weights} is missing, so {path} cannot be checked against it", command)
        recorded = hashes.get(network) if isinstance(hashes, dict) else None
        if recorded != (actual := sha256(weights)):
            raise ResultsError(
                f"{path} was measured with other weights than {weights} (its {WEIGHTS_SHA256} "
                f"records {str(recorded)[:12]}…, the file is {actual[:12]}…)",
                command,
            )
    try:
        return read(results)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise ResultsError(
            f"{path} lacks what this code reads ({error.__class__.__name__}: {error})", command
        ) from None
