"""sketch_to_mnist: drawings of any kind in, MNIST-style 28x28 digits out."""

import numpy as np
import pytest
import torch
from PIL import Image

from capsnet.data.preprocess import BOX, CENTRE, FIELD, SketchError, ink_to_mnist, sketch_to_mnist

CANVAS = 800  # gr.Sketchpad's default canvas is 800x800
REDRAWN = 300  # MNIST test digits redrawn per form


def centre_of_mass(field: np.ndarray) -> tuple[float, float]:
    rows, columns = np.indices(field.shape)
    return (rows * field).sum() / field.sum(), (columns * field).sum() / field.sum()


def assert_mnist_like(field: np.ndarray) -> None:
    """28x28 float32 in [0, 1], strongest ink 1, inside a 20x20 box, centred by mass on (14, 14)."""
    assert field.shape == (FIELD, FIELD) and field.dtype == np.float32
    assert field.min() >= 0 and field.max() == pytest.approx(1)
    rows, columns = np.nonzero(field)
    assert rows.max() - rows.min() < BOX and columns.max() - columns.min() < BOX
    row, column = centre_of_mass(field)
    assert abs(row - CENTRE) <= 0.5 and abs(column - CENTRE) <= 0.5


def redraw(digit: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """An MNIST digit (uint8 [28, 28]) drawn as strokes on the canvas: bool [800, 800].

    Upscaled smoothly to a random side of 200..700 pixels, thresholded at a random level, its
    strokes thinned or thickened by a few pixels on each side, pasted at a random place.
    """
    side = int(rng.integers(200, 701))
    smooth = np.asarray(Image.fromarray(digit).resize((side, side), Image.Resampling.BICUBIC))
    strokes = thicken(smooth >= rng.uniform(0.35, 0.65) * 255, int(rng.integers(-side // 100, side // 50 + 1)))
    canvas = np.zeros((CANVAS, CANVAS), dtype=bool)
    top, left = rng.integers(0, CANVAS - side + 1, size=2)
    canvas[top : top + side, left : left + side] = strokes
    return canvas


def thicken(strokes: np.ndarray, pixels: int) -> np.ndarray:
    """Dilate (pixels > 0) or erode (pixels < 0) bool strokes [H, W] with a square of side
    2 |pixels| + 1: a running count of ink along the columns, then along the rows."""
    ink = strokes if pixels >= 0 else ~strokes
    reach = abs(pixels)
    for _ in range(2):
        counts = np.cumsum(np.pad(ink, ((reach + 1, reach), (0, 0))), axis=0, dtype=np.int32)
        ink = (counts[2 * reach + 1 :] - counts[: -2 * reach - 1] > 0).T  # any ink within reach
    return ink if pixels >= 0 else ~ink


def black_on_white_rgb(ink: np.ndarray) -> np.ndarray:
    return np.repeat(np.where(ink, 0, 255).astype(np.uint8)[:, :, None], 3, axis=2)


def black_on_transparent(ink: np.ndarray) -> np.ndarray:
    """What the sketchpad draws: black strokes, and black RGB under the transparent pixels."""
    rgba = np.zeros(ink.shape + (4,), dtype=np.uint8)
    rgba[:, :, 3] = np.where(ink, 255, 0)
    return rgba


def sketchpad_value(ink: np.ndarray) -> dict:
    """gr.Sketchpad's value (type="numpy", image_mode="RGBA") before the browser sends a composite:
    a white background and one layer of strokes."""
    return {
        "background": np.full(ink.shape + (4,), 255, dtype=np.uint8),
        "layers": [black_on_transparent(ink)],
        "composite": None,
    }


FORMS = {"rgba": black_on_transparent, "rgb": black_on_white_rgb, "sketchpad": sketchpad_value}


@pytest.fixture(scope="module")
def redrawn(mnist_test) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """300 MNIST test digits, each redrawn once and given in every form, through sketch_to_mnist:
    ({form: float32 [300, 28, 28]}, the original digits float32 [300, 28, 28], labels [300])."""
    rng = np.random.default_rng(2017)
    picks = rng.choice(len(mnist_test), size=REDRAWN, replace=False)
    fields = {form: [] for form in FORMS}
    for index in picks:
        ink = redraw(mnist_test.data[index].numpy(), rng)
        for form, make in FORMS.items():
            fields[form].append(sketch_to_mnist(make(ink)))
    originals = mnist_test.data[picks].numpy().astype(np.float32) / 255
    return ({form: np.stack(images) for form, images in fields.items()}, originals, mnist_test.targets[picks].numpy())


def read(model, images: np.ndarray) -> np.ndarray:
    """The model's digits for float32 [N, 28, 28] images, in batches of 100."""
    with torch.inference_mode():
        return torch.cat(
            [model(torch.from_numpy(batch)[:, None]).prediction for batch in np.array_split(images, len(images) // 100)]
        ).numpy()


@pytest.mark.slow
@pytest.mark.parametrize("form", FORMS)
def test_redrawn_mnist_digits_are_read_right(form, redrawn, trained_model):
    fields, originals, labels = redrawn
    accuracy = (read(trained_model, fields[form]) == labels).mean()
    original_accuracy = (read(trained_model, originals) == labels).mean()
    print(
        f"\n{form}: {accuracy:.2%} of {len(labels)} redrawn MNIST test digits read right "
        f"({original_accuracy:.2%} of the originals)"
    )
    assert accuracy >= original_accuracy - 0.01, "the redrawing loses what the originals show"
    assert accuracy >= 0.98, f"{form}: only {accuracy:.2%} read right ({original_accuracy:.2%} of the originals)"


@pytest.mark.slow
@pytest.mark.parametrize("form", FORMS)
def test_redrawn_digits_look_like_mnist(form, redrawn):
    for field in redrawn[0][form]:
        assert_mnist_like(field)


@pytest.mark.slow
def test_the_forms_agree(redrawn):
    fields = redrawn[0]
    assert np.array_equal(fields["rgb"], fields["sketchpad"])  # the same pixels once composited
    assert np.abs(fields["rgba"] - fields["rgb"]).mean() < 0.01


def test_mnist_digits_that_fill_their_box_pass_through_unchanged(mnist_test):
    """MNIST was made by this procedure: a digit whose ink spans exactly 20 pixels (no faint
    fringe trimmed by the crop) and whose centre of mass is on (14, 14) is a fixed point."""
    unchanged = 0
    for digit in mnist_test.data[:500].numpy():
        ink = digit / digit.max()
        strong = np.nonzero(ink >= 0.2)
        spans = [axis.max() - axis.min() + 1 for axis in strong]
        if (
            max(spans) == BOX
            and ink[min(strong[0]) : max(strong[0]) + 1, min(strong[1]) : max(strong[1]) + 1].sum() == ink.sum()
        ):
            np.testing.assert_allclose(sketch_to_mnist(digit), ink, atol=1e-6)
            unchanged += 1
    assert unchanged >= 100  # not a vacuous test


def test_polarity_and_stroke_colour_do_not_matter(mnist_test):
    ink = redraw(mnist_test.data[0].numpy(), np.random.default_rng(0))
    grey = np.where(ink, 30, 220).astype(np.uint8)  # dark grey ink on light grey paper
    white_on_transparent = black_on_transparent(ink)
    white_on_transparent[:, :, :3] = np.where(ink, 255, 0)[:, :, None]
    reference = sketch_to_mnist(grey)
    np.testing.assert_allclose(sketch_to_mnist(255 - grey), reference, atol=1e-3)
    for variant in (
        black_on_white_rgb(ink),
        255 - black_on_white_rgb(ink),
        black_on_transparent(ink),
        white_on_transparent,
    ):
        assert np.abs(sketch_to_mnist(variant) - reference).mean() < 0.01


def test_aspect_ratio_is_kept():
    tall = np.zeros((CANVAS, CANVAS), dtype=bool)
    tall[200:600, 380:420] = True  # a "1": 400 tall, 40 wide
    field = sketch_to_mnist(tall)
    rows, columns = np.nonzero(field)
    assert rows.max() - rows.min() + 1 == BOX
    assert columns.max() - columns.min() + 1 == 2  # 40 * 20 / 400
    wide = sketch_to_mnist(tall.T)
    np.testing.assert_array_equal(wide, field.T)


def test_a_lopsided_shape_is_centred_by_mass_not_by_box():
    shape = np.zeros((300, 300), dtype=bool)
    shape[50:250, 50:90] = True  # an "L": heavy left column ...
    shape[210:250, 50:250] = True  # ... and bottom bar
    field = sketch_to_mnist(shape)
    assert_mnist_like(field)
    rows, columns = np.nonzero(field)
    box_centre = (rows.min() + rows.max()) / 2, (columns.min() + columns.max()) / 2
    assert box_centre[0] < CENTRE - 1 and box_centre[1] > CENTRE + 1


@pytest.mark.parametrize("side", [1, 2])
def test_tiny_images_without_paper_and_ink_are_empty(side):
    assert sketch_to_mnist(np.zeros((side, side), dtype=np.uint8)) is None


def test_a_three_pixel_image_with_a_dot():
    dot = np.full((3, 3), 255, dtype=np.uint8)
    dot[1, 1] = 0
    assert_mnist_like(sketch_to_mnist(dot))


def test_a_single_dot_on_the_canvas_is_a_blob():
    canvas = np.zeros((CANVAS, CANVAS), dtype=bool)
    canvas[400, 400] = True
    assert_mnist_like(sketch_to_mnist(black_on_transparent(canvas)))
    assert_mnist_like(sketch_to_mnist(black_on_white_rgb(canvas)))


def test_a_scribble_over_the_whole_canvas_does_not_fail():
    scribble = np.random.default_rng(0).random((CANVAS, CANVAS)) < 0.6
    for image in (black_on_white_rgb(scribble), black_on_transparent(scribble)):
        field = sketch_to_mnist(image)
        assert field is None or field.shape == (FIELD, FIELD)


@pytest.mark.parametrize("make", [black_on_white_rgb, black_on_transparent])
def test_a_huge_canvas_gives_the_same_digit(make, mnist_test):
    small = redraw(mnist_test.data[1].numpy(), np.random.default_rng(1))
    huge = np.asarray(Image.fromarray(small).resize((4000, 4000), Image.Resampling.NEAREST))
    field = sketch_to_mnist(make(huge))
    assert_mnist_like(field)
    reference = sketch_to_mnist(make(small))
    # The same digit, up to the whole-pixel shift that puts its centre of mass nearest (14, 14).
    assert (
        min(
            np.abs(np.roll(field, (down, right), axis=(0, 1)) - reference).mean()
            for down in (-1, 0, 1)
            for right in (-1, 0, 1)
        )
        < 0.01
    )


def test_dtypes_give_the_same_digit():
    ink = np.zeros((64, 48), dtype=bool)
    ink[10:50, 20:26] = True
    ink[10:16, 10:40] = True
    grey = np.where(ink, 0, 255).astype(np.uint8)
    reference = sketch_to_mnist(grey)
    assert_mnist_like(reference)
    for image in (
        grey.astype(np.uint16) * 257,
        grey / 255,
        (grey / 255).astype(np.float32),
        grey.astype(np.float64),
        grey.astype(np.int64),
        ~ink,
        grey[:, :, None],
        np.repeat(grey[:, :, None], 3, axis=2),
        torch.from_numpy(grey),
    ):
        np.testing.assert_allclose(sketch_to_mnist(image), reference, atol=1e-6)


def test_grey_and_alpha_reads_like_rgba():
    ink = redraw(np.eye(28, dtype=np.uint8) * 255, np.random.default_rng(2))
    grey_alpha = np.stack([np.zeros(ink.shape, np.uint8), np.where(ink, 255, 0).astype(np.uint8)], axis=2)
    np.testing.assert_allclose(sketch_to_mnist(grey_alpha), sketch_to_mnist(black_on_transparent(ink)), atol=1e-6)


def test_a_translucent_image_is_flattened_on_white():
    rgba = np.zeros((100, 100, 4), dtype=np.uint8)  # black everywhere, 3/4 transparent ...
    rgba[:, :, 3] = 64
    rgba[20:80, 45:55, 3] = 255  # ... but for an opaque bar
    field = sketch_to_mnist(rgba)
    rows, columns = np.nonzero(field)
    assert rows.max() - rows.min() + 1 == BOX
    assert columns.max() - columns.min() + 1 <= 5  # 10 * 20 / 60 = 3.3 wide


@pytest.mark.parametrize(
    "image",
    [
        np.zeros((10, 10, 5), dtype=np.uint8),  # 5 channels
        np.zeros((3, 28, 28), dtype=np.uint8),  # channels first
        np.zeros((0, 10), dtype=np.uint8),
        np.zeros((10, 0, 3), dtype=np.uint8),
        np.zeros(10, dtype=np.uint8),
        np.zeros((1, 1, 28, 28), dtype=np.float32),
        np.full((10, 10), 300.0),
        np.full((10, 10), -1.0),
        np.full((10, 10), np.nan),
        np.full((10, 10), 1 + 1j),
        np.full((10, 10), "ink"),
        "digit.png",
        {"image": np.zeros((10, 10))},  # not an image editor value
        {"background": "/tmp/background.png", "layers": [], "composite": None},  # type="filepath"
        {
            "background": np.zeros((10, 10, 4), np.uint8),
            "layers": [np.zeros((12, 10, 4), np.uint8)],
            "composite": None,
        },  # a layer of another size
    ],
    ids=lambda image: type(image).__name__ + str(getattr(image, "shape", "")),
)
def test_bad_inputs_raise_a_clear_error(image):
    with pytest.raises(SketchError):
        sketch_to_mnist(image)
    assert issubclass(SketchError, ValueError)


BLANK = {
    "none": None,
    "no layers": {"background": None, "layers": [], "composite": None},
    "white background, no layers": {
        "background": np.full((CANVAS, CANVAS, 4), 255, np.uint8),
        "layers": [],
        "composite": None,
    },
    "blank composite": {"background": None, "layers": [], "composite": np.zeros((CANVAS, CANVAS, 4), np.uint8)},
    "white": np.full((CANVAS, CANVAS, 3), 255, np.uint8),
    "transparent": np.zeros((CANVAS, CANVAS, 4), np.uint8),
    "black": np.zeros((CANVAS, CANVAS, 3), np.uint8),
    "faint noise": (245 + 10 * np.random.default_rng(0).random((CANVAS, CANVAS))).astype(np.uint8),
}


@pytest.mark.parametrize("name", BLANK)
def test_an_empty_canvas_is_none(name):
    assert sketch_to_mnist(BLANK[name]) is None


def test_the_composite_wins_over_the_layers():
    one, seven = np.zeros((2, 200, 200), dtype=bool)
    one[20:180, 95:105] = True
    seven[20:30, 40:160] = True
    seven[20:180, 150:160] = True
    value = {"background": None, "layers": [black_on_transparent(seven)], "composite": black_on_transparent(one)}
    np.testing.assert_array_equal(sketch_to_mnist(value), sketch_to_mnist(one))


def test_layers_are_laid_over_the_background_in_order():
    one = np.zeros((200, 200), dtype=bool)
    one[20:180, 95:105] = True
    cover = np.full((200, 200, 4), 255, dtype=np.uint8)  # an opaque white layer hides ...
    value = {"background": None, "layers": [black_on_transparent(one), cover], "composite": None}
    assert sketch_to_mnist(value) is None  # ... the strokes beneath it
    value["layers"] = value["layers"][::-1]
    np.testing.assert_array_equal(sketch_to_mnist(value), sketch_to_mnist(black_on_white_rgb(one)))


def test_pil_images_of_every_mode(mnist_test):
    digit = mnist_test.data[2].numpy()
    reference = sketch_to_mnist(digit)
    picture = Image.fromarray(digit)
    for mode in ("L", "LA", "RGB", "RGBA", "P", "CMYK", "F", "I"):
        scale = 1 / 255 if mode == "F" else 1
        converted = picture.convert(mode) if mode != "F" else Image.fromarray(digit * np.float32(scale))
        np.testing.assert_allclose(sketch_to_mnist(converted), reference, atol=1e-6, err_msg=mode)
    sixteen_bit = Image.fromarray(digit.astype(np.uint16) * 257)
    assert sixteen_bit.mode.startswith("I;16")
    np.testing.assert_allclose(sketch_to_mnist(sixteen_bit), reference, atol=1e-6)
    np.testing.assert_allclose(
        sketch_to_mnist(picture.convert("1", dither=Image.Dither.NONE)), sketch_to_mnist(digit >= 128), atol=1e-6
    )


@pytest.mark.parametrize("kind", ["numpy", "pil"])
def test_a_real_sketchpad_value(kind, tmp_path):
    """gr.Sketchpad's own preprocessing of what the browser sends (PNG files) gives a value that
    reads like the strokes themselves."""
    import gradio as gr
    from gradio.components.image_editor import EditorData
    from gradio.data_classes import FileData

    strokes = np.zeros((CANVAS, CANVAS), dtype=bool)
    strokes[150:650, 380:420] = True
    strokes[150:190, 250:420] = True
    files = {}
    for name, image in (
        ("layer", black_on_transparent(strokes)),
        ("background", np.zeros((CANVAS, CANVAS, 4), np.uint8)),
    ):
        files[name] = tmp_path / f"{name}.png"
        Image.fromarray(image).save(files[name])
    payload = EditorData(
        background=FileData(path=str(files["background"])),
        layers=[FileData(path=str(files["layer"]))],
        composite=FileData(path=str(files["layer"])),
    )
    value = gr.Sketchpad(type=kind).preprocess(payload)
    expected = sketch_to_mnist(black_on_transparent(strokes))
    np.testing.assert_array_equal(sketch_to_mnist(value), expected)
    value["composite"] = None  # the layers alone say the same
    np.testing.assert_array_equal(sketch_to_mnist(value), expected)


def test_semeion_digits(semeion_path):
    """Semeion's 16x16 binary digits (ink 255 on 0, often touching the border) are read;
    their accuracy is evaluation only and not asserted here."""
    from capsnet.data.datasets import load_semeion

    images, _ = load_semeion(semeion_path)
    for image in images[:200]:
        assert_mnist_like(sketch_to_mnist(image))


def test_a_line_a_pixel_wide_is_not_lost_between_two_boxes():
    """89 pixels tall, one wide, in the middle of its square: each of the 20 boxes it is averaged
    into has an edge on it, and Pillow's BOX filter weighs it 0 in both (the 28x28 was all NaN)."""
    ink = np.zeros((89, 1), dtype=np.float32)
    ink[:, 0] = 1
    field = ink_to_mnist(ink)
    assert np.isfinite(field).all() and field.max() == 1
    assert (field.sum(axis=0) > 0).sum() <= 2  # still a line
