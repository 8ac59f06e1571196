"""The Turn-it section: its sliders within the ranges the measurement changed MNIST's digits over,
the pose bars' names, MNIST's curve and what the measurement found. The turns themselves: the
page's graphs (tests/test_page_network.py), the server's answers (tests/test_answers.py), what the
page draws of them (tests/js/turn_view.test.js, sweep_view.test.js and tests/test_turn_reader.py)."""

import numpy as np
import pytest

from capsnet.data.affine import SWEEPS, AffineChange
from capsnet.shipping.pretrained import WeightsError
from capsnet.studies import robustness
from capsnet.studies.statistics import Difference
from playground import networks, transform_sliders, turn_it, turn_views
from playground.dimensions_section import PAPER

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


def test_a_missing_cnn_names_its_own_variable_and_fix(tmp_path):
    with pytest.raises(WeightsError) as raised:
        networks.load_cnn(str(tmp_path / "nowhere"))
    message = str(raised.value)
    assert "nowhere does not exist" in message and "CAPSNET_CNN_WEIGHTS" in message and "--model cnn" in message
    assert "CAPSNET_WEIGHTS " not in message


# What the page is given to draw the section with (the app's networks).


@pytest.mark.parametrize("digit", [3, 7])
def test_the_pose_bars_are_named_as_measured(app, digit):
    (panel,) = [block for block in app.demo.blocks.values() if getattr(block, "elem_id", None) == "turn-panel"]
    labels = panel.props["labels"]  # the page names each digit's bars with them
    assert labels[digit] == app.TURN_IT.labels(digit)
    assert labels[digit] == [
        app.CAPSULE_DIMENSIONS.dimension_label(digit, d, PAPER)
        for d in range(app.NETWORKS.capsnet.config.digit_capsule_dim)
    ]


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
