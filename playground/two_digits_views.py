"""What the Two-digits panel shows, as numbers: the page draws them
(playground/page/two_digits_view.js), whoever computed them. These are the server's: the one or two
digits read, the second-longest capsule and the ink only its redrawing covers, each network's count
rule, the ten capsule lengths and the CNN's ten probabilities, the pictures as grey levels (the
input, each pen's ink in it, each digit read redrawn from its own capsule alone, the capsule
*Decode as* chose where it is not one read) and each one's colour. The page colours the pictures as `tinted`
and `figure5` do (two_digits_view.js's port, two_digits_tinted.js); here they draw the examples
under the pad and /predict_pair's Figure 5.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from capsnet.digit_count import CountRule
from playground.views import ink_base64

PAPER_WHITE = np.array([255, 255, 255], dtype=np.float32)
INPUT_SHADE = 0.3  # Figure 5: the input in light grey under the two redrawn digits


@dataclass(frozen=True)
class ShownPair:
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


def pair_numbers(view: ShownPair) -> dict:
    """The panel's value for a reading: {"revision": the two-pen pad's revision read, "read": the
    CapsNet's digits [1 or 2], the longer capsule first, "second": its second-longest capsule,
    "second_ink", "rule": its count rule {"second", "second_ink"}, "lengths": [10], "probabilities":
    the CNN's [10], "cnn_read", "cnn_rule", "image": the input, "layers": each pen's ink [2],
    "redrawn": each digit read redrawn [1 or 2] (pictures as `ink_base64`), "colours": each digit
    read's colour, "pen_colours" [2] ("#rrggbb"), "decoded" and "decoded_redrawn": the capsule
    *Decode as* chose and its picture, where it is not one read, else null}."""
    return {
        "revision": view.revision,
        "read": [int(digit) for digit in view.read],
        "second": int(view.second),
        "second_ink": float(view.second_ink),
        "rule": dataclasses.asdict(view.rule),
        "lengths": np.asarray(view.lengths, dtype=float).tolist(),
        "probabilities": np.asarray(view.probabilities, dtype=float).tolist(),
        "cnn_read": [int(digit) for digit in view.cnn_read],
        "cnn_rule": dataclasses.asdict(view.cnn_rule),
        "image": ink_base64(view.image),
        "layers": [ink_base64(layer) for layer in view.layers],
        "redrawn": [ink_base64(ink) for ink in view.redrawn],
        "colours": list(view.colours),
        "pen_colours": list(view.pen_colours),
        "decoded": view.decoded,
        "decoded_redrawn": None if view.decoded_redrawn is None else ink_base64(view.decoded_redrawn),
    }


def no_pair() -> dict:
    """The panel's value before any drawing, or for one with too little ink: it asks for two digits."""
    return {"revision": None}


def pair_message(text: str) -> dict:
    """The panel's value where it cannot show a reading: why not."""
    return {"message": text}


def rgb(colour: str) -> np.ndarray:
    """ "#rrggbb" as float32 [3]."""
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.float32)


def tinted(inks: np.ndarray, colours: list[str], under: np.ndarray | None = None) -> np.ndarray:
    """uint8 [28, 28, 3]: each ink of ``inks`` [K, 28, 28] in its colour on white paper (or on
    ``under``, an RGB picture), the stronger ink on top where they meet; computed in float32."""
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
