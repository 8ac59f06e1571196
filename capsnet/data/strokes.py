"""Digits as strokes: the one-pixel skeleton of a digit's ink, that skeleton as line segments, the
segments redrawn with a round pen of any width, and how wide a digit's strokes are.

A digit drawn on the playground's pad reaches the network as a clean line of one width (the pad's
pen, shrunk with the digit into MNIST's 20x20 box), while MNIST's digits are scanned ink of every
width. Thinning an MNIST digit to its skeleton and drawing the skeleton again with a pen of a
chosen width gives training digits in the page's own ink (`capsnet.data.written`).

- Thinning: Zhang & Suen (1984), "A fast parallel algorithm for thinning digital patterns", CACM
  27(3): two sub-iterations that peel the boundary pixels whose removal keeps the shape connected,
  until none is left to remove; here on a whole batch of digits at once.
- The pen: each pixel's ink is how much of it a disc of radius r swept along the segments covers,
  clamp(r + 1/2 - d, 0, 1) with d the distance from the pixel's centre to the nearest segment (the
  anti-aliasing that area-averaging a crisp line gives, to first order).
- Stroke width: ink / skeleton length (the area of a line of width w and length l is w * l).
"""

import itertools

import torch
import torch.nn.functional as F

BINARY_THRESHOLD = 0.4  # a pixel is ink for thinning when it holds at least this much (MNIST: 0..1)
# Each skeleton pixel is joined to the skeleton pixels to its right, below, below right and below
# left: every pair of 8-neighbours once.
NEIGHBOUR_STEPS = ((0, 1), (1, 0), (1, 1), (1, -1))


def _neighbours(image: torch.Tensor) -> list[torch.Tensor]:
    """P2..P9 of Zhang & Suen for every pixel of ``image`` [B, H, W] (outside the image is 0):
    north, north-east, east, south-east, south, south-west, west, north-west."""
    padded = F.pad(image, (1, 1, 1, 1))
    height, width = image.shape[1:]
    at = lambda dy, dx: padded[:, 1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width]  # noqa: E731
    return [at(-1, 0), at(-1, 1), at(0, 1), at(1, 1), at(1, 0), at(1, -1), at(0, -1), at(-1, -1)]


def skeletons(images: torch.Tensor, threshold: float = BINARY_THRESHOLD) -> torch.Tensor:
    """The one-pixel-wide skeletons of digits by Zhang-Suen thinning.

    Args:
        images: ink in [0, 1], [B, H, W] (any device).
        threshold: pixels with at least this much ink are the shape thinned.

    Returns:
        bool [B, H, W], True on the skeleton.
    """
    skeleton = (images >= threshold).to(torch.uint8)
    active = torch.arange(len(skeleton), device=skeleton.device)  # the digits still being thinned
    while len(active):
        thinning, changed = skeleton[active], torch.zeros(len(active), dtype=torch.bool, device=skeleton.device)
        for sub_iteration in (0, 1):
            p2, p3, p4, p5, p6, p7, p8, p9 = _neighbours(thinning)
            ring = (p2, p3, p4, p5, p6, p7, p8, p9, p2)
            count = p2 + p3 + p4 + p5 + p6 + p7 + p8 + p9  # B(P1)
            transitions = sum(((a == 0) & (b == 1)).to(torch.uint8) for a, b in itertools.pairwise(ring))  # A(P1)
            if sub_iteration == 0:
                spared = (p2 * p4 * p6 == 0) & (p4 * p6 * p8 == 0)
            else:
                spared = (p2 * p4 * p8 == 0) & (p2 * p6 * p8 == 0)
            remove = (thinning == 1) & (count >= 2) & (count <= 6) & (transitions == 1) & spared
            thinning = thinning * ~remove
            changed |= remove.flatten(1).any(dim=1)
        skeleton[active] = thinning
        active = active[changed]
    return skeleton.bool()


def segments(skeleton: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Each skeleton as line segments between neighbouring skeleton pixels, in pixel coordinates
    whose pixel (row i, column j) has its centre at x = j + 1/2, y = i + 1/2. A diagonal step is
    left out where the skeleton also goes round it through a pixel beside both ends (the corner of
    an L), and a pixel with no neighbour (a dot) is a segment of length 0.

    Args:
        skeleton: bool [B, H, W].

    Returns:
        ends: float32 [B, K, 4], each segment's (x0, y0, x1, y1), K the most any skeleton has;
        valid: bool [B, K], which of the K are segments (the rest pad).
    """
    batch, height, width = skeleton.shape
    padded = F.pad(skeleton, (1, 1, 1, 1))
    at = lambda dy, dx: padded[:, 1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width]  # noqa: E731
    lonely = skeleton.clone()
    found = []  # (example, row, column, dy, dx) a kind
    for dy, dx in NEIGHBOUR_STEPS:
        edge = skeleton & at(dy, dx)
        lonely &= ~edge & ~(skeleton & at(-dy, -dx))
        if dy and dx:  # diagonal: not round an L's corner
            edge &= ~at(0, dx) & ~at(dy, 0)
        found.append((edge, dy, dx))
    found.append((lonely, 0, 0))
    examples, ends = [], []
    for mask, dy, dx in found:
        example, row, column = mask.nonzero(as_tuple=True)
        examples.append(example)
        ends.append(torch.stack([column, row, column + dx, row + dy], dim=1))
    example, order = torch.cat(examples), None
    example, order = example.sort(stable=True)
    ends = torch.cat(ends)[order].float() + 0.5  # [S, 4]
    counts = torch.bincount(example, minlength=batch)  # segments an example
    count = int(counts.max()) if batch and len(example) else 0
    slot = torch.arange(len(example), device=skeleton.device) - (counts.cumsum(0) - counts)[example]
    packed = ends.new_zeros(batch, count, 4)
    packed[example, slot] = ends
    return packed, torch.arange(count, device=skeleton.device) < counts.unsqueeze(1)


def distance_within_reach(ends: torch.Tensor, valid: torch.Tensor, reach: torch.Tensor, side: int) -> torch.Tensor:
    """The distance from each pixel centre of a side x side image to the nearest valid segment,
    where one is within ``reach``; inf where none is. Each segment measures only the pixels of its
    box grown by the reach, so the work follows the ink, not segments x pixels.

    Args:
        ends: [B, K, 4] (ax, ay, bx, by) in pixels; valid: bool [B, K]; reach: [B], pixels.

    Returns:
        [B, side * side].
    """
    example, segment = valid.nonzero(as_tuple=True)  # the valid segments, [S] each
    ax, ay, bx, by = ends[example, segment].unbind(-1)  # [S] each
    grown = reach[example].unsqueeze(1)  # [S, 1]
    # The first and last pixel of each box, a pixel more each side than its centre needs (x + 0.5).
    low = (torch.stack([ax.minimum(bx), ay.minimum(by)], 1) - grown - 1).floor().clamp(0, side - 1).long()
    high = (torch.stack([ax.maximum(bx), ay.maximum(by)], 1) + grown).ceil().clamp(0, side - 1).long()  # [S, 2]
    sizes = high - low + 1  # [S, 2] (width, height)
    pixels = sizes.prod(1)  # [S], each box's
    pair = torch.repeat_interleave(pixels)  # each (segment, pixel of its box) pair's segment, [N]
    place = torch.arange(len(pair), device=ends.device) - (pixels.cumsum(0) - pixels)[pair]
    x = low[pair, 0] + place % sizes[pair, 0]  # [N]
    y = low[pair, 1] + place // sizes[pair, 0]
    px, py = x.to(ends.dtype) + 0.5, y.to(ends.dtype) + 0.5
    ax, ay, bx, by = ax[pair], ay[pair], bx[pair], by[pair]
    dx, dy = bx - ax, by - ay
    t = (((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy).clamp_min(1e-12)).clamp_(0, 1)
    squared = (ax + t * dx - px).square_() + (ay + t * dy - py).square_()  # to each segment's nearest point
    nearest = ends.new_full((len(ends) * side * side,), float("inf"))
    nearest.scatter_reduce_(0, (example[pair] * side + y) * side + x, squared, "amin")
    return nearest.view(len(ends), side * side).sqrt_()


def pen_ink(ends: torch.Tensor, valid: torch.Tensor, radius: torch.Tensor, side: int = 28) -> torch.Tensor:
    """The segments drawn with a round pen of ``radius`` pixels [B] (a line 2 * radius wide) on a
    side x side image: float32 [B, side, side] in [0, 1]."""
    reach = radius + 0.5  # a pixel further from every segment holds no ink
    distance = distance_within_reach(ends, valid, reach, side)  # [B, side^2]
    ink = (reach.unsqueeze(1) - distance).clamp(0, 1)
    return ink.view(-1, side, side)


def stroke_width(images: torch.Tensor) -> torch.Tensor:
    """How wide each digit's strokes are, in pixels [B] (NaN without a skeleton): the width w of
    lines as long as the skeleton and as much ink, a line's end counted half a width longer than
    the skeleton reaches (thinning eats that much of it): ink = w (length + ends * w / 2), solved
    for w, with the length summed over `segments` and the ends the skeleton's pixels with one
    neighbour.

    Args:
        images: ink in [0, 1], [B, H, W], each digit's strongest ink about 1.
    """
    skeleton = skeletons(images)
    ends, valid = segments(skeleton)
    length = ((ends[..., 2:] - ends[..., :2]).norm(dim=-1) * valid).sum(dim=1)
    neighbours = (
        F.conv2d(
            F.pad(skeleton.float().unsqueeze(1), (1, 1, 1, 1)), torch.ones(1, 1, 3, 3, device=images.device)
        ).squeeze(1)
        - skeleton.float()
    )
    line_ends = (skeleton & (neighbours == 1)).flatten(1).sum(dim=1).float()
    ink = images.flatten(1).sum(dim=1)
    # (ends / 2) w^2 + length w - ink = 0; a loop (no ends): w = ink / length
    width = torch.where(
        line_ends > 0,
        (-length + (length**2 + 2 * line_ends * ink).sqrt()) / line_ends.clamp_min(1),
        ink / length.clamp_min(1e-6),
    )
    return width.where(skeleton.flatten(1).any(dim=1), torch.nan)
