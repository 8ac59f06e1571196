"""The dimension sliders' value: what the server sets, and the offsets the page sends back, checked."""

import math

import pytest

from playground.dimension_sliders import SlidersError, offsets, slider_value

LIMITS = [0.25] * 4


def test_a_value_holds_rows_in_the_order_shown_and_offsets_and_pictures_in_dimension_order():
    rows = [{"dimension": 2, "label": "d3: wider →", "limit": 0.25}, {"dimension": 0, "label": "d1", "limit": 0.1}]
    value = slider_value(rows, [0, 0.5, -1], "spread", enabled=False, pictures=["a", "b", "c"])
    assert value == {
        "offsets": [0.0, 0.5, -1.0],
        "rows": rows,
        "enabled": False,
        "range": "spread",
        "pictures": ["a", "b", "c"],
    }


def test_offsets_within_their_limits_are_taken():
    assert offsets({"offsets": [0.25, -0.25, 0, 0.1]}, LIMITS) == [0.25, -0.25, 0.0, 0.1]
    assert offsets({"offsets": [0.05, 0, 0, 0]}, [0.05, 0.01, 0.01, 0.01]) == [0.05, 0, 0, 0]


@pytest.mark.parametrize(
    "value",
    [
        {"offsets": [0.26, 0, 0, 0]},
        {"offsets": [0, 0, 0]},
        {"offsets": [0, 0, 0, 0, 0]},
        {"offsets": ["0.1", 0, 0, 0]},
        {"offsets": [math.nan, 0, 0, 0]},
        {"offsets": [math.inf, 0, 0, 0]},
        {"offsets": [True, 0, 0, 0]},
        {"offsets": None},
        {},
        [0, 0, 0, 0],
        "0 0 0 0",
    ],
    ids=["beyond", "too-few", "too-many", "string", "nan", "inf", "bool", "none", "no-offsets", "a-list", "a-string"],
)
def test_forged_offsets_get_a_clear_reason(value):
    with pytest.raises(SlidersError, match="4 dimension offsets, each a number within its slider's range"):
        offsets(value, LIMITS)
