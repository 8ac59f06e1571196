"""Routing by agreement between capsule layers (Sabour et al. 2017, Procedure 1)."""
import torch
import torch.nn.functional as F

from capsnet.squash import squash


def dynamic_routing(u_hat: torch.Tensor, iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Route the predictions of the lower capsules i to the upper capsules j.

    The routing logits b_ij start at zero for every example (they are never shared across the
    batch). Only the last iteration carries gradients back into u_hat: the earlier ones only decide
    the coupling coefficients, and differentiating through them costs time and memory for no gain
    in accuracy (the same choice as the widely used Keras implementation by Xifeng Guo).

    Args:
        u_hat: predictions u_hat_j|i = W_ij u_i, shape [B, I, J, D].
        iterations: r in Procedure 1, at least 1.

    Returns:
        v: the upper capsules, [B, J, D]; c: the final coupling coefficients c_ij, [B, I, J].
    """
    if iterations < 1:
        raise ValueError(f"routing needs at least one iteration, got {iterations}")
    b = u_hat.new_zeros(u_hat.shape[:3])                    # [B, I, J]
    with torch.no_grad():
        u_hat_const = u_hat.detach()
        for _ in range(iterations - 1):
            c = F.softmax(b, dim=2)                          # c_ij = softmax_j(b_ij)   (eq. 3)
            s = torch.einsum("bij,bijd->bjd", c, u_hat_const)  # s_j = sum_i c_ij u_hat_j|i (eq. 2)
            v = squash(s)                                    # v_j = squash(s_j)        (eq. 1)
            b = b + torch.einsum("bijd,bjd->bij", u_hat_const, v)  # b_ij += u_hat_j|i . v_j
    c = F.softmax(b, dim=2)                                  # [B, I, J]
    s = torch.einsum("bij,bijd->bjd", c, u_hat)              # [B, J, D]
    return squash(s), c
