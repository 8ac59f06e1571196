"""How other writers' and scanners' ink differs from MNIST's, as changes of a batch of digits.

MNIST's digits are grey-level scans, anti-aliased when they were shrunk into their 20x20 box,
keeping their aspect ratio. Other sources differ in three ways that a network trained on MNIST
reads badly (docs/pairs.md, "Under changed ink"):

- **bilevel**: hard-edged ink, each pixel ink or paper (a pen on a pad at full strength, a bilevel
  scan such as Semeion's);
- **coarse**: drawn or scanned at a low resolution and enlarged (Semeion's 16x16 digits, fitted
  into MNIST's 20x20 box);
- **square-filling**: each digit stretched to fill a square box, whatever its shape (Semeion's
  scans were stretched so, and a 1 is as wide as it is tall);

and, as within MNIST, in how thick the strokes are (`thickness_changed`).
"""

import torch
import torch.nn.functional as F

from capsnet.data.preprocess import INK_THRESHOLD

MAX_SQUARING = 6.0  # a digit's box is stretched at most this much (a 1 one pixel wide would be 20x)


def bilevel(images: torch.Tensor, level: torch.Tensor | float) -> torch.Tensor:
    """Ink where ``images`` [N, ...] reach ``level`` (a fraction of each image's strongest ink,
    [N] or one for all), paper elsewhere: 1.0 or 0.0."""
    level = torch.as_tensor(level, dtype=images.dtype, device=images.device).expand(len(images))
    strongest = images.flatten(1).amax(dim=1).clamp_min(1e-6)
    threshold = (level * strongest).view((-1,) + (1,) * (images.dim() - 1))
    return (images >= threshold).to(images.dtype)


def coarse(images: torch.Tensor, side: int, level: torch.Tensor | None = None) -> torch.Tensor:
    """``images`` [N, C, H, W] as if drawn at ``side`` x ``side`` pixels and enlarged: each
    side x side pixel the mean of the area it covers, made `bilevel` at ``level`` [N] there where
    given (a bilevel scan at that resolution), then enlarged back bilinearly."""
    small = F.interpolate(images, size=(side, side), mode="area")
    if level is not None:
        small = bilevel(small, level)
    return F.interpolate(small, size=images.shape[-2:], mode="bilinear", align_corners=False)


def squaring(images: torch.Tensor) -> torch.Tensor:
    """How much each digit's ink box must be stretched in width to fill a square: its height over
    its width (its rows and columns with INK_THRESHOLD of its strongest ink), at most MAX_SQUARING
    either way. ``images`` [N, H, W] -> [N]."""
    strong = images >= INK_THRESHOLD * images.flatten(1).amax(dim=1).clamp_min(1e-6).view(-1, 1, 1)
    height = strong.any(dim=2).sum(dim=1).clamp_min(1).float()
    width = strong.any(dim=1).sum(dim=1).clamp_min(1).float()
    return (height / width).clamp(1 / MAX_SQUARING, MAX_SQUARING)


def thickness_changed(ink: torch.Tensor, change: torch.Tensor) -> torch.Tensor:
    """Ink [N, C, H, W] moved ``change`` [N] of the way towards its 3x3 dilation (change > 0:
    thicker) or its 3x3 erosion (change < 0: thinner)."""
    flat = ink.flatten(0, 1).unsqueeze(1)
    thicker = F.max_pool2d(flat, 3, stride=1, padding=1).view_as(ink)
    thinner = -F.max_pool2d(-flat, 3, stride=1, padding=1).view_as(ink)
    change = change.view(-1, 1, 1, 1)
    return ink + change.clamp_min(0) * (thicker - ink) + change.clamp_max(0) * (ink - thinner)
