"""Digits traced from other writers' ink into the strokes of the page's pen: each digit's 16x16 or
28x28 ink thinned to a skeleton (`capsnet.data.strokes`), the skeleton's segments joined end to end
into strokes (`polylines`), the digit's ink box fitted to a drawing box. Inputs none of our code
made, for the benchmarks and tests that draw on the pad (`stroke_source`: Semeion's digits, or
MNIST's test digits, which no network trained on; "hand" is harness/digit_strokes.py's).
"""

from pathlib import Path

import numpy as np
import torch

from capsnet.data.datasets import load_semeion, mnist
from capsnet.data.strokes import segments, skeletons
from playground.drawing_pad import SIDE

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
    """The strokes a source draws with: "hand", harness/digit_strokes.py's (None); "semeion",
    traced from Semeion's digits (thinned at 32x32); "mnist", traced from MNIST's first TRACED_DIGITS
    test digits, which no network trained on."""
    if name == "hand":
        return None
    if name == "semeion":
        return TracedStrokes(*load_semeion(Path(data_dir) / "semeion" / "semeion.data"), scale=2)
    test = mnist(data_dir, train=False)
    return TracedStrokes(test.data[:TRACED_DIGITS].numpy(), test.targets[:TRACED_DIGITS].numpy(), scale=1)
