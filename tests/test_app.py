"""The app's sections and the server's answers called directly, then its API through gradio_client."""

import numpy as np
import pytest
from PIL import Image

from harness.digit_strokes import pad_value, strokes
from playground.dimensions_section import PAPER, SPREAD
from playground.reading import EXAMPLES as PAGE_EXAMPLES, WINNER, example_ink
from tests.support.examples import EXAMPLES, example_pixels, label_of

ZEROS = [0.0] * 16


def panel_digit(panel: dict) -> int | None:
    """The digit a reading panel's value shows, None where it shows no reading."""
    return panel.get("winner")


def alert(panel: dict) -> str:
    """What a panel's value says is wrong, "" where nothing is."""
    return panel.get("message", "")


def drawn(digit: int, revision: int = 1, drawing: bool = False) -> dict:
    return pad_value(strokes(digit, 70, 30, 140, 220), revision, drawing=drawing)


@pytest.fixture(scope="module")
def reading(app):
    return app.READING.read_drawing(drawn(7))[0]


def test_there_are_examples_of_every_digit(app):
    assert sorted(label_of(example) for example in PAGE_EXAMPLES) == list(range(10))
    for example in PAGE_EXAMPLES:
        digit, ink = example_ink(example)
        assert digit == label_of(example) and ink.shape == (28, 28) and ink.dtype == np.uint8


@pytest.mark.parametrize("example", PAGE_EXAMPLES, ids=lambda path: path.stem)
def test_the_server_reads_an_example_s_28x28_as_its_digit(app, example):
    """Where the page cannot, the server reads the 28x28 the page made (answers.py `read`)."""
    digit, ink = example_ink(example)
    answer = app.ANSWERS.read({"image": (ink / 255).flatten().tolist(), "routed": False})
    assert int(np.argmax(answer["lengths"])) == digit and "routing" not in answer


@pytest.mark.parametrize("digit", [3, 7])
def test_the_sliders_are_named_and_ordered_by_measured_effect(app, digit):
    if app.NETWORKS.names is None:
        pytest.skip("no weights/dimensions.json for these weights")
    rows = app.CAPSULE_DIMENSIONS.rows(digit, PAPER)
    effects = [app.NETWORKS.names.paper[digit][row["dimension"]].effect for row in rows]
    assert effects == sorted(effects, reverse=True)
    names = app.NETWORKS.names
    assert rows[0]["label"] == f"d{rows[0]['dimension'] + 1}: {names.paper[digit][rows[0]['dimension']].name}"
    for row in app.CAPSULE_DIMENSIONS.rows(digit, SPREAD):
        assert row["limit"] == pytest.approx(names.spread_range * names.sd[digit][row["dimension"]], abs=1e-4)


def test_the_page_gets_every_digit_s_rows_over_each_range_once(app):
    digit_rows = app.CAPSULE_DIMENSIONS.digit_rows()
    assert list(digit_rows) == list(app.CAPSULE_DIMENSIONS.ranges)
    for scale, rows in digit_rows.items():
        assert rows == [app.CAPSULE_DIMENSIONS.rows(digit, scale) for digit in range(10)]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.stem)
def test_predict_reads_the_examples_right(app, example):
    answer, reconstruction, reading = app.READING.predict(example_pixels(example))
    assert answer["digit"] == label_of(example) == reading.winner
    assert len(answer["lengths"]) == 10 and int(np.argmax(answer["lengths"])) == answer["digit"]
    assert reconstruction.shape == (280, 280) and reconstruction.dtype == np.uint8


def test_perturb_moves_the_reconstruction_of_the_last_reading(app):
    _, reconstruction, reading = app.READING.predict(example_pixels(EXAMPLES[0]))
    np.testing.assert_array_equal(app.READING.perturb(reading, WINNER, *ZEROS), reconstruction)
    assert np.abs(app.READING.perturb(reading, WINNER, 0.25, *ZEROS[1:]).astype(int) - reconstruction).max() > 0
    assert np.abs(app.READING.perturb(reading, "3", *ZEROS).astype(int) - reconstruction).max() > 0


def test_perturb_before_predict_warns(app):
    with pytest.warns(UserWarning, match="Read a digit first"):
        assert app.READING.perturb(None, WINNER, *ZEROS) is None


@pytest.mark.server
def test_api_offers_exactly_predict_perturb_and_predict_pair(client):
    api = client.view_api(print_info=False, return_format="dict")
    assert set(api["named_endpoints"]) == {"/predict", "/perturb", "/predict_pair"}
    assert api["unnamed_endpoints"] == {}


@pytest.mark.server
def test_api_predict_an_image_file_then_perturb_in_one_session(client):
    from gradio_client import handle_file

    example = EXAMPLES[7]
    answer, reconstruction_file = client.predict(handle_file(str(example)), api_name="/predict")
    assert answer["digit"] == label_of(example) and len(answer["lengths"]) == 10
    reconstruction = np.asarray(Image.open(reconstruction_file))
    assert reconstruction.shape == (280, 280)
    unmoved = np.asarray(Image.open(client.predict("winner", *ZEROS, api_name="/perturb")))
    np.testing.assert_array_equal(unmoved, reconstruction)
    moved = np.asarray(Image.open(client.predict("winner", *[0.2] * 16, api_name="/perturb")))
    assert np.abs(moved.astype(int) - reconstruction).max() > 0


@pytest.mark.server
def test_api_rejects_offsets_out_of_range_with_a_message(client):
    from gradio_client import handle_file
    from gradio_client.exceptions import AppError

    client.predict(handle_file(str(EXAMPLES[2])), api_name="/predict")
    with pytest.raises(AppError, match="maximum"):
        client.predict("winner", *[0.9] * 16, api_name="/perturb")
