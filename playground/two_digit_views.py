"""What the Two-digits section shows, drawn from plain arrays: the one or two digits read, each
redrawn from its own capsule in its own colour and laid over the input (the paper's Figure 5), the
capsule lengths with the digits read marked and the line between one digit and two, the CNN's ten
probabilities beside.

As views.py says, everything one event changes is one piece of HTML with the pictures inline; as the
reading panel does (reading_views.py), the panel carries `data-revision`, the drawing's revision it
was read from.
"""

import html
from dataclasses import dataclass

import numpy as np

from capsnet.digit_count import CountRule, as_compared
from playground.views import lengths_svg, png_data_url

PAPER_WHITE = np.array([255, 255, 255], dtype=np.float32)
INPUT_SHADE = 0.3  # Figure 5: the input in light grey under the two redrawn digits
CNN_COLOUR = "#7f7f7f"


@dataclass(frozen=True)
class PairView:
    """What one reading of two digits shows."""

    image: np.ndarray  # the networks' input, [28, 28] ink in [0, 1]
    layers: np.ndarray  # each pen's ink in the input's frame, [2, 28, 28] in [0, 1]
    lengths: np.ndarray  # the pairs CapsNet's ten capsule lengths
    read: tuple[int, ...]  # the digits it read: its longest capsule, and the second where the rule reads two
    second: int  # its second-longest capsule, read or not
    second_ink: float  # the share of the ink only that capsule's redrawing covers
    rule: CountRule  # where the CapsNet reads a second digit
    redrawn: np.ndarray  # each digit read redrawn from its own capsule alone, [1 or 2, 28, 28]
    colours: tuple[str, ...]  # the CSS colour of each digit read: the pen whose ink it redraws
    pen_colours: tuple[str, str]  # each pen's colour
    probabilities: np.ndarray  # the pairs CNN's ten sigmoids
    cnn_read: tuple[int, ...]  # the digits it read, the more probable first
    cnn_rule: CountRule  # where the CNN reads a second digit
    revision: int
    decoded: int | None = None  # a digit chosen under *Decode as* that is not one of the two read
    decoded_redrawn: np.ndarray | None = None  # its capsule redrawn, [28, 28]


def rgb(colour: str) -> np.ndarray:
    """ "#rrggbb" as float32 [3]."""
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.float32)


def tinted(inks: np.ndarray, colours: list[str], under: np.ndarray | None = None) -> np.ndarray:
    """uint8 [28, 28, 3]: each ink of ``inks`` [K, 28, 28] in its colour on white paper (or on
    ``under``, an RGB picture), the stronger ink on top where they meet."""
    paper = (
        PAPER_WHITE * np.ones(inks.shape[1:] + (3,), dtype=np.float32) if under is None else under.astype(np.float32)
    )
    inks = np.clip(np.asarray(inks, dtype=np.float32), 0, 1)
    strongest = inks.argmax(axis=0)  # [28, 28]
    alpha = np.take_along_axis(inks, strongest[None], axis=0)[0][..., None]  # [28, 28, 1]
    colour = np.stack([rgb(c) for c in colours])[strongest]  # [28, 28, 3]
    return np.rint(paper * (1 - alpha) + colour * alpha).astype(np.uint8)


def figure5(image: np.ndarray, redrawn: np.ndarray, colours: tuple[str, ...]) -> np.ndarray:
    """uint8 [28, 28, 3]: the input in light grey, the redrawn digits [k, 28, 28] over it in their colours."""
    grey = tinted(image[None] * INPUT_SHADE, ["#000000"])
    return tinted(redrawn, list(colours), under=grey)


def picture(pixels: np.ndarray, alt: str, css: str = "picture") -> str:
    return f'<img class="{css}" src="{png_data_url(pixels)}" alt="{html.escape(alt)}">'


def beside_its_line(value: float, line: float, decimals: int, scale: float = 1.0, unit: str = "") -> tuple[str, str]:
    """``value`` and ``line`` times ``scale``, written with ``decimals`` places and ``unit``, or with
    as many more places as it takes for the written value to stand on the written line's side that
    the value stands on: a share of 0.0296 beside a line of 0.03 is "2.96%" and "3.00%", never
    "3.0%" below "3.0%". (A value at or above its line is never written below it: rounding keeps
    the order.)"""
    value, line = scale * value, scale * line
    while value < line and float(f"{value:.{decimals}f}") >= float(f"{line:.{decimals}f}"):
        decimals += 1
    return f"{value:.{decimals}f}{unit}", f"{line:.{decimals}f}{unit}"


def count_note(view: PairView) -> str:
    """Why the CapsNet read one digit or two: its second-longest capsule's length, and the ink only
    that capsule's redrawing covers, each against its line (`capsnet.digit_count`) as the rule
    compares them (`as_compared`), each figure written on its line's true side (`beside_its_line`)."""
    rule = view.rule
    second, second_line = as_compared(view.lengths[view.second]), as_compared(rule.second)
    shown, line = beside_its_line(second, second_line, 2)
    length = (
        f"the second-longest capsule, <b>{view.second}</b>, is {shown} long "
        f"({'at or above' if second >= second_line else 'below'} {line})"
    )
    ink = ""
    if rule.second_ink is not None:
        second_ink, ink_line = as_compared(view.second_ink), as_compared(rule.second_ink)
        shown, line = beside_its_line(second_ink, ink_line, 1, 100, "%")
        ink = (
            f"its redrawing covers {shown} of the ink that the {view.read[0]}'s leaves "
            f"({'at or above' if second_ink >= ink_line else 'below'} {line})"
        )
    why = f"{length} and {ink}" if ink else length
    lines = "the lines between one digit and two" if ink else "the line between one digit and two"
    if len(view.read) == 2:
        return f'<p class="count" data-count="2">Two digits read: {why}; {lines} chosen on validation examples.</p>'
    return f'<p class="count" data-count="1">One digit read: {why}; {lines} chosen on validation examples.</p>'


def pair_panel(view: PairView | None, prompt: str) -> str:
    """The section's panel: the digits read, Figure 5, each digit redrawn alone, the lengths, why
    one digit or two, the CNN beside; ``prompt`` alone before any drawing."""
    if view is None:
        return f'<div class="pair empty">{html.escape(prompt)}</div>'
    length = view.lengths
    digits = '<span class="and">&amp;</span>'.join(
        f'<span class="digit" style="color: {colour}">{digit}</span>'
        for digit, colour in zip(view.read, view.colours, strict=True)
    )
    redrawn = "".join(
        picture(tinted(view.redrawn[k : k + 1], [colour]), f"{digit} redrawn from its own capsule", "picture redrawn")
        for k, (digit, colour) in enumerate(zip(view.read, view.colours, strict=True))
    )
    lengths = " and ".join(f"{float(length[digit]):.2f}" for digit in view.read)
    cnn_read = " &amp; ".join(str(digit) for digit in view.cnn_read)
    colours = dict(zip(view.read, view.colours, strict=True))
    cnn_colours = {digit: CNN_COLOUR for digit in view.cnn_read}
    decoded = (
        ""
        if view.decoded is None
        else (
            f'<figure class="decoded"><figcaption>Capsule {view.decoded} redrawn (not read: '
            f"{float(length[view.decoded]):.2f} long)</figcaption>"
            f"{picture(tinted(view.decoded_redrawn[None], ['#000000']), f'capsule {view.decoded} redrawn')}</figure>"
        )
    )
    return (
        f'<div class="pair" data-revision="{view.revision}" data-read="{"".join(map(str, view.read))}">'
        f'<div class="pair-reading"><div class="digits">{digits}</div>'
        f'<div class="redrawn-pair">{redrawn}</div>'
        f'<div class="caption">capsule length{"s" * (len(view.read) > 1)} {lengths}</div></div>'
        f'<figure class="pair-input"><figcaption>What the networks see (28x28; the colours are only for you)'
        f"</figcaption>{picture(tinted(view.layers, list(view.pen_colours)), 'the 28x28 image both networks read')}"
        f"</figure>"
        f'<figure class="figure5"><figcaption>Each capsule redraws its own digit (the paper\'s Figure 5)'
        f"</figcaption>"
        f"{picture(figure5(view.image, view.redrawn, view.colours), 'the digits read redrawn over the input')}"
        f"</figure>"
        f'<figure class="pair-bars"><figcaption>Capsule lengths: the longest, and the second where it reaches the '
        f"line and its redrawing covers ink of its own (below), are the digits read</figcaption>"
        f"{lengths_svg(length, None, 'lengths of the digit capsules', colours, view.rule.second)}"
        f"</figure>"
        f"{decoded}"
        f'<figure class="pair-cnn"><figcaption>The CNN trained on the same examples reads <b>{cnn_read}</b> (ten '
        f"independent probabilities, the second counted from {view.cnn_rule.second:.2f})</figcaption>"
        f"{lengths_svg(view.probabilities, None, 'the CNN probabilities', cnn_colours, view.cnn_rule.second)}"
        f"</figure>{count_note(view)}</div>"
    )
