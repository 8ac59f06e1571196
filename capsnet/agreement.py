"""Routing by agreement made visible for one image: where the votes come from, how agreement
sharpens with more iterations, and how well the winning capsule's voters agree.

Primary capsule i = type * 36 + row * 6 + column (32 types on a 6x6 grid), as in capsnet.model.
"""
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from capsnet.model import CapsNet, CapsNetConfig
from capsnet.routing import dynamic_routing

_CONFIG = CapsNetConfig()
TYPES = _CONFIG.primary_capsule_types  # 32
GRID = _CONFIG.primary_grid            # 6
IMAGE_SIZE = _CONFIG.image_size        # 28
KERNEL = _CONFIG.kernel_size           # 9
PRIMARY_STRIDE = 2                     # PrimaryCaps' stride; Conv1's is 1
# A PrimaryCaps unit at row r reads Conv1 rows 2r .. 2r+8, which read input rows 2r .. 2r+16:
# a 17x17 receptive field (9 + (9 - 1) x 1), and neighbouring capsules sit 2 input pixels apart.
RECEPTIVE_FIELD = 2 * KERNEL - 1       # 17
COSINE_EPSILON = 1e-8                  # keeps the cosine finite for a zero vote or a zero capsule


@dataclass
class RoutingTrace:
    """The routing of one image, redone for r = 1 .. R iterations (row k holds r = k + 1)."""
    u_hat: torch.Tensor        # predictions u_hat_j|i, [1152, 10, 16]
    capsules: torch.Tensor     # v_j after r iterations, [R, 10, 16]
    couplings: torch.Tensor    # c_ij after r iterations, [R, 1152, 10]
    lengths: torch.Tensor      # |v_j|, [R, 10]
    predictions: torch.Tensor  # the longest capsule, [R]


@torch.inference_mode()
def routing_by_iterations(model: CapsNet, image: torch.Tensor, max_iterations: int = 5) -> RoutingTrace:
    """Run the convolutions once, then route the same predictions for r = 1 .. max_iterations.

    Row r - 1 of the trace equals ``model(image, routing_iterations=r)`` for that image.

    Args:
        model: a CapsNet.
        image: one image, [1, 1, 28, 28] floats in [0, 1].
        max_iterations: the largest r, at least 1.
    """
    expected = (1, 1, IMAGE_SIZE, IMAGE_SIZE)
    if tuple(image.shape) != expected:
        raise ValueError(f"expected one image of shape {list(expected)}, got {list(image.shape)}")
    if max_iterations < 1:
        raise ValueError(f"routing needs at least one iteration, got {max_iterations}")
    u = model.primary_capsules(image)                                # [1, 1152, 8]
    u_hat = model.digits.predictions(u).float()                      # [1, 1152, 10, 16]
    routed = [dynamic_routing(u_hat, r) for r in range(1, max_iterations + 1)]
    capsules = torch.cat([v for v, _ in routed])                     # [R, 10, 16]
    couplings = torch.cat([c for _, c in routed])                    # [R, 1152, 10]
    lengths = capsules.norm(dim=-1)                                  # [R, 10]
    return RoutingTrace(u_hat[0], capsules, couplings, lengths, lengths.argmax(dim=1))


def vote_heatmap(couplings: torch.Tensor, u_hat: torch.Tensor, digit: int,
                 capsule_type: int | None = None) -> torch.Tensor:
    """How much of digit capsule j's input s_j each grid position sends: c_ij |u_hat_j|i|.

    s_j = sum_i c_ij u_hat_j|i (eq. 2) is a sum of votes; this map spreads its mass,
    sum_i c_ij |u_hat_j|i|, over the 6x6 grid. Summed over the whole grid it equals that mass,
    which bounds |s_j| from above (equality only when all votes point the same way). The maps of
    the 32 types add up to the map of all types.

    Args:
        couplings: c_ij, [..., 1152, 10].
        u_hat: predictions u_hat_j|i, [..., 1152, 10, 16].
        digit: j, the digit capsule the votes go to.
        capsule_type: one primary capsule type (0 .. 31), or None for the sum over all types.

    Returns:
        [..., 6, 6]: entry (row, col) sums c_ij |u_hat_j|i| over the capsules i at that position.
    """
    if not 0 <= digit < couplings.shape[-1]:
        raise ValueError(f"digit must be in 0 .. {couplings.shape[-1] - 1}, got {digit}")
    if capsule_type is not None and not 0 <= capsule_type < TYPES:
        raise ValueError(f"capsule type must be in 0 .. {TYPES - 1} or None, got {capsule_type}")
    mass = couplings[..., digit] * u_hat[..., digit, :].norm(dim=-1)    # [..., 1152]
    per_type = mass.unflatten(-1, (TYPES, GRID, GRID))                  # [..., 32, 6, 6]
    return per_type.sum(dim=-3) if capsule_type is None else per_type[..., capsule_type, :, :]


def receptive_field(row: int, col: int) -> tuple[slice, slice]:
    """The input rows and columns that grid position (row, col) sees: a 17x17 square."""
    top, left = PRIMARY_STRIDE * row, PRIMARY_STRIDE * col
    return slice(top, top + RECEPTIVE_FIELD), slice(left, left + RECEPTIVE_FIELD)


def cell_edges(scale: int) -> np.ndarray:
    """[7] display-pixel edges of the 6 grid cells along one axis, in a 28 * scale image.

    Cell r is as wide as the stride (2 input pixels) and centred on its receptive field's centre,
    2r + 8.5 in input pixels (pixel k spans [k, k + 1)): the cells tile input [7.5, 19.5), so their
    edges fall on whole display pixels when ``scale`` is even.
    """
    twice_first = RECEPTIVE_FIELD - PRIMARY_STRIDE                     # 2 x 7.5
    return scale * (twice_first + 2 * PRIMARY_STRIDE * np.arange(GRID + 1)) // 2


# White paper through ColorBrewer's YlOrRd to dark red: no vote leaves the paper white.
_COLOURS = np.array([[255, 255, 255], [254, 217, 118], [253, 141, 60], [227, 26, 28], [128, 0, 38]],
                    dtype=np.float32)
INK = np.array([20, 20, 60], dtype=np.float32)        # the digit's strokes, drawn over the cells
INK_OPACITY = 0.75                                     # the cells stay visible through the strokes
FIELD_OUTLINE = np.array([33, 102, 172], dtype=np.uint8)  # blue: the strongest position's field


def _colour_map(values: np.ndarray) -> np.ndarray:
    """[...] values in [0, 1] -> [..., 3] float RGB, linear between the colour stops."""
    position = np.clip(values, 0.0, 1.0) * (len(_COLOURS) - 1)
    low = np.minimum(position.astype(np.int64), len(_COLOURS) - 2)
    fraction = (position - low)[..., None]
    return (1 - fraction) * _COLOURS[low] + fraction * _COLOURS[low + 1]


def heatmap_overlay(image: np.ndarray, heat: torch.Tensor | np.ndarray, scale: int = 10) -> np.ndarray:
    """The 6x6 heatmap laid over the digit, upscaled crisp.

    Each grid position is drawn as a square cell at the centre of the 17x17 patch of the input it
    sees (``cell_edges``), coloured by its share of the map: white for none, the middle of the
    colour scale for an average position's share, dark red for twice the average or more. So a map
    where every position votes alike is uniformly orange, whatever its total. The digit's strokes
    are drawn over the cells, and the strongest position's receptive field is outlined in blue.
    Each input pixel of the digit becomes a ``scale`` x ``scale`` block.

    Args:
        image: the 28x28 input, floats in [0, 1] with 1 for ink (MNIST polarity).
        heat: [6, 6], e.g. from ``vote_heatmap``; non-negative.
        scale: display pixels per input pixel, a positive even number (cells start half-way
            through input pixels).

    Returns:
        uint8 RGB, [28 * scale, 28 * scale, 3].
    """
    image = np.asarray(image, dtype=np.float32)
    heat = np.asarray(heat, dtype=np.float32)
    if image.shape != (IMAGE_SIZE, IMAGE_SIZE):
        raise ValueError(f"expected a {IMAGE_SIZE}x{IMAGE_SIZE} image, got shape {image.shape}")
    if heat.shape != (GRID, GRID):
        raise ValueError(f"expected a {GRID}x{GRID} heatmap, got shape {heat.shape}")
    if scale < 2 or scale % 2:
        raise ValueError(f"scale must be a positive even number, got {scale}")
    side = IMAGE_SIZE * scale
    mean = heat.mean()
    canvas = np.full((side, side, 3), 255.0, dtype=np.float32)        # [28s, 28s, 3]
    if mean > 0:
        edges = cell_edges(scale)                                      # [7]
        cell = np.arange(edges[0], edges[-1])
        index = np.searchsorted(edges, cell, side="right") - 1         # display pixel -> grid index
        canvas[np.ix_(cell, cell)] = _colour_map(heat / (2 * mean))[np.ix_(index, index)]
    ink = INK_OPACITY * np.clip(image, 0.0, 1.0).repeat(scale, axis=0).repeat(scale, axis=1)[..., None]
    rgb = np.rint((1 - ink) * canvas + ink * INK).astype(np.uint8)     # [28s, 28s, 3]
    if mean > 0:
        rows, cols = receptive_field(*np.unravel_index(heat.argmax(), heat.shape))
        top, bottom, left, right = scale * rows.start, scale * rows.stop, scale * cols.start, scale * cols.stop
        rgb[top:bottom, [left, left + 1, right - 2, right - 1]] = FIELD_OUTLINE
        rgb[[top, top + 1, bottom - 2, bottom - 1], left:right] = FIELD_OUTLINE
    return rgb


def agreement(u_hat: torch.Tensor, v: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """How well each digit capsule's voters agree with it: the coupling-weighted mean cosine.

    A_j = sum_i c_ij cos(u_hat_j|i, v_j) / sum_i c_ij, in [-1, 1]; 1 when every vote points
    along v_j. Routing raises c_ij where u_hat_j|i . v_j is large, so A_j tends to rise with r.

    Args:
        u_hat: predictions u_hat_j|i, [..., 1152, 10, 16].
        v: digit capsules v_j, [..., 10, 16].
        c: couplings c_ij, [..., 1152, 10].

    Returns:
        A_j for every digit capsule, [..., 10].
    """
    cosine = F.cosine_similarity(u_hat, v.unsqueeze(-3), dim=-1, eps=COSINE_EPSILON)  # [..., 1152, 10]
    return (c * cosine).sum(dim=-2) / c.sum(dim=-2).clamp_min(COSINE_EPSILON)
