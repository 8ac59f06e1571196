"""The drawing pad: a canvas on the page that sends its strokes as one small JSON value, and
here, that value checked and turned back into ink. A pad may have several pens (the Two-digits
section draws one digit over another with two): each stroke is drawn in its pen's colour, and the
server gets each pen's ink apart.

The page side (drawing_pad.js, drawing_pad.css) runs in a gr.HTML component: strokes are drawn
with pointer events (mouse, pen or finger), kept on the page, and sent while a stroke is drawn and
when it ends. Its value:

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
from playground.views import paper, png_data_url

SIDE = 280  # the pad's coordinates run over 0..SIDE on both axes: 10 units an MNIST pixel
BRUSH = 20  # stroke width in pad units, a fourteenth of the pad, like a pen on paper
LIVE_MS = 100  # the page sends the stroke being drawn at most this often
MAX_STROKES = 500  # far beyond any digit: a 4 takes 2 strokes, a scribble a few dozen
MAX_POINTS = 20_000  # over all strokes; a digit drawn slowly takes a few hundred
SPAN_STEP = 8  # `stroke_mask` rounds a segment's rows up to a multiple of this, to span those of a height together
PAIRS_AT_ONCE = 2**15  # (segment, row) pairs `stroke_mask` spans at once: float64 arrays of 256 KiB
ROUNDING = 1 / 16  # `stroke_mask` weighs a pixel exactly where its centre lies this near a span's end: pad units
TANGENT_SLACK = 1e-9  # squared pad units a row may pass beyond a pen's round end and still be spanned: rounding's size
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
            js_on_load=page_modules.mounted("drawing_pad.js"),
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
        stroke_mask(mask, *pen_strokes)
        layers.append(np.where(mask, np.float32(1), layer))
    return np.stack(layers)


def stroke_mask(mask: np.ndarray, *strokes: np.ndarray) -> None:
    """Mark in ``mask`` [SIDE, SIDE] the pixels whose centre (column + 0.5, row + 0.5) lies within
    BRUSH / 2 of one of ``strokes`` (each [n, 2], a dot for one point), each as `_pixel_inked`
    weighs it, at a cost of the rows the segments cover rather than the pixels.

    A segment's ink, every point within BRUSH / 2 of it, is convex: a round-ended capsule. So each
    row it covers holds one span of inked columns, whose ends `_capsule_span` finds analytically.
    Rounding parts those ends from the exact formula's by far less than ROUNDING (at most a few
    thousandths of a pixel, where a nearly level side crosses a row at a glancing angle); so the
    pixels between the ends are ink and those beyond them are not, but for a pixel whose centre
    lies within ROUNDING of an end, which `_span_end` weighs exactly. The spans are counted into a
    difference array a row (+1 at a span's first column, -1 past its last), whose running sums
    are the ink.

    The segments are spanned SPAN_STEP rows at a time (a segment's rows rounded up to a multiple
    of it), those of a height together, PAIRS_AT_ONCE (segment, row) pairs at once."""
    if not strokes:
        return
    radius = BRUSH / 2
    starts, ends = (np.concatenate(parts) for parts in zip(*map(_segments, strokes), strict=True))  # [k, 2] (x, y)
    first = np.clip(np.floor(np.minimum(starts[:, 1], ends[:, 1]) - radius), 0, SIDE).astype(int)  # [k] first row
    past = np.clip(np.ceil(np.maximum(starts[:, 1], ends[:, 1]) + radius), 0, SIDE).astype(int)  # [k] the row past
    height = np.minimum(-(-(past - first) // SPAN_STEP) * SPAN_STEP, SIDE)  # [k] rounded-up rows
    top = np.minimum(first, SIDE - height)  # [k] the rounded-up rows' first, on the pad
    on_pad = past > first  # [k]
    changes = np.zeros(SIDE * (SIDE + 1), dtype=int)  # a row of SIDE + 1 a pad row: +1 a span starts, -1 past it
    for h in np.unique(height[on_pad]).tolist():
        group = np.flatnonzero(on_pad & (height == h))
        at_once = max(PAIRS_AT_ONCE // h, 1)
        for chunk in np.split(group, range(at_once, len(group), at_once)):
            (ax, ay), (bx, by) = starts[chunk].T[..., None], ends[chunk].T[..., None]  # each [n, 1]
            row = top[chunk, None] + np.arange(h)  # [n, h]
            y = row + 0.5  # [n, h] pixel centres
            lo, hi = _capsule_span(ax, ay, bx, by, y)  # [n, h] each
            start = np.clip(_span_end(lo, 1, y, ax, ay, bx, by), 0, SIDE)  # [n, h] first inked column
            stop = np.clip(_span_end(hi, -1, y, ax, ay, bx, by) + 1, start, SIDE)  # [n, h] the column past the last
            at = row * (SIDE + 1)  # [n, h] each row's place in `changes`
            np.add.at(changes, at + start.astype(int), 1)
            np.add.at(changes, at + stop.astype(int), -1)
    mask |= np.cumsum(changes.reshape(SIDE, SIDE + 1), axis=1)[:, :SIDE] > 0


def _segments(stroke: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The segments of ``stroke`` [n, 2]: their starts and ends, float64 [k, 2] (x, y) each; one
    point is a segment of no length, a dot."""
    points = stroke.astype(np.float64)
    return (points[:-1], points[1:]) if len(points) > 1 else (points, points)


def _pixel_inked(x: np.ndarray, y: np.ndarray, ax, ay, bx, by) -> np.ndarray:
    """Whether the point (x, y) lies within BRUSH / 2 of the segment from (ax, ay) to (bx, by),
    all broadcast together: the pen's definition, in the float64 operations page/stroke_mask.js
    repeats one by one."""
    dx, dy = bx - ax, by - ay
    squared_length = dx * dx + dy * dy
    along = ((x - ax) * dx + (y - ay) * dy) / np.where(squared_length == 0, 1, squared_length)  # 0 for a dot
    t = np.minimum(np.maximum(along, 0), 1)  # the nearest point's place on the segment
    ex, ey = x - (ax + t * dx), y - (ay + t * dy)  # from it
    return ex * ex + ey * ey <= (BRUSH / 2) * (BRUSH / 2)


def _capsule_span(ax, ay, bx, by, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the row of height ``y`` [n, h] enters and leaves the capsule of each segment (ax, ay)
    to (bx, by) (each [n, 1]): x from lo to hi (each [n, h]), inf and -inf where it misses.

    The capsule's edge is two half circles about the ends and two sides, the segment moved
    BRUSH / 2 along its normal; a row's span is the hull of where it crosses them: the circles'
    chords and the sides' crossings that lie between their ends."""
    radius = BRUSH / 2
    with np.errstate(divide="ignore", invalid="ignore"):  # NaN: a chord that misses; inf: a level side
        # (x - px)² + (y - py)² = r²  =>  x = px ± √(r² - (y - py)²); TANGENT_SLACK keeps a row that
        # rounding alone puts beyond an end's circle
        half_a = np.sqrt(radius * radius + TANGENT_SLACK - (y - ay) ** 2)  # [n, h]
        half_b = np.sqrt(radius * radius + TANGENT_SLACK - (y - by) ** 2)  # [n, h]
        lo, hi = np.fmin(ax - half_a, bx - half_b), np.fmax(ax + half_a, bx + half_b)  # [n, h] NaN if both miss
        dx, dy = bx - ax, by - ay  # [n, 1]
        length = np.sqrt(dx * dx + dy * dy)
        # the left side: the segment moved by r·n, n = (-|dy|, sign(dy)·dx) / length the unit
        # normal pointing to smaller x; the right side moved by -r·n
        shift_x, shift_y = -radius * np.abs(dy) / length, radius * np.sign(dy) * dx / length  # [n, 1]
        t_left = (y - (ay + shift_y)) / dy  # [n, h] where the row crosses the left side, 0..1 between its ends
        t_right = (y - (ay - shift_y)) / dy  # [n, h] the right side
        lo = np.fmin(lo, np.where((t_left >= 0) & (t_left <= 1), ax + shift_x + t_left * dx, np.inf))
        hi = np.fmax(hi, np.where((t_right >= 0) & (t_right <= 1), ax - shift_x + t_right * dx, -np.inf))
    return lo, hi


def _span_end(end: np.ndarray, step: int, y: np.ndarray, ax, ay, bx, by) -> np.ndarray:
    """The first (``step`` 1) or last (-1) inked column of the rows ``y`` [n, h] whose span starts
    or ends at x = ``end`` [n, h]: the first centre at or after it, or the last at or before it,
    but for a centre within ROUNDING of it, which `_pixel_inked` weighs (its neighbour inward is
    then the end if it is not ink). float [n, h], ±inf where the row misses."""
    place = end - 0.5  # [n, h] the end, in columns: column c's centre is at c + 0.5
    column = np.ceil(place) if step == 1 else np.floor(place)
    nearest = np.rint(place)
    with np.errstate(invalid="ignore"):  # inf - inf: a row the capsule misses
        doubtful = np.flatnonzero(np.abs(place - nearest) < ROUNDING)  # a centre about on the end
    segment = doubtful // end.shape[1]
    near = nearest.flat[doubtful]
    inked = _pixel_inked(near + 0.5, y.flat[doubtful], *(p.flat[segment] for p in (ax, ay, bx, by)))
    column.flat[doubtful] = np.where(inked, near, near + step)
    return column


def ink(drawing: Drawing) -> np.ndarray:
    """The drawing of a pad of one pen as ink, float32 [SIDE, SIDE] in [0, 1]."""
    return inks(drawing)[0]
