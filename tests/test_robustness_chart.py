"""The picture of the CNN comparison (charts.robustness): each curve where its accuracy
is, and the shipped assets/robustness.png drawn from the shipped weights/robustness.json."""

import numpy as np
import pytest
from PIL import Image, ImageColor

from capsnet.shipping.saving import sha256
from capsnet.studies.robustness import SWEEPS
from charts import robustness
from charts.canvas import CAPSNET, CNN
from charts.robustness import SOURCE_KEY, plot_box, robustness_chart as chart
from harness.paths import REPO, WEIGHTS

SHIPPED = REPO / "assets" / "robustness.png"


def results(capsnet: float, cnn: float) -> dict:
    """robustness.json's shape with each network at one accuracy at every step."""
    paired = {"difference": capsnet - cnn, "low": capsnet - cnn - 0.01, "high": capsnet - cnn + 0.01}
    sweeps = {
        name: {
            "steps": [{"value": value, "capsnet": {"accuracy": capsnet}, "cnn": {"accuracy": cnn}} for value in values],
            "mean_paired": paired,
        }
        for name, (values, _) in SWEEPS.items()
    }
    return {
        "digit_count": 500,
        "sweeps": sweeps,
        "affnist": {"capsnet": {"accuracy": capsnet}, "cnn": {"accuracy": cnn}, "paired": paired, "images": 2000},
    }


def rows_of(picture: Image.Image, colour: str, box: tuple[int, int, int, int]) -> np.ndarray:
    """The rows, within ``box``'s plot, of the pixels of ``colour``."""
    left, top, right, bottom = box
    pixels = np.asarray(picture)[top - 4 : bottom + 5, left : right + 1]
    return np.nonzero((pixels == ImageColor.getrgb(colour)).all(axis=-1))[0] + top - 4


@pytest.mark.parametrize("capsnet, cnn", [(1.0, 0.0), (0.0, 1.0)])
def test_each_curve_is_drawn_at_its_accuracy_in_every_sweep(capsnet, cnn):
    picture = chart(results(capsnet, cnn))
    for index, _ in enumerate(SWEEPS):
        box = plot_box(index)
        _, top, _, bottom = box
        for colour, accuracy in ((CAPSNET, capsnet), (CNN, cnn)):
            rows = rows_of(picture, colour, box)
            assert rows.size > 100, f"chart {index}: no {colour} curve"
            assert np.abs(rows - (bottom - (bottom - top) * accuracy)).max() <= 3, f"chart {index}: {colour} misplaced"


def test_the_affnist_bars_are_as_long_as_the_accuracies():
    picture = chart(results(0.9, 0.45))
    left, _, right, _ = box = plot_box(len(SWEEPS))
    for colour, accuracy in ((CAPSNET, 0.9), (CNN, 0.45)):
        columns = np.nonzero(
            (np.asarray(picture)[box[1] : box[3], left : right + 1] == ImageColor.getrgb(colour)).all(axis=-1)
        )[1]
        assert abs(columns.max() - (right - left) * accuracy) <= 2


def test_the_shipped_picture_is_drawn_from_the_shipped_measurement():
    recorded = Image.open(SHIPPED).text.get(SOURCE_KEY)
    assert recorded == sha256(WEIGHTS / "robustness.json"), (
        "assets/robustness.png was drawn from another robustness.json: python -m charts.robustness"
    )


def test_the_command_draws_from_the_measurement_and_records_it(tmp_path):
    if not (WEIGHTS / "cnn" / "model.safetensors").exists():
        pytest.skip("no trained CNN baseline in weights/cnn: robustness.json cannot be checked against it")
    out = tmp_path / "robustness.png"
    robustness.main(["--out", str(out)])
    drawn = Image.open(out)
    assert drawn.size == Image.open(SHIPPED).size
    assert drawn.text[SOURCE_KEY] == sha256(WEIGHTS / "robustness.json")
