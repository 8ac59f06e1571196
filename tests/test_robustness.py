"""The CapsNet against the CNN under affine changes: the measurement end to end on a few digits,
robustness.json against the shipped weights, and its reproduction."""

import json
from pathlib import Path

import pytest
import torch

from capsnet import CapsNet, load_model
from capsnet.baseline import BaselineCNN
from capsnet.data.affine import AffineChange
from capsnet.shipping.saving import sha256
from capsnet.studies.results_file import ResultsError
from capsnet.studies.robustness import (
    AFFNIST,
    MEASURES,
    PAIRED_MEASURES,
    SWEEPS,
    affnist_matrices,
    capsnet_readings,
    first_digits,
    main,
    measure,
    measure_change,
    steps_table,
    summary_table,
)
from capsnet.studies.robustness_file import RESULTS_FILE, load_results
from capsnet.studies.statistics import paired, points, to_json
from harness.paths import WEIGHTS

CNN_WEIGHTS = WEIGHTS / "cnn"
CAPSNET_KEYS = {
    "accuracy",
    "winner_length",
    "true_length",
    "pose_error",
    "pose_correlation",
    "unmoved_error",
    "unmoved_correlation",
}
CNN_KEYS = {"accuracy", "winner_probability", "true_probability"}


@pytest.fixture(scope="module")
def networks() -> tuple[CapsNet, BaselineCNN]:
    """A randomly initialised CapsNet and CNN, in eval mode."""
    torch.manual_seed(0)
    return CapsNet().eval(), BaselineCNN().eval()


@pytest.fixture(scope="module")
def few_digits(mnist_test) -> tuple[torch.Tensor, torch.Tensor]:
    return first_digits(mnist_test, 1)  # one of each class


def test_first_digits_takes_the_first_of_each_class_in_test_order(mnist_test):
    images, labels = first_digits(mnist_test, 3)
    assert images.shape == (30, 1, 28, 28) and images.dtype == torch.float32
    assert 0 <= images.min() and images.max() <= 1
    assert torch.bincount(labels).tolist() == [3] * 10
    first_sevens = (mnist_test.targets == 7).nonzero()[:3, 0]
    torch.testing.assert_close(images[labels == 7], mnist_test.data[first_sevens].unsqueeze(1).float() / 255)


def test_an_unchanged_digit_scores_a_perfect_pose_and_the_networks_own_accuracy(networks, few_digits):
    capsnet, cnn = networks
    images, labels = few_digits
    with torch.inference_mode():
        reconstructions = capsnet(images).reconstruction
        measured, right = measure_change(capsnet, cnn, images, labels, reconstructions, AffineChange().matrix())
        capsnet_accuracy = (capsnet(images).prediction == labels).double().mean().item()
        cnn_accuracy = (cnn(images).prediction == labels).double().mean().item()
    assert measured["capsnet"].keys() == CAPSNET_KEYS and measured["cnn"].keys() == CNN_KEYS
    assert measured["capsnet"]["accuracy"] == pytest.approx(capsnet_accuracy, abs=1e-4)
    assert measured["cnn"]["accuracy"] == pytest.approx(cnn_accuracy, abs=1e-4)
    assert measured["capsnet"]["pose_error"] == measured["capsnet"]["unmoved_error"] == 0
    assert measured["capsnet"]["pose_correlation"] == measured["capsnet"]["unmoved_correlation"] == 1
    assert right.shape == (2, len(images)) and right.float().mean(1).tolist() == pytest.approx(
        [capsnet_accuracy, cnn_accuracy]
    )
    only = measured["paired"]
    assert only["only_capsnet"] == int((right[0] & ~right[1]).sum())
    assert only["only_cnn"] == int((right[1] & ~right[0]).sum())
    assert only["difference"] == pytest.approx(capsnet_accuracy - cnn_accuracy, abs=1e-4)


def test_a_change_that_the_decoder_cannot_follow_scores_as_unmoved(networks, few_digits):
    """A random network's decoder draws the same blur whatever the input: its pose does not follow."""
    capsnet, cnn = networks
    images, labels = few_digits
    with torch.inference_mode():
        reconstructions = capsnet(images).reconstruction
        measured = measure_change(
            capsnet, cnn, images, labels, reconstructions, AffineChange(shift_x=5, shift_y=-5).matrix()
        )[0]["capsnet"]
    assert measured["unmoved_correlation"] < 0.9
    assert measured["pose_correlation"] == pytest.approx(measured["unmoved_correlation"], abs=0.05)
    assert measured["pose_error"] == pytest.approx(measured["unmoved_error"], rel=0.05)


@pytest.mark.slow
def test_the_measurement_runs_end_to_end_with_the_right_structure(networks, few_digits):
    capsnet, cnn = networks
    images, labels = few_digits
    sweeps = {name: (values[::4], unit) for name, (values, unit) in SWEEPS.items()}  # a few steps of each
    results = measure(capsnet, cnn, images, labels, sweeps, transforms_per_digit=2)
    assert results.keys() == {"untransformed", "sweeps", "affnist"}
    assert results["sweeps"].keys() == SWEEPS.keys()
    for name, sweep in results["sweeps"].items():
        assert sweep["unit"] == SWEEPS[name][1]
        assert [step["value"] for step in sweep["steps"]] == sweeps[name][0]
        leads = [step["capsnet"]["accuracy"] - step["cnn"]["accuracy"] for step in sweep["steps"]]
        mean_lead = sum(leads) / len(leads)
        assert sweep["mean_paired"]["difference"] == pytest.approx(mean_lead, abs=1e-3)
        for step in sweep["steps"]:
            assert step.keys() == {"value", "capsnet", "cnn", "paired"}
            assert step["paired"].keys() == PAIRED_MEASURES.keys()
            assert step["paired"]["low"] <= step["paired"]["difference"] <= step["paired"]["high"]
            assert step["capsnet"].keys() == CAPSNET_KEYS and step["cnn"].keys() == CNN_KEYS
            for key in ("accuracy", "winner_length", "true_length", "pose_correlation", "unmoved_correlation"):
                assert -1 <= step["capsnet"][key] <= 1
            assert all(0 <= value <= 1 for value in step["cnn"].values())
    affnist = results["affnist"]
    assert affnist["images"] == 2 * len(images) and affnist["transforms_per_digit"] == 2
    assert affnist["ranges"] == {name: list(bounds) for name, bounds in AFFNIST.items()}
    assert affnist["paired"]["difference"] == pytest.approx(
        affnist["capsnet"]["accuracy"] - affnist["cnn"]["accuracy"], abs=1e-3
    )
    assert json.loads(to_json(results)) == json.loads(json.dumps(results))


def test_the_paired_comparison_counts_disagreements_and_brackets_the_lead():
    capsnet_right = torch.tensor([[True, True, False, True, False, True, True, True]])  # [1 change, 8 digits]
    cnn_right = torch.tensor([[True, False, False, True, True, False, False, True]])
    measured = paired(capsnet_right, cnn_right)
    assert (measured["only_capsnet"], measured["only_cnn"]) == (3, 1)
    assert measured["difference"] == 0.25 and measured["low"] < 0.25 < measured["high"]
    assert measured == paired(capsnet_right, cnn_right)  # the same resamples every run
    assert paired(capsnet_right, capsnet_right) == {
        "only_capsnet": 0,
        "only_cnn": 0,
        "difference": 0.0,
        "low": 0.0,
        "high": 0.0,
    }
    assert points(measured) == f"+25.0 [{100 * measured['low']:+.1f}, {100 * measured['high']:+.1f}]"


def test_the_bootstrap_resamples_digits_with_all_their_changes():
    """Two changes of each digit: a digit's changes go in and out of a resample together, so one
    digit read right twice by the CapsNet alone is one digit's worth of evidence, not two."""
    capsnet_right = torch.tensor([[True, True, True], [True, True, True]])  # [2 changes, 3 digits]
    cnn_right = torch.tensor([[False, True, True], [False, True, True]])
    measured = paired(capsnet_right, cnn_right)
    as_independent = paired(capsnet_right.reshape(1, 6), cnn_right.reshape(1, 6))  # 6 digits, 1 change each
    assert (
        (measured["only_capsnet"], measured["only_cnn"])
        == (2, 0)
        == (as_independent["only_capsnet"], as_independent["only_cnn"])
    )
    assert measured["difference"] == as_independent["difference"] == pytest.approx(1 / 3, abs=1e-4)
    assert measured["high"] - measured["low"] > as_independent["high"] - as_independent["low"]


def test_every_measure_is_described():
    keys = CAPSNET_KEYS | CNN_KEYS
    assert MEASURES.keys() == keys


def test_the_sweeps_cover_the_ranges_asked_for():
    assert SWEEPS["rotation"][0] == [float(d) for d in range(-90, 91, 10)]
    assert SWEEPS["scale"][0][0] == 0.5 and SWEEPS["scale"][0][-1] == 1.5 and 1.0 in SWEEPS["scale"][0]
    for name, (values, _) in SWEEPS.items():
        assert values == sorted(values) and len(set(values)) == len(values)
        assert AffineChange().__getattribute__(name) in values  # the unchanged digit is a step
        for value in values:
            AffineChange(**{name: value})  # within AffineChange's ranges
    assert repr(SWEEPS["shear"][0][7]) == "0.1"  # steps read as written


def test_affnist_matrices_are_repeatable_and_in_range():
    matrices = affnist_matrices(500, seed=3)
    torch.testing.assert_close(matrices, affnist_matrices(500, seed=3))
    assert not torch.equal(matrices, affnist_matrices(500, seed=4))
    low, high = AFFNIST["shift_x"]
    assert low <= matrices[:, :, 2].min() and matrices[:, :, 2].max() <= high
    area = torch.linalg.det(matrices[:, :, :2])  # rotation and shear keep area: stretch_x * stretch_y
    assert 0.8**2 <= area.min() and area.max() <= 1.2**2
    assert area.min() < 0.75 and area.max() > 1.3  # and the draws spread over the ranges


def test_to_json_sorts_keys_and_writes_each_step_on_a_line():
    results = {
        "b": 1,
        "a": {
            "steps": [{"value": 0.5, "cnn": {"accuracy": 1.0}}, {"value": 1.0, "cnn": {"accuracy": 0.5}}],
            "unit": "x",
        },
    }
    text = to_json(results)
    assert json.loads(text) == results
    assert text.index('"a"') < text.index('"b"')
    assert '  {"cnn": {"accuracy": 1.0}, "value": 0.5},\n' in text
    assert text.endswith("}\n")


def results_folder(tmp_path: Path, capsnet_sha: str | None = None) -> tuple[Path, Path, Path]:
    """Stand-in weights for both networks and a robustness.json that records their sha256."""
    capsnet, cnn = tmp_path / "weights", tmp_path / "weights" / "cnn"
    cnn.mkdir(parents=True)
    (capsnet / "model.safetensors").write_bytes(b"capsnet weights")
    (cnn / "model.safetensors").write_bytes(b"cnn weights")
    results = {
        "weights_sha256": {
            "capsnet": capsnet_sha or sha256(capsnet / "model.safetensors"),
            "cnn": sha256(cnn / "model.safetensors"),
        }
    }
    (capsnet / RESULTS_FILE).write_text(json.dumps(results), encoding="utf-8")
    return capsnet / RESULTS_FILE, capsnet, cnn


def expect_error(path: Path, capsnet: Path, cnn: Path, fragment: str) -> None:
    with pytest.raises(ResultsError) as raised:
        load_results(path, capsnet, cnn)
    message = str(raised.value)
    assert fragment in message and "python -m capsnet.studies.robustness" in message, message


def test_results_are_checked_against_both_networks_weights(tmp_path):
    path, capsnet, cnn = results_folder(tmp_path)
    assert load_results(path, capsnet, cnn)["weights_sha256"]["cnn"] == sha256(cnn / "model.safetensors")
    (cnn / "model.safetensors").write_bytes(b"retrained cnn")
    expect_error(path, capsnet, cnn, "measured with other weights")
    (cnn / "model.safetensors").unlink()
    expect_error(path, capsnet, cnn, "model.safetensors is missing")


def test_results_from_another_capsnet_or_none_at_all_are_a_clear_error(tmp_path):
    path, capsnet, cnn = results_folder(tmp_path, capsnet_sha="0" * 64)
    expect_error(path, capsnet, cnn, "000000000000")
    path.write_text("{not json", encoding="utf-8")
    expect_error(path, capsnet, cnn, "is not valid JSON")
    path.unlink()
    expect_error(path, capsnet, cnn, f"{path} is missing")


@pytest.mark.slow
def test_the_command_writes_the_same_bytes_twice_and_shows_them(tiny_mnist, networks, tmp_path, monkeypatch, capsys):
    import capsnet.studies.robustness as robustness

    monkeypatch.setattr(robustness, "DIGITS_PER_CLASS", 1)
    monkeypatch.setattr(robustness, "TRANSFORMS_PER_DIGIT", 1)
    monkeypatch.setattr(robustness, "SWEEPS", {name: (values[::3], unit) for name, (values, unit) in SWEEPS.items()})
    capsnet, cnn = networks
    capsnet.save_pretrained(tmp_path / "capsnet")
    cnn.save_pretrained(tmp_path / "cnn")
    args = ["--data-dir", str(tiny_mnist), "--capsnet", str(tmp_path / "capsnet"), "--cnn", str(tmp_path / "cnn")]
    main(args)
    written = (tmp_path / "capsnet" / RESULTS_FILE).read_bytes()
    main([*args, "--out", str(tmp_path / "again.json")])
    assert (tmp_path / "again.json").read_bytes() == written
    results = json.loads(written)
    from capsnet.data.datasets import mnist

    digits = len(first_digits(mnist(tiny_mnist, train=False), 1)[0])  # a class may be missing from the tiny set
    assert results["digit_count"] == results["affnist"]["images"] == digits > 5
    assert results["weights_sha256"]["capsnet"] == sha256(tmp_path / "capsnet" / "model.safetensors")
    capsys.readouterr()
    main([*args, "--show"])
    shown = capsys.readouterr().out
    assert shown.startswith("| change | steps |") and "| affNIST's ranges |" in shown
    assert len(shown.splitlines()) == 2 + 1 + len(SWEEPS) + 1 + 1 + 2 + sum(len(v[::3]) for v, _ in SWEEPS.values()) + 1


@pytest.fixture(scope="module")
def shipped() -> dict:
    """robustness.json, checked against the shipped weights of both networks."""
    if not (CNN_WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no CNN baseline weights in {CNN_WEIGHTS} yet: robustness.json needs both networks")
    return load_results(WEIGHTS / RESULTS_FILE, WEIGHTS, CNN_WEIGHTS)


def test_the_shipped_results_belong_to_the_shipped_weights(shipped):
    from capsnet.studies.robustness import DIGITS_PER_CLASS, TRANSFORMS_PER_DIGIT

    assert shipped["digit_count"] == 10 * DIGITS_PER_CLASS
    assert {name: [step["value"] for step in sweep["steps"]] for name, sweep in shipped["sweeps"].items()} == {
        name: values for name, (values, _) in SWEEPS.items()
    }
    assert shipped["affnist"]["images"] == TRANSFORMS_PER_DIGIT * shipped["digit_count"]


def test_show_prints_the_shipped_tables(shipped, capsys):
    main(["--show"])
    shown = capsys.readouterr().out
    rotation = shipped["sweeps"]["rotation"]["steps"][0]
    capsnet, cnn = (100 * rotation[network]["accuracy"] for network in ("capsnet", "cnn"))
    assert f"| rotation | -90 | {capsnet:.1f}% | {cnn:.1f}% |" in shown
    assert summary_table(shipped) in shown and steps_table(shipped) in shown


@pytest.mark.slow
def test_recomputing_a_step_reproduces_the_shipped_figures(shipped, mnist_test):
    from capsnet.studies.robustness import DIGITS_PER_CLASS

    capsnet, cnn = load_model(WEIGHTS), load_model(CNN_WEIGHTS, BaselineCNN)
    images, labels = first_digits(mnist_test, DIGITS_PER_CLASS)
    step = next(s for s in shipped["sweeps"]["rotation"]["steps"] if s["value"] == 30)
    with torch.inference_mode():
        _, reconstructions = capsnet_readings(capsnet, images)  # in the command's batches
        measured, _ = measure_change(capsnet, cnn, images, labels, reconstructions, AffineChange(rotation=30).matrix())
    for network in ("capsnet", "cnn"):
        assert measured[network] == pytest.approx(step[network], abs=1e-4), network  # one unit of the rounding
    assert measured["paired"] == pytest.approx(step["paired"], abs=1e-4)
