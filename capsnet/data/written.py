"""Training examples as people write them: one digit, or two overlapping, each varied as hands vary,
in MNIST's scanned ink or in a pen's clean line of one width, made on the fly on any device.

The pairs networks trained on the paper's MultiMNIST alone (`capsnet.data.pairs`) read MNIST's pairs
but not people's: a pair drawn on the page, whose strokes reach the network as clean lines of one
width, was often read with a 1 that was not there, and a single digit always got a second one.
Each example here is made as a pair of MultiMNIST is (two digits of different classes, each moved
by up to 4 pixels in a 36x36 field, the brighter ink winning where they meet, the overlay cropped
to its ink, fitted into 20x20 and its centre of mass put at the centre of 28x28, as
`capsnet.data.preprocess.overlaid_inks_to_mnist` makes a drawing), with these differences:

- SINGLE_SHARE of the examples hold one digit, their target that class alone (labels (d, d)), so
  that a capsule's length says whether its digit is there, as the margin loss means it (eq. 4:
  present above m+ = 0.9, absent below m- = 0.1), and the count can be read from the lengths;
- each digit is turned, sheared, scaled and stretched on its own before it is laid down (ranges
  below, kept where the MNIST CapsNet still reads the digit as itself: docs/pairs.md);
- PEN_SHARE of the examples are drawn in a pen's ink: each digit thinned to its skeleton
  (`capsnet.data.strokes`) and drawn again with a round pen whose line is PEN_WIDTHS wide *in the
  network's 28x28 field*, after the shrink into 20x20 (where the page's strokes land: a pen drawn
  on the pad and then shrunk with its pair can be thin); the others keep MNIST's ink, thinned or
  thickened by up to INK_WIDTH_CHANGE of a pixel's 3x3 erosion or dilation, also in the field;
- and as other writers' and scanners' ink differs from MNIST's (`capsnet.data.ink`), each drawn on
  its own: SQUARING_SHARE of the examples have each digit stretched part or all of the way to fill
  a square box, COARSE_SHARE are drawn at COARSE_SIDES pixels a side and enlarged, BILEVEL_SHARE
  are hard-edged, ink or paper at a level of BILEVEL_LEVELS (at the coarse resolution where coarse).

Everything random is drawn on the CPU from a seeded generator (`draw_examples`), so the same seed
gives the same examples on any device; `render` draws them on the device of the digits.
"""

import math
from dataclasses import dataclass, replace

import torch
import torch.nn.functional as F

from capsnet.data.ink import bilevel, coarse, squaring, thickness_changed
from capsnet.data.pairs import MAX_SHIFT, draw_pairs
from capsnet.data.preprocess import BOX, CENTRE, FIELD, INK_THRESHOLD
from capsnet.data.strokes import pen_ink, segments, skeletons

SINGLE_SHARE = 0.25  # examples that hold one digit
PEN_SHARE = 0.5  # examples drawn in a pen's clean line (both digits), the rest in MNIST's ink
MAX_TURN = math.radians(15)  # each digit turned by up to this much either way ...
MAX_SHEAR = 0.25  # ... slanted by x += shear * y, |shear| up to this ...
SCALES = (0.85, 1.15)  # ... scaled (against the other digit: the pair is fitted to 20x20 anyway) ...
ASPECTS = (0.8, 1.25)  # ... and stretched: width over height, log-uniform
PEN_WIDTHS = (1.0, 4.0)  # the pen's line width in the 28x28 field, pixels, uniform
INK_WIDTH_CHANGE = (-0.6, 1.0)  # MNIST's ink moved this far towards its 3x3 erosion (-) or dilation (+)
SUPERSAMPLE = 3  # MNIST's ink is sampled 3x3 times a field pixel and averaged (area averaging)
DIGIT_CENTRE = FIELD / 2  # a 28x28 digit turns about its centre (pixel edges at 0..28)
PEN_EDGE = 0.3  # a pen's ink is INK_THRESHOLD strong this far outside its radius
SQUARING_SHARE = 0.3  # examples whose digits are stretched towards a square box, uniformly 0..all the way
COARSE_SHARE = 0.3  # examples drawn at a low resolution and enlarged ...
COARSE_SIDES = (14, 22)  # ... the 28x28 field drawn at this many pixels a side (the digit at 10..16), uniform
BILEVEL_SHARE = 0.3  # examples in hard-edged ink ...
BILEVEL_LEVELS = (0.3, 0.6)  # ... ink where the grey level reaches this fraction of the strongest, uniform


@dataclass(frozen=True)
class DigitSet:
    """Digits to make examples of, on the device the examples are drawn on.

    images: float32 [M, 28, 28] in [0, 1]; labels: int64 [M]; ends, valid: each digit's skeleton
    as segments (`capsnet.data.strokes.segments`), [M, K, 4] and bool [M, K]; squaring: [M], the
    stretch of its width that makes its ink box square (`capsnet.data.ink.squaring`).
    """

    images: torch.Tensor
    labels: torch.Tensor
    ends: torch.Tensor
    valid: torch.Tensor
    squaring: torch.Tensor

    @classmethod
    def of(cls, images: torch.Tensor, labels: torch.Tensor, device: torch.device | str = "cpu") -> "DigitSet":
        """The set of MNIST-style digits ``images`` (uint8 [M, 28, 28]) and their ``labels``, thinned
        on ``device`` (how long MNIST's 60,000 take: docs/benchmarks.md)."""
        pixels = images.to(device).float() / 255
        ends, valid = segments(skeletons(pixels))
        return cls(pixels, labels.to(device), ends, valid, squaring(pixels))


@dataclass(frozen=True)
class Examples:
    """What each of N examples is made of (drawn on the CPU); digit 0 is the first, digit 1 the second.

    first, second: indices into the set [N] (second of another class; unused where not ``two``);
    two: bool [N], whether the example holds two digits; shifts: [N, 2, 2] (down, right) in -4..4;
    turns, shears, scales, aspects: [N, 2] each digit's; pen: bool [N], drawn in a pen's line;
    widths: [N] the pen's line width (pixels); ink_change: [N] MNIST's ink's change (pen False);
    squared: [N] how far each digit is stretched towards a square box (0: not at all, 1: all the way);
    coarse: [N] the side the field is drawn at (0: not coarse); level: [N] the bilevel ink's level
    (0: grey levels).
    """

    first: torch.Tensor
    second: torch.Tensor
    two: torch.Tensor
    shifts: torch.Tensor
    turns: torch.Tensor
    shears: torch.Tensor
    scales: torch.Tensor
    aspects: torch.Tensor
    pen: torch.Tensor
    widths: torch.Tensor
    ink_change: torch.Tensor
    squared: torch.Tensor
    coarse: torch.Tensor
    level: torch.Tensor

    def __len__(self) -> int:
        return len(self.first)

    def __getitem__(self, chosen) -> "Examples":
        return Examples(*(getattr(self, name)[chosen] for name in self.__dataclass_fields__))

    def to(self, device: torch.device) -> "Examples":
        """The same examples on ``device``."""
        return Examples(*(on(getattr(self, name), device) for name in self.__dataclass_fields__))

    def labels(self, digit_labels: torch.Tensor) -> torch.Tensor:
        """The classes of each example, [N, 2]: (first, second), or (d, d) for a single digit d
        (the examples on the device of ``digit_labels``)."""
        first, second = digit_labels[self.first], digit_labels[self.second]
        return torch.stack([first, torch.where(self.two, second, first)], dim=1)


def on(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """A CPU tensor on ``device``; on CUDA through pinned memory, so that the copy is queued behind
    the GPU's work instead of waiting for it (a pageable copy waits, and the GPU idles while the
    next batch is drawn)."""
    if device.type == "cuda":
        return tensor.pin_memory().to(device, non_blocking=True)
    return tensor.to(device)


def uniform(low: float, high: float, shape, generator: torch.Generator) -> torch.Tensor:
    return low + (high - low) * torch.rand(shape, generator=generator)


def draw_examples(
    labels: torch.Tensor, first: torch.Tensor, generator: torch.Generator, single_share: float = SINGLE_SHARE
) -> Examples:
    """An example for each digit of ``first`` (indices into a set whose classes are ``labels``
    [M]), ``single_share`` of them one digit alone, everything about it drawn from ``generator``
    (the same seed, the same examples; the draws of other writers' ink come last, so that the
    examples drawn before them stay as they were)."""
    pairs = draw_pairs(labels.cpu(), first.cpu(), generator)
    count = len(first)

    def some(share: float, values: torch.Tensor) -> torch.Tensor:  # values where a share of them is drawn, else 0
        return torch.where(torch.rand(count, generator=generator) < share, values, torch.zeros_like(values))

    return Examples(
        first=pairs.first,
        second=pairs.second,
        shifts=pairs.shifts,
        two=torch.rand(count, generator=generator) >= single_share,
        turns=uniform(-MAX_TURN, MAX_TURN, (count, 2), generator),
        shears=uniform(-MAX_SHEAR, MAX_SHEAR, (count, 2), generator),
        scales=uniform(*SCALES, (count, 2), generator),
        aspects=uniform(*map(math.log, ASPECTS), (count, 2), generator).exp(),
        pen=torch.rand(count, generator=generator) < PEN_SHARE,
        widths=uniform(*PEN_WIDTHS, (count,), generator),
        ink_change=uniform(*INK_WIDTH_CHANGE, (count,), generator),
        squared=some(SQUARING_SHARE, torch.rand(count, generator=generator)),
        coarse=some(COARSE_SHARE, torch.randint(COARSE_SIDES[0], COARSE_SIDES[1] + 1, (count,), generator=generator)),
        level=some(BILEVEL_SHARE, uniform(*BILEVEL_LEVELS, (count,), generator)),
    )


def fixed_examples(digits: DigitSet, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One example for each digit of the set, that digit first, fixed by ``seed`` (the validation
    examples from the held-out training digits; test examples from MNIST's test digits).

    Returns:
        as `render`: inputs [M, 1, 28, 28], labels [M, 2], each digit alone [M, 2, 1, 28, 28].
    """
    examples = draw_examples(digits.labels, torch.arange(len(digits.labels)), torch.Generator().manual_seed(seed))
    made = [render(digits, examples[chosen]) for chosen in torch.arange(len(examples)).split(500)]
    return tuple(torch.cat(parts) for parts in zip(*made, strict=True))


def digit_maps(examples: Examples) -> tuple[torch.Tensor, torch.Tensor]:
    """Where each digit lands in the 36x36 field: f = A (p - c) + c + 4 + shift for a point p of the
    28x28 digit (c its centre), A = turn @ shear @ diag(scale sqrt(aspect), scale / sqrt(aspect)).

    Returns:
        A: [N, 2, 2, 2] (example, digit, row, column); offset: [N, 2, 2], c + 4 + shift as (x, y).
    """
    cos, sin = examples.turns.cos(), examples.turns.sin()
    turn = torch.stack([torch.stack([cos, -sin], -1), torch.stack([sin, cos], -1)], -2)  # [N, 2, 2, 2]
    shear = torch.zeros_like(turn)
    shear[..., 0, 0] = shear[..., 1, 1] = 1
    shear[..., 0, 1] = examples.shears
    root = examples.aspects.sqrt()
    stretch = torch.diag_embed(torch.stack([examples.scales * root, examples.scales / root], -1))
    a = turn @ shear @ stretch
    offset = DIGIT_CENTRE + MAX_SHIFT + examples.shifts.flip(-1).float()  # (right, down) -> (x, y)
    return a, offset


def inverse(a: torch.Tensor) -> torch.Tensor:
    """The inverses of 2x2 matrices [..., 2, 2] (torch.linalg.inv would wait for the GPU to check
    each for singularity; these never are: turns, shears and positive stretches)."""
    (p, q), (r, s) = a.unbind(-2)[0].unbind(-1), a.unbind(-2)[1].unbind(-1)
    determinant = (p * s - q * r).unsqueeze(-1).unsqueeze(-1)
    return torch.stack([torch.stack([s, -q], -1), torch.stack([-r, p], -1)], -2) / determinant


def render(digits: DigitSet, examples: Examples) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The network's input for each example, its classes, and each of its digits alone in the
    input's frame, on the digits' device.

    Returns:
        inputs: float32 [N, 1, 28, 28], the strongest ink 1; labels: [N, 2], (d, d) for a single d;
        digits: float32 [N, 2, 1, 28, 28], the first and the second digit alone, scaled and moved as
        the input was (a single digit's second is the first again).
    """
    device = digits.images.device
    count = len(examples)
    fields = torch.zeros(count, 2, FIELD, FIELD, device=device)
    placed = squared(examples.to(device), digits)
    for drawn, draw in ((examples.pen, _pen_digits), (~examples.pen, _ink_digits)):  # split on the CPU
        if drawn.any():
            chosen = on(drawn.nonzero().squeeze(1), device)
            fields[chosen] = draw(digits, placed[chosen])
    fields[:, 1] = torch.where(placed.two.view(-1, 1, 1), fields[:, 1], fields[:, 0])
    fields = other_inks(fields, examples, placed)
    overlay = fields.amax(dim=1)  # [N, 28, 28]
    strongest = overlay.flatten(1).amax(dim=1).clamp_min(1e-6).view(-1, 1, 1, 1)
    fields, overlay = fields / strongest, overlay / strongest.view(-1, 1, 1)
    moved = centred(torch.cat([overlay.unsqueeze(1), fields], dim=1))  # [N, 3, 28, 28]
    return moved[:, :1], placed.labels(digits.labels), moved[:, 1:].unsqueeze(2)


def squared(examples: Examples, digits: DigitSet) -> Examples:
    """``examples`` (on the digits' device) with each digit's aspect multiplied by its ``squaring``
    to the power ``squared``: stretched that far towards filling a square box."""
    indices = torch.stack([examples.first, examples.second], dim=1)  # [N, 2]
    stretch = digits.squaring[indices] ** examples.squared.unsqueeze(1)
    return replace(examples, aspects=examples.aspects * stretch)


def other_inks(fields: torch.Tensor, examples: Examples, placed: Examples) -> torch.Tensor:
    """Both digits' fields [N, 2, 28, 28] drawn coarse and enlarged, and hard-edged, where
    ``examples`` (on the CPU, to split on) and ``placed`` (the same on the fields' device) say so."""
    changed = fields.clone()
    hard = examples.level > 0
    for side in examples.coarse.unique().tolist():
        for hard_edged in (False, True):
            chosen = ((examples.coarse == side) & (hard == hard_edged)).nonzero().squeeze(1)
            if len(chosen) and (side or hard_edged):
                chosen = on(chosen, fields.device)
                level = placed.level[chosen] if hard_edged else None
                changed[chosen] = coarse(fields[chosen], side, level) if side else bilevel(fields[chosen], level)
    return changed


def _box_maps(low: torch.Tensor, high: torch.Tensor, margin: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The map from the field into the 28x28 frame that fits the ink box [low, high] ([N, 2] each,
    (x, y)) plus ``margin`` [N] of the frame's pixels on every side into the BOX x BOX square at the
    frame's centre, keeping the aspect ratio (the longer side fills it, the shorter is centred):
    frame = k * field + t. Returns k [N] and t [N, 2]."""
    side = (high - low).amax(dim=1).clamp_min(1e-3)  # [N]
    k = (BOX - 2 * margin) / side
    t = FIELD / 2 - k.unsqueeze(1) * (low + high) / 2
    return k, t


def _pen_digits(digits: DigitSet, examples: Examples) -> torch.Tensor:
    """Both digits of each example (on the digits' device) thinned and drawn again with the
    example's pen, the pen's line ``widths`` wide in the 28x28 frame: [N, 2, 28, 28]."""
    a, offset = digit_maps(examples)
    indices = torch.stack([examples.first, examples.second], dim=1)  # [N, 2]
    ends = digits.ends[indices]  # [N, 2, K, 4]
    present = torch.stack([torch.ones_like(examples.two), examples.two], dim=1)  # [N, 2]
    valid = digits.valid[indices] & present.unsqueeze(-1)  # [N, 2, K]
    points = torch.stack([ends[..., :2], ends[..., 2:]], dim=3)  # [N, 2, K, 2, 2]
    moved = torch.einsum("ndij,ndkej->ndkei", a, points - DIGIT_CENTRE) + offset[:, :, None, None, :]
    inside = valid[..., None, None].expand_as(moved)
    low = moved.masked_fill(~inside, math.inf).flatten(1, 3).amin(dim=1)  # [N, 2] (x, y)
    high = moved.masked_fill(~inside, -math.inf).flatten(1, 3).amax(dim=1)
    radius = examples.widths / 2
    k, t = _box_maps(low, high, radius + PEN_EDGE)
    framed = moved * k.view(-1, 1, 1, 1, 1) + t.view(-1, 1, 1, 1, 2)  # [N, 2, K, 2, 2]
    ink = pen_ink(framed.flatten(-2).flatten(0, 1), valid.flatten(0, 1), radius.repeat_interleave(2))
    return ink.view(len(examples), 2, FIELD, FIELD)


def _ink_digits(digits: DigitSet, examples: Examples) -> torch.Tensor:
    """Both digits of each example in MNIST's ink, moved into the field, the pair's ink box fitted
    into the 28x28 frame's BOX x BOX square, and thinned or thickened: [N, 2, 28, 28]."""
    device = digits.images.device
    count = len(examples)
    a, offset = digit_maps(examples)
    indices = torch.stack([examples.first, examples.second], dim=1)
    sources = digits.images[indices].flatten(0, 1).unsqueeze(1)  # [2N, 1, 28, 28]
    present = torch.stack([torch.ones_like(examples.two), examples.two], dim=1)  # [N, 2]
    # The field, 36x36 at one sample a pixel, only to find the pair's ink box as crop_to_ink does.
    field = (
        _sampled(
            sources,
            a,
            offset,
            torch.ones(count, device=device),
            torch.zeros(count, 2, device=device),
            side=2 * MAX_SHIFT + FIELD,
            supersample=1,
        )
        * present[..., None, None]
    )
    overlay = field.amax(dim=1)  # [N, 36, 36]
    strong = overlay >= INK_THRESHOLD * overlay.flatten(1).amax(dim=1).clamp_min(1e-6).view(-1, 1, 1)
    rows, columns = strong.any(dim=2), strong.any(dim=1)  # [N, 36] each
    place = torch.arange(rows.shape[1], device=device)
    low = torch.stack([_first(columns, place), _first(rows, place)], dim=1)  # pixel edges (x, y)
    high = torch.stack([_last(columns, place), _last(rows, place)], dim=1) + 1
    change = examples.ink_change
    k, t = _box_maps(low.float(), high.float(), change.clamp_min(0))  # room for the dilation's growth
    ink = _sampled(sources, a, offset, k, t, side=FIELD, supersample=SUPERSAMPLE) * present[..., None, None]
    return thickness_changed(ink, change)


def _first(mask: torch.Tensor, place: torch.Tensor) -> torch.Tensor:
    """The first index where ``mask`` [N, L] is True in each row (0 where none is)."""
    return torch.where(mask, place, mask.shape[1]).amin(dim=1).clamp_max(mask.shape[1] - 1)


def _last(mask: torch.Tensor, place: torch.Tensor) -> torch.Tensor:
    return torch.where(mask, place, -1).amax(dim=1).clamp_min(0)


def _sampled(
    sources: torch.Tensor,
    a: torch.Tensor,
    offset: torch.Tensor,
    k: torch.Tensor,
    t: torch.Tensor,
    side: int,
    supersample: int,
) -> torch.Tensor:
    """The 28x28 digits ``sources`` [2N, 1, 28, 28] seen in a side x side frame where
    frame = k * field + t and field = A (p - c) + offset: each frame pixel the mean of
    supersample^2 bilinear samples. Returns [N, 2, side, side]."""
    count = len(k)
    fine = side * supersample
    centres = (torch.arange(fine, device=sources.device, dtype=torch.float32) + 0.5) / supersample
    y, x = torch.meshgrid(centres, centres, indexing="ij")
    frame = torch.stack([x, y], dim=-1).view(1, 1, -1, 2)  # [1, 1, F^2, 2]
    field = (frame - t.view(count, 1, 1, 2)) / k.view(count, 1, 1, 1)  # [N, 1, F^2, 2]
    source = (field - offset.unsqueeze(2)) @ inverse(a).transpose(-1, -2) + DIGIT_CENTRE  # [N, 2, F^2, 2]
    grid = (source / DIGIT_CENTRE - 1).view(2 * count, fine, fine, 2)  # pixel edges 0..28 -> -1..1
    samples = F.grid_sample(sources, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
    return F.avg_pool2d(samples, supersample).view(count, 2, side, side)


def centred(fields: torch.Tensor) -> torch.Tensor:
    """Fields [N, L, 28, 28] moved by whole pixels so that the first's centre of mass lies on pixel
    (14, 14), as `capsnet.data.preprocess` places a drawing (by at most 4 pixels each way: the ink
    fills the middle 20x20 before)."""
    count, _, height, width = fields.shape
    mass = fields[:, 0].flatten(1).sum(dim=1).clamp_min(1e-6)
    place = torch.arange(height, device=fields.device, dtype=fields.dtype)
    row = (fields[:, 0].sum(dim=2) @ place) / mass
    column = (fields[:, 0].sum(dim=1) @ place) / mass
    down = (CENTRE - row).round().clamp(-MAX_SHIFT, MAX_SHIFT).long()
    right = (CENTRE - column).round().clamp(-MAX_SHIFT, MAX_SHIFT).long()
    padded = F.pad(fields, (MAX_SHIFT,) * 4)
    rows = (MAX_SHIFT - down).view(-1, 1) + torch.arange(height, device=fields.device)  # [N, H]
    columns = (MAX_SHIFT - right).view(-1, 1) + torch.arange(width, device=fields.device)  # [N, W]
    example = torch.arange(count, device=fields.device).view(-1, 1, 1, 1)
    layer = torch.arange(fields.shape[1], device=fields.device).view(1, -1, 1, 1)
    return padded[example, layer, rows.view(count, 1, -1, 1), columns.view(count, 1, 1, -1)]
