"""Affine changes of the input: identities, np.rot90, shifts of the centre of mass, the ranges' checks."""

import math

import numpy as np
import pytest
import torch

from capsnet.data.affine import AffineChange, affine_matrices, transform
from capsnet.studies.shape_measures import measure


def digit_like(seed: int = 0, size: tuple[int, int] = (28, 28)) -> torch.Tensor:
    """A blob of ink in [0, 1] off the centre, with a random texture, inside the frame: [H, W]."""
    g = torch.Generator().manual_seed(seed)
    image = torch.zeros(size)
    image[8:20, 10:17] = torch.rand(12, 7, generator=g)
    image[8:11, 10:22] = 1.0
    return image


@pytest.mark.parametrize(
    "change",
    [
        AffineChange(),
        AffineChange(scale=1.0, shear=0.0, rotation=0.0),
        AffineChange(stretch_x=1.0, stretch_y=1.0, shift_x=0.0, shift_y=-0.0),
    ],
)
def test_the_identity_changes_nothing_exactly(change):
    images = torch.rand(3, 1, 28, 28, generator=torch.Generator().manual_seed(1))
    assert torch.equal(transform(images, change), images)
    assert torch.equal(transform(images[0, 0], change), images[0, 0])


@pytest.mark.parametrize("degrees, turns", [(90, 1), (-90, -1), (180, 2), (-180, 2)])
def test_quarter_turns_are_np_rot90(degrees, turns):
    image = digit_like()
    turned = transform(image, AffineChange(rotation=degrees))
    expected = torch.from_numpy(np.rot90(image.numpy(), turns).copy())
    torch.testing.assert_close(turned, expected, atol=1e-5, rtol=0)


def test_a_half_turn_of_a_non_square_image_flips_both_axes():
    image = torch.rand(1, 1, 20, 30, generator=torch.Generator().manual_seed(2))
    torch.testing.assert_close(transform(image, AffineChange(rotation=180)), image.flip(-2, -1), atol=1e-5, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_shape_dtype_and_range_are_kept(dtype):
    images = torch.rand(4, 1, 28, 28, generator=torch.Generator().manual_seed(3), dtype=dtype)
    images[0] = 1.0  # all ink: bilinear sums must not pass 1
    changed = transform(images, AffineChange(rotation=33, scale=1.3, shear=0.2, stretch_x=0.8, shift_y=2.5))
    assert changed.shape == images.shape and changed.dtype == dtype
    assert changed.min() >= 0 and changed.max() <= 1
    assert transform(images[1, 0], AffineChange(rotation=10)).shape == (28, 28)


@pytest.mark.parametrize("dx, dy", [(3, 0), (0, -2), (2.5, 1.5), (-4, 3)])
def test_a_shift_moves_the_centre_of_mass_by_as_many_pixels(dx, dy):
    image = digit_like()
    before, after = measure(image), measure(transform(image, AffineChange(shift_x=dx, shift_y=dy)))
    assert after["x"].item() - before["x"].item() == pytest.approx(dx, abs=1e-4)
    assert after["y"].item() - before["y"].item() == pytest.approx(dy, abs=1e-4)
    assert after["ink"].item() == pytest.approx(before["ink"].item(), rel=1e-5)


def test_scale_and_stretch_change_the_size_about_the_centre():
    image = torch.zeros(28, 28)
    image[12:16, 12:16] = 1.0  # a 4x4 square at the centre
    before = measure(image)
    bigger = measure(transform(image, AffineChange(scale=1.5)))
    assert bigger["ink"].item() == pytest.approx(1.5**2 * before["ink"].item(), rel=0.02)
    wider = measure(transform(image, AffineChange(stretch_x=1.5)))
    assert wider["width"].item() > 1.3 * before["width"].item()
    assert wider["height"].item() == pytest.approx(before["height"].item(), rel=1e-4)
    assert wider["x"].item() == pytest.approx(before["x"].item(), abs=1e-4)  # about the centre


def test_a_positive_shear_moves_the_rows_below_the_centre_right():
    image = torch.zeros(28, 28)
    image[6:22, 13:15] = 1.0  # an upright bar through the centre
    sheared = transform(image, AffineChange(shear=0.5))
    columns = torch.arange(28.0)

    def centre_of(row):
        return (sheared[row] * columns).sum() / sheared[row].sum()

    assert centre_of(20).item() == pytest.approx(13.5 + 0.5 * (20 - 13.5), abs=1e-3)
    assert centre_of(7).item() == pytest.approx(13.5 + 0.5 * (7 - 13.5), abs=1e-3)
    assert measure(sheared)["slant"].item() < -20  # the top leans left


def then(second: torch.Tensor, first: torch.Tensor) -> torch.Tensor:
    """The matrix [A | t] of ``first`` followed by ``second``: [A2 A1 | A2 t1 + t2]."""
    a = second[:, :2] @ first[:, :2]
    return torch.cat([a, second[:, :2] @ first[:, 2:] + second[:, 2:]], 1)


def test_changes_compose_as_their_matrices_do():
    thirty, sixty = AffineChange(rotation=30).matrix(), AffineChange(rotation=60).matrix()
    torch.testing.assert_close(then(thirty, thirty), sixty)
    first, second = AffineChange(scale=1.2, shift_x=2), AffineChange(rotation=-15, shear=0.1, shift_y=-1)
    # smooth: little is lost to resampling
    image = torch.nn.functional.avg_pool2d(digit_like(4)[None], 3, stride=1, padding=1)[0]
    twice = transform(transform(image, first), second)
    once = transform(image, then(second.matrix(), first.matrix()))
    torch.testing.assert_close(twice, once, atol=0.1, rtol=0)  # resampled twice, or once
    assert (twice - once).abs().mean() < 0.005
    there_and_back = transform(transform(image, AffineChange(shift_x=3)), AffineChange(shift_x=-3))
    torch.testing.assert_close(there_and_back[:, :25], image[:, :25])  # what left the frame is lost


def test_a_batch_of_matrices_changes_each_image_by_its_own():
    images = torch.stack([digit_like(s) for s in range(3)])[:, None]  # [3, 1, 28, 28]
    changes = [AffineChange(rotation=20), AffineChange(), AffineChange(shear=-0.2, shift_x=1)]
    matrices = torch.stack([c.matrix() for c in changes])  # [3, 2, 3]
    changed = transform(images, matrices)
    for image, c, result in zip(images, changes, changed, strict=True):
        torch.testing.assert_close(result, transform(image[None], c)[0])
    assert torch.equal(changed[1], images[1])


def test_affine_matrices_takes_batches_of_parameters():
    n = 5
    values = {
        "rotation": torch.linspace(-20, 20, n),
        "scale": torch.ones(n),
        "shear": torch.zeros(n),
        "stretch_x": torch.linspace(0.8, 1.2, n),
        "stretch_y": torch.ones(n),
        "shift_x": torch.zeros(n),
        "shift_y": torch.arange(n, dtype=torch.float32),
    }
    matrices = affine_matrices(**values)
    assert matrices.shape == (n, 2, 3)
    for i in range(n):
        single = AffineChange(**{k: v[i].item() for k, v in values.items()}).matrix()
        torch.testing.assert_close(matrices[i], single.float())
    theta = math.radians(20)
    torch.testing.assert_close(
        AffineChange(rotation=20).matrix()[:, :2],
        torch.tensor([[math.cos(theta), math.sin(theta)], [-math.sin(theta), math.cos(theta)]], dtype=torch.float64),
    )


@pytest.mark.parametrize(
    "name, value",
    [
        ("rotation", 181.0),
        ("rotation", float("nan")),
        ("scale", 0.0),
        ("scale", float("inf")),
        ("shear", -1.5),
        ("stretch_x", 2.5),
        ("stretch_y", 0.1),
        ("shift_x", 15.0),
        ("shift_y", float("-inf")),
        ("scale", "1.0"),
        ("shift_x", True),
        ("rotation", 10**400),
    ],
)
def test_parameters_outside_their_range_are_a_clear_error(name, value):
    low, high = AffineChange.RANGES[name]
    with pytest.raises(ValueError) as raised:
        AffineChange(**{name: value})
    message = str(raised.value)
    assert message.startswith(f"{name} ")
    assert f"[{low:g}, {high:g}]" in message


def test_the_ranges_table_covers_every_field_and_holds_its_default():
    defaults = AffineChange()
    assert list(AffineChange.RANGES) == [f for f in defaults.__dataclass_fields__ if f != "RANGES"]
    for name, (low, high) in AffineChange.RANGES.items():
        assert low <= getattr(defaults, name) <= high
        AffineChange(**{name: low}), AffineChange(**{name: high})  # the ends are allowed


def test_wrong_image_shapes_are_refused():
    with pytest.raises(ValueError, match=r"\[B, C, H, W\] or \[H, W\]"):
        transform(torch.zeros(1, 28, 28), AffineChange(rotation=5))
