"""The decoder in the page (capsnet/shipping/onnx_file.py `decoder_graph`, run in the page's
worker): it draws what the network's decoder draws, within a grey level, for any number of
capsules a run; the served app names, and serves for good, the decoder graph of the weights it
reads with, and only that one; a server reading with other weights names another, that network's."""

import json
import os
import urllib.error
import urllib.request

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from starlette.applications import Starlette
from starlette.testclient import TestClient

from capsnet import load_model
from capsnet.dimensions import perturb
from capsnet.shipping.kept_graphs import kept
from capsnet.shipping.onnx_file import decoder_graph, file_name
from harness.app_server import serving_app
from harness.paths import WEIGHTS
from playground.page_network import CACHED, PageGraph

PAIRS_WEIGHTS = WEIGHTS / "pairs"  # a CapsNet of the same shape, trained on other examples


ort = pytest.importorskip("onnxruntime", reason="pip install -r requirements-dev.txt")


def test_the_graph_draws_what_the_decoder_draws_for_any_number_of_capsules(trained_model, mnist_test):
    """Each example's winner and a moved runner-up, in one run and one by one: within one grey level
    of 255 of the network's pictures (its weights stored in float16)."""
    session = ort.InferenceSession(kept(decoder_graph, trained_model))
    images = mnist_test.data[:24, None].float() / 255
    with torch.inference_mode():
        capsules, lengths = trained_model.capsules(images)  # [24, 10, 16], [24, 10]
        digits = lengths.argsort(dim=1, descending=True)[:, :2]  # the winner, the runner-up
        offsets = torch.linspace(-0.25, 0.25, 16)
        moved = torch.stack([perturb(v, int(d[1]), offsets) for v, d in zip(capsules, digits, strict=True)])
        decoded = torch.cat([digits[:, 0], digits[:, 1]])  # [48]
        masked = torch.cat([capsules, moved]) * F.one_hot(decoded, 10)[..., None]  # each but one capsule zero
        expected = trained_model.decoder(masked.flatten(1)).numpy()  # [48, 784]
    (together,) = session.run(None, {"capsules": masked.flatten(1).numpy()})
    assert together.shape == (48, 784) and np.abs(together - expected).max() < 1 / 255
    (alone,) = session.run(None, {"capsules": masked[5:6].flatten(1).numpy()})
    np.testing.assert_allclose(alone[0], together[5], atol=1e-6)
    assert expected.max() > 0.9  # trained: a wrong weight moves the pictures far more than a grey level


def test_a_decoder_is_served_under_its_hash_for_good(model):
    data = kept(decoder_graph, model)
    decoder = PageGraph.of(data)
    assert decoder.url == f"network/{file_name(data)}.onnx"
    with TestClient(Starlette(routes=[decoder.route()])) as client:
        answer = client.get(f"/{decoder.url}")
        assert answer.status_code == 200 and answer.content == decoder.data
        assert answer.headers["cache-control"] == CACHED
        assert answer.headers["content-type"] == "application/octet-stream"
        assert client.get("/network/0123456789abcdef.onnx").status_code == 404
        assert client.post(f"/{decoder.url}").status_code == 405


def page_decoder_url(url: str) -> str:
    """The address of the decoder the served page loads: the reading panel's props.decoder_url."""
    with urllib.request.urlopen(f"{url}config", timeout=60) as response:
        components = json.load(response)["components"]
    (panel,) = [c for c in components if c.get("props", {}).get("elem_id") == "reading-panel"]
    return panel["props"]["props"]["decoder_url"]


def fetched(address: str) -> tuple[int, bytes, str | None]:
    try:
        with urllib.request.urlopen(address, timeout=60) as response:
            return response.status, response.read(), response.headers["Cache-Control"]
    except urllib.error.HTTPError as error:
        return error.code, b"", None


@pytest.mark.server
def test_the_page_loads_the_decoder_of_the_weights_the_server_reads_with(url, app):
    status, data, cache = fetched(url + page_decoder_url(url))
    assert status == 200 and cache == CACHED
    assert data == decoder_graph(load_model(app.NETWORKS.weights)) == app.READING.decoder.data
    assert fetched(f"{url}network/0123456789abcdef.onnx")[0] == 404


@pytest.mark.server
def test_a_server_reading_with_other_weights_serves_their_decoder_and_not_the_shipped_one(app, monkeypatch):
    if not (PAIRS_WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no other weights to serve: {PAIRS_WEIGHTS} has no model.safetensors")
    shipped = PageGraph.of(decoder_graph(load_model(WEIGHTS)))
    monkeypatch.setenv("CAPSNET_WEIGHTS", os.fspath(PAIRS_WEIGHTS))
    with serving_app(start_timeout=600) as url:
        address = page_decoder_url(url)
        assert address != shipped.url
        status, data, _ = fetched(url + address)
        assert status == 200 and data == decoder_graph(load_model(PAIRS_WEIGHTS))
        assert fetched(url + shipped.url)[0] == 404
