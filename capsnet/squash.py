"""The squashing non-linearity (Sabour et al. 2017, eq. 1)."""

import torch

EPSILON = 1e-8  # keeps the norm's gradient finite at s = 0


def squash(s: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Shrink vectors to a length in [0, 1) while keeping their direction.

    v = |s|^2 / (1 + |s|^2) * s / |s|   (eq. 1)

    Args:
        s: capsule inputs, any shape; the capsule's vector runs along ``dim``.
        dim: the axis that holds the vector.
    """
    squared_norm = (s * s).sum(dim=dim, keepdim=True)
    return s * (squared_norm / (1.0 + squared_norm)) / torch.sqrt(squared_norm + EPSILON)
