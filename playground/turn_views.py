"""What the Turn-it section shows, as numbers: the turn panel (the turned digit, both networks'
readings, how the drawn digit's capsule moved) and the rotation sweep (your digit turned, beside
MNIST's test digits turned). The page draws them (playground/page/turn_view.js, sweep_view.js),
whoever computed them: these are the server's, where the page cannot turn a digit itself, and the
page's own have the same shape. MNIST's curve, measured once for the app's weights, goes to the
page once, with the section's layout.
"""

from dataclasses import dataclass

import numpy as np

from playground.views import ink_base64


@dataclass(frozen=True)
class Turned:
    """What both networks make of the drawing, turned."""

    image: np.ndarray  # the turned network input, [28, 28] in [0, 1]
    lengths: np.ndarray  # the CapsNet's capsule lengths |v_j|, [10]
    winner: int  # the CapsNet's reading: the longest capsule
    reconstruction: np.ndarray  # the decoder's picture of the winner, [28, 28] in [0, 1]
    moved: np.ndarray  # the drawn digit's capsule, turned minus as drawn, [16]
    probabilities: np.ndarray  # the CNN's softmax, [10]
    cnn_winner: int  # the CNN's reading


@dataclass(frozen=True)
class Sweep:
    """Both networks on the drawing turned through ``angles``."""

    digit: int  # the drawn digit: the CapsNet's reading of the unturned drawing
    angles: np.ndarray  # degrees, counter-clockwise, [A]
    lengths: np.ndarray  # the CapsNet's length of capsule ``digit`` at each angle, [A]
    readings: np.ndarray  # the CapsNet's reading at each angle, [A]
    probabilities: np.ndarray  # the CNN's probability of ``digit`` at each angle, [A]
    cnn_readings: np.ndarray  # the CNN's reading at each angle, [A]


@dataclass(frozen=True)
class Curve:
    """Accuracy over MNIST's test digits turned through ``angles`` (weights/robustness.json)."""

    angles: np.ndarray  # degrees, [A]
    capsnet: np.ndarray  # the CapsNet's accuracy at each angle, in [0, 1], [A]
    cnn: np.ndarray  # the CNN's, [A]
    images: int  # how many test digits each figure is over


def turn_numbers(turned: Turned, drawn: int, drawn_length: float, revision: int) -> dict:
    """The turn panel's value for a turn: {"revision": the transform sliders' revision it shows,
    "image": the turned input, "reconstruction": the decoder's picture of the CapsNet's winner
    (pictures as `ink_base64`), "lengths": the CapsNet's |v_j| [10], "winner", "probabilities": the
    CNN's [10], "cnn_winner", "moved": the drawn digit's capsule, turned minus as drawn [16],
    "drawn": the CapsNet's reading of the unturned drawing, whose capsule the pose's bars follow,
    "drawn_length": that capsule's length unturned}. None is the panel of no drawing.

    Args:
        turned: what both networks make of the turned drawing.
        drawn: the CapsNet's reading of the unturned drawing.
        drawn_length: that capsule's length, unturned.
        revision: the transform sliders' revision this panel shows.
    """
    return {
        "revision": revision,
        "image": ink_base64(turned.image),
        "reconstruction": ink_base64(turned.reconstruction),
        "lengths": np.asarray(turned.lengths, dtype=float).tolist(),
        "winner": int(turned.winner),
        "probabilities": np.asarray(turned.probabilities, dtype=float).tolist(),
        "cnn_winner": int(turned.cnn_winner),
        "moved": np.asarray(turned.moved, dtype=float).tolist(),
        "drawn": int(drawn),
        "drawn_length": float(drawn_length),
    }


def turn_message(text: str) -> dict:
    """The turn panel's value saying why it cannot turn the digit."""
    return {"message": text}


def sweep_numbers(sweep: Sweep, reading: int) -> dict:
    """The rotation sweep's value for the drawing read at the pad's revision ``reading``:
    {"reading": that revision as a string, for the page to tell which reading the section shows,
    "digit", "angles": degrees [A], "lengths": the CapsNet's length of capsule ``digit`` at each
    angle, "readings": its reading at each, "probabilities": the CNN's probability of ``digit``,
    "cnn_readings": its reading at each}. None is the sweep of no drawing."""
    return {
        "reading": str(reading),
        "digit": int(sweep.digit),
        "angles": np.asarray(sweep.angles, dtype=float).tolist(),
        "lengths": np.asarray(sweep.lengths, dtype=float).tolist(),
        "readings": np.asarray(sweep.readings, dtype=int).tolist(),
        "probabilities": np.asarray(sweep.probabilities, dtype=float).tolist(),
        "cnn_readings": np.asarray(sweep.cnn_readings, dtype=int).tolist(),
    }


def curve_numbers(curve: Curve | None) -> dict | None:
    """MNIST's curve as the page draws it beside every sweep: {"angles": degrees [A], "capsnet",
    "cnn": each network's accuracy at each angle [A], "images": how many test digits}; None where
    there is no measurement."""
    if curve is None:
        return None
    return {
        "angles": np.asarray(curve.angles, dtype=float).tolist(),
        "capsnet": np.asarray(curve.capsnet, dtype=float).tolist(),
        "cnn": np.asarray(curve.cnn, dtype=float).tolist(),
        "images": int(curve.images),
    }
