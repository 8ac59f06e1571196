"""The drawing pad's value: checked part by part (it can be forged), and turned back into ink that
reads as what was drawn."""
import base64
import json

import numpy as np
import pytest
import torch

from capsnet import ink_to_mnist
from digit_strokes import pad_value, strokes
from playground import drawing_pad
from playground.drawing_pad import BRUSH, MAX_POINTS, MAX_STROKES, SIDE, DrawingError, parse


def test_a_drawn_value_parses_to_its_strokes():
    drawing = parse({"strokes": ["10 20 30.5 40", "100 100"], "background": None, "revision": 7,
                     "drawing": True})
    np.testing.assert_array_equal(drawing.strokes[0], [[10, 20], [30.5, 40]])
    np.testing.assert_array_equal(drawing.strokes[1], [[100, 100]])
    assert drawing.background is None and drawing.revision == 7 and drawing.drawing


def test_the_empty_pad_has_no_ink():
    drawing = parse(drawing_pad.EMPTY)
    assert drawing.strokes == [] and ink_to_mnist(drawing_pad.ink(drawing)) is None


def test_a_stroke_is_inked_brush_wide_with_round_ends():
    ink = drawing_pad.ink(parse(pad_value([[50, 140, 230, 140]])))
    assert ink.shape == (SIDE, SIDE) and ink.max() == 1
    across = np.flatnonzero(ink[:, 140])                             # the stroke's width
    assert abs(len(across) - BRUSH) <= 1
    assert ink[140, 50 - BRUSH // 2 + 1] == 1 and ink[140, 50 - BRUSH // 2 - 2] == 0   # a round end
    dot = drawing_pad.ink(parse(pad_value([[140, 140]])))
    assert abs(dot.sum() - np.pi * (BRUSH / 2) ** 2) < 0.15 * np.pi * (BRUSH / 2) ** 2


def test_the_background_is_an_example_scaled_up_under_the_strokes():
    digit = np.zeros((28, 28), np.uint8)
    digit[4:24, 13:15] = 255                                         # a "1"
    value = pad_value([[20, 20, 60, 20]], background=base64.b64encode(digit.tobytes()).decode())
    ink = drawing_pad.ink(parse(value))
    assert ink[140, 140] == 1 and ink[20, 40] == 1 and ink[140, 40] == 0


@pytest.mark.parametrize("digit", range(10))
def test_the_test_strokes_read_as_their_digit_anywhere_on_the_pad(trained_model, digit):
    """The strokes the browser test and benchmark draw, at the sizes and places they use."""
    rng = np.random.default_rng(digit)
    for _ in range(5):
        height = rng.uniform(SIDE / 3, 0.9 * SIDE)
        width = height * rng.uniform(0.55, 0.8)
        left, top = rng.uniform(8, SIDE - 8 - width), rng.uniform(8, SIDE - 8 - height)
        image = ink_to_mnist(drawing_pad.ink(parse(pad_value(strokes(digit, left, top, width, height)))))
        with torch.inference_mode():
            assert trained_model(torch.from_numpy(image)[None, None]).prediction.item() == digit


FORGED = {
    "not-an-object": ([1, 2], "an object"),
    "a-string": ("draw a 7", "an object"),
    "unknown-key": ({"strokes": [], "script": "x"}, "unknown keys"),
    "strokes-not-a-list": ({"strokes": "1 2"}, "must be a list"),
    "stroke-not-a-string": ({"strokes": [[1, 2]]}, "must be a string"),
    "odd-coordinates": ({"strokes": ["1 2 3"]}, "pairs"),
    "empty-stroke": ({"strokes": [""]}, "pairs"),
    "not-numbers": ({"strokes": ["1 two"]}, "must be numbers"),
    "nan": ({"strokes": ["nan 5"]}, "finite"),
    "infinity": ({"strokes": ["5 inf"]}, "finite"),
    "negative": ({"strokes": ["-1 5"]}, f"0..{SIDE}"),
    "beyond-the-pad": ({"strokes": [f"5 {SIDE + 0.1}"]}, f"0..{SIDE}"),
    "huge": ({"strokes": ["1e308 5"]}, f"0..{SIDE}"),
    "too-many-strokes": ({"strokes": ["1 1"] * (MAX_STROKES + 1)}, "strokes is more than"),
    "too-many-points": ({"strokes": [" ".join(["1 1"] * (MAX_POINTS + 1))]}, "points"),
    "background-not-base64": ({"strokes": [], "background": "not base64!"}, "base64"),
    "background-wrong-size": ({"strokes": [], "background": base64.b64encode(bytes(100)).decode()}, "784 bytes"),
    "background-a-list": ({"strokes": [], "background": [0] * 784}, "base64"),
    "background-not-ascii": ({"strokes": [], "background": "é" * 1044}, "base64"),
    "revision-negative": ({"strokes": [], "revision": -1}, "revision"),
    "revision-a-float": ({"strokes": [], "revision": 1.5}, "revision"),
    "revision-a-bool": ({"strokes": [], "revision": True}, "revision"),
    "drawing-a-string": ({"strokes": [], "drawing": "yes"}, "true or false"),
}


@pytest.mark.parametrize("value, reason", FORGED.values(), ids=FORGED.keys())
def test_a_forged_value_gets_a_clear_reason(value, reason):
    with pytest.raises(DrawingError, match=reason):
        parse(value)


def test_nan_from_json_is_refused():
    """Python's JSON parser, which Gradio uses, accepts NaN and Infinity in numbers' places."""
    with pytest.raises(DrawingError, match="revision"):
        parse(json.loads('{"strokes": [], "revision": NaN}'))


def test_the_largest_drawing_allowed_is_read():
    scribble = [" ".join(f"{x % SIDE} {(x * 7) % SIDE}" for x in range(MAX_POINTS // 10))] * 10
    drawing = parse(pad_value([]) | {"strokes": scribble})
    assert sum(len(stroke) for stroke in drawing.strokes) == MAX_POINTS
    assert drawing_pad.ink(drawing).max() == 1


def test_a_pad_of_one_pen_draws_every_stroke_with_it_and_refuses_a_second():
    assert parse({"strokes": ["10 20 30 40", "50 60"]}).pens == (0, 0)    # the main pad sends no pens
    with pytest.raises(DrawingError, match="each a digit 0..0"):
        parse({"strokes": ["10 20"], "pens": "1"})
    two = parse({"strokes": ["10 20 30 40", "50 60"], "pens": "10"}, pens=2)
    assert two.pens == (1, 0)
    layers = drawing_pad.inks(two, pens=2)
    assert layers.shape == (2, drawing_pad.SIDE, drawing_pad.SIDE)
    assert layers[1, 20, 20] == 1 and layers[0, 20, 20] == 0 and layers[0, 60, 50] == 1 and layers[1, 60, 50] == 0
