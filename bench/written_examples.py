"""Where the page's strokes land, and whether the written examples stay what they are.

Prints, with the CPU:

- how wide strokes are in the network's 28x28 field (`capsnet.data.strokes.stroke_width`, quantiles
  5/25/50/75/95%): MNIST's test digits; Semeion's digits made MNIST-style (`ink_to_mnist`); digits
  drawn on the page's pad (harness/digit_strokes.py at `random_box` sizes, inked by Pillow as the pad's pen draws
  them, through `ink_to_mnist`); pairs drawn with two pens (`overlapping_boxes`, through
  `overlaid_inks_to_mnist`), the overlay and each digit; and the written training examples
  (`capsnet.data.written`), in a pen's line and in MNIST's ink, single digits;
- how wide the digits' ink boxes are against their height (|log(width / height)|, 0 for a square):
  MNIST, Semeion made MNIST-style, and the written examples, as drawn and squared all the way;
- the shipped MNIST CapsNet on written single digits made from MNIST's test digits (the variation
  keeps a digit what it is where it still reads it): all, in a pen's line, in MNIST's ink, and in
  each of other writers' inks alone (`capsnet.data.ink`: squared, coarse, hard-edged) and all three.

    python -m bench.written_examples --data-dir DATA
"""

import argparse
from dataclasses import replace

import numpy as np
import torch

from bench.drawn_pairs import drawing
from bench.train_throughput import cpu_model
from capsnet import load_model
from capsnet.data.datasets import load_semeion, mnist
from capsnet.data.ink import squaring
from capsnet.data.preprocess import ink_to_mnist, overlaid_inks_to_mnist
from capsnet.data.strokes import stroke_width
from capsnet.data.written import BILEVEL_LEVELS, DigitSet, draw_examples, render
from harness.digit_strokes import overlapping_boxes, random_box
from playground.drawing_pad import SIDE

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def widths(name: str, images) -> None:
    """Print the quantiles of the stroke widths of ``images`` [N, 28, 28]."""
    measured = stroke_width(torch.as_tensor(np.asarray(images), dtype=torch.float32))
    values = measured.nanquantile(torch.tensor(QUANTILES)).tolist()
    print(f"  {name:46s} " + "  ".join(f"{v:4.2f}" for v in values) + f"   ({len(measured):,})")


def other_inks(examples):
    """``examples`` (single digits) in each of other writers' inks alone and all three, every digit so:
    name -> (examples, what it is)."""
    count = len(examples)
    plain = replace(
        examples, squared=torch.zeros(count), coarse=torch.zeros(count, dtype=torch.long), level=torch.zeros(count)
    )
    squared, coarse = torch.ones(count), torch.full((count,), 18)
    level = torch.full((count,), sum(BILEVEL_LEVELS) / 2)
    return {
        "squared": (replace(plain, squared=squared), "stretched all the way to a square"),
        "coarse": (replace(plain, coarse=coarse), "the field at 18 pixels a side"),
        "hard-edged": (replace(plain, level=level), f"at {level[0]:.2f} of the strongest"),
        "all three": (replace(plain, squared=squared, coarse=coarse, level=level), "all of these"),
    }


def box_shapes(name: str, images) -> None:
    """Print the quantiles of |log(width / height)| of the ink boxes of ``images`` [N, 28, 28]."""
    shape = squaring(torch.as_tensor(np.asarray(images), dtype=torch.float32)).log().abs()
    values = shape.quantile(torch.tensor(QUANTILES)).tolist()
    print(f"  {name:46s} " + "  ".join(f"{v:4.2f}" for v in values) + f"   ({len(shape):,})")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default="./data", help="MNIST, and semeion/semeion.data (default: ./data)")
    p.add_argument("--count", type=int, default=2000, help="digits of each kind (default: 2000)")
    p.add_argument("--mnist", default="weights", help="the MNIST CapsNet (default: weights)")
    args = p.parse_args(argv)
    print(f"CPU: {cpu_model()}; torch {torch.__version__}")
    test = mnist(args.data_dir, train=False)
    images, labels = test.data[: args.count], test.targets[: args.count]
    semeion, _ = load_semeion(f"{args.data_dir}/semeion/semeion.data")
    rng = np.random.default_rng(0)
    singles, pairs, pair_digits = [], [], []
    for _ in range(min(args.count, 500)):
        singles.append(ink_to_mnist(drawing([int(rng.integers(10))], [random_box(rng, SIDE)], None, rng)[0]))
        first, second = rng.choice(10, 2, replace=False)
        fields = overlaid_inks_to_mnist(
            drawing([int(first), int(second)], list(overlapping_boxes(rng, SIDE)), None, rng)
        )
        pairs.append(fields[0])
        pair_digits += [fields[1], fields[2]]
    digits = DigitSet.of(images, labels)
    examples = draw_examples(digits.labels, torch.arange(len(labels)), torch.Generator().manual_seed(0))
    examples = replace(examples, two=torch.zeros(len(labels), dtype=torch.bool))  # one digit each
    written, _, _ = render(digits, examples)

    print("stroke width in the 28x28 field, pixels, at the quantiles " + ", ".join(f"{q:.0%}" for q in QUANTILES))
    widths("MNIST test digits", images.float() / 255)
    semeion_mnist = [ink_to_mnist(ink.astype(np.float32) / 255) for ink in semeion]
    widths("Semeion digits, made MNIST-style", semeion_mnist)
    widths("the page's pad: one digit", singles)
    widths("the page's pad: a pair, the overlay", pairs)
    widths("the page's pad: a pair, each digit", pair_digits)
    widths("written examples, one digit, a pen's line", written[examples.pen, 0])
    widths("written examples, one digit, MNIST's ink", written[~examples.pen, 0])
    for name, (kind, _) in other_inks(examples).items():
        widths(f"written examples, one digit, {name}", render(digits, kind)[0][:, 0])

    print("the ink box's shape, |log(width / height)| (0: square), at the same quantiles")
    box_shapes("MNIST test digits", images.float() / 255)
    box_shapes("Semeion digits, made MNIST-style", semeion_mnist)
    box_shapes("the page's pad: one digit", singles)
    box_shapes("written examples, one digit, as drawn", written[:, 0])
    box_shapes(
        "written examples, one digit, squared all the way", render(digits, other_inks(examples)["squared"][0])[0][:, 0]
    )

    model = load_model(args.mnist).eval()
    with torch.inference_mode():
        right = torch.cat([model(batch).prediction for batch in written.split(500)]) == labels
        as_they_are = torch.cat([model(batch).prediction for batch in (images.float() / 255).unsqueeze(1).split(500)])
        kinds = {
            name: (torch.cat([model(batch).prediction for batch in render(digits, kind)[0].split(500)]) == labels)
            for name, (kind, _) in other_inks(examples).items()
        }
    print(
        f"the MNIST CapsNet ({args.mnist}) on written single digits of MNIST's first {len(labels):,} test digits: "
        f"{right.double().mean():.1%} (a pen's line {right[examples.pen].double().mean():.1%}, MNIST's ink "
        f"{right[~examples.pen].double().mean():.1%}); on the same digits as they are "
        f"{(as_they_are == labels).double().mean():.1%}"
    )
    print(
        "  in each of other writers' inks, every digit so: "
        + ", ".join(
            f"{name} ({what}) {kinds[name].double().mean():.1%}" for name, (_, what) in other_inks(examples).items()
        )
    )


if __name__ == "__main__":
    main()
