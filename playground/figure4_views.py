"""The paper's Figure 4 as the dimensions section shows it, drawn from the decoder's pictures: one
row per dimension of the capsule decoded, its name, then the digit redrawn at each offset of the
sweep (Sabour et al. 2017, section 5.1), one piece of HTML with each row's strip an inline PNG
(views.py).
"""

import html

import numpy as np
import torch

from playground.views import paper, png_data_url


def figure4_html(images: torch.Tensor | None, names: list[str], ends: str) -> str:
    """The paper's Figure 4 as a table: one row per dimension, its name, then the decoder's
    picture at each offset of the sweep.

    Args:
        images: [D, S, 28, 28] reconstructions in [0, 1], row d sweeping one dimension; None
            before any drawing.
        names: D row labels, in the rows' order.
        ends: the sweep's range, for the heading, e.g. "-0.25 … +0.25".
    """
    if images is None:
        return '<div class="figure4 empty"><b>Figure 4</b>: draw a digit to see what each of its dimensions does.</div>'
    rows, columns, side, _ = images.shape
    strips = np.ones((rows, side, columns, side + 1), dtype=np.float32) * 0.19  # faint gaps
    strips[..., :side] = images.numpy().transpose(0, 2, 1, 3)  # [D, 28, S, 28]
    strips = strips.reshape(rows, side, columns * (side + 1))[..., :-1]
    low, high = ends.split(" … ")
    head = (
        "<caption>Figure 4: each row one dimension, swept over its slider's range</caption>"
        f'<tr><th></th><th class="offsets"><span>{html.escape(low)}</span><span>0</span>'
        f"<span>{html.escape(high)}</span></th></tr>"
    )
    body = "".join(
        f'<tr><th scope="row">{html.escape(name)}</th><td><img src="{png_data_url(paper(strip))}" '
        f'alt="{html.escape(name)}, swept"></td></tr>'
        for name, strip in zip(names, strips, strict=True)
    )
    width = strips.shape[-1]  # a strip's pixels across: on a phone drawn no smaller (playground.css)
    return f'<table class="figure4" style="--figure4-strip-width: {width}">{head}{body}</table>'
