"""The image measures on hand-made images whose answers are known, and the pure changes they stand for."""

import math

import pytest
import torch

from capsnet.studies.shape_measures import MEASURES, ink_box, measure, moments, reach, thicken, transform


def rectangle(top: int, left: int, height: int, width: int) -> torch.Tensor:
    image = torch.zeros(28, 28)
    image[top : top + height, left : left + width] = 1
    return image


def bar(lean: float) -> torch.Tensor:
    """A 2-pixel-wide bar over rows 4..23 whose column moves by ``lean`` pixels per row going up."""
    image = torch.zeros(28, 28)
    for row in range(4, 24):
        column = round(14 + lean * (13.5 - row))
        image[row, column : column + 2] = 1
    return image


def ring() -> torch.Tensor:
    """A soft-edged ellipse outline, like a zero: semi-axes 5 and 8, strokes 2 pixels wide."""
    y, x = torch.meshgrid(torch.arange(28.0), torch.arange(28.0), indexing="ij")
    dx, dy = x - 13.3, y - 14.2
    r = ((dx / 5) ** 2 + (dy / 8) ** 2).sqrt().clamp_min(1e-6)
    return (1.5 - (dx**2 + dy**2).sqrt() * (1 - 1 / r).abs()).clamp(0, 1)


def test_a_shifted_square_moves_the_centre_of_mass_by_the_shift_and_keeps_the_rest():
    before = measure(rectangle(5, 6, 4, 4))
    after = measure(rectangle(5 + 3, 6 - 2, 4, 4))
    assert after["x"] - before["x"] == pytest.approx(-2)
    assert after["y"] - before["y"] == pytest.approx(3)
    assert before["x"].item() == pytest.approx(7.5) and before["y"].item() == pytest.approx(6.5)
    for name in ("ink", "width", "height", "slant"):
        assert after[name] == pytest.approx(before[name]), name


def test_width_and_height_are_four_standard_deviations_of_the_ink():
    measures = measure(rectangle(4, 9, 18, 6))
    # A uniform run of n pixels has variance (n^2 - 1) / 12.
    assert measures["width"].item() == pytest.approx(4 * math.sqrt((6**2 - 1) / 12), rel=1e-5)
    assert measures["height"].item() == pytest.approx(4 * math.sqrt((18**2 - 1) / 12), rel=1e-5)
    assert measures["ink"].item() == 6 * 18


@pytest.mark.parametrize("lean, sign", [(0.4, 1), (-0.4, -1), (0.0, 0)])
def test_slant_is_positive_when_the_top_leans_right(lean, sign):
    slant = measure(bar(lean))["slant"].item()
    assert slant == pytest.approx(math.degrees(math.atan(lean)), abs=1.5)
    assert (slant > 1) - (slant < -1) == sign


def test_a_slanting_bar_is_no_wider_than_an_upright_one():
    slanting, upright = bar(0.4), bar(0.0)
    assert 4 * moments(slanting)["mu20"].sqrt() > 3 * measure(upright)["width"]  # its columns spread ...
    # ... but once the shear is out, only the rounding of each row's column is left.
    assert measure(slanting)["width"].item() == pytest.approx(measure(upright)["width"].item(), abs=0.4)


def test_a_dilated_stroke_has_more_ink_and_an_eroded_one_less():
    image = ring()[None]
    ink = measure(image)["ink"]
    dilated = torch.nn.functional.max_pool2d(image[None], 3, stride=1, padding=1)[0]
    assert measure(dilated)["ink"] > ink
    assert measure(thicken(image, torch.tensor([15.0])))["ink"].item() == pytest.approx(ink.item() + 15, abs=1e-3)
    assert measure(thicken(image, torch.tensor([-15.0])))["ink"].item() == pytest.approx(ink.item() - 15, abs=1e-3)


@pytest.mark.parametrize(
    "name, change, tolerance",
    [
        ("ink", 20.0, 1e-3),
        ("ink", -20.0, 1e-3),
        ("width", 1.5, 0.15),
        ("width", -1.5, 0.15),
        ("height", 2.0, 0.15),
        ("slant", 10.0, 0.01),
        ("slant", -10.0, 0.01),
        ("x", 1.5, 0.01),
        ("y", -2.0, 0.01),
    ],
)
def test_each_transform_changes_its_own_measure_by_the_amount_asked(name, change, tolerance):
    image = ring()[None]
    before, after = measure(image), measure(transform(image, name, torch.tensor([change])))
    assert (after[name] - before[name]).item() == pytest.approx(change, abs=tolerance)
    if name in ("slant", "x", "y"):  # shears and shifts leave the ink and the other place alone
        for other in set(MEASURES) - {name, "width"}:
            assert (after[other] - before[other]).abs().item() < 0.05, other


def test_transform_rejects_an_unknown_measure():
    with pytest.raises(ValueError, match="unknown measure 'size'"):
        transform(ring()[None], "size", torch.ones(1))


def test_the_ink_box_and_reach_count_the_pixels_at_least_half_grey():
    image = rectangle(4, 8, 20, 12) * 0.4  # too faint to count ...
    image[6:18, 10:15] = 0.5  # ... and the ink: rows 6..17, columns 10..14
    assert [edge.item() for edge in ink_box(image)] == [6, 17, 10, 14]
    assert reach(image)["width"].item() == pytest.approx(5, abs=0.1)  # the faint grey shears it a hair
    assert reach(image)["height"].item() == 12
    empty = torch.zeros(28, 28)
    assert [edge.item() for edge in ink_box(empty)] == [0, 27, 0, 27]
    assert reach(empty)["width"].item() == reach(empty)["height"].item() == 0


def test_a_slanting_bar_reaches_no_wider_than_an_upright_one():
    slanting, upright = reach(bar(0.4)), reach(bar(0.0))
    assert slanting["width"].item() == pytest.approx(upright["width"].item(), abs=1.5)
    assert slanting["height"].item() == upright["height"].item() == 20
