"""The routing view, drawn from plain arrays: where the winner's votes come from, as a heatmap of
the primary capsules' 6x6 grid laid over the digit, each cell on the receptive field it sees, and
the capsule lengths after each number of routing iterations (Sabour et al. 2017, section 2,
routing by agreement), in one piece of HTML (views.py).
"""

import numpy as np
import torch

from capsnet.model import CapsNetConfig
from playground.views import png_data_url, upscaled


def cell_edges(config: CapsNetConfig, scale: int) -> np.ndarray:
    """[7] display-pixel edges of the 6 grid cells of ``config``'s primary capsules along one axis,
    in a 28 * scale image.

    Cell r is as wide as the stride (2 input pixels) and centred on its receptive field's centre,
    2r + 8.5 in input pixels (pixel k spans [k, k + 1)): the cells tile input [7.5, 19.5), so their
    edges fall on whole display pixels when ``scale`` is even.
    """
    stride = config.primary_stride
    twice_first = config.receptive_field - stride  # 2 x 7.5
    return scale * (twice_first + 2 * stride * np.arange(config.primary_grid + 1)) // 2


# White paper through ColorBrewer's YlOrRd to dark red: no vote leaves the paper white.
_COLOURS = np.array([[255, 255, 255], [254, 217, 118], [253, 141, 60], [227, 26, 28], [128, 0, 38]], dtype=np.float32)
INK = np.array([20, 20, 60], dtype=np.float32)  # the digit's strokes, drawn over the cells
INK_OPACITY = 0.75  # the cells stay visible through the strokes
FIELD_OUTLINE = np.array([33, 102, 172], dtype=np.uint8)  # blue: the strongest position's field


def _colour_map(values: np.ndarray) -> np.ndarray:
    """[...] values in [0, 1] -> [..., 3] float RGB, linear between the colour stops."""
    position = np.clip(values, 0.0, 1.0) * (len(_COLOURS) - 1)
    low = np.minimum(position.astype(np.int64), len(_COLOURS) - 2)
    fraction = (position - low)[..., None]
    return (1 - fraction) * _COLOURS[low] + fraction * _COLOURS[low + 1]


def heatmap_overlay(
    config: CapsNetConfig, image: np.ndarray, heat: torch.Tensor | np.ndarray, scale: int = 10
) -> np.ndarray:
    """The 6x6 heatmap of ``config``'s primary capsule grid laid over the digit, upscaled crisp.

    Each grid position is drawn as a square cell at the centre of the 17x17 patch of the input it
    sees (``cell_edges``), coloured by its share of the map: white for none, the middle of the
    colour scale for an average position's share, dark red for twice the average or more. So a map
    where every position votes alike is uniformly orange, whatever its total. The digit's strokes
    are drawn over the cells, and the strongest position's receptive field is outlined in blue.
    Each input pixel of the digit becomes a ``scale`` x ``scale`` block.

    Args:
        config: the network's, whose grid and receptive fields the cells are.
        image: the 28x28 input, floats in [0, 1] with 1 for ink (MNIST polarity).
        heat: [6, 6], e.g. from ``capsnet.routing.vote_heatmap``; non-negative.
        scale: display pixels per input pixel, a positive even number (cells start half-way
            through input pixels).

    Returns:
        uint8 RGB, [28 * scale, 28 * scale, 3].
    """
    image = np.asarray(image, dtype=np.float32)
    heat = np.asarray(heat, dtype=np.float32)
    size, grid = config.image_size, config.primary_grid
    if image.shape != (size, size):
        raise ValueError(f"expected a {size}x{size} image, got shape {image.shape}")
    if heat.shape != (grid, grid):
        raise ValueError(f"expected a {grid}x{grid} heatmap, got shape {heat.shape}")
    if scale < 2 or scale % 2:
        raise ValueError(f"scale must be a positive even number, got {scale}")
    side = size * scale
    mean = heat.mean()
    canvas = np.full((side, side, 3), 255.0, dtype=np.float32)  # [28s, 28s, 3]
    if mean > 0:
        edges = cell_edges(config, scale)  # [7]
        cell = np.arange(edges[0], edges[-1])
        index = np.searchsorted(edges, cell, side="right") - 1  # display pixel -> grid index
        canvas[np.ix_(cell, cell)] = _colour_map(heat / (2 * mean))[np.ix_(index, index)]
    ink = INK_OPACITY * upscaled(np.clip(image, 0.0, 1.0), scale)[..., None]  # [28s, 28s, 1]
    rgb = np.rint((1 - ink) * canvas + ink * INK).astype(np.uint8)  # [28s, 28s, 3]
    if mean > 0:
        rows, cols = config.receptive_field_of(*np.unravel_index(heat.argmax(), heat.shape))
        top, bottom, left, right = scale * rows.start, scale * rows.stop, scale * cols.start, scale * cols.stop
        rgb[top:bottom, [left, left + 1, right - 2, right - 1]] = FIELD_OUTLINE
        rgb[[top, top + 1, bottom - 2, bottom - 1], left:right] = FIELD_OUTLINE
    return rgb


def routing_panel(
    config: CapsNetConfig,
    image: np.ndarray | None,
    heat: torch.Tensor | np.ndarray | None = None,
    table: str = "",
    text: str = "",
) -> str:
    """The routing view in one piece: ``heatmap_overlay`` of ``heat`` (``config``'s grid) over
    ``image`` beside the lengths ``table`` and the agreement ``text`` (HTML); a prompt before any
    drawing."""
    if image is None:
        return '<div class="routing-view empty">Draw a digit to see how its votes are routed.</div>'
    return (
        f'<div class="routing-view"><figure><figcaption>Votes for the winner, over your digit</figcaption>'
        f'<img class="heatmap" src="{png_data_url(heatmap_overlay(config, image, heat))}" '
        f'alt="where the votes for the winner come from"></figure>'
        f'<div class="routing-numbers">{table}{text}</div></div>'
    )


def lengths_table(lengths: torch.Tensor, predictions: torch.Tensor, iterations: int) -> str:
    """HTML: one row per number of routing iterations r, the capsule lengths as bars, the winner
    in bold, row ``iterations`` outlined.

    Args:
        lengths: |v_j| after r = 1 .. R iterations, [R, J].
        predictions: the longest capsule after each, [R].
        iterations: the r to outline.
    """
    header = "".join(f"<th>{digit}</th>" for digit in range(lengths.shape[1]))
    rows = []
    for r, (row, winner) in enumerate(zip(lengths.tolist(), predictions.tolist(), strict=True), start=1):
        cells = "".join(
            f"<td style='background:linear-gradient(to top,rgba(227,26,28,.45) {100 * length:.0f}%,"
            f"transparent {100 * length:.0f}%);{'font-weight:700' if digit == winner else ''}'>"
            f"{length:.2f}</td>"
            for digit, length in enumerate(row)
        )
        outline = " class='chosen'" if r == iterations else ""
        rows.append(f"<tr{outline}><th>r = {r}</th>{cells}<td><b>{winner}</b></td></tr>")
    return (
        f"<table class='routing'><tr><th>iterations</th>{header}<th>reads</th></tr>{''.join(rows)}</table>"
        "<small>Capsule lengths |v<sub>j</sub>| for each number of routing iterations r.</small>"
    )
