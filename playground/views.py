"""What the server draws and sends with: ink as a picture (black on white paper, as a PNG data URL:
the examples under the pads, the API's pictures), and ink and numbers as the page takes them in the
server's answers to its questions (`ink_base64`, `float32_base64`; answers.py).

Pictures go to the page inline, as PNG data URLs: a 28x28 PNG is a few hundred bytes, the browser
scales it up crisp (CSS `image-rendering: pixelated`), and nothing is written to disk or fetched in
a second request.
"""

import base64
import io

import numpy as np
import torch
from PIL import Image


def paper(ink: np.ndarray | torch.Tensor) -> np.ndarray:
    """uint8 pixels of ``ink`` in [0, 1] (MNIST's polarity) as black ink on white paper."""
    return 255 - np.rint(np.asarray(ink, dtype=np.float32).clip(0, 1) * 255).astype(np.uint8)


def upscaled(pixels: np.ndarray, scale: int) -> np.ndarray:
    """``pixels`` with each pixel a ``scale`` x ``scale`` block: crisp when shown large."""
    return pixels.repeat(scale, axis=0).repeat(scale, axis=1)


def png_data_url(pixels: np.ndarray) -> str:
    """A data URL of the uint8 picture ``pixels``, [H, W] grey or [H, W, 3] RGB, as PNG."""
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG", compress_level=1)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def ink_base64(ink: np.ndarray | torch.Tensor) -> str:
    """Ink in [0, 1] as the page draws it (playground/page/views.js ``inkOf``): its grey levels,
    one byte a pixel in base64; what its picture shows, in a quarter of float32's bytes."""
    levels = np.rint(np.asarray(ink, dtype=np.float32).clip(0, 1) * 255).astype(np.uint8)
    return base64.b64encode(levels.tobytes()).decode("ascii")


def float32_base64(values: np.ndarray | torch.Tensor) -> str:
    """``values`` as float32 little-endian in base64 (views.js ``floatsOf``): exact, and a third the
    length of the numbers written out."""
    return base64.b64encode(np.asarray(values, dtype="<f4").tobytes()).decode("ascii")
