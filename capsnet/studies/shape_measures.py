"""A digit image in numbers: ink, width, height, slant, position; the pure change each stands for;
and the box and reach of its ink (the pixels at least half ink).

The measures come from the image's moments, grey levels taken as mass (the moments MNIST's
deslanting uses). Coordinates are pixel indices: x is the column, y the row, growing downwards.

- ink: the total grey level, sum x (a full-ink pixel counts 1);
- x, y: the centre of mass (x_c, y_c);
- height: 4 sigma of the rows, sigma^2 = mu02;
- slant: the shear x - x_c = k (y - y_c) that fits the ink best, k = mu11 / mu02, as an angle
  counted positive when the top leans right: slant = -atan k, since y grows downwards;
- width: 4 sigma of the columns once that shear is taken out, sigma^2 = mu20 - mu11^2 / mu02, so
  a slanting digit does not count as a wider one;
- the ink's box (``ink_box``), the frame in which ``capsnet.studies.ink_places`` says where a
  change happens, and its reach (``reach``): how tall and, the slant taken out, how wide the
  outline of the inked pixels is.
"""

import torch
import torch.nn.functional as F

MEASURES = ("ink", "width", "height", "slant", "x", "y")
EPS = 1e-6  # keeps the moments of an empty image finite
HALF_INK = 0.5  # a pixel at least this grey is inked: it sets the ink's box (``ink_box``) and reach


def moments(images: torch.Tensor) -> dict[str, torch.Tensor]:
    """Mass, centre of mass and central second moments (per unit mass) of each image.

    Args:
        images: grey levels in [0, 1], [..., H, W].

    Returns:
        "m", "x_c", "y_c", "mu20", "mu02", "mu11", each [...].
    """
    height, width = images.shape[-2:]
    x = torch.arange(width, dtype=images.dtype)  # [W]
    y = torch.arange(height, dtype=images.dtype)  # [H]
    columns, rows = images.sum(-2), images.sum(-1)  # [..., W], [..., H]
    m = images.sum((-2, -1)).clamp_min(EPS)  # [...]
    x_c = (columns * x).sum(-1) / m
    y_c = (rows * y).sum(-1) / m
    dx, dy = x - x_c[..., None], y - y_c[..., None]  # [..., W], [..., H]
    mu20 = (columns * dx**2).sum(-1) / m
    mu02 = (rows * dy**2).sum(-1) / m
    mu11 = (images * dy[..., :, None] * dx[..., None, :]).sum((-2, -1)) / m
    return {"m": m, "x_c": x_c, "y_c": y_c, "mu20": mu20, "mu02": mu02, "mu11": mu11}


def measure(images: torch.Tensor) -> dict[str, torch.Tensor]:
    """The six measures of each image (see the module's docstring).

    Args:
        images: grey levels in [0, 1], [..., H, W].

    Returns:
        A [...] tensor for each of MEASURES: ink in full-ink pixels, slant in degrees, the rest in pixels.
    """
    mo = moments(images)
    mu02 = mo["mu02"].clamp_min(EPS)
    k = mo["mu11"] / mu02  # x - x_c = k (y - y_c)
    return {
        "ink": images.sum((-2, -1)),
        "width": 4 * (mo["mu20"] - mo["mu11"] * k).clamp_min(0).sqrt(),
        "height": 4 * mu02.sqrt(),
        "slant": torch.rad2deg(torch.atan(-k)),
        "x": mo["x_c"],
        "y": mo["y_c"],
    }


def transform(images: torch.Tensor, name: str, change: torch.Tensor) -> torch.Tensor:
    """``images`` changed in measure ``name`` by ``change``, and otherwise as little as can be: a
    stroke dilation or erosion (ink), a stretch of x or y about the centre of mass (width, height),
    a shear about it (slant), a shift (x, y).

    Args:
        images: grey levels in [0, 1], [N, H, W].
        name: one of MEASURES.
        change: the change of each image, [N], in the measure's units (full-ink pixels for ink).

    Returns:
        [N, H, W] in [0, 1].
    """
    if name == "ink":
        return thicken(images, change)
    mo, before = moments(images), measure(images)
    one, zero = torch.ones_like(change), torch.zeros_like(change)
    stretch_x, stretch_y, shear, shift_x, shift_y = one, one, zero, zero, zero
    if name == "width":
        stretch_x = 1 + change / before["width"].clamp_min(EPS)
    elif name == "height":
        stretch_y = 1 + change / before["height"].clamp_min(EPS)
    elif name == "slant":
        tilt = torch.deg2rad(before["slant"])
        shear = torch.tan(tilt + torch.deg2rad(change)) - torch.tan(tilt)
    elif name == "x":
        shift_x = change
    elif name == "y":
        shift_y = change
    else:
        raise ValueError(f"unknown measure {name!r}: expected one of {', '.join(MEASURES)}")
    return warp(images, mo["x_c"], mo["y_c"], stretch_x, stretch_y, shear, shift_x, shift_y)


def warp(
    images: torch.Tensor,
    x_c: torch.Tensor,
    y_c: torch.Tensor,
    stretch_x: torch.Tensor,
    stretch_y: torch.Tensor,
    shear: torch.Tensor,
    shift_x: torch.Tensor,
    shift_y: torch.Tensor,
) -> torch.Tensor:
    """Move each image's ink from (x, y) to (x', y') (bilinear; zero from outside the image):
    x' = x_c + stretch_x (x - x_c) - shear (y - y_c) + shift_x,  y' = y_c + stretch_y (y - y_c) + shift_y.

    Args:
        images: [N, H, W]; every other argument [N].
    """
    height, width = images.shape[-2:]
    y, x = torch.meshgrid(
        torch.arange(height, dtype=images.dtype), torch.arange(width, dtype=images.dtype), indexing="ij"
    )  # [H, W] each
    x_c, y_c, stretch_x, stretch_y, shear, shift_x, shift_y = (
        t[:, None, None] for t in (x_c, y_c, stretch_x, stretch_y, shear, shift_x, shift_y)
    )  # [N, 1, 1]
    # Each output pixel (x', y') reads the input at the inverse map: y first, then x.
    source_y = y_c + (y - y_c - shift_y) / stretch_y  # [N, H, W]
    source_x = x_c + (x - x_c - shift_x + shear * (source_y - y_c)) / stretch_x  # [N, H, W]
    grid = torch.stack(((2 * source_x + 1) / width - 1, (2 * source_y + 1) / height - 1), -1)  # [N, H, W, 2]
    return F.grid_sample(images[:, None], grid, align_corners=False)[:, 0]


def thicken(images: torch.Tensor, ink: torch.Tensor) -> torch.Tensor:
    """Strokes made thicker (ink > 0) or thinner (ink < 0) by ``ink`` full-ink pixels: a blend
    towards the 3x3 grey dilation or erosion (past it when one step is not enough).

    Args:
        images: grey levels in [0, 1], [N, H, W].
        ink: the ink to add to each image, [N].

    Returns:
        [N, H, W] in [0, 1].
    """
    x = images[:, None]  # [N, 1, H, W]
    dilation = F.max_pool2d(x, 3, stride=1, padding=1)[:, 0] - images  # >= 0, [N, H, W]
    erosion = -F.max_pool2d(-x, 3, stride=1, padding=1)[:, 0] - images  # <= 0, [N, H, W]
    step = torch.where((ink >= 0)[:, None, None], dilation, erosion)  # [N, H, W]
    weight = ink.abs() / step.abs().sum((-2, -1)).clamp_min(EPS)  # [N]
    return (images + weight[:, None, None] * step).clamp(0, 1)


def ink_box(images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The box of each image's ink: its first and last rows and columns with a pixel of at least
    HALF_INK (the whole image where there is none).

    Args:
        images: grey levels in [0, 1], [..., H, W].

    Returns:
        top, bottom, left, right: inclusive pixel indices, each [...].
    """
    inked = images >= HALF_INK
    top, bottom = span(inked.any(-1))  # rows
    left, right = span(inked.any(-2))  # columns
    return top, bottom, left, right


def span(inked: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The first and last index where ``inked`` [..., L] holds, as floats; 0 and L - 1 where it never does."""
    length = inked.shape[-1]
    index = torch.arange(length, dtype=torch.get_default_dtype()).expand(inked.shape)
    first = torch.where(inked, index, float(length)).amin(-1)
    last = torch.where(inked, index, -1.0).amax(-1)
    empty = ~inked.any(-1)
    return first.masked_fill(empty, 0.0), last.masked_fill(empty, length - 1.0)


def reach(images: torch.Tensor) -> dict[str, torch.Tensor]:
    """How far each image's ink reaches, counting the pixels of at least HALF_INK: its height, the
    rows from the first to the last inked one; its width, across once the slant is taken out (each
    pixel's column moved by the shear k (y - y_c) of ``measure``), so that a slant does not widen it.

    A name that says "wider" or "taller" claims both this and the 4-sigma ``measure``: the spread
    of the grey levels can grow while the ink's outline does not (ink moving to the ends of a stroke).

    Args:
        images: grey levels in [0, 1], [..., H, W].

    Returns:
        "width" and "height" in pixels, each [...]; 0 for an image with no such pixel.
    """
    height, width = images.shape[-2:]
    mo = moments(images)
    k = mo["mu11"] / mo["mu02"].clamp_min(EPS)  # [...]
    y = torch.arange(height, dtype=images.dtype)[:, None]  # [H, 1]
    x = torch.arange(width, dtype=images.dtype)  # [W]
    upright = x - k[..., None, None] * (y - mo["y_c"][..., None, None])  # [..., H, W]
    inked = images >= HALF_INK
    rightmost = torch.where(inked, upright, -torch.inf).amax((-2, -1))  # [...]
    leftmost = torch.where(inked, upright, torch.inf).amin((-2, -1))
    top, bottom, _, _ = ink_box(images)
    some = inked.any(-1).any(-1)
    return {
        "width": torch.where(some, rightmost - leftmost + 1, 0.0),
        "height": torch.where(some, bottom - top + 1, 0.0),
    }
