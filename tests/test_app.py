"""The app's event functions called directly, then its API through gradio_client."""
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

import app
from conftest import editor_value, label_of

OFFSETS = app.DIMENSIONS
ZEROS = [0.0] * OFFSETS


@pytest.fixture(scope="module")
def reading() -> app.Reading:
    return app.predict(editor_value(app.EXAMPLES[0]))[2]


def test_there_are_examples_of_every_digit():
    assert sorted(label_of(example) for example in app.EXAMPLES) == list(range(10))


@pytest.mark.parametrize("example", app.EXAMPLES, ids=lambda path: path.stem)
def test_predict_reads_the_examples_right(example):
    answer, reconstruction, reading = app.predict(editor_value(example))
    assert answer["digit"] == label_of(example) == reading.winner
    assert len(answer["lengths"]) == 10 and all(0 <= length <= 1 for length in answer["lengths"])
    assert int(np.argmax(answer["lengths"])) == answer["digit"]
    assert reconstruction.shape == (28 * app.PIXEL, 28 * app.PIXEL) and reconstruction.dtype == np.uint8
    assert reading.capsules.shape == (10, 16) and reading.image.shape == (28, 28)


def test_show_reading_shows_the_input_and_the_winner_and_resets_the_controls(reading):
    network_view, digit_html, bars_html, decode_as, *sliders = app.show_reading(reading)
    np.testing.assert_array_equal(network_view, app.picture(reading.image))
    assert f">{reading.winner}<" in digit_html
    assert f"{reading.lengths[reading.winner]:.3f}" in digit_html
    assert bars_html.count('class="bar winner"') == 1 and bars_html.count('class="bar"') == 9
    assert decode_as == app.WINNER
    assert sliders == ZEROS


def test_picture_is_black_ink_on_white_in_crisp_blocks():
    pixels = np.zeros((28, 28), dtype=np.float32)
    pixels[3, 5] = 1.0
    image = app.picture(pixels, scale=4)
    assert image.shape == (112, 112)
    assert (image[12:16, 20:24] == 0).all()
    assert (image == 0).sum() == 16 and (image[image != 0] == 255).all()


def test_perturb_with_zero_offsets_is_the_plain_reconstruction(reading):
    _, reconstruction, _ = app.predict(editor_value(app.EXAMPLES[0]))
    np.testing.assert_array_equal(app.perturb(reading, app.WINNER, *ZEROS), reconstruction)


def test_perturb_with_offsets_changes_the_reconstruction(reading):
    plain = app.perturb(reading, app.WINNER, *ZEROS).astype(int)
    for dimension in (0, OFFSETS - 1):
        offsets = [0.0] * OFFSETS
        offsets[dimension] = app.OFFSET_LIMIT
        moved = app.perturb(reading, app.WINNER, *offsets).astype(int)
        assert np.abs(moved - plain).max() > 0
    assert reading.capsules.abs().sum() > 0  # the Reading itself is left untouched
    np.testing.assert_array_equal(app.perturb(reading, app.WINNER, *ZEROS), plain)


def test_decode_as_another_digit_decodes_that_capsule(reading):
    other = (reading.winner + 1) % 10
    as_other = app.perturb(reading, str(other), *ZEROS)
    with torch.inference_mode():
        expected = app.MODEL.decode(reading.capsules[None], torch.tensor([other]))[0, 0]
    np.testing.assert_array_equal(as_other, app.picture(expected))
    assert np.abs(as_other.astype(int) - app.perturb(reading, app.WINNER, *ZEROS)).max() > 0
    assert app.decoded_digit(reading, app.WINNER) == reading.winner


def test_figure4_is_a_16_by_11_grid_whose_middle_column_is_the_reconstruction(reading):
    grid = app.draw_figure4(reading, app.WINNER)
    tile = (28 + 1) * app.FIGURE4_PIXEL
    assert grid.shape == (16 * tile, 11 * tile) and grid.dtype == np.uint8
    with torch.inference_mode():
        plain = app.MODEL.decode(reading.capsules[None], torch.tensor([reading.winner]))[0, 0]
    side = 28 * app.FIGURE4_PIXEL
    for row in (0, 15):
        middle = grid[row * tile:row * tile + side, 5 * tile:5 * tile + side]
        # The same decoder in a batch of 176 or of one: equal up to float rounding, one grey level.
        np.testing.assert_allclose(middle, app.picture(plain, app.FIGURE4_PIXEL), atol=1, rtol=0)
    other = str((reading.winner + 1) % 10)
    assert np.abs(app.draw_figure4(reading, other).astype(int) - grid).max() > 0


def test_reset_dimensions_zeroes_the_sliders_and_redraws(reading):
    *sliders, image = app.reset_dimensions(reading, "3")
    assert sliders == ZEROS
    np.testing.assert_array_equal(image, app.perturb(reading, "3", *ZEROS))


@pytest.mark.parametrize("empty", [
    None,
    {"background": None, "layers": [], "composite": None},
    {"background": np.full((448, 448, 4), 255, np.uint8), "layers": [],
     "composite": np.full((448, 448, 4), 255, np.uint8)},
    np.zeros((448, 448, 4), np.uint8),
], ids=["none", "no-images", "blank-white", "transparent"])
def test_an_empty_canvas_resets_every_output(empty):
    assert app.predict(empty) == (None, None, None)
    network_view, digit_html, bars_html, decode_as, *sliders = app.show_reading(None)
    assert network_view is None and "Draw a digit" in digit_html
    assert "bar winner" not in bars_html
    assert decode_as == app.WINNER and sliders == ZEROS
    assert app.draw_figure4(None, app.WINNER) is None
    assert app.reset_dimensions(None, app.WINNER) == (*ZEROS, None)


def test_sliders_before_any_drawing_warn_instead_of_failing():
    with pytest.warns(UserWarning, match="Draw a digit first"):
        assert app.perturb(None, app.WINNER, *ZEROS) is None


def test_an_unreadable_image_gives_a_message_not_an_exception():
    with pytest.warns(UserWarning, match="Cannot read this image"):
        assert app.predict(np.zeros((8, 8, 7), np.uint8)) == (None, None, None)


@pytest.fixture(scope="module")
def client():
    from gradio_client import Client

    from app_server import serving_app

    with serving_app() as url:
        assert url.startswith("http://127.0.0.1:")
        yield Client(url, verbose=False)


def api_sketch(example: Path) -> dict:
    from gradio_client import handle_file

    return {"background": handle_file(str(example)), "layers": [], "composite": handle_file(str(example))}


def test_api_offers_exactly_predict_and_perturb(client):
    assert set(client.view_api(print_info=False, return_format="dict")["named_endpoints"]) == {
        "/predict", "/perturb"}
    for private in ("/show_reading", "/draw_figure4", "/reset_dimensions", "/load_example"):
        with pytest.raises(ValueError):
            client.predict(api_name=private)


def test_api_predict_then_perturb_in_one_session(client):
    example = app.EXAMPLES[7]
    answer, reconstruction_file = client.predict(api_sketch(example), api_name="/predict")
    assert answer["digit"] == label_of(example)
    assert len(answer["lengths"]) == 10
    reconstruction = np.asarray(Image.open(reconstruction_file))
    assert reconstruction.shape == (28 * app.PIXEL, 28 * app.PIXEL)

    unmoved = np.asarray(Image.open(client.predict(app.WINNER, *ZEROS, api_name="/perturb")))
    np.testing.assert_array_equal(unmoved, reconstruction)
    moved = np.asarray(Image.open(client.predict(app.WINNER, *[0.2] * OFFSETS, api_name="/perturb")))
    assert np.abs(moved.astype(int) - reconstruction).max() > 0
    as_other = np.asarray(Image.open(client.predict("0", *ZEROS, api_name="/perturb")))
    assert np.abs(as_other.astype(int) - reconstruction).max() > 0


def test_api_rejects_offsets_out_of_range_with_a_message(client):
    from gradio_client.exceptions import AppError

    client.predict(api_sketch(app.EXAMPLES[2]), api_name="/predict")
    with pytest.raises(AppError, match="maximum"):
        client.predict(app.WINNER, *[0.9] * OFFSETS, api_name="/perturb")
