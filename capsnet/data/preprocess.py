"""From a drawing to an MNIST digit: find the ink, crop it, fit it into 20x20, centre it in 28x28.

MNIST was made this way (LeCun, Cortes & Burges): each NIST digit was size-normalised to fit a
20x20 box keeping its aspect ratio, anti-aliased, then translated in a 28x28 field so that its
centre of mass sits at the field's centre. Measured on the 60,000 training digits, that centre of
mass is at pixel (14, 14) (row, column; pixel i covers [i - 0.5, i + 0.5]) to within half a pixel,
the translations being whole pixels; `sketch_to_mnist` does the same.

What counts as ink:
- strokes on a transparent canvas (an alpha channel with some pixel fully transparent, what
  Gradio's sketchpad gives): the strokes, whatever their colour and whatever RGB lies under the
  transparent pixels (Gradio's canvas exports black there), measured against paper of the
  opposite colour: white under dark strokes, black under light ones;
- light marks on dark paper (a picture whose grey departs from the median of its outermost
  pixels, its paper, upwards but for a trace; MNIST's own digits): what is lighter than that paper;
- any other picture (a translucent one first flattened on white, as Gradio does), dark marks on
  light paper or a photo: the ink of a photo (`capsnet.data.paper`), measured against the paper
  around each pixel, with ruled lines, specks and the picture's edges left out. On a clean,
  evenly lit picture it is what the one paper of the border gives: a picture with no noise at
  all, no lighter pixel and no dark patch as wide as a shadow is read so at once. Where the
  picture departs from that paper both ways (light falling off, a shadow), whichever of dark or
  light marks it holds; where no mark in it can be a digit, NoDigitError says so.

Blank pictures (their grey spans less than BLANK) and pictures under PHOTO_SIDE pixels a side
are read against the one paper.
"""

import math
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image, ImageChops

from capsnet.data.filters import closing
from capsnet.data.marks import MARK_CONTRAST
from capsnet.data.paper import PAPER_WINDOW, marks_are_dark, paper_window, photo_ink

FIELD = 28  # MNIST images are 28x28 ...
BOX = 20  # ... with the digit fitted into a 20x20 box ...
CENTRE = 14.0  # ... and its centre of mass at pixel (14, 14)
WORKING_SIDE = 512  # larger pictures are first box-averaged down to at most this side: 25x the box
MIN_CONTRAST = 0.1  # the strongest ink must differ from the paper by this much, else the canvas is empty
INK_THRESHOLD = 0.2  # crop to the pixels with at least this fraction of the strongest ink
PHOTO_SIDE = 32  # a picture of dark marks on light paper this many pixels a side or more may be a photo
BLANK = 0.05  # a picture whose brightness spans less than this is blank: one colour, give or take

_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}  # channels -> PIL mode (grey, grey + alpha, ...)


class SketchError(ValueError):
    """The input is not an image `sketch_to_mnist` can read (wrong type, shape or values)."""


class NoDigitError(SketchError):
    """A picture of dark marks on light paper holds no mark dark enough to be a digit."""


def sketch_to_mnist(image: Any) -> np.ndarray | None:
    """The 28x28 MNIST-style image of a drawn digit, or None when nothing is drawn.

    Args:
        image: a gr.Sketchpad / gr.ImageEditor value (a dict with "background", "layers" and
            "composite", each a numpy array, a PIL image or None; the composite is used when
            present, else the layers laid over the background), a PIL image, or an array
            [H, W], [H, W, 1] (grey), [H, W, 2] (grey + alpha), [H, W, 3] (RGB) or [H, W, 4]
            (RGBA) of any size: uint8, uint16, bool, or another integer or float type with values
            in [0, 1] or [0, 255] (judged from the maximum).

    Returns:
        float32 [28, 28] in [0, 1], ink = 1 and paper = 0 like MNIST, strongest ink exactly 1;
        None for an empty canvas (None, no layers, blank, fully transparent, or a single colour).

    Raises:
        SketchError: the input is not an image of a supported type, shape or value range.
        NoDigitError: a picture of marks on paper (a photo, say) in which no mark can be a digit.
    """
    picture = _as_picture(image)
    return None if picture is None else ink_to_mnist(_ink(picture))


def ink_to_mnist(ink: np.ndarray | None) -> np.ndarray | None:
    """The 28x28 MNIST-style image of a digit given as ink, or None when there is too little ink.

    Args:
        ink: float [H, W], how much ink covers each pixel (0 = paper), any scale; None for none.

    Returns:
        float32 [28, 28] in [0, 1], strongest ink exactly 1; None when the strongest ink is below
        MIN_CONTRAST of the full scale (ink = 1) or there is none.
    """
    ink = None if ink is None else _normalised(np.asarray(ink, dtype=np.float32))
    return None if ink is None else _mnist_fields(crop_to_ink(ink[None]))[0]


def overlaid_inks_to_mnist(inks: np.ndarray) -> np.ndarray | None:
    """Several inks drawn over each other (two overlapping digits, say) made into 28x28 MNIST
    fields together: their overlay, where the stronger ink wins, exactly as `ink_to_mnist` makes
    it, and each ink moved and scaled the same way, so that each digit's field shows where that
    digit lies in the overlay's.

    Args:
        inks: float [L, H, W], L layers of ink of the same picture, any scale.

    Returns:
        float32 [1 + L, 28, 28] in [0, 1]: the overlay's field, then each layer's; None when the
        overlay has too little ink (as `ink_to_mnist`).
    """
    inks = np.asarray(inks, dtype=np.float32)
    if inks.ndim != 3 or inks.shape[0] == 0:
        raise ValueError(f"expected inks [L, H, W] with L >= 1, got shape {inks.shape}")
    overlay = inks.max(axis=0)
    strongest = overlay.max()
    if strongest < MIN_CONTRAST:
        return None
    layers = np.maximum(np.concatenate([overlay[None], inks]), 0) / strongest  # [1 + L, H, W]
    return _mnist_fields(crop_to_ink(layers))


def _as_picture(image: Any) -> Image.Image | None:
    """Any supported input as a PIL image in mode L, LA, RGB or RGBA (None when there is none)."""
    if image is None:
        return None
    if isinstance(image, Mapping):
        return _editor_picture(image)
    return _single_picture(image)


def _single_picture(image: Any) -> Image.Image:
    """A PIL image or an array-like (numpy, a CPU tensor) as a PIL image in mode L/LA/RGB/RGBA."""
    if isinstance(image, (str, bytes, os.PathLike)):
        raise SketchError(
            "got a file path, expected an image: open it first (PIL.Image.open), "
            "or give the Gradio component type='numpy' or type='pil'"
        )
    if isinstance(image, Image.Image):
        if image.mode in _MODES.values():
            return image
        if image.mode in ("I", "F") or image.mode.startswith("I;16"):
            return _array_picture(np.asarray(image))  # keep their numeric range
        return image.convert("RGBA" if image.has_transparency_data else "RGB")
    return _array_picture(np.asarray(image))


def _editor_picture(value: Mapping) -> Image.Image | None:
    """The picture in a gr.ImageEditor / gr.Sketchpad value: its composite, else its layers
    laid over its background in order."""
    if not {"background", "layers", "composite"} & value.keys():
        raise SketchError(
            f"expected an image editor value with keys background, layers and "
            f"composite, got keys {sorted(map(str, value.keys()))}"
        )
    if value.get("composite") is not None:
        return _single_picture(value["composite"])
    layers = [_single_picture(layer).convert("RGBA") for layer in value.get("layers") or [] if layer is not None]
    background = value.get("background")
    if background is None and not layers:
        return None
    canvas = (
        _single_picture(background).convert("RGBA")
        if background is not None
        else Image.new("RGBA", layers[0].size, (0, 0, 0, 0))
    )
    for layer in layers:
        if layer.size != canvas.size:
            raise SketchError(
                f"a layer of {layer.size[0]}x{layer.size[1]} pixels does not match "
                f"the {canvas.size[0]}x{canvas.size[1]} canvas"
            )
        canvas = Image.alpha_composite(canvas, layer)
    return canvas


def _array_picture(array: np.ndarray) -> Image.Image:
    """An array [H, W] or [H, W, 1..4] of a supported dtype as a uint8 PIL image."""
    if array.ndim == 2:
        array = array[:, :, None]
    if array.ndim != 3 or array.shape[2] not in _MODES:
        raise SketchError(
            f"expected an image [H, W] or [H, W, C] with C in 1..4 channels last, got shape {tuple(array.shape)}"
        )
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise SketchError(f"the image is empty: shape {tuple(array.shape)}")
    array = _as_uint8(array)
    return Image.fromarray(array[:, :, 0] if array.shape[2] == 1 else array)


def _as_uint8(array: np.ndarray) -> np.ndarray:
    """uint8 0..255 from uint8, uint16 (0..65535), bool, or other numbers in [0, 1] or [0, 255]."""
    if array.dtype == np.uint8:
        return np.ascontiguousarray(array)
    if array.dtype == np.bool_:
        return array.astype(np.uint8) * 255
    if not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise SketchError(f"expected an image of numbers, got dtype {array.dtype}")
    if np.issubdtype(array.dtype, np.floating) and not np.isfinite(array).all():
        raise SketchError("the image holds NaN or infinite values")
    low, high = array.min(), array.max()
    if array.dtype == np.uint16:
        full_scale = 65535
    elif high <= 1:
        full_scale = 1
    elif high <= 255:
        full_scale = 255
    else:
        raise SketchError(f"{array.dtype} values must lie in [0, 1] or [0, 255], the maximum is {high}")
    if low < 0:
        raise SketchError(f"image values must not be negative, the minimum is {low}")
    return np.rint(array.astype(np.float32) * np.float32(255 / full_scale)).astype(np.uint8)


def _ink(picture: Image.Image) -> np.ndarray | None:
    """float32 [H, W] ink, at most WORKING_SIDE pixels on a side, 1 for full contrast with the
    paper (negative where a pixel is lighter than the one paper); None when fully transparent.

    Raises:
        NoDigitError: no mark of a photo can be a digit.
    """
    if "A" in picture.getbands():
        alpha = picture.getchannel("A")
        low, high = alpha.getextrema()
        if high == 0:
            return None  # fully transparent
        if low == 0:  # strokes on a transparent canvas
            return _stroke_ink(picture.crop(alpha.getbbox()))
        if low < 255:  # translucent: flatten it on white
            picture = Image.composite(picture.convert("L"), Image.new("L", picture.size, 255), alpha)
    grey = np.asarray(_reduce(picture.convert("L")), dtype=np.float32) / 255  # ITU-R 601-2 luma
    border = np.concatenate([grey[0], grey[-1], grey[1:-1, 0], grey[1:-1, -1]])
    paper = np.median(border)
    darker, lighter = paper - grey.min(), grey.max() - paper
    if darker + lighter < BLANK or min(grey.shape) < PHOTO_SIDE or darker < MIN_CONTRAST <= lighter:
        return paper - grey if darker >= lighter else grey - paper  # blank, tiny, or light marks on dark
    if _clean(grey, border):
        return paper - grey  # what the ink of a photo comes to on such a picture, found sooner
    # Dark marks on light paper, or, where the picture departs from that paper both ways (a photo
    # where light falls off or a shadow lies), whichever its marks are: the ink of a photo.
    both_ways = min(darker, lighter) >= MIN_CONTRAST
    photo = photo_ink(1 - grey if both_ways and not marks_are_dark(grey) else grey)
    if photo.ink is None:
        raise NoDigitError(
            f"no digit found: the darkest marks, apart from ruled lines, specks and the picture's edges, are "
            f"only {photo.contrast:.0%} darker than the paper around them beyond what its noise reaches "
            f"(a digit's: {MARK_CONTRAST:.0%})"
        )
    return photo.ink


def _clean(grey: np.ndarray, border: np.ndarray) -> bool:
    """Whether ``grey`` [H, W] is a clean picture of dark marks on one paper (a drawing, a screenshot,
    a clean scan): its border one grey, nothing lighter, and no dark patch as wide as the photo
    path's widest window (a shadow): what is left is marks, read against that one paper."""
    paper = border[0]
    if np.any(border != paper) or grey.max() > paper:
        return False
    return bool(np.all(closing(grey, paper_window(PAPER_WINDOW, grey.shape)) == paper))


def _stroke_ink(picture: Image.Image) -> np.ndarray:
    """The ink of strokes on a transparent canvas (`picture` has an alpha channel): their contrast
    against paper of the opposite colour, white under dark strokes and black under light ones."""
    grey = picture.convert("L")
    alpha = picture.getchannel("A")
    covered_grey = ImageChops.multiply(grey, alpha)  # a * g, premultiplied
    a = np.asarray(_reduce(alpha), dtype=np.float32) / 255
    ag = np.asarray(_reduce(covered_grey), dtype=np.float32) / 255
    dark_strokes = ag.sum() < 0.5 * a.sum()  # alpha-weighted mean grey below 1/2
    # Laid over paper p, a pixel is a * g + (1 - a) * p: its ink is a - a * g on white paper
    # (p = 1) and a * g on black paper (p = 0).
    return a - ag if dark_strokes else ag


def _normalised(ink: np.ndarray) -> np.ndarray | None:
    """Ink scaled so that the strongest is 1; None when even that is fainter than MIN_CONTRAST."""
    strongest = ink.max()
    if strongest < MIN_CONTRAST:
        return None
    return np.maximum(ink, 0) / strongest


def _reduce(grey: Image.Image) -> Image.Image:
    """Box-average a big single-channel picture by a whole factor until its longer side is at
    most WORKING_SIDE; the digit ends up 20 pixels tall anyway."""
    factor = math.ceil(max(grey.size) / WORKING_SIDE)
    return grey.reduce(factor) if factor > 1 else grey


def crop_to_ink(layers: np.ndarray) -> np.ndarray:
    """Layers [L, H, W] cut to the bounding box of the pixels of the first that hold at least
    INK_THRESHOLD of its strongest ink."""
    strong = layers[0] >= INK_THRESHOLD
    rows = np.flatnonzero(strong.any(axis=1))
    columns = np.flatnonzero(strong.any(axis=0))
    return layers[:, rows[0] : rows[-1] + 1, columns[0] : columns[-1] + 1]


def _mnist_fields(layers: np.ndarray) -> np.ndarray:
    """Fit the cropped ink [L, h, w] into BOX x BOX keeping its aspect ratio exactly, then place it
    in FIELD x FIELD with the first layer's centre of mass on (CENTRE, CENTRE), by whole-pixel
    shifts. Every layer is scaled and moved as the first is. Returns float32 [L, 28, 28]."""
    _, height, width = layers.shape
    side = max(height, width)
    top, left = (side - height) // 2, (side - width) // 2
    # Shrinking: area averaging, each pixel's ink the share of its area the strokes cover (the
    # anti-aliasing of a scanner; no ringing). Enlarging a small image: bilinear.
    squares = np.zeros((len(layers), side, side), dtype=np.float32)  # the ink centred in a square
    squares[:, top : top + height, left : left + width] = layers

    def resized(resampling: Image.Resampling) -> list[np.ndarray]:
        return [np.asarray(Image.fromarray(square).resize((BOX, BOX), resampling)) for square in squares]

    boxes = resized(Image.Resampling.BOX if side >= BOX else Image.Resampling.BILINEAR)
    if not boxes[0].any():  # a line a pixel wide on the edge of two boxes: Pillow weighs it 0 in both
        boxes = resized(Image.Resampling.BILINEAR)
    box = np.clip(np.stack(boxes) / boxes[0].max(), 0, 1)  # the first's strongest ink = 1
    rows, columns = np.flatnonzero(box[0].any(axis=1)), np.flatnonzero(box[0].any(axis=0))
    digits = box[:, rows[0] : rows[-1] + 1, columns[0] : columns[-1] + 1]
    mass = digits[0].sum()
    row = (digits[0].sum(axis=1) @ np.arange(digits.shape[1])) / mass
    column = (digits[0].sum(axis=0) @ np.arange(digits.shape[2])) / mass
    top = int(np.clip(round(CENTRE - row), 0, FIELD - digits.shape[1]))
    left = int(np.clip(round(CENTRE - column), 0, FIELD - digits.shape[2]))
    fields = np.zeros((len(layers), FIELD, FIELD), dtype=np.float32)
    fields[:, top : top + digits.shape[1], left : left + digits.shape[2]] = digits
    return fields
