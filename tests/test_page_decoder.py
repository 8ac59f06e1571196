"""The decoder in the page (playground/page_decoder.py): the served app names, and serves for
good, the decoder file of the weights it reads with, and only that one; a server reading with
other weights names another file, that network's."""

import json
import os
import urllib.error
import urllib.request

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from capsnet import load_model
from capsnet.shipping.decoder_file import decoder_file, file_name
from harness.app_server import serving_app
from harness.paths import WEIGHTS
from playground.page_decoder import PageDecoder
from playground.page_network import CACHED

PAIRS_WEIGHTS = WEIGHTS / "pairs"  # a CapsNet of the same shape, trained on other examples


def test_a_decoder_is_served_under_its_hash_for_good(model):
    decoder = PageDecoder.of(model)
    assert decoder.url == f"decoder/{file_name(decoder_file(model))}.safetensors"
    assert decoder.data == decoder_file(model)
    with TestClient(Starlette(routes=[decoder.route()])) as client:
        answer = client.get(f"/{decoder.url}")
        assert answer.status_code == 200 and answer.content == decoder.data
        assert answer.headers["cache-control"] == CACHED
        assert answer.headers["content-type"] == "application/octet-stream"
        assert client.get("/decoder/0123456789abcdef.safetensors").status_code == 404
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
    assert data == decoder_file(load_model(app.NETWORKS.weights)) == app.READING.decoder.data
    assert fetched(f"{url}decoder/0123456789abcdef.safetensors")[0] == 404


@pytest.mark.server
def test_a_server_reading_with_other_weights_serves_their_decoder_and_not_the_shipped_one(app, monkeypatch):
    if not (PAIRS_WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no other weights to serve: {PAIRS_WEIGHTS} has no model.safetensors")
    shipped = PageDecoder.of(load_model(WEIGHTS))
    monkeypatch.setenv("CAPSNET_WEIGHTS", os.fspath(PAIRS_WEIGHTS))
    with serving_app(start_timeout=600) as url:
        address = page_decoder_url(url)
        assert address != shipped.url
        status, data, _ = fetched(url + address)
        assert status == 200 and data == decoder_file(load_model(PAIRS_WEIGHTS))
        assert fetched(url + shipped.url)[0] == 404
