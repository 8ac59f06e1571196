"""The server's CPU time to read and ink the costliest drawing the pad's limits accept, beside the
PIL code it replaced.

The drawing has MAX_POINTS points, each segment going across the whole pad, corner to opposite
corner and back: as one stroke, and as MAX_STROKES strokes. Each is read by drawing_pad.parse and
inked by drawing_pad.ink (stroke_mask: exact round-pen ink, a span a row a segment covers), then
by `pil_ink`, the code of commit fac78ab (PIL's ImageDraw.line), the two alternating run by run so
that a noisy machine slows both alike; one untimed run each first. The figure is the median.

    python -m bench.ink_cost --runs 5
"""

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import PIL
from PIL import Image, ImageDraw

from bench.train_throughput import cpu_model
from playground import drawing_pad
from playground.drawing_pad import BRUSH, MAX_POINTS, MAX_STROKES, SIDE, Drawing


def across_the_pad(points: int) -> str:
    """A stroke of ``points`` points from corner to opposite corner and back: "0 0 280 280 0 0 ..."."""
    return " ".join(f"{SIDE * (k % 2)} {SIDE * (k % 2)}" for k in range(points))


def pil_ink(drawing: Drawing) -> np.ndarray:
    """The ink of a pad of one pen as the code of commit fac78ab made it (`inks`, no background),
    for comparison only: PIL draws each stroke as a line BRUSH wide with round joins, and a dot
    BRUSH wide at either end. float32 [SIDE, SIDE] in [0, 1]."""
    canvas = Image.new("L", (SIDE, SIDE), 0)
    draw = ImageDraw.Draw(canvas)
    radius = BRUSH / 2
    for stroke in drawing.strokes:
        points = [tuple(point) for point in stroke.tolist()]
        if len(points) > 1:
            draw.line(points, fill=255, width=BRUSH, joint="curve")
        for x, y in (points[0], points[-1]):  # round ends
            draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=255)
    return np.asarray(canvas, dtype=np.float32) / 255


def cpu_seconds(value: dict, ink: Callable[[Drawing], np.ndarray]) -> float:
    """CPU seconds to read the pad's ``value`` and ink it."""
    start = time.process_time()
    ink(drawing_pad.parse(value))
    return time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5, help="timed runs of each drawing and each ink (default: 5)")
    args = p.parse_args(argv)

    print(f"numpy {np.__version__}, Pillow {PIL.__version__}, CPU: {cpu_model()}")
    drawings = {
        f"one stroke of {MAX_POINTS} points": [across_the_pad(MAX_POINTS)],
        f"{MAX_STROKES} strokes of {MAX_POINTS // MAX_STROKES} points": [across_the_pad(MAX_POINTS // MAX_STROKES)]
        * MAX_STROKES,
    }
    inks = {"stroke_mask": drawing_pad.ink, "fac78ab's PIL": pil_ink}
    for name, strokes in drawings.items():
        value = {"strokes": strokes}
        seconds = {ink_name: [] for ink_name in inks}
        for ink in inks.values():
            cpu_seconds(value, ink)  # untimed
        for _ in range(args.runs):
            for ink_name, ink in inks.items():
                seconds[ink_name].append(cpu_seconds(value, ink))
        medians = ", ".join(f"{ink_name} {statistics.median(s):.3f} s" for ink_name, s in seconds.items())
        print(f"{name}, each segment across the pad: {medians} (CPU, median of {args.runs})")


if __name__ == "__main__":
    main()
