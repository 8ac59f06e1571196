"""The paper's CNN baseline: shapes, gradients, parameter counts, and saving and loading it like the CapsNet."""

import json

import pytest
import torch

from capsnet import WeightsError, load_model
from capsnet.baseline import BaselineCNN, BaselineConfig, cross_entropy_loss


@pytest.fixture
def cnn() -> BaselineCNN:
    torch.manual_seed(0)
    return BaselineCNN()


def test_output_shapes_and_probabilities(cnn):
    out = cnn.eval()(torch.rand(5, 1, 28, 28))
    assert out.logits.shape == out.probabilities.shape == (5, 10) and out.prediction.shape == (5,)
    torch.testing.assert_close(out.probabilities.sum(1), torch.ones(5))
    assert torch.equal(out.prediction, out.probabilities.argmax(1))
    assert torch.isfinite(out.logits).all()


def test_backward_reaches_every_parameter(cnn):
    images, labels = torch.rand(4, 1, 28, 28), torch.arange(4)
    cross_entropy_loss(cnn.train()(images), labels).backward()
    for name, p in cnn.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0, name


def test_parameter_counts_of_the_paper_s_network_and_of_the_pooled_one():
    def count(config):
        return sum(p.numel() for p in BaselineCNN(config).parameters())

    with torch.device("meta"):
        assert round(count(BaselineConfig.paper()) / 1e6, 1) == 35.4  # the paper: 35.4M
        assert count(BaselineConfig()) == 3_201_810
    assert BaselineConfig().feature_side == 4 and BaselineConfig.paper().feature_side == 28


def test_dropout_only_in_training(cnn):
    images = torch.rand(3, 1, 28, 28)
    cnn.eval()
    torch.testing.assert_close(cnn(images).logits, cnn(images).logits)
    cnn.train()
    assert not torch.equal(cnn(images).logits, cnn(images).logits)


def test_save_and_load_round_trip_in_safetensors(cnn, tmp_path):
    cnn.save_pretrained(tmp_path)
    assert (tmp_path / "model.safetensors").exists() and (tmp_path / "config.json").exists()
    loaded = load_model(tmp_path, BaselineCNN)
    assert isinstance(loaded, BaselineCNN) and not loaded.training
    images = torch.rand(2, 1, 28, 28)
    torch.testing.assert_close(loaded(images).logits, cnn.eval()(images).logits, rtol=0, atol=0)


def test_missing_folder_names_it_and_the_fix(tmp_path):
    with pytest.raises(WeightsError, match=r"weights folder .*nowhere does not exist.*Fix: train a model"):
        load_model(tmp_path / "nowhere", BaselineCNN)


def test_capsnet_weights_are_not_a_cnn(tmp_path):
    from capsnet import CapsNet

    CapsNet().save_pretrained(tmp_path)
    with pytest.raises(WeightsError, match=r"config.json lacks the keys"):
        load_model(tmp_path, BaselineCNN)


@pytest.mark.parametrize(
    "key, value",
    [
        ("dropout", 1.0),
        ("dropout", "0.5"),
        ("padding", [-1, 0, 2]),
        ("pooling", [2, 2]),
        ("conv_channels", [256, 0, 128]),
    ],
)
def test_wrong_config_values_name_the_key(cnn, tmp_path, key, value):
    cnn.save_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    config[key] = value
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(WeightsError, match=rf"config.json: {key} = .* is not"):
        load_model(tmp_path, BaselineCNN)


def test_a_config_too_small_for_its_convolutions_is_refused(cnn, tmp_path):
    cnn.save_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "image_size": 12}))
    with pytest.raises(WeightsError, match="too small"):
        load_model(tmp_path, BaselineCNN)
