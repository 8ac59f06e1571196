"""Bad and odd input never breaks the app: every case ends in a reading, a "Draw a digit" view, a
gr.Warning or a gr.Error with a clear text; never another exception. The event functions are
called directly, then a few cases go through gradio_client against `python app.py`."""
import math
import re
from pathlib import Path

import gradio as gr
import numpy as np
import pytest
from PIL import Image

import app
from conftest import label_of

ZEROS = [0.0] * app.DIMENSIONS
SIDE = 448  # the Sketchpad's canvas


def example_pixels(example: Path, side: int = SIDE, mode: str = "RGBA") -> np.ndarray:
    """An example digit (dark ink on white) resized to side x side, as a uint8 array in ``mode``."""
    return np.asarray(Image.open(example).convert(mode).resize((side, side), Image.Resampling.BILINEAR))


def sketchpad(image: np.ndarray | None) -> dict:
    """The Sketchpad's value with ``image`` as its background and composite."""
    return {"background": image, "layers": [], "composite": image}


def rgba(side: int, colour: tuple[int, int, int, int]) -> np.ndarray:
    return np.broadcast_to(np.array(colour, np.uint8), (side, side, 4)).copy()


def assert_draw_a_digit(outputs: tuple) -> None:
    """An empty canvas: no reading, and every output back to its "Draw a digit" state."""
    assert outputs == (None, None, None)
    network_view, digit_html, bars_html, decode_as, *sliders = app.show_reading(None)
    assert network_view is None and "Draw a digit" in digit_html and "bar winner" not in bars_html
    assert decode_as == app.WINNER and sliders == ZEROS


def assert_full_reading(outputs: tuple) -> app.Reading:
    """A reading whose every output renders: finite lengths in [0, 1], uint8 pictures."""
    answer, reconstruction, reading = outputs
    assert answer["digit"] == reading.winner == int(np.argmax(reading.lengths))
    assert len(answer["lengths"]) == app.DIGITS and all(0 <= x <= 1 for x in answer["lengths"])
    assert np.isfinite(reading.image).all() and reading.image.shape == (28, 28)
    assert reconstruction.dtype == np.uint8
    network_view, digit_html, *_ = app.show_reading(reading)
    assert network_view.dtype == np.uint8 and f">{reading.winner}<" in digit_html
    assert app.draw_figure4(reading, app.WINNER).dtype == np.uint8
    np.testing.assert_array_equal(app.perturb(reading, app.WINNER, *ZEROS), reconstruction)
    return reading


EMPTY_CANVASES = {
    "none": None,
    "sketchpad-without-images": sketchpad(None),
    "sketchpad-with-empty-layers": {"background": None, "layers": [rgba(SIDE, (0, 0, 0, 0))] * 2,
                                    "composite": None},
    "blank-white": sketchpad(rgba(SIDE, (255, 255, 255, 255))),
    "blank-white-rgb": np.full((SIDE, SIDE, 3), 255, np.uint8),
    "blank-transparent": sketchpad(rgba(SIDE, (0, 0, 0, 0))),
    "all-black": sketchpad(rgba(SIDE, (0, 0, 0, 255))),
    "all-black-rgb": np.zeros((SIDE, SIDE, 3), np.uint8),
    "1x1-white": np.full((1, 1, 3), 255, np.uint8),
    "1x1-ink": np.array([[[0, 0, 0, 255]]], np.uint8),
}


@pytest.mark.parametrize("canvas", EMPTY_CANVASES.values(), ids=EMPTY_CANVASES.keys())
def test_an_empty_canvas_says_draw_a_digit(canvas):
    assert_draw_a_digit(app.predict(canvas))


def test_a_single_dot_gives_a_reading_not_an_error():
    dot = rgba(SIDE, (0, 0, 0, 0))
    dot[220:228, 220:228] = (0, 0, 0, 255)   # one touch of a 8-pixel brush
    assert_full_reading(app.predict(sketchpad(dot)))


def test_a_scribble_over_the_whole_canvas_gives_a_reading_not_an_error():
    rng = np.random.default_rng(0)
    scribble = rgba(SIDE, (0, 0, 0, 0))
    for _ in range(60):                       # thick strokes between random points
        (r0, c0), (r1, c1) = rng.integers(0, SIDE, (2, 2))
        for t in np.linspace(0, 1, 200):
            r, c = int(r0 + t * (r1 - r0)), int(c0 + t * (c1 - c0))
            scribble[max(r - 7, 0):r + 7, max(c - 7, 0):c + 7] = (0, 0, 0, 255)
    assert (scribble[..., 3] > 0).mean() > 0.5
    assert_full_reading(app.predict(sketchpad(scribble)))


@pytest.mark.parametrize("example", app.EXAMPLES[:3], ids=lambda path: path.stem)
def test_a_4000_pixel_upload_reads_like_the_small_one(example):
    huge = example_pixels(example, side=4000, mode="RGB")
    reading = assert_full_reading(app.predict(sketchpad(huge)))
    assert reading.winner == label_of(example)


def grey_plus_alpha(example: Path) -> np.ndarray:
    grey = example_pixels(example, mode="L")
    return np.stack([grey, np.full_like(grey, 255)], axis=-1)   # [H, W, 2]


ODD_ENCODINGS = {
    "uint16": lambda example: example_pixels(example, mode="L").astype(np.uint16) * 257,
    "float64-in-0-1": lambda example: example_pixels(example, mode="RGB") / 255.0,
    "float32-in-0-255": lambda example: example_pixels(example, mode="RGB").astype(np.float32),
    "bool": lambda example: example_pixels(example, mode="L") > 127,
    "grey-2d": lambda example: example_pixels(example, mode="L"),
    "grey-plus-alpha-2-channels": grey_plus_alpha,
}


@pytest.mark.parametrize("encode", ODD_ENCODINGS.values(), ids=ODD_ENCODINGS.keys())
def test_odd_dtypes_and_channel_counts_read_the_digit(encode):
    example = app.EXAMPLES[4]
    reading = assert_full_reading(app.predict(encode(example)))
    assert reading.winner == label_of(example)


UNREADABLE = {
    "5-channels": (np.full((64, 64, 5), 255, np.uint8), "C in 1..4 channels"),
    "4-dimensions": (np.zeros((2, 64, 64, 3), np.uint8), "shape"),
    "0x0": (np.zeros((0, 0, 3), np.uint8), "empty"),
    "nan": (np.full((64, 64), np.nan), "NaN"),
    "negative-float": (np.full((64, 64), -1.0), "negative"),
    "int64-beyond-255": (np.full((64, 64), 1000, np.int64), r"\[0, 255\]"),
    "complex": (np.zeros((64, 64), np.complex64), "dtype complex64"),
    "a-file-path": ("drawing.png", "file path"),
    "a-dict-without-images": ({"image": np.zeros((8, 8))}, "background, layers and composite"),
}


@pytest.mark.parametrize("image, reason", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_an_unreadable_image_warns_with_the_reason(image, reason):
    with pytest.warns(UserWarning, match=f"Cannot read this image: .*{reason}"):
        assert_draw_a_digit(app.predict(image))


def test_clearing_and_drawing_again_quickly_always_shows_the_last_drawing():
    sketches = {example: sketchpad(example_pixels(example)) for example in app.EXAMPLES}
    expected = {example: app.predict(sketch) for example, sketch in sketches.items()}
    for example in app.EXAMPLES * 2:
        assert_draw_a_digit(app.predict(sketchpad(None)))             # the clear button
        with pytest.warns(UserWarning, match="Draw a digit first"):  # a slider before drawing
            assert app.perturb(None, app.WINNER, *ZEROS) is None
        assert app.reset_dimensions(None, app.WINNER) == (*ZEROS, None)
        answer, reconstruction, reading = app.predict(sketches[example])
        assert answer == expected[example][0] and answer["digit"] == label_of(example)
        np.testing.assert_array_equal(reconstruction, expected[example][1])
        np.testing.assert_array_equal(app.perturb(reading, app.WINNER, *ZEROS), reconstruction)


@pytest.fixture(scope="module")
def reading() -> app.Reading:
    return app.predict(sketchpad(example_pixels(app.EXAMPLES[0])))[2]


BAD_OFFSETS = {
    "huge": [1e9] + ZEROS[1:],
    "negative": ZEROS[:-1] + [-5.0],
    "just-beyond": [app.OFFSET_LIMIT + 0.01] * app.DIMENSIONS,
    "nan": [math.nan] * app.DIMENSIONS,
    "infinite": [0.0, -math.inf] + ZEROS[2:],
    "string": ["0.1"] + ZEROS[1:],
    "none": ZEROS[:-1] + [None],
    "too-few": ZEROS[:3],
    "too-many": ZEROS + [0.0],
}


@pytest.mark.parametrize("offsets", BAD_OFFSETS.values(), ids=BAD_OFFSETS.keys())
@pytest.mark.parametrize("with_reading", [True, False], ids=["after-drawing", "before-drawing"])
def test_perturb_rejects_offsets_out_of_range_with_a_clear_error(offsets, with_reading, reading):
    with pytest.raises(gr.Error, match=re.escape(f"each a number in [-{app.OFFSET_LIMIT}, {app.OFFSET_LIMIT}]")):
        app.perturb(reading if with_reading else None, app.WINNER, *offsets)


@pytest.mark.parametrize("decode_as", ["10", "-1", "seven", None, 3], ids=str)
def test_perturb_rejects_a_capsule_that_is_not_a_choice(decode_as, reading):
    with pytest.raises(gr.Error, match="decode_as, one of"):
        app.perturb(reading, decode_as, *ZEROS)


def test_perturb_accepts_the_slider_ends(reading):
    for limit in (-app.OFFSET_LIMIT, app.OFFSET_LIMIT):
        image = app.perturb(reading, app.WINNER, *[limit] * app.DIMENSIONS)
        assert image.dtype == np.uint8 and image.shape == (28 * app.PIXEL, 28 * app.PIXEL)


# Through the API, against the app launched as `python app.py`.

@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(URL, a gradio_client Client) of app.py served on 127.0.0.1 for this module."""
    from gradio_client import Client

    from app_server import serving_app

    with pytest.MonkeyPatch.context() as env:
        env.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        with serving_app(start_timeout=600) as url:
            client = Client(url, verbose=False, analytics_enabled=False,
                            download_files=tmp_path_factory.mktemp("downloads"))
            yield url, client
            client.close()


def upload(path: Path) -> dict:
    """A Sketchpad value for gradio_client whose background and composite are the file ``path``."""
    from gradio_client import handle_file

    return {"background": handle_file(str(path)), "layers": [], "composite": handle_file(str(path))}


def saved(pixels: np.ndarray, path: Path) -> Path:
    Image.fromarray(pixels).save(path)
    return path


def test_api_empty_and_tiny_canvases_give_no_reading(served, tmp_path):
    _, client = served
    for name, pixels in [("white", rgba(SIDE, (255, 255, 255, 255))), ("transparent", rgba(SIDE, (0, 0, 0, 0))),
                         ("black", rgba(SIDE, (0, 0, 0, 255))), ("1x1", np.zeros((1, 1), np.uint8))]:
        assert client.predict(upload(saved(pixels, tmp_path / f"{name}.png")), api_name="/predict") == (None, None)
    assert client.predict(None, api_name="/predict") == (None, None)


def test_api_reads_a_4000_pixel_upload(served, tmp_path):
    _, client = served
    example = app.EXAMPLES[5]
    path = saved(example_pixels(example, side=4000, mode="L"), tmp_path / "huge.png")
    answer, _ = client.predict(upload(path), api_name="/predict")
    assert answer["digit"] == label_of(example)


def test_api_an_upload_of_too_many_pixels_gives_a_clear_error(served, tmp_path):
    from gradio_client.exceptions import AppError

    _, client = served
    path = saved(np.full((6000, 6000), 255, np.uint8), tmp_path / "bomb.png")   # 36 Mpx in ~40 kB
    with pytest.raises(AppError, match="exceeds limit"):
        client.predict(upload(path), api_name="/predict")
    assert client.predict(upload(app.EXAMPLES[2]), api_name="/predict")[0]["digit"] == label_of(app.EXAMPLES[2])


def test_api_a_file_that_is_not_an_image_gives_a_clear_error(served, tmp_path):
    from gradio_client.exceptions import AppError

    _, client = served
    path = tmp_path / "digit.png"
    path.write_bytes(b"this is not a PNG")
    with pytest.raises(AppError, match="cannot identify image file"):
        client.predict(upload(path), api_name="/predict")


def test_api_clear_then_draw_again(served):
    _, client = served
    first, second = app.EXAMPLES[1], app.EXAMPLES[8]
    assert client.predict(upload(first), api_name="/predict")[0]["digit"] == label_of(first)
    assert client.predict(None, api_name="/predict") == (None, None)
    assert client.predict(app.WINNER, *ZEROS, api_name="/perturb") is None   # "Draw a digit first"
    answer, reconstruction = client.predict(upload(second), api_name="/predict")
    assert answer["digit"] == label_of(second)
    np.testing.assert_array_equal(
        np.asarray(Image.open(client.predict(app.WINNER, *ZEROS, api_name="/perturb"))),
        np.asarray(Image.open(reconstruction)))


@pytest.mark.parametrize("value, message", [
    ("1e9", "greater than maximum value 0.25"),
    ("-5", "less than minimum value -0.25"),
    ("Infinity", "greater than maximum value 0.25"),
    ("NaN", re.escape("each a number in [-0.25, 0.25]")),
    ('"abc"', "slider"),
    ("null", "slider"),
])
def test_api_slider_values_out_of_range_give_a_clear_error(served, value, message):
    from app_server import call_perturb

    url, client = served
    client.predict(upload(app.EXAMPLES[3]), api_name="/predict")     # a reading in this session
    event, data = call_perturb(url, client.session_hash, ", ".join([f'"{app.WINNER}"'] + [value] * app.DIMENSIONS))
    assert event == "error"
    assert data["error"] and re.search(message, data["error"]), data
    assert "Traceback" not in data["error"]
    event, data = call_perturb(url, client.session_hash, ", ".join([f'"{app.WINNER}"'] + ["0.1"] * app.DIMENSIONS))
    assert event == "complete" and data[0]["path"].endswith(".png")   # the app still answers
