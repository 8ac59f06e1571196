"""The picture beside each dimension slider (playground/dimension_changes.py): each dimension's
change of ink is the decoder's picture at the right end of its range minus the left end, checked
against the decoder run one picture at a time; its colours are the grey of no change, a darker
colour for ink added and a lighter one for ink taken away, in full from FULL_CHANGE on."""

import numpy as np
import torch

from capsnet.dimensions import perturb
from playground.dimension_changes import (
    ADDED,
    FULL_CHANGE,
    REMOVED,
    UNCHANGED,
    change_colours,
    change_pictures,
    dimension_changes,
)


def lightness(rgb) -> float:
    """Relative luminance's weights over 0..255 sRGB: enough to order three colours by lightness."""
    return float(np.dot(np.asarray(rgb, dtype=float), [0.2126, 0.7152, 0.0722]))


def test_each_change_is_the_picture_at_the_right_end_minus_the_left_end(model):
    model.eval()
    capsules = torch.randn(10, 16) * 0.2
    limits = torch.linspace(0.05, 1.5, 16)
    changes = dimension_changes(model, capsules, 3, limits)
    assert changes.shape == (16, 28, 28)
    labels = torch.tensor([3])
    for d in range(16):
        at = [torch.zeros(16).index_fill(0, torch.tensor([d]), side * limits[d]) for side in (-1, 1)]
        with torch.inference_mode():
            left, right = (model.decode(perturb(capsules, 3, offsets)[None], labels)[0, 0] for offsets in at)
        torch.testing.assert_close(changes[d], right - left, rtol=0, atol=1e-6)


def test_no_change_is_grey_ink_added_darker_and_ink_taken_away_lighter():
    colours = change_colours(np.array([0.0, 1.0, -1.0, FULL_CHANGE, -FULL_CHANGE, 3.0, -3.0]))
    np.testing.assert_array_equal(colours, [UNCHANGED, ADDED, REMOVED, ADDED, REMOVED, ADDED, REMOVED])
    assert lightness(ADDED) < lightness(UNCHANGED) - 60 and lightness(REMOVED) > lightness(UNCHANGED) + 30


def test_a_change_short_of_full_is_its_share_of_the_way_to_the_colour():
    half = change_colours(np.array([FULL_CHANGE / 2, -FULL_CHANGE / 2], dtype=np.float32))  # [2, 3]
    np.testing.assert_allclose(half, [(UNCHANGED + ADDED) / 2, (UNCHANGED + REMOVED) / 2], atol=0.5)
    assert change_colours(np.zeros((28, 28))).shape == (28, 28, 3)


def test_the_pictures_are_pngs_of_the_colours():
    changes = torch.zeros(16, 28, 28)
    changes[5, 3, 4] = 0.3
    pictures = change_pictures(changes)
    assert len(pictures) == 16 and all(picture.startswith("data:image/png;base64,") for picture in pictures)
    assert pictures[0] == pictures[1] != pictures[5]
