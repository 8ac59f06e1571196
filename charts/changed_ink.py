"""The pairs networks under changed ink as a picture (assets/pairs_changed_ink.png in docs/pairs.md):
for each change of capsnet.studies.changed_ink, both networks' share of MNIST test pairs read both
right, each with its 95% interval, and the CapsNet's lead in points with its interval.

It reads changed_ink.json and draws it with PIL, measuring nothing.

    python -m charts.changed_ink                        # writes assets/pairs_changed_ink.png
"""

import argparse
import json
from pathlib import Path

from PIL import Image, ImageDraw

from capsnet.studies.changed_ink import CHANGES, RESULTS_FILE
from capsnet.studies.statistics import percent, points
from charts.canvas import CAPSNET, CNN, GRID, INK, font, titled_canvas
from harness.paths import REPO

OUT = REPO / "assets" / "pairs_changed_ink.png"
WIDTH, ROW, HEADER, FOOTER = 1100, 74, 110, 50
LABELS, PLOT_LEFT, PLOT_RIGHT = 20, 250, 820  # where the labels, and the bars from 40% to 100%, stand
LOW, HIGH = 0.4, 1.0  # the bars' scale
BAR = 22  # a bar's height


def x(share: float) -> float:
    return PLOT_LEFT + (share - LOW) / (HIGH - LOW) * (PLOT_RIGHT - PLOT_LEFT)


def bar(draw: ImageDraw.ImageDraw, top: float, measured: dict, colour: str) -> None:
    """One network's share as a bar from LOW, its 95% interval as a whisker, its figure beside."""
    middle = top + BAR / 2
    draw.rectangle([x(LOW), top, x(measured["share"]), top + BAR], fill=colour)
    draw.line([x(measured["low"]), middle, x(measured["high"]), middle], fill=INK, width=2)
    for end in ("low", "high"):
        draw.line([x(measured[end]), middle - 6, x(measured[end]), middle + 6], fill=INK, width=2)
    draw.text((x(measured["high"]) + 8, top + 2), percent(measured["share"]), fill=INK, font=font(18))


def changed_ink_chart(results: dict) -> Image.Image:
    changes = [name for name in CHANGES if name in results["changes"]]
    picture, draw = titled_canvas(
        (WIDTH, HEADER + ROW * len(changes) + FOOTER),
        "Two overlapping MNIST test digits, both read right, with the ink changed",
        (LABELS, 16),
        26,
    )
    draw.rectangle([LABELS, 62, LABELS + 24, 80], fill=CAPSNET)
    draw.text((LABELS + 32, 60), "pairs CapsNet", fill=INK, font=font(20))
    draw.rectangle([LABELS + 210, 62, LABELS + 234, 80], fill=CNN)
    draw.text((LABELS + 242, 60), "pairs CNN (95% intervals as whiskers)", fill=INK, font=font(20))
    draw.text((PLOT_RIGHT + 70, 60), "CapsNet's lead, points", fill=INK, font=font(20))
    bottom = HEADER + ROW * len(changes)
    for tick in (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        draw.line([x(tick), HEADER - 8, x(tick), bottom], fill=GRID, width=1)
        draw.text((x(tick) - 18, bottom + 8), percent(tick), fill=INK, font=font(16))
    for row, name in enumerate(changes):
        top = HEADER + ROW * row
        measured = results["changes"][name]
        draw.text((LABELS, top + 18), name, fill=INK, font=font(20))
        bar(draw, top + 4, measured["capsnet"]["pairs_both_right"], CAPSNET)
        bar(draw, top + 8 + BAR, measured["cnn"]["pairs_both_right"], CNN)
        draw.text((PLOT_RIGHT + 70, top + 18), points(measured["lead"]), fill=INK, font=font(20))
    return picture


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--results",
        default=f"weights/pairs/{RESULTS_FILE}",
        help=f"the measurement (default: weights/pairs/{RESULTS_FILE})",
    )
    p.add_argument("--out", default=str(OUT), help=f"the PNG to write (default: {OUT.relative_to(OUT.parent.parent)})")
    args = p.parse_args(argv)
    changed_ink_chart(json.loads(Path(args.results).read_text(encoding="utf-8"))).save(args.out, optimize=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
