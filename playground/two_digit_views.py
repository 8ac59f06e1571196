"""What the Two-digits section shows, drawn from plain arrays: two digits read at once, each redrawn
from its own capsule in its own colour and laid over the input (the paper's Figure 5), the capsule
lengths with the two longest marked, the CNN's ten probabilities beside.

As in views.py, everything one event changes is one piece of HTML with the pictures inline, and the
panel carries `data-revision`, the drawing's revision it was read from.
"""
import html
from dataclasses import dataclass

import numpy as np

from playground.views import lengths_svg, png_data_url

PAPER_WHITE = np.array([255, 255, 255], dtype=np.float32)
INPUT_SHADE = 0.3    # Figure 5: the input in light grey under the two redrawn digits
PRESENT = 0.5        # a capsule this long or longer says its digit is there: halfway between the
                     # margin loss's m+ = 0.9 and m- = 0.1 (eq. 4); the CNN's sigmoids alike
CNN_COLOUR = "#7f7f7f"


@dataclass(frozen=True)
class PairView:
    """What one reading of two digits shows."""
    image: np.ndarray             # the networks' input, [28, 28] ink in [0, 1]
    layers: np.ndarray            # each pen's ink in the input's frame, [2, 28, 28] in [0, 1]
    lengths: np.ndarray           # the pairs CapsNet's ten capsule lengths
    read: tuple[int, int]         # its two longest capsules, the longer first
    redrawn: np.ndarray           # each of the two redrawn from its own capsule alone, [2, 28, 28]
    colours: tuple[str, str]      # the CSS colour of each of the two: the pen whose ink it redraws
    pen_colours: tuple[str, str]  # each pen's colour
    probabilities: np.ndarray     # the pairs CNN's ten sigmoids
    cnn_read: tuple[int, int]     # its two most probable, the more probable first
    revision: int
    pens_used: int                # how many pens have ink: 1 is a single digit
    decoded: int | None = None    # a digit chosen under *Decode as* that is not one of the two read
    decoded_redrawn: np.ndarray | None = None   # its capsule redrawn, [28, 28]


def rgb(colour: str) -> np.ndarray:
    """"#rrggbb" as float32 [3]."""
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.float32)


def tinted(inks: np.ndarray, colours: list[str], under: np.ndarray | None = None) -> np.ndarray:
    """uint8 [28, 28, 3]: each ink of ``inks`` [K, 28, 28] in its colour on white paper (or on
    ``under``, an RGB picture), the stronger ink on top where they meet."""
    paper = PAPER_WHITE * np.ones(inks.shape[1:] + (3,), dtype=np.float32) if under is None else under.astype(np.float32)
    inks = np.clip(np.asarray(inks, dtype=np.float32), 0, 1)
    strongest = inks.argmax(axis=0)                                              # [28, 28]
    alpha = np.take_along_axis(inks, strongest[None], axis=0)[0][..., None]     # [28, 28, 1]
    colour = np.stack([rgb(c) for c in colours])[strongest]                      # [28, 28, 3]
    return np.rint(paper * (1 - alpha) + colour * alpha).astype(np.uint8)


def figure5(image: np.ndarray, redrawn: np.ndarray, colours: tuple[str, str]) -> np.ndarray:
    """uint8 [28, 28, 3]: the input in light grey, both redrawn digits over it in their colours."""
    grey = tinted(image[None] * INPUT_SHADE, ["#000000"])
    return tinted(redrawn, list(colours), under=grey)


def picture(pixels: np.ndarray, alt: str, css: str = "picture") -> str:
    return f'<img class="{css}" src="{png_data_url(pixels)}" alt="{html.escape(alt)}">'


def pair_panel(view: PairView | None, prompt: str) -> str:
    """The section's panel: the two digits read, Figure 5, each digit redrawn alone, the lengths,
    the CNN beside; ``prompt`` alone before any drawing."""
    if view is None:
        return f'<div class="pair empty">{html.escape(prompt)}</div>'
    (a, b), (colour_a, colour_b) = view.read, view.colours
    length = view.lengths
    present = int((length > PRESENT).sum())
    cnn_read = view.cnn_read
    one_digit = "" if view.pens_used != 1 else (
        f'<p class="one-digit">One pen only, so one digit drawn: this network was trained on pairs only and '
        f'always names two. Its second capsule, <b>{b}</b>, is {float(length[b]):.2f} long '
        f'({present} of the ten are longer than {PRESENT}, the margin loss\'s line between present and absent).</p>')
    decoded = "" if view.decoded is None else (
        f'<figure class="decoded"><figcaption>Capsule {view.decoded} redrawn (not read: '
        f'{float(length[view.decoded]):.2f} long)</figcaption>'
        f'{picture(tinted(view.decoded_redrawn[None], ["#000000"]), f"capsule {view.decoded} redrawn")}</figure>')
    return (
        f'<div class="pair" data-revision="{view.revision}" data-read="{a}{b}">'
        f'<div class="pair-reading"><div class="digits">'
        f'<span class="digit" style="color: {colour_a}">{a}</span><span class="and">&amp;</span>'
        f'<span class="digit" style="color: {colour_b}">{b}</span></div>'
        f'<div class="redrawn-pair">'
        f'{picture(tinted(view.redrawn[:1], [colour_a]), f"{a} redrawn from its own capsule", "picture redrawn")}'
        f'{picture(tinted(view.redrawn[1:], [colour_b]), f"{b} redrawn from its own capsule", "picture redrawn")}'
        f'</div><div class="caption">capsule lengths {float(length[a]):.2f} and {float(length[b]):.2f}</div></div>'
        f'<figure class="pair-input"><figcaption>What the networks see (28x28; the colours are only for you)'
        f'</figcaption>{picture(tinted(view.layers, list(view.pen_colours)), "the 28x28 image both networks read")}'
        f'</figure>'
        f'<figure class="figure5"><figcaption>Each capsule redraws its own digit (the paper\'s Figure 5)'
        f'</figcaption>{picture(figure5(view.image, view.redrawn, view.colours), "both digits redrawn over the input")}'
        f'</figure>'
        f'<figure class="pair-bars"><figcaption>Capsule lengths: the two longest are the digits read</figcaption>'
        f'{lengths_svg(length, None, "lengths of the digit capsules", {a: colour_a, b: colour_b}, PRESENT)}</figure>'
        f'{decoded}'
        f'<figure class="pair-cnn"><figcaption>The CNN trained on the same pairs reads '
        f'<b>{cnn_read[0]} &amp; {cnn_read[1]}</b> (ten independent probabilities)</figcaption>'
        f'{lengths_svg(view.probabilities, None, "the CNN probabilities", {d: CNN_COLOUR for d in cnn_read}, PRESENT)}'
        f'</figure>{one_digit}</div>')
