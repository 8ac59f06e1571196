"""A straightforward CapsNet, the baseline the benchmarks compare capsnet.CapsNet against.

It is what a plain reading of Sabour et al. 2017 gives: einsum everywhere, gradients through every
routing iteration, fp32, default PyTorch settings, no tricks. Its parameters have the same names
and shapes as capsnet.CapsNet's, so one state_dict loads into both.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from capsnet import CapsNetConfig, CapsNetOutput


def naive_squash(s: torch.Tensor) -> torch.Tensor:
    """v = |s|^2 / (1 + |s|^2) * s / |s|   (eq. 1), along the last axis."""
    squared_norm = (s**2).sum(dim=-1, keepdim=True)
    return squared_norm / (1 + squared_norm) * s / torch.sqrt(squared_norm + 1e-8)


def naive_routing(u_hat: torch.Tensor, iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Procedure 1 with gradients through every iteration: u_hat [B, I, J, D] -> v [B, J, D], c [B, I, J]."""
    b = torch.zeros(u_hat.shape[:3], device=u_hat.device)      # b_ij, [B, I, J]
    for iteration in range(iterations):
        c = F.softmax(b, dim=2)                                # c_ij = softmax_j(b_ij)   (eq. 3)
        s = torch.einsum("bij,bijd->bjd", c, u_hat)            # s_j = sum_i c_ij u_hat_j|i (eq. 2)
        v = naive_squash(s)                                    # v_j = squash(s_j)        (eq. 1)
        if iteration < iterations - 1:
            b = b + torch.einsum("bijd,bjd->bij", u_hat, v)    # b_ij += u_hat_j|i . v_j
    return v, c


class NaivePrimaryCapsules(nn.Module):
    def __init__(self, config: CapsNetConfig):
        super().__init__()
        self.types = config.primary_capsule_types
        self.dim = config.primary_capsule_dim
        self.conv = nn.Conv2d(config.conv1_channels, self.types * self.dim,
                              kernel_size=config.kernel_size, stride=2)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        x = self.conv(features)                                        # [B, 256, 6, 6]
        batch, _, height, width = x.shape
        x = x.view(batch, self.types, self.dim, height, width)         # channel = type * 8 + component
        u = x.permute(0, 1, 3, 4, 2).reshape(batch, -1, self.dim)      # [B, 1152, 8], i = type*36 + row*6 + col
        return naive_squash(u)


class NaiveDigitCapsules(nn.Module):
    def __init__(self, config: CapsNetConfig):
        super().__init__()
        self.W = nn.Parameter(0.01 * torch.randn(config.num_primary_capsules, config.num_classes,
                                                 config.digit_capsule_dim, config.primary_capsule_dim))

    def forward(self, u: torch.Tensor, iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
        u_hat = torch.einsum("ijdk,bik->bijd", self.W, u)              # u_hat_j|i = W_ij u_i, [B, 1152, 10, 16]
        return naive_routing(u_hat, iterations)


class NaiveCapsNet(nn.Module):
    """Conv1 -> PrimaryCaps -> DigitCaps (routed) -> masked decoder, parameter-compatible with CapsNet."""

    def __init__(self, config: CapsNetConfig | None = None):
        super().__init__()
        self.config = config = config or CapsNetConfig()
        self.conv1 = nn.Conv2d(1, config.conv1_channels, kernel_size=config.kernel_size)
        self.primary = NaivePrimaryCapsules(config)
        self.digits = NaiveDigitCapsules(config)
        hidden1, hidden2 = config.decoder_hidden
        self.decoder = nn.Sequential(
            nn.Linear(config.num_classes * config.digit_capsule_dim, hidden1), nn.ReLU(),
            nn.Linear(hidden1, hidden2), nn.ReLU(),
            nn.Linear(hidden2, config.image_size**2), nn.Sigmoid(),
        )

    def forward(self, images: torch.Tensor, labels: torch.Tensor | None = None) -> CapsNetOutput:
        u = self.primary(F.relu(self.conv1(images)))                   # [B, 1152, 8]
        v, c = self.digits(u, self.config.routing_iterations)          # [B, 10, 16], [B, 1152, 10]
        lengths = v.norm(dim=-1)                                       # [B, 10]
        prediction = lengths.argmax(dim=1)                             # [B]
        mask = F.one_hot(prediction if labels is None else labels, self.config.num_classes).float()
        pixels = self.decoder((v * mask.unsqueeze(-1)).flatten(1))     # [B, 784]
        side = self.config.image_size
        return CapsNetOutput(v, lengths, prediction, pixels.view(-1, 1, side, side), c)
