"""The CNN comparison under affine change as a picture (assets/robustness.png in docs/robustness.md):
one chart per sweep of robustness.json, both networks' accuracy at every step, as the Turn-it
section draws its rotation curve (the CapsNet solid in the page's accent, the CNN dashed in
orange), and a last panel with the affNIST-range changes.

It reads the measurement, checked against both networks' weights like `python -m
capsnet.studies.robustness --show`, and draws it with PIL, measuring nothing; the PNG records the sha256
of the robustness.json it was drawn from, so a test can tell when the two part ways.

    python -m charts.robustness                         # writes assets/robustness.png
"""

import argparse
import itertools
from pathlib import Path

from PIL import Image, ImageDraw
from PIL.PngImagePlugin import PngInfo

from capsnet.data.affine import SWEEPS
from capsnet.shipping.saving import sha256
from capsnet.studies.robustness_file import RESULTS_FILE, load_results
from capsnet.studies.statistics import percent, points
from charts.canvas import CAPSNET, CNN, GRID, INK, PAPER, font, titled_canvas
from harness.paths import REPO
from playground.transform_sliders import LABELS

OUT = REPO / "assets" / "robustness.png"
SOURCE_KEY = "robustness.json sha256"  # the PNG text chunk naming the file it was drawn from
COLUMNS, ROWS = 4, 2
CELL_WIDTH, CELL_HEIGHT = 400, 370  # a chart's cell, in pixels
HEADER = 120  # the title and the key above the charts
WIDTH, HEIGHT = COLUMNS * CELL_WIDTH + 16, HEADER + ROWS * CELL_HEIGHT  # a margin for the last tick
PLOT_LEFT, PLOT_RIGHT, PLOT_TOP, PLOT_BOTTOM = 76, 376, 92, 318  # the plot within its cell
LINE, DASH, GAP = 4, 14, 8  # curve width, the CNN's dashes and the gaps between them


def tick(value: float, unit: str) -> str:
    """ "-90°", "6px", "0", and a factor as "x1.5" (the page's "×1.5")."""
    return f"x{value:g}" if unit == "×" else f"{value:g}{unit}"


def lead(paired: dict) -> str:
    """ "CapsNet's lead: +0.9 [+0.1, +1.9] points"."""
    return f"CapsNet's lead: {points(paired)} points"


def plot_box(index: int) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the ``index``-th chart's plot, in the picture's pixels."""
    x, y = index % COLUMNS * CELL_WIDTH, HEADER + index // COLUMNS * CELL_HEIGHT
    return x + PLOT_LEFT, y + PLOT_TOP, x + PLOT_RIGHT, y + PLOT_BOTTOM


def dashed(draw: ImageDraw.ImageDraw, points: list[tuple[float, float]], colour: str) -> None:
    """A polyline through ``points`` in dashes of DASH pixels, GAP apart, along its whole length."""
    drawn_to, pen = 0.0, True  # how far along the current dash or gap we are, and whether it inks
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
        at = 0.0
        while at < length:
            step = min((DASH if pen else GAP) - drawn_to, length - at)
            if pen:
                start, end = at / length, (at + step) / length
                draw.line(
                    [(x0 + (x1 - x0) * start, y0 + (y1 - y0) * start), (x0 + (x1 - x0) * end, y0 + (y1 - y0) * end)],
                    fill=colour,
                    width=LINE,
                )
            at, drawn_to = at + step, drawn_to + step
            if drawn_to >= (DASH if pen else GAP):
                drawn_to, pen = 0.0, not pen


def sweep_chart(draw: ImageDraw.ImageDraw, index: int, name: str, sweep: dict) -> None:
    """Chart ``index``: each network's accuracy at every step of sweep ``name``, over 0 … 100%."""
    left, top, right, bottom = plot_box(index)
    label, _, unit = LABELS[name]
    title_x = left - PLOT_LEFT + 16
    draw.text((title_x, top - 80), label, fill=INK, font=font(24))
    draw.text((title_x, top - 48), lead(sweep["mean_paired"]), fill=INK, font=font(18))
    steps = sweep["steps"]
    values = [step["value"] for step in steps]

    def x(value: float) -> float:
        return left + (right - left) * (value - values[0]) / (values[-1] - values[0])

    def y(accuracy: float) -> float:
        return bottom - (bottom - top) * accuracy

    for accuracy in (0, 0.5, 1):
        draw.line([(left, y(accuracy)), (right, y(accuracy))], fill=GRID, width=2)
        draw.text((left - 8, y(accuracy)), f"{accuracy:.0%}", fill=INK, font=font(16), anchor="rm")
    for value in (values[0], values[len(values) // 2], values[-1]):
        draw.line([(x(value), top), (x(value), bottom)], fill=GRID, width=2)
        draw.text((x(value), bottom + 8), tick(value, unit), fill=INK, font=font(16), anchor="ma")
    dashed(draw, [(x(step["value"]), y(step["cnn"]["accuracy"])) for step in steps], CNN)
    draw.line(
        [(x(step["value"]), y(step["capsnet"]["accuracy"])) for step in steps], fill=CAPSNET, width=LINE, joint="curve"
    )


def affnist_chart(draw: ImageDraw.ImageDraw, index: int, affnist: dict) -> None:
    """Chart ``index``: both networks' accuracy on the random changes in affNIST's ranges, as bars."""
    left, top, right, bottom = plot_box(index)
    title_x = left - PLOT_LEFT + 16
    draw.text((title_x, top - 80), "affNIST's ranges, at random", fill=INK, font=font(24))
    draw.text((title_x, top - 48), lead(affnist["paired"]), fill=INK, font=font(18))
    for row, (network, colour) in enumerate((("CapsNet", CAPSNET), ("CNN", CNN))):
        accuracy = affnist[network.lower()]["accuracy"]
        bar_top = top + 30 + row * 90
        draw.rectangle([left, bar_top, left + (right - left) * accuracy, bar_top + 48], fill=colour)
        draw.text((left + 12, bar_top + 24), f"{network} {percent(accuracy)}", fill=PAPER, font=font(20), anchor="lm")
    draw.text((left, bottom), f"{affnist['images']:,} changed digits", fill=INK, font=font(16), anchor="lb")


def robustness_chart(results: dict) -> Image.Image:
    """robustness.json's sweeps, each network's accuracy at every step, and the affNIST-range changes."""
    picture, draw = titled_canvas(
        (WIDTH, HEIGHT),
        f"Both networks read the same {results['digit_count']} MNIST test digits, changed: accuracy",
        (16, 16),
        30,
    )
    for key_x, network, colour in ((16, "CapsNet", CAPSNET), (260, "CNN baseline", CNN)):
        line = [(key_x, 86), (key_x + 56, 86)]
        if colour == CAPSNET:
            draw.line(line, fill=colour, width=LINE)
        else:
            dashed(draw, line, colour)
        draw.text((key_x + 68, 86), network, fill=INK, font=font(22), anchor="lm")
    draw.text(
        (520, 86),
        "lead: its accuracy minus the CNN's, in points (a sweep's: of the mean over its steps), [95% interval]",
        fill=INK,
        font=font(18),
        anchor="lm",
    )
    names = [name for name in SWEEPS if name in results["sweeps"]]  # SWEEPS' order, not the file's
    for index, name in enumerate(names):
        sweep_chart(draw, index, name, results["sweeps"][name])
    affnist_chart(draw, len(names), results["affnist"])
    return picture


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description="Draw the CapsNet against the CNN under affine change "
        f"(docs/robustness.md) from {RESULTS_FILE}, measuring nothing."
    )
    p.add_argument("--capsnet", default="weights", help="the CapsNet's folder (default: weights)")
    p.add_argument("--cnn", default="weights/cnn", help="the CNN baseline's folder (default: weights/cnn)")
    p.add_argument("--results", default=None, help=f"the measurement (default: CAPSNET/{RESULTS_FILE})")
    p.add_argument("--out", type=Path, default=OUT, help="the PNG to write (default: assets/robustness.png)")
    args = p.parse_args(argv)
    source = Path(args.results) if args.results else Path(args.capsnet) / RESULTS_FILE
    results = load_results(source, args.capsnet, args.cnn)
    info = PngInfo()
    info.add_text(SOURCE_KEY, sha256(source))
    robustness_chart(results).save(args.out, optimize=True, pnginfo=info)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
