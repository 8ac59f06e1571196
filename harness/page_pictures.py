"""The playground's pictures read back as arrays: a PNG data URL, as the page shows it and the
server sends it, as ink in [0, 1] (`picture`), grey (`grey_picture`) or RGB (`rgb_picture`); a
panel's value's picture, as the page draws it (`value_picture`); and a pen's ink in an RGB
picture, its share of the pixels (`pen_pixels`). Read by the browser's drivers
(harness/pad_drivers.py, slider_drivers.py), the checks of the page's answers
(page_answer_checks.py) and the tests.
"""

import base64
import io

import numpy as np
from PIL import Image


def picture(source: str) -> np.ndarray:
    """A picture's PNG data URL as ink in [0, 1] (MNIST's polarity)."""
    return 1 - np.asarray(_image(source).convert("L"), dtype=np.float32) / 255


def grey_picture(source: str) -> np.ndarray:
    """A grey picture's PNG data URL as uint8 [h, w], as drawn (black ink on white: 0 is ink)."""
    return np.asarray(_image(source).convert("L"))


def rgb_picture(source: str) -> np.ndarray:
    """A picture's PNG data URL as uint8 RGB [h, w, 3]."""
    return np.asarray(_image(source).convert("RGB"))


def value_picture(levels: str) -> np.ndarray:
    """A picture of a panel's value (its ink's grey levels in base64, playground/views.ink_base64)
    as uint8 [28, 28], as the page draws it (black ink on white: 0 is ink)."""
    return 255 - np.frombuffer(base64.b64decode(levels), dtype=np.uint8).reshape(28, 28)


def _image(source: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(source.split(",", 1)[1])))


def pen_pixels(picture: np.ndarray, colour: str, tolerance: int = 8) -> float:
    """The share of a picture's pixels [h, w, 3] painted in ``colour`` ("#rrggbb"), up to
    ``tolerance`` in each channel (anti-aliasing, ink not quite full)."""
    rgb = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    return float((np.abs(picture.astype(int) - rgb).max(axis=-1) <= tolerance).mean())
