"""The ink of a photo of a digit on paper: the paper's light across the picture, each pixel's
darkness against the paper around it, and the digit's marks among the others (`marks`).

- The paper: the grey closing (`filters.closing`) of the picture, the darker of it box-blurred
  over PAPER_BLUR pixels (less lifted by noise) and as it is (a hard shadow's edge kept hard),
  over windows a share of its longer side (PAPER_WINDOWS), the narrowest four times as wide as the
  strokes found with it; then over windows STROKE_WINDOWS times its strokes' width, which follow
  the light closer. Strokes vanish from it; light falling off, a vignette, a straight shadow's
  edge and a shadow wider than the window stay.
- The darkness: how much darker than that paper a pixel is, less the paper's own (the noise a
  closing lifts the paper by, followed across the picture by a low quantile of the darkness
  about each pixel) and NOISE_SIGMAS of the noise's spread, as a share of the paper's brightness:
  ink in a shadow is as dark, so, as in the light. Where the paper's light steps (STEP), along a
  shadow's edge, the paper is misjudged by a pixel or two, and what lies there is no mark of ink.
  Dark marks on light paper, or the reverse (`marks_are_dark`, read on the picture inverted).

On a picture evenly lit and without noise (a drawing, a clean scan) the paper is one brightness
and the noise nil: its ink is what that one paper gives.
"""

from dataclasses import dataclass

import numpy as np

from capsnet.data.filters import box_mean, closing, components, dilated, local_quantile
from capsnet.data.marks import Marks, digit_marks, may_be_digits, ruled_lines, told_apart

PAPER_WINDOW = 1 / 3  # the paper's median is taken over windows this share of the picture's longer side
PAPER_WINDOWS = (1 / 12, 1 / 6, PAPER_WINDOW)  # the paper is taken over windows one of these shares of it ...
PAPER_BLUR = 5  # ... of the picture box-blurred over this many pixels a side ...
STROKE_WINDOWS = 4  # ... then over windows this many times as wide as the digit's strokes, where narrower
PAPER_QUANTILE = 0.25  # the paper's own darkness follows this quantile of the darkness about each pixel ...
QUANTILE_SIDE = 48  # ... on the picture averaged down to this many pixels a side
NOISE_SIGMAS = 5.0  # the paper's noise reaches this many of its spreads above the paper's own darkness
DARKEST_SHARE = 4  # a darkness is a share of the paper's brightness, or of its brightest's 1/4 in deep shadow
LIGHT_MARGIN = 1.25  # light marks on dark paper depart this many times as far as its dark marks
EVEN_LIGHT = 0.9  # the light is even where the paper's darkest is at least this share of its brightest
MOSTLY_INK = 0.25  # a picture whose median pixel is this much darker than its paper is no photo of marks
MARK_SHARE = 0.2  # a mark is where the darkness is at least this share of the darkest
STEP = 0.05  # the paper's light steps where it changes by this share of it a pixel ...
STEP_REACH = 3  # ... and this many pixels about
FRINGE = 0.1  # the digit keeps the darkness within this share of its size about its marks


@dataclass(frozen=True)
class PhotoInk:
    """What a photo holds: its digit's ink, how dark its darkest mark is, how wide its strokes are."""

    ink: np.ndarray | None  # float32 [H, W], the digit's darkness, a share of the paper's brightness; None: no digit
    contrast: float  # the darkest mark's darkness beyond the noise (the digit's, else any that may be one)
    stroke: float = 0.0  # the digit's strokes' width in pixels, 2 area / perimeter of its marks; 0: unknown


def photo_ink(grey: np.ndarray) -> PhotoInk:
    """The digit's ink in a photo of dark marks on light paper: found with the paper taken over the
    narrowest of PAPER_WINDOWS (shares of the picture's longer side) that is STROKE_WINDOWS times as
    wide as the strokes found with it, else the widest that finds a digit at all; then, where its
    strokes are narrower still, found again over windows STROKE_WINDOWS times their width. The
    narrower the window, the closer the paper follows the light: a shadow wider than the window
    stays paper, where a wider window would take it for ink (and what was taken for a digit on
    paper misjudged may vanish); a window narrower than a digit's strokes takes some of them for
    paper.

    Args:
        grey: float [H, W] in [0, 1], the photo's brightness.
    """
    grey = np.asarray(grey, dtype=np.float64)
    digit = None  # (window, what it found) for the widest window yet that found a digit
    for share in PAPER_WINDOWS:
        window = paper_window(share, grey.shape)
        found = _photo_ink(grey, window)
        if found.ink is not None:
            digit = window, found
            if STROKE_WINDOWS * found.stroke <= window:
                break
    if digit is None:
        return found
    window, found = digit
    narrower = _odd_window(STROKE_WINDOWS * found.stroke)
    return _photo_ink(grey, narrower) if found.stroke and narrower < window else found


def paper_window(share: float, shape: tuple[int, ...]) -> int:
    """The side, in pixels, of a paper's window ``share`` of the longer side of a picture of ``shape``."""
    return _odd_window(share * max(shape))


def _odd_window(pixels: float) -> int:
    """A window's side: ``pixels`` rounded to an odd number, at least 3."""
    return max(3, round(pixels) | 1)


def _photo_ink(grey: np.ndarray, window: int) -> PhotoInk:
    """The digit's ink in ``grey`` [H, W] (float64), its paper taken over ``window`` pixels a side."""
    paper = np.minimum(closing(box_mean(grey, PAPER_BLUR), window), closing(grey, window))  # [H, W]
    share = np.maximum(paper, paper.max() / DARKEST_SHARE)  # [H, W]: what a darkness is a share of
    darkness = np.maximum(paper - grey, 0)  # [H, W]
    smooth = box_mean(darkness, 3)
    if np.median(smooth / share) >= MOSTLY_INK:  # a scribble over it all, say
        return PhotoInk((darkness / share).astype(np.float32), float((darkness / share).max()))
    level, spread = _paper_darkness(smooth)
    floor = level + max(NOISE_SIGMAS * spread, 1e-6)  # [H, W]: what the paper's noise reaches
    lines, ruled = ruled_lines(darkness, smooth > floor)
    # A line lets through 1 - lines / share of the light, on the paper and on a stroke alike.
    darkness = (darkness - lines) / np.maximum(1 - lines / share, 0.5)
    smooth = box_mean(darkness, 3)
    marked = np.maximum(smooth - floor, 0) / share  # [H, W]
    labels, count = components(marked > MARK_SHARE * marked.max())
    beyond_noise = (darkness - level - NOISE_SIGMAS * _spread(darkness - level)) / share  # a pixel's, unblurred
    steps = dilated(np.hypot(*np.gradient(paper)) > STEP * share, STEP_REACH)  # [H, W]: a shadow's edge, say
    marks = Marks.measured(labels, count, marked, beyond_noise, ruled, steps)
    apart = told_apart(marks, even=paper.min() >= EVEN_LIGHT * paper.max())
    candidates = may_be_digits(marks, apart, grey.shape, noisy=spread > 0)
    kept = digit_marks(marks, apart, candidates)
    if kept is None:
        return PhotoInk(None, float(marks.darkest[candidates].max(initial=0)))
    digit = np.isin(labels, kept)
    rows, columns = np.nonzero(digit)
    near = dilated(digit, max(1, round(FRINGE * max(np.ptp(rows), np.ptp(columns)))))
    ink = np.maximum(darkness - floor, 0) / share * near
    inner = np.pad(digit, 1)  # a pixel of the digit whose four neighbours are of it too
    inner = inner[1:-1, 1:-1] & inner[:-2, 1:-1] & inner[2:, 1:-1] & inner[1:-1, :-2] & inner[1:-1, 2:]
    stroke = 2 * digit.sum() / max((digit & ~inner).sum(), 1)
    return PhotoInk(ink.astype(np.float32), float(marks.darkest[kept - 1].max()), float(stroke))


def marks_are_dark(grey: np.ndarray) -> bool:
    """Whether a picture's marks are dark on light paper rather than light on dark: unless its
    brightest pixel lies LIGHT_MARGIN times as far above the paper about it as its darkest lies
    below it, in ratios of brightness (black counted as 5% grey), the paper about each pixel the
    median within a window PAPER_WINDOW of the picture's longer side.

    Where light falls off or a shadow lies, the paper changes more than ink marks it, and a
    picture's extremes say nothing of which is which; the paper about each pixel does. Along a
    shadow's edge the paper departs from that median about as far both ways: there the marks
    decide, and, without any, dark on light, as photos of digits mostly are.

    Args:
        grey: float [H, W] in [0, 1].
    """
    grey = box_mean(np.asarray(grey, dtype=np.float64), 3)
    paper = local_quantile(grey, PAPER_WINDOW, 0.5, QUANTILE_SIDE)
    return LIGHT_MARGIN * ((paper + 0.05) / (grey + 0.05)).max() >= ((grey + 0.05) / (paper + 0.05)).max()


def _paper_darkness(smooth: np.ndarray) -> tuple[np.ndarray, float]:
    """The paper's own darkness under blurred darkness ``smooth`` [H, W], and its noise's spread.

    The closing lifts the paper above the middle of its noise, more where the light or the noise
    changes: the level follows the PAPER_QUANTILE of the darkness about each pixel (below heavy
    ink), no higher than the typical darkness plus NOISE_SIGMAS of its spread (where a digit fills
    the picture), lifted by the median of what is left."""
    level = np.minimum(
        local_quantile(smooth, PAPER_WINDOW, PAPER_QUANTILE, QUANTILE_SIDE),
        np.median(smooth) + NOISE_SIGMAS * _spread(smooth),
    )
    level = level + np.median(smooth - level)
    return level, _spread(smooth - level)


def _spread(values: np.ndarray) -> float:
    """The standard deviation of the noise of ``values`` [H, W] about their median, robustly: 1.4826
    times their median absolute deviation, on every other pixel each way."""
    sample = values[::2, ::2]
    return 1.4826 * float(np.median(np.abs(sample - np.median(sample))))
