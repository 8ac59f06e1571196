"""Routing by agreement between capsule layers (Sabour et al. 2017, Procedure 1).

Procedure 1 only ever uses the predictions u_hat_j|i through two linear maps: the weighted sum
s_j = sum_i c_ij u_hat_j|i and the agreement u_hat_j|i . v_j. ``route`` is the procedure written
against those two maps; ``dynamic_routing`` supplies them from given predictions, and
``dynamic_routing_from_weights`` from u_hat_j|i = W_ij u_i without ever building u_hat (the
[B, 1152, 10, 16] tensor that would otherwise dominate the layer's time and memory).

Routing tensors are laid out digit-capsule first, c and b as [J, B, I], so that both maps are
batched matrix products over contiguous memory and the softmax over j runs along the outer axis.
"""
from collections.abc import Callable

import torch
import torch.nn.functional as F

from capsnet.squash import squash


def route(weighted_sum: Callable[[torch.Tensor], torch.Tensor],
          agreement: Callable[[torch.Tensor], torch.Tensor],
          logits_shape: tuple[int, int, int], iterations: int,
          like: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
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
    b = like.new_zeros(logits_shape)                      # b_ij, [J, B, I]
    with torch.no_grad():
        for _ in range(iterations - 1):
            c = F.softmax(b, dim=0)                       # c_ij = softmax_j(b_ij)   (eq. 3)
            v = squash(weighted_sum(c))                   # v_j = squash(s_j)        (eqs. 1, 2)
            b = b + agreement(v)                          # b_ij += u_hat_j|i . v_j
    c = F.softmax(b, dim=0)                               # [J, B, I]
    v = squash(weighted_sum(c))                           # [J, B, D]
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

    def weighted_sum(c: torch.Tensor) -> torch.Tensor:   # s_j = sum_i c_ij u_hat_j|i   (eq. 2)
        return torch.bmm(c.reshape(-1, 1, inputs), u_hat_t).view(outputs, batch, dim)

    def agreement(v: torch.Tensor) -> torch.Tensor:      # u_hat_j|i . v_j
        return torch.bmm(v.reshape(-1, 1, dim), u_hat_t.transpose(1, 2)).view(outputs, batch, inputs)

    return route(weighted_sum, agreement, (outputs, batch, inputs), iterations, u_hat)


def dynamic_routing_from_weights(u: torch.Tensor, W: torch.Tensor,
                                 iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
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

    def weighted_sum(c: torch.Tensor) -> torch.Tensor:   # s_j = sum_i c_ij W_ij u_i   (eq. 2)
        c_u = (c.unsqueeze(-1) * u).view(outputs, batch, inputs * in_dim)   # c_ij u_i, [J, B, I*K]
        return torch.bmm(c_u, W_t)                                          # [J, B, D]

    def agreement(v: torch.Tensor) -> torch.Tensor:      # u_hat_j|i . v_j = u_i . (W_ij^T v_j)
        W_t_v = torch.bmm(v, W_t.transpose(1, 2)).view(outputs, batch, inputs, in_dim)  # [J, B, I, K]
        return (W_t_v * u).sum(dim=-1)                                                  # [J, B, I]

    return route(weighted_sum, agreement, (outputs, batch, inputs), iterations, u)
