"""The Two-digits pad's two pens and its examples: each pen's colour (`PENS`), the MNIST test pairs
under the pad (`examples`, each pair's two digits' ink as `example_layers` reads it back), and the
pen each redrawn digit is drawn in (`pens_of`).

The examples are MNIST test pairs, `assets/pairs/`: the first test pairs of
`capsnet.data.pairs.fixed_pairs` (the ones `capsnet.studies.pairs_measurement` reads), whatever the
networks make of them; `python -m bench.pair_examples --data-dir DATA` makes them again.
"""

import re
from pathlib import Path

import numpy as np
from PIL import Image

from playground import drawing_pad
from playground.two_digits_views import tinted

PENS = ("#1f6fd1", "#e66100")  # blue and orange, each pen's (and the digit it redraws) colour; the
# paper's Figure 5 uses red and green, which many people cannot tell apart
EXAMPLES_FOLDER = Path(__file__).parent.parent / "assets" / "pairs"
EXAMPLE_NAME = re.compile(r"mnist_test_pair_(\d+)_(\d)_(\d)\.png")  # mnist_test_pair_0003_0_7.png


def pens_of(redrawn: np.ndarray, layers: np.ndarray) -> tuple[int, ...]:
    """The pen of each redrawn digit [k, 28, 28]: the assignment of the two pens' ink [2, 28, 28]
    that the redrawings cover more of, (0, 1) or (1, 0) for two; (0,) or (1,) for one."""
    overlap = np.einsum("rhw,phw->rp", redrawn, layers)  # [k redrawn, 2 pens]
    if len(redrawn) == 1:
        return (int(overlap[0].argmax()),)
    return (0, 1) if overlap[0, 0] + overlap[1, 1] >= overlap[0, 1] + overlap[1, 0] else (1, 0)


def example_layers(path: Path) -> np.ndarray:
    """uint8 [2, 28, 28], the two digits' ink of an example pair: saved side by side, 56x28, as
    black ink on white."""
    ink = 255 - np.asarray(Image.open(path).convert("L"))
    return np.stack([ink[:, :28], ink[:, 28:]])


def examples() -> list[drawing_pad.Example]:
    """The MNIST test pairs under the pad, in the order of the test pairs."""
    found = sorted(path for path in EXAMPLES_FOLDER.glob("*.png") if EXAMPLE_NAME.fullmatch(path.name))
    pairs = []
    for path in found:
        _, a, b = EXAMPLE_NAME.fullmatch(path.name).groups()
        layers = example_layers(path)
        pairs.append(
            drawing_pad.Example(
                f"{a} and {b}",
                f"MNIST test pair: {a} (pen 1) and {b} (pen 2)",
                layers,
                tinted(layers / 255, list(PENS)),
            )
        )
    return pairs
