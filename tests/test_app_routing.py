"""The routing view's event functions: a trace per drawing, rendered for any r and capsule type."""
import numpy as np
import pytest
import torch

import app


@pytest.fixture(scope="module")
def reading():
    from PIL import Image
    example = next(path for path in app.EXAMPLES if path.stem.endswith("_7"))
    _, _, reading = app.predict(np.array(Image.open(example).convert("RGB")))
    return reading


def test_a_new_drawing_is_routed_for_every_iteration_count(reading):
    trace, heatmap, table, text = app.new_routing(reading, 3, app.ALL_TYPES)
    assert trace.lengths.shape == (app.MAX_ITERATIONS, 10)
    torch.testing.assert_close(trace.couplings[0], torch.full((1152, 10), 0.1))   # r = 1: uniform
    torch.testing.assert_close(trace.lengths[2], torch.from_numpy(reading.lengths))  # r = 3: the reading
    assert heatmap.shape == (280, 280, 3) and heatmap.dtype == np.uint8
    assert all(f"r = {r}" in table for r in range(1, app.MAX_ITERATIONS + 1))
    assert f"winner **{reading.winner}**" in text and "runner-up" in text


def test_one_capsule_type_and_other_iterations_redraw_from_the_stored_trace(reading):
    trace = app.routing_trace(reading)
    all_types = app.show_routing(reading, trace, 3, app.ALL_TYPES)[0]
    one_type = app.show_routing(reading, trace, 3, 7)[0]
    assert one_type.shape == all_types.shape and not np.array_equal(one_type, all_types)
    assert "capsule type 7 only" in app.show_routing(reading, trace, 1, 7)[2]


def test_an_empty_canvas_clears_the_routing_view():
    assert app.new_routing(None, 3, app.ALL_TYPES) == (None, None, "", "")
