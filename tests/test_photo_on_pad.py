"""A photo of a digit on paper put on the pad (playground/photo.py): its 28x28, made by the library's
image path, becomes the pad's background as a tapped example's does; the page shows it as the
network's input and reads it; the person draws over it and clears it, with a mouse and on a phone.
A photo with no digit says so and leaves the pad as it was. The photos are harness/photos.py's report
set (blue ballpoint on cream paper, a spotlight or a vignette, a hard shadow, JPEG), MNIST test
digits laid on it."""

import base64

import gradio as gr
import numpy as np
import pytest
import torch
from PIL import Image

from capsnet.data.preprocess import sketch_to_mnist
from harness.chromium_browser import CHROMIUM, PHONE
from harness.digit_strokes import strokes
from harness.pad_drivers import PadDriver
from harness.photos import report_photo
from playground.photo import NO_DIGIT, photo_on_pad
from tests.support.playground_pages import no_alarm, playground_page

# Gradio 6.31.0's page writes this warning twice as it uploads any file (its client's EventSource
# stand-in, which follows the upload's progress), whatever the app does.
GRADIO_UPLOAD = "Method not implemented."
PHOTOGRAPHED = (1234, 4321, 7777)  # MNIST test digits: an 8, a 0 and a 7 (not among the pad's examples)


def photo_of(mnist_test, index: int, light: str = "shadow") -> tuple[Image.Image, int]:
    """MNIST test digit ``index`` photographed under ``light`` (harness/photos.py's report set), and its label."""
    coverage = mnist_test.data[index].numpy() / 255
    picture = report_photo(coverage, light, np.random.default_rng(index))
    return Image.fromarray(picture), int(mnist_test.targets[index])


def background_of(value: dict) -> np.ndarray:
    """The pad value's background: uint8 [28, 28], 255 = ink."""
    return np.frombuffer(base64.b64decode(value["background"]), dtype=np.uint8).reshape(28, 28)


@pytest.mark.parametrize("index", PHOTOGRAPHED)
def test_a_photo_goes_on_the_pad_as_its_28x28_and_reads_as_its_digit(mnist_test, trained_model, index):
    photo, label = photo_of(mnist_test, index)
    value = photo_on_pad(photo)
    assert value["strokes"] == [] and not value["drawing"]  # a value the pad takes: no strokes, the photo under them
    expected = np.rint(sketch_to_mnist(photo) * 255).astype(np.uint8)
    np.testing.assert_array_equal(background_of(value), expected)
    with torch.inference_mode():
        read = trained_model(torch.from_numpy(background_of(value) / np.float32(255))[None, None])
    assert int(read.prediction) == label


def test_a_photo_without_a_digit_says_so_and_leaves_the_pad_as_it_is(mnist_test):
    for light in ("even", "shadow"):
        blank = Image.fromarray(report_photo(None, light, np.random.default_rng(1), ruled=True))
        with pytest.warns(UserWarning, match="(?i)no digit found"):
            assert photo_on_pad(blank) == gr.skip()


def test_a_photo_removed_changes_nothing_and_says_nothing(recwarn):
    assert photo_on_pad(None) == gr.skip()
    assert not [warning for warning in recwarn if "photo" in str(warning.message)]
    assert "No digit found" in NO_DIGIT


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is missing: apt-get install chromium")
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_a_person_chooses_a_photo_draws_over_it_and_clears_it(browser, url, mnist_test, tmp_path, phone):
    photo, label = photo_of(mnist_test, PHOTOGRAPHED[0])
    path = tmp_path / "digit.jpg"
    photo.save(path, quality=90)
    page = playground_page(browser, PHONE, touch=True) if phone else playground_page(browser)
    try:
        page.goto(url)
        person = PadDriver(page, touch=phone)
        person.choose_photo(path)
        assert person.reading() == str(label)
        # The pad's background, the server's 28x28 of the file sent, made 28x28 by the page as a tapped
        # example is: MNIST's recipe again, a picture much the same
        expected = background_of(photo_on_pad(Image.open(path))) / 255
        assert np.corrcoef(person.network_input().ravel(), expected.ravel())[0, 1] > 0.9
        no_alarm(page, allowed=(GRADIO_UPLOAD,))  # before the canvas is read back here, which Chromium warns of
        assert not person.canvas_is_blank()  # the photo's digit under the pen
        person.draw(strokes(1, 40, 40, 200, 200))  # a 1 over it
        drawn_over = person.network_input()
        assert np.abs(drawn_over - expected).max() > 0.5
        person.clear()
        assert person.canvas_is_blank()
        assert page.evaluate("() => document.documentElement.scrollWidth") <= page.viewport_size["width"]
    finally:
        page.context.close()


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is missing: apt-get install chromium")
def test_a_photo_with_no_digit_shows_why_and_keeps_the_drawing(browser, url, tmp_path):
    path = tmp_path / "blank.jpg"
    Image.fromarray(report_photo(None, "shadow", np.random.default_rng(2), ruled=True)).save(path)
    page = playground_page(browser)
    try:
        page.goto(url)
        person = PadDriver(page)
        person.draw(strokes(4, 60, 50, 160, 180))
        drawn = person.network_input()
        page.set_input_files("#photo input[type=file]", str(path))
        page.wait_for_selector("text=/no digit found/i")
        assert np.array_equal(person.network_input(), drawn) and not person.canvas_is_blank()
    finally:
        page.context.close()
