"""The page's graphs' weights as capsnet/shipping/onnx_storage.py stores them: 8 bits give back each
weight within half its group's step, a weight seen in another shape comes back in its own, an
export's bytes are the same every time (the page knows a graph by its hash), and the CapsNet's
graph, PrimaryCaps and W_ij in 8 bits, reads the app's examples as the network does, every length
within the 0.01 the page keeps to (bench/graph_precision.py measures MNIST's test digits and
Semeion's)."""

import copy

import numpy as np
import onnx
import pytest
import torch
from onnx import helper, numpy_helper

from capsnet.shipping.kept_graphs import kept
from capsnet.shipping.onnx_file import PREDICTION_WEIGHTS, PRIMARY_WEIGHTS, capsules_graph, weights_as_loaded
from capsnet.shipping.onnx_storage import LARGEST, EightBits, eight_bits, store_weights
from tests.support.examples import example_digits

ort = pytest.importorskip("onnxruntime", reason="pip install -r requirements-dev.txt")

LENGTHS = 0.01  # how far the page's lengths may be from the network's


@pytest.fixture(scope="module")
def graph(trained_model) -> bytes:
    return kept(capsules_graph, trained_model)  # exported once on a machine


@pytest.mark.parametrize("axis", [0, 1])
def test_eight_bits_give_each_weight_back_within_half_its_channel_s_step(axis):
    """Channels of sizes a thousand times apart, one all zero, the channels on either axis (the
    Conv's first, the product's second)."""
    weight = np.random.default_rng(0).standard_normal((64, 300)).astype(np.float32)
    weight *= np.logspace(-3, 0, 64, dtype=np.float32)[:, None]
    weight[5] = 0
    weight = np.ascontiguousarray(np.moveaxis(weight, 0, axis))  # the channels on ``axis``
    values, scales = eight_bits(weight, (axis,))
    assert values.dtype == np.int8 and scales.dtype == np.float32
    assert scales.shape == tuple(64 if dimension == axis else 1 for dimension in range(2))  # one a channel
    step = np.broadcast_to(scales, weight.shape)
    assert (np.abs(values * scales - weight) <= step / 2 * (1 + 1e-6)).all()
    assert (np.abs(values).max(axis=1 - axis) == np.where(np.arange(64) == 5, 0, LARGEST)).all()  # every step used
    assert (values[(slice(None),) * axis + (5,)] == 0).all() and np.isfinite(scales).all()


def test_groups_seen_in_another_shape_come_back_in_the_weight_s_own():
    """W_ij as the predictions' product reads it, [4 i, 8 k, 3 j * 16 d], a scale per pair i, j:
    the graph makes the float32 weight again, in its own shape, each within half its group's step."""
    weight = np.random.default_rng(1).standard_normal((4, 8, 3 * 16)).astype(np.float32)
    weight[:, :, 16:32] *= 1e-3  # digit j = 1 a thousand times smaller: its own scales
    graph = helper.make_graph(
        [helper.make_node("Identity", ["w"], ["out"])],
        "weights",
        [],
        [helper.make_tensor_value_info("out", onnx.TensorProto.FLOAT, weight.shape)],
        [numpy_helper.from_array(weight, "w")],
    )
    store_weights(graph, {"w"}, {"w": EightBits(axes=(0, 2), shape=(4, 8, 3, 16))})
    stored = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    assert stored["w_int8"].shape == (4, 8, 3, 16) and stored["w_scale"].shape == (4, 1, 3, 1)
    (made,) = ort.InferenceSession(helper.make_model(graph).SerializeToString()).run(None, {})
    step = np.broadcast_to(stored["w_scale"], (4, 8, 3, 16)).reshape(weight.shape)
    assert made.shape == weight.shape and (np.abs(made - weight) <= step / 2 * (1 + 1e-6)).all()
    assert np.abs(made - weight)[:, :, 16:32].max() < 1e-4  # its own step (2e-5), not the others' (2e-2)


def test_the_capsules_graph_stores_primarycaps_and_w_ij_in_eight_bits_the_same_bytes_every_time(trained_model, graph):
    model = onnx.load_from_string(graph)
    stored = {tensor.name: tensor for tensor in model.graph.initializer}
    assert stored[f"{PRIMARY_WEIGHTS}_int8"].data_type == onnx.TensorProto.INT8
    assert list(stored[f"{PRIMARY_WEIGHTS}_scale"].dims) == [1, 256]  # one scale an output channel
    assert stored[f"{PREDICTION_WEIGHTS}_int8"].data_type == onnx.TensorProto.INT8
    assert list(stored[f"{PREDICTION_WEIGHTS}_scale"].dims) == [1152, 1, 10, 1]  # one a pair i, j
    assert len(graph) < 0.55 * len(capsules_graph(trained_model, eight_bits=False))  # 6.9 MB for 13.6
    assert capsules_graph(trained_model) == graph


def test_weights_that_are_not_the_network_s_are_refused():
    with pytest.raises(ValueError, match="not weights of the network"):
        store_weights(onnx.GraphProto(), {"conv.weight"}, {"network.conv.weight": 0})


def test_the_graph_reads_the_examples_as_the_network_does(trained_model, graph):
    images, _ = example_digits()  # [10, 1, 28, 28]
    session = ort.InferenceSession(graph)
    with torch.inference_mode():
        expected = trained_model(images).lengths.numpy()  # [10, 10]
    lengths = np.concatenate([session.run(["lengths"], {"images": image[None].numpy()})[0] for image in images])
    assert (lengths.argmax(1) == expected.argmax(1)).all()
    assert np.abs(lengths - expected).max() < LENGTHS


def test_the_network_with_the_weights_as_loaded_reads_as_the_graph_does(trained_model, graph):
    """`weights_as_loaded` makes the weights the graph makes as it loads: with them the network's
    capsules are the graph's to float32's rounding, where the network's own are up to 6e-3 away
    (the browser tests compare the page with the app reading so, tests/support/page_weights.py)."""
    images, _ = example_digits()  # [10, 1, 28, 28]
    session = ort.InferenceSession(graph)
    in_graph = np.concatenate([session.run(["capsules"], {"images": image[None].numpy()})[0] for image in images])
    network = copy.deepcopy(trained_model)
    loaded = weights_as_loaded(network)
    assert set(loaded) == {name for name, _ in network.named_parameters()}
    network.load_state_dict(loaded, strict=False)
    with torch.inference_mode():
        as_loaded = network(images).capsules.numpy()  # [10, 10, 16]
        own = trained_model(images).capsules.numpy()
    assert np.abs(in_graph - as_loaded).max() < 2e-5
    assert np.abs(in_graph - own).max() > 1e-3  # the 8 bits do move them: the comparison can tell
