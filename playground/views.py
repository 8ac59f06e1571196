"""What the playground shows, drawn from plain arrays: the reading, the bars of the capsule
lengths, 28x28 pictures, the Figure-4 grid with its row names, the routing heatmap and table.

Pictures go to the page inline, as PNG data URLs inside HTML: a 28x28 PNG is a few hundred bytes,
the browser scales it up crisp (CSS `image-rendering: pixelated`), and nothing is written to disk
or fetched in a second request. Everything one event changes is one piece of HTML, so the page
updates one component per event: each of Gradio's output components costs the browser work
per event, whatever it shows. The reading panel carries `data-revision`,
the drawing pad's revision it was read from, so the page (and its tests) can tell which drawing
it shows.
"""

import base64
import html
import io

import numpy as np
import torch
from PIL import Image

from capsnet.model import CapsNetConfig


def paper(ink: np.ndarray | torch.Tensor) -> np.ndarray:
    """uint8 pixels of ``ink`` in [0, 1] (MNIST's polarity) as black ink on white paper."""
    return 255 - np.rint(np.asarray(ink, dtype=np.float32).clip(0, 1) * 255).astype(np.uint8)


def upscaled(pixels: np.ndarray, scale: int) -> np.ndarray:
    """``pixels`` with each pixel a ``scale`` x ``scale`` block: crisp when shown large."""
    return pixels.repeat(scale, axis=0).repeat(scale, axis=1)


def png_data_url(pixels: np.ndarray) -> str:
    """A data URL of the uint8 picture ``pixels``, [H, W] grey or [H, W, 3] RGB, as PNG."""
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG", compress_level=1)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def picture_html(ink: np.ndarray | torch.Tensor | None, alt: str) -> str:
    """A 28x28 image (ink in [0, 1]) shown large and crisp; an empty frame for None."""
    if ink is None:
        return f'<div class="picture empty" role="img" aria-label="{html.escape(alt)}"></div>'
    return f'<img class="picture" src="{png_data_url(paper(ink))}" alt="{html.escape(alt)}">'


def lengths_svg(
    lengths: np.ndarray,
    winner: int | None,
    label: str = "lengths of the digit capsules",
    marked: dict[int, str] | None = None,
    line: float | None = None,
) -> str:
    """A bar chart of the capsule lengths (or any ten numbers in [0, 1]) in digit order, the
    winner highlighted; ``label`` says what they are. ``marked``: digits whose bars are drawn in
    their own CSS colour; ``line``: a dashed line across at that height."""
    step = 300 / len(lengths)
    bars = []
    for digit, length in enumerate(np.asarray(lengths, dtype=float)):
        x, height, middle = 8 + step * digit, 100 * length, 8 + step * digit + (step - 8) / 2
        colour = "bar winner" if digit == winner else "bar"
        fill = f' style="fill: {marked[digit]}"' if marked and digit in marked else ""
        bars.append(
            f'<rect class="{colour}"{fill} x="{x:.1f}" y="{112 - height:.1f}" width="{step - 8:.1f}" '
            f'height="{height:.1f}" rx="2"/>'
            f'<text x="{middle:.1f}" y="128" class="axis">{digit}</text>'
            f'<text x="{middle:.1f}" y="{108 - height:.1f}" class="value">{length:.2f}</text>'
        )
    return (
        f'<svg class="lengths" viewBox="0 0 310 134" role="img" aria-label="{html.escape(label)}">'
        '<line x1="4" x2="306" y1="112.5" y2="112.5" class="baseline"/>'
        + (
            ""
            if line is None
            else f'<line x1="4" x2="306" y1="{112 - 100 * line:.1f}" y2="{112 - 100 * line:.1f}" class="threshold"/>'
        )
        + f"{''.join(bars)}</svg>"
    )


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


def message_panel(text: str) -> str:
    """A view (the reading panel, Figure 4, the routing view) saying why it shows nothing."""
    return f'<div class="panel message" role="alert">{html.escape(text)}</div>'


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
