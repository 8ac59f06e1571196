"""Naming the capsule dimensions: synthetic decoders whose answer is known, the shipped
dimensions.json against the shipped weights, and the loader's errors."""

import json
import shutil
from pathlib import Path

import pytest
import torch

from bench.support.paths import WEIGHTS
from capsnet import WeightsError
from capsnet.dimensions import SWEEP
from capsnet.saving import sha256
from capsnet.studies.dimension_names import (
    MEASURES,
    class_entries,
    explained_fractions,
    main,
    name_dimension,
    region_name,
    sweep_dimensions,
)
from capsnet.studies.dimension_names_file import NAMES_FILE, load_dimension_names
from capsnet.studies.results_file import ResultsError

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


def synthetic_capsules() -> torch.Tensor:
    """20 digits' capsules [20, 10, 16], small and different, as a trained network's would be."""
    return 0.05 * torch.randn(20, 10, 16, generator=torch.Generator().manual_seed(0))


NAMES = (  # each measure, and its name for a dimension that grows it and for one that shrinks it
    ("width", "wider →", "narrower →"),
    ("ink", "thicker strokes →", "thinner strokes →"),
    ("x", "moves right →", "moves left →"),
    ("y", "moves down →", "moves up →"),
    ("slant", "slants right →", "slants left →"),
    ("local", "local change: top-left", "local change: top-left"),
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
    sweeps = sweep_dimensions(RingDecoder(what, sign), synthetic_capsules(), DIGIT, PAPER)
    assert len(sweeps) == 16
    assert sweeps[DIMENSION].name == name
    assert sweeps[DIMENSION].effect > 0.25
    if what != "local":
        assert sweeps[DIMENSION].explained[what] > 0.7
    for d, sweep in enumerate(sweeps):
        if d != DIMENSION:
            assert sweep.name == "barely changes", d
            assert sweep.effect == 0, d
            assert all(abs(value) < 1e-4 for value in sweep.changes.values()), d


@pytest.mark.slow
def test_the_measured_changes_are_the_decoders():
    sweeps = sweep_dimensions(RingDecoder("x", 1), synthetic_capsules(), DIGIT, PAPER)
    assert sweeps[DIMENSION].changes["x"] == pytest.approx(8 * 0.5, abs=1e-3)  # 8 pixels per unit, over 0.5
    sweeps = sweep_dimensions(RingDecoder("ink", 1), synthetic_capsules(), DIGIT, 0.25 * PAPER)
    assert sweeps[DIMENSION].changes["ink"] == pytest.approx(25, rel=0.1)  # strokes 1.75 .. 2.25 wide
    assert sweeps[DIMENSION].name == "thicker strokes →"
    sweeps = sweep_dimensions(RingDecoder("x", 1), synthetic_capsules(), DIGIT, 0.02 * PAPER)
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


def test_name_dimension_follows_the_numbers():
    assert name_dimension(changes(width=3), explained(width=0.6), 1.0, "whole digit") == "wider →"
    # A visible change that no measure explains is named by where it happens, or not at all.
    assert name_dimension(changes(width=3), explained(width=0.1), 1.0, "bottom") == "local change: bottom"
    assert name_dimension(changes(width=3), explained(width=0.1), 1.0, "whole digit") == "changes shape: whole digit"
    # A well explained change too small to see does not name the dimension.
    assert name_dimension(changes(width=0.5), explained(width=0.9), 0.1, "whole digit") == "barely changes"
    # Two measures that both explain clearly: both named, the better first; width and height: size.
    assert (
        name_dimension(changes(ink=40, x=-2), explained(ink=0.4, x=0.3), 1.0, "whole digit")
        == "thicker strokes and moves left →"
    )
    assert (
        name_dimension(changes(width=-2, height=-3), explained(width=0.3, height=0.3), 1.0, "whole digit")
        == "smaller →"
    )
    assert (
        name_dimension(changes(width=2, height=3), explained(width=0.3, height=0.3), 1.0, "whole digit") == "larger →"
    )
    assert name_dimension(changes(x=-1, y=2), explained(x=0.2, y=0.3), 1.0, "whole digit") == "moves down and left →"
    # A pair is named only when it explains clearly more than its better half.
    assert name_dimension(changes(ink=40, x=-2), explained(ink=0.4, x=0.05), 1.0, "whole digit") == "thicker strokes →"


def test_region_name_needs_a_third_of_the_box_to_hold_most_of_the_change():
    assert region_name(torch.full((3, 3), 1 / 9)) == "whole digit"
    top_left = torch.full((3, 3), 0.02)
    top_left[0, 0] = 0.84
    assert region_name(top_left) == "top-left"
    bottom_row = torch.tensor([[0.05, 0.05, 0.05], [0.05, 0.05, 0.05], [0.2, 0.3, 0.2]])
    assert region_name(bottom_row) == "bottom"


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
            assert a[scale]["name"] == e[scale]["name"], where
            assert a[scale]["region"] == e[scale]["region"], where
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


def test_show_prints_the_largest_effects_of_each_digit_first(shipped, capsys):
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}")
    main(["--weights", str(WEIGHTS), "--show", "2", "7"])
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines()[2:]]
    assert [row[0] for row in rows] == ["| 2"] * 5 + ["| 7"] * 5
    largest = max(shipped["classes"]["7"], key=lambda entry: entry["paper"]["effect"])
    assert rows[5][1:3] == [f"d{largest['dimension'] + 1}", largest["paper"]["name"]]


def test_by_effect_orders_the_dimensions_largest_first(tmp_path):
    folder = names_folder(tmp_path)
    names = load_dimension_names(folder)
    effects = [name.effect for name in names.paper[0]]
    order = names.by_effect(0)
    assert sorted(order) == list(range(3))
    assert [effects[d] for d in order] == sorted(effects, reverse=True)
    assert names.by_effect(0, "spread") == (0, 1, 2)
    assert names.spread_range == 3.0 and names.sd[1] == (0.1, 0.2, 0.3)


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
            "paper": {"name": f"name {d}", "effect": effect},
            "spread": {"name": f"spread name {d}", "effect": 1.0 - d / 10},
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
