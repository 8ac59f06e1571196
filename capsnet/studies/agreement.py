"""Routing by agreement for one image, measured: where the votes come from, how agreement
sharpens with more iterations, and how well the winning capsule's voters agree.

Primary capsule i = type * 36 + row * 6 + column (32 types on a 6x6 grid), as in capsnet.model.
"""
from dataclasses import dataclass

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
MAX_ITERATIONS = 5                     # routing_by_iterations redoes the routing for r = 1 .. 5


@dataclass
class RoutingTrace:
    """The routing of one image, redone for r = 1 .. R iterations (row k holds r = k + 1)."""
    u_hat: torch.Tensor        # predictions u_hat_j|i, [1152, 10, 16]
    capsules: torch.Tensor     # v_j after r iterations, [R, 10, 16]
    couplings: torch.Tensor    # c_ij after r iterations, [R, 1152, 10]
    lengths: torch.Tensor      # |v_j|, [R, 10]
    predictions: torch.Tensor  # the longest capsule, [R]


@torch.inference_mode()
def routing_by_iterations(model: CapsNet, image: torch.Tensor,
                          max_iterations: int = MAX_ITERATIONS) -> RoutingTrace:
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


def agreement(u_hat: torch.Tensor, v: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """How well each digit capsule's voters agree with it: the mean cosine between each vote and
    v_j, each vote weighted by its share c_ij |u_hat_j|i| of s_j (what the vote heatmap shows).

    A_j = sum_i c_ij |u_hat_j|i| cos(u_hat_j|i, v_j) / sum_i c_ij |u_hat_j|i|, in [-1, 1]: 1 when
    every vote points along v_j, so that the votes add up in s_j = sum_i c_ij u_hat_j|i (eq. 2)
    without cancelling; since v_j points along s_j, A_j = |s_j| / sum_i c_ij |u_hat_j|i|. (A mean
    of the cosines weighted by c_ij alone counts a vote a thousand times shorter than another as
    much: on a trained network it can rank the runner-up's voters above the winner's.)

    Args:
        u_hat: predictions u_hat_j|i, [..., 1152, 10, 16].
        v: digit capsules v_j, [..., 10, 16].
        c: couplings c_ij, [..., 1152, 10].

    Returns:
        A_j for every digit capsule, [..., 10].
    """
    direction = F.normalize(v, dim=-1, eps=COSINE_EPSILON).unsqueeze(-3)   # v_j / |v_j|, [..., 1, 10, 16]
    along_v = (u_hat * direction).sum(dim=-1)                                # |u_hat_j|i| cos, [..., 1152, 10]
    shares = c * u_hat.norm(dim=-1)                                          # c_ij |u_hat_j|i|
    return (c * along_v).sum(dim=-2) / shares.sum(dim=-2).clamp_min(COSINE_EPSILON)
