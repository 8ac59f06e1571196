"""What the server's views are drawn with: ink as a picture (black on white paper, as a PNG data
URL), the bars of ten capsule lengths, and the panel that says why a view shows nothing; and ink
and numbers as the page's renderers take them (`ink_base64`, `float32_base64`). The views
themselves: reading_views, figure4_views, turn_views (numbers the page draws), two_digit_views;
the components whose value is such numbers, `NumbersView`.

Pictures go to the page inline, as PNG data URLs inside HTML: a 28x28 PNG is a few hundred bytes,
the browser scales it up crisp (CSS `image-rendering: pixelated`), and nothing is written to disk
or fetched in a second request. Everything one event changes is one piece of HTML, so the page
updates one component per event: each of Gradio's output components costs the browser work
per event, whatever it shows.
"""

import base64
import html
import io

import gradio as gr
import numpy as np
import torch
from PIL import Image


class NumbersView(gr.HTML):
    """A panel the page draws from numbers: its value is a dict of them (the server's, where the
    page cannot compute) or None, which the API describes as such."""

    def api_info(self) -> dict:
        return {"anyOf": [{"type": "object"}, {"type": "null"}]}


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


def lengths_svg(
    lengths: np.ndarray,
    winner: int | None,
    label: str = "lengths of the digit capsules",
    marked: dict[int, str] | None = None,
    line: float | None = None,
) -> str:
    """A bar chart of the capsule lengths (or any ten numbers in [0, 1]) in digit order, the
    winner highlighted; ``label`` says what they are. ``marked``: digits whose bars are drawn in
    their own CSS colour; ``line``: a dashed line across at that height."""
    step = 300 / len(lengths)
    bars = []
    for digit, length in enumerate(np.asarray(lengths, dtype=float)):
        x, height, middle = 8 + step * digit, 100 * length, 8 + step * digit + (step - 8) / 2
        colour = "bar winner" if digit == winner else "bar"
        fill = f' style="fill: {marked[digit]}"' if marked and digit in marked else ""
        bars.append(
            f'<rect class="{colour}"{fill} x="{x:.1f}" y="{112 - height:.1f}" width="{step - 8:.1f}" '
            f'height="{height:.1f}" rx="2"/>'
            f'<text x="{middle:.1f}" y="128" class="axis">{digit}</text>'
            f'<text x="{middle:.1f}" y="{108 - height:.1f}" class="value">{length:.2f}</text>'
        )
    return (
        f'<svg class="lengths" viewBox="0 0 310 134" role="img" aria-label="{html.escape(label)}">'
        '<line x1="4" x2="306" y1="112.5" y2="112.5" class="baseline"/>'
        + (
            ""
            if line is None
            else f'<line x1="4" x2="306" y1="{112 - 100 * line:.1f}" y2="{112 - 100 * line:.1f}" class="threshold"/>'
        )
        + f"{''.join(bars)}</svg>"
    )


def ink_base64(ink: np.ndarray | torch.Tensor) -> str:
    """Ink in [0, 1] as the page draws it (playground/page/views.js ``inkOf``): its grey levels,
    one byte a pixel in base64; what its picture shows, in a quarter of float32's bytes."""
    levels = np.rint(np.asarray(ink, dtype=np.float32).clip(0, 1) * 255).astype(np.uint8)
    return base64.b64encode(levels.tobytes()).decode("ascii")


def float32_base64(values: np.ndarray | torch.Tensor) -> str:
    """``values`` as float32 little-endian in base64 (views.js ``floatsOf``): exact, and a third the
    length of the numbers written out."""
    return base64.b64encode(np.asarray(values, dtype="<f4").tobytes()).decode("ascii")


def message_panel(text: str) -> str:
    """A view (the reading panel, Figure 4, the routing view) saying why it shows nothing."""
    return f'<div class="panel message" role="alert">{html.escape(text)}</div>'
