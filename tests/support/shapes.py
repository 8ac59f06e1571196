"""Shapes of ink whose measures are known exactly."""

import torch


def bar(height: int, width: int) -> torch.Tensor:
    """A 28x28 image holding one upright bar of full ink with a half-grey rim."""
    image = torch.zeros(28, 28)
    top, left = 14 - height // 2, 14 - width // 2
    image[top - 1 : top + height + 1, left - 1 : left + width + 1] = 0.5
    image[top : top + height, left : left + width] = 1.0
    return image
