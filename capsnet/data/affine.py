"""Affine changes of a digit image: turn, scale, shear, stretch and move it about the image centre.

Coordinates are pixels measured from the image centre, x to the right and y downwards (image
rows), so a change maps a point p of the input to p' = A p + t in the output, with

    A = R(rotation) @ [[1, shear], [0, 1]] @ diag(scale * stretch_x, scale * stretch_y),
    t = (shift_x, shift_y):

stretched and scaled first, then sheared, then turned, then moved. MNIST centres each digit's
centre of mass in the frame, so a change about the frame's centre keeps the digit in view as far
as the change allows. Pixels are resampled bilinearly by ``F.grid_sample``;
what comes from outside the frame is zero (background).

SWEEPS are the steps of each change, one at a time, at which the robustness measurement
(`capsnet.studies.robustness`) reads MNIST's test digits; the playground's Turn-it sliders reach
as far, and its rotation sweep turns a drawing through the same angles.
"""

import math
import numbers
from dataclasses import dataclass, fields
from typing import ClassVar

import torch
import torch.nn.functional as F

IDENTITY = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=torch.float64)  # [2, 3]: A = I, t = 0


@dataclass(frozen=True)
class AffineChange:
    """One affine change of an image, checked against RANGES when made.

    rotation: degrees, counter-clockwise as seen on the image (+90 is ``np.rot90(image, 1)``).
    scale: uniform size factor (1: unchanged).
    shear: horizontal shear factor, not an angle (affNIST's convention): x' = x + shear * y about
        the centre, y counted downwards, so a positive shear moves the rows below the centre to the
        right and the top of the digit leans left; 1.0 is a 45-degree shear.
    stretch_x, stretch_y: size factors along x and along y (1: unchanged).
    shift_x, shift_y: pixels to the right and down.

    Raises:
        ValueError: a parameter is not a finite number, or lies outside its range in RANGES.
    """

    rotation: float = 0.0
    scale: float = 1.0
    shear: float = 0.0
    stretch_x: float = 1.0
    stretch_y: float = 1.0
    shift_x: float = 0.0
    shift_y: float = 0.0

    RANGES: ClassVar[dict[str, tuple[float, float]]] = {
        "rotation": (-180.0, 180.0),  # degrees: every turn
        "scale": (0.25, 2.0),  # a quarter to twice the size
        "shear": (-1.0, 1.0),  # up to 45 degrees either way
        "stretch_x": (0.25, 2.0),
        "stretch_y": (0.25, 2.0),
        "shift_x": (-14.0, 14.0),  # pixels: half of MNIST's 28-pixel side, where the digit leaves the frame
        "shift_y": (-14.0, 14.0),
    }

    def __post_init__(self):
        for field in fields(self):
            value, (low, high) = getattr(self, field.name), self.RANGES[field.name]
            number = isinstance(value, numbers.Real) and not isinstance(value, bool)
            if not number or not (isinstance(value, int) or math.isfinite(value)):  # ints of any size are finite
                raise ValueError(f"{field.name} must be a finite number in [{low:g}, {high:g}], got {value!r:.40}")
            if not low <= value <= high:
                raise ValueError(f"{field.name} = {value!r:.40} is outside its range [{low:g}, {high:g}]")

    def matrix(self) -> torch.Tensor:
        """[A | t], the change as a float64 [2, 3] matrix (see the module's docstring)."""
        values = {
            field.name: torch.tensor(float(getattr(self, field.name)), dtype=torch.float64) for field in fields(self)
        }
        return affine_matrices(**values)


def evenly_spaced(low: float, high: float, step: float) -> list[float]:
    """low, low + step, ..., high, each rounded so that 0.1 steps read 0.1, 0.2, ... exactly."""
    count = round((high - low) / step)
    return [round(low + i * step, 6) + 0.0 for i in range(count + 1)]  # + 0.0: no -0.0


SWEEPS = {  # AffineChange field: (values, what a value means)
    "rotation": (evenly_spaced(-90, 90, 10), "degrees, counter-clockwise"),
    "scale": (evenly_spaced(0.5, 1.5, 0.1), "size factor"),
    "shear": (evenly_spaced(-0.6, 0.6, 0.1), "horizontal shear factor: x' = x + shear * y, y downwards"),
    "stretch_x": (evenly_spaced(0.5, 1.5, 0.1), "width factor"),
    "stretch_y": (evenly_spaced(0.5, 1.5, 0.1), "height factor"),
    "shift_x": (evenly_spaced(-6, 6, 1), "pixels to the right"),
    "shift_y": (evenly_spaced(-6, 6, 1), "pixels down"),
}


def affine_matrices(
    rotation: torch.Tensor,
    scale: torch.Tensor,
    shear: torch.Tensor,
    stretch_x: torch.Tensor,
    stretch_y: torch.Tensor,
    shift_x: torch.Tensor,
    shift_y: torch.Tensor,
) -> torch.Tensor:
    """[A | t] for each set of parameters (the meanings of AffineChange's fields; not range-checked).

    Args:
        every argument: a tensor of shape [...] (all the same shape, or broadcastable).

    Returns:
        [..., 2, 3], in the parameters' dtype.
    """
    angle = torch.deg2rad(rotation)
    cos, sin = torch.cos(angle), torch.sin(angle)
    size_x, size_y = scale * stretch_x, scale * stretch_y
    # R = [[cos, sin], [-sin, cos]] turns counter-clockwise on the image (y down); times the shear
    # [[1, shear], [0, 1]] times diag(size_x, size_y):
    a = torch.stack(
        [
            torch.stack([cos * size_x, (cos * shear + sin) * size_y], -1),
            torch.stack([-sin * size_x, (cos - sin * shear) * size_y], -1),
        ],
        -2,
    )  # [..., 2, 2]
    t = torch.stack([shift_x, shift_y], -1).unsqueeze(-1)  # [..., 2, 1]
    return torch.cat([a, t.expand_as(a[..., :1])], -1)  # [..., 2, 3]


def inverse_2x2(a: torch.Tensor) -> torch.Tensor:
    """The inverse of each [[p, q], [r, s]] in ``a`` [..., 2, 2]: [[s, -q], [-r, p]] / (ps - qr),
    written out so that the page's graph of the turn (capsnet/shipping/onnx_file.py) can hold it: ONNX has
    no matrix inverse."""
    (p, q), (r, s) = (row.unbind(-1) for row in a.unbind(-2))
    adjugate = torch.stack([torch.stack([s, -q], -1), torch.stack([-r, p], -1)], -2)
    return adjugate / (p * s - q * r)[..., None, None]


def transform(images: torch.Tensor, change: AffineChange | torch.Tensor) -> torch.Tensor:
    """``images`` changed by ``change`` about their centre: bilinear, zero from outside the frame.

    Args:
        images: [B, C, H, W] (or one [H, W] image), grey levels in [0, 1].
        change: one AffineChange for every image, or matrices [A | t] (``affine_matrices``):
            [2, 3] for every image or [B, 2, 3], one per image.

    Returns:
        The changed images, the shape and dtype of ``images``, in [0, 1] (clamped: bilinear weights
        can sum to a hair over 1). An image whose matrix is exactly the identity comes back
        unchanged, bit for bit (grid_sample's own identity is off by ~1e-6).
    """
    single = images.dim() == 2
    batch = images[None, None] if single else images  # [B, C, H, W]
    if batch.dim() != 4:
        raise ValueError(f"images must be [B, C, H, W] or [H, W], got shape {list(images.shape)}")
    matrix = change.matrix() if isinstance(change, AffineChange) else change
    matrix = matrix.to(torch.float64).expand(len(batch), 2, 3)  # [B, 2, 3]
    height, width = batch.shape[-2:]
    # grid_sample reads each output pixel's value at a point of the input given in coordinates
    # normalised to [-1, 1] across the frame (align_corners=False): p = D n with D = diag(W/2, H/2),
    # so the inverse of p' = A p + t is n = (D^-1 A^-1 D) n' - D^-1 A^-1 t =: theta [n'; 1].
    half = torch.tensor([width / 2, height / 2], dtype=torch.float64)  # [2]
    inverse = inverse_2x2(matrix[:, :, :2])  # [B, 2, 2]
    theta = torch.cat(
        [inverse * half[None, :] / half[:, None], -(inverse @ matrix[:, :, 2:]) / half[:, None]], -1
    )  # [B, 2, 3]
    # F.affine_grid computes theta [n'; 1] as a batched matrix product that spreads even one image
    # over every core and then waits for a busy one (many times slower whenever another job holds
    # a core); the same sum written elementwise stays on one core.
    theta = theta.to(batch.dtype)[:, None, None]  # [B, 1, 1, 2, 3]
    x = (2 * torch.arange(width, dtype=batch.dtype) + 1) / width - 1  # [W], pixel centres
    y = (2 * torch.arange(height, dtype=batch.dtype) + 1) / height - 1  # [H]
    grid = theta[..., 0] * x[:, None] + theta[..., 1] * y[:, None, None] + theta[..., 2]  # [B, H, W, 2]
    changed = F.grid_sample(batch, grid, mode="bilinear", padding_mode="zeros", align_corners=False).clamp_(
        0, 1
    )  # [B, C, H, W]
    unchanged = (matrix == IDENTITY).all(-1).all(-1)  # [B]
    changed = torch.where(unchanged[:, None, None, None], batch, changed)
    return changed[0, 0] if single else changed
