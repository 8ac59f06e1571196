"""The drawing pad: a canvas on the page that sends its strokes as one small JSON value, and
here, that value checked and turned back into ink. A pad may have several pens (the Two-digits
section draws one digit over another with two): each stroke is drawn in its pen's colour, and the
server gets each pen's ink apart.

The page side (drawing_pad.js, drawing_pad.css) runs in a gr.HTML component: strokes are drawn
with pointer events (mouse, pen or finger), kept on the page, and sent while a stroke is drawn and
when it ends, as the component's "input" event, unless the page reads it itself: its value then
changes with no request, for the server's fallbacks to take as their input. Its value:

    {"strokes": ["x0 y0 x1 y1 ...", ...],       # pad units, 0..SIDE, each stroke BRUSH wide
     "background": base64 or null,              # an example under the strokes: 28x28 ink, 784 bytes a pen
     "revision": n,                              # counts the drawings the page has read or sent
     "drawing": true or false,                   # whether a stroke is still being drawn
     "pens": "0110"}                             # a pad of several pens only: each stroke's pen

Whatever arrives can be forged, so `parse` checks every part, bounded in size and time, before
anything is drawn.
"""

import base64
import html
import numbers
from dataclasses import dataclass
from pathlib import Path

import gradio as gr
import numpy as np
from PIL import Image

from playground import page_modules
from playground.stroke_mask import stroke_mask
from playground.views import paper, png_data_url

SIDE = 280  # the pad's coordinates run over 0..SIDE on both axes: 10 units an MNIST pixel
BRUSH = 20  # stroke width in pad units, a fourteenth of the pad, like a pen on paper
LIVE_MS = 100  # the page sends the stroke being drawn at most this often
MAX_STROKES = 500  # far beyond any digit: a 4 takes 2 strokes, a scribble a few dozen
MAX_POINTS = 20_000  # over all strokes; a digit drawn slowly takes a few hundred
MAX_REVISION = 2**53  # the largest integer a page's JavaScript counts exactly
BACKGROUND_SIDE = 28  # an example digit is an MNIST image
KEYS = {"strokes", "background", "revision", "drawing", "pens"}
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


class DrawingError(ValueError):
    """The pad's value is not a drawing this module can read; the message says what is wrong."""


@dataclass(frozen=True)
class Drawing:
    """What is on the pad."""

    strokes: list[np.ndarray]  # each [n, 2], (x, y) in pad units
    pens: tuple[int, ...]  # each stroke's pen, 0 .. pen count - 1
    background: np.ndarray | None  # uint8 [pens, 28, 28], each pen's ink, 255 = ink (MNIST's polarity)
    revision: int
    drawing: bool  # a stroke is still being drawn: more will follow


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
    to start from; its change event fires while a stroke is drawn and when it ends.

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
            js_on_load=page_modules.mounted("drawing_pad.js", events=("input",)),
            apply_default_css=False,
            side=SIDE,
            brush=BRUSH,
            background_side=BACKGROUND_SIDE,
            live_ms=LIVE_MS,
            max_points=MAX_POINTS,
            colours=list(colours),
            **kwargs,
        )

    def api_info(self) -> dict:
        return {
            "type": "object",
            "properties": {
                "strokes": {"type": "array", "items": {"type": "string"}},
                "background": {"type": ["string", "null"]},
                "revision": {"type": "integer"},
                "drawing": {"type": "boolean"},
                "pens": {"type": "string"},
            },
        }


def parse(value, pens: int = 1) -> Drawing:
    """The drawing in the value of a pad of ``pens`` pens, every part checked.

    Raises:
        DrawingError: the value is not an object of the pad's keys, a stroke is not a string of
            finite (x, y) pairs within 0..SIDE, there are more than MAX_STROKES strokes or
            MAX_POINTS points, the pens are not one digit 0 .. pens - 1 a stroke, or the
            background is not the base64 of 784 bytes a pen.
    """
    if not isinstance(value, dict):
        raise DrawingError(
            f"expected the drawing pad's value, an object with keys {sorted(KEYS)}, got {type(value).__name__}"
        )
    if value.keys() - KEYS:
        raise DrawingError(
            f"unknown keys {sorted(map(str, value.keys() - KEYS))}; the pad's value has keys {sorted(KEYS)}"
        )
    revision = value.get("revision", 0)
    if not _is_integer(revision) or not 0 <= revision <= MAX_REVISION:
        raise DrawingError(f"the revision must be an integer in 0..2^53, got {revision!r:.40}")
    drawing = value.get("drawing", False)
    if not isinstance(drawing, bool):
        raise DrawingError(f"drawing must be true or false, got {drawing!r:.40}")
    strokes = _strokes(value.get("strokes", []))
    return Drawing(
        strokes,
        _pens(value.get("pens", "0" * len(strokes)), len(strokes), pens),
        _background(value.get("background"), pens),
        int(revision),
        drawing,
    )


def _is_integer(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _strokes(strokes) -> list[np.ndarray]:
    if not isinstance(strokes, list):
        raise DrawingError(f"strokes must be a list of strokes, got {type(strokes).__name__}")
    if len(strokes) > MAX_STROKES:
        raise DrawingError(f"{len(strokes)} strokes is more than the {MAX_STROKES} a drawing may have")
    points, parsed = 0, []
    for stroke in strokes:
        if not isinstance(stroke, str):
            raise DrawingError(
                f'each stroke must be a string of coordinates "x0 y0 x1 y1 ...", got {type(stroke).__name__}'
            )
        numbers = stroke.split()
        if not numbers or len(numbers) % 2:
            raise DrawingError(
                f'each stroke must hold pairs of coordinates "x0 y0 x1 y1 ...", got {len(numbers)} numbers'
            )
        points += len(numbers) // 2
        if points > MAX_POINTS:
            raise DrawingError(f"the strokes have more than the {MAX_POINTS} points a drawing may have")
        try:
            xy = np.array(numbers, dtype=np.float64).reshape(-1, 2)  # [n, 2]
        except ValueError:
            raise DrawingError(f"stroke coordinates must be numbers, got {stroke[:40]!r}") from None
        if not np.isfinite(xy).all():
            raise DrawingError("stroke coordinates must be finite numbers, not NaN or infinity")
        if xy.min() < 0 or xy.max() > SIDE:
            raise DrawingError(f"stroke coordinates must lie in 0..{SIDE}, got {xy.min():.6g}..{xy.max():.6g}")
        parsed.append(xy.astype(np.float32))
    return parsed


def _pens(pens, strokes: int, count: int) -> tuple[int, ...]:
    if not isinstance(pens, str) or len(pens) != strokes or not set(pens) <= set("0123456789"[:count]):
        raise DrawingError(
            f"pens must be a string of one pen a stroke, each a digit 0..{count - 1}, for "
            f"{strokes} strokes, got {pens!r:.40}"
        )
    return tuple(map(int, pens))


def _background(background, pens: int) -> np.ndarray | None:
    if background is None:
        return None
    pixels = pens * BACKGROUND_SIDE * BACKGROUND_SIDE
    wrong = DrawingError(
        f"the background must be null or the base64 of {pixels} bytes "
        f"({pens} x a {BACKGROUND_SIDE}x{BACKGROUND_SIDE} digit's ink)"
    )
    if not isinstance(background, str) or len(background) > 2 * pixels:
        raise wrong
    try:
        ink = base64.b64decode(background, validate=True)
    except ValueError:  # binascii.Error, or characters that are not ASCII
        raise wrong from None
    if len(ink) != pixels:
        raise wrong
    return np.frombuffer(ink, dtype=np.uint8).reshape(pens, BACKGROUND_SIDE, BACKGROUND_SIDE)


def inks(drawing: Drawing, pens: int = 1) -> np.ndarray:
    """Each pen's ink, float32 [pens, SIDE, SIDE] in [0, 1]: its layer of the background scaled
    up (bilinear), its strokes over it as the page draws them, BRUSH wide with round ends and joins:
    a pixel is full ink where its centre lies within BRUSH / 2 of a stroke (`stroke_mask`). The
    page (playground/page/inks.js, stroke_mask.js) makes the same ink, number for number."""
    layers = []
    for pen in range(pens):
        if drawing.background is None:
            layer = np.zeros((SIDE, SIDE), dtype=np.float32)
        else:
            layer = (
                np.asarray(
                    Image.fromarray(drawing.background[pen]).resize((SIDE, SIDE), Image.Resampling.BILINEAR),
                    dtype=np.float32,
                )
                / 255
            )
        mask = np.zeros((SIDE, SIDE), dtype=bool)
        pen_strokes = [
            stroke for stroke, stroke_pen in zip(drawing.strokes, drawing.pens, strict=True) if stroke_pen == pen
        ]
        stroke_mask(mask, *pen_strokes, brush=BRUSH)
        layers.append(np.where(mask, np.float32(1), layer))
    return np.stack(layers)


def ink(drawing: Drawing) -> np.ndarray:
    """The drawing of a pad of one pen as ink, float32 [SIDE, SIDE] in [0, 1]."""
    return inks(drawing)[0]
