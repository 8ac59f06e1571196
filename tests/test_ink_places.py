"""Where a change adds and removes ink in the digit's box, and the place names that say so."""

import pytest
import torch

from capsnet.studies.ink_places import PARTS, PLACE_CLAIMS, STANDS_OUT, PlaceClaim, thirds


def rectangle(top: int, left: int, height: int, width: int) -> torch.Tensor:
    image = torch.zeros(28, 28)
    image[top : top + height, left : left + width] = 1
    return image


def test_a_change_in_one_corner_of_the_box_lands_in_that_cell_with_its_sign():
    image = rectangle(4, 8, 21, 12)[None]  # the box: rows 4..24, columns 8..19; thirds of 7 rows, 4 columns
    change = torch.zeros(1, 28, 28)
    change[0, 5:8, 9:12] = 1  # inside the top-left cell
    change[0, 20:25, 16:20] = -1  # inside the bottom-right cell, taken away
    shares = thirds(change, image)
    assert shares.shape == (1, 2, 9)
    assert shares[0, 0, 0].item() == pytest.approx(9 / 29)
    assert shares[0, 1, 8].item() == pytest.approx(20 / 29)
    assert shares.sum().item() == pytest.approx(1)
    everywhere = thirds(image, image)[0]  # the rectangle itself spreads evenly, all of it added
    assert everywhere[1].sum().item() == 0
    assert everywhere[0].max().item() == pytest.approx(1 / 9, abs=0.02)


def test_a_change_outside_the_box_counts_in_the_nearest_third():
    image = rectangle(10, 10, 9, 9)[None]
    change = torch.zeros(1, 28, 28)
    change[0, 25, 2] = 0.5  # below and left of the box
    assert thirds(change, image)[0, 0, 6].item() == pytest.approx(1)


def test_the_box_is_the_ink_of_at_least_half_grey():
    image = rectangle(4, 4, 20, 20) * 0.4  # faint everywhere ...
    image[10:19, 10:19] = 1  # ... the digit's ink only here
    change = torch.zeros(1, 28, 28)
    change[0, 10:13, 10:13] = 1
    assert thirds(change, image[None])[0, 0, 0].item() == pytest.approx(1)


def test_nothing_changed_has_no_shares():
    assert thirds(torch.zeros(1, 28, 28), rectangle(4, 4, 9, 9)[None]).sum().item() == 0


def spread(added: list[float], removed: list[float] | None = None) -> torch.Tensor:
    """``thirds``' shares [1, 2, 9] of one digit from the ink added and removed in each cell."""
    shares = torch.tensor([added, removed or [0.0] * 9])
    return (shares / shares.sum())[None]


def test_a_place_claim_holds_where_each_part_changes_with_its_sign_more_than_the_rest():
    rest = 0.1  # each cell outside the bottom row gains 0.1
    shares = torch.cat(
        [
            spread([rest] * 6 + [STANDS_OUT * rest] * 3),  # the bottom gains 1.5 times as much per cell: holds
            spread([rest] * 6 + [1.4 * rest] * 3),  # 1.4 times: does not
            spread([rest] * 9),  # the whole digit gains evenly: does not
            spread([0.0] * 6 + [rest] * 3, [rest] * 6 + [0.0] * 3),  # gains where the rest loses as much: does not
            spread([0.0] * 9, [0.0] * 6 + [rest] * 3),  # the bottom alone loses ink: it shrinks
        ]
    )
    bottom = PlaceClaim(grows=("bottom",))
    assert bottom.holds(shares).tolist() == [True, False, False, False, False]
    assert PlaceClaim(shrinks=("bottom",)).holds(shares).tolist() == [False, False, False, False, True]


def test_each_named_part_must_change_not_only_their_sum():
    top_only = spread([1.0] * 3 + [0.0] * 6)  # the top row alone gains
    assert PlaceClaim(grows=("top",)).holds(top_only).item()
    assert not PlaceClaim(grows=("top", "centre")).holds(top_only).item()  # the centre does not grow
    both = spread([1.0] * 3 + [0, 1.0, 0] + [0.0] * 3)
    assert PlaceClaim(grows=("top", "centre")).holds(both).item()
    bottom = spread([0.0] * 6 + [1.0] * 3)
    assert PlaceClaim(grows=("bottom",)).holds(bottom).item()
    assert not PlaceClaim(grows=("bottom-left",)).holds(bottom).item()  # the rest of the bottom grows as much
    move = PlaceClaim(grows=("bottom",), shrinks=("top-left",))  # both signs count
    assert move.holds(spread([0.0] * 6 + [0.2] * 3, [0.5] + [0.0] * 8)).item()
    assert not move.holds(spread([0.0] * 6 + [0.2] * 3, [0.0] * 9)).item()  # the top-left loses nothing


def test_place_names_read_as_a_slider_label():
    assert PlaceClaim(grows=("bottom",)).name == "the bottom grows →"
    assert PlaceClaim(shrinks=("top-left",)).name == "the top-left shrinks →"
    assert PlaceClaim(grows=("top", "right")).name == "the top and right grow →"
    assert PlaceClaim(shrinks=("bottom-left", "bottom-right")).name == "the bottom corners shrink →"
    assert PlaceClaim(grows=("bottom-right",), shrinks=("top",)).name == "ink from top to bottom-right →"
    assert PlaceClaim(grows=("top", "right")).cells == 5
    names = [claim.name for claim in PLACE_CLAIMS]
    assert len(set(names)) == len(names)
    assert max(len(name) for name in names) <= 40
    # Every part can be said to grow, to shrink, and to gain ink from each part it shares no cell with.
    for part in PARTS:
        assert f"the {part} grows →" in names and f"the {part} shrinks →" in names
    assert "ink from left to right →" in names and "ink from top to top-left →" not in names
