"""The routing view's event functions: the trace kept with each reading, rendered for any r and
capsule type."""

import re

import torch

from playground.routing_section import ALL_TYPES, MAX_ITERATIONS
from tests.support.examples import EXAMPLES, example_pixels


def reading_of_a_seven(app):
    example = next(path for path in EXAMPLES if path.stem.endswith("_7"))
    return app.READING.predict(example_pixels(example))[2]


def test_a_reading_keeps_its_routing_for_every_iteration_count(app):
    reading = reading_of_a_seven(app)
    trace = reading.trace
    assert trace.lengths.shape == (MAX_ITERATIONS, 10)
    torch.testing.assert_close(trace.couplings[0], torch.full((1152, 10), 0.1))  # r = 1: uniform
    with torch.inference_mode():
        for r in (1, 3, 5):
            out = app.NETWORKS.capsnet(torch.from_numpy(reading.image)[None, None], routing_iterations=r)
            torch.testing.assert_close(trace.lengths[r - 1], out.lengths[0])


def test_the_view_shows_the_heatmap_the_table_and_the_agreement(app):
    reading = reading_of_a_seven(app)
    view = app.ROUTING.show_routing(reading, 3, ALL_TYPES)
    assert view.count("<img") == 1
    assert all(f"r = {r}" in view for r in range(1, MAX_ITERATIONS + 1))
    assert re.search(r"<tr class='chosen'><th>r = 3</th>", view)
    assert f"winner <b>{reading.winner}</b>" in view and "runner-up" in view
    assert f"all {app.NETWORKS.capsnet.config.primary_capsule_types} capsule types" in view


def test_one_capsule_type_and_other_iterations_redraw_from_the_kept_trace(app):
    reading = reading_of_a_seven(app)
    heatmap = re.compile(r'<img class="heatmap" src="([^"]+)"')
    all_types = heatmap.search(app.ROUTING.show_routing(reading, 3, ALL_TYPES)).group(1)
    one_type = app.ROUTING.show_routing(reading, 1, 7)
    assert heatmap.search(one_type).group(1) != all_types
    assert "capsule type 7 only" in one_type and "<tr class='chosen'><th>r = 1</th>" in one_type


def test_an_empty_pad_clears_the_routing_view(app):
    assert "<img" not in app.ROUTING.show_routing(None, 3, ALL_TYPES)
