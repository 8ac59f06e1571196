"""What the Python that the page's modules port (playground/page/*.js) makes of inputs made here with
a fixed seed, written for tests/js/*.test.js to check the ports against:

    python -m tests.js.fixtures DIR

DIR gets one JSON file a module, named after it (stroke_mask.json for stroke_mask.js, ...),
facts.json (playground/reading.py `PREPROCESSING`, the numbers the page's modules get from the
server); two_digits_reading.json holds the shipped pairs networks' outputs beside what the server's
reader made of each drawing, for the port to be run on the same outputs. An array
in the JSON is {"dtype", "shape", "deflated"}: its little-endian bytes, zlib-compressed, in
base64 (`packed`), so that the pad's 280x280 pictures stay small.
"""

import argparse
import base64
import json
import zlib
from pathlib import Path

import numpy as np
import torch
from PIL import Image

from capsnet.data.preprocess import BOX, INK_THRESHOLD, MIN_CONTRAST, ink_to_mnist
from harness import digit_strokes
from harness.paths import REPO
from playground import dimension_changes, drawing_pad, networks, two_digits_pad, two_digits_views, views
from playground.reading import EXAMPLES, PREPROCESSING, example_ink
from playground.stroke_mask import stroke_mask
from playground.two_digits_pad import PENS
from playground.two_digits_reading import PairReader, example_fields

SEED = 70
SIDE = drawing_pad.SIDE
SECOND = "second"  # Decode as the second-longest capsule of a drawing read as one digit
# drawings whose field's centre of mass lies on a half pixel, where the sums' rounding decides the field's place
CENTRED_ON_HALF_PIXELS = {"a straight 1", "a square", "the pad's edges"}


def packed(array: np.ndarray) -> dict:
    """``array`` as JSON: its dtype's name, its shape, and its little-endian bytes deflated, in base64."""
    little = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    deflated = base64.b64encode(zlib.compress(little.tobytes())).decode("ascii")
    return {"dtype": array.dtype.name, "shape": list(array.shape), "deflated": deflated}


def scribble(rng: np.random.Generator, points: int) -> list[float]:
    """A random walk of ``points`` points over the pad, steps of about 6 units, on its 0.1 grid."""
    walk = rng.uniform(0, SIDE, 2) + np.cumsum(rng.normal(0, 6, (points, 2)), axis=0)  # [points, 2]
    return np.round(np.clip(walk, 0, SIDE), 1).ravel().tolist()


def drawings(rng: np.random.Generator) -> dict[str, list[list[float]]]:
    """Strokes in pad units on the pad's 0.1 grid, each a flat [x0, y0, x1, y1, ...], by what they
    show: a hand-like digit of each kind anywhere on the pad, a tiny one, scribbles, dots, the pad's
    edges, symmetric shapes, and pixel centres exactly BRUSH / 2 (10) from a stroke (6 and 8 away
    across and down)."""
    drawn = {
        f"digit {digit}": digit_strokes.strokes(digit, *digit_strokes.random_box(rng, SIDE)) for digit in range(10)
    }
    drawn["tiny digit 8"] = digit_strokes.strokes(8, 131.0, 127.0, 6.0, 9.0)
    drawn["scribbles"] = [scribble(rng, points) for points in (2, 30, 200)]
    drawn["a dot"] = [[140.3, 71.9]]
    drawn["a dot in a corner"] = [[0.0, 0.0]]
    drawn["the pad's edges"] = [[0.0, 0.0, SIDE, 0.0, SIDE, SIDE, 0.0, SIDE, 0.0, 0.0], [0.0, 140.0], [SIDE, 140.5]]
    drawn["a straight 1"] = [[140.0, 60.0, 140.0, 220.0]]
    drawn["a square"] = [[60.0, 60.0, 220.0, 60.0, 220.0, 220.0, 60.0, 220.0, 60.0, 60.0]]
    drawn["centres half a brush away"] = [
        [30.5, 50.5, 200.5, 50.5],
        [150.5, 20.5, 150.5, 250.5],
        [100.5, 100.5],
        [40.5, 140.5, 100.5, 220.5],
    ]
    return drawn


def stroke_masks(drawn: dict[str, list[list[float]]]) -> list[dict]:
    """stroke_mask of each drawing's strokes in float32, as `drawing_pad.parse` reads
    them (and as inks.js hands them on): the strokes written as those float32 numbers."""
    cases = []
    for name, strokes in drawn.items():
        read = [np.array(stroke, dtype=np.float32).reshape(-1, 2) for stroke in strokes]  # each [n, 2]
        mask = np.zeros((SIDE, SIDE), dtype=bool)
        stroke_mask(mask, *read, brush=drawing_pad.BRUSH)
        cases.append(
            {"name": name, "strokes": [xy.ravel().tolist() for xy in read], "mask": packed(mask.view(np.uint8))}
        )
    return cases


def pad_ink(strokes: list[list[float]], background: np.ndarray | None) -> np.ndarray:
    """drawing_pad.ink of the pad's value for ``strokes`` over ``background`` (uint8 [28, 28] or None)."""
    encoded = None if background is None else base64.b64encode(background.tobytes()).decode("ascii")
    return drawing_pad.ink(drawing_pad.parse(digit_strokes.pad_value(strokes, background=encoded)))


def pad_inks(drawn: dict[str, list[list[float]]]) -> list[dict]:
    """The ink of each drawing on an empty pad, and of a few over an example (an example alone too):
    {"name", "strokes", "background" (784 ink values or None), "ink" (float32 [280, 280])}."""
    examples = [example_ink(path)[1] for path in EXAMPLES]
    over = [("digit 3", examples[0]), ("scribbles", examples[5]), ("the pad's edges", examples[9])]
    cases = [(name, strokes, None) for name, strokes in drawn.items()]
    cases += [(f"{name} over example {k}", drawn[name], ink) for k, (name, ink) in enumerate(over)]
    cases.append(("example 7 alone", [], examples[7]))
    return [
        {
            "name": name,
            "strokes": strokes,
            "background": None if background is None else background.ravel().tolist(),
            "ink": pad_ink(strokes, background),
        }
        for name, strokes, background in cases
    ]


def inks_to_mnist(rng: np.random.Generator, inks: list[dict]) -> list[dict]:
    """preprocess.ink_to_mnist of every pad ink, and of inks no pad draws: random ones (negative
    ink too) of sides below BOX and above it, ink just strong enough, just too faint, far too faint,
    ink exactly INK_THRESHOLD of the strongest; each case marked where its centre of mass lies on a
    half pixel (CENTRED_ON_HALF_PIXELS)."""
    faintest = np.float32(MIN_CONTRAST)  # the faintest strongest ink read, as numpy compares float32 ink with it
    digit = next(case["ink"] for case in inks if case["name"] == "digit 2")
    at_threshold = np.full((40, 40), 0.1, dtype=np.float32)
    at_threshold[8:32, 8:32] = INK_THRESHOLD
    at_threshold[12:28, 12:30] = 1
    other = {
        "random ink of side 15": rng.uniform(-0.2, 1, (15, 15)),
        "random ink of side 97": rng.uniform(-0.5, 2, (97, 97)),
        "strongest ink exactly min_contrast": digit * faintest,
        "strongest ink just under min_contrast": digit * np.nextafter(faintest, np.float32(0)),
        "faint ink": digit * np.float32(0.05),
        "ink exactly ink_threshold at its edges": at_threshold,
    }
    cases = [(case["name"], case["ink"]) for case in inks] + list(other.items())
    fields = []
    for name, ink in cases:
        ink = ink.astype(np.float32)
        field = ink_to_mnist(ink)
        fields.append(
            {
                "name": name,
                "side": len(ink),
                "ink": packed(ink),
                "field": None if field is None else packed(field),
                "centred_on_half_pixels": name in CENTRED_ON_HALF_PIXELS,
            }
        )
    return fields


def resizes(rng: np.random.Generator) -> dict:
    """Image.resize as preprocess and drawing_pad call it: float ("F") squares of several sides,
    a third of their pixels empty, to BOX x BOX by the box and the bilinear filter; 8-bit ("L")
    28x28 inks enlarged to the pad's side, bilinear."""
    filters = {"box": Image.Resampling.BOX, "bilinear": Image.Resampling.BILINEAR}
    floats = []
    for side in (1, 2, 7, 13, 19, 20, 21, 33, 64, 150, SIDE):
        pixels = (rng.integers(1, 65, (side, side)) / 64 * (rng.random((side, side)) > 1 / 3)).astype(np.float32)
        resized = {name: np.asarray(Image.fromarray(pixels).resize((BOX, BOX), way)) for name, way in filters.items()}
        floats.append({"side": side, "pixels": packed(pixels), "resized": {k: packed(v) for k, v in resized.items()}})
    inks = [rng.integers(0, 256, (28, 28), dtype=np.uint8), example_ink(EXAMPLES[2])[1], example_ink(EXAMPLES[8])[1]]
    enlarged = [np.asarray(Image.fromarray(ink).resize((SIDE, SIDE), Image.Resampling.BILINEAR)) for ink in inks]
    return {
        "out_side": BOX,
        "floats": floats,
        "enlarged": [{"pixels": packed(ink), "resized": packed(big)} for ink, big in zip(inks, enlarged, strict=True)],
    }


def exact_halves() -> np.ndarray:
    """float32 inks whose float32 product with 255 is a whole number and a half, where rounding
    halves to even shows: those among the few float32 numbers nearest (k + 0.5) / 255."""
    nearest = (((np.arange(255) + 0.5) / 255).astype(np.float32).view(np.int32)[:, None] + np.arange(-4, 5)).ravel()
    candidates = nearest.view(np.float32)
    return candidates[(candidates * np.float32(255)) % 1 == 0.5]


def papers(rng: np.random.Generator) -> dict:
    """views.paper of float32 ink (exact halves, 0 and 1, beyond [0, 1]) and of float64 ink, which
    it reads in float32."""
    float32 = np.concatenate([exact_halves(), [0, 1, -0.0, 1e-9, -3, 7], rng.uniform(-0.5, 1.5, 500)]).astype(
        np.float32
    )
    float64 = rng.uniform(-0.2, 1.2, 500)
    return {
        "float32": {"ink": packed(float32), "paper": views.paper(float32).tolist()},
        "float64": {"ink": float64.tolist(), "paper": views.paper(float64).tolist()},
    }


def rounded(rng: np.random.Generator) -> list[dict]:
    """numpy's rint (Python's round) of halves, near-halves, huge and tiny numbers, random ones."""
    values = np.concatenate(
        [
            np.arange(-6.5, 7),
            [0.49999999999999994, -0.49999999999999994, 2.0**52 - 0.5, -(2.0**52) + 0.5, 2.0**53, 1e300, -1e-300, -0.3],
            rng.integers(-400, 400, 100) / 4,
            rng.uniform(-1000, 1000, 100),
        ]
    )
    return [{"x": x, "rounded": r} for x, r in zip(values.tolist(), np.rint(values).tolist(), strict=True)]


def maxima(rng: np.random.Generator) -> list[dict]:
    """numpy's argmax (the first of the largest) of random lengths and of lengths with ties."""
    cases = [rng.uniform(0, 1, 10).astype(np.float32).tolist() for _ in range(8)]
    cases += [[0.25, 0.5, 0.5, 0.1], [0.0] * 10, [1.0, 0.0, 1.0]]
    return [{"values": values, "argmax": int(np.argmax(values))} for values in cases]


def change_colour_cases(rng: np.random.Generator) -> dict:
    """dimension_changes.change_colours of float32 changes of ink: none (-0 too), each way's full
    change and beyond, a hair either side of none, changes whose colour is a whole level and a half
    in some channel (where rounding halves to even shows), random ones; and its PALETTE."""
    full, unchanged = dimension_changes.FULL_CHANGE, dimension_changes.UNCHANGED
    # a channel's way from the grey, signed as the change that goes there: + added, - taken away
    towards = np.concatenate([dimension_changes.ADDED - unchanged, unchanged - dimension_changes.REMOVED])  # [6]
    halves = (np.arange(256) + 0.5)[:, None] - unchanged[0]  # [256, 1]: each level and a half, from the grey
    strengths = (halves / towards[None]).astype(np.float32).ravel()  # [256 * 6]
    near = (strengths[np.abs(strengths) <= 1].view(np.int32)[:, None] + np.arange(-2, 3)).ravel().view(np.float32)
    near = near[np.isfinite(near)]  # the bits beside 0's are NaN's
    changes = np.concatenate(
        [[0, -0.0, full, -full, 1, -1, 3, -3, 1e-9, -1e-9], near * full, rng.uniform(-1.2, 1.2, 500)]
    ).astype(np.float32)
    colours = dimension_changes.change_colours(changes)
    return {"palette": dimension_changes.PALETTE, "changes": packed(changes), "colours": packed(colours)}


def tinted_cases(rng: np.random.Generator) -> dict:
    """two_digits_views.tinted and figure5 of inks as the page has them (grey levels / 255 in float32,
    views.js inkOf), two pens' ink equal on some pixels (the first pen's colour on top), and of
    float32 inks beyond [0, 1] and at quarters, where rounding halves to even shows (orange's red at
    ink 0.5 on white paper is (255 + 230) / 2, 242.5), on white paper and on a picture."""
    levels = rng.integers(0, 256, (3, 28, 28)).astype(np.float32) / np.float32(255)  # [3, 28, 28]
    levels[1, :4] = levels[0, :4]
    floats = rng.uniform(-0.3, 1.3, (2, 28, 28)).astype(np.float32)
    floats[:, :2] = rng.choice(np.array([0, 0.25, 0.5, 0.75, 1], dtype=np.float32), (2, 2, 28))
    under = rng.integers(0, 256, (28, 28, 3), dtype=np.uint8)
    cases = [
        ("two pens' ink", levels[:2], list(PENS), None),
        ("ink in black", levels[2:], ["#000000"], None),
        ("float32 ink beyond [0, 1] and at quarters", floats, [PENS[1], PENS[0]], None),
        ("two pens' ink on a picture", levels[:2], list(PENS), under),
    ]
    figures = [("two digits redrawn", levels[:2], list(PENS)), ("one digit redrawn", levels[1:2], [PENS[1]])]
    return {
        "tinted": [
            {
                "name": name,
                "inks": packed(inks),
                "colours": colours,
                "under": None if under is None else packed(under),
                "picture": packed(two_digits_views.tinted(inks, colours, under)),
            }
            for name, inks, colours, under in cases
        ],
        "figure5": [
            {
                "name": name,
                "image": packed(levels[2]),
                "redrawn": packed(redrawn),
                "colours": colours,
                "picture": packed(two_digits_views.figure5(levels[2], redrawn, colours)),
            }
            for name, redrawn, colours in figures
        ],
    }


def pair_drawings(rng: np.random.Generator) -> list[tuple[str, dict, int | str | None]]:
    """Drawings of the two-pen pad (name, pad value, the digit *Decode as* chose, SECOND, or None): each MNIST
    test pair under the pad tapped, one drawn over, digits drawn over each other with the two pens
    (`digit_strokes`; one of them read as one digit for its second redrawing's ink alone), single
    digits drawn with either pen, a dot and an empty pad."""
    cases = []
    for k, path in enumerate(sorted(two_digits_pad.EXAMPLES_FOLDER.glob("*.png"))):
        layers = two_digits_pad.example_layers(path)
        background = base64.b64encode(layers.tobytes()).decode("ascii")
        cases.append((f"example {path.stem}", {"strokes": [], "pens": "", "background": background}, (k * 3) % 10))
        if k == 2:
            drawn = digit_strokes.strokes(7, 150.0, 60.0, 80.0, 150.0)
            value = {"strokes": drawn, "pens": "1" * len(drawn), "background": background}
            cases.append((f"example {path.stem} drawn over with pen 2", value, None))
    for first, second in ((3, 5), (0, 7), (4, 1), (2, 8), (6, 9)):
        box, other = digit_strokes.overlapping_boxes(rng, SIDE)
        a, b = digit_strokes.strokes(first, *box), digit_strokes.strokes(second, *other)
        value = {"strokes": a + b, "pens": "0" * len(a) + "1" * len(b), "background": None}
        cases.append((f"{first} and {second} drawn over each other", value, first))
    eight, one = digit_strokes.strokes(8, 66.0, 123.0, 86.0, 130.0), digit_strokes.strokes(1, 56.0, 131.0, 86.0, 130.0)
    value = {"strokes": eight + one, "pens": "0" * len(eight) + "1" * len(one), "background": None}
    cases.append(("a 1 over an 8, its capsule long, its redrawing covering too little ink of its own", value, 1))
    for digit, pen, decode_as in ((1, "0", 9), (3, "1", SECOND), (8, "0", 8), (2, "1", SECOND)):
        drawn = digit_strokes.strokes(digit, *digit_strokes.random_box(rng, SIDE))
        value = {"strokes": drawn, "pens": pen * len(drawn), "background": None}
        cases.append((f"{digit} alone with pen {pen}", value, decode_as))
    cases.append(("a dot", {"strokes": [[140.0, 140.0]], "pens": "1", "background": None}, None))
    cases.append(("an empty pad", {"strokes": [], "pens": "", "background": None}, None))
    return cases


def pair_readings(rng: np.random.Generator) -> dict:
    """What the server's `PairReader` (two_digits.py's `read_drawing`) makes of each of
    `pair_drawings`, with the shipped pairs networks' outputs the page's port takes instead of
    running them: {"facts": `TwoDigitsSection.page_settings`'s, "cases": [{"name", "drawing"
    (strokes as float32 reads them, pens, background's 2 x 784 ink values or null), "revision",
    "decode_as", "reading": null for too little ink, else the network outputs ("capsules" [10, 16],
    "lengths", "probabilities", "alone": each capsule redrawn alone [10, 28, 28]) and what the
    reader made ("image", "layers", "read", "second", "second_ink", "redrawn", "cnn_read",
    "pens": `pens_of`'s, "decoded")}]}."""
    pairs = networks.pair_networks(str(REPO / "weights" / "pairs"), str(REPO / "weights" / "pairs-cnn"))
    if pairs.problem is not None:
        raise SystemExit(f"the two_digits_reading fixtures need the shipped pairs networks: {pairs.problem}")
    reader = PairReader.of(pairs)
    facts = {
        **PREPROCESSING,
        "classes": reader.capsnet.config.num_classes,
        "pen_colours": list(two_digits_pad.PENS),
        "rule": {"second": reader.rule.second, "second_ink": reader.rule.second_ink},
        "cnn_rule": {"second": reader.cnn_rule.second, "second_ink": reader.cnn_rule.second_ink},
    }
    cases = []
    for revision, (name, value, decode_as) in enumerate(pair_drawings(rng), start=1):
        strokes = [" ".join(f"{x:g}" for x in stroke) for stroke in value["strokes"]]
        drawing = drawing_pad.parse({**value, "strokes": strokes, "revision": revision}, pens=2)
        if drawing.background is not None and not drawing.strokes:
            fields = example_fields(drawing.background)
            reading = None if fields is None else reader.read_fields(fields, revision)
        else:
            reading = reader.read(drawing_pad.inks(drawing, pens=2), revision)
        if decode_as == SECOND:
            decode_as = reading.second
        case = {
            "name": name,
            "drawing": {
                "strokes": [xy.ravel().tolist() for xy in drawing.strokes],
                "pens": value["pens"],
                "background": None if drawing.background is None else drawing.background.ravel().tolist(),
            },
            "revision": revision,
            "decode_as": decode_as,
            "reading": None if reading is None else pair_reading_case(reader, reading, decode_as),
        }
        cases.append(case)
    return {"facts": facts, "cases": cases}


def pair_reading_case(reader: PairReader, reading, decode_as: int | None) -> dict:
    """The network outputs of a reading and what the reader made of them (`pair_readings`)."""
    classes = reader.capsnet.config.num_classes
    with torch.inference_mode():
        alone = reader.capsnet.decode(reading.capsules[None].expand(classes, -1, -1), torch.arange(classes))
    decoded = decode_as if decode_as is not None and decode_as not in reading.read else None
    return {
        "capsules": packed(reading.capsules.numpy()),
        "lengths": packed(reading.lengths),
        "probabilities": packed(reading.probabilities),
        "alone": packed(alone[:, 0].numpy()),
        "image": packed(reading.image),
        "layers": packed(reading.layers),
        "read": list(reading.read),
        "second": reading.second,
        "second_ink": reading.second_ink,
        "redrawn": packed(reading.redrawn),
        "cnn_read": list(reading.cnn_read),
        "pens": list(two_digits_pad.pens_of(reading.redrawn, reading.layers)),
        "decoded": decoded,
        "decoded_redrawn": None if decoded is None else packed(reader.redraw(reading, decoded)),
    }


def write(folder: Path) -> None:
    """Write every fixture into ``folder``, made if missing."""
    rng = np.random.default_rng(SEED)
    drawn = drawings(rng)
    inks = pad_inks(drawn)
    files = {
        "facts": PREPROCESSING,
        "stroke_mask": stroke_masks(drawn),
        "ink_to_mnist": inks_to_mnist(rng, inks),
        "inks": [{**case, "ink": packed(case["ink"])} for case in inks],
        "resample": resizes(rng),
        "paper": papers(rng),
        "round_half_even": rounded(rng),
        "views": {"argmax": maxima(rng)},
        "change_colours": change_colour_cases(rng),
        "two_digits_tinted": tinted_cases(rng),
        "two_digits_reading": pair_readings(rng),
    }
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / f"{name}.json").write_text(json.dumps(content), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="where to write the fixtures (made if missing)")
    write(parser.parse_args().folder)


if __name__ == "__main__":
    main()
