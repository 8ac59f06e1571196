"""Drawn pairs: do two digits drawn over each other on the page reach the pairs networks as the
training pairs did?

The training pairs are MNIST digits overlaid in a 36x36 field, each moved by up to 4 pixels, then
made 28x28 by `overlaid_inks_to_mnist` (capsnet/pairs.py). A person draws instead: strokes, with
the pad's pen, at any size and place. This draws ``--pairs`` pairs of two different digits with
the strokes of tests/digit_strokes.py (one hand, so one shape a digit: a proxy for a person, not a
person), in two boxes of `overlapping_boxes` (the same size, the second moved from the first by up
to 8/28 of the box each way, as two digits each moved by up to 4 of 28 pixels), each with its own
pen, inked as the server inks the pad's strokes, read in-process by the Two-digits section's
networks exactly as the page's event reads them. Prints, with the CPU:

- the pairs CapsNet and the pairs CNN: both digits right;
- the shipped MNIST CapsNet on each digit drawn alone (how readable these strokes are at all),
  and both pairs networks on the pairs whose two digits it reads right alone.

    python -m bench.drawn_pairs --pairs 500

The figures, with the machine: docs/pairs.md.
"""
import argparse
import itertools

import numpy as np
import torch

from bench.train_throughput import cpu_model
from capsnet import ink_to_mnist, load_model
from capsnet.pairs import both_right, top_two
from playground.drawing_pad import SIDE, Drawing, inks
from playground.two_digits import section
from tests.digit_strokes import overlapping_boxes, strokes

def pair_drawing(first: int, second: int, rng: np.random.Generator) -> Drawing:
    """``first`` with pen 0 and ``second`` with pen 1 in two boxes of `overlapping_boxes`."""
    boxes = overlapping_boxes(rng, SIDE)
    drawn = [(stroke, pen) for pen, (digit, box) in enumerate(zip((first, second), boxes))
             for stroke in strokes(digit, *box)]
    return Drawing([np.array(s, dtype=np.float32).reshape(-1, 2) for s, _ in drawn], tuple(pen for _, pen in drawn),
                   None, 1, False)


def rate(hits: list[bool]) -> str:
    return f"{100 * np.mean(hits):5.1f}%" if hits else "  n/a"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=500, help="pairs drawn (default 500)")
    parser.add_argument("--capsnet", default="weights/pairs", help="the pairs CapsNet (default weights/pairs)")
    parser.add_argument("--cnn", default="weights/pairs-cnn", help="the pairs CNN (default weights/pairs-cnn)")
    parser.add_argument("--mnist", default="weights", help="the MNIST CapsNet for each digit alone (default weights)")
    parser.add_argument("--seed", type=int, default=0, help="the pairs, their boxes and moves (default 0)")
    args = parser.parse_args(argv)
    two_digits, single = section(args.capsnet, args.cnn), load_model(args.mnist)
    if two_digits.problem is not None:
        raise SystemExit(f"bench.drawn_pairs: error: {two_digits.problem}")
    rng = np.random.default_rng(args.seed)
    classes = list(itertools.permutations(range(10), 2))   # ordered pairs of two different digits
    capsnet, cnn, alone, readable = [], [], [], []
    for n in range(args.pairs):
        first, second = classes[rng.integers(len(classes))]
        drawing = pair_drawing(first, second, rng)
        layers = inks(drawing, pens=2)                                      # [2, SIDE, SIDE]
        reading = two_digits.read(layers)
        labels = torch.tensor([[first, second]])
        capsnet.append(bool(both_right(torch.tensor([reading.read]), labels)))
        cnn.append(bool(both_right(top_two(torch.from_numpy(reading.probabilities)[None]), labels)))
        with torch.inference_mode():
            digits = torch.from_numpy(np.stack([ink_to_mnist(layer) for layer in layers]))[:, None]
            read_alone = single(digits).prediction.tolist()
        alone += [read_alone[0] == first, read_alone[1] == second]
        readable.append(read_alone == [first, second])
    print(f"{args.pairs} drawn pairs (tests/digit_strokes.py, seed {args.seed}); CPU: {cpu_model()}")
    print(f"  pairs CapsNet, both digits right    {rate(capsnet)}")
    print(f"  pairs CNN, both digits right        {rate(cnn)}")
    print(f"  MNIST CapsNet, each digit alone     {rate(alone)} of {len(alone)} digits")
    kept = [i for i, ok in enumerate(readable) if ok]
    print(f"  the {len(kept)} pairs whose two digits it reads alone: pairs CapsNet "
          f"{rate([capsnet[i] for i in kept])}, pairs CNN {rate([cnn[i] for i in kept])}")


if __name__ == "__main__":
    main()
