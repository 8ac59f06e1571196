"""The paper's Figure 4 as the dimensions section shows it: one row per dimension of the capsule
decoded, its name, then the digit redrawn at each offset of the sweep (Sabour et al. 2017, section
5.1). The page draws the table (playground/page/figure4_view.js) from its own decoder's pictures,
or from the server's value (`figure4_value`), whose strips are made here, one PNG a row.
"""

import numpy as np
import torch

from playground.views import paper, png_data_url

GAP_INK = 0.19  # the faint gap between two pictures of a strip (figure4_view.js draws the same)
EMPTY = '<div class="figure4 empty"><b>Figure 4</b>: draw a digit to see what each of its dimensions does.</div>'


def strips(images: torch.Tensor) -> list[str]:
    """Each row of ``images`` ([D, S, 28, 28] reconstructions in [0, 1], row d sweeping one
    dimension) as one strip, the S pictures side by side a faint pixel apart (S * 29 - 1 pixels
    across): PNG data URLs, [D]."""
    rows, columns, side, _ = images.shape
    strip = np.full((rows, side, columns, side + 1), GAP_INK, dtype=np.float32)
    strip[..., :side] = images.numpy().transpose(0, 2, 1, 3)  # [D, 28, S, 28]
    strip = strip.reshape(rows, side, columns * (side + 1))[..., :-1]
    return [png_data_url(paper(row)) for row in strip]


def figure4_value(revision: int, digit: int, scale: str, rows: list[dict], images: torch.Tensor) -> dict:
    """The Figure-4 component's value: the reading's pad ``revision``, the capsule ``digit`` decoded,
    the sliders' range ``scale``, its ``rows`` ({"dimension", "label", "limit"}, in the order shown)
    and their ``strips`` (`strips` of ``images``, [D, S, 28, 28] in the rows' order) with their
    "width" in pixels, which a phone's page draws them no smaller than (playground.css)."""
    _, columns, side, _ = images.shape
    return {
        "revision": revision,
        "digit": digit,
        "range": scale,
        "rows": rows,
        "strips": strips(images),
        "width": columns * (side + 1) - 1,
    }
