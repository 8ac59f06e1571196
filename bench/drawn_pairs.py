"""Drawn digits: what do the Two-digits section's networks read when digits are drawn on the pad,
one alone or two over each other?

A person draws strokes with the pad's pen, at any size and place. This draws, with the pad's pen
and inked as the server inks the pad's strokes, then read in-process by the section's reader
(`playground.pair_reading`) exactly as the page's event reads them (each network counting one
digit or two with its rule, `capsnet.digit_count`):

- ``--pairs`` pairs of two different digits, pen 1's digit and pen 2's in two boxes of
  `overlapping_boxes` (the same size, the second moved from the first by up to 8/28 of the box
  each way, as two digits each moved by up to 4 of 28 pixels);
- ``--pairs`` single digits, pen 1 alone, in a box of `random_box`;

in strokes from three sources:

- ``hand``: tests/support/digit_strokes.py, one hand and one shape a digit (the tests' strokes: a proxy
  for a person, not a person);
- ``semeion``: each digit traced from a Semeion digit (other writers, never trained on): its 16x16
  ink thinned to a skeleton (`capsnet.data.strokes`), the skeleton's segments joined into strokes, the
  digit's ink box fitted to the drawing box. A different Semeion digit every time;
- ``mnist``: likewise traced from MNIST's test digits (never trained on).

Prints, with the CPU, for each network and source: pairs both right (its two strongest), read
exactly (the count and the digits), a digit named that is not drawn, a 1 named where none is
drawn; single digits read right, read as one digit, a 1 named where none is drawn; and the shipped
MNIST CapsNet on each digit drawn alone (how readable the strokes are at all).

    python -m bench.drawn_pairs --pairs 500 --data-dir DATA

The figures it measured, with the machine: docs/pairs.md.
"""

import argparse
import itertools
from pathlib import Path

import numpy as np
import torch

from bench.train_throughput import cpu_model
from capsnet import load_model
from capsnet.data.datasets import load_semeion, mnist
from capsnet.data.preprocess import ink_to_mnist
from capsnet.data.strokes import segments, skeletons
from playground.drawing_pad import SIDE, Drawing, inks
from playground.networks import pair_networks
from playground.pair_reading import PairReader
from tests.support.digit_strokes import overlapping_boxes, random_box, strokes

TRACED_DIGITS = 2000  # the MNIST test digits traced: the first 2,000


def polylines(segments: np.ndarray) -> list[np.ndarray]:
    """Segments [S, 2 ends, 2] joined end to end into polylines, as a pen would trace them: each
    starts at a loose end where there is one, and follows unused segments from its last point."""
    points = [tuple(p) for p in np.round(segments.reshape(-1, 2), 3)]
    ends = [(points[2 * k], points[2 * k + 1]) for k in range(len(segments))]
    unused = set(range(len(ends)))
    touching: dict = {}
    for k, (a, b) in enumerate(ends):
        touching.setdefault(a, []).append(k)
        touching.setdefault(b, []).append(k)
    lines = []
    while unused:
        loose = [k for k in sorted(unused) if any(len(touching[p]) == 1 for p in ends[k])]
        k = loose[0] if loose else min(unused)
        a, b = ends[k]
        line = [b, a] if len(touching[b]) == 1 else [a, b]
        unused.discard(k)
        while (nxt := next((j for j in touching[line[-1]] if j in unused), None)) is not None:
            unused.discard(nxt)
            a, b = ends[nxt]
            line.append(b if a == line[-1] else a)
        lines.append(np.array(line, dtype=np.float64))
    return lines


class TracedStrokes:
    """Strokes traced from other writers' digits: each digit's skeleton, in its own ink box."""

    def __init__(self, images: np.ndarray, labels: np.ndarray, scale: int):
        """``images`` uint8 [N, H, W], thinned at ``scale`` times their side, for a smoother skeleton."""
        self.labels = np.asarray(labels)
        big = (
            torch.from_numpy(np.asarray(images))
            .float()
            .div(255)
            .repeat_interleave(scale, 1)
            .repeat_interleave(scale, 2)
        )  # [N, H * scale, W * scale]
        self.ends, self.valid = segments(skeletons(big, threshold=0.5))  # [N, K, 4], [N, K]

    def strokes(self, digit: int, rng: np.random.Generator, box: tuple) -> list[list[float]]:
        """A digit of class ``digit``, chosen at random, traced into ``box`` (left, top,
        width, height): its skeleton's ink box fitted to the box, keeping its aspect ratio."""
        index = rng.choice(np.flatnonzero(self.labels == digit))
        ends = self.ends[index][self.valid[index]].numpy().reshape(-1, 2, 2)  # [S, 2 ends, (x, y)]
        low, high = ends.reshape(-1, 2).min(axis=0), ends.reshape(-1, 2).max(axis=0)
        left, top, width, height = box
        scale = min(width / max(high[0] - low[0], 1), height / max(high[1] - low[1], 1))
        middle = np.array([left + width / 2, top + height / 2])
        return [
            np.round(np.clip((line - (low + high) / 2) * scale + middle, 0, SIDE), 1).ravel().tolist()
            for line in polylines(ends)
        ]


def stroke_source(name: str, data_dir: str) -> TracedStrokes | None:
    """The strokes a source draws with: "hand", tests/support/digit_strokes.py's (None); "semeion",
    traced from Semeion's digits (thinned at 32x32); "mnist", traced from MNIST's first TRACED_DIGITS
    test digits, which no network trained on."""
    if name == "hand":
        return None
    if name == "semeion":
        return TracedStrokes(*load_semeion(Path(data_dir) / "semeion" / "semeion.data"), scale=2)
    test = mnist(data_dir, train=False)
    return TracedStrokes(test.data[:TRACED_DIGITS].numpy(), test.targets[:TRACED_DIGITS].numpy(), scale=1)


def drawing(digits: list[int], boxes: list[tuple], source, rng: np.random.Generator) -> Drawing:
    """Each digit with its own pen (pen k for the k-th) in its box, in strokes of ``source`` (None:
    tests/support/digit_strokes.py's)."""
    drawn = [
        (stroke, pen)
        for pen, (digit, box) in enumerate(zip(digits, boxes, strict=True))
        for stroke in (strokes(digit, *box) if source is None else source.strokes(digit, rng, box))
    ]
    return Drawing(
        [np.array(s, dtype=np.float32).reshape(-1, 2) for s, _ in drawn], tuple(p for _, p in drawn), None, 1, False
    )


def rate(hits: list[bool]) -> str:
    return f"{100 * np.mean(hits):5.1f}%" if hits else "  n/a"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=500, help="pairs drawn, and single digits, a source (default 500)")
    parser.add_argument("--data-dir", default="./data", help="where semeion/semeion.data is (default ./data)")
    parser.add_argument(
        "--sources",
        nargs="+",
        choices=["hand", "semeion", "mnist"],
        default=["hand", "semeion"],
        help="the strokes drawn (default: both)",
    )
    parser.add_argument("--capsnet", default="weights/pairs", help="the pairs CapsNet (default weights/pairs)")
    parser.add_argument("--cnn", default="weights/pairs-cnn", help="the pairs CNN (default weights/pairs-cnn)")
    parser.add_argument("--mnist", default="weights", help="the MNIST CapsNet for each digit alone (default weights)")
    parser.add_argument("--seed", type=int, default=0, help="the digits, their boxes and moves (default 0)")
    args = parser.parse_args(argv)
    pairs, single = pair_networks(args.capsnet, args.cnn), load_model(args.mnist)
    if pairs.problem is not None:
        raise SystemExit(f"bench.drawn_pairs: error: {pairs.problem}")
    reader = PairReader.of(pairs)
    print(
        f"CPU: {cpu_model()}; {args.pairs} pairs and {args.pairs} single digits a source, seed {args.seed}; "
        f"counted by {reader.rule} (CapsNet) and {reader.cnn_rule} (CNN)"
    )
    classes = list(itertools.permutations(range(10), 2))  # ordered pairs of two different digits
    for name in args.sources:
        source = stroke_source(name, args.data_dir)
        rng = np.random.default_rng(args.seed)
        found = {
            network: {key: [] for key in ("both", "exact", "absent", "one", "single", "as_one", "single_one")}
            for network in ("capsnet", "cnn")
        }
        alone = []
        for _ in range(args.pairs):
            first, second = classes[rng.integers(len(classes))]
            layers = inks(drawing([first, second], list(overlapping_boxes(rng, SIDE)), source, rng), pens=2)
            reading = reader.read(layers)
            for network, read, scores in (
                ("capsnet", reading.read, reading.lengths),
                ("cnn", reading.cnn_read, reading.probabilities),
            ):
                strongest = set(np.argsort(-scores)[:2].tolist())
                found[network]["both"].append(strongest == {first, second})
                found[network]["exact"].append(set(read) == {first, second} and len(read) == 2)
                found[network]["absent"].append(bool(set(read) - {first, second}))
                if 1 not in (first, second):
                    found[network]["one"].append(1 in read)
            with torch.inference_mode():
                digits = torch.from_numpy(np.stack([ink_to_mnist(layer) for layer in layers]))[:, None]
                alone += (single(digits).prediction == torch.tensor([first, second])).tolist()
            digit = int(rng.integers(10))
            layers = inks(drawing([digit], [random_box(rng, SIDE)], source, rng), pens=2)
            reading = reader.read(layers)
            for network, read in (("capsnet", reading.read), ("cnn", reading.cnn_read)):
                found[network]["single"].append(read[0] == digit)
                found[network]["as_one"].append(read == (digit,))
                if digit != 1:
                    found[network]["single_one"].append(1 in read)
        print(f"\n{name} strokes; the MNIST CapsNet reads {rate(alone)} of the pairs' {len(alone)} digits drawn alone")
        for network, hits in found.items():
            print(
                f"  pairs {network:7s}: both right (two strongest) {rate(hits['both'])}, "
                f"read exactly {rate(hits['exact'])}, "
                f"a digit not drawn named {rate(hits['absent'])}, a 1 named where none is drawn {rate(hits['one'])}"
            )
            print(
                f"  one digit {network:3s}: read right {rate(hits['single'])}, read as that one digit alone "
                f"{rate(hits['as_one'])}, a 1 named where none is drawn {rate(hits['single_one'])}"
            )


if __name__ == "__main__":
    main()
