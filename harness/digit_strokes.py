"""Hand-drawn-like strokes of the ten digits, for the drawing-pad tests and the browser benchmark.

Each digit is one or two strokes through a few control points in a unit box (x right, y down),
smoothed by Catmull-Rom splines into points about as dense as a mouse or a finger gives them.
`strokes(digit, box)` places them in any box on the pad, so the same digit can be drawn large,
small, and anywhere; `overlapping_boxes` places two digits over each other, as in the Two-digits
section.
"""

import numpy as np
from PIL import Image, ImageDraw

from playground.drawing_pad import BRUSH, SIDE

CONTROL_POINTS = {
    0: [
        [
            (0.5, 0.03),
            (0.2, 0.2),
            (0.12, 0.5),
            (0.2, 0.82),
            (0.5, 0.97),
            (0.8, 0.82),
            (0.88, 0.5),
            (0.8, 0.18),
            (0.5, 0.03),
            (0.35, 0.08),
        ]
    ],
    1: [[(0.55, 0.03), (0.52, 0.5), (0.5, 0.97)]],
    2: [
        [
            (0.15, 0.28),
            (0.3, 0.08),
            (0.55, 0.03),
            (0.8, 0.15),
            (0.8, 0.4),
            (0.5, 0.7),
            (0.12, 0.95),
            (0.5, 0.93),
            (0.9, 0.95),
        ]
    ],
    3: [
        [
            (0.15, 0.15),
            (0.45, 0.03),
            (0.8, 0.12),
            (0.78, 0.35),
            (0.45, 0.48),
            (0.8, 0.6),
            (0.85, 0.82),
            (0.5, 0.97),
            (0.15, 0.88),
        ]
    ],
    4: [[(0.25, 0.03), (0.18, 0.4), (0.2, 0.6), (0.55, 0.6), (0.9, 0.58)], [(0.7, 0.05), (0.68, 0.5), (0.66, 0.97)]],
    5: [
        [
            (0.82, 0.04),
            (0.5, 0.05),
            (0.25, 0.06),
            (0.2, 0.45),
            (0.5, 0.38),
            (0.8, 0.52),
            (0.82, 0.78),
            (0.5, 0.96),
            (0.15, 0.88),
        ]
    ],
    6: [
        [
            (0.7, 0.03),
            (0.4, 0.25),
            (0.2, 0.6),
            (0.3, 0.92),
            (0.6, 0.96),
            (0.8, 0.75),
            (0.65, 0.55),
            (0.4, 0.55),
            (0.22, 0.7),
        ]
    ],
    7: [[(0.12, 0.06), (0.5, 0.05), (0.88, 0.06), (0.6, 0.5), (0.42, 0.97)]],
    8: [
        [
            (0.75, 0.15),
            (0.5, 0.03),
            (0.25, 0.15),
            (0.3, 0.35),
            (0.7, 0.6),
            (0.78, 0.85),
            (0.5, 0.97),
            (0.22, 0.85),
            (0.3, 0.6),
            (0.7, 0.35),
            (0.75, 0.15),
        ]
    ],
    9: [
        [
            (0.8, 0.25),
            (0.55, 0.04),
            (0.25, 0.15),
            (0.25, 0.42),
            (0.55, 0.5),
            (0.8, 0.3),
            (0.8, 0.2),
            (0.76, 0.6),
            (0.72, 0.97),
        ]
    ],
}
SPACING = 2.0  # pad units between successive points of a stroke
MARGIN = 8  # pad units between a digit and the pad's edge
PAIR_MOVE = 8 / 28  # the second digit of a pair moved from the first by up to this share of its box each
# way (as two MNIST digits each moved by up to 4 of their 28 pixels, as in MultiMNIST)


def _catmull_rom(points: np.ndarray, samples: int) -> np.ndarray:
    """``samples`` points along the Catmull-Rom spline through ``points`` [n, 2], ends included."""
    padded = np.vstack([points[:1], points, points[-1:]])  # [n + 2, 2]
    t = np.linspace(0, len(points) - 1, samples)
    segment = np.minimum(t.astype(int), len(points) - 2)
    u = (t - segment)[:, None]
    p0, p1, p2, p3 = (padded[segment + k] for k in range(4))
    return 0.5 * (2 * p1 + (p2 - p0) * u + (2 * p0 - 5 * p1 + 4 * p2 - p3) * u**2 + (3 * p1 - p0 - 3 * p2 + p3) * u**3)


def strokes(digit: int, left: float, top: float, width: float, height: float) -> list[list[float]]:
    """The strokes of ``digit`` in the box (left, top, width, height), in pad units: each a flat
    [x0, y0, x1, y1, ...], rounded to a tenth of a unit as the drawing pad rounds them."""
    drawn = []
    for control in CONTROL_POINTS[digit]:
        points = np.array(control) * [width, height] + [left, top]  # [n, 2]
        length = np.linalg.norm(np.diff(points, axis=0), axis=1).sum()
        smooth = _catmull_rom(points, max(int(length / SPACING), 2))
        drawn.append(np.round(smooth, 1).ravel().tolist())
    return drawn


def random_box(rng: np.random.Generator, pad_side: float) -> tuple[float, float, float, float]:
    """(left, top, width, height) of a digit between a third and nine tenths of the pad tall, as
    wide as 0.55 to 0.8 of its height, anywhere on the pad."""
    height = rng.uniform(pad_side / 3, 0.9 * pad_side)
    width = height * rng.uniform(0.55, 0.8)
    left = rng.uniform(MARGIN, pad_side - MARGIN - width)
    top = rng.uniform(MARGIN, pad_side - MARGIN - height)
    return left, top, width, height


def overlapping_boxes(rng: np.random.Generator, pad_side: float) -> tuple[tuple, tuple]:
    """Two boxes (left, top, width, height) for two digits drawn over each other: the same size,
    0.4 to 0.7 of the pad tall and 0.55 to 0.8 of that wide, the second moved from the first by up
    to PAIR_MOVE of the box across and down, both anywhere on the pad."""
    height = rng.uniform(0.4, 0.7) * pad_side
    width = height * rng.uniform(0.55, 0.8)
    dx, dy = (rng.uniform(-PAIR_MOVE, PAIR_MOVE, 2) * (width, height)).tolist()
    left = rng.uniform(MARGIN, pad_side - MARGIN - width - abs(dx)) + max(0.0, -dx)
    top = rng.uniform(MARGIN, pad_side - MARGIN - height - abs(dy)) + max(0.0, -dy)
    return (left, top, width, height), (left + dx, top + dy, width, height)


def pad_value(
    strokes: list[list[float]], revision: int = 1, background: str | None = None, drawing: bool = False
) -> dict:
    """The drawing pad's value for ``strokes``, the last one still being drawn if ``drawing``."""
    return {
        "strokes": [" ".join(f"{x:g}" for x in stroke) for stroke in strokes],
        "background": background,
        "revision": revision,
        "drawing": drawing,
    }


def inked(strokes: list[list[float]], pens: list[int] | None = None, count: int = 1) -> np.ndarray:
    """Each pen's ``strokes`` (flat [x0, y0, x1, y1, ...] in pad units; ``pens``: each stroke's pen,
    all 0 where not given) drawn BRUSH wide with round ends and joins by Pillow (a line, and a disc
    at every point): float32 [count, SIDE, SIDE] in [0, 1]. The page inks its own drawings
    (playground/page/inks.js); this, another drawing of the same strokes, is for the benchmarks
    and for checking the page's."""
    pads = [Image.new("L", (SIDE, SIDE), 0) for _ in range(count)]
    for stroke, pen in zip(strokes, pens or [0] * len(strokes), strict=True):
        points = [tuple(point) for point in np.reshape(stroke, (-1, 2)).tolist()]
        draw = ImageDraw.Draw(pads[pen])
        draw.line(points, fill=255, width=BRUSH, joint="curve")
        for x, y in points:
            draw.ellipse([x - BRUSH / 2, y - BRUSH / 2, x + BRUSH / 2, y + BRUSH / 2], fill=255)
    return np.stack([np.asarray(pad, dtype=np.float32) / 255 for pad in pads])
