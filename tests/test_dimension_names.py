"""Naming the capsule dimensions: synthetic decoders whose answer is known, the naming rules on
made-up measurements, the shipped dimensions.json against the shipped weights, and the loader's
errors. That the shipped names hold on digits that did not make them: test_dimension_names_hold."""

import json
import re
import shutil
from pathlib import Path

import pytest
import torch

from capsnet import WeightsError
from capsnet.dimensions import SWEEP
from capsnet.shipping.saving import sha256
from capsnet.studies.dimension_names import (
    MEASURES,
    check_name,
    class_entries,
    explained_fractions,
    main,
    name_dimension,
    sweep_dimensions,
)
from capsnet.studies.dimension_names_claims import BARELY_CHANGES, VARIES, WHOLE_DIGIT, DirectionClaim, Evidence
from capsnet.studies.dimension_names_file import NAMES_FILE, load_dimension_names
from capsnet.studies.results_file import ResultsError
from harness.paths import WEIGHTS

DIMENSION, DIGIT = 5, 3  # the synthetic decoders read dimension 5 of capsule 3
PAPER = SWEEP.expand(16, -1)
# One unit of dimensions.json's rounding, and a hair more: in binary floats 0.58 - 0.57 > 0.01.
UNITS = {"sd": 1e-4, "effect": 1e-3, "measures": 0.1, "explained": 0.01}
TOLERANCE = {key: unit * 1.001 for key, unit in UNITS.items()}


class RingDecoder:
    """Stands in for CapsNet.decode: draws a ring (a zero) whose width, stroke, position or slant
    follows one capsule dimension, or adds a blob at its top-left; the other 15 dimensions do nothing.

    Args:
        what: "width", "ink", "x", "y", "slant" or "local".
        sign: +1 or -1, the direction in which the dimension moves it.
    """

    def __init__(self, what: str, sign: float):
        self.what, self.sign = what, sign

    def decode(self, capsules: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        u = self.sign * capsules[torch.arange(len(labels)), labels, DIMENSION]  # [B]
        a, b, t, x_c, y_c, shear = (torch.full_like(u, value) for value in (5, 8, 2, 13.5, 13.5, 0))
        if self.what == "width":
            a = a + 8 * u  # semi-axis 5 +- 2 pixels over the paper's sweep
        elif self.what == "ink":
            t = t + 4 * u  # strokes 2 +- 1 pixels wide
        elif self.what == "x":
            x_c = x_c + 8 * u
        elif self.what == "y":
            y_c = y_c + 8 * u
        elif self.what == "slant":
            shear = 2 * u  # ink where x - x_c = -2u (y - y_c): the top leans right for u > 0
        y, x = torch.meshgrid(torch.arange(28.0), torch.arange(28.0), indexing="ij")
        dx = x - x_c[:, None, None] + shear[:, None, None] * (y - y_c[:, None, None])  # [B, 28, 28]
        dy = y - y_c[:, None, None]
        r = ((dx / a[:, None, None]) ** 2 + (dy / b[:, None, None]) ** 2).sqrt().clamp_min(1e-6)
        distance = (dx**2 + dy**2).sqrt() * (1 - 1 / r).abs()  # to the ellipse, along the ray
        images = (t[:, None, None] / 2 + 0.5 - distance).clamp(0, 1)
        if self.what == "local":  # a 6x6 blob, absent .. present
            images[:, 3:9, 6:12] = images[:, 3:9, 6:12].maximum((0.5 + 4 * u[:, None, None]).clamp(0, 1))
        return images[:, None]


def synthetic_capsules(seed: int = 0) -> torch.Tensor:
    """20 digits' capsules [20, 10, 16], small and different, as a trained network's would be."""
    return 0.05 * torch.randn(20, 10, 16, generator=torch.Generator().manual_seed(seed))


def sweep_synthetic(decoder: RingDecoder, offsets: torch.Tensor = PAPER) -> list:
    """``sweep_dimensions`` of 20 synthetic digits, its names checked on 20 others."""
    return sweep_dimensions(decoder, synthetic_capsules(0), synthetic_capsules(1), DIGIT, offsets)


NAMES = (  # each measure, and its name for a dimension that grows it and for one that shrinks it
    ("width", "wider →", "narrower →"),
    ("ink", "thicker strokes →", "thinner strokes →"),
    ("x", "moves right →", "moves left →"),
    ("y", "moves down →", "moves up →"),
    ("slant", "slants right →", "slants left →"),
    ("local", "the top-left grows →", "the top-left shrinks →"),
)


@pytest.mark.parametrize(
    "what, sign, name",
    [  # each measure's names in the fast tier, the second sign in the slow
        case
        for what, growing, shrinking in NAMES
        for case in ((what, 1, growing), pytest.param(what, -1, shrinking, marks=pytest.mark.slow))
    ],
)
def test_a_synthetic_decoder_gets_its_dimension_named_and_the_others_inert(what, sign, name):
    sweeps = sweep_synthetic(RingDecoder(what, sign))
    assert len(sweeps) == 16
    assert sweeps[DIMENSION].name == name
    assert sweeps[DIMENSION].kind == ("place" if what == "local" else "measure")
    assert sweeps[DIMENSION].held == 1.0  # the decoder does the same to every digit
    assert sweeps[DIMENSION].effect > 0.25
    if what != "local":
        assert sweeps[DIMENSION].explained[what] > 0.7
    for d, sweep in enumerate(sweeps):
        if d != DIMENSION:
            assert sweep.name == "barely changes", d
            assert sweep.held is None, d
            assert sweep.effect == 0, d
            assert all(abs(value) < 1e-4 for value in sweep.changes.values()), d


@pytest.mark.slow
def test_the_measured_changes_are_the_decoders():
    sweeps = sweep_synthetic(RingDecoder("x", 1))
    assert sweeps[DIMENSION].changes["x"] == pytest.approx(8 * 0.5, abs=1e-3)  # 8 pixels per unit, over 0.5
    sweeps = sweep_synthetic(RingDecoder("ink", 1), 0.25 * PAPER)
    assert sweeps[DIMENSION].changes["ink"] == pytest.approx(25, rel=0.1)  # strokes 1.75 .. 2.25 wide
    assert sweeps[DIMENSION].name == "thicker strokes →"
    sweeps = sweep_synthetic(RingDecoder("x", 1), 0.02 * PAPER)
    assert sweeps[DIMENSION].name == "barely changes"  # 0.08 pixels


def test_explained_fractions_match_a_loop_over_the_predictions():
    g = torch.Generator().manual_seed(0)
    delta = torch.randn(4, 3, 5, 5, generator=g)
    pure = 0.5 * delta + torch.randn(6, 4, 3, 5, 5, generator=g)
    pure[2] = delta  # measure 2 explains everything
    fractions = explained_fractions(delta, pure)
    for d in range(3):
        for k in range(6):
            for j in range(6):
                predicted = pure[k, :, d] + (pure[j, :, d] if j != k else 0)
                expected = 1 - ((delta[:, d] - predicted) ** 2).sum() / (delta[:, d] ** 2).sum()
                assert fractions[d, k, j].item() == pytest.approx(max(expected.item(), 0), abs=1e-5)
    torch.testing.assert_close(fractions[:, 2, 2], torch.ones(3))


def explained(**fractions: float) -> torch.Tensor:
    """A [6, 6] explained-fractions matrix from single fractions; a pair explains their sum."""
    single = torch.tensor([fractions.get(k, 0.0) for k in MEASURES])
    matrix = single[:, None] + single[None, :]
    matrix.diagonal().copy_(single)
    return matrix


def changes(**values: float) -> dict[str, float]:
    return {k: values.get(k, 0.0) for k in MEASURES}


EVEN = torch.full((2, 9), 1 / 18)  # a change spread evenly over the box, as much added as removed


def seen(shares: torch.Tensor = EVEN, steady: int = 100, **values: float) -> Evidence:
    """What 100 naming digits show: each measure (and reach) moves by ``values`` on the first
    ``steady`` digits and the other way on the rest; every digit's change spreads as ``shares`` [2, 9]."""
    sign = torch.where(torch.arange(100) < steady, 1.0, -1.0)
    moved = {k: values.get(k, 0.0) * sign for k in MEASURES}
    return Evidence(changes=moved, reaches={k: moved[k] for k in ("width", "height")}, shares=shares.expand(100, 2, 9))


def named(
    changes: dict[str, float], explained: torch.Tensor, effect: float = 1.0, naming: Evidence | None = None
) -> str:
    """The name ``name_dimension`` gives; the naming digits show ``changes`` on every digit unless told."""
    return name_dimension(changes, explained, effect, naming or seen(**changes)).name


def test_name_dimension_follows_the_numbers():
    assert named(changes(width=3), explained(width=0.6)) == "wider →"
    # A visible change that no measure explains, spread over the whole digit, its measures moving
    # every way: only that the digit changes.
    assert named(changes(width=3), explained(width=0.1), naming=seen(steady=50, width=3)) == WHOLE_DIGIT.name
    # A well explained change too small to see does not name the dimension.
    assert named(changes(width=0.5), explained(width=0.9), 0.1) == BARELY_CHANGES.name
    # Two measures that both explain clearly: both named, the better first; width and height: size.
    assert named(changes(ink=40, x=-2), explained(ink=0.4, x=0.3)) == "thicker strokes and moves left →"
    assert named(changes(width=-2, height=-3), explained(width=0.3, height=0.3)) == "smaller →"
    assert named(changes(width=2, height=3), explained(width=0.3, height=0.3)) == "larger →"
    assert named(changes(x=-1, y=2), explained(x=0.2, y=0.3)) == "moves down and left →"
    # A pair is named only when it explains clearly more than its better half.
    assert named(changes(ink=40, x=-2), explained(ink=0.4, x=0.05)) == "thicker strokes →"


def test_a_name_must_hold_on_nine_in_ten_naming_digits():
    # Explained on average, but the width grows on only 85 of the 100 digits: not "wider".
    assert named(changes(width=3), explained(width=0.6), naming=seen(steady=85, width=3)) == WHOLE_DIGIT.name
    assert named(changes(width=3), explained(width=0.6), naming=seen(steady=90, width=3)) == "wider →"
    # "wider" claims the ink's reach as well as its spread.
    spread_only = seen(width=3)
    spread_only.reaches["width"].neg_()
    assert named(changes(width=3), explained(width=0.6), naming=spread_only) == WHOLE_DIGIT.name


def test_where_no_measure_explains_the_change_the_name_says_where_ink_comes_and_goes():
    bottom = torch.zeros(2, 9)
    bottom[0, 6:9] = 0.2  # 60% of the change adds ink in the bottom third
    bottom[1, :3] = 0.1  # 30% removes it in the top third
    bottom[1, 4] = 0.1
    assert named(changes(width=3), explained(width=0.1), naming=seen(bottom, width=3)) == "the bottom grows →"
    corner = torch.zeros(2, 9)
    corner[1, 2] = 0.7  # 70% removed in the top-right corner, more than 1.5 times any other cell
    corner[0, 6] = 0.3
    assert named(changes(x=-1), explained(x=0.0), naming=seen(corner, x=-1)) == "the top-right shrinks →"
    moved = torch.zeros(2, 9)
    moved[1, [0, 3, 6]] = 0.42 / 3  # removed on the left, as much added on the right: neither side
    moved[0, [2, 5, 8]] = 0.42 / 3  # stands out from the other, both from the middle
    moved[0, [1, 4, 7]] = 0.16 / 3
    assert named(changes(x=1), explained(x=0.0), naming=seen(moved, x=1)) == "ink from left to right →"
    # No place stands out, but the digit grows taller on every digit.
    assert named(changes(height=2), explained(height=0.05)) == "reshapes, taller →"
    # Of two measures that move on every digit, the one whose pure change explains more, though
    # the other moves more (2 visible steps of 0.5 pixels against 1.75 of 20% ink).
    assert named(changes(x=-1, ink=35), explained(ink=0.15)) == "reshapes, thicker strokes →"
    # Places come before a reshaping, and a reshaping's measure must be visible.
    assert named(changes(height=2), explained(height=0.05), naming=seen(bottom, height=2)) == "the bottom grows →"
    assert named(changes(height=0.5), explained(height=0.05)) == WHOLE_DIGIT.name


def test_a_name_whose_claim_fails_on_the_held_out_digits_says_that_it_varies():
    wider = DirectionClaim((("width", 1),))
    assert check_name(wider, seen(steady=80, width=1)) == (wider, 0.8)
    assert check_name(wider, seen(steady=79, width=1)) == (VARIES, pytest.approx(0.79))
    assert check_name(WHOLE_DIGIT, seen(width=1)) == (WHOLE_DIGIT, None)


@pytest.fixture(scope="module")
def shipped() -> dict:
    if not (WEIGHTS / NAMES_FILE).exists():
        pytest.fail(f"{WEIGHTS / NAMES_FILE} is missing: python -m capsnet.studies.dimension_names --weights weights")
    return json.loads((WEIGHTS / NAMES_FILE).read_text(encoding="utf-8"))


def test_the_shipped_names_belong_to_the_shipped_weights(shipped):
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}")
    assert shipped["weights_sha256"] == {"capsnet": sha256(WEIGHTS / "model.safetensors")}
    names = load_dimension_names(WEIGHTS)
    assert len(names.paper) == len(names.spread) == len(names.sd) == 10
    assert all(len(row) == 16 for row in (*names.paper, *names.spread, *names.sd))
    assert all(name.name for row in names.paper for name in row)


def assert_same_entries(actual: list[dict], expected: list[dict]) -> None:
    """Equal names and regions, numbers equal to within one unit of the JSON's rounding."""
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        assert a["dimension"] == e["dimension"]
        assert a["sd"] == pytest.approx(e["sd"], abs=TOLERANCE["sd"])
        for scale in ("paper", "spread"):
            where = f"dimension {e['dimension']}, {scale}"
            for field in ("name", "kind", "held", "claimed"):
                assert a[scale].get(field) == e[scale].get(field), f"{where}, {field}"
            assert a[scale]["effect"] == pytest.approx(e[scale]["effect"], abs=TOLERANCE["effect"]), where
            for field in ("measures", "explained"):
                assert a[scale][field] == pytest.approx(e[scale][field], abs=TOLERANCE[field]), where


@pytest.mark.slow
def test_recomputing_a_class_reproduces_the_shipped_names(shipped, trained_model, mnist_test):
    with torch.inference_mode():
        entries = class_entries(trained_model, mnist_test, 7)
    assert_same_entries(entries, shipped["classes"]["7"])


@pytest.mark.slow
def test_the_script_reproduces_the_shipped_file(shipped, trained_model, mnist_test, data_dir, tmp_path):
    main(["--weights", str(WEIGHTS), "--data-dir", str(data_dir), "--out", str(tmp_path / NAMES_FILE)])
    written = json.loads((tmp_path / NAMES_FILE).read_text(encoding="utf-8"))
    assert {k: v for k, v in written.items() if k != "classes"} == {k: v for k, v in shipped.items() if k != "classes"}
    assert written["classes"].keys() == shipped["classes"].keys()
    for digit, entries in shipped["classes"].items():
        assert_same_entries(written["classes"][digit], entries)


def test_show_prints_the_largest_effects_of_each_digit_first_with_how_often_each_held(shipped, capsys):
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}")
    main(["--weights", str(WEIGHTS), "--show", "2", "7"])
    names, kinds = capsys.readouterr().out.strip().split("\n\n")
    rows = [line.split(" | ") for line in names.splitlines()[2:]]
    assert [row[0] for row in rows] == ["| 2", "| 7"]
    cells = rows[1][1].removesuffix(" |").split("; d")
    assert len(cells) == 16
    largest = max(shipped["classes"]["7"], key=lambda entry: entry["paper"]["effect"])
    held = largest["paper"]["held"]
    name = largest["paper"]["name"].removesuffix(" →")
    assert cells[0] == f"d{largest['dimension'] + 1} {name}" + ("" if held in (None, 1) else f" ({round(100 * held)})")
    rates = [entry["paper"]["held"] for entry in shipped["classes"]["7"]]
    assert len(re.findall(r" \((\d+)\)", rows[1][1])) == sum(rate not in (None, 1) for rate in rates)
    # The count of each kind of name, for each range: 160 in all, the silent ones counted again.
    for row in kinds.splitlines()[2:]:
        counts = [int(cell) for cell in row.strip("| ").split(" | ")[1:-1]]
        assert sum(counts[:-1]) == 160, row
        assert counts[-1] == sum(counts[-4:-1]), row


def test_by_effect_orders_the_dimensions_largest_first(tmp_path):
    folder = names_folder(tmp_path)
    names = load_dimension_names(folder)
    effects = [name.effect for name in names.paper[0]]
    order = names.by_effect(0)
    assert sorted(order) == list(range(3))
    assert [effects[d] for d in order] == sorted(effects, reverse=True)
    assert names.by_effect(0, "spread") == (0, 1, 2)
    assert names.spread_range == 3.0 and names.sd[1] == (0.1, 0.2, 0.3)
    assert names.paper[1][2].held == 0.9 and names.spread[1][2].held is None
    assert names.paper[1][2].kind == "measure"


def names_folder(tmp_path: Path, sha: str | None = None) -> Path:
    """A folder with a stand-in model.safetensors and a small dimensions.json (2 classes x 3
    dimensions) that belongs to it, unless ``sha`` says otherwise."""
    folder = tmp_path / "weights"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"stand-in weights")

    def entry(d: int, effect: float) -> dict:
        return {
            "dimension": d,
            "sd": (0.1, 0.2, 0.3)[d],
            "paper": {"name": f"name {d}", "kind": "measure", "held": 0.9, "effect": effect},
            "spread": {"name": f"spread name {d}", "kind": "whole digit", "held": None, "effect": 1.0 - d / 10},
        }

    names = {
        "weights_sha256": {"capsnet": sha or sha256(folder / "model.safetensors")},
        "spread_range_sd": 3.0,
        "classes": {str(c): [entry(d, e) for d, e in enumerate((0.2, 0.9, 0.5))] for c in range(2)},
    }
    (folder / NAMES_FILE).write_text(json.dumps(names), encoding="utf-8")
    return folder


def expect_error(folder: Path, *fragments: str) -> None:
    with pytest.raises(ResultsError) as raised:
        load_dimension_names(folder)
    assert isinstance(raised.value, WeightsError)
    message = str(raised.value)
    for fragment in (*fragments, f"python -m capsnet.studies.dimension_names --weights {folder}"):
        assert fragment in message, message


def test_a_missing_names_file_is_a_clear_error(tmp_path):
    folder = names_folder(tmp_path)
    (folder / NAMES_FILE).unlink()
    expect_error(folder, f"{folder / NAMES_FILE} is missing")


def test_names_from_other_weights_are_a_clear_error(tmp_path):
    folder = names_folder(tmp_path, sha="0" * 64)
    expect_error(folder, "measured with other weights", "000000000000")


def test_names_without_weights_to_check_them_against_are_an_error(tmp_path):
    folder = names_folder(tmp_path)
    (folder / "model.safetensors").unlink()
    expect_error(folder, "model.safetensors is missing")


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("{not json", "is not valid JSON"),
        ("[]", "must hold a JSON object"),
        (
            '{"weights_sha256": {"capsnet": "SHA"}, "spread_range_sd": 3, "classes": {"0": [{"dimension": 1}]}}',
            "in order",
        ),
        (
            '{"weights_sha256": {"capsnet": "SHA"}, "spread_range_sd": 3, '
            '"classes": {"0": [{"dimension": 0, "sd": 1}]}}',
            "KeyError: 'paper'",
        ),
    ],
)
def test_a_malformed_names_file_is_a_clear_error(tmp_path, text, fragment):
    folder = names_folder(tmp_path)
    (folder / NAMES_FILE).write_text(text.replace("SHA", sha256(folder / "model.safetensors")), encoding="utf-8")
    expect_error(folder, "dimensions.json", fragment)


def test_the_shipped_names_fail_against_other_weights(tmp_path):
    if not (WEIGHTS / NAMES_FILE).exists():
        pytest.skip(f"no {NAMES_FILE} in {WEIGHTS}")
    folder = tmp_path / "weights"
    folder.mkdir()
    shutil.copy(WEIGHTS / NAMES_FILE, folder)
    (folder / "model.safetensors").write_bytes(b"retrained weights")
    expect_error(folder, "measured with other weights")
