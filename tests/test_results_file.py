"""Each results file the page shows is checked and typed where it is read, as the app starts: an
entry renamed in it fails there, with a message that names the file and the command that writes it
again, and the page's section says so instead of a figure."""

import json
from pathlib import Path

import pytest

from capsnet.studies import pairs_measurement_file, robustness_file
from capsnet.studies.dimension_names_file import NAMES_FILE, load_dimension_names
from capsnet.studies.results_file import ResultsError
from harness.paths import WEIGHTS
from playground import networks


def read_pairs(capsnet: Path, cnn: Path):
    return pairs_measurement_file.load_figures(capsnet / pairs_measurement_file.RESULTS_FILE, capsnet, cnn)


def read_robustness(capsnet: Path, cnn: Path):
    return robustness_file.load_figures(capsnet / robustness_file.RESULTS_FILE, capsnet, cnn)


# file: the shipped weights' folders it was measured with (the first holds it), the study that
# writes it, its reader, and an entry the page reads (its keys, from the top)
FILES = {
    pairs_measurement_file.RESULTS_FILE: (
        ("pairs", "pairs-cnn"),
        "pairs_measurement",
        read_pairs,
        ("people", "capsnet", "semeion_pairs", "strongest_right"),
    ),
    robustness_file.RESULTS_FILE: (("", "cnn"), "robustness", read_robustness, ("sweeps", "rotation", "mean_paired")),
    NAMES_FILE: (("",), "dimension_names", load_dimension_names, ("spread_range_sd",)),
}


def measured_folders(tmp_path: Path, name: str) -> list[Path]:
    """A folder for each network the shipped file was measured with, its weights linked there,
    and the file copied beside the first."""
    folders = []
    for number, shipped in enumerate(FILES[name][0]):
        weights = WEIGHTS / shipped / "model.safetensors"
        if not weights.is_file():
            pytest.skip(f"no shipped weights in {weights.parent}")
        folders.append(tmp_path / f"network-{number}")
        folders[-1].mkdir()
        (folders[-1] / "model.safetensors").symlink_to(weights.resolve())
    (folders[0] / name).write_bytes((WEIGHTS / FILES[name][0][0] / name).read_bytes())
    return folders


@pytest.mark.parametrize("name", list(FILES))
def test_an_entry_renamed_fails_where_the_file_is_read_naming_it_and_the_command(tmp_path, name):
    folders = measured_folders(tmp_path, name)
    _, study, read, (*parents, renamed) = FILES[name]
    read(*folders)  # the shipped file reads
    path = folders[0] / name
    results = json.loads(path.read_text(encoding="utf-8"))
    entries = results
    for key in parents:
        entries = entries[key]
    entries[f"{renamed}_renamed"] = entries.pop(renamed)
    path.write_text(json.dumps(results), encoding="utf-8")
    with pytest.raises(ResultsError) as raised:
        read(*folders)
    message = str(raised.value)
    assert str(path) in message and repr(renamed) in message, message
    assert f"Fix: python -m capsnet.studies.{study} " in message, message


def test_the_page_says_which_file_lacks_an_entry_and_what_to_run(tmp_path):
    folders = measured_folders(tmp_path, pairs_measurement_file.RESULTS_FILE)
    path = folders[0] / pairs_measurement_file.RESULTS_FILE
    results = json.loads(path.read_text(encoding="utf-8"))
    del results["people"]["cnn"]["count"]
    path.write_text(json.dumps(results), encoding="utf-8")
    measurement = networks.pairs_results(*map(str, folders))
    assert measurement.results is None
    assert str(path) in measurement.why_not and "python -m capsnet.studies.pairs_measurement" in measurement.command
