"""The decoder as one file (capsnet/shipping/decoder_file.py), the one the playground's page redraws with:
the decoder's layers in float16 and the config, named by its hash, and pictures within one grey
level of 255 of the network's own, at the ends of both slider ranges."""

import copy
import dataclasses
import hashlib

import numpy as np
import torch

from capsnet import CapsNet, CapsNetConfig
from capsnet.dimensions import PAPER_RANGE
from capsnet.shipping.decoder_file import decoder_file, file_name, read_decoder_file
from capsnet.studies.dimension_names_file import load_dimension_names
from harness.paths import WEIGHTS
from playground.views import paper
from tests.support.examples import example_digits


def test_the_file_holds_the_decoders_layers_in_float16_and_the_config(model):
    config, tensors = read_decoder_file(decoder_file(model))
    assert config == model.config
    state = model.decoder.state_dict()
    assert set(tensors) == set(state) == {"0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias"}
    for name, tensor in tensors.items():
        assert tensor.dtype == torch.float16 and tensor.shape == state[name].shape, name
        torch.testing.assert_close(tensor, state[name].half(), rtol=0, atol=0)


def test_the_layers_shapes_follow_the_config():
    model = CapsNet(CapsNetConfig(num_classes=5, digit_capsule_dim=4, decoder_hidden=(8, 12), image_size=20))
    config, tensors = read_decoder_file(decoder_file(model))
    assert dataclasses.asdict(config) == dataclasses.asdict(model.config)
    assert [tuple(tensors[f"{place}.weight"].shape) for place in (0, 2, 4)] == [(8, 20), (12, 8), (400, 12)]


def test_its_name_is_its_hash_and_other_weights_make_another_file(model):
    data = decoder_file(model)
    assert decoder_file(model) == data  # the same network, the same bytes
    assert file_name(data) == hashlib.sha256(data).hexdigest()[:16]
    torch.manual_seed(1)
    assert file_name(decoder_file(CapsNet())) != file_name(data)


def test_its_pictures_are_within_one_grey_level_of_the_networks(trained_model):
    """The ten examples' capsules, each decoded as every digit, moved to the ends of both slider
    ranges (every dimension at once, each way, and alternating) and not moved at all."""
    names = load_dimension_names(WEIGHTS)
    page = copy.deepcopy(trained_model).double()  # as playground/page/decode.js computes:
    page.decoder.load_state_dict(read_decoder_file(decoder_file(trained_model))[1])  # float16 weights, float64 sums
    images, _ = example_digits()
    with torch.inference_mode():
        capsules = trained_model(images).capsules  # [10, 10, 16]
    signs = torch.stack([torch.zeros(16), torch.ones(16), -torch.ones(16), (-1.0) ** torch.arange(16)])  # [4, 16]
    cases, digits = [], []
    for digit in range(10):
        limits = [torch.full((16,), PAPER_RANGE), names.spread_range * torch.tensor(names.sd[digit])]
        for offsets in (limit * signs for limit in limits):  # [4, 16]
            moved = capsules[:, None].repeat(1, len(offsets), 1, 1)  # [10, 4, 10, 16]
            moved[:, :, digit] += offsets
            cases.append(moved.flatten(0, 1))
            digits += [digit] * len(moved.flatten(0, 1))
    capsules, digits = torch.cat(cases), torch.tensor(digits)  # [800, 10, 16], [800]
    with torch.inference_mode():
        network = trained_model.decode(capsules, digits).flatten(1).double()  # [800, 784]
        drawn = page.decode(capsules.double(), digits).flatten(1)
    assert (drawn - network).abs().max() < 1 / 255  # before rounding
    assert np.abs(paper(drawn).astype(int) - paper(network).astype(int)).max() <= 1
