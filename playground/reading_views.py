"""What the reading section shows, drawn from plain arrays: the reading panel, the digit read with
its capsule length, the 28x28 image the network reads, the bars of the capsule lengths, the
decoder's reconstruction and the runner-up's, in one piece of HTML (views.py: one output for the
page to update). The panel carries `data-revision`, the drawing pad's revision it was read from, so
the page (and its tests) can tell which drawing it shows, and the reading's capsules for the
page's decoder.
"""

import base64
import html

import numpy as np
import torch

from playground.views import lengths_svg, picture_html


def reading_panel(
    image: np.ndarray | None,
    lengths: np.ndarray,
    winner: int | None,
    reconstruction: torch.Tensor | None,
    decoded: int | None,
    revision: int | None,
    settled: bool = False,
    runner_up: int | None = None,
    runner_up_reconstruction: torch.Tensor | None = None,
    capsules: np.ndarray | None = None,
    decoder: str | None = None,
) -> str:
    """Everything a reading shows, in one piece of HTML (one output for the page to update):
    the predicted digit, large, with its capsule length; the 28x28 image the network reads; the
    bars of every capsule's length; the decoder's reconstruction; what else it could be, the
    runner-up's reconstruction. Before any drawing (``image`` None): a grey "?", empty pictures
    and empty bars.

    Args:
        image: the network's input, [28, 28] ink in [0, 1].
        lengths: |v_j| for every digit capsule, [10].
        winner: the longest capsule.
        reconstruction: the decoder's picture, [28, 28] in [0, 1].
        decoded: the capsule it was decoded from.
        revision: the drawing pad's revision this reading is of.
        settled: the drawing is finished (no stroke is being drawn): the panel's module (reading_panel.js)
            asks for what follows a reading.
        runner_up: the second-longest capsule, shown with its reconstruction when given.
        runner_up_reconstruction: the decoder's picture of it, [28, 28] in [0, 1].
        capsules: the reading's capsules v, [10, 16], and ``decoder`` the address of the decoder
            file of the network that read them: given both, the panel carries them for the
            page's decoder (playground/page/reading_panel.js), which redraws the reconstruction in the page.
    """
    if image is None:
        digit = '<div class="digit empty">?</div><div class="caption">Draw a digit</div>'
        data, title = "", "Reconstruction from the capsule"
    else:
        digit = (
            f'<div class="digit">{winner}</div><div class="caption">capsule length {float(lengths[winner]):.3f}</div>'
        )
        data, title = f' data-revision="{revision}"', f"Reconstruction from capsule {decoded}"
        if capsules is not None and decoder is not None:
            data += (
                f' data-decoder="{html.escape(decoder)}" data-decoded="{decoded}" data-winner="{winner}"'
                f' data-capsules="{capsules_base64(capsules)}"'
            )
    data += ' data-settled=""' if settled else ""
    other = (
        ""
        if runner_up is None
        else (
            f'<figure class="runner-up"><figcaption>What else it could be: {runner_up}, capsule length '
            f"{float(lengths[runner_up]):.3f}</figcaption>"
            f"{picture_html(runner_up_reconstruction, f'reconstruction from capsule {runner_up}, the runner-up')}"
            "</figure>"
        )
    )
    return (
        f'<div class="panel"{data}>'
        f'<div class="reading">{digit}</div>'
        f'<figure class="input"><figcaption>What the network sees (28x28)</figcaption>'
        f"{picture_html(image, 'the 28x28 image the network reads')}</figure>"
        f'<figure class="bars"><figcaption>Capsule lengths</figcaption>'
        f"{lengths_svg(lengths, winner)}</figure>"
        f'<figure class="reconstruction"><figcaption>{title}</figcaption>'
        f"{picture_html(reconstruction, title.lower())}</figure>{other}</div>"
    )


def capsules_base64(capsules: np.ndarray | torch.Tensor) -> str:
    """Capsules as the page's decoder reads them: float32 little-endian, in base64 (exact, and a
    third the length of the numbers written out)."""
    return base64.b64encode(np.asarray(capsules, dtype="<f4").tobytes()).decode("ascii")
