"""The drawing pad: a canvas on the page, with Undo, Clear and examples to start from. A pad may
have several pens (the Two-digits section draws one digit over another with two): each stroke is
drawn in its pen's colour, and the page keeps each pen's ink apart.

The page side (drawing_pad.js, drawing_pad.css) runs in a gr.HTML component: strokes are drawn with
pointer events (mouse, pen or finger), kept on the page, and each drawing is published for the
pad's panel, which makes it 28x28 (playground/page/ink_to_mnist.js) and reads it; nothing is sent.
Its value, set by the page once a stroke ends, and by the server to lay a photo on the pad
(photo.py):

    {"strokes": ["x0 y0 x1 y1 ...", ...],       # pad units, 0..SIDE, each stroke BRUSH wide
     "background": base64 or null,              # an example under the strokes: 28x28 ink, 784 bytes a pen
     "revision": n,                              # counts the drawings the pad has published
     "drawing": false,
     "pens": "0110"}                             # a pad of several pens only: each stroke's pen
"""

import base64
import html
from dataclasses import dataclass
from pathlib import Path

import gradio as gr
import numpy as np

from playground import page_modules
from playground.views import paper, png_data_url

SIDE = 280  # the pad's coordinates run over 0..SIDE on both axes: 10 units an MNIST pixel
BRUSH = 20  # stroke width in pad units, a fourteenth of the pad, like a pen on paper
MAX_POINTS = 20_000  # over all strokes; a digit drawn slowly takes a few hundred
BACKGROUND_SIDE = 28  # an example digit is an MNIST image
EMPTY = {"strokes": [], "background": None, "revision": 0, "drawing": False}

_HERE = Path(__file__).parent
TEMPLATE = """
<div class="pad">
  <div class="surface">
    <canvas aria-label="drawing pad: {hint}"></canvas>
    <div class="hint">{hint}</div>
  </div>
  <div class="tools">
    {pens}
    <button type="button" class="undo">Undo</button>
    <button type="button" class="clear">Clear</button>
  </div>
  <div class="examples">
    <span>{examples_caption}</span>
    {examples}
  </div>
</div>
"""
PEN = (
    '<button type="button" class="pen" data-pen="{pen}" aria-pressed="{pressed}">'
    '<span class="swatch" style="background: {colour}"></span>Pen {number}</button>'
)
EXAMPLE = (
    '<button type="button" class="example" title="{title}" data-ink="{ink}"><img src="{src}" alt="{label}"></button>'
)
INK_COLOUR = "#000000"  # the one pen of a pad of one


@dataclass(frozen=True)
class Example:
    """An example to start from: its ink, one layer a pen, shown as ``picture`` on its button."""

    label: str  # the button's text for a screen reader: "7", "3 over 5"
    title: str  # its tooltip: "MNIST test digit 7"
    ink: np.ndarray  # uint8 [pens, 28, 28], 255 = ink
    picture: np.ndarray  # uint8 [28, 28] grey or [28, 28, 3] RGB, as the button shows it


def digit_example(digit: int, ink: np.ndarray) -> Example:
    """An MNIST digit (uint8 [28, 28] ink) as the example of a pad of one pen."""
    return Example(str(digit), f"MNIST test digit {digit}", ink[None], paper(ink / 255))


class DrawingPad(gr.HTML):
    """A canvas to draw a digit on with a mouse, a pen or a finger, with Undo, Clear, and examples
    to start from; the page publishes each drawing for the pad's panel (playground/page/drawing_pad.js).

    Args:
        examples: shown under the pad, each with as many ink layers as the pad has pens.
        colours: one CSS colour a pen ("#rrggbb"): a pad of one pen draws in black, one of several
            has a button for each pen.
        hint: what the empty pad says.
        examples_caption: what the examples' row says.
    """

    def __init__(
        self,
        examples: list[Example] = (),
        colours: tuple[str, ...] = (INK_COLOUR,),
        hint: str = "Draw a digit here",
        examples_caption: str = "or start from an MNIST test digit",
        **kwargs,
    ):
        # The examples are written into the template rather than passed as props: Gradio's page
        # copies every prop on every change of the value (structuredClone), many times a second
        # while a stroke is drawn. An example's ink travels as base64 in its button's data-ink.
        if any(example.ink.shape != (len(colours), BACKGROUND_SIDE, BACKGROUND_SIDE) for example in examples):
            raise ValueError(f"each example needs {len(colours)} ink layers of {BACKGROUND_SIDE}x{BACKGROUND_SIDE}")
        buttons = "".join(
            EXAMPLE.format(
                label=html.escape(example.label),
                title=html.escape(example.title),
                ink=base64.b64encode(example.ink.astype(np.uint8).tobytes()).decode(),
                src=png_data_url(example.picture),
            )
            for example in examples
        )
        pens = (
            ""
            if len(colours) == 1
            else "".join(
                PEN.format(pen=pen, number=pen + 1, colour=colour, pressed=str(pen == 0).lower())
                for pen, colour in enumerate(colours)
            )
        )
        super().__init__(
            value=EMPTY,
            html_template=TEMPLATE.format(
                examples=buttons, pens=pens, hint=html.escape(hint), examples_caption=html.escape(examples_caption)
            ),
            css_template=(_HERE / "drawing_pad.css").read_text(encoding="utf-8"),
            js_on_load=page_modules.mounted("drawing_pad.js"),
            apply_default_css=False,
            side=SIDE,
            brush=BRUSH,
            background_side=BACKGROUND_SIDE,
            max_points=MAX_POINTS,
            colours=list(colours),
            pad=kwargs.get("elem_id"),  # what the panels know the pad by (reading_store.js `drawings`)
            **kwargs,
        )
