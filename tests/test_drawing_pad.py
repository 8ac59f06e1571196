"""The drawing pad's value: checked part by part (it can be forged), and turned back into ink that
reads as what was drawn, each pen's in its own layer."""

import base64
import json

import numpy as np
import pytest
import torch

from capsnet.data.preprocess import ink_to_mnist
from harness.digit_strokes import pad_value, strokes
from playground import drawing_pad
from playground.drawing_pad import BRUSH, MAX_POINTS, MAX_STROKES, SIDE, DrawingError, parse
from playground.stroke_mask import stroke_mask


def test_a_drawn_value_parses_to_its_strokes():
    drawing = parse({"strokes": ["10 20 30.5 40", "100 100"], "background": None, "revision": 7, "drawing": True})
    np.testing.assert_array_equal(drawing.strokes[0], [[10, 20], [30.5, 40]])
    np.testing.assert_array_equal(drawing.strokes[1], [[100, 100]])
    assert drawing.background is None and drawing.revision == 7 and drawing.drawing


def test_the_empty_pad_has_no_ink():
    drawing = parse(drawing_pad.EMPTY)
    assert drawing.strokes == [] and ink_to_mnist(drawing_pad.ink(drawing)) is None


def test_a_stroke_is_inked_brush_wide_with_round_ends():
    ink = drawing_pad.ink(parse(pad_value([[50, 140, 230, 140]])))
    assert ink.shape == (SIDE, SIDE) and ink.max() == 1
    across = np.flatnonzero(ink[:, 140])  # the stroke's width
    assert abs(len(across) - BRUSH) <= 1
    assert ink[140, 50 - BRUSH // 2 + 1] == 1 and ink[140, 50 - BRUSH // 2 - 2] == 0  # a round end
    dot = drawing_pad.ink(parse(pad_value([[140, 140]])))
    assert abs(dot.sum() - np.pi * (BRUSH / 2) ** 2) < 0.15 * np.pi * (BRUSH / 2) ** 2


def every_pixel_against_every_segment(stroke: np.ndarray) -> np.ndarray:
    """The pixels of the whole pad whose centre lies within BRUSH / 2 of a segment of ``stroke``
    [n, 2], each pixel weighed against each segment by stroke_mask's formula: bool [SIDE, SIDE]."""
    radius, points = BRUSH / 2, stroke.astype(np.float64)
    x, y = np.arange(SIDE) + 0.5, np.arange(SIDE)[:, None] + 0.5  # [SIDE], [SIDE, 1] pixel centres
    mask = np.zeros((SIDE, SIDE), dtype=bool)
    starts, ends = (points[:-1], points[1:]) if len(points) > 1 else (points, points)  # one point: a dot
    for (ax, ay), (bx, by) in zip(starts, ends, strict=True):
        dx, dy = bx - ax, by - ay
        squared_length = dx * dx + dy * dy
        t = 0 if squared_length == 0 else np.clip(((x - ax) * dx + (y - ay) * dy) / squared_length, 0, 1)
        ex, ey = x - (ax + t * dx), y - (ay + t * dy)  # [SIDE, SIDE]
        mask |= ex * ex + ey * ey <= radius * radius
    return mask


REFERENCE_STROKES = {
    "a-digit": " ".join(f"{x:g}" for x in strokes(8, 70.3, 20.7, 150.1, 240.9)[0]),
    "a-dot": "140.3 139.7",
    "a-corner-twice-then-across": "0 0 0 0 280 280",
    "across-the-pad": "0 0 280 280 3.5 276.5 279.9 0.1",
    "along-the-edges": "0 0 280 0 280 280 0 280 0 0",
    "repeated-points": "50 60 50 60 50.1 60 50.1 60 70 80",
    "long-and-short": "10 140 11.5 141 270 141.3 271 139.9 272.5 140",
    "ties": "90.5 100.5 190.5 100.5 190.5 200.5 90.5 100.5 96.5 108.5",  # pixel centres BRUSH / 2 from the edge
    # sides whose length is whole (15-112-113, 44-117-125 triangles): a pixel centre lies BRUSH / 2
    # from the side, and only the per-pixel formula's rounding says whether it is ink
    "close-call": "196.5 0.5 219 168.5",
    "another-close-call": "221.5 61 177.5 178",
}


@pytest.mark.parametrize("stroke", REFERENCE_STROKES.values(), ids=REFERENCE_STROKES.keys())
def test_a_stroke_inks_the_pixels_every_pixel_against_every_segment_finds(stroke):
    """stroke_mask spans each row a segment covers; its ends are those of the per-pixel formula."""
    (points,) = parse({"strokes": [stroke]}).strokes
    mask = np.zeros((SIDE, SIDE), dtype=bool)
    stroke_mask(mask, points, brush=BRUSH)
    np.testing.assert_array_equal(mask, every_pixel_against_every_segment(points))


def random_strokes(rng: np.random.Generator, count: int) -> dict[str, np.ndarray]:
    """``count`` strokes of 1 to 5 points of each kind whose ink is easiest to get wrong by a pixel,
    float32 [n, 2] as `parse` reads them, by name ("ties 3")."""
    # level, upright, diagonal, and whole lengths: 3-4-5, 5-12-13, 8-15-17, 7-24-25, 20-21-29 triangles
    steps = np.array([[1, 0], [0, 1], [1, 1], [1, -1], [3, 4], [4, -3], [5, 12], [12, -5], [8, 15], [7, 24], [20, -21]])

    def tenths(n):  # points on the pad's 0.1-unit grid
        return np.round(rng.uniform(0, SIDE, (n, 2)), 1)

    def stepped(start, n, length):  # each segment a random step's multiple, kept to the pixel centres' range
        return np.clip(start + np.cumsum(steps[rng.integers(len(steps), size=n)] * length(n), 0), 0.5, SIDE - 0.5)

    kinds = {
        "tenths": tenths,
        "anywhere": lambda n: rng.uniform(0, SIDE, (n, 2)),
        "edges": lambda n: rng.choice([0, 0.1, 0.5, 9.5, 10, SIDE - 10, SIDE - 0.5, SIDE - 0.1, SIDE], (n, 2)),
        "repeated points": lambda n: np.repeat(tenths(n), rng.integers(1, 3, n), axis=0),
        "level, upright, diagonal": lambda n: stepped(
            tenths(1), n, lambda k: np.round(rng.uniform(-20, 20, (k, 1)), 1)
        ),
        # points on pixel centres, whole steps apart: pixel centres lie exactly BRUSH / 2 from the
        # ends' circles (an end at x = 90.5 reaches x = 100.5) and from the sides of whole length
        "ties": lambda n: stepped(rng.integers(0, SIDE, (1, 2)) + 0.5, n, lambda k: rng.integers(-10, 11, (k, 1))),
    }
    return {
        f"{kind} {k}": make(rng.integers(1, 6)).astype(np.float32) for kind, make in kinds.items() for k in range(count)
    }


def test_random_strokes_ink_the_pixels_every_pixel_against_every_segment_finds():
    """The pen's shape is that of the per-pixel formula, pixel for pixel, on strokes of every kind
    whose span ends are close calls: ties, the pad's edges, dots, lines along the grid."""
    wrong = {}
    for name, points in random_strokes(np.random.default_rng(70), count=20).items():
        mask = np.zeros((SIDE, SIDE), dtype=bool)
        stroke_mask(mask, points, brush=BRUSH)
        if (mask != every_pixel_against_every_segment(points)).any():
            wrong[name] = points.tolist()
    assert not wrong, f"inked unlike the per-pixel formula: {wrong}"


def test_the_background_is_an_example_scaled_up_under_the_strokes():
    digit = np.zeros((28, 28), np.uint8)
    digit[4:24, 13:15] = 255  # a "1"
    value = pad_value([[20, 20, 60, 20]], background=base64.b64encode(digit.tobytes()).decode())
    ink = drawing_pad.ink(parse(value))
    assert ink[140, 140] == 1 and ink[20, 40] == 1 and ink[140, 40] == 0


# 0 and 1 in the fast tier; every digit in the slow one
@pytest.mark.parametrize("digit", [0, 1, *(pytest.param(digit, marks=pytest.mark.slow) for digit in range(2, 10))])
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
    assert parse({"strokes": ["10 20 30 40", "50 60"]}).pens == (0, 0)  # the main pad sends no pens
    with pytest.raises(DrawingError, match="each a digit 0..0"):
        parse({"strokes": ["10 20"], "pens": "1"})
    two = parse({"strokes": ["10 20 30 40", "50 60"], "pens": "10"}, pens=2)
    assert two.pens == (1, 0)
    layers = drawing_pad.inks(two, pens=2)
    assert layers.shape == (2, drawing_pad.SIDE, drawing_pad.SIDE)
    assert layers[1, 20, 20] == 1 and layers[0, 20, 20] == 0 and layers[0, 60, 50] == 1 and layers[1, 60, 50] == 0


THREE_STROKES = ["30 40 120 40 60 120 130 200", "200 30 200 250", "150 150 250 150"]


def test_each_pen_s_strokes_are_inked_in_its_layer_only():
    """Each layer of a pad of two pens is what a pad of one draws of that pen's strokes alone."""
    drawing = parse({"strokes": THREE_STROKES, "pens": "010", "revision": 3, "drawing": True}, pens=2)
    assert drawing.pens == (0, 1, 0) and drawing.revision == 3 and drawing.drawing and drawing.background is None
    layers = drawing_pad.inks(drawing, pens=2)
    assert layers.shape == (2, SIDE, SIDE) and layers.dtype == np.float32
    for pen in range(2):
        alone = [stroke for stroke, p in zip(THREE_STROKES, "010", strict=True) if int(p) == pen]
        np.testing.assert_array_equal(layers[pen], drawing_pad.ink(parse({"strokes": alone})))
    assert layers[0, 40, 80] == 1 and layers[1, 40, 80] == 0 and layers[1, 130, 200] == 1 and layers[0, 130, 200] == 0


def test_each_pen_has_its_own_layer_of_the_background():
    one, bar = np.zeros((28, 28), np.uint8), np.zeros((28, 28), np.uint8)
    one[4:24, 13:15] = 255  # pen 1: a "1"
    bar[13:15, 4:24] = 255  # pen 2: a bar across it
    background = base64.b64encode(np.stack([one, bar]).tobytes()).decode()
    drawing = parse({"strokes": ["20 20 60 20"], "pens": "1", "background": background}, pens=2)
    np.testing.assert_array_equal(drawing.background, np.stack([one, bar]))
    layers = drawing_pad.inks(drawing, pens=2)
    assert layers[0, 60, 140] == 1 and layers[1, 60, 140] == 0  # the 1's top: pen 1's only
    assert layers[1, 140, 60] == 1 and layers[0, 140, 60] == 0  # the bar's left end: pen 2's only
    assert layers[1, 20, 40] == 1 and layers[0, 20, 40] == 0  # the stroke: pen 2's
    with pytest.raises(DrawingError, match="784 bytes"):  # two pens' ink on a pad of one
        parse({"strokes": [], "background": background})
    with pytest.raises(DrawingError, match="1568 bytes"):  # one pen's ink on a pad of two
        parse({"strokes": [], "background": base64.b64encode(one.tobytes()).decode()}, pens=2)


FORGED_PENS = {
    "too-few": ({"strokes": ["1 2", "3 4"], "pens": "0"}, 2),
    "too-many": ({"strokes": ["1 2"], "pens": "00"}, 2),
    "none-for-a-stroke": ({"strokes": ["1 2"], "pens": ""}, 2),
    "a-third-pen": ({"strokes": ["1 2"], "pens": "2"}, 2),
    "a-letter": ({"strokes": ["1 2"], "pens": "a"}, 2),
    "a-sign": ({"strokes": ["1 2"], "pens": "-"}, 2),
    "a-list": ({"strokes": ["1 2"], "pens": ["0"]}, 2),
    "a-number": ({"strokes": ["1 2"], "pens": 0}, 2),
    "null": ({"strokes": ["1 2"], "pens": None}, 2),
    "a-second-pen-on-a-pad-of-one": ({"strokes": ["1 2"], "pens": "1"}, 1),
}


@pytest.mark.parametrize("value, pens", FORGED_PENS.values(), ids=FORGED_PENS.keys())
def test_forged_pens_get_a_clear_reason(value, pens):
    with pytest.raises(DrawingError, match=f"pens must be a string of one pen a stroke, each a digit 0..{pens - 1}"):
        parse(value, pens=pens)


def test_an_example_has_one_ink_layer_a_pen():
    ink = np.zeros((28, 28), np.uint8)
    ink[4:24, 13:15] = 255
    example = drawing_pad.digit_example(1, ink)
    assert example.label == "1" and "1" in example.title and example.ink.shape == (1, 28, 28)
    assert example.picture[10, 13] == 0 and example.picture[10, 3] == 255  # black ink on white paper
    assert 'class="pen"' not in drawing_pad.DrawingPad([example]).html_template  # one pen: no pen buttons
    with pytest.raises(ValueError, match="2 ink layers"):
        drawing_pad.DrawingPad([example], colours=("#1f6fd1", "#e66100"))
    two = drawing_pad.Example("1 and 1", "two ones", np.stack([ink, ink]), np.zeros((28, 28, 3), np.uint8))
    pad = drawing_pad.DrawingPad([two], colours=("#1f6fd1", "#e66100"))
    assert pad.html_template.count('class="pen"') == 2
    assert base64.b64encode(two.ink.tobytes()).decode() in pad.html_template
