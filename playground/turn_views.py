"""MNIST's test digits turned, as the Turn-it section's sweep shows them beside your digit turned
(playground/page/sweep_view.js): the curve measured once for the app's weights, which goes to the
page once, with the section's layout.
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Curve:
    """Accuracy over MNIST's test digits turned through ``angles`` (weights/robustness.json)."""

    angles: np.ndarray  # degrees, [A]
    capsnet: np.ndarray  # the CapsNet's accuracy at each angle, in [0, 1], [A]
    cnn: np.ndarray  # the CNN's, [A]
    images: int  # how many test digits each figure is over


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
