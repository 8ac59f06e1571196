"""Other writers' and scanners' ink (capsnet.data.ink): hard-edged, coarse, stretched to a square,
thicker or thinner."""

import pytest
import torch

from capsnet.data.ink import MAX_SQUARING, bilevel, coarse, squaring, thickness_changed
from tests.support.shapes import bar


def test_bilevel_ink_is_ink_or_paper_at_a_level_of_each_images_strongest():
    images = torch.stack([bar(10, 4), 0.5 * bar(10, 4)])
    hard = bilevel(images, torch.tensor([0.6, 0.4]))
    assert set(hard.unique().tolist()) == {0.0, 1.0}
    assert hard[0].sum() == 40  # the rim (0.5 of 1) is below 0.6: paper
    assert hard[1].sum() == 12 * 6  # the rim (0.25 of 0.5) reaches 0.4 of the strongest
    assert torch.equal(bilevel(images, 0.6)[0], hard[0])
    assert bilevel(images, 0.5)[0].sum() == 12 * 6  # the rim reaches half the strongest: ink


def test_coarse_ink_loses_what_is_finer_than_its_pixels():
    stripes = torch.zeros(1, 1, 28, 28)
    stripes[..., ::2] = 1.0  # one-pixel stripes: finer than 14 pixels a side
    blurred = coarse(stripes, 14)
    assert blurred.shape == stripes.shape
    assert blurred.std() < 0.1 * stripes.std() and blurred.mean() == pytest.approx(0.5, abs=0.02)
    wide = torch.zeros(1, 1, 28, 28)
    wide[..., 8:20, 8:20] = 1.0  # a 12-pixel square survives
    assert (coarse(wide, 14) - wide).abs().mean() < 0.05


def test_coarse_and_bilevel_is_a_bilevel_scan_enlarged():
    image = bar(12, 6).view(1, 1, 28, 28)
    scanned = coarse(image, 14, torch.tensor([0.5]))
    small = torch.nn.functional.interpolate(scanned, size=(14, 14), mode="area")
    assert not torch.equal(scanned, coarse(image, 14))
    assert ((small > 0.9) | (small < 0.1)).float().mean() > 0.6  # mostly ink or paper at its resolution


def test_squaring_is_height_over_width_of_the_ink_box_within_bounds():
    images = torch.stack([bar(16, 4), bar(8, 16), bar(20, 1)])
    # the rim counts: INK_THRESHOLD is 0.2 of the strongest, the rim 0.5
    torch.testing.assert_close(squaring(images), torch.tensor([18 / 6, 10 / 18, min(22 / 3, MAX_SQUARING)]))


def test_thickness_changes_towards_the_3x3_dilation_or_erosion():
    image = bar(10, 4).view(1, 1, 28, 28)
    ink = image.sum()
    thicker, thinner = (thickness_changed(image, torch.tensor([change])).sum() for change in (1.0, -1.0))
    assert thicker > ink > thinner
    torch.testing.assert_close(thickness_changed(image, torch.tensor([0.0])), image)
