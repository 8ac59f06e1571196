"""Photos of digits on paper (harness/photos.py) through sketch_to_mnist: read right where light
falls off and a shadow lies, other marks (a ruled line, a page's edge, specks) kept out of the
digit's box, and no digit where there is none, said so."""

import numpy as np
import pytest
import torch

from capsnet.data.paper import photo_ink
from capsnet.data.preprocess import NoDigitError, ink_to_mnist, sketch_to_mnist
from harness.photos import choice_photo, report_photo
from tests.support.examples import example_digits


@pytest.fixture(scope="module")
def digits() -> tuple[np.ndarray, np.ndarray]:
    """The app's ten examples, MNIST test digits, one of each: float [10, 28, 28] in [0, 1], labels [10]."""
    images, labels = example_digits()
    return images[:, 0].numpy(), labels.numpy()


def read(model, fields: list[np.ndarray]) -> np.ndarray:
    with torch.inference_mode():
        return model(torch.from_numpy(np.stack(fields))[:, None]).prediction.numpy()


@pytest.mark.parametrize("photo", [choice_photo, report_photo], ids=["choice", "report"])
def test_digits_under_a_shadow_are_read_right(photo, digits, trained_model):
    """The light falling off and a shadow across the page: the paper taken as one value (the
    median of the border) reads 1 to 3 of these ten; the paper across the picture, 9 or 10."""
    images, labels = digits
    rng = np.random.default_rng(91)
    fields = [sketch_to_mnist(photo(image, "shadow", rng)) for image in images]
    assert (read(trained_model, fields) == labels).sum() >= 9


def marked(photo: np.ndarray, mark: str, rng: np.random.Generator) -> np.ndarray:
    """``photo`` (uint8 [H, W]) with another ``mark`` on it: a ruled line through the digit's
    middle, slightly sloped; the table beyond the page's edge; specks away from the digit."""
    photo = photo.astype(np.float32)
    height, width = photo.shape
    if mark == "ruled line":
        rows, columns = np.indices(photo.shape)
        middle = rows[photo < 0.5 * photo.max()].mean()
        photo *= 1 - 0.4 * (np.abs(rows - middle - (columns - width / 2) * 0.02) < 1.5)
    elif mark == "page edge":  # the table beyond the page's left edge
        photo[:, : width // 12] *= 0.3
    else:  # specks of dust
        for row, column in rng.integers(5, (height // 6, width - 5), size=(6, 2)):
            photo[row - 2 : row + 2, column - 2 : column + 2] *= 0.3
    return np.rint(photo).astype(np.uint8)


@pytest.mark.parametrize("mark", ["ruled line", "page edge", "specks"])
def test_other_marks_are_kept_out_of_the_digit_s_box(mark, digits):
    """Each mark changes the digit's 28x28 by less than 2% of its ink on average; read as ink, it
    would stretch the box the digit is fitted in."""
    for index, image in enumerate(digits[0][:4]):
        rng = np.random.default_rng(index)
        photo = choice_photo(np.pad(image, ((12, 0), (0, 0))), "even", rng)  # the digit kept off the top
        plain = sketch_to_mnist(photo)
        assert np.abs(sketch_to_mnist(marked(photo, mark, rng)) - plain).mean() < 0.02, (mark, index)


NO_DIGIT = {
    "blank, light falling off": lambda rng: choice_photo(None, "falling off", rng),
    "blank, shadow": lambda rng: report_photo(None, "shadow", rng, ruled=False),
    "noise": lambda rng: report_photo(None, "even", rng, ruled=False, noise=0.1),
    "ruled lines": lambda rng: report_photo(None, "even", rng, ruled=True),
    "ruled lines, vignette": lambda rng: report_photo(None, "falling off", rng, ruled=True),
}


@pytest.mark.parametrize("make", NO_DIGIT.values(), ids=NO_DIGIT.keys())
def test_a_photo_of_no_digit_says_so(make):
    for seed in range(3):
        with pytest.raises(NoDigitError, match=r"no digit found: .* only \d+% darker than the paper around them"):
            sketch_to_mnist(make(np.random.default_rng(seed)))


def read_as_a_photo(picture: np.ndarray) -> np.ndarray:
    """The 28x28 that the ink of a photo (`photo_ink`) makes of ``picture``, uint8 [H, W]."""
    return ink_to_mnist(photo_ink(picture / 255).ink)


def test_a_clean_picture_is_read_as_the_ink_of_a_photo_reads_it(digits):
    """A picture with no noise under even light (a drawing, a screenshot) is read against its one
    paper without the photo path's windows: the same 28x28 as that path makes of it."""
    for index, image in enumerate(digits[0][::3]):
        clean = choice_photo(image, "even, clean", np.random.default_rng(index))
        np.testing.assert_allclose(sketch_to_mnist(clean), read_as_a_photo(clean), atol=1e-5, err_msg=str(index))


def test_a_noise_free_picture_with_a_shadow_inside_it_is_read_as_a_photo(digits):
    """A dark patch that keeps off the picture's border, on paper with no noise: still a shadow,
    kept out of the digit's box as the photo path keeps it; read against the border's one paper,
    the shadow would be ink."""
    for index, image in enumerate(digits[0][:4]):
        clean = choice_photo(image, "even, clean", np.random.default_rng(index))
        shadowed = clean.astype(np.float32)
        shadowed[100:300, 40:200] *= 0.6
        shadowed = np.rint(shadowed).astype(np.uint8)
        field = sketch_to_mnist(shadowed)
        np.testing.assert_allclose(field, read_as_a_photo(shadowed), atol=1e-5, err_msg=str(index))
        assert np.abs(field - sketch_to_mnist(clean)).mean() < 0.02, index


def test_a_single_colour_is_still_an_empty_canvas():
    """What the pad sends for nothing drawn stays None, not an error: blank paper, evenly lit."""
    assert sketch_to_mnist(choice_photo(None, "even, clean", np.random.default_rng(0))) is None
