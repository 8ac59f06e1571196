"""Two overlapping digits: the pairs, the losses that train on them, train.py --task pairs, and the
measurement of both networks (capsnet.data.pairs, capsnet.studies.pairs_measurement)."""

import json
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from capsnet import CapsNet, CapsNetConfig, WeightsError, capsule_loss, margin_loss
from capsnet.baseline import BaselineCNN, multi_label_loss
from capsnet.data.pairs import (
    MAX_SHIFT,
    PAIR_FIELD,
    TEST_SEED,
    Pairs,
    RenderedBatches,
    both_right,
    box_overlap,
    draw_pairs,
    fixed_pairs,
    frame_overlap,
    placed,
    render,
    scale,
    scores,
)
from capsnet.data.preprocess import ink_to_mnist, overlaid_inks_to_mnist
from capsnet.digit_count import SECOND_INK_LINES, SECOND_LINES, CountRule, counted, top_two
from capsnet.shipping.pretrained import load_pair_networks
from capsnet.shipping.saving import sha256
from capsnet.studies.pairs_measurement import main
from capsnet.studies.pairs_measurement_file import RESULTS_FILE, load_results
from capsnet.studies.pairs_measurement_people import count_rule, reading_measures
from capsnet.studies.pairs_measurement_tables import table
from capsnet.studies.pairs_measurement_test_pairs import measure
from capsnet.studies.results_file import ResultsError
from capsnet.studies.statistics import share
from capsnet.training.processes import Processes
from capsnet.training.random_state import epoch_seed
from capsnet.training.sharded_data import PairTrainingData
from harness.paths import WEIGHTS
from tests.support.train_flags import train_flags

PAIRS_WEIGHTS, PAIRS_CNN_WEIGHTS = WEIGHTS / "pairs", WEIGHTS / "pairs-cnn"


@pytest.fixture(scope="module")
def digits(mnist_test) -> tuple[torch.Tensor, torch.Tensor]:
    """The first 200 MNIST test digits, uint8 [200, 28, 28], and their labels."""
    return mnist_test.data[:200], mnist_test.targets[:200]


def test_each_pair_is_of_two_classes_and_keeps_their_labels():
    labels = torch.arange(1000) % 10
    pairs = draw_pairs(labels, torch.arange(1000), torch.Generator().manual_seed(3))
    pair_labels = pairs.labels(labels)
    assert (pair_labels[:, 0] != pair_labels[:, 1]).all()
    assert torch.equal(pair_labels[:, 0], labels[pairs.first]) and torch.equal(pair_labels[:, 1], labels[pairs.second])
    assert torch.equal(pairs.first, torch.arange(1000))


def test_shifts_are_uniform_within_four_pixels_and_partners_uniform_over_the_other_classes():
    labels = torch.arange(20_000) % 10
    pairs = draw_pairs(labels, torch.arange(20_000), torch.Generator().manual_seed(0))
    shifts = pairs.shifts.flatten()  # 80,000 draws
    assert shifts.min() == -MAX_SHIFT and shifts.max() == MAX_SHIFT
    counts = torch.bincount(shifts + MAX_SHIFT).double()  # 9 values
    expected = len(shifts) / 9
    assert ((counts - expected) ** 2 / expected).sum() < 26.1  # chi-squared, 8 dof, p = 0.001
    partners = torch.bincount(labels[pairs.second][labels[pairs.first] == 0], minlength=10)
    assert partners[0] == 0 and (partners[1:] > 0.8 * partners[1:].float().mean()).all()


def test_the_same_seed_gives_the_same_pairs_and_another_seed_others():
    labels = torch.arange(500) % 10
    a, b, c = (draw_pairs(labels, torch.arange(500), torch.Generator().manual_seed(seed)) for seed in (7, 7, 8))
    assert torch.equal(a.second, b.second) and torch.equal(a.shifts, b.shifts)
    assert not torch.equal(a.second, c.second)


def test_the_input_is_the_brighter_pixel_of_both_through_the_playgrounds_preprocessing(digits):
    images, labels = digits
    pairs = draw_pairs(labels, torch.arange(20), torch.Generator().manual_seed(1))
    inputs, alone = render(images, pairs)
    assert inputs.shape == (20, 1, 28, 28) and alone.shape == (20, 2, 1, 28, 28)
    assert inputs.min() >= 0 and inputs.max() == 1 and alone.min() >= 0 and alone.max() <= 1
    for n in range(20):
        a = placed(images[pairs.first[n]].numpy() / 255, pairs.shifts[n, 0])
        b = placed(images[pairs.second[n]].numpy() / 255, pairs.shifts[n, 1])
        assert a.shape == (PAIR_FIELD, PAIR_FIELD)
        np.testing.assert_array_equal(inputs[n, 0].numpy(), ink_to_mnist(np.maximum(a, b)))


def test_the_scale_is_what_fitting_the_pairs_ink_box_into_20x20_gives():
    """Two bars 20 pixels tall: laid over each other they fill the box (scale 1); one moved 8
    pixels down and across from the other, their ink spans 28 rows (scale 20/28), and the
    rendered overlay's ink spans 20 rows again."""
    bars = torch.zeros(2, 28, 28, dtype=torch.uint8)
    bars[:, 4:24, 12:16] = 255
    bars[1, 4:24, 12] = 40  # faint ink, below INK_THRESHOLD: not cropped to
    same = Pairs(torch.tensor([0]), torch.tensor([1]), torch.zeros(1, 2, 2, dtype=torch.int64))
    apart = Pairs(torch.tensor([0]), torch.tensor([1]), torch.tensor([[[-4, -4], [4, 4]]]))
    assert scale(bars, same)[0] == 1.0
    assert scale(bars, apart)[0] == 20 / 28
    inputs, _ = render(bars, apart)
    assert np.ptp(np.flatnonzero((inputs[0, 0] > 0.5).any(dim=1).numpy())) + 1 == 20


def test_each_digit_alone_is_moved_and_scaled_as_the_overlay_is(digits):
    images, _ = digits
    a = placed(images[0].numpy() / 255, torch.tensor([-4, -4]))
    b = placed(images[1].numpy() / 255, torch.tensor([4, 4]))
    fields = overlaid_inks_to_mnist(np.stack([a, b]))  # [3, 28, 28]
    # where one digit has no ink, the overlay is the other digit alone
    only_a, only_b = fields[2] == 0, fields[1] == 0
    np.testing.assert_allclose(fields[0][only_a], fields[1][only_a], atol=1e-6)
    np.testing.assert_allclose(fields[0][only_b], fields[2][only_b], atol=1e-6)
    assert fields[1].sum() > 10 and fields[2].sum() > 10
    # the first digit sat up and left of the second, and still does
    centre = lambda f: np.array(np.nonzero(f)).mean(axis=1)  # noqa: E731
    assert (centre(fields[1]) < centre(fields[2])).all()
    # one layer alone: exactly ink_to_mnist
    np.testing.assert_array_equal(overlaid_inks_to_mnist(a[None])[1], ink_to_mnist(a))
    assert overlaid_inks_to_mnist(np.zeros((2, 36, 36))) is None


def test_fixed_pairs_pair_only_the_digits_given(digits):
    images, labels = digits
    inputs, alone, pair_labels, pairs = fixed_pairs(images[:50], labels[:50], TEST_SEED)
    assert len(pairs) == 50 and torch.equal(pairs.first, torch.arange(50)) and pairs.second.max() < 50
    again = fixed_pairs(images[:50], labels[:50], TEST_SEED)
    assert torch.equal(inputs, again[0]) and torch.equal(alone, again[1]) and torch.equal(pair_labels, again[2])


def test_frame_overlap_is_the_papers_and_ink_boxes_overlap_less(digits):
    images, labels = digits
    same = Pairs(torch.tensor([0]), torch.tensor([1]), torch.tensor([[[2, 2], [2, 2]]]))
    apart = Pairs(torch.tensor([0]), torch.tensor([1]), torch.tensor([[[-4, -4], [4, 4]]]))
    assert frame_overlap(same)[0] == 1 and frame_overlap(apart)[0] == pytest.approx((20 / 28) ** 2)
    pairs = draw_pairs(labels, torch.arange(200), torch.Generator().manual_seed(0))
    covered, iou = box_overlap(images, pairs)
    assert 0.75 < frame_overlap(pairs).mean() < 0.85  # the paper's 80%
    assert 0 <= iou.min() and (iou <= covered).all() and covered.max() <= 1
    assert box_overlap(images, same)[0][0] > box_overlap(images, apart)[0][0]


def test_each_digit_is_redrawn_from_its_own_capsule_alone(model):
    capsules = torch.randn(3, 10, 16)
    labels = torch.tensor([[1, 7], [0, 9], [4, 2]])
    with torch.no_grad():
        redrawn = model.decode(capsules, labels)  # [3, 2, 1, 28, 28]
        assert redrawn.shape == (3, 2, 1, 28, 28)
        for k in range(2):
            torch.testing.assert_close(redrawn[:, k], model.decode(capsules, labels[:, k]))
        other = capsules.clone()
        other[torch.arange(3), labels[:, 1]] = torch.randn(3, 16)  # change the second digits' capsules
        again = model.decode(other, labels)
    torch.testing.assert_close(again[:, 0], redrawn[:, 0])  # the first: untouched
    assert not torch.allclose(again[:, 1], redrawn[:, 1])


def test_a_pairs_forward_redraws_both_digits_and_its_loss_sums_their_errors(model):
    images = torch.rand(2, 1, 28, 28)
    labels = torch.tensor([[3, 5], [8, 1]])
    digits = torch.rand(2, 2, 1, 28, 28)
    out = model(images, labels)
    assert out.reconstruction.shape == (2, 2, 1, 28, 28)
    squared = ((out.reconstruction - digits) ** 2).sum(dim=(2, 3, 4))  # [B, 2]
    expected = margin_loss(out.lengths, labels) + 0.0005 * squared.sum(dim=1).mean()
    torch.testing.assert_close(capsule_loss(out, digits, labels), expected)


def test_the_margin_loss_counts_both_digits_of_a_pair_as_present():
    lengths = torch.full((1, 10), 0.05)
    lengths[0, 3] = lengths[0, 5] = 0.95
    assert margin_loss(lengths, torch.tensor([[3, 5]])).item() == 0
    one_short = lengths.clone()
    one_short[0, 5] = 0.5  # T_5 = 1: (0.9 - 0.5)^2
    assert margin_loss(one_short, torch.tensor([[3, 5]])).item() == pytest.approx(0.16)
    assert margin_loss(lengths, torch.tensor([3])).item() == pytest.approx(0.5 * 0.85**2)  # 5 absent


def test_the_cnns_multi_label_loss_is_ten_binary_cross_entropies():
    logits = torch.randn(4, 10, requires_grad=True)
    labels = torch.tensor([[0, 1], [2, 3], [9, 4], [5, 6]])
    output = type("Out", (), {"logits": logits})()
    present = torch.zeros(4, 10)
    present[torch.arange(4).repeat_interleave(2), labels.flatten()] = 1
    expected = F.binary_cross_entropy_with_logits(logits, present, reduction="none").sum(1).mean()
    torch.testing.assert_close(multi_label_loss(output, labels), expected)
    sure = type("Out", (), {"logits": 20 * (2 * present - 1)})()
    assert multi_label_loss(sure, labels).item() < 1e-6
    multi_label_loss(output, labels).backward()
    assert logits.grad.abs().sum() > 0


def test_a_pair_is_read_right_when_the_two_strongest_are_its_classes_in_either_order():
    strengths = torch.tensor([[0.1, 0.9, 0.2, 0.8, 0, 0, 0, 0, 0, 0.3], [0.1, 0.9, 0.2, 0.1, 0, 0, 0, 0, 0, 0.3]])
    read = top_two(strengths)
    assert read.tolist() == [[1, 3], [1, 9]]
    assert both_right(read, torch.tensor([[3, 1], [1, 3]])).tolist() == [True, False]
    cnn_output = type("Out", (), {"logits": torch.zeros(1, 10)})()
    torch.testing.assert_close(scores(cnn_output), torch.full((1, 10), 0.5))  # sigmoids, not a softmax


@pytest.mark.slow
@pytest.mark.parametrize("network", ["capsnet", "cnn"])
def test_train_py_trains_on_pairs_chooses_on_validation_pairs_and_resumes(tiny_mnist, tmp_path, network):
    import train

    out, checkpoint = tmp_path / "weights", tmp_path / "last.pt"
    flags = train_flags(
        tiny_mnist,
        out,
        checkpoint,
        task="pairs",
        examples="mnist-pairs",
        model=network,
        val_size=16,
        batch_size=16,
        amp="off",
    )
    assert train.main([*flags, "--epochs", "1"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["task"] == "pairs" and 0 <= metrics["pairs_test_both_right"] <= 1
    assert "mnist_test_accuracy" not in metrics and "pairs of" in metrics["selection"]
    assert train.main([*flags, "--epochs", "2", "--resume"]) == 0
    assert json.loads((out / "metrics.json").read_text())["epochs"] == 2
    assert train.main([*flags, "--task", "digits", "--epochs", "3", "--resume"]) == 2  # not the same recipe


@pytest.mark.slow
def test_a_run_that_goes_on_from_an_earlier_ones_weights_sees_new_pairs_and_keeps_its_history(
    tiny_mnist, tmp_path, monkeypatch
):
    import train

    drawn = []
    epoch_of_pairs = PairTrainingData.epoch
    monkeypatch.setattr(
        PairTrainingData, "epoch", lambda self, epoch: drawn.append(epoch) or epoch_of_pairs(self, epoch)
    )
    flags = train_flags(
        tiny_mnist,
        None,
        tmp_path / "last.pt",
        task="pairs",
        examples="mnist-pairs",
        val_size=0,
        batch_size=16,
        amp="off",
    )  # no validation: the last epoch is kept
    first, second = tmp_path / "first", tmp_path / "second"
    assert train.main([*flags, "--out", str(first), "--epochs", "2"]) == 0
    assert (
        train.main([*flags, "--out", str(second), "--init-from", str(first), "--start-epoch", "3", "--epochs", "4"])
        == 0
    )
    assert drawn == [1, 2, 3, 4]  # the second run draws epochs 3 and 4's pairs, not 1 and 2's
    metrics = json.loads((second / "metrics.json").read_text())
    assert [e["epoch"] for e in metrics["history"]] == [3, 4] and metrics["start_epoch"] == 3
    assert metrics["earlier"] == json.loads((first / "metrics.json").read_text())
    assert metrics["pairs_per_epoch"] == 64 and metrics["epochs"] == 4
    assert train.main([*flags, "--out", str(second), "--start-epoch", "5", "--epochs", "4"]) == 2
    # the second run's result shipped in the first's folder, then the second run resumed for one more epoch:
    # its earlier run is still the first one, not its own result of epochs 3-4
    first_metrics = (first / "metrics.json").read_text()
    (first / "metrics.json").write_text((second / "metrics.json").read_text())
    assert (
        train.main(
            [*flags, "--out", str(second), "--init-from", str(first), "--start-epoch", "3", "--epochs", "5", "--resume"]
        )
        == 0
    )
    metrics = json.loads((second / "metrics.json").read_text())
    assert [e["epoch"] for e in metrics["history"]] == [3, 4, 5]
    assert metrics["earlier"] == json.loads(first_metrics)


def test_train_py_pairs_batches_hold_each_digit_alone_in_the_inputs_frame(tiny_mnist):
    indices = torch.arange(32)
    data = PairTrainingData(str(tiny_mnist), indices, 8, seed=1, processes=Processes(), device=torch.device("cpu"))
    inputs, (labels, alone) = next(iter(data.epoch(1)))
    assert inputs.shape == (8, 1, 28, 28) and labels.shape == (8, 2) and alone.shape == (8, 2, 1, 28, 28)
    assert (labels[:, 0] != labels[:, 1]).all()
    assert (alone.amax(dim=1) <= inputs + 0.35).all()  # each digit lies inside the overlay
    again = next(iter(data.epoch(1)))
    assert torch.equal(inputs, again[0])  # drawn from the seed and the epoch
    assert not torch.equal(inputs, next(iter(data.epoch(2)))[0])


@pytest.fixture(scope="module")
def random_networks(tmp_path_factory) -> tuple[Path, Path]:
    """Randomly initialised networks saved as a pairs CapsNet and a pairs CNN."""
    folder = tmp_path_factory.mktemp("pairs-networks")
    torch.manual_seed(0)
    CapsNet().save_pretrained(folder / "pairs")
    BaselineCNN().save_pretrained(folder / "pairs-cnn")
    return folder / "pairs", folder / "pairs-cnn"


@pytest.mark.slow
def test_the_measurement_runs_end_to_end_and_writes_the_same_bytes_twice(
    tiny_mnist, semeion_path, random_networks, tmp_path, capsys
):
    capsnet, cnn = random_networks
    flags = [
        "--data-dir",
        str(tiny_mnist),
        "--capsnet",
        str(capsnet),
        "--cnn",
        str(cnn),
        "--limit",
        "40",
        "--semeion",
        str(semeion_path),
    ]
    main([*flags, "--out", str(tmp_path / "a.json")])
    main([*flags, "--out", str(tmp_path / "b.json")])
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    results = load_results(tmp_path / "a.json", capsnet, cnn)
    assert results["test_pairs"] == 40 and results["weights_sha256"]["capsnet"] == sha256(capsnet / "model.safetensors")
    for name in ("capsnet", "cnn"):
        measured = results[name]
        assert 0 <= measured["both_right"] <= measured["at_least_one_right"] <= 1
        assert sum(band["pairs"] for band in measured["by_overlap"]) == 40
        assert sum(band["pairs"] for band in measured["by_scale"]) == 40
    routed = {row["iterations"]: row["both_right"] for row in results["capsnet"]["by_routing_iterations"]}
    assert sorted(routed) == [1, 2, 3, 4, 5] and routed[3] == results["capsnet"]["both_right"]
    assert results["only_capsnet"] - results["only_cnn"] == round(
        40 * (results["capsnet"]["both_right"] - results["cnn"]["both_right"])
    )
    assert results["lead"]["low"] <= results["lead"]["difference"] <= results["lead"]["high"]
    lead = (results["only_capsnet"] - results["only_cnn"]) / 40
    assert results["lead"]["difference"] == lead  # a fraction, not points
    people = results["people"]
    assert people["sets"] == {
        "mnist_pairs": 40,
        "mnist_singles": 40,
        "semeion_pairs": 40,
        "semeion_singles": 40,
        "written_test": 40,
    }
    for name in ("capsnet", "cnn"):
        assert people[name]["count"]["second"] in SECOND_LINES
        assert people[name]["count"]["second_ink"] in (SECOND_INK_LINES if name == "capsnet" else (None,))
        for measures in (people[name][set_name] for set_name in people["sets"]):
            assert all(m["low"] <= m["share"] <= m["high"] for m in measures.values())
    main([*flags, "--out", str(tmp_path / "a.json"), "--show"])
    shown = capsys.readouterr().out
    assert "| both digits right, 40 test pairs |" in shown
    assert "| Semeion pairs (other writers), both digits right (40) |" in shown


def test_the_count_rule_is_chosen_on_validation_and_counts_as_it_says():
    """Single digits whose second score is at most 0.3, pairs whose second is at least 0.52: the
    rule chosen (the CNN's: the second score alone) lies between, counts every example right and is
    the lowest line that does; with the ink only the second redrawing covers, it asks for that too."""
    torch.manual_seed(0)
    scores = torch.zeros(200, 10)
    labels = torch.stack([torch.arange(200) % 10, (torch.arange(200) + 3) % 10], dim=1)
    labels[:50, 1] = labels[:50, 0]  # 50 single digits
    scores[torch.arange(200), labels[:, 0]] = 0.95
    second = torch.where(torch.arange(200) < 50, 0.3 * torch.rand(200), 0.52 + 0.4 * torch.rand(200))
    scores[torch.arange(50), (labels[:50, 0] + 1) % 10] = second[:50]  # a single digit's runner-up
    scores[torch.arange(50, 200), labels[50:, 1]] = second[50:]
    chosen = count_rule(scores, None, labels)
    assert chosen["second_ink"] is None and chosen["second"] <= 0.52
    assert chosen["validation_count_right"] == chosen["validation_singles_counted_one"] == 1.0
    assert chosen["second"] == min(s for s in SECOND_LINES if s > second[:50].max())  # the lowest of equals
    read, two = counted(scores, CountRule.from_record(chosen))
    assert (two == (labels[:, 0] != labels[:, 1])).all() and (read[:, 0] == labels[:, 0]).all()
    # Ten single digits with a long second capsule, whose redrawing covers no ink the first left.
    scores[torch.arange(10), (labels[:10, 0] + 1) % 10] = 0.8
    ink = torch.where(torch.arange(200) < 50, 0.01, 0.2)
    chosen = count_rule(scores, ink, labels)
    assert 0.01 < chosen["second_ink"] <= 0.2 and chosen["validation_count_right"] == 1.0
    assert count_rule(scores, None, labels)["validation_singles_counted_one"] < 1.0


def test_a_reading_names_a_digit_not_there_or_a_1_only_where_it_does():
    scores = torch.zeros(4, 10)
    labels = torch.tensor([[3, 5], [3, 5], [7, 7], [7, 7]])
    scores[0, [3, 5]] = torch.tensor([0.9, 0.8])  # both right, two
    scores[1, [3, 1]] = torch.tensor([0.9, 0.8])  # a 1 that is not there
    scores[2, [7, 2]] = torch.tensor([0.9, 0.1])  # one digit, right
    scores[3, [7, 1]] = torch.tensor([0.9, 0.5])  # a second digit, a 1, invented
    measured = reading_measures(scores, labels, CountRule(0.4))
    assert measured["strongest_right"]["share"] == 0.75 and measured["count_right"]["share"] == 0.75
    assert measured["exactly_right"]["share"] == 0.5 and measured["names_absent"]["share"] == 0.5
    assert measured["names_absent_one"]["share"] == 0.5
    assert share(torch.tensor([True] * 3 + [False]))["low"] < 0.75 < share(torch.tensor([True] * 3 + [False]))["high"]


def test_the_measurement_reads_single_digits_and_pairs_right_with_a_network_that_knows(digits):
    """A stand-in network that reads the true classes scores 100%, and none of the pairs when its
    capsules are routed with another r than its config's (it then reads each digit as the next)."""
    images, labels = digits
    pair_inputs, _, pair_labels, _ = fixed_pairs(images[:30], labels[:30], TEST_SEED)

    class Oracle(torch.nn.Module):
        """Reads the i-th image of each batch as what the i-th test pair or digit holds."""

        def forward(self, batch):
            truth = pair_labels if torch.equal(batch, pair_inputs) else labels[:30, None]
            present = F.one_hot(truth, 10).amax(dim=1).float()
            return type("Out", (), {"logits": 10 * present - 5, "prediction": truth[:, 0]})()

    class Decoding(Oracle):
        config = CapsNetConfig()

        def forward(self, batch, routing_iterations=None):
            out = super().forward(batch)
            if routing_iterations not in (None, self.config.routing_iterations):  # each digit read as the next
                out.logits = out.logits.roll(1, dims=1)
            out.lengths, out.capsules = torch.sigmoid(out.logits), torch.zeros(len(batch), 10, 16)
            return out

        def decode(self, capsules, digits):
            return torch.zeros(*digits.shape, 1, 28, 28)

    results = measure(Decoding(), Oracle(), images[:30], labels[:30])
    for name in ("capsnet", "cnn"):
        assert results[name]["both_right"] == 1 and results[name]["mnist_single_digit_accuracy"] == 1
    routed = results["capsnet"]["by_routing_iterations"]
    assert [row["both_right"] for row in routed] == [0, 0, 1, 0, 0]  # only r = 3, as trained
    assert routed[0]["gain"] == {"difference": -1, "low": -1, "high": -1} and routed[2]["gain"]["difference"] == 0
    assert results["only_capsnet"] == results["only_cnn"] == 0 and results["lead"]["difference"] == 0


def test_missing_or_wrong_pairs_weights_name_the_file_and_how_to_train_them(tmp_path, random_networks):
    with pytest.raises(WeightsError, match=r"pairs-nowhere does not exist.*--task pairs"):
        load_pair_networks(tmp_path / "pairs-nowhere", random_networks[1])
    with pytest.raises(WeightsError, match=r"pairs/config.json lacks the keys.*--task pairs --model cnn"):
        load_pair_networks(random_networks[0], random_networks[0])  # a CapsNet where the CNN belongs
    with pytest.raises(SystemExit, match="does not exist"):
        main(["--capsnet", str(tmp_path / "nowhere"), "--cnn", str(random_networks[1])])


def test_results_from_other_weights_or_none_are_a_clear_error(tmp_path, random_networks):
    capsnet, cnn = random_networks
    with pytest.raises(ResultsError, match="is missing.*python -m capsnet.studies.pairs_measurement"):
        load_results(tmp_path / "none.json", capsnet, cnn)
    (tmp_path / "other.json").write_text(json.dumps({"weights_sha256": {"capsnet": "ab" * 32, "cnn": "cd" * 32}}))
    with pytest.raises(ResultsError, match="measured with other weights"):
        load_results(tmp_path / "other.json", capsnet, cnn)


@pytest.fixture(scope="module")
def shipped() -> dict:
    if not (PAIRS_WEIGHTS / "model.safetensors").exists() or not (PAIRS_CNN_WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no pairs networks in {PAIRS_WEIGHTS} and {PAIRS_CNN_WEIGHTS} (train.py --task pairs)")
    return load_results(PAIRS_WEIGHTS / RESULTS_FILE, PAIRS_WEIGHTS, PAIRS_CNN_WEIGHTS)


def test_the_shipped_pairs_results_belong_to_the_shipped_pairs_weights(shipped):
    assert shipped["test_pairs"] == 10_000
    assert "| both digits right, 10,000 test pairs |" in table(shipped)
    assert "| both right, capsules routed with 1 iteration |" in table(shipped)


@pytest.mark.slow
def test_recomputing_part_of_the_shipped_measurement_reproduces_it(shipped, mnist_test):
    """The first 500 test pairs' both-right rate from the shipped networks lies within the sampling
    spread of the shipped 10,000-pair figure, and the shipped metrics say they were trained on pairs."""
    capsnet, cnn = load_pair_networks(PAIRS_WEIGHTS, PAIRS_CNN_WEIGHTS)
    inputs, _, labels, _ = fixed_pairs(mnist_test.data, mnist_test.targets, TEST_SEED)
    with torch.inference_mode():
        read = top_two(capsnet(inputs[:500]).lengths)
    assert abs(both_right(read, labels[:500]).double().mean().item() - shipped["capsnet"]["both_right"]) < 0.06
    for folder in (PAIRS_WEIGHTS, PAIRS_CNN_WEIGHTS):
        assert json.loads((folder / "metrics.json").read_text())["task"] == "pairs"


def first_64_pairs(tiny_mnist: Path, pairs_per_epoch: int, device: str = "cpu") -> PairTrainingData:
    """The pairs train.py trains on, one process's, from the first 64 tiny-MNIST digits, 8 a step, seed 1."""
    return PairTrainingData(
        str(tiny_mnist),
        torch.arange(64),
        8,
        seed=1,
        processes=Processes(),
        device=torch.device(device),
        pairs_per_epoch=pairs_per_epoch,
    )


def test_pairs_rendered_by_worker_processes_are_the_pairs_rendered_in_the_main_process(tiny_mnist):
    data = first_64_pairs(tiny_mnist, 40)
    in_process = list(data.epoch(2))
    pairs = draw_pairs(data.labels, torch.arange(64), torch.Generator().manual_seed(epoch_seed(1, 2)))
    data.sampler.set_epoch(2)
    order = torch.tensor(list(data.sampler)[:40]).split(8)
    by_workers = list(
        torch.utils.data.DataLoader(
            RenderedBatches(data.images, data.labels, pairs, order), batch_size=None, num_workers=2
        )
    )
    assert len(by_workers) == len(in_process) == 5
    for batch, (inputs, (labels, alone)), by_worker in zip(order, in_process, by_workers, strict=True):
        expected_inputs, expected_alone = render(data.images, pairs[batch])
        expected = (expected_inputs, pairs[batch].labels(data.labels), expected_alone)
        assert all(torch.equal(a, b) for a, b in zip((inputs, labels, alone), expected, strict=True))
        assert all(torch.equal(a, b) for a, b in zip(by_worker, expected, strict=True))


@pytest.mark.gpu
def test_pairs_on_cuda_are_rendered_by_workers_and_equal_those_on_the_cpu(tiny_mnist):
    batches = {}
    for device in ("cpu", "cuda"):
        data = first_64_pairs(tiny_mnist, 40, device=device)
        batches[device] = [(inputs.cpu(), labels.cpu(), alone.cpu()) for inputs, (labels, alone) in data.epoch(3)]
    assert len(batches["cuda"]) == 5
    for on_cpu, on_cuda in zip(batches["cpu"], batches["cuda"], strict=True):
        assert all(torch.equal(a, b) for a, b in zip(on_cpu, on_cuda, strict=True))


def test_pairs_per_epoch_shortens_an_epoch_to_a_fresh_choice_of_first_digits(tiny_mnist):
    import train

    data = first_64_pairs(tiny_mnist, 10)
    epoch = list(data.epoch(1))
    assert len(data) == 2 and [len(inputs) for inputs, _ in epoch] == [8, 2]
    assert not torch.equal(epoch[0][0], next(iter(data.epoch(2)))[0])
    assert train.main(["--pairs-per-epoch", "10", "--data-dir", str(tiny_mnist), "--dry-run"]) == 2  # digits
