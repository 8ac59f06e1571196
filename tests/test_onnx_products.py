"""The CapsNet's graph with its PrimaryCaps convolution and its predictions as matrix products
(capsnet/shipping/onnx_products.py): the page's graph has them, and reads what the graph as exported
reads, to float32's rounding, on trained weights (test_page_network.py checks both against PyTorch)."""

import numpy as np
import onnx
import pytest

from capsnet.shipping.kept_graphs import kept
from capsnet.shipping.onnx_file import capsules_graph
from capsnet.shipping.onnx_products import predictions_as_product, primary_convolution_as_product

ort = pytest.importorskip("onnxruntime", reason="pip install -r requirements-dev.txt")


@pytest.fixture(scope="module")
def as_exported(trained_model) -> bytes:
    return kept(capsules_graph, trained_model, as_products=False)  # exported once on a machine


def test_the_page_s_graph_has_the_products_in_place_of_the_convolution_and_the_einsum(page_graphs, as_exported):
    def operators(graph: bytes) -> list[str]:
        return [node.op_type for node in onnx.load_from_string(graph).graph.node]

    exported, products = operators(as_exported), operators(page_graphs["capsules"])
    assert exported.count("Conv") == 2 and exported.count("Einsum") == 1
    assert products.count("Conv") == 1 and "Einsum" not in products  # conv1 stays a convolution
    assert products.count("MatMul") == exported.count("MatMul") + 2
    assert products.count("Gather") == exported.count("Gather") + 1


def test_the_products_read_what_the_graph_as_exported_reads(page_graphs, as_exported, mnist_test):
    images = mnist_test.data[:32, None].float().numpy() / 255  # [32, 1, 28, 28]
    products, exported = ort.InferenceSession(page_graphs["capsules"]), ort.InferenceSession(as_exported)
    for image in images:
        (v, lengths, votes), (v_exported, lengths_exported, votes_exported) = (
            session.run(None, {"images": image[None]}) for session in (products, exported)
        )
        assert np.abs(v - v_exported).max() < 1e-5 and np.abs(lengths - lengths_exported).max() < 1e-5
        assert np.abs(votes - votes_exported).max() < 1e-5
    assert lengths_exported.max() > 0.9  # trained capsules: a broken product moves them far more than 1e-5


def test_a_graph_the_rewrites_do_not_fit_is_refused(page_graphs):
    """The CNN's graph has no strided convolution and no einsum: each rewrite says so."""
    cnn = onnx.load_from_string(page_graphs["probabilities"])
    with pytest.raises(ValueError, match="0 strided Conv nodes"):
        primary_convolution_as_product(cnn)
    with pytest.raises(ValueError, match="0 Einsum nodes"):
        predictions_as_product(cnn)
