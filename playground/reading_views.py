"""What the reading panel shows, as numbers: the page draws them (playground/page/reading_view.js),
whoever computed them. These are the server's, where the page cannot read a drawing itself: the
digit read, the ten capsule lengths, the 28x28 image the network reads, the decoder's
reconstruction of the capsule chosen and the runner-up's, the revision of the drawing pad read, and
the reading's capsules for the page's decoder. The page's own readings have the same shape.
"""

import numpy as np
import torch

from playground.views import float32_base64, ink_base64


def reading_numbers(
    image: np.ndarray,
    lengths: np.ndarray,
    winner: int,
    reconstruction: torch.Tensor,
    decoded: int,
    revision: int,
    settled: bool,
    runner_up: int,
    runner_up_reconstruction: torch.Tensor,
    capsules: np.ndarray | torch.Tensor,
    decoder: str | None,
) -> dict:
    """The reading panel's value for a reading: {"revision", "settled", "winner", "runner_up",
    "decoded", "lengths": [10], "image", "reconstruction", "runner_up_reconstruction": pictures as
    `ink_base64`, "capsules": v [10 * 16] as `float32_base64`, "decoder": the address of the decoder
    file of the network that read them, null where the page's decoder cannot redraw them}.

    Args:
        image: the network's input, [28, 28] ink in [0, 1].
        lengths: |v_j| for every digit capsule, [10].
        winner: the longest capsule.
        reconstruction: the decoder's picture of capsule ``decoded``, [28, 28] in [0, 1].
        decoded: the capsule it was decoded from.
        revision: the drawing pad's revision this reading is of.
        settled: the drawing is finished (no stroke is being drawn).
        runner_up: the second-longest capsule, and ``runner_up_reconstruction`` its picture.
        capsules: the reading's capsules v, [10, 16].
        decoder: see above.
    """
    return {
        "revision": revision,
        "settled": settled,
        "winner": winner,
        "runner_up": runner_up,
        "decoded": decoded,
        "lengths": [float(length) for length in lengths],
        "image": ink_base64(image),
        "reconstruction": ink_base64(reconstruction),
        "runner_up_reconstruction": ink_base64(runner_up_reconstruction),
        "capsules": float32_base64(capsules),
        "decoder": decoder,
    }


def no_reading(settled: bool) -> dict:
    """The reading panel's value before any drawing, or for one with too little ink: it asks for a
    digit. ``settled``: the drawing is finished."""
    return {"revision": None, "settled": settled}


def message(text: str) -> dict:
    """The reading panel's value where it cannot show a reading: why not."""
    return {"message": text}
