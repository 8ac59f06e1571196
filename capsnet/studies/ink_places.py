"""Where in a digit a change adds ink and where it takes it away, in the digit's own frame, and the
names that say so: "the bottom grows →", "the top-left shrinks →", "ink from top to bottom-right →".

The frame is the box of the digit's ink (``shape_measures.ink_box``: the pixels at least half ink
of the unperturbed reconstruction) cut into thirds each way, cells numbered row by row:

    0 1 2      top-left     top     top-right
    3 4 5      left        centre       right
    6 7 8      bottom-left bottom bottom-right

A pixel outside the box counts in the nearest third. A part a name points to is a side (its three
cells: "the top" is cells 0, 1, 2), a corner or the centre (one cell each). A change of one digit
(the image at +range minus the image at -range) is split by sign and cell: the ink it adds and the
ink it removes in each cell, as fractions of the change's total |x(+range) - x(-range)|.

A place name claims, for each digit, that the change is where it says: each named part changes
with its named sign (it gains ink where the name says "grows", loses it where it says "shrinks";
for "ink from A to B", A loses and B gains), by at least STANDS_OUT times as much per pixel as the
rest of the digit gains or loses. A part's change is its net change, the ink added less the ink
removed, per cell of the part, and it must beat the net change of every cell outside the named
parts, either way (the cells are ninths of the box, so per cell is per pixel). A change spread
over the whole digit, or all along a side of which a name gives one corner, holds no place. Which
claims a dimension earns and how they are checked on digits the naming never saw:
``capsnet.studies.dimension_names_claims``.
"""

import itertools
from dataclasses import dataclass

import torch

from capsnet.studies.shape_measures import EPS, ink_box

PARTS = {
    "top": (0, 1, 2),
    "bottom": (6, 7, 8),
    "left": (0, 3, 6),
    "right": (2, 5, 8),
    "centre": (4,),
    "top-left": (0,),
    "top-right": (2,),
    "bottom-left": (6,),
    "bottom-right": (8,),
}  # the cells of each part, numbered as in the module's docstring
CORNER_PAIRS = {
    ("top-left", "top-right"): "top corners",
    ("bottom-left", "bottom-right"): "bottom corners",
    ("top-left", "bottom-left"): "left corners",
    ("top-right", "bottom-right"): "right corners",
}  # two corners of one side, said in fewer words
STANDS_OUT = 1.5  # each named part gains (or loses) 1.5 times as much per cell as any other cell gains or loses


def thirds(change: torch.Tensor, images: torch.Tensor) -> torch.Tensor:
    """The ink ``change`` adds and removes in each cell of each digit's box, as fractions of the
    change's total |change|.

    Args:
        change: the signed change of each digit, [N, H, W].
        images: the digits whose ink sets the boxes, [N, H, W].

    Returns:
        [N, 2, 9]: [:, 0] the ink added in each cell, [:, 1] the ink removed (both >= 0); each
        digit's 18 entries sum to 1 (to 0 where the change is nothing).
    """
    height, width = images.shape[-2:]
    top, bottom, left, right = ink_box(images)  # [N] each
    row = third(torch.arange(height, dtype=images.dtype), top, bottom)  # [N, H]
    column = third(torch.arange(width, dtype=images.dtype), left, right)  # [N, W]
    cell = (3 * row[:, :, None] + column[:, None, :]).flatten(1)  # [N, H*W]
    added = torch.zeros(len(change), 9, dtype=change.dtype).scatter_add_(1, cell, change.clamp_min(0).flatten(1))
    removed = torch.zeros(len(change), 9, dtype=change.dtype).scatter_add_(1, cell, (-change).clamp_min(0).flatten(1))
    total = change.abs().sum((-2, -1)).clamp_min(EPS)[:, None, None]  # [N, 1, 1]
    return torch.stack((added, removed), 1) / total


def third(coordinates: torch.Tensor, first: torch.Tensor, last: torch.Tensor) -> torch.Tensor:
    """Which third of [first, last] (pixel indices, inclusive) each coordinate's pixel centre falls
    in: 0, 1 or 2 (the nearest third outside), [N, len(coordinates)]."""
    size = (last - first + 1)[:, None]  # [N, 1]
    return ((coordinates - first[:, None] + 0.5) / (size / 3)).floor().clamp(0, 2).long()


@dataclass(frozen=True)
class PlaceClaim:
    """Dragging the slider right adds ink in the parts ``grows`` and takes it away in ``shrinks``."""

    grows: tuple[str, ...] = ()  # parts of PARTS
    shrinks: tuple[str, ...] = ()

    kind = "place"

    @property
    def name(self) -> str:
        if self.grows and self.shrinks:
            return f"ink from {self.shrinks[0]} to {self.grows[0]} →"
        parts, verbs = (self.grows, ("grows", "grow")) if self.grows else (self.shrinks, ("shrinks", "shrink"))
        if len(parts) == 1:
            return f"the {parts[0]} {verbs[0]} →"
        return f"the {CORNER_PAIRS.get(parts, ' and '.join(parts))} {verbs[1]} →"

    @property
    def cells(self) -> int:
        """How many of the box's 9 cells the claim names: the fewer, the more it says."""
        return len(self.cells_of(self.grows)) + len(self.cells_of(self.shrinks))

    @staticmethod
    def cells_of(parts: tuple[str, ...]) -> list[int]:
        return sorted({cell for part in parts for cell in PARTS[part]})

    def holds(self, shares: torch.Tensor) -> torch.Tensor:
        """On which digits the claim holds, [N] booleans, from ``thirds``' [N, 2, 9]: each named part's
        net change, with its sign, per cell, at least STANDS_OUT times every other cell's |net change|."""
        net = shares[:, 0] - shares[:, 1]  # [N, 9]: added less removed
        rest = [cell for cell in range(9) if cell not in self.cells_of(self.grows + self.shrinks)]
        rest_change = net[:, rest].abs().amax(-1)  # [N]: the most any cell outside the parts gains or loses
        held = torch.ones(len(shares), dtype=torch.bool)
        for sign, parts in ((1, self.grows), (-1, self.shrinks)):
            for part in parts:
                change = sign * net[:, PARTS[part]].sum(-1) / len(PARTS[part])  # [N]: per cell, with its sign
                held &= (change > 0) & (change >= STANDS_OUT * rest_change)
        return held


def place_claims() -> tuple[PlaceClaim, ...]:
    """Every claim a place name can make: one part grows or shrinks; two parts, neither inside the
    other, grow or shrink; ink goes from one part to another that shares no cell with it."""
    singles = [(part,) for part in PARTS]
    pairs = [
        (a, b)
        for a, b in itertools.combinations(PARTS, 2)
        if not (set(PARTS[a]) <= set(PARTS[b]) or set(PARTS[b]) <= set(PARTS[a]))
    ]
    moves = [
        PlaceClaim(grows=(b,), shrinks=(a,))
        for a, b in itertools.permutations(PARTS, 2)
        if not set(PARTS[a]) & set(PARTS[b])
    ]
    return (
        *(PlaceClaim(grows=parts) for parts in singles + pairs),
        *(PlaceClaim(shrinks=parts) for parts in singles + pairs),
        *moves,
    )


PLACE_CLAIMS = place_claims()
