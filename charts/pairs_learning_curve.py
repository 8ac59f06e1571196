"""The pairs networks' learning curves: validation pairs with both digits right against the pairs
(and, from the GPU run on, examples) each network has trained on, from the first CPU run through
the last, read from the runs' own metrics.json (each run's "earlier" holds the one it went on from).

The curve is MNIST's validation pairs of the 5,000 held-out training digits, the same pairs in
every run (`capsnet.data.pairs.fixed_pairs`, seed 1): the CPU runs chose their epochs on them
(val_accuracy); the runs on the written examples (`capsnet.data.written`) chose on written validation
examples and read these pairs beside them (val_mnist_pairs), drawn dashed from there on. Draws
assets/pairs_learning_curve.png with PIL and prints the curve at each run's end:

    python -m charts.pairs_learning_curve
"""

import argparse
import itertools
import json
import math
import re

from PIL import Image, ImageDraw

from charts.canvas import GRID, INK, font, titled_canvas
from harness.paths import REPO

OUT = REPO / "assets" / "pairs_learning_curve.png"
NETWORKS = {"CapsNet": ("weights/pairs", "#6366f1"), "CNN": ("weights/pairs-cnn", "#d95f02")}
WRITTEN = "#9ca3af"  # the written validation examples, both networks
WIDTH, HEIGHT = 1000, 560
LEFT, RIGHT, TOP, BOTTOM = 90, 960, 90, 480  # the plot, in pixels
LOW, HIGH = 0.55, 0.90  # the share of pairs both right shown


def runs(metrics: dict) -> list[dict]:
    """The runs that made a network, first to last."""
    return [*runs(metrics["earlier"]), metrics] if metrics.get("earlier") else [metrics]


def pairs_an_epoch(run: dict) -> int:
    """A run's pairs an epoch: metrics.json's, or (runs from before it was recorded) its command's
    --pairs-per-epoch, or one pair a training digit."""
    if run.get("pairs_per_epoch"):
        return run["pairs_per_epoch"]
    found = re.search(r"--pairs-per-epoch[ =](\d+)", run["command"])
    return int(found.group(1)) if found else run["train_images"]


def curve(folder: str) -> list[tuple[int, float, bool, float | None]]:
    """(pairs seen, MNIST validation pairs both right, whether on written examples, written
    validation read right) after each epoch, over every run."""
    points, seen = [], 0
    for run in runs(json.loads((REPO / folder / "metrics.json").read_text())):
        written = run.get("examples") == "written"
        for epoch in run["history"]:
            seen += pairs_an_epoch(run)
            mnist_pairs = epoch["val_mnist_pairs"] if written else epoch["val_accuracy"]
            points.append((seen, mnist_pairs, written, epoch["val_accuracy"] if written else None))
    return points


def at(seen: float, share: float, first: float, last: float) -> tuple[float, float]:
    """The pixel of (pairs seen, share) on the log-scaled x axis from ``first`` to ``last``."""
    x = LEFT + (RIGHT - LEFT) * (math.log10(seen) - math.log10(first)) / (math.log10(last) - math.log10(first))
    y = BOTTOM - (BOTTOM - TOP) * (min(max(share, LOW), HIGH) - LOW) / (HIGH - LOW)
    return x, y


def dashed(draw: ImageDraw.ImageDraw, points: list[tuple[float, float]], colour: str, width: int = 3) -> None:
    for k, (a, b) in enumerate(itertools.pairwise(points)):
        if k % 2 == 0:
            draw.line([a, b], fill=colour, width=width)


def draw_curves(curves: dict) -> Image.Image:
    first = min(c[0][0] for c in curves.values())
    last = max(c[-1][0] for c in curves.values())
    first, last = 10 ** math.floor(math.log10(first)), 10 ** math.ceil(math.log10(last))
    picture, draw = titled_canvas(
        (WIDTH, HEIGHT),
        "Pairs networks: MNIST validation pairs, both digits right, against pairs trained on",
        (LEFT, 18),
        22,
    )
    draw.text(
        (LEFT, 50),
        "solid: the paper's pairs (CPU); dashed: examples as people write them (GPU, then CPU); "
        "grey: the written validation examples",
        fill=INK,
        font=font(16),
    )
    for share in [LOW + 0.05 * k for k in range(round((HIGH - LOW) / 0.05) + 1)]:
        _, y = at(first, share, first, last)
        draw.line([(LEFT, y), (RIGHT, y)], fill=GRID, width=1)
        draw.text((LEFT - 50, y - 9), f"{share:.0%}", fill=INK, font=font(16))
    power = round(math.log10(first))
    while 10**power <= last:
        x, _ = at(10**power, LOW, first, last)
        draw.line([(x, TOP), (x, BOTTOM)], fill=GRID, width=1)
        draw.text((x - 18, BOTTOM + 10), f"1e{power}", fill=INK, font=font(16))
        power += 1
    draw.text(
        ((LEFT + RIGHT) // 2 - 120, BOTTOM + 40), "pairs (and examples) trained on, log scale", fill=INK, font=font(16)
    )
    for name, points in curves.items():
        colour = NETWORKS[name][1]
        cpu = [at(seen, share, first, last) for seen, share, written, _ in points if not written]
        gpu = [at(seen, share, first, last) for seen, share, written, _ in points if written]
        draw.line(cpu, fill=colour, width=3)
        dashed(draw, cpu[-1:] + gpu, colour)
        dashed(draw, [at(seen, share, first, last) for seen, _, written, share in points if written], WRITTEN, 2)
        x, y = (gpu or cpu)[-1]
        draw.text((x - 70, y - 28 if name == "CNN" else y + 8), name, fill=colour, font=font(18))
    return picture


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(OUT), help=f"the picture (default: {OUT.relative_to(REPO)})")
    args = p.parse_args(argv)
    curves = {name: curve(folder) for name, (folder, _) in NETWORKS.items()}
    for name, points in curves.items():
        print(name)
        for k, (seen, share, written, written_share) in enumerate(points):
            if k + 1 == len(points) or points[k + 1][2] != written or k % 20 == 19:
                print(
                    f"  {seen:>10,} pairs: MNIST validation pairs both right {share:.2%}"
                    + (f", written validation {written_share:.2%}" if written else "")
                )
    draw_curves(curves).save(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
