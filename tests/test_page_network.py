"""The graphs for the page: each that capsnet/shipping/onnx_file.py exports computes what the library does
(ONNX Runtime, the runtime the page runs in WebAssembly: the CapsNet's capsules, the CNN's
probabilities, the turn of a digit, and the pairs networks' as the Two-digits section reads with
them), the networks' weights stored in float16 (the CapsNet's PrimaryCaps and W_ij in 8 bits:
lengths within the page's 0.01, tests/test_onnx_storage.py), the same bytes at
every export, named by their hash, the network left in its mode; ONNX Runtime Web's files are the
npm package's, every file served compressed to a browser that takes it and kept for good
(tests/test_page_reader.py and tests/test_turn_reader.py run them in Chromium)."""

import copy
import hashlib
import re

import numpy as np
import onnx
import pytest
import torch
from starlette.applications import Starlette
from starlette.testclient import TestClient

from capsnet.data.affine import AffineChange, transform
from capsnet.model import CapsNet
from capsnet.routing import agreement
from capsnet.shipping.onnx_file import CHANGE, PREDICTION_WEIGHTS, PRIMARY_WEIGHTS, probabilities_graph
from capsnet.shipping.packed import pack_convolutions
from playground import page_network, two_digits_pad
from playground.page_network import (
    CACHED,
    RUNTIME,
    RUNTIME_FILES,
    RUNTIME_FOLDER,
    PageGraph,
    runtime_file,
    runtime_routes,
)

ort = pytest.importorskip("onnxruntime", reason="pip install -r requirements-dev.txt")

LENGTHS = 0.01  # how far the page's capsules may be from the network's: PrimaryCaps in 8 bits


@pytest.fixture(scope="module")
def trained(trained_model) -> CapsNet:
    return trained_model


@pytest.fixture(scope="module")
def graph(page_graphs) -> bytes:
    return page_graphs["capsules"]


def test_the_graph_reads_as_the_network_does(trained, graph, mnist_test):
    images = mnist_test.data[:64, None].float() / 255  # [64, 1, 28, 28]
    session = ort.InferenceSession(graph)
    with torch.inference_mode():
        expected = trained(images)
    for image, capsules, lengths in zip(images, expected.capsules, expected.lengths, strict=True):
        v, v_lengths, votes = session.run(None, {"images": image[None].numpy()})
        assert v.shape == (1, 10, 16) and v_lengths.shape == (1, 10) and votes.shape == (1152, 10, 16)
        assert np.abs(v_lengths[0] - lengths.numpy()).max() < LENGTHS
        assert np.abs(v[0] - capsules.numpy()).max() < LENGTHS
        assert v_lengths[0].argmax() == lengths.argmax()


def test_the_routing_graph_routes_the_votes_as_the_library_does_for_every_r(trained, graph, page_graphs, mnist_test):
    capsules, routing = ort.InferenceSession(graph), ort.InferenceSession(page_graphs["routing"])
    images = mnist_test.data[:16, None].float() / 255  # [16, 1, 28, 28]
    traces = trained.routing_traces(images, 5)
    for image, trace in zip(images, traces, strict=True):
        _, _, votes = capsules.run(None, {"images": image[None].numpy()})
        lengths, shares, agreements = routing.run(None, {"votes": votes})
        assert lengths.shape == (5, 10) and shares.shape == (5, 1152, 10) and agreements.shape == (5, 10)
        assert np.abs(lengths - trace.lengths.numpy()).max() < LENGTHS  # the votes of the page's weights
        assert (lengths.argmax(axis=1) == trace.predictions.numpy()).all()
        expected_shares = (trace.couplings * trace.u_hat.norm(dim=-1)).numpy()  # c_ij |u_hat_j|i|
        assert np.abs(shares - expected_shares).max() < 2e-2 * np.abs(expected_shares).max()
        assert np.abs(agreements - agreement(trace.u_hat, trace.capsules, trace.couplings).numpy()).max() < 2e-3
    one = routing.run(None, {"votes": votes})  # the first and fifth rows differ: r is routed again
    assert np.abs(one[0][0] - one[0][4]).max() > 0.05


def test_the_graph_stores_its_weights_in_float16_primarycaps_and_w_in_eight_bits_and_no_decoder(trained, graph):
    sizes = {onnx.TensorProto.FLOAT16: 2, onnx.TensorProto.INT8: 1}  # bytes a weight
    stored = [tensor for tensor in onnx.load_from_string(graph).graph.initializer if tensor.data_type in sizes]
    in_eight_bits = [tensor.name for tensor in stored if tensor.data_type == onnx.TensorProto.INT8]
    assert sorted(in_eight_bits) == sorted([f"{PRIMARY_WEIGHTS}_int8", f"{PREDICTION_WEIGHTS}_int8"])
    decoder = sum(p.numel() for p in trained.decoder.parameters())
    assert sum(int(np.prod(tensor.dims)) for tensor in stored) == sum(p.numel() for p in trained.parameters()) - decoder
    assert len(graph) < 1.05 * sum(sizes[tensor.data_type] * int(np.prod(tensor.dims)) for tensor in stored)


def test_a_graph_is_named_by_its_bytes(graph, page_graphs):
    served = PageGraph.of(graph)
    assert served == PageGraph(graph, f"network/{hashlib.sha256(graph).hexdigest()[:16]}.onnx")
    other = PageGraph.of(page_graphs["probabilities"])
    assert other.url != served.url and re.fullmatch(r"network/[0-9a-f]{16}\.onnx", other.url)


@pytest.mark.slow  # its point is a second export of each network, a second each
def test_every_export_gives_the_same_bytes_and_leaves_the_network_in_its_mode(page_graphs, plain_graphs, trained_cnn):
    """The app's graphs (kept on disk from an export of packed networks, autograd recording)
    against plain networks' exported now (conftest's plain_graphs), and a packed CNN in training
    mode exported with autograd off: the same bytes, so the same name (dropout off in the graph),
    and the CNN still training after."""
    assert (page_graphs["capsules"], page_graphs["probabilities"]) == (
        plain_graphs["capsules"],
        plain_graphs["probabilities"],
    )
    training = pack_convolutions(copy.deepcopy(trained_cnn)).train()
    with torch.no_grad():
        assert probabilities_graph(training) == plain_graphs["probabilities"]
    assert training.training


def test_the_cnn_s_graph_reads_as_the_cnn_does(trained_cnn, page_graphs, mnist_test):
    session = ort.InferenceSession(page_graphs["probabilities"])
    assert not trained_cnn.training  # its dropout still off
    images = mnist_test.data[:64, None].float() / 255
    with torch.inference_mode():
        expected = trained_cnn(images).probabilities.numpy()
    read = np.concatenate([session.run(None, {"images": image[None].numpy()})[0] for image in images])
    assert np.abs(read - expected).max() < 2e-3 and (read.argmax(1) == expected.argmax(1)).all()


def test_the_pairs_networks_graphs_read_the_examples_as_the_section_s_reader_does(app):
    """Each MNIST test pair under the Two-digits pad: the pairs CapsNet's graph gives the reader's
    capsule lengths within 0.01 and the same longest two, the CNN's graph its ten sigmoids within
    0.01 and the same two most probable, and the decoder's graph redraws each of the two longest
    capsules as the network's decoder does."""
    section = app.TWO_DIGITS
    if section.graphs is None:
        pytest.skip(f"no pairs networks: {section.problem}")
    capsules, decoder, sigmoids = (
        ort.InferenceSession(graph.data)
        for graph in (section.graphs.capsules, section.graphs.decoder, section.graphs.sigmoids)
    )
    examples = sorted(two_digits_pad.EXAMPLES_FOLDER.glob("*.png"))
    assert len(examples) >= 8
    for example in examples:
        layers = two_digits_pad.example_layers(example).astype(np.float32) / 255  # [2, 28, 28]
        fields = np.concatenate([layers.max(axis=0, keepdims=True), layers])  # [3, 28, 28]: the input, each pen
        reading = section.reader.read_fields(fields)
        v, lengths, _ = capsules.run(None, {"images": fields[None, :1]})
        (probabilities,) = sigmoids.run(None, {"images": fields[None, :1]})
        assert np.abs(lengths[0] - reading.lengths).max() < 0.01, example.name
        longest = np.argsort(-lengths[0])[:2]
        assert (longest == np.argsort(-reading.lengths)[:2]).all(), example.name
        assert np.abs(probabilities[0] - reading.probabilities).max() < 0.01, example.name
        assert (np.argsort(-probabilities[0])[:2] == np.argsort(-reading.probabilities)[:2]).all(), example.name
        masked = np.zeros((2, *v[0].shape), dtype=np.float32)  # [2, 10, 16]: each capsule alone
        masked[[0, 1], longest] = v[0, longest]
        (pictures,) = decoder.run(None, {"capsules": masked.reshape(2, -1)})
        with torch.inference_mode():
            redrawn = section.reader.capsnet.decode(torch.from_numpy(v), torch.from_numpy(longest)[None])
        assert np.abs(pictures - redrawn.reshape(2, -1).numpy()).max() < 0.01, example.name


def test_the_pairs_cnn_s_graph_gives_its_sigmoids_not_a_softmax(app):
    """The pairs CNN counts two digits from two high sigmoids: a softmax's ten sum to one."""
    if app.TWO_DIGITS.graphs is None:
        pytest.skip(f"no pairs networks: {app.TWO_DIGITS.problem}")
    session = ort.InferenceSession(app.TWO_DIGITS.graphs.sigmoids.data)
    layers = two_digits_pad.example_layers(sorted(two_digits_pad.EXAMPLES_FOLDER.glob("*.png"))[0]) / 255
    overlay = layers.max(axis=0, keepdims=True).astype(np.float32)  # [1, 28, 28]: the two digits' input
    (probabilities,) = session.run(None, {"images": overlay[None]})
    assert probabilities.sum() > 1.5


def test_the_turn_s_graph_turns_as_the_library_does(page_graphs, mnist_test):
    session = ort.InferenceSession(page_graphs["turn"])
    image = mnist_test.data[7:8, None].float() / 255
    for change in (AffineChange(), AffineChange(rotation=-180), AffineChange(rotation=35, scale=1.4, shear=-0.6),
                   AffineChange(stretch_x=0.5, stretch_y=1.5, shift_x=-6, shift_y=6)):  # fmt: skip
        numbers = np.array([getattr(change, name) for name in CHANGE], dtype=np.float64)
        turned = session.run(None, {"images": image.numpy(), "change": numbers})[0]
        assert np.abs(turned - transform(image, change).numpy()).max() < 1e-5, change


def test_the_runtime_is_the_npm_package_s_files():
    """Each file's SHA-256 as onnxruntime-web/README.md records it from the package."""
    recorded = dict(re.findall(r"^\| (\S+) \| ([0-9a-f]{64}) \|$", (RUNTIME_FOLDER / "README.md").read_text(), re.M))
    assert recorded.keys() == RUNTIME_FILES.keys()
    for name, digest in recorded.items():
        data, _, _ = runtime_file(name)
        assert hashlib.sha256(data).hexdigest() == digest, name
    assert f"onnxruntime-web@{page_network.VERSION}" in (RUNTIME_FOLDER / "README.md").read_text()


def test_every_file_is_served_for_good_and_gzipped(graph):
    client = TestClient(
        Starlette(routes=[PageGraph(graph, "network/0123456789abcdef.onnx").route(), *runtime_routes()])
    )
    for encoding in ("gzip", "identity"):
        answer = client.get("/network/0123456789abcdef.onnx", headers={"Accept-Encoding": encoding})
        assert answer.status_code == 200 and answer.content == graph and answer.headers["cache-control"] == CACHED
        assert answer.headers.get("content-encoding") == ("gzip" if encoding == "gzip" else None)
    assert int(answer.headers["content-length"]) == len(graph)
    wasm = f"/{RUNTIME}/ort-wasm-simd-threaded.wasm"
    zipped = client.get(wasm, headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip" and zipped.headers["content-type"] == "application/wasm"
    plain = client.get(wasm, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == zipped.content  # the client unzips
    assert int(zipped.headers["content-length"]) < len(plain.content) / 3
    with client.stream("GET", wasm, headers={"Accept-Encoding": "gzip, deflate, br, zstd"}) as brotli:
        assert brotli.headers["content-encoding"] == "br"  # its bytes: tests/js/runtime_files.test.js
        assert b"".join(brotli.iter_raw()) == runtime_file("ort-wasm-simd-threaded.wasm")[2]
        assert int(brotli.headers["content-length"]) < 0.7 * int(zipped.headers["content-length"])
    for name, media_type in RUNTIME_FILES.items():
        answer = client.get(f"/{RUNTIME}/{name}")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(media_type)
        assert answer.headers["cache-control"] == CACHED
        assert answer.headers["content-encoding"] in {"gzip", "br"}, name  # httpx takes both
    assert client.get(f"/{RUNTIME}/ort.all.min.js").status_code == 404
