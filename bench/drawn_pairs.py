"""Drawn digits: what do the Two-digits section's networks read when digits are drawn on the pad,
one alone or two over each other?

A person draws strokes with the pad's pen, at any size and place. This draws, with the pad's pen
(BRUSH wide, round ends: `harness.digit_strokes.inked`), then reads in-process with the section's
reader (`playground.two_digits_reading`), which reads as the page's networks read (each network
counting one digit or two with its rule, `capsnet.digit_count`):

- ``--pairs`` pairs of two different digits, pen 1's digit and pen 2's in two boxes of
  `overlapping_boxes` (the same size, the second moved from the first by up to 8/28 of the box
  each way, as two digits each moved by up to 4 of 28 pixels);
- ``--pairs`` single digits, pen 1 alone, in a box of `random_box`;

in strokes from three sources (harness/traced_strokes.py):

- ``hand``: harness/digit_strokes.py, one hand and one shape a digit (the tests' strokes: a proxy
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

import numpy as np
import torch

from bench.train_throughput import cpu_model
from capsnet import load_model
from capsnet.data.preprocess import ink_to_mnist
from harness.digit_strokes import inked, overlapping_boxes, random_box, strokes
from harness.traced_strokes import stroke_source
from playground.drawing_pad import SIDE
from playground.networks import pair_networks
from playground.two_digits_reading import PairReader


def drawing(digits: list[int], boxes: list[tuple], source, rng: np.random.Generator) -> np.ndarray:
    """Each digit with its own pen (pen k for the k-th) in its box, in strokes of ``source`` (None:
    harness/digit_strokes.py's), inked: each of the pad's two pens' ink, [2, SIDE, SIDE]."""
    drawn = [
        (stroke, pen)
        for pen, (digit, box) in enumerate(zip(digits, boxes, strict=True))
        for stroke in (strokes(digit, *box) if source is None else source.strokes(digit, rng, box))
    ]
    return inked([s for s, _ in drawn], [p for _, p in drawn], count=2)


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
            layers = drawing([first, second], list(overlapping_boxes(rng, SIDE)), source, rng)
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
            layers = drawing([digit], [random_box(rng, SIDE)], source, rng)
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
