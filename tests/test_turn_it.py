"""The Turn-it section: the sliders' value checked, each change applied as capsnet.data.affine.transform
applies it, both networks' readings and the capsule's move, the rotation sweep, the runner-up in
the reading panel; forged values answered in the turn panel, in process and over HTTP. The numbers
here are those the page draws (turn_views.py); what it draws of them, tests/js/turn_view.test.js,
sweep_view.test.js and tests/test_turn_reader.py."""

import json
import math
import re

import numpy as np
import pytest
import torch

from capsnet.data.affine import SWEEPS, AffineChange, transform
from capsnet.shipping.pretrained import WeightsError
from capsnet.studies import robustness
from capsnet.studies.statistics import Difference
from harness.digit_strokes import pad_value, strokes
from harness.page_pictures import value_picture
from harness.page_protocol import Page, outputs_of, page_event
from playground import networks, transform_sliders, turn_it, turn_views
from playground.dimensions_section import PAPER
from playground.reading import Reading

UNCHANGED = {**transform_sliders.UNCHANGED, "revision": 1}


def sliders(revision: int = 1, **change) -> dict:
    """The transform sliders' value as the page sends it."""
    return {**transform_sliders.UNCHANGED, **change, "revision": revision}


def ink(levels: str) -> np.ndarray:
    """A picture of a panel's value (views.ink_base64) as ink in [0, 1] (MNIST's polarity)."""
    return 1 - value_picture(levels) / 255


# The sliders' value, checked (no network needed).


def test_the_page_s_sliders_lie_within_the_change_s_ranges_around_no_change():
    assert {slider.field for slider in transform_sliders.SLIDERS} == set(transform_sliders.FIELDS)
    for slider in transform_sliders.SLIDERS:
        low, high = AffineChange.RANGES[slider.field]
        assert low <= slider.low < transform_sliders.UNCHANGED[slider.field] < slider.high <= high
        middle = transform_sliders.UNCHANGED[slider.field]
        assert slider.high - middle == pytest.approx(middle - slider.low)


def test_the_sliders_reach_as_far_as_the_measurement_changed_mnist_s_digits():
    assert robustness.SWEEPS is SWEEPS  # the study's steps are the page's
    for slider in transform_sliders.SLIDERS:
        values, _ = SWEEPS[slider.field]
        ends = transform_sliders.FULL_TURN if slider.field == "rotation" else (values[0], values[-1])
        assert (slider.low, slider.high) == ends
    np.testing.assert_array_equal(turn_it.SWEEP_ANGLES, SWEEPS["rotation"][0])


def test_a_value_the_page_sends_is_its_change_and_revision():
    change, revision = transform_sliders.change_of(sliders(7, rotation=30, scale=1.2, shift_y=-2.5))
    assert change == AffineChange(rotation=30, scale=1.2, shift_y=-2.5) and revision == 7


FORGED = {
    "a-string": ("turn it", "an object with keys"),
    "a-list": ([30, 1], "an object with keys"),
    "null": (None, "an object with keys"),
    "missing-field": ({"rotation": 30, "revision": 1}, "missing ['scale'"),
    "unknown-key": ({**UNCHANGED, "colour": 1}, "unknown ['colour']"),
    "rotation-out-of-range": ({**UNCHANGED, "rotation": 500}, "rotation = 500 is outside its range"),
    "scale-zero": ({**UNCHANGED, "scale": 0}, "scale = 0 is outside its range"),
    "stretch-negative": ({**UNCHANGED, "stretch_x": -1}, "stretch_x = -1 is outside its range"),
    "shift-beyond-the-frame": ({**UNCHANGED, "shift_y": 40}, "shift_y = 40 is outside its range"),
    "nan": ({**UNCHANGED, "shear": math.nan}, "shear must be a finite number"),
    "infinity": ({**UNCHANGED, "rotation": -math.inf}, "rotation must be a finite number"),
    "a-string-field": ({**UNCHANGED, "rotation": "30"}, "rotation must be a finite number"),
    "a-bool-field": ({**UNCHANGED, "scale": True}, "scale must be a finite number"),
    "a-list-field": ({**UNCHANGED, "shift_x": [1]}, "shift_x must be a finite number"),
    "an-integer-too-large": (
        {**UNCHANGED, "rotation": 10**400},
        "rotation = 1000000000000000000000000000000000000000 is outside its range",
    ),
    "revision-negative": ({**UNCHANGED, "revision": -1}, "revision must be an integer"),
    "revision-a-float": ({**UNCHANGED, "revision": 1.5}, "revision must be an integer"),
    "revision-null": ({**UNCHANGED, "revision": None}, "revision must be an integer"),
}


@pytest.mark.parametrize("value, reason", FORGED.values(), ids=FORGED.keys())
def test_a_forged_value_is_refused_with_its_reason(value, reason):
    with pytest.raises(transform_sliders.TurnError, match=re.escape(reason)):
        transform_sliders.change_of(value)


def test_the_sweep_s_numbers_are_the_page_s_plain_json():
    angles = np.array([-20, -10, 0, 10, 20])
    sweep = turn_views.Sweep(
        7,
        angles,
        np.array([0.2, 0.6, 0.9, 0.7, 0.4], dtype=np.float32),
        np.array([1, 7, 7, 7, 7]),
        np.array([0.1, 0.9, 1.0, 0.3, 0.2], dtype=np.float32),
        np.array([1, 7, 7, 2, 2]),
    )
    numbers = turn_views.sweep_numbers(sweep, 12)
    assert json.loads(json.dumps(numbers)) == numbers
    assert numbers["reading"] == "12" and numbers["digit"] == 7 and numbers["angles"] == [-20, -10, 0, 10, 20]
    assert numbers["readings"] == [1, 7, 7, 7, 7] and numbers["cnn_readings"] == [1, 7, 7, 2, 2]
    np.testing.assert_array_equal(numbers["lengths"], sweep.lengths)
    np.testing.assert_array_equal(numbers["probabilities"], sweep.probabilities)


def test_a_missing_cnn_names_its_own_variable_and_fix(tmp_path):
    with pytest.raises(WeightsError) as raised:
        networks.load_cnn(str(tmp_path / "nowhere"))
    message = str(raised.value)
    assert "nowhere does not exist" in message and "CAPSNET_CNN_WEIGHTS" in message and "--model cnn" in message
    assert "CAPSNET_WEIGHTS " not in message


# Both networks on the turned drawing (the app's networks).


@pytest.fixture(scope="module")
def reading(app):
    return app.READING.read_drawing(pad_value(strokes(7, 70, 30, 140, 220)))[0]


CHANGES = {slider.field: {slider.field: slider.high} for slider in transform_sliders.SLIDERS}
CHANGES.update(
    low_rotation={"rotation": -45},
    all_at_once={
        "rotation": 20,
        "scale": 0.8,
        "shear": 0.3,
        "stretch_x": 1.2,
        "stretch_y": 0.9,
        "shift_x": 2,
        "shift_y": -1.5,
    },
)


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_each_change_turns_the_network_input_as_transform_does(app, reading, change):
    expected = transform(torch.from_numpy(reading.image), AffineChange(**change)).numpy()
    assert np.abs(expected - reading.image).mean() > 0.01, "the change changes the digit"
    turned = app.TURN_IT.turned(reading, AffineChange(**change))
    np.testing.assert_array_equal(turned.image, expected)
    panel = app.TURN_IT.turn(reading, sliders(3, **change))
    assert np.abs(ink(panel["image"]) - expected).max() <= 0.5 / 255 + 1e-6  # in grey levels, rounded
    assert panel["revision"] == 3


def test_both_networks_read_the_turned_digit(app, reading):
    change = AffineChange(rotation=25, stretch_x=0.8)
    turned = app.TURN_IT.turned(reading, change)
    image = torch.from_numpy(turned.image)[None, None]
    with torch.inference_mode():
        capsnet, cnn = app.NETWORKS.capsnet(image), app.NETWORKS.cnn(image)
    np.testing.assert_allclose(turned.lengths, capsnet.lengths[0].numpy(), rtol=1e-5, atol=1e-6)
    assert turned.winner == int(capsnet.prediction[0])
    np.testing.assert_allclose(turned.reconstruction, capsnet.reconstruction[0, 0].numpy(), atol=1e-6)
    moved = capsnet.capsules[0, reading.winner] - reading.capsules[reading.winner]
    np.testing.assert_allclose(turned.moved, moved.numpy(), atol=1e-6)
    assert turned.probabilities.sum() == pytest.approx(1.0, abs=1e-5) and (turned.probabilities >= 0).all()
    assert turned.cnn_winner == int(np.argmax(turned.probabilities)) == int(cnn.prediction[0])
    panel = app.TURN_IT.turn(reading, sliders(rotation=25, stretch_x=0.8))
    assert json.loads(json.dumps(panel)) == panel  # plain JSON, as the page gets it
    assert (panel["winner"], panel["cnn_winner"]) == (turned.winner, turned.cnn_winner)
    np.testing.assert_array_equal(panel["lengths"], turned.lengths)
    np.testing.assert_array_equal(panel["probabilities"], turned.probabilities)
    np.testing.assert_array_equal(panel["moved"], turned.moved)
    assert panel["drawn"] == reading.winner
    assert panel["drawn_length"] == pytest.approx(float(reading.lengths[reading.winner]))
    assert np.abs(ink(panel["reconstruction"]) - turned.reconstruction).max() <= 0.5 / 255 + 1e-6


def test_unturned_the_pose_stays_and_the_reading_is_the_drawing_s(app, reading):
    turned = app.TURN_IT.turned(reading, AffineChange())
    np.testing.assert_allclose(turned.moved, 0, atol=1e-5)
    assert turned.winner == reading.winner
    np.testing.assert_allclose(turned.lengths, reading.lengths, atol=1e-5)


def test_the_pose_bars_are_named_as_measured(app, reading):
    (panel,) = [block for block in app.demo.blocks.values() if getattr(block, "elem_id", None) == "turn-panel"]
    labels = panel.props["labels"]  # the page names each digit's bars with them
    assert labels[reading.winner] == app.TURN_IT.labels(reading.winner)
    assert labels[reading.winner] == [
        app.CAPSULE_DIMENSIONS.dimension_label(reading.winner, d, PAPER)
        for d in range(app.NETWORKS.capsnet.config.digit_capsule_dim)
    ]


def test_the_sweep_turns_the_drawing_from_minus_to_plus_90_degrees(app, reading):
    sweep = app.TURN_IT.sweep(reading)
    assert sweep.digit == reading.winner and sweep.angles[0] == -90 and sweep.angles[-1] == 90
    middle = int(np.flatnonzero(sweep.angles == 0)[0])
    assert sweep.readings[middle] == reading.winner
    assert sweep.lengths[middle] == pytest.approx(float(reading.lengths[reading.winner]), abs=1e-5)
    k = int(np.flatnonzero(sweep.angles == 40)[0])
    one = app.TURN_IT.turned(reading, AffineChange(rotation=40))
    assert sweep.lengths[k] == pytest.approx(float(one.lengths[reading.winner]), abs=1e-5)
    assert sweep.probabilities[k] == pytest.approx(float(one.probabilities[reading.winner]), abs=1e-5)
    assert sweep.readings[k] == one.winner and sweep.cnn_readings[k] == one.cnn_winner
    view = app.TURN_IT.sweep_view(reading)
    assert json.loads(json.dumps(view)) == view  # plain JSON, as the page gets it
    assert view["reading"] == str(reading.revision) and view["digit"] == reading.winner
    assert view["angles"] == turn_it.SWEEP_ANGLES.tolist()
    np.testing.assert_array_equal(view["lengths"], sweep.lengths)
    assert view["readings"] == sweep.readings.tolist() and view["cnn_readings"] == sweep.cnn_readings.tolist()


def test_after_clear_the_section_asks_for_a_digit(app):
    assert app.TURN_IT.show(None, UNCHANGED) == (None, None)  # the page's renderers ask for one


def test_a_slider_of_a_reading_the_server_dropped_asks_to_draw_again(app):
    shown = app.TURN_IT.turn(None, sliders(rotation=10))
    assert shown.keys() == {"message"} and "draw it again" in shown["message"]


@pytest.mark.parametrize("value, reason", FORGED.values(), ids=FORGED.keys())
def test_a_forged_value_gets_its_reason_in_the_turn_panel(app, reading, value, reason):
    for event in (app.TURN_IT.turn, app.TURN_IT.follow):
        shown = event(reading, value)
        assert shown.keys() == {"message"} and shown["message"].startswith("Cannot turn the digit")
        assert reason in shown["message"] and "Traceback" not in shown["message"]


def test_the_runner_up_is_the_second_longest_capsule_redrawn(app, reading):
    second = int(np.argsort(reading.lengths)[-2])
    assert reading.runner_up == second != reading.winner
    panel = app.READING.panel(reading)
    assert panel["runner_up"] == second
    expected = Reading.reconstruction(reading, second, [0.0] * app.NETWORKS.capsnet.config.digit_capsule_dim).numpy()
    runner_up = ink(panel["runner_up_reconstruction"])
    assert np.abs(runner_up - expected).max() <= 0.5 / 255 + 1e-6
    assert np.abs(runner_up - ink(panel["reconstruction"])).mean() > 0.01


# Over HTTP, as the page sends the events (they skip the queue).


def last_output(app, url: str, fn, data: list, session: str) -> str:
    """The last output of the event that runs ``fn``, sent as the page sends it."""
    return outputs_of(page_event(app, url, fn, data, session))[-1]


@pytest.mark.server
def test_over_http_a_move_turns_the_drawing_and_a_forged_one_disturbs_nothing(app, url):
    session = "turn-it"
    four = pad_value(strokes(4, 60, 30, 160, 220))
    drawn = last_output(app, url, app.read_drawing, Page.of(app).drawing(four), session)
    assert drawn["winner"] == 4
    turned = last_output(app, url, app.TURN_IT.turn, [None, sliders(2, rotation=30), None], session)
    assert turned["revision"] == 2 and turned["drawn"] == 4 and len(turned["probabilities"]) == 10
    for value, reason in [
        (sliders(3, rotation=720), "outside its range"),
        ("x", "an object with keys"),
        ({**UNCHANGED, "scale": None}, "scale must be a finite number"),
    ]:
        shown = last_output(app, url, app.TURN_IT.turn, [None, value, None], session)
        assert shown["message"].startswith("Cannot turn the digit") and reason in shown["message"]
    again = last_output(app, url, app.TURN_IT.turn, [None, sliders(4, rotation=30), None], session)
    assert {**again, "revision": 2} == turned  # the reading is still there
    nan = last_output(
        app, url, app.TURN_IT.turn, [None, sliders(5, rotation=float("nan")), None], session
    )  # JSON's NaN
    assert "rotation must be a finite number" in nan["message"]


@pytest.mark.server
def test_over_http_the_section_follows_the_reading_when_asked(app, url):
    session = "turn-it-show"
    last_output(
        app, url, app.read_drawing, Page.of(app).drawing(pad_value(strokes(1, 100, 30, 60, 220), revision=9)), session
    )
    panel, sweep = outputs_of(page_event(app, url, app.TURN_IT.show, [None, sliders(rotation=20), None], session))
    assert panel["revision"] == 1 and panel["drawn"] == 1
    assert sweep["digit"] == 1 and sweep["reading"] == "9"


# The measurement over MNIST's test digits (capsnet.studies.robustness), read for the app's weights.


@pytest.fixture(scope="module")
def measured_folder(app, mnist_test, tmp_path_factory):
    """A CapsNet folder (the app's weights, linked) with a robustness.json that capsnet.studies.robustness
    measured on 20 test digits, turned only."""
    from pathlib import Path

    from capsnet.shipping.saving import sha256
    from capsnet.studies.robustness import RESULTS_FILE, SWEEPS, first_digits, measure
    from capsnet.studies.statistics import to_json

    folder = tmp_path_factory.mktemp("measured")
    weights = Path(app.NETWORKS.weights) / "model.safetensors"
    (folder / "model.safetensors").symlink_to(weights.resolve())
    images, labels = first_digits(mnist_test, 2)
    results = {
        "weights_sha256": {
            "capsnet": sha256(weights),
            "cnn": sha256(Path(app.NETWORKS.cnn_weights) / "model.safetensors"),
        },
        "digit_count": len(images),
        **measure(
            app.NETWORKS.capsnet,
            app.NETWORKS.cnn,
            images,
            labels,
            {"rotation": SWEEPS["rotation"]},
            transforms_per_digit=1,
        ),
    }
    (folder / RESULTS_FILE).write_text(to_json(results), encoding="utf-8")
    return folder, results


@pytest.mark.slow
def test_the_mnist_curve_and_finding_come_from_the_measurement(app, measured_folder):
    folder, results = measured_folder
    curve, finding = turn_it.measured(networks.robustness_results(str(folder), app.NETWORKS.cnn_weights))
    steps = results["sweeps"]["rotation"]["steps"]
    np.testing.assert_array_equal(curve.angles, [step["value"] for step in steps])
    np.testing.assert_array_equal(curve.capsnet, [step["capsnet"]["accuracy"] for step in steps])
    np.testing.assert_array_equal(curve.cnn, [step["cnn"]["accuracy"] for step in steps])
    assert curve.images == 20
    affnist = results["affnist"]
    affnist_lead = turn_it.lead(Difference.of(affnist["paired"]))
    assert (
        f"the CapsNet reads **{turn_it.percent(affnist['capsnet']['accuracy'])}**, the CNN "
        f"**{turn_it.percent(affnist['cnn']['accuracy'])}** ({affnist_lead};"
    ) in finding
    assert f"({turn_it.lead(Difference.of(results['sweeps']['rotation']['mean_paired']))}). The curves" in finding
    assert (
        turn_it.lead(Difference(0.0091, 0.001, 0.019))
        == "CapsNet − CNN in points, with its 95% interval: +0.9 [+0.1, +1.9]"
    )
    assert turn_it.lead(Difference(0.0, -0.0012, -0.0003)).endswith("+0.0 [-0.1, -0.0]")  # below zero
    mnist = turn_views.curve_numbers(curve)  # what the page draws beside each sweep
    assert mnist["angles"] == [step["value"] for step in steps] and mnist["images"] == 20
    assert mnist["capsnet"] == [step["capsnet"]["accuracy"] for step in steps]
    assert mnist["cnn"] == [step["cnn"]["accuracy"] for step in steps]


@pytest.mark.slow
def test_a_measurement_of_other_weights_is_not_shown(app, measured_folder, tmp_path):
    folder, _ = measured_folder
    curve, finding = turn_it.measured(networks.robustness_results(str(folder), str(tmp_path)))  # no CNN there
    assert curve is None and "Not measured for these weights" in finding and "missing" in finding
    none_there = networks.robustness_results(str(tmp_path), app.NETWORKS.cnn_weights)
    curve, finding = turn_it.measured(none_there)
    assert curve is None and "robustness.json is missing" in finding


def test_weights_without_a_measurement_say_so_in_the_section_with_the_command_that_makes_one(tmp_path):
    run, cnn = tmp_path / "run", tmp_path / "cnn"  # a train.py run's folder, served with CAPSNET_WEIGHTS
    curve, finding = turn_it.measured(networks.robustness_results(str(run), str(cnn)))
    assert curve is None and f"{run / 'robustness.json'} is missing" in finding
    assert f"`python -m capsnet.studies.robustness --data-dir DATA --capsnet {run} --cnn {cnn}`" in finding
    assert turn_views.curve_numbers(curve) is None  # the chart's place points to the finding above it:
    assert "not measured for these weights" in turn_it.NO_CURVE and '"What we measured" above' in turn_it.NO_CURVE
