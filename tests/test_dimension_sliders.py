"""The dimension sliders' value before any reading, which the page then sets itself."""

from playground.dimension_sliders import slider_value


def test_a_value_holds_rows_in_the_order_shown_and_offsets_in_dimension_order():
    rows = [{"dimension": 2, "label": "d3: wider →", "limit": 0.25}, {"dimension": 0, "label": "d1", "limit": 0.1}]
    value = slider_value(rows, [0, 0.5, -1], "spread", enabled=False)
    assert value == {"offsets": [0.0, 0.5, -1.0], "rows": rows, "enabled": False, "range": "spread"}
