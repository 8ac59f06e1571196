import copy
import logging

import pytest
import torch
from torch import nn

from capsnet.shipping import onnx_file, packed
from capsnet.shipping.packed import PackedConv2d, pack_convolutions

pytestmark = pytest.mark.skipif(not packed.packing_available(), reason="this PyTorch build has no oneDNN")


@pytest.fixture(scope="module")
def digits(mnist_test) -> torch.Tensor:
    return mnist_test.data[:6, None].float() / 255  # [6, 1, 28, 28]


def convolutions(network: nn.Module) -> list[nn.Conv2d]:
    return [module for module in network.modules() if isinstance(module, nn.Conv2d)]


@pytest.mark.parametrize("batch", [1, 6])
def test_a_packed_capsnet_reads_as_the_plain_one(trained_model, digits, batch):
    network = pack_convolutions(copy.deepcopy(trained_model))
    assert [type(conv) for conv in convolutions(network)] == [PackedConv2d, PackedConv2d]
    for start in range(0, len(digits), batch):
        images = digits[start : start + batch]
        with torch.inference_mode():
            plain, packed_out = trained_model(images), network(images)
        for name in vars(plain):
            torch.testing.assert_close(getattr(packed_out, name), getattr(plain, name), rtol=0, atol=1e-5, msg=name)
    assert all(conv._packed is not None for conv in convolutions(network))  # the packed weights were used


def test_a_packed_cnn_reads_as_the_plain_one(trained_cnn, digits):
    network = pack_convolutions(copy.deepcopy(trained_cnn))
    assert convolutions(network) and all(type(conv) is PackedConv2d for conv in convolutions(network))
    with torch.no_grad():
        torch.testing.assert_close(network(digits).probabilities, trained_cnn(digits).probabilities, atol=1e-5, rtol=0)


def test_the_parameters_and_state_dict_stay_the_same(trained_model):
    network = copy.deepcopy(trained_model)
    before = {name: tensor.clone() for name, tensor in network.state_dict().items()}
    conv = network.primary.conv
    assert pack_convolutions(network) is network
    assert network.primary.conv.weight is conv.weight and network.primary.conv.bias is conv.bias
    after = network.state_dict()
    assert after.keys() == before.keys()
    assert all(torch.equal(after[name], before[name]) for name in before)


def test_changed_weights_are_packed_again(trained_model, digits):
    """Weights changed in place after a packed reading are read with, not the packing of the old."""
    network = pack_convolutions(copy.deepcopy(trained_model))
    with torch.inference_mode():
        first = network(digits[:1]).lengths
    with torch.no_grad():
        network.primary.conv.weight[:128].zero_()
    with torch.inference_mode():
        changed = network(digits[:1]).lengths
        plain = copy.deepcopy(trained_model)
        with torch.no_grad():
            plain.primary.conv.weight[:128].zero_()
        expected = plain(digits[:1]).lengths
    assert (changed - first).abs().max() > 0.1  # a real change, which a stale packing would not show
    torch.testing.assert_close(changed, expected, atol=1e-5, rtol=0)


def test_a_packed_network_trains_as_the_plain_one(trained_model, digits):
    """With autograd recording, a packed convolution is the plain one: the same gradients."""
    plain, network = copy.deepcopy(trained_model), pack_convolutions(copy.deepcopy(trained_model))
    for each in (plain, network):
        each(digits).lengths.sum().backward()
    for name, conv in [("conv1", network.conv1), ("primary.conv", network.primary.conv)]:
        assert conv.weight.grad is not None, name
        torch.testing.assert_close(conv.weight.grad, plain.get_submodule(name).weight.grad, msg=name)


def test_a_float64_network_is_read_unpacked(trained_model, digits):
    network = pack_convolutions(copy.deepcopy(trained_model)).double()
    with torch.inference_mode():
        lengths = network(digits.double()).lengths
        expected = copy.deepcopy(trained_model).double()(digits.double()).lengths
    assert lengths.dtype == torch.float64
    torch.testing.assert_close(lengths, expected)
    assert network.primary.conv._packed is None


@pytest.mark.slow  # its point is an export, a second each
def test_the_onnx_graph_of_a_packed_capsnet_with_autograd_off_is_the_plain_ones(trained_model, plain_graphs):
    """With autograd recording, as the app exports them, the packed networks' graphs are the plain
    ones' (tests/test_page_network.py). With it off a packed convolution runs oneDNN's kernel,
    except in an export, which sees the plain convolution."""
    with torch.no_grad():
        assert onnx_file.capsules_graph(pack_convolutions(copy.deepcopy(trained_model))) == plain_graphs["capsules"]


def test_without_onednn_the_network_is_left_as_it_is(trained_model, monkeypatch, caplog):
    monkeypatch.setattr(packed, "packing_available", lambda: False)
    network = copy.deepcopy(trained_model)
    with caplog.at_level(logging.INFO, logger="capsnet.shipping.packed"):
        assert pack_convolutions(network) is network
    assert all(type(conv) is nn.Conv2d for conv in convolutions(network))
    assert "left unpacked" in caplog.text


def test_the_app_reads_with_packed_networks(app):
    for network in (app.NETWORKS.capsnet, app.NETWORKS.cnn, app.NETWORKS.pairs.capsnet, app.NETWORKS.pairs.cnn):
        if network is not None:
            assert convolutions(network) and all(type(conv) is PackedConv2d for conv in convolutions(network))
