"""Routing by agreement between capsule layers (Sabour et al. 2017, Procedure 1).

Procedure 1 only ever uses the predictions u_hat_j|i through two linear maps: the weighted sum
s_j = sum_i c_ij u_hat_j|i and the agreement u_hat_j|i . v_j. ``route`` is the procedure written
against those two maps; ``dynamic_routing`` supplies them from given predictions, and
``dynamic_routing_from_weights`` from u_hat_j|i = W_ij u_i without ever building u_hat (the
[B, 1152, 10, 16] tensor that would otherwise dominate the layer's time and memory).

Routing tensors are laid out digit-capsule first, c and b as [J, B, I], so that both maps are
batched matrix products over contiguous memory and the softmax over j runs along the outer axis.

Routing made visible, for one example (what the playground shows of every drawing):
``routing_by_iterations`` redoes the routing of the same predictions for r = 1 .. R iterations,
``vote_heatmap`` spreads the votes a digit capsule receives over the primary capsules' grid, and
``agreement`` says how well each digit capsule's voters agree with it.
"""

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from capsnet.squash import squash

COSINE_EPSILON = 1e-8  # keeps agreement's cosine finite for a zero vote or a zero capsule


def route(
    weighted_sum: Callable[[torch.Tensor], torch.Tensor],
    agreement: Callable[[torch.Tensor], torch.Tensor],
    logits_shape: tuple[int, int, int],
    iterations: int,
    like: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Procedure 1, given the two maps of the predictions it needs.

    The routing logits b_ij start at zero for every example (they are never shared across the
    batch). Only the last iteration carries gradients back into the predictions: the earlier ones
    only decide the coupling coefficients, and differentiating through them costs time and memory
    for no gain in accuracy (the same choice as the widely used Keras implementation by Xifeng Guo).

    Args:
        weighted_sum: c [J, B, I] -> s [J, B, D], s_j = sum_i c_ij u_hat_j|i.
        agreement: v [J, B, D] -> [J, B, I], u_hat_j|i . v_j.
        logits_shape: (J, B, I).
        iterations: r in Procedure 1, at least 1.
        like: a tensor whose dtype and device the routing logits take.

    Returns:
        v: the upper capsules, [B, J, D]; c: the final coupling coefficients c_ij, [B, I, J].
    """
    if iterations < 1:
        raise ValueError(f"routing needs at least one iteration, got {iterations}")
    b = like.new_zeros(logits_shape)  # b_ij, [J, B, I]
    with torch.no_grad():
        for _ in range(iterations - 1):
            c = F.softmax(b, dim=0)  # c_ij = softmax_j(b_ij)   (eq. 3)
            v = squash(weighted_sum(c))  # v_j = squash(s_j)        (eqs. 1, 2)
            b = b + agreement(v)  # b_ij += u_hat_j|i . v_j
    c = F.softmax(b, dim=0)  # [J, B, I]
    v = squash(weighted_sum(c))  # [J, B, D]
    return v.transpose(0, 1).contiguous(), c.permute(1, 2, 0).contiguous()


def dynamic_routing(u_hat: torch.Tensor, iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Route given predictions of the lower capsules i to the upper capsules j.

    Args:
        u_hat: predictions u_hat_j|i = W_ij u_i, shape [B, I, J, D].
        iterations: r in Procedure 1, at least 1.

    Returns:
        v: the upper capsules, [B, J, D]; c: the final coupling coefficients c_ij, [B, I, J].
    """
    batch, inputs, outputs, dim = u_hat.shape
    u_hat_t = u_hat.permute(2, 0, 1, 3).reshape(outputs * batch, inputs, dim)  # [J*B, I, D]

    def weighted_sum(c: torch.Tensor) -> torch.Tensor:  # s_j = sum_i c_ij u_hat_j|i   (eq. 2)
        return torch.bmm(c.reshape(-1, 1, inputs), u_hat_t).view(outputs, batch, dim)

    def agreement(v: torch.Tensor) -> torch.Tensor:  # u_hat_j|i . v_j
        return torch.bmm(v.reshape(-1, 1, dim), u_hat_t.transpose(1, 2)).view(outputs, batch, inputs)

    return route(weighted_sum, agreement, (outputs, batch, inputs), iterations, u_hat)


def dynamic_routing_from_weights(
    u: torch.Tensor, W: torch.Tensor, iterations: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """``dynamic_routing(einsum("ijdk,bik->bijd", W, u), iterations)`` without building u_hat.

    Both maps regroup the sums over i and the input components k into one matrix product per
    digit capsule j: s_j = sum_(i,k) (c_ij u_ik) W_ijdk and u_hat_j|i . v_j = u_i . (W_ij^T v_j).

    Args:
        u: the lower capsules u_i, [B, I, K].
        W: the transformation matrices W_ij, [I, J, D, K].
        iterations: r in Procedure 1, at least 1.

    Returns:
        v: the upper capsules, [B, J, D]; c: the final coupling coefficients c_ij, [B, I, J].
    """
    batch, inputs, in_dim = u.shape
    _, outputs, dim, _ = W.shape
    W_t = W.permute(1, 0, 3, 2).reshape(outputs, inputs * in_dim, dim)  # W_ij^T stacked, [J, I*K, D]

    def weighted_sum(c: torch.Tensor) -> torch.Tensor:  # s_j = sum_i c_ij W_ij u_i   (eq. 2)
        c_u = (c.unsqueeze(-1) * u).view(outputs, batch, inputs * in_dim)  # c_ij u_i, [J, B, I*K]
        return torch.bmm(c_u, W_t)  # [J, B, D]

    def agreement(v: torch.Tensor) -> torch.Tensor:  # u_hat_j|i . v_j = u_i . (W_ij^T v_j)
        W_t_v = torch.bmm(v, W_t.transpose(1, 2)).view(outputs, batch, inputs, in_dim)  # [J, B, I, K]
        return (W_t_v * u).sum(dim=-1)  # [J, B, I]

    return route(weighted_sum, agreement, (outputs, batch, inputs), iterations, u)


@dataclass
class RoutingTrace:
    """The routing of one example's predictions, redone for r = 1 .. R iterations (row k holds r = k + 1)."""

    u_hat: torch.Tensor  # predictions u_hat_j|i, [I, J, D] ([1152, 10, 16])
    capsules: torch.Tensor  # v_j after r iterations, [R, J, D]
    couplings: torch.Tensor  # c_ij after r iterations, [R, I, J]
    lengths: torch.Tensor  # |v_j|, [R, J]
    predictions: torch.Tensor  # the longest capsule, [R]


def routing_by_iterations(u_hat: torch.Tensor, max_iterations: int) -> RoutingTrace:
    """Route the same predictions of one example for r = 1 .. max_iterations, each from b_ij = 0.

    Row r - 1 of the trace is ``dynamic_routing(u_hat[None], r)``.

    Args:
        u_hat: predictions u_hat_j|i of one example, [I, J, D].
        max_iterations: the largest r, at least 1.
    """
    if max_iterations < 1:
        raise ValueError(f"routing needs at least one iteration, got {max_iterations}")
    routed = [dynamic_routing(u_hat[None], r) for r in range(1, max_iterations + 1)]
    capsules = torch.cat([v for v, _ in routed])  # [R, J, D]
    couplings = torch.cat([c for _, c in routed])  # [R, I, J]
    lengths = capsules.norm(dim=-1)  # [R, J]
    return RoutingTrace(u_hat, capsules, couplings, lengths, lengths.argmax(dim=1))


def vote_heatmap(
    couplings: torch.Tensor, u_hat: torch.Tensor, digit: int, types: int, grid: int, capsule_type: int | None = None
) -> torch.Tensor:
    """How much of digit capsule j's input s_j each grid position sends: c_ij |u_hat_j|i|.

    s_j = sum_i c_ij u_hat_j|i (eq. 2) is a sum of votes; this map spreads its mass,
    sum_i c_ij |u_hat_j|i|, over the primary capsules' grid. Summed over the whole grid it equals
    that mass, which bounds |s_j| from above (equality only when all votes point the same way).
    The maps of the types add up to the map of all types.

    Args:
        couplings: c_ij, [..., I, J], primary capsule i = type * grid^2 + row * grid + column
            (``capsnet.model.PrimaryCapsules``).
        u_hat: predictions u_hat_j|i, [..., I, J, D].
        digit: j, the digit capsule the votes go to.
        types: the primary capsule types (32), ``CapsNetConfig.primary_capsule_types``.
        grid: the side of their grid (6), ``CapsNetConfig.primary_grid``.
        capsule_type: one primary capsule type (0 .. types - 1), or None for the sum over all types.

    Returns:
        [..., grid, grid]: entry (row, col) sums c_ij |u_hat_j|i| over the capsules i at that position.
    """
    if not 0 <= digit < couplings.shape[-1]:
        raise ValueError(f"digit must be in 0 .. {couplings.shape[-1] - 1}, got {digit}")
    if capsule_type is not None and not 0 <= capsule_type < types:
        raise ValueError(f"capsule type must be in 0 .. {types - 1} or None, got {capsule_type}")
    mass = couplings[..., digit] * u_hat[..., digit, :].norm(dim=-1)  # [..., I]
    per_type = mass.unflatten(-1, (types, grid, grid))  # [..., types, grid, grid]
    return per_type.sum(dim=-3) if capsule_type is None else per_type[..., capsule_type, :, :]


def agreement(u_hat: torch.Tensor, v: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """How well each digit capsule's voters agree with it: the mean cosine between each vote and
    v_j, each vote weighted by its share c_ij |u_hat_j|i| of s_j (what the vote heatmap shows).

    A_j = sum_i c_ij |u_hat_j|i| cos(u_hat_j|i, v_j) / sum_i c_ij |u_hat_j|i|, in [-1, 1]: 1 when
    every vote points along v_j, so that the votes add up in s_j = sum_i c_ij u_hat_j|i (eq. 2)
    without cancelling; since v_j points along s_j, A_j = |s_j| / sum_i c_ij |u_hat_j|i|. (A mean
    of the cosines weighted by c_ij alone counts a vote a thousand times shorter than another as
    much: on a trained network it can rank the runner-up's voters above the winner's.)

    Args:
        u_hat: predictions u_hat_j|i, [..., I, J, D].
        v: digit capsules v_j, [..., J, D].
        c: couplings c_ij, [..., I, J].

    Returns:
        A_j for every digit capsule, [..., J].
    """
    direction = F.normalize(v, dim=-1, eps=COSINE_EPSILON).unsqueeze(-3)  # v_j / |v_j|, [..., 1, J, D]
    along_v = (u_hat * direction).sum(dim=-1)  # |u_hat_j|i| cos, [..., I, J]
    shares = c * u_hat.norm(dim=-1)  # c_ij |u_hat_j|i|
    return (c * along_v).sum(dim=-2) / shares.sum(dim=-2).clamp_min(COSINE_EPSILON)
