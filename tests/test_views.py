"""What the playground shows: the reading panel, the bars, Figure 4, the routing heatmap."""

import base64
import io
import re

import numpy as np
import torch
from PIL import Image

from playground import figure4_views, reading_views, views


def decoded(data_url: str) -> np.ndarray:
    assert data_url.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1]))))


def test_a_picture_is_black_ink_on_white_paper_pixel_for_pixel():
    ink = np.zeros((28, 28), np.float32)
    ink[3, 5], ink[10, 10] = 1.0, 0.5
    html = views.picture_html(ink, "a dot")
    pixels = decoded(re.search(r'src="([^"]+)"', html).group(1))
    assert pixels.shape == (28, 28) and pixels[3, 5] == 0 and pixels[10, 10] == 127
    assert (pixels == 255).sum() == 28 * 28 - 2
    assert 'alt="a dot"' in html


def test_the_reading_panel_shows_the_winner_its_length_and_its_revision():
    lengths = np.linspace(0.05, 0.5, 10)
    lengths[4] = 0.93
    panel = reading_views.reading_panel(np.zeros((28, 28)), lengths, 4, torch.zeros(28, 28), 4, 12)
    assert '<div class="digit">4</div>' in panel and "capsule length 0.930" in panel
    assert 'data-revision="12"' in panel and "data-settled" not in panel
    assert panel.count('class="bar winner"') == 1 and panel.count('class="bar"') == 9
    assert "Reconstruction from capsule 4" in panel
    assert "data-settled" in reading_views.reading_panel(
        np.zeros((28, 28)), lengths, 4, torch.zeros(28, 28), 4, 12, True
    )


def test_the_reading_panel_carries_its_capsules_for_the_page_decoder_where_it_names_one():
    """The page's decoder (a graph in its worker) redraws from these: the capsules exactly, the decoder's address, the
    capsule shown and the winner; a panel with no decoder named carries none of them."""
    capsules = torch.randn(10, 16, generator=torch.Generator().manual_seed(0))
    panel = reading_views.reading_panel(
        np.zeros((28, 28)),
        np.full(10, 0.1),
        4,
        torch.zeros(28, 28),
        7,
        12,
        capsules=capsules,
        decoder="decoder/0123456789abcdef.safetensors",
    )
    root = panel.split(">", 1)[0]
    assert 'data-decoder="decoder/0123456789abcdef.safetensors" data-decoded="7" data-winner="4"' in root
    carried = base64.b64decode(re.search(r'data-capsules="([^"]+)"', root).group(1))
    np.testing.assert_array_equal(np.frombuffer(carried, dtype="<f4").reshape(10, 16), capsules.numpy())
    plain = reading_views.reading_panel(
        np.zeros((28, 28)), np.full(10, 0.1), 4, torch.zeros(28, 28), 7, 12, capsules=capsules
    )
    assert "data-capsules" not in plain and "data-decoder" not in plain


def test_the_empty_panel_asks_for_a_digit():
    panel = reading_views.reading_panel(None, np.zeros(10), None, None, None, None)
    assert "Draw a digit" in panel and "<img" not in panel and "bar winner" not in panel
    assert "data-revision" not in panel


def test_a_message_panel_escapes_its_text():
    assert "&lt;script&gt;" in views.message_panel("<script>alert(1)</script>")


def test_figure4_has_a_strip_per_row_of_the_sweep_each_picture_a_faint_pixel_apart():
    images = torch.rand(16, 11, 28, 28, generator=torch.Generator().manual_seed(0))
    rows = [{"dimension": d, "label": f"d{d}", "limit": 0.25} for d in range(16)]
    value = figure4_views.figure4_value(4, 7, "paper", rows, images)
    assert (value["revision"], value["digit"], value["range"], value["rows"]) == (4, 7, "paper", rows)
    assert len(value["strips"]) == 16 and value["width"] == 11 * 29 - 1
    strip = decoded(value["strips"][5])
    assert strip.shape == (28, 11 * 29 - 1)
    np.testing.assert_array_equal(strip[:, 29 * 3 : 29 * 3 + 28], views.paper(images[5, 3]))
    np.testing.assert_array_equal(strip[:, 29 * 3 + 28], views.paper(np.full(28, figure4_views.GAP_INK)))


def test_the_reading_panel_shows_what_else_it_could_be():
    lengths = np.linspace(0, 0.9, 10)
    panel = reading_views.reading_panel(
        np.zeros((28, 28)),
        lengths,
        9,
        torch.zeros(28, 28),
        9,
        3,
        runner_up=8,
        runner_up_reconstruction=torch.zeros(28, 28),
    )
    assert "What else it could be: 8, capsule length 0.800" in panel and panel.count("<img") == 3
    assert "What else" not in reading_views.reading_panel(None, np.zeros(10), None, None, None, None)
