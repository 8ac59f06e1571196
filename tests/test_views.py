"""What the playground shows: the reading panel's numbers, the pictures, Figure 4, the Two-digits
panel's empty and message values."""

import base64
import io
import json

import numpy as np
import torch
from PIL import Image

from playground import figure4_views, reading_views, two_digits_views, views


def decoded(data_url: str) -> np.ndarray:
    assert data_url.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1]))))


def test_a_picture_is_black_ink_on_white_paper_pixel_for_pixel():
    ink = np.zeros((28, 28), np.float32)
    ink[3, 5], ink[10, 10] = 1.0, 0.5
    pixels = decoded(views.png_data_url(views.paper(ink)))
    assert pixels.shape == (28, 28) and pixels[3, 5] == 0 and pixels[10, 10] == 127
    assert (pixels == 255).sum() == 28 * 28 - 2


def ink_of(base64_levels: str) -> np.ndarray:
    """The ink the page draws from a value's picture (views.ink_base64; views.js inkOf)."""
    return np.frombuffer(base64.b64decode(base64_levels), dtype=np.uint8).reshape(28, 28) / 255


def test_a_reading_s_numbers_are_what_the_panel_draws():
    """The page draws the panel from these: the digit read, the runner-up, the capsule decoded, the
    lengths, the three pictures within half a grey level, the capsules exactly, the decoder named."""
    generator = torch.Generator().manual_seed(0)
    lengths = np.linspace(0.05, 0.5, 10)
    lengths[4] = 0.93
    image, reconstruction, other = torch.rand(3, 28, 28, generator=generator)
    capsules = torch.randn(10, 16, generator=generator)
    value = reading_views.reading_numbers(
        image.numpy(), lengths, 4, reconstruction, 7, 12, True, 9, other, capsules, "decoder/0123.onnx"
    )
    assert json.loads(json.dumps(value)) == value  # what Gradio sends the page
    assert (value["revision"], value["settled"], value["winner"], value["runner_up"], value["decoded"]) == (
        12,
        True,
        4,
        9,
        7,
    )
    np.testing.assert_allclose(value["lengths"], lengths)
    for name, ink in (("image", image), ("reconstruction", reconstruction), ("runner_up_reconstruction", other)):
        np.testing.assert_allclose(ink_of(value[name]), ink.numpy(), atol=0.5 / 255 + 1e-6, err_msg=name)
        np.testing.assert_array_equal(views.paper(ink_of(value[name])), views.paper(ink), err_msg=name)
    carried = np.frombuffer(base64.b64decode(value["capsules"]), dtype="<f4").reshape(10, 16)
    np.testing.assert_array_equal(carried, capsules.numpy())
    assert value["decoder"] == "decoder/0123.onnx"


def test_no_reading_and_a_message_say_so():
    assert reading_views.no_reading(True) == {"revision": None, "settled": True}
    assert reading_views.message("Cannot read this drawing: no strokes") == {
        "message": "Cannot read this drawing: no strokes"
    }


def test_no_pair_and_a_pair_message_say_so():
    assert two_digits_views.no_pair() == {"revision": None}
    assert two_digits_views.pair_message("Cannot decode: no") == {"message": "Cannot decode: no"}


def test_figure4_has_a_strip_per_row_of_the_sweep_each_picture_a_faint_pixel_apart():
    images = torch.rand(16, 11, 28, 28, generator=torch.Generator().manual_seed(0))
    rows = [{"dimension": d, "label": f"d{d}", "limit": 0.25} for d in range(16)]
    value = figure4_views.figure4_value(4, 7, "paper", rows, images)
    assert (value["revision"], value["digit"], value["range"], value["rows"]) == (4, 7, "paper", rows)
    assert len(value["strips"]) == 16 and value["width"] == 11 * 29 - 1
    strip = decoded(value["strips"][5])
    assert strip.shape == (28, 11 * 29 - 1)
    np.testing.assert_array_equal(strip[:, 29 * 3 : 29 * 3 + 28], views.paper(images[5, 3]))
    np.testing.assert_array_equal(strip[:, 29 * 3 + 28], views.paper(np.full(28, figure4_views.GAP_INK)))
