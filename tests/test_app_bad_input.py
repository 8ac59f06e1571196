"""Bad and odd input never breaks the app: every case ends in a reading, a "Draw a digit" view, a
message in the reading panel, a gr.Warning or a gr.Error with a clear text; never another
exception, never a stack trace. The event functions are called directly, then the page's events
and the API are sent forged requests over HTTP against `python app.py`."""

import json
import re
import threading
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image

from harness.digit_strokes import pad_value, strokes
from harness.page_protocol import Page, event_index, outputs_of, page_event
from playground import serving
from playground.dimensions_section import PAPER
from tests.support.examples import EXAMPLES, label_of

ZEROS = [0.0] * 16
SIDE = 448  # an uploaded canvas


def example_pixels(example: Path, side: int = SIDE, mode: str = "RGBA") -> np.ndarray:
    """An example digit (dark ink on white) resized to side x side, as a uint8 array in ``mode``."""
    return np.asarray(Image.open(example).convert(mode).resize((side, side), Image.Resampling.BILINEAR))


def rgba(side: int, colour: tuple[int, int, int, int]) -> np.ndarray:
    return np.broadcast_to(np.array(colour, np.uint8), (side, side, 4)).copy()


def assert_full_reading(app, outputs: tuple):
    """A reading whose every output renders: finite lengths in [0, 1], uint8 pictures."""
    answer, reconstruction, reading = outputs
    assert answer["digit"] == reading.winner == int(np.argmax(reading.lengths))
    config = app.NETWORKS.capsnet.config
    assert len(answer["lengths"]) == config.num_classes and all(0 <= x <= 1 for x in answer["lengths"])
    assert np.isfinite(reading.image).all() and reconstruction.dtype == np.uint8
    assert app.READING.panel(reading)["winner"] == reading.winner
    assert len(app.CAPSULE_DIMENSIONS.figure4(reading, app.WINNER, PAPER)["strips"]) == config.digit_capsule_dim
    np.testing.assert_array_equal(app.READING.perturb(reading, app.WINNER, *ZEROS), reconstruction)
    return reading


EMPTY_IMAGES = {
    "none": None,
    "blank-white": rgba(SIDE, (255, 255, 255, 255)),
    "blank-white-rgb": np.full((SIDE, SIDE, 3), 255, np.uint8),
    "blank-transparent": rgba(SIDE, (0, 0, 0, 0)),
    "all-black": rgba(SIDE, (0, 0, 0, 255)),
    "1x1-white": np.full((1, 1, 3), 255, np.uint8),
    "1x1-ink": np.array([[[0, 0, 0, 255]]], np.uint8),
}


@pytest.mark.parametrize("image", EMPTY_IMAGES.values(), ids=EMPTY_IMAGES.keys())
def test_an_empty_image_gives_no_reading(app, image):
    assert app.READING.predict(image) == (None, None, None)


def test_a_single_dot_gives_a_reading_not_an_error(app):
    dot = rgba(SIDE, (0, 0, 0, 0))
    dot[220:228, 220:228] = (0, 0, 0, 255)
    assert_full_reading(app, app.READING.predict(dot))


def test_a_scribble_over_the_whole_pad_gives_a_reading_not_an_error(app):
    rng = np.random.default_rng(0)
    scribble = [rng.uniform(0, 280, 400).round(1).tolist() for _ in range(30)]
    reading, panel = app.READING.read_drawing(pad_value(scribble))
    assert panel["winner"] == reading.winner and reading.image.max() == 1


@pytest.mark.parametrize("example", EXAMPLES[:3], ids=lambda path: path.stem)
def test_a_4000_pixel_upload_reads_like_the_small_one(app, example):
    reading = assert_full_reading(app, app.READING.predict(example_pixels(example, side=4000, mode="RGB")))
    assert reading.winner == label_of(example)


ODD_ENCODINGS = {
    "uint16": lambda example: example_pixels(example, mode="L").astype(np.uint16) * 257,
    "float64-in-0-1": lambda example: example_pixels(example, mode="RGB") / 255.0,
    "float32-in-0-255": lambda example: example_pixels(example, mode="RGB").astype(np.float32),
    "bool": lambda example: example_pixels(example, mode="L") > 127,
    "grey-2d": lambda example: example_pixels(example, mode="L"),
    "grey-plus-alpha": lambda example: np.stack(
        [example_pixels(example, mode="L"), np.full((SIDE, SIDE), 255, np.uint8)], axis=-1
    ),
}


@pytest.mark.parametrize("encode", ODD_ENCODINGS.values(), ids=ODD_ENCODINGS.keys())
def test_odd_dtypes_and_channel_counts_read_the_digit(app, encode):
    reading = assert_full_reading(app, app.READING.predict(encode(EXAMPLES[4])))
    assert reading.winner == label_of(EXAMPLES[4])


UNREADABLE = {
    "5-channels": (np.full((64, 64, 5), 255, np.uint8), "C in 1..4 channels"),
    "4-dimensions": (np.zeros((2, 64, 64, 3), np.uint8), "shape"),
    "0x0": (np.zeros((0, 0, 3), np.uint8), "empty"),
    "nan": (np.full((64, 64), np.nan), "NaN"),
    "negative-float": (np.full((64, 64), -1.0), "negative"),
    "int64-beyond-255": (np.full((64, 64), 1000, np.int64), r"\[0, 255\]"),
    "complex": (np.zeros((64, 64), np.complex64), "dtype complex64"),
    "a-file-path": ("drawing.png", "file path"),
}


@pytest.mark.parametrize("image, reason", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_an_unreadable_image_warns_with_the_reason(app, image, reason):
    with pytest.warns(UserWarning, match=f"Cannot read this image: .*{reason}"):
        assert app.READING.predict(image) == (None, None, None)


def test_a_photo_of_no_digit_gets_an_error_answer_that_says_why(app):
    """A photo of blank paper under light falling off: /predict and /predict_pair answer with an
    error (a gr.Error, which reaches an API caller as one), not a reading of the paper, nor
    Nones with a warning an API caller never sees."""
    import gradio as gr

    from harness.photos import choice_photo

    blank = choice_photo(None, "falling off", np.random.default_rng(0))
    with pytest.raises(gr.Error, match="Cannot read this image: no digit found: .* darker than the paper"):
        app.READING.predict(blank)
    with pytest.raises(gr.Error, match="Cannot read this image: no digit found"):
        app.TWO_DIGITS.predict_pair(blank)


def test_clear_and_draw_again_always_shows_the_last_drawing(app):
    """The loop at the event level: every reading is of the value just sent, never the last one."""
    for revision, digit in enumerate([4, 5, 1, 7, 0, 8] * 2, start=1):
        cleared, panel = app.READING.read_drawing(pad_value([], revision=2 * revision))
        assert cleared is None and panel["revision"] is None
        reading, panel = app.READING.read_drawing(pad_value(strokes(digit, 60, 30, 160, 220), 2 * revision + 1))
        assert reading.winner == digit and panel["revision"] == 2 * revision + 1


BAD_OFFSETS = {
    "huge": [1e9] + ZEROS[1:],
    "negative": ZEROS[:-1] + [-5.0],
    "just-beyond": [0.26] * 16,
    "nan": [float("nan")] * 16,
    "infinite": [0.0, -float("inf")] + ZEROS[2:],
    "string": ["0.1"] + ZEROS[1:],
    "none": ZEROS[:-1] + [None],
    "too-few": ZEROS[:3],
    "too-many": ZEROS + [0.0],
}


@pytest.mark.parametrize("offsets", BAD_OFFSETS.values(), ids=BAD_OFFSETS.keys())
def test_perturb_rejects_offsets_out_of_range_with_a_clear_error(app, offsets):
    import gradio as gr

    reading = app.READING.predict(example_pixels(EXAMPLES[0]))[2]
    for state in (reading, None):
        with pytest.raises(gr.Error, match=re.escape("each a number in [-0.25, 0.25]")):
            app.READING.perturb(state, app.WINNER, *offsets)


@pytest.mark.parametrize("decode_as", ["10", "-1", "seven", None, 3], ids=str)
def test_perturb_rejects_a_capsule_that_is_not_a_choice(app, decode_as):
    import gradio as gr

    with pytest.raises(gr.Error, match="decode_as, one of"):
        app.READING.perturb(app.READING.predict(example_pixels(EXAMPLES[0]))[2], decode_as, *ZEROS)


# Against the app launched as `python app.py`.


def panel_of(response: httpx.Response) -> dict:
    return outputs_of(response)[-1]  # the reading panel's value is every such event's last output


def said(panel: dict) -> str:
    """What the reading panel's value says is wrong (playground/reading_views.message), "" where nothing is."""
    return panel.get("message", "")


def read_on_the_page(app, url: str, value, session: str = "page") -> dict:
    """The reading panel the pad's event answers ``value`` with, sent as the page sends it."""
    return panel_of(page_event(app, url, app.read_drawing, Page.of(app).drawing(value), session))


def left_as_is(output) -> bool:
    """Whether an event's output is gr.skip(): the component stays as the page shows it."""
    return isinstance(output, dict) and output.get("__type__") == "update" and "value" not in output


FORGED_PAD_VALUES = {
    "a-string": ("draw a 7", "an object"),
    "a-list": ([["1", "2"]], "an object"),
    "null-strokes": ({"strokes": None}, "a list of strokes"),
    "numbers-not-strings": ({"strokes": [[10, 10, 50, 50]]}, "must be a string"),
    "out-of-range": ({"strokes": ["10 10 5000 50"]}, "must lie in 0..280"),
    "negative": ({"strokes": ["-10 10 50 50"]}, "must lie in 0..280"),
    "nan-text": ({"strokes": ["nan 10"]}, "finite"),
    "too-many-strokes": ({"strokes": ["1 1"] * 501}, "more than the 500"),
    "too-many-points": ({"strokes": [" ".join(["1 1"] * 20_001)]}, "more than the 20000 points"),
    "background-bytes": ({"strokes": [], "background": "AAAA"}, "784 bytes"),
    "background-not-ascii": ({"strokes": [], "background": "é" * 1044}, "784 bytes"),
}


@pytest.mark.server
@pytest.mark.parametrize("value, reason", FORGED_PAD_VALUES.values(), ids=FORGED_PAD_VALUES.keys())
def test_a_forged_drawing_gets_a_clear_message_and_the_app_reads_on(app, url, value, reason):
    panel = read_on_the_page(app, url, value)
    assert "Cannot read this drawing" in said(panel) and reason in said(panel) and "Traceback" not in said(panel)
    panel = read_on_the_page(app, url, pad_value(strokes(2, 60, 30, 160, 220)))
    assert panel["winner"] == 2


@pytest.mark.server
def test_nan_and_infinity_as_json_numbers_get_a_clear_message(app, url):
    fn_index = event_index(app, app.read_drawing)
    beside = json.dumps(Page.of(app).drawing(None)[1:])[1:-1]  # what the page sends beside the value
    for bad in ('{"strokes": [], "revision": NaN}', '{"strokes": [], "revision": Infinity}'):
        body = f'{{"data": [{bad}, {beside}], "fn_index": {fn_index}, "session_hash": "nan"}}'
        response = httpx.post(
            f"{url}gradio_api/run/predict", content=body, timeout=120, headers={"Content-Type": "application/json"}
        )
        assert "the revision must be an integer" in said(panel_of(response))


@pytest.mark.server
def test_a_request_too_large_is_refused_before_it_is_read(url):
    too_large = json.dumps({"data": [{"strokes": ["1 1 " * 300_000]}], "fn_index": 0})
    for path in ("gradio_api/run/predict", "gradio_api/queue/join"):
        response = httpx.post(
            f"{url}{path}", content=too_large, timeout=120, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 413 and "Request body too large" in response.text


@pytest.mark.server
def test_the_largest_drawing_allowed_holds_up_nobody(app, url):
    """Four people send the most points a drawing may have (20,000, each over the whole pad)
    while another draws a digit: all are answered, the digit read right."""
    rng = np.random.default_rng(1)
    largest = pad_value([rng.uniform(0, 280, 4000).round(1).tolist() for _ in range(10)])
    answers = {}

    def send(name: str, value: dict) -> None:
        answers[name] = read_on_the_page(app, url, value, session=name)

    heavy = [threading.Thread(target=send, args=(f"heavy-{k}", largest)) for k in range(4)]
    for thread in heavy:
        thread.start()
    send("person", pad_value(strokes(6, 60, 30, 160, 220)))
    for thread in heavy:
        thread.join()
    assert answers["person"]["winner"] == 6
    assert all("winner" in answers[f"heavy-{k}"] for k in range(4))


@pytest.mark.server
@pytest.mark.parametrize("offsets", [[0.3] + ZEROS[1:], "x", None], ids=["beyond", "a-string", "none"])
def test_forged_slider_values_get_a_clear_message(app, url, offsets):
    session = f"sliders-{offsets!r}"
    read_on_the_page(app, url, pad_value(strokes(3, 60, 30, 160, 220)), session)
    sliders = {"offsets": offsets, "rows": [], "enabled": True}
    panel = panel_of(
        page_event(app, url, app.CAPSULE_DIMENSIONS.move_dimensions, [None, "winner", "paper", sliders, None], session)
    )
    assert "Cannot move the sliders" in said(panel) and "Traceback" not in said(panel)


FORGED_CHOICES = {"null": None, "not-a-choice": "seven", "a-number": 3, "a-list": [], "nan": float("nan")}


@pytest.mark.server
@pytest.mark.parametrize("forged", FORGED_CHOICES.values(), ids=FORGED_CHOICES.keys())
def test_forged_decode_as_and_slider_range_get_a_clear_message(app, url, forged):
    """Every event that takes *Decode as* and *Slider range* says in the page what is wrong with
    a value that is none of their choices, and leaves its other outputs as they are."""
    session = "decoding-forged"
    read_on_the_page(app, url, pad_value(strokes(7, 60, 30, 160, 220)), session)
    sliders = app.CAPSULE_DIMENSIONS.sliders_at_zero(None, PAPER)
    for decode_as, scale, reason in (
        (forged, "paper", "Decode as must be one of winner, 0, 1"),
        ("winner", forged, "the slider range must be one of paper"),
    ):
        panel, *rest = outputs_of(
            page_event(app, url, app.CAPSULE_DIMENSIONS.decode_again, [None, decode_as, scale, sliders, None], session)
        )
        assert "Cannot decode" in said(panel) and reason in said(panel) and all(map(left_as_is, rest))
        panel = panel_of(
            page_event(
                app, url, app.CAPSULE_DIMENSIONS.move_dimensions, [None, decode_as, scale, sliders, None], session
            )
        )
        assert "Cannot move the sliders" in said(panel) and reason in said(panel)
        drawn = pad_value(strokes(7, 60, 30, 160, 220))
        details = outputs_of(page_event(app, url, app.read_drawing, [drawn, decode_as, scale, sliders], session))
        assert "Cannot show Figure 4" in details[3]["message"] and reason in details[3]["message"]
        assert all(map(left_as_is, details[1:3] + details[4:5])) and details[-1]["winner"] == 7
    panel = outputs_of(
        page_event(app, url, app.CAPSULE_DIMENSIONS.decode_again, [None, "winner", "paper", sliders, None], session)
    )[0]
    assert panel["winner"] == 7  # the app decodes on


def saved(pixels: np.ndarray, path: Path) -> str:
    from gradio_client import handle_file

    Image.fromarray(pixels).save(path)
    return handle_file(str(path))


@pytest.mark.server
def test_api_empty_and_tiny_images_give_no_reading(client, tmp_path):
    for name, pixels in [
        ("white", rgba(SIDE, (255, 255, 255, 255))),
        ("transparent", rgba(SIDE, (0, 0, 0, 0))),
        ("black", rgba(SIDE, (0, 0, 0, 255))),
        ("1x1", np.zeros((1, 1), np.uint8)),
    ]:
        assert client.predict(saved(pixels, tmp_path / f"{name}.png"), api_name="/predict") == (None, None)


def grey(example: Path) -> Image.Image:
    return Image.open(example).convert("L")


def palette_digit(example: Path) -> Image.Image:
    """An example as a palette image of 8 colours, white paper (index 0) to black ink (index 7):
    its indices, read as grey levels, are all but black, so only its colours show the digit."""
    ink = 255 - np.asarray(grey(example), dtype=np.int32)
    picture = Image.frombytes("P", ink.shape[::-1], (ink * 7 // 255).astype(np.uint8).tobytes())
    picture.putpalette([level for i in range(8) for level in (255 - 255 * i // 7,) * 3])
    return picture


def clear_paper(picture: Image.Image) -> Image.Image:
    picture.info["transparency"] = 0  # index 0, the paper, transparent
    return picture


MODES = {  # name: (the example in a PIL mode of its own, the file's suffix)
    "gif": (palette_digit, ".gif"),
    "png-palette": (palette_digit, ".png"),
    "png-palette-clear-paper": (lambda example: clear_paper(palette_digit(example)), ".png"),
    "png-grey-alpha": (lambda example: grey(example).convert("LA"), ".png"),
    "png-16-bit": (lambda example: Image.fromarray(np.asarray(grey(example), np.uint16) * 257), ".png"),
    "tiff-cmyk": (lambda example: grey(example).convert("CMYK"), ".tiff"),
}


@pytest.mark.server
@pytest.mark.parametrize("picture, suffix", MODES.values(), ids=MODES.keys())
def test_api_reads_an_image_in_any_mode_by_its_colours(client, tmp_path, picture, suffix):
    """A palette image is read by its palette's colours, not its indices; every other mode a file
    can hold, by what its pixels mean."""
    from gradio_client import handle_file

    example, path = EXAMPLES[6], tmp_path / f"digit{suffix}"
    picture = picture(example)
    picture.save(path)
    assert Image.open(path).mode == picture.mode
    answer, _ = client.predict(handle_file(str(path)), api_name="/predict")
    assert answer is not None and answer["digit"] == label_of(example)


@pytest.mark.server
def test_api_reads_an_animated_gif_by_its_first_frame_s_colours(client, tmp_path):
    from gradio_client import handle_file

    example, path = EXAMPLES[8], tmp_path / "digit.gif"
    first = palette_digit(example)
    blank = Image.new("P", first.size, 0)
    blank.putpalette(first.getpalette())
    first.save(path, save_all=True, append_images=[blank], duration=500, loop=0)
    assert Image.open(path).n_frames == 2
    answer, _ = client.predict(handle_file(str(path)), api_name="/predict")
    assert answer is not None and answer["digit"] == label_of(example)


@pytest.mark.server
def test_api_reads_a_4000_pixel_upload(client, tmp_path):
    example = EXAMPLES[5]
    answer, _ = client.predict(saved(example_pixels(example, 4000, "L"), tmp_path / "huge.png"), api_name="/predict")
    assert answer["digit"] == label_of(example)


@pytest.mark.server
def test_api_an_upload_of_too_many_pixels_gives_a_clear_error(client, tmp_path):
    from gradio_client import handle_file
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match=re.escape(serving.TOO_MANY_PIXELS)):
        client.predict(saved(np.full((6000, 6000), 255, np.uint8), tmp_path / "bomb.png"), api_name="/predict")
    answer, _ = client.predict(handle_file(str(EXAMPLES[2])), api_name="/predict")
    assert answer["digit"] == label_of(EXAMPLES[2])


@pytest.mark.server
def test_api_a_file_that_is_not_an_image_gives_a_clear_error(client, tmp_path):
    from gradio_client import handle_file
    from gradio_client.exceptions import AppError

    path = tmp_path / "digit.png"
    path.write_bytes(b"this is not a PNG")
    with pytest.raises(AppError, match=re.escape(serving.NOT_AN_IMAGE)):
        client.predict(handle_file(str(path)), api_name="/predict")


@pytest.mark.server
@pytest.mark.parametrize(
    "value, message",
    [
        ("1e9", "greater than maximum value 0.25"),
        ("-5", "less than minimum value -0.25"),
        ("Infinity", "greater than maximum value 0.25"),
        ("NaN", re.escape("each a number in [-0.25, 0.25]")),
        ('"abc"', "slider"),
        ("null", "slider"),
    ],
)
def test_api_slider_values_out_of_range_give_a_clear_error(client, url, value, message):
    from gradio_client import handle_file

    from harness.app_server import call_perturb

    client.predict(handle_file(str(EXAMPLES[3])), api_name="/predict")  # a reading in this session
    event, data = call_perturb(url, client.session_hash, ", ".join(['"winner"'] + [value] * 16))
    assert event == "error" and data["error"] and re.search(message, data["error"]), data
    assert "Traceback" not in data["error"]
    event, data = call_perturb(url, client.session_hash, ", ".join(['"winner"'] + ["0.1"] * 16))
    assert event == "complete" and data[0]["path"].endswith(".png")  # the app still answers


@pytest.mark.server
def test_details_again_for_the_same_reading_answer_with_nothing_to_reset(app, url):
    """The second stroke of a 4: the sliders already show the winner's names at zero, so the
    details leave them (gr.skip()) and still draw Figure 4 and the routing view."""
    session = "details-twice"
    page = Page.of(app)
    sliders = page.sliders
    for revision in (1, 2):
        drawn = pad_value(strokes(4, 60, 30, 160, 220), revision=revision)
        response = page_event(app, url, app.read_drawing, page.drawing(drawn, sliders), session)
        assert response.status_code == 200, response.text
        _, decode_as, shown, figure4, routing, _ = response.json()["data"]
        assert left_as_is(shown) == (revision == 2)  # the second time, the sliders are at zero already
        sliders = shown if isinstance(shown, dict) and "rows" in shown else sliders
        assert len(figure4["strips"]) == 16 and np.argmax(routing["lengths"][2]) == 4
