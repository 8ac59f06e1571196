"""The routing view's numbers: the trace kept with each reading, sent for every r where the server
answers, for the page to draw at any r and capsule type (playground/page/routing_view.js; its
drawing: tests/js and tests/test_browser.py)."""

import base64

import numpy as np
import torch

from capsnet.routing import agreement, vote_heatmap
from playground.routing_section import MAX_ITERATIONS
from tests.support.examples import EXAMPLES, example_pixels


def reading_of_a_seven(app):
    example = next(path for path in EXAMPLES if path.stem.endswith("_7"))
    return app.READING.predict(example_pixels(example))[2]


def float32s(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f4")


def test_a_reading_keeps_its_routing_for_every_iteration_count(app):
    reading = reading_of_a_seven(app)
    trace = reading.trace
    assert trace.lengths.shape == (MAX_ITERATIONS, 10)
    torch.testing.assert_close(trace.couplings[0], torch.full((1152, 10), 0.1))  # r = 1: uniform
    with torch.inference_mode():
        for r in (1, 3, 5):
            out = app.NETWORKS.capsnet(torch.from_numpy(reading.image)[None, None], routing_iterations=r)
            torch.testing.assert_close(trace.lengths[r - 1], out.lengths[0])


def test_the_numbers_hold_every_r_and_the_votes_for_each_r_s_winner(app):
    """The routing view's numbers as the server answers them (answers.py `read`, routed)."""
    reading = reading_of_a_seven(app)
    trace, config = reading.trace, app.NETWORKS.capsnet.config
    numbers = app.ANSWERS.read({"image": reading.image.flatten().tolist(), "routed": True})["routing"]
    np.testing.assert_allclose(numbers["lengths"], trace.lengths.numpy(), rtol=1e-6)
    np.testing.assert_allclose(
        numbers["agreements"], agreement(trace.u_hat, trace.capsules, trace.couplings).numpy(), rtol=1e-6
    )
    shares = float32s(numbers["winnerShares"]["float32"]).reshape(MAX_ITERATIONS, config.primary_capsule_types, 6, 6)
    for k in range(MAX_ITERATIONS):  # summed over the types, each r's map of its winner's votes
        winner = int(trace.predictions[k])
        expected = vote_heatmap(trace.couplings[k], trace.u_hat, winner, config.primary_capsule_types, 6)
        np.testing.assert_allclose(shares[k].sum(axis=0), expected.numpy(), rtol=1e-4)
    assert not np.allclose(shares[0], shares[2])  # r = 1 is uniform; routing moves the votes
