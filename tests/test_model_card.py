"""The model cards the Hub shows beside the shipped weights belong to them and say how they were made."""

import json
import re
import shutil
from collections import Counter

import pytest
from huggingface_hub import ModelCard

from capsnet import CapsNet
from capsnet.baseline import BaselineCNN
from capsnet.shipping import model_card
from capsnet.shipping.model_card import write_model_card
from capsnet.shipping.model_card_text import card_text, wall_time
from harness.paths import WEIGHTS

SHIPPED = [pytest.param(WEIGHTS, id="capsnet"), pytest.param(WEIGHTS / "cnn", id="cnn")]


@pytest.mark.parametrize("folder", SHIPPED)
def test_shipped_card_carries_the_recorded_test_accuracy_in_its_model_index(folder):
    if not (folder / "README.md").exists():
        pytest.skip(f"no model card in {folder}")
    metrics = json.loads((folder / "metrics.json").read_text())
    card = ModelCard.load(folder / "README.md")
    (result,) = card.data.eval_results
    assert (result.task_type, result.dataset_name, result.dataset_split, result.metric_type) == (
        "image-classification",
        "MNIST",
        "test",
        "accuracy",
    )
    assert result.metric_value == round(metrics["mnist_test_accuracy"], 4)
    assert "https://arxiv.org/abs/1710.09829" in card.text and "More Information Needed" not in card.text
    for section in ("## How it was trained", "## What it misreads (measured)", "## Intended use", "## How to load it"):
        assert section in card.text, section
    assert metrics["selection"] in card.text and metrics["command"] in card.text


@pytest.mark.parametrize("folder", SHIPPED)
def test_shipped_metrics_name_no_path_of_the_machine_that_trained_them(folder):
    if not (folder / "metrics.json").exists():
        pytest.skip(f"no metrics in {folder}")
    metrics = json.loads((folder / "metrics.json").read_text())
    assert "/" not in metrics["command"].replace("python train.py", "").replace("weights/cnn", "")
    for key in ("selection", "chosen_epoch", "val_size", "history", "train_seconds", "device", "torch_version"):
        assert key in metrics, key


def test_card_text_says_the_protocol_the_validation_curve_and_the_mistakes():
    metrics = {
        "command": "python train.py --model cnn",
        "train_seconds": 1800.0,
        "train_images": 55000,
        "selection": "the epoch whose moving average read best the 5000 training images held out",
        "device": "cpu",
        "bf16_autocast": True,
        "torch_version": "2.14.1",
        "history": [{"val_accuracy": 0.99}, {"val_accuracy": 0.9932}],
    }
    text = card_text(
        "cnn",
        metrics,
        3_201_810,
        None,
        0.9941,
        Counter({(4, 9): 7, (7, 2): 3}),
        (0.8, {d: 0.9 - d / 100 for d in range(10)}, Counter({(9, 4): 5})),
        "user/cnn",
    )
    assert "**99.41%**" in text and "| Semeion" in text and "80.00%" in text
    assert "held out" in text and "99.00%, 99.32%" in text and "3,201,810 parameters" in text
    assert "4 → 9 (7), 7 → 2 (3)" in text and "misreads 10 of 10,000" in text
    assert "9s at 81%" in text and 'load_model("user/cnn", BaselineCNN)' in text


@pytest.mark.parametrize("network", ["capsnet", "cnn"])
def test_a_pairs_card_leads_with_the_pairs_and_says_how_to_read_them(network):
    metrics = {
        "command": "python train.py --task pairs",
        "train_seconds": 3600.0,
        "train_images": 55000,
        "task": "pairs",
        "pairs_test_both_right": 0.8123,
        "init_from": "weights",
        "selection": "the epoch whose moving average read best the pairs of the 5000 training images held out",
        "device": "cpu",
        "bf16_autocast": False,
        "torch_version": "2.14.1",
        "history": [],
    }
    text = card_text(network, metrics, 8_215_568, 3, 0.985, Counter({(4, 9): 7}), None, "weights/pairs")
    assert "two overlapping MNIST digits" in text and "both digits right | **81.23%** |" in text
    assert "single digits), its strongest output | 98.50% |" in text
    assert "starting from the weights in `weights`" in text
    assert ("torch.sigmoid(out.logits)" in text) == (network == "cnn")
    assert "it always names two digits" in text


@pytest.mark.parametrize(
    "recorded, said",
    [(0.25, "a quarter of them one digit"), (0.5, "half of them one digit"), (0.4, "40% of them one digit")],
)
def test_a_written_card_says_how_many_of_its_examples_held_one_digit(recorded, said):
    metrics = {
        "command": "python train.py --task pairs",
        "train_seconds": 60.0,
        "train_images": 55000,
        "task": "pairs",
        "examples": "written",
        "pairs_test_both_right": 0.84,
        "written_test_right": 0.75,
        "device": "cpu",
        "bf16_autocast": True,
        "torch_version": "2.14.1",
        "history": [],
        "single_share": recorded,
    }
    text = card_text("capsnet", metrics, 8_215_568, 3, 0.985, Counter(), None, "weights/pairs")
    assert f"made on the fly): {said}, the rest two" in text


def test_a_card_of_weights_trained_in_two_runs_gives_both_commands_and_both_validation_curves():
    first = {
        "command": "python train.py --task pairs --init-from weights --epochs 2",
        "train_seconds": 3600.0,
        "train_images": 55000,
        "task": "pairs",
        "init_from": "weights",
        "device": "cpu",
        "bf16_autocast": False,
        "torch_version": "2.14.1",
        "history": [{"val_accuracy": 0.6042}, {"val_accuracy": 0.6442}],
    }
    second = {
        **first,
        "command": "python train.py --task pairs --init-from weights/pairs --start-epoch 3 --epochs 3",
        "train_seconds": 1800.0,
        "init_from": "weights/pairs",
        "pairs_test_both_right": 0.7,
        "selection": "best",
        "history": [{"val_accuracy": 0.6500}],
        "earlier": first,
    }
    text = card_text("capsnet", second, 8_215_568, 3, 0.9, Counter({(4, 9): 7}), None, "weights/pairs")
    assert first["command"] in text and second["command"] in text
    assert text.index(first["command"]) < text.index(second["command"]) and "1.5 h in all" in text
    assert "60.42%, 64.42% | 65.00%" in text
    assert "starting from the weights in `weights`" in text  # where the first run started


def test_wall_time_gives_minutes_or_seconds_where_hours_round_to_nothing():
    assert [wall_time(s) for s in (13_600.0, 306.0, 180.0, 179.0, 60.0, 59.4, 4.0)] == [
        "3.8 h",
        "0.1 h",
        "0.1 h",
        "3 min",
        "1 min",
        "59 s",
        "4 s",
    ]
    metrics = {
        "command": "python train.py --limit 64",
        "train_seconds": 41.3,
        "train_images": 64,
        "selection": "x",
        "history": [],
    }
    assert "41 s of wall time" in card_text("capsnet", metrics, 8_215_568, 3, 0.5, Counter(), None, "run")


def test_the_card_writer_given_the_final_reads_results_reads_no_mnist(tmp_path, monkeypatch):
    """train.py has just read MNIST's test set with the chosen weights: the card takes what it read."""
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}")
    shutil.copytree(WEIGHTS, tmp_path / "weights", ignore=shutil.ignore_patterns("cnn", "pairs*"))

    def no_mnist(*args, **kwargs):
        raise AssertionError("the card read MNIST again")

    monkeypatch.setattr(model_card, "mnist", no_mnist)
    card = write_model_card(
        tmp_path / "weights", "capsnet", str(tmp_path / "no-data"), misread=(0.9912, Counter({(4, 9): 5, (7, 2): 3}))
    )
    assert "**99.12%**" in card.text and "misreads 8 of 10,000" in card.text and "4 → 9 (5), 7 → 2 (3)" in card.text


def links(text: str) -> list[str]:
    return re.findall(r"https?://[^\s)>\]\"]+", text)


@pytest.mark.parametrize("folder", ["", "cnn", "pairs", "pairs-cnn"])
def test_shipped_cards_link_only_to_what_exists(folder):
    """The paper's page and the Hub: no made-up address for the code."""
    card = WEIGHTS / folder / "README.md"
    if not card.exists():
        pytest.skip(f"no model card in {card.parent}")
    assert links(card.read_text()) and all(
        re.match(r"https://(arxiv\.org|huggingface\.co)/", link) for link in links(card.read_text())
    )


@pytest.mark.parametrize("network", [CapsNet, BaselineCNN])
def test_the_generated_cards_link_only_to_what_exists(network, tmp_path):
    metrics = {"command": "python train.py", "train_seconds": 60.0, "train_images": 64, "selection": "x", "history": []}
    network().save_pretrained(tmp_path)  # the mixin's card, from its repo_url and paper_url
    texts = [
        (tmp_path / "README.md").read_text(),
        card_text("capsnet" if network is CapsNet else "cnn", metrics, 1, 3, 0.5, Counter(), None, "me/run"),
    ]
    for text in texts:
        assert links(text) and all(re.match(r"https://(arxiv\.org|huggingface\.co)/", link) for link in links(text))
