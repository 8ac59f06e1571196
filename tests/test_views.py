"""What the server's pictures and numbers are drawn and sent with: ink as black on white paper, and
ink and floats as the page takes them (views.js inkOf, floatsOf)."""

import base64
import io

import numpy as np
from PIL import Image

from playground import views


def decoded(data_url: str) -> np.ndarray:
    assert data_url.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1]))))


def test_a_picture_is_black_ink_on_white_paper_pixel_for_pixel():
    ink = np.zeros((28, 28), np.float32)
    ink[3, 5], ink[10, 10] = 1.0, 0.5
    pixels = decoded(views.png_data_url(views.paper(ink)))
    assert pixels.shape == (28, 28) and pixels[3, 5] == 0 and pixels[10, 10] == 127
    assert (pixels == 255).sum() == 28 * 28 - 2


def test_ink_goes_as_grey_levels_and_floats_exactly():
    ink = np.random.default_rng(0).random(784, dtype=np.float32)
    levels = np.frombuffer(base64.b64decode(views.ink_base64(ink)), np.uint8)
    assert np.abs(levels / 255 - ink).max() <= 0.5 / 255 + 1e-7
    assert views.ink_base64(np.array([-0.5, 1.5])) == base64.b64encode(bytes([0, 255])).decode()
    floats = np.frombuffer(base64.b64decode(views.float32_base64(ink * 3 - 1)), "<f4")
    np.testing.assert_array_equal(floats, ink * 3 - 1)
