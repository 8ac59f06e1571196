"""The drawing pad's layout: its examples, one ink layer a pen, and its pens' buttons. What it draws
and how the page makes a drawing 28x28: tests/js/ink.test.js and the browser tests."""

import base64

import numpy as np
import pytest

from playground import drawing_pad


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
