"""Bad and odd input never breaks the app: every case ends in a reading, no reading, a gr.Warning,
a gr.Error or an answer of 400 with a clear text; never another exception, never a stack trace.
The API's functions are called directly, then the page's questions (answers.py) and the API are
sent forged requests over HTTP against `python app.py`."""

import json
import re
import threading
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image

from playground import serving
from playground.reading import EXAMPLES as PAGE_EXAMPLES, WINNER, example_ink
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
    np.testing.assert_array_equal(app.READING.perturb(reading, WINNER, *ZEROS), reconstruction)
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


def test_a_28x28_full_of_ink_gives_a_reading_not_an_error(app):
    answer = app.ANSWERS.read({"image": [1.0] * 784, "routed": True})
    assert len(answer["lengths"]) == 10 and all(0 <= x <= 1 for x in answer["lengths"])


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
            app.READING.perturb(state, WINNER, *offsets)


@pytest.mark.parametrize("decode_as", ["10", "-1", "seven", None, 3], ids=str)
def test_perturb_rejects_a_capsule_that_is_not_a_choice(app, decode_as):
    import gradio as gr

    with pytest.raises(gr.Error, match="decode_as, one of"):
        app.READING.perturb(app.READING.predict(example_pixels(EXAMPLES[0]))[2], decode_as, *ZEROS)


# Against the app launched as `python app.py`.


def asked(url: str, kind: str, body: str) -> httpx.Response:
    """The page's question ``kind`` with the JSON ``body``, as page_networks.js sends it (answers.py)."""
    return httpx.post(f"{url}ask/{kind}", content=body, timeout=120, headers={"Content-Type": "application/json"})


def example_image(digit: int) -> list[float]:
    """The 28x28 of the MNIST example of ``digit`` under the pad, as the page sends it."""
    return (example_ink(next(path for path in PAGE_EXAMPLES if label_of(path) == digit))[1] / 255).flatten().tolist()


FORGED_QUESTIONS = {
    "a-string": ("read", '"draw a 7"', "an object with the keys"),
    "no-json": ("read", "{image", "takes a JSON object"),
    "too-few-pixels": ("read", json.dumps({"image": [0.5] * 700, "routed": True}), "784 numbers, got 700"),
    "a-pixel-too-dark": ("read", json.dumps({"image": [0.5] * 783 + [2], "routed": True}), "[0, 1], got 2"),
    "nan": ("read", '{"image": [NaN' + ", 0" * 783 + '], "routed": true}', "got nan"),
    "infinity": ("decode", '{"capsules": [Infinity' + ", 0" * 159 + '], "digit": 1, "offsets": null}', "got inf"),
    "a-digit-of-eleven": (
        "sweep",
        json.dumps({"capsules": [0] * 160, "digit": 11, "limits": [0.25] * 16, "steps": 11}),
        "0..9",
    ),
    "a-turn-too-far": (
        "turn",
        json.dumps({"image": [0] * 784, "change": [500, 1, 0, 1, 1, 0, 0], "networks": ["capsules"]}),
        "rotation",
    ),
    "pairs-of-one-field": ("pair", json.dumps({"fields": [[0] * 784], "decodeAs": None}), "3 images"),
}


@pytest.mark.server
@pytest.mark.parametrize("kind, body, reason", FORGED_QUESTIONS.values(), ids=FORGED_QUESTIONS.keys())
def test_a_forged_question_gets_a_clear_message_and_the_app_reads_on(app, url, kind, body, reason):
    response = asked(url, kind, body)
    assert response.status_code == 400 and reason in response.json()["error"], response.text
    assert "Traceback" not in response.text
    answer = asked(url, "read", json.dumps({"image": example_image(2), "routed": True})).json()
    assert int(np.argmax(answer["lengths"])) == 2 and "routing" in answer


@pytest.mark.server
def test_a_request_too_large_is_refused_before_it_is_read(url):
    too_large = json.dumps({"data": [{"strokes": ["1 1 " * 300_000]}], "fn_index": 0})
    for path in ("gradio_api/run/predict", "gradio_api/queue/join", "ask/read"):
        response = httpx.post(
            f"{url}{path}", content=too_large, timeout=120, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 413 and "Request body too large" in response.text


@pytest.mark.server
def test_many_questions_at_once_hold_up_nobody(app, url):
    """Four people ask for Figure 4's sweep over and over while another's drawing is read: all are
    answered, the digit read right."""
    sweep = json.dumps({"capsules": [0.1] * 160, "digit": 3, "limits": [0.25] * 16, "steps": 11})
    answers = {}

    def send(name: str, kind: str, body: str) -> None:
        answers[name] = [asked(url, kind, body).status_code for _ in range(3)]

    heavy = [threading.Thread(target=send, args=(f"heavy-{k}", "sweep", sweep)) for k in range(4)]
    for thread in heavy:
        thread.start()
    person = asked(url, "read", json.dumps({"image": example_image(6), "routed": True}))
    for thread in heavy:
        thread.join()
    assert int(np.argmax(person.json()["lengths"])) == 6
    assert all(answers[f"heavy-{k}"] == [200] * 3 for k in range(4))


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
