"""The shipped dimension names hold on digits that did not make them, checked apart from the naming code.

Every name in weights/dimensions.json claims something of each digit of its class: a direction
("wider →": dragging the slider right makes the digit wider) or a place ("the bottom grows →": the
bottom of the digit gains ink, clearly more than any other part of it gains or loses; "ink from top
to bottom →": the top loses ink and the bottom gains it, each clearly more than any other part
changes). Here each name's words are read, and its claim measured, by this file's own small
functions, importing nothing of the naming (capsnet.studies.dimension_names, dimension_names_claims,
ink_places, shape_measures), on MNIST test digits 200..299 of its class, which the naming never
decoded (digits 0..99 named it, 100..199 checked each name as it was made), at the range's ends.

The measures here are other measures of the same words: the ink is the inked pixels (at least
half grey), not the sum of grey levels; width and height are how far the inked pixels reach, not
four standard deviations of the grey levels; position and slant come from the inked pixels' own
moments. A place is a part of the box of the inked pixels of the unperturbed reconstruction, cut
in thirds each way: "the top" its top third, "the centre" its middle ninth, "the top-left" its
top-left ninth (a pixel outside the box counts in the nearest third). A part's change is the grey
levels it gains less those it loses, per pixel of the part inside the box; a place name holds on a
digit where each part it names changes with its sign by at least STANDS_OUT times as much as any
other ninth of the box gains or loses.
"""

import json

import numpy as np
import pytest
import torch

from harness.paths import WEIGHTS

HELD_OUT = range(200, 300)  # the test digits of each class after those that named and checked it
HOLDS = 0.8  # a name must hold on 80% of them
SAYS_NOTHING = ("barely changes", "changes shape: whole digit", "varies from digit to digit")
INKED = 0.5  # a pixel at least half grey is ink
STANDS_OUT = 1.5  # a named part changes per pixel 1.5 times as much as any other ninth (docs/dimensions.md)
DIRECTIONS = {
    "thicker strokes": (("ink", 1),),
    "thinner strokes": (("ink", -1),),
    "wider": (("width", 1),),
    "narrower": (("width", -1),),
    "taller": (("height", 1),),
    "shorter": (("height", -1),),
    "larger": (("width", 1), ("height", 1)),
    "smaller": (("width", -1), ("height", -1)),
    "slants right": (("slant", 1),),
    "slants left": (("slant", -1),),
    "moves right": (("x", 1),),
    "moves left": (("x", -1),),
    "moves down": (("y", 1),),
    "moves up": (("y", -1),),
}
PLACES = {  # (row, column) thirds of the digit's box
    "top": {(0, 0), (0, 1), (0, 2)},
    "bottom": {(2, 0), (2, 1), (2, 2)},
    "left": {(0, 0), (1, 0), (2, 0)},
    "right": {(0, 2), (1, 2), (2, 2)},
    "centre": {(1, 1)},
    "top-left": {(0, 0)},
    "top-right": {(0, 2)},
    "bottom-left": {(2, 0)},
    "bottom-right": {(2, 2)},
    "top corners": {(0, 0), (0, 2)},
    "bottom corners": {(2, 0), (2, 2)},
    "left corners": {(0, 0), (2, 0)},
    "right corners": {(0, 2), (2, 2)},
}


def read_claim(name: str) -> tuple[str, object] | None:
    """What a name says will happen to each digit: ("direction", ((measure, sign), ...)) or
    ("place", ((cells of a part, +1 gains ink or -1 loses it), ...)); None for a name that says only
    that the digit changes. A name outside this vocabulary fails the test."""
    if name in SAYS_NOTHING:
        return None
    words = name.removesuffix(" →").removeprefix("reshapes, ")
    if words.startswith("ink from "):
        source, target = words.removeprefix("ink from ").split(" to ")
        return "place", ((PLACES[source], -1), (PLACES[target], 1))
    if words.startswith("the "):
        parts, verb = words.removeprefix("the ").rsplit(" ", 1)
        sign = {"grows": 1, "grow": 1, "shrinks": -1, "shrink": -1}[verb]
        return "place", tuple((PLACES[part], sign) for part in parts.split(" and "))
    phrases = [
        phrase if phrase in DIRECTIONS else f"moves {phrase}" for phrase in words.split(" and ")
    ]  # "moves left and down"
    return "direction", tuple(move for phrase in phrases for move in DIRECTIONS[phrase])


def inked_measures(images: np.ndarray) -> dict[str, np.ndarray]:
    """Each image's inked area, the centre and slant of its inked pixels, and how far they reach
    across (the slant taken out) and down. images: [N, H, W] grey levels; each measure [N]."""
    inked = images >= INKED
    area = inked.sum((1, 2)).astype(float)
    y, x = np.mgrid[: images.shape[1], : images.shape[2]]
    found = {"ink": area, "x": [], "y": [], "slant": [], "width": [], "height": []}
    for mask in inked:
        ys, xs = y[mask].astype(float), x[mask].astype(float)
        if len(xs) == 0:
            for key in ("x", "y", "slant", "width", "height"):
                found[key].append(0.0)
            continue
        dy, dx = ys - ys.mean(), xs - xs.mean()
        shear = (dx * dy).mean() / max((dy * dy).mean(), 1e-9)  # x - x_c = shear (y - y_c), fitted
        upright = xs - shear * dy
        found["x"].append(xs.mean())
        found["y"].append(ys.mean())
        found["slant"].append(np.degrees(np.arctan(-shear)))  # y grows downwards: the top leaning right is > 0
        found["width"].append(upright.max() - upright.min() + 1)
        found["height"].append(ys.max() - ys.min() + 1)
    return {key: np.asarray(value, dtype=float) for key, value in found.items()}


def third_changes(change: np.ndarray, middle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The grey levels ``change`` [N, H, W] gains less those it loses in each third (row, column) of
    the box of each ``middle`` digit's inked pixels, and each third's pixels inside the box: two
    [N, 3, 3] arrays."""
    net, pixels = np.zeros((len(change), 3, 3)), np.zeros((len(change), 3, 3))
    for n, (delta, digit) in enumerate(zip(change, middle, strict=True)):
        ys, xs = np.nonzero(digit >= INKED)
        top, bottom = (ys.min(), ys.max()) if len(ys) else (0, digit.shape[0] - 1)
        left, right = (xs.min(), xs.max()) if len(xs) else (0, digit.shape[1] - 1)
        for row in range(delta.shape[0]):
            r = min(max(int((row - top + 0.5) * 3 // (bottom - top + 1)), 0), 2)
            for column in range(delta.shape[1]):
                c = min(max(int((column - left + 0.5) * 3 // (right - left + 1)), 0), 2)
                net[n, r, c] += delta[row, column]
                pixels[n, r, c] += top <= row <= bottom and left <= column <= right
    return net, pixels


def place_holds(parts: tuple[tuple[set, int], ...], net: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """On which digits each named part (its cells, +1 gains or -1 loses) changes with its sign per
    pixel at least STANDS_OUT times as much as any cell outside the parts gains or loses: [N]."""
    named = set().union(*(cells for cells, _ in parts))
    others = [(r, c) for r in range(3) for c in range(3) if (r, c) not in named]
    per_pixel = net / np.maximum(pixels, 1)  # [N, 3, 3]
    most_elsewhere = np.max([np.abs(per_pixel[:, r, c]) for r, c in others], axis=0)  # [N]
    held = np.ones(len(net), dtype=bool)
    for cells, sign in parts:
        change = sign * sum(net[:, r, c] for r, c in cells) / np.maximum(sum(pixels[:, r, c] for r, c in cells), 1)
        held &= (change > 0) & (change >= STANDS_OUT * most_elsewhere)
    return held


def holds(claim: tuple[str, object], low: np.ndarray, middle: np.ndarray, high: np.ndarray) -> np.ndarray:
    """On which of N digits, decoded at -range (``low``), 0 and +range (``high``), the claim holds: [N]."""
    what, said = claim
    if what == "direction":
        before, after = inked_measures(low), inked_measures(high)
        return np.all([sign * (after[k] - before[k]) > 0 for k, sign in said], axis=0)
    return place_holds(said, *third_changes(high - low, middle))


def test_a_place_name_holds_only_where_the_change_is():
    digit = np.zeros((1, 28, 28))
    digit[0, 4:25, 8:20] = 1  # the box: rows 4..24 (thirds of 7), columns 8..19 (of 4)
    top, bottom = np.zeros_like(digit), np.zeros_like(digit)
    top[0, 4:11, 8:20] = 0.5
    bottom[0, 18:25, 8:20] = 0.5

    def held(name: str, change: np.ndarray) -> bool:
        return bool(holds(read_claim(name), digit, digit, digit + change)[0])

    assert held("the top grows →", top)
    assert not held("the top grows →", 0.5 * digit)  # the whole digit gains alike
    assert not held("the top and bottom grow →", 0.5 * digit)
    assert not held("the top and centre grow →", top)  # the centre does not grow
    assert not held("the top-left grows →", top)  # the rest of the top grows as much
    assert held("ink from top to bottom →", bottom - top)
    assert not held("ink from top to bottom →", bottom - top + 0.4 * digit)  # the middle gains nearly as much
    assert held("the top and bottom shrink →", -top - bottom)


@pytest.fixture(scope="module")
def shipped_names() -> dict:
    path = WEIGHTS / "dimensions.json"
    if not path.exists():
        pytest.fail(f"{path} is missing: python -m capsnet.studies.dimension_names --weights weights")
    return json.loads(path.read_text(encoding="utf-8"))


def test_every_shipped_name_is_read_here_and_fits_beside_a_slider(shipped_names):
    for digit, entries in shipped_names["classes"].items():
        for entry in entries:
            for scale in ("paper", "spread"):
                name = entry[scale]["name"]
                assert len(name) <= 40, (digit, entry["dimension"], scale, name)
                read_claim(name)  # a KeyError names a word outside the vocabulary read here


def test_few_names_say_only_that_the_digit_changes(shipped_names):
    silent = [
        (digit, entry["dimension"], entry["paper"]["name"])
        for digit, entries in shipped_names["classes"].items()
        for entry in entries
        if read_claim(entry["paper"]["name"]) is None
    ]
    assert len(silent) <= 16, silent


@pytest.mark.slow
def test_every_shipped_name_holds_on_held_out_digits(shipped_names, trained_model, mnist_test):
    failing = []
    with torch.inference_mode():
        for digit, entries in shipped_names["classes"].items():
            digit = int(digit)
            index = (mnist_test.targets == digit).nonzero()[HELD_OUT, 0]
            v = trained_model(mnist_test.data[index].unsqueeze(1).float() / 255).capsules  # [100, 10, 16]
            labels = torch.full((len(v),), digit)
            for entry in entries:
                d = entry["dimension"]
                for scale, limit in (("paper", 0.25), ("spread", shipped_names["spread_range_sd"] * entry["sd"])):
                    claim = read_claim(entry[scale]["name"])
                    if claim is None:
                        continue
                    ends = []
                    for offset in (-limit, 0.0, limit):
                        moved = v.clone()
                        moved[:, digit, d] += offset
                        ends.append(trained_model.decode(moved, labels)[:, 0].numpy())  # [100, 28, 28]
                    rate = holds(claim, *ends).mean()
                    if rate < HOLDS:
                        failing.append((digit, d, scale, entry[scale]["name"], round(float(rate), 2)))
    assert not failing, f"names that hold on fewer than {HOLDS:.0%} of the held-out digits: {failing}"
