"""A straightforward CapsNet: the reference tests/test_naive_equivalence.py checks capsnet.CapsNet
against, and the baseline bench/train_throughput.py times it against.

It is the same network with the digit capsules written as a plain reading of Sabour et al. 2017
gives them: u_hat built with einsum, einsum routing with gradients through every routing
iteration, fp32, no tricks. Conv1, PrimaryCaps and the decoder are capsnet's own (they hold no
routing), so one state_dict loads into both and the two compare the routing alone.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from capsnet import CapsNet, CapsNetConfig, squash


def naive_routing(u_hat: torch.Tensor, iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Procedure 1 with gradients through every iteration: u_hat [B, I, J, D] -> v [B, J, D], c [B, I, J]."""
    b = torch.zeros(u_hat.shape[:3], device=u_hat.device)  # b_ij, [B, I, J]
    for iteration in range(iterations):
        c = F.softmax(b, dim=2)  # c_ij = softmax_j(b_ij)   (eq. 3)
        s = torch.einsum("bij,bijd->bjd", c, u_hat)  # s_j = sum_i c_ij u_hat_j|i (eq. 2)
        v = squash(s)  # v_j = squash(s_j)        (eq. 1)
        if iteration < iterations - 1:
            b = b + torch.einsum("bijd,bjd->bij", u_hat, v)  # b_ij += u_hat_j|i . v_j
    return v, c


class NaiveDigitCapsules(nn.Module):
    def __init__(self, config: CapsNetConfig):
        super().__init__()
        self.W = nn.Parameter(
            0.01
            * torch.randn(
                config.num_primary_capsules, config.num_classes, config.digit_capsule_dim, config.primary_capsule_dim
            )
        )

    def forward(self, u: torch.Tensor, iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
        u_hat = torch.einsum("ijdk,bik->bijd", self.W, u)  # u_hat_j|i = W_ij u_i, [B, 1152, 10, 16]
        return naive_routing(u_hat, iterations)


class NaiveCapsNet(CapsNet):
    """capsnet.CapsNet with straightforward digit capsules, parameter-compatible with it."""

    def __init__(self, config: CapsNetConfig = CapsNetConfig()):
        super().__init__(config)
        self.digits = NaiveDigitCapsules(self.config)
