"""A photo's marks told apart: ruled lines taken away, and the digit's marks found among the
others (line ends, the picture's edges, specks).

- Ruled lines: rows, level or sloped by up to 3 degrees, all at one slope, dark across at least
  LINE_SHARE of the picture's width (of what of them lies in it, if a quarter of its width).
  Along each, and the rows beside it, the line's own darkness (above what lies beside it) is
  taken away, so a digit's stroke that crosses a line, or rests on it, and a shadow across it
  keep theirs.
- The digit: the heaviest candidate that is MARK_CONTRAST dark, off the picture's edge where one
  is, and the marks near it (within NEAR of its size) that weigh at least SPECK_SHARE of it and
  are not told apart. A candidate is less than FLAT times as wide as it is tall (such a mark may
  be a digit's bar, but is no digit alone), no speck (a mark smaller than MIN_DIGIT of the
  picture's shorter side; but for the only mark of a picture without noise, a drawing of a dot),
  and not told apart. Told apart: what lies wholly on a ruled line; what lies mostly where the
  paper's light steps (along a shadow's edge, where the paper is misjudged by a pixel or two);
  what touches the picture's edge while FLAT times as wide as it is tall (a line's end, a page's
  edge), or at all where the light is uneven (where a shadow's edge meets the picture's at a
  slant, the paper is misjudged); and, where the light is uneven, a blob: a mark whose strokes
  (2 area / perimeter) are BLOB of its longer side wide, as a shadow smaller than the paper's
  window is, and no digit's.
"""

import math
from dataclasses import dataclass

import numpy as np

from capsnet.data.filters import running

MARK_CONTRAST = 0.1  # a digit is at least this much darker than the paper around it, a share of its brightness
LINE_SHARE = 0.8  # a ruled line is dark across at least this share of the picture's width
LINE_TILTS = np.linspace(-3, 3, 25)  # degrees: the slopes ruled lines are looked for at
LINE_STRETCH = 0.5  # a line's darkness is its median over this share of the picture's width about each pixel
FLAT = 4  # a mark this many times as wide as it is tall is a line's piece or a page's edge, no digit
MIN_DIGIT = 0.1  # in a photo, a digit is at least this share of the picture's shorter side tall or wide
NEAR = 0.25  # the marks within this share of the digit's heaviest mark's size of it are the digit's ...
SPECK_SHARE = 0.02  # ... but for those that weigh less than this share of it
BLOB = 0.3  # a mark whose strokes are this share of its longer side wide is a blob (a shadow, a smudge), no digit


def ruled_lines(darkness: np.ndarray, dark: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ruled lines in ``darkness`` [H, W], where ``dark`` (bool [H, W]) says it passes the
    paper's noise.

    Returns:
        The lines' own darkness, float [H, W]: at the slope of LINE_TILTS where most rows are
        lines, on each line's rows and those beside them, the darkest of each column's three rows
        about it (a line's darkest, wherever between two rows it runs) above what lies beside the
        line (a shadow's edge, a stroke that crosses it), its median over LINE_STRETCH of the
        row; and where they lie, bool [H, W].
    """
    height, width = darkness.shape
    columns, sampled = np.arange(width), np.arange(0, width, 4)
    covered = []  # [R] for each slope: whether each of its rows along the lines is a line
    for tilt in LINE_TILTS:
        rows = _sheared(tilt, height, sampled)  # [R, W / 4]
        inside = (rows >= 0) & (rows < height)
        dark_inside = dark[np.clip(rows, 0, height - 1), sampled] & inside
        seen = inside.sum(axis=1)  # a line that leaves the picture through its top or bottom ...
        covered.append((dark_inside.sum(axis=1) >= LINE_SHARE * seen) & (seen >= len(sampled) / 4))  # ... counts too
    best = int(np.argmax([lines_at.sum() for lines_at in covered]))
    band = np.convolve(covered[best], np.ones(3), mode="same") > 0  # [R]: rows on and beside lines
    rows = _sheared(LINE_TILTS[best], height, columns)  # [R, W]: the pixel rows of each row along the lines
    inside = (rows >= 0) & (rows < height)
    rows = np.clip(rows, 0, height - 1)
    level = darkness[rows, columns]  # [R, W]: the picture sheared so that the lines are level
    darkest = running(level, 3, np.maximum, axis=0)
    lines, ruled = np.zeros_like(darkness), np.zeros(darkness.shape, dtype=bool)
    firsts = np.flatnonzero(band & ~np.r_[False, band[:-1]])
    lasts = np.flatnonzero(band & ~np.r_[band[1:], False])
    for first, last in zip(firsts, lasts, strict=True):
        beside = np.minimum(level[max(first - 1, 0)], level[min(last + 1, len(level) - 1)])  # [W]
        own = _running_median(np.maximum(darkest[first : last + 1] - beside, 0), LINE_STRETCH * width)
        seen = inside[first : last + 1]
        np.maximum.at(lines, (rows[first : last + 1][seen], np.broadcast_to(columns, own.shape)[seen]), own[seen])
        ruled[rows[first : last + 1][seen], np.broadcast_to(columns, own.shape)[seen]] = True
    return lines, ruled


def _running_median(rows: np.ndarray, length: float) -> np.ndarray:
    """The median of each of ``rows`` [N, W] over ``length`` columns about each column, taken at
    every 4th column and held over the 4: [N, W]. A step (a shadow's edge) stays where it is."""
    sampled = rows[:, ::4]
    half = max(1, round(length / 8))
    padded = np.pad(sampled, ((0, 0), (half, half)), mode="edge")
    medians = np.median(np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1, axis=1), axis=2)
    return np.repeat(medians, 4, axis=1)[:, : rows.shape[1]]


def _sheared(tilt: float, height: int, columns: np.ndarray) -> np.ndarray:
    """The rows along lines at ``tilt`` degrees through a picture ``height`` tall: each row's pixel
    row at each of ``columns``, int [R, len(columns)], R covering every such line that crosses
    the picture (rows beyond it included, outside [0, height))."""
    drops = np.rint(math.tan(math.radians(tilt)) * columns).astype(int)  # from the first column
    return np.arange(-drops.max(initial=0), height - drops.min(initial=0))[:, None] + drops


@dataclass(frozen=True)
class Marks:
    """The marks of a picture, each measured: arrays [count], mark i being label i + 1."""

    weight: np.ndarray  # the sum of its darkness
    darkest: np.ndarray  # its darkest pixel's darkness beyond the noise, a share of the paper's brightness
    top: np.ndarray  # its box, in pixels, inclusive
    left: np.ndarray
    height: np.ndarray
    width: np.ndarray
    edge: np.ndarray  # bool: it touches the picture's edge
    on_lines: np.ndarray  # bool: it lies wholly on the rows of ruled lines
    on_steps: np.ndarray  # bool: most of it lies where the paper's light steps (a shadow's edge)
    stroke: np.ndarray  # its strokes' width in pixels: 2 area / perimeter (the pixels of its border)

    @classmethod
    def measured(cls, labels: np.ndarray, count: int, darkness: np.ndarray, beyond_noise: np.ndarray, ruled, steps):
        """The marks ``labels`` (int [H, W], 0 for none, 1..count) of ``darkness`` [H, W], whose
        darkness beyond the noise is ``beyond_noise`` [H, W], on a picture ``ruled`` and ``steps``
        (bool [H, W]: the rows of ruled lines, where the paper's light steps)."""
        owner = labels.ravel()
        area = np.bincount(owner, minlength=count + 1)[1:]
        rows, columns = (index.ravel() for index in np.indices(labels.shape))
        darkest = np.zeros(count + 1)
        np.maximum.at(darkest, owner, beyond_noise.ravel())
        top, left = np.full(count + 1, labels.size), np.full(count + 1, labels.size)
        bottom, right = np.full(count + 1, -1), np.full(count + 1, -1)
        np.minimum.at(top, owner, rows)
        np.minimum.at(left, owner, columns)
        np.maximum.at(bottom, owner, rows)
        np.maximum.at(right, owner, columns)
        top, left, bottom, right = top[1:], left[1:], bottom[1:], right[1:]
        padded = np.pad(labels, 1)  # a pixel whose four neighbours are of its mark is inside it
        inner = (padded[:-2, 1:-1] == labels) & (padded[2:, 1:-1] == labels)
        inner &= (padded[1:-1, :-2] == labels) & (padded[1:-1, 2:] == labels)
        border = np.bincount(owner, weights=~inner.ravel(), minlength=count + 1)[1:]
        return cls(
            weight=np.bincount(owner, weights=darkness.ravel(), minlength=count + 1)[1:],
            darkest=darkest[1:],
            top=top,
            left=left,
            height=bottom - top + 1,
            width=right - left + 1,
            edge=(top == 0) | (left == 0) | (bottom == labels.shape[0] - 1) | (right == labels.shape[1] - 1),
            on_lines=np.bincount(owner, weights=~ruled.ravel(), minlength=count + 1)[1:] == 0,
            on_steps=np.bincount(owner, weights=steps.ravel(), minlength=count + 1)[1:] * 2 > area,
            stroke=2 * area / np.maximum(border, 1),
        )


def told_apart(marks: Marks, even: bool) -> np.ndarray:
    """Which ``marks`` are never a digit's, nor part of one, by where they lie or, where the light
    is uneven, their shape (a blob, a shadow's): bool [count]. ``even``: the light is even."""
    blob = (marks.stroke >= BLOB * np.maximum(marks.height, marks.width)) & (not even)
    return marks.on_lines | marks.on_steps | blob | (marks.edge & ((marks.width >= FLAT * marks.height) | (not even)))


def may_be_digits(marks: Marks, apart: np.ndarray, shape: tuple[int, int], noisy: bool) -> np.ndarray:
    """Which ``marks`` of a picture of ``shape`` may be a digit alone: not told ``apart``, less than
    FLAT times as wide as tall, and no speck (unless the only mark of a picture without noise):
    bool [count]."""
    least = MIN_DIGIT * min(shape) if noisy or len(marks.weight) > 1 else 0
    return ~apart & (marks.width < FLAT * marks.height) & (np.maximum(marks.height, marks.width) >= least)


def digit_marks(marks: Marks, apart: np.ndarray, candidates: np.ndarray) -> np.ndarray | None:
    """The labels of the marks that make the digit, int [k]: the heaviest of the ``candidates``
    (bool [count]) that is MARK_CONTRAST dark, off the picture's edge where one is, and the marks
    near it not told ``apart``; None when no candidate is dark enough."""
    candidates = candidates & (marks.darkest >= MARK_CONTRAST)
    if not candidates.any():
        return None
    if (candidates & ~marks.edge).any():
        candidates &= ~marks.edge
    core = int(np.argmax(np.where(candidates, marks.weight, -1)))
    reach = NEAR * max(marks.height[core], marks.width[core])
    near = (
        (marks.top <= marks.top[core] + marks.height[core] + reach)
        & (marks.top + marks.height >= marks.top[core] - reach)
        & (marks.left <= marks.left[core] + marks.width[core] + reach)
        & (marks.left + marks.width >= marks.left[core] - reach)
    )
    kept = near & ~apart & (marks.edge <= marks.edge[core]) & (marks.weight >= SPECK_SHARE * marks.weight[core])
    return np.flatnonzero(kept) + 1
