"""Where each dimension changes the digit: the picture beside each slider (dimension_sliders.py).

A slider's picture is the decoder's picture of the decoded capsule with that dimension at the
right end of the slider's range, minus its picture at the left end, the other dimensions at zero:
dark blue where dragging right adds ink, pale yellow where it takes ink away, on a mid grey where
nothing changes. The two colours differ in lightness as well as hue (one darker than the grey,
one lighter), so the pictures read the same without colour vision.

The page makes the same pictures with its own decoder, in its network worker (playground/page/
dimension_changes.js, change_colours.js, each a port of the function of the same name here): the
server's are the fallback, sent with the sliders' value where the page cannot draw them.
"""

import numpy as np
import torch

from capsnet.dimensions import sweep_reconstructions
from capsnet.model import CapsNet
from playground import views

UNCHANGED = np.array([180, 180, 180], dtype=np.float32)  # no change: a mid-light grey
ADDED = np.array([8, 48, 107], dtype=np.float32)  # ink added towards the right end: dark blue
REMOVED = np.array([255, 237, 160], dtype=np.float32)  # ink taken away: pale yellow, lighter than the grey
FULL_CHANGE = np.float32(0.5)  # a pixel's ink changed by this much (of 1) or more: the full colour
# the same, for the page's change_colours.js
PALETTE = {
    "unchanged": UNCHANGED.tolist(),
    "added": ADDED.tolist(),
    "removed": REMOVED.tolist(),
    "full_change": float(FULL_CHANGE),
}


def dimension_changes(network: CapsNet, capsules: torch.Tensor, digit: int, limits: torch.Tensor) -> torch.Tensor:
    """The ink each dimension of capsule ``digit`` adds (positive) and takes away (negative) between
    the ends of its slider's range, the other dimensions at zero: 32 decoder runs.

    Args:
        network: supplies the decoder.
        capsules: digit capsules v, [10, 16].
        digit: the capsule decoded.
        limits: how far each dimension's slider goes either way, [16].

    Returns:
        [16, 28, 28]: decoder(v_d + limit) - decoder(v_d - limit) for each dimension d.
    """
    ends = limits[:, None] * torch.tensor([-1.0, 1.0])  # [16, 2]
    with torch.inference_mode():
        images = sweep_reconstructions(network, capsules, digit, ends)  # [16, 2, 28, 28]
    return images[:, 1] - images[:, 0]


def change_colours(difference: np.ndarray | torch.Tensor) -> np.ndarray:
    """uint8 RGB [..., 3] of a change of ink ``difference`` [...] (in [-1, 1]): UNCHANGED at 0,
    towards ADDED as ink is added and towards REMOVED as it is taken away, the full colour from
    FULL_CHANGE on; computed in float32."""
    difference = np.asarray(difference, dtype=np.float32)
    strength = np.minimum(np.abs(difference) / FULL_CHANGE, np.float32(1))[..., None]  # [..., 1]
    towards = np.where(difference[..., None] > 0, ADDED - UNCHANGED, REMOVED - UNCHANGED)  # [..., 3]
    return np.rint(UNCHANGED + strength * towards).astype(np.uint8)


def change_pictures(differences: torch.Tensor) -> list[str]:
    """Each of ``differences`` ([D, 28, 28], `dimension_changes`) as a PNG data URL of its colours."""
    return [views.png_data_url(change_colours(difference)) for difference in differences]
