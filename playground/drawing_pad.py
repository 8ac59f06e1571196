"""The drawing pad: a canvas on the page that sends its strokes as one small JSON value, and
here, that value checked and turned back into ink.

The page side (drawing_pad.js, drawing_pad.css) runs in a gr.HTML component: strokes are drawn
with pointer events (mouse, pen or finger), kept on the page, and sent while a stroke is drawn and
when it ends. Its value:

    {"strokes": ["x0 y0 x1 y1 ...", ...],       # pad units, 0..SIDE, each stroke BRUSH wide
     "background": base64 of 784 bytes or null, # an example digit under the strokes, 28x28 ink
     "revision": n,                              # counts the values the page has sent
     "drawing": true or false}                   # whether a stroke is still being drawn

Whatever arrives can be forged, so `parse` checks every part, bounded in size and time, before
anything is drawn.
"""
import base64
import numbers
from dataclasses import dataclass
from pathlib import Path

import gradio as gr
import numpy as np
from PIL import Image, ImageDraw

from playground.views import paper, png_data_url

SIDE = 280            # the pad's coordinates run over 0..SIDE on both axes: 10 units an MNIST pixel
BRUSH = 20            # stroke width in pad units, a fourteenth of the pad, like a pen on paper
LIVE_MS = 100         # the page sends the stroke being drawn at most this often
MAX_STROKES = 500     # far beyond any digit: a 4 takes 2 strokes, a scribble a few dozen
MAX_POINTS = 20_000   # over all strokes; a digit drawn slowly takes a few hundred
MAX_REVISION = 2**53  # the largest integer a page's JavaScript counts exactly
BACKGROUND_SIDE = 28  # an example digit is an MNIST image
KEYS = {"strokes", "background", "revision", "drawing"}
EMPTY = {"strokes": [], "background": None, "revision": 0, "drawing": False}

_HERE = Path(__file__).parent
TEMPLATE = """
<div class="pad">
  <div class="surface">
    <canvas aria-label="drawing pad: draw a digit here"></canvas>
    <div class="hint">Draw a digit here</div>
  </div>
  <div class="tools">
    <button type="button" class="undo">Undo</button>
    <button type="button" class="clear">Clear</button>
  </div>
  <div class="examples">
    <span>or start from an MNIST test digit</span>
    {examples}
  </div>
</div>
"""
EXAMPLE = ('<button type="button" class="example" title="MNIST test digit {digit}">'
           '<img src="{src}" alt="{digit}"></button>')


class DrawingError(ValueError):
    """The pad's value is not a drawing this module can read; the message says what is wrong."""


@dataclass(frozen=True)
class Drawing:
    """What is on the pad."""
    strokes: list[np.ndarray]        # each [n, 2], (x, y) in pad units
    background: np.ndarray | None    # uint8 [28, 28], ink = 255 (MNIST's polarity)
    revision: int
    drawing: bool                    # a stroke is still being drawn: more will follow


class DrawingPad(gr.HTML):
    """A canvas to draw a digit on with a mouse, a pen or a finger, with Undo, Clear, and example
    digits to start from; its change event fires while a stroke is drawn and when it ends.

    Args:
        examples: (digit, 28x28 uint8 ink) pairs shown under the pad.
    """

    def __init__(self, examples: list[tuple[int, np.ndarray]] = (), **kwargs):
        # The examples are written into the template rather than passed as props: Gradio's page
        # copies every prop on every change of the value (structuredClone), many times a second
        # while a stroke is drawn. The page reads an example's pixels back from its picture.
        buttons = "".join(EXAMPLE.format(digit=digit, src=png_data_url(paper(ink / 255)))
                          for digit, ink in examples)
        super().__init__(
            value=EMPTY, html_template=TEMPLATE.format(examples=buttons),
            css_template=(_HERE / "drawing_pad.css").read_text(encoding="utf-8"),
            js_on_load=(_HERE / "drawing_pad.js").read_text(encoding="utf-8"),
            apply_default_css=False, side=SIDE, brush=BRUSH, live_ms=LIVE_MS, max_points=MAX_POINTS,
            **kwargs)

    def api_info(self) -> dict:
        return {"type": "object", "properties": {
            "strokes": {"type": "array", "items": {"type": "string"}},
            "background": {"type": ["string", "null"]},
            "revision": {"type": "integer"}, "drawing": {"type": "boolean"}}}


def parse(value) -> Drawing:
    """The drawing in the pad's value, every part checked.

    Raises:
        DrawingError: the value is not an object of the pad's keys, a stroke is not a string of
            finite (x, y) pairs within 0..SIDE, there are more than MAX_STROKES strokes or
            MAX_POINTS points, or the background is not the base64 of 784 bytes.
    """
    if not isinstance(value, dict):
        raise DrawingError(f"expected the drawing pad's value, an object with keys {sorted(KEYS)}, "
                           f"got {type(value).__name__}")
    if value.keys() - KEYS:
        raise DrawingError(f"unknown keys {sorted(map(str, value.keys() - KEYS))}; the pad's value has "
                           f"keys {sorted(KEYS)}")
    revision = value.get("revision", 0)
    if not _is_integer(revision) or not 0 <= revision <= MAX_REVISION:
        raise DrawingError(f"the revision must be an integer in 0..2^53, got {revision!r:.40}")
    drawing = value.get("drawing", False)
    if not isinstance(drawing, bool):
        raise DrawingError(f"drawing must be true or false, got {drawing!r:.40}")
    return Drawing(_strokes(value.get("strokes", [])), _background(value.get("background")), int(revision),
                   drawing)


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
            raise DrawingError(f"each stroke must be a string of coordinates \"x0 y0 x1 y1 ...\", "
                               f"got {type(stroke).__name__}")
        numbers = stroke.split()
        if not numbers or len(numbers) % 2:
            raise DrawingError("each stroke must hold pairs of coordinates \"x0 y0 x1 y1 ...\", "
                               f"got {len(numbers)} numbers")
        points += len(numbers) // 2
        if points > MAX_POINTS:
            raise DrawingError(f"the strokes have more than the {MAX_POINTS} points a drawing may have")
        try:
            xy = np.array(numbers, dtype=np.float64).reshape(-1, 2)     # [n, 2]
        except ValueError:
            raise DrawingError(f"stroke coordinates must be numbers, got {stroke[:40]!r}") from None
        if not np.isfinite(xy).all():
            raise DrawingError("stroke coordinates must be finite numbers, not NaN or infinity")
        if xy.min() < 0 or xy.max() > SIDE:
            raise DrawingError(f"stroke coordinates must lie in 0..{SIDE}, got "
                               f"{xy.min():.6g}..{xy.max():.6g}")
        parsed.append(xy.astype(np.float32))
    return parsed


def _background(background) -> np.ndarray | None:
    if background is None:
        return None
    pixels = BACKGROUND_SIDE * BACKGROUND_SIDE
    wrong = DrawingError(f"the background must be null or the base64 of {pixels} bytes "
                         f"(a {BACKGROUND_SIDE}x{BACKGROUND_SIDE} digit's ink)")
    if not isinstance(background, str) or len(background) > 2 * pixels:
        raise wrong
    try:
        ink = base64.b64decode(background, validate=True)
    except ValueError:                  # binascii.Error, or characters that are not ASCII
        raise wrong from None
    if len(ink) != pixels:
        raise wrong
    return np.frombuffer(ink, dtype=np.uint8).reshape(BACKGROUND_SIDE, BACKGROUND_SIDE)


def ink(drawing: Drawing) -> np.ndarray:
    """The drawing as ink, float32 [SIDE, SIDE] in [0, 1]: the background scaled up, the strokes
    over it drawn as the page draws them (BRUSH wide, round ends and joins)."""
    if drawing.background is None:
        canvas = Image.new("L", (SIDE, SIDE), 0)
    else:
        canvas = Image.fromarray(drawing.background).resize((SIDE, SIDE), Image.Resampling.BILINEAR)
    draw = ImageDraw.Draw(canvas)
    radius = BRUSH / 2
    for stroke in drawing.strokes:
        points = [tuple(point) for point in stroke.tolist()]
        if len(points) > 1:
            draw.line(points, fill=255, width=BRUSH, joint="curve")
        for x, y in (points[0], points[-1]):                         # round ends
            draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=255)
    return np.asarray(canvas, dtype=np.float32) / 255

