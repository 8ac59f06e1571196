"""Digits laid on paper and photographed as a phone would, for `sketch_to_mnist` to read.

Four generators, made differently. The preprocessing was tuned on `choice_photo`; `report_photo`'s
first figures, then `lamp_photo`'s, led to changes of the path, so neither is unseen any more;
`window_photo` was written before the path's last change was made, and read once for the figures:

    choice  dark grey ink on white paper, in grey, 400x400, the digit 150-240 pixels tall; the
            light falling off linearly across the page, a soft-edged shadow; Gaussian blur, grey
            noise, JPEG at quality 80
    report  blue ballpoint of varying strength on cream paper, in RGB, 640x480, the digit 90-170
            pixels tall, turned by up to 10 degrees and sheared; ruled lines and specks by chance;
            a vignette or a spotlight, a hard-edged shadow; box blur, colour noise, JPEG at
            quality 60
    lamp    pencil graphite with a grain, thinned or thickened, on white or squared paper, in
            RGB, 540x720 (portrait), the digit 70-220 pixels tall; the page seen at a slant (a
            perspective) on a darker table; a lamp's warm light falling off from a corner, a soft
            round shadow (a hand or a phone); defocus, the picture halved and enlarged again, grey
            noise, JPEG at quality 70
    window  a felt-tip in black, red or green on white or notebook paper (pale blue lines, a red
            margin), in RGB, 800x600, the digit 60-300 pixels tall; daylight from a window fading
            across the page, the window frame's bars of shadow; the hand shaking, a phone's
            sharpening, JPEG at quality 85

Each lays a digit (its ink coverage, float [S, S] in [0, 1], a field whose digit fits the middle
20/28 of it as MNIST's do) under one of LIGHTS; None lays blank paper. The paper's brightness
spans about 0.92 to 0.65 under "falling off", and to below 0.45 under "shadow".
"""

import io
import math

import numpy as np
from PIL import Image, ImageFilter

LIGHTS = {  # name -> what the photo is
    "even, clean": "even light, blurred, no noise, saved losslessly",
    "even": "even light, noise and JPEG",
    "falling off": "light falling off across the page, noise and JPEG",
    "shadow": "stronger fall-off plus a shadow across the page, noise and JPEG",
}
FIELD_OVER_DIGIT = 28 / 20  # a coverage field's side over its digit's height


def choice_photo(coverage: np.ndarray | None, light: str, rng: np.random.Generator) -> np.ndarray:
    """The choice set's photo of ``coverage`` (None: blank paper) under ``light``: uint8 [400, 400]."""
    height, width = 400, 400
    ink = _laid(coverage, (height, width), rng.uniform(150, 240), rng)
    reflectance = 0.92 * (1 - ink) + 0.10 * ink
    rows, columns = np.indices((height, width), dtype=np.float32)
    along = _along(rows, columns, rng.uniform(0, 2 * math.pi))  # [H, W] in [0, 1]
    if light.startswith("even"):
        lit = np.ones((height, width), np.float32)
    elif light == "falling off":
        lit = 1 - 0.30 * along  # paper 0.92 -> 0.64
    else:
        lit = (1 - 0.50 * along) * _shadow(rows, columns, rng, depth=0.45, edge=6.0, hard=False)
    photo = Image.fromarray(_as_uint8(lit * reflectance)).filter(ImageFilter.GaussianBlur(1.2))
    if light == "even, clean":
        return np.asarray(photo)
    noisy = np.asarray(photo, np.float32) / 255 + rng.normal(0, 0.02, (height, width))
    return _jpeg(Image.fromarray(_as_uint8(noisy)), quality=80)


def report_photo(
    coverage: np.ndarray | None,
    light: str,
    rng: np.random.Generator,
    ruled: bool | None = None,
    noise: float = 0.03,
) -> np.ndarray:
    """The report set's photo of ``coverage`` (None: blank paper) under ``light``: uint8 [480, 640, 3].

    Args:
        ruled: ruled paper (True), plain (False), or either by chance (None).
        noise: the sensor noise's standard deviation in each channel, on a scale of 1.
    """
    height, width = 480, 640
    turned = None if coverage is None else _turned(coverage, rng.uniform(-10, 10), rng.uniform(-0.2, 0.2))
    ink = _laid(turned, (height, width), rng.uniform(90, 170), rng) * rng.uniform(0.75, 1.0)
    paper = np.array([0.95, 0.92, 0.83], np.float32)
    blue = np.array([0.18, 0.26, 0.62], np.float32)
    reflectance = paper * (1 - ink[..., None]) + blue * ink[..., None]  # [H, W, 3]
    if rng.random() < 0.5 if ruled is None else ruled:
        lines = _ruled_lines((height, width), rng)
        reflectance *= 1 - lines[..., None] * (1 - np.array([0.62, 0.75, 0.92], np.float32))
    if rng.random() < 0.5:
        reflectance *= 1 - _specks((height, width), rng)[..., None] * 0.75
    rows, columns = np.indices((height, width), dtype=np.float32)
    if light.startswith("even"):
        lit = np.ones((height, width), np.float32)
    elif light == "falling off":  # a vignette about a centre off the middle: corners at ~0.7
        centre = rng.uniform(0.35, 0.65, 2) * (height, width)
        radius = np.hypot(rows - centre[0], columns - centre[1]) / math.hypot(height, width)
        lit = 1 - 1.4 * radius**2
    else:  # a spotlight, and a hard-edged shadow
        centre = rng.uniform(0.1, 0.9, 2) * (height, width)
        spread = 0.4 * width
        spot = np.exp(-((rows - centre[0]) ** 2 + (columns - centre[1]) ** 2) / (2 * spread**2))
        lit = (0.4 + 0.6 * spot) * _shadow(rows, columns, rng, depth=0.5, edge=1.0, hard=True)
    warm = np.array([1.0, 0.97, 0.9], np.float32)
    photo = Image.fromarray(_as_uint8(lit[..., None] * warm * reflectance))
    photo = photo.filter(ImageFilter.BoxBlur(int(rng.integers(1, 3))))
    if light == "even, clean":
        return np.asarray(photo)
    noisy = np.asarray(photo, np.float32) / 255 + rng.normal(0, noise, (height, width, 3))
    return _jpeg(Image.fromarray(_as_uint8(noisy)), quality=60)


def lamp_photo(coverage: np.ndarray | None, light: str, rng: np.random.Generator) -> np.ndarray:
    """The lamp set's photo of ``coverage`` (None: blank paper) under ``light``: uint8 [720, 540, 3]."""
    height, width = 720, 540
    ink = _laid(coverage, (height, width), rng.uniform(70, 220), rng)
    stroke = Image.fromarray(ink)  # a harder or softer pencil: strokes thickened or thinned by a pixel
    ink = np.asarray(
        rng.choice([stroke, stroke.filter(ImageFilter.MaxFilter(3)), stroke.filter(ImageFilter.MinFilter(3))])
    )
    grain = 1 - 0.35 * rng.random((height, width), np.float32)  # graphite leaves the paper's tooth bare
    ink = ink * grain * rng.uniform(0.6, 0.95)
    paper = np.array([0.90, 0.91, 0.93], np.float32)
    graphite = np.array([0.30, 0.30, 0.33], np.float32)
    reflectance = paper * (1 - ink[..., None]) + graphite * ink[..., None]  # [H, W, 3]
    if rng.random() < 0.5:  # squared paper: faint green lines every 5 mm or so
        reflectance *= 1 - _squares((height, width), rng)[..., None] * (1 - np.array([0.80, 0.92, 0.85], np.float32))
    rows, columns = np.indices((height, width), dtype=np.float32)
    corner = np.array([rng.choice([0, height]), rng.choice([0, width])], np.float32)
    reach = np.hypot(rows - corner[0], columns - corner[1]) / math.hypot(height, width)  # [H, W] in [0, 1]
    if light.startswith("even"):
        lit = np.ones((height, width), np.float32)
    elif light == "falling off":  # a lamp beyond a corner: 1 there, about 0.68 at the far corner
        lit = np.exp(-0.38 * reach)
    else:  # the same lamp nearer, and the soft round shadow of a hand or a phone over part of the page
        centre = rng.uniform(0.2, 0.8, 2) * (height, width)
        radii = rng.uniform(0.15, 0.35, 2) * (height, width)
        inside = np.hypot((rows - centre[0]) / radii[0], (columns - centre[1]) / radii[1])
        lit = np.exp(-0.6 * reach) * (1 - 0.5 / (1 + np.exp((inside - 1) * 12)))
    warm = np.array([1.0, 0.88, 0.72], np.float32) * rng.uniform(0.9, 1.05)
    page = _seen_at_a_slant(Image.fromarray(_as_uint8(reflectance)), rng, table=(0.45, 0.38, 0.30))
    photo = Image.fromarray(_as_uint8(lit[..., None] * warm * np.asarray(page, np.float32) / 255))
    photo = photo.filter(ImageFilter.GaussianBlur(rng.uniform(0.6, 1.6)))
    photo = photo.resize((width // 2, height // 2), Image.Resampling.BILINEAR).resize((width, height))
    if light == "even, clean":
        return np.asarray(photo)
    noisy = np.asarray(photo, np.float32) / 255 + rng.normal(0, 0.025, (height, width))[..., None]
    return _jpeg(Image.fromarray(_as_uint8(noisy)), quality=70)


def window_photo(coverage: np.ndarray | None, light: str, rng: np.random.Generator) -> np.ndarray:
    """The window set's photo of ``coverage`` (None: blank paper) under ``light``: uint8 [600, 800, 3]."""
    height, width = 600, 800
    ink = _laid(coverage, (height, width), rng.uniform(60, 300), rng)
    side = max(3, round(rng.uniform(0, 4)) | 1)  # a felt-tip's width: its strokes spread by up to 2 pixels
    ink = np.asarray(Image.fromarray(ink).filter(ImageFilter.MaxFilter(side))) * rng.uniform(0.85, 1.0)
    paper = np.array([0.97, 0.97, 0.95], np.float32)
    colour = np.array([[0.08, 0.08, 0.10], [0.70, 0.12, 0.14], [0.10, 0.35, 0.18]], np.float32)[rng.integers(3)]
    reflectance = paper * (1 - ink[..., None]) + colour * ink[..., None]  # [H, W, 3]
    if rng.random() < 0.6:  # a notebook's page: pale blue lines and a red margin
        reflectance *= 1 - _notebook((height, width), rng)
    rows, columns = np.indices((height, width), dtype=np.float32)
    across = _along(rows, columns, rng.uniform(0, 2 * math.pi))  # [H, W] in [0, 1], away from the window
    if light.startswith("even"):
        lit = np.ones((height, width), np.float32)
    elif light == "falling off":  # daylight from a window, fading across the page to about 0.7
        lit = 0.7 + 0.3 * np.cos(across * math.pi / 2) ** 2
    else:  # the window's frame: bars of shadow with soft edges across the light, which fades further
        angle = rng.uniform(0, math.pi)
        spacing, bar = rng.uniform(180, 320), rng.uniform(40, 90)
        along = (rows * math.sin(angle) + columns * math.cos(angle) + rng.uniform(0, spacing)) % spacing
        shade = 1 / (1 + np.exp((np.abs(along - spacing / 2) - bar / 2) / 8))  # [H, W]: 1 under a bar
        lit = (0.55 + 0.45 * np.cos(across * math.pi / 2) ** 2) * (1 - 0.45 * shade)
    cold = np.array([0.92, 0.97, 1.0], np.float32) * rng.uniform(0.95, 1.1)
    photo = Image.fromarray(_as_uint8(lit[..., None] * cold * reflectance))
    photo = _shaken(photo, rng).filter(ImageFilter.UnsharpMask(radius=2, percent=80, threshold=2))
    if light == "even, clean":
        return np.asarray(photo)
    noisy = np.asarray(photo, np.float32) / 255 + rng.normal(0, 0.015, (height, width, 3))
    return _jpeg(Image.fromarray(_as_uint8(noisy)), quality=85)


def _notebook(shape: tuple[int, int], rng) -> np.ndarray:
    """A notebook page's pale blue lines every 30-40 pixels and a red margin: the light each takes
    away in each channel, float [H, W, 3]."""
    rows, columns = np.indices(shape, dtype=np.float32)
    spacing = rng.uniform(30, 40)
    from_line = np.abs((rows + rng.uniform(0, spacing) + spacing / 2) % spacing - spacing / 2)
    lines = np.clip(1.2 - from_line, 0, 1)[..., None] * np.array([0.25, 0.12, 0.02], np.float32)
    margin = np.clip(1.5 - np.abs(columns - rng.uniform(0.1, 0.2) * shape[1]), 0, 1)
    return np.maximum(lines, margin[..., None] * np.array([0.02, 0.3, 0.3], np.float32))


def _shaken(photo: Image.Image, rng) -> Image.Image:
    """``photo`` blurred along a line 3-9 pixels long, as a hand shakes while the shutter is open."""
    length = int(rng.integers(3, 10))
    angle = rng.uniform(0, math.pi)
    reach = length // 2 + 1
    padded = np.pad(np.asarray(photo, np.float32), ((reach, reach), (reach, reach), (0, 0)), mode="edge")
    height, width = photo.size[1], photo.size[0]
    shifts = np.linspace(-(length - 1) / 2, (length - 1) / 2, length)
    moved = [
        padded[reach + dy : reach + dy + height, reach + dx : reach + dx + width]
        for dy, dx in {(round(s * math.sin(angle)), round(s * math.cos(angle))) for s in shifts}
    ]
    return Image.fromarray(_as_uint8(np.mean(moved, axis=0) / 255))


def _laid(coverage: np.ndarray | None, shape: tuple[int, int], digit_height: float, rng) -> np.ndarray:
    """``coverage`` scaled so that its digit is ``digit_height`` pixels tall and laid at a random
    place of a page of ``shape``: float32 [H, W] in [0, 1] (zeros for None)."""
    page = np.zeros(shape, np.float32)
    if coverage is None:
        return page
    side = round(digit_height * FIELD_OVER_DIGIT)
    scaled = Image.fromarray(np.asarray(coverage, np.float32)).resize((side, side), Image.Resampling.BICUBIC)
    top, left = (int(rng.integers(0, extent - side + 1)) for extent in shape)
    page[top : top + side, left : left + side] = np.clip(np.asarray(scaled), 0, 1)
    return page


def _turned(coverage: np.ndarray, degrees: float, shear: float) -> np.ndarray:
    """``coverage`` [S, S] turned by ``degrees`` and sheared sideways by ``shear`` about its centre."""
    side = coverage.shape[0]
    angle = math.radians(degrees)
    cos, sin = math.cos(angle), math.sin(angle)
    # The output pixel (x, y) takes the input at A (x, y) about the centre: rotation times shear.
    a, b = cos, cos * shear + sin
    d, e = -sin, -sin * shear + cos
    middle = (side - 1) / 2
    affine = (a, b, middle - a * middle - b * middle, d, e, middle - d * middle - e * middle)
    picture = Image.fromarray(np.asarray(coverage, np.float32))
    return np.asarray(picture.transform((side, side), Image.Transform.AFFINE, affine, Image.Resampling.BICUBIC))


def _along(rows: np.ndarray, columns: np.ndarray, angle: float) -> np.ndarray:
    """How far along direction ``angle`` each pixel lies, 0 at the page's first corner, 1 at its last."""
    distance = rows * math.sin(angle) + columns * math.cos(angle)
    return (distance - distance.min()) / (distance.max() - distance.min())


def _shadow(rows, columns, rng, depth: float, edge: float, hard: bool) -> np.ndarray:
    """The light left by a shadow over one side of a line through the page's middle half: 1 in the
    light, 1 - ``depth`` in the shadow, an edge ``edge`` pixels wide (a ramp if ``hard``, else
    a logistic)."""
    height, width = rows.shape
    point = rng.uniform(0.25, 0.75, 2) * (height, width)
    angle = rng.uniform(0, 2 * math.pi)
    signed = (rows - point[0]) * math.sin(angle) + (columns - point[1]) * math.cos(angle)
    inside = np.clip(0.5 - signed / edge, 0, 1) if hard else 1 / (1 + np.exp(signed / edge))
    return 1 - depth * inside


def _ruled_lines(shape: tuple[int, int], rng) -> np.ndarray:
    """Ruled lines across a page of ``shape``, slightly tilted, about 2 pixels thick: coverage [H, W]."""
    rows, columns = np.indices(shape, dtype=np.float32)
    tilt = math.tan(math.radians(rng.uniform(-2, 2)))
    spacing = rng.uniform(28, 40)
    height = rows - tilt * columns - rng.uniform(0, spacing)
    from_line = np.abs((height + spacing / 2) % spacing - spacing / 2)  # to the nearest line
    return 0.7 * np.clip(1.5 - from_line, 0, 1)


def _squares(shape: tuple[int, int], rng) -> np.ndarray:
    """Squared paper's grid, lines about a pixel thick every 22-30 pixels: coverage [H, W]."""
    rows, columns = np.indices(shape, dtype=np.float32)
    spacing = rng.uniform(22, 30)
    cover = np.zeros(shape, np.float32)
    for along in (rows + rng.uniform(0, spacing), columns + rng.uniform(0, spacing)):
        from_line = np.abs((along + spacing / 2) % spacing - spacing / 2)
        cover = np.maximum(cover, 0.8 * np.clip(1.0 - from_line, 0, 1))
    return cover


def _seen_at_a_slant(photo: Image.Image, rng, table: tuple[float, float, float]) -> Image.Image:
    """``photo`` of a page as a camera held not quite square to it sees it: each corner moved
    inwards by up to 8% of the side, the ``table`` (its RGB reflectance) beyond the page."""
    width, height = photo.size
    moved = rng.uniform(0, 0.08, (4, 2)) * (width, height)
    corners = np.array([(0, 0), (width, 0), (width, height), (0, height)], np.float64)
    seen = corners + moved * ((1, 1), (-1, 1), (-1, -1), (1, -1))
    # The perspective's coefficients take each output corner to the page's corner it shows.
    system, values = [], []
    for (x, y), (u, v) in zip(corners, seen, strict=True):
        system += [[u, v, 1, 0, 0, 0, -x * u, -x * v], [0, 0, 0, u, v, 1, -y * u, -y * v]]
        values += [x, y]
    coefficients = np.linalg.solve(np.array(system), np.array(values))
    edge = tuple(int(c) for c in np.asarray(photo)[0, 0])
    return photo.transform(
        photo.size, Image.Transform.PERSPECTIVE, tuple(coefficients), Image.Resampling.BICUBIC, fillcolor=edge
    )


def _specks(shape: tuple[int, int], rng) -> np.ndarray:
    """A few round specks of dust or ink, 1-5 pixels across, anywhere on the page: coverage [H, W]."""
    rows, columns = np.indices(shape, dtype=np.float32)
    cover = np.zeros(shape, np.float32)
    for _ in range(int(rng.integers(4, 11))):
        centre, radius = rng.uniform(0, 1, 2) * shape, rng.uniform(0.8, 2.5)
        cover = np.maximum(cover, np.clip(radius + 0.5 - np.hypot(rows - centre[0], columns - centre[1]), 0, 1))
    return cover


def _as_uint8(values: np.ndarray) -> np.ndarray:
    return np.rint(np.clip(values, 0, 1) * 255).astype(np.uint8)


def _jpeg(picture: Image.Image, quality: int) -> np.ndarray:
    """``picture`` saved as a JPEG of ``quality`` and read back."""
    buffer = io.BytesIO()
    picture.save(buffer, format="JPEG", quality=quality)
    return np.asarray(Image.open(buffer))
