"""Graphs kept on disk (capsnet/shipping/kept_graphs.py): an export is read back instead of made
again, and only for exactly what it was exported from: other weights, another config, other
options or an edited module of the exporting code are another key. A folder that cannot be written
to costs the export, never the graph. A graph's gzip, served to the page, is kept beside it. (That
the app's kept graphs are a fresh export's bytes: tests/test_page_network.py's
test_every_export_gives_the_same_bytes_and_leaves_the_network_in_its_mode.)"""

import dataclasses
import gzip
import logging
import shutil
import stat

import pytest
import torch
from starlette.applications import Starlette
from starlette.testclient import TestClient

from capsnet.model import CapsNet, CapsNetConfig
from capsnet.shipping import kept_graphs, onnx_file
from capsnet.shipping.kept_graphs import FOLDER_VARIABLE, graph_key, kept
from playground import page_network
from playground.page_network import PageGraph

SMALL = CapsNetConfig(conv1_channels=8, primary_capsule_types=2, decoder_hidden=(16, 32))  # quick to make


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An empty folder for the kept graphs."""
    monkeypatch.setenv(FOLDER_VARIABLE, str(tmp_path / "graphs"))
    return tmp_path / "graphs"


class CountedExport:
    """An exporter that counts its calls; its graph is its arguments' repr."""

    def __init__(self):
        self.calls = 0
        self.__name__ = self.__qualname__ = "counted_graph"

    def __call__(self, *arguments, **options) -> bytes:
        self.calls += 1
        return repr((arguments, sorted(options.items()))).encode()


def small_capsnet(seed: int = 0) -> CapsNet:
    torch.manual_seed(seed)
    return CapsNet(SMALL)


def test_a_graph_is_exported_once_then_read_from_its_folder(folder):
    export = CountedExport()
    first = kept(export, 28, as_products=True)
    assert export.calls == 1 and first == export(28, as_products=True)
    assert kept(export, 28, as_products=True) == first and export.calls == 2  # the second read from disk
    (kept_file,) = folder.iterdir()  # one file, no temporary one left beside it
    assert kept_file.name.startswith("counted_graph-") and kept_file.read_bytes() == first
    assert stat.S_IMODE(kept_file.stat().st_mode) & 0o044 == 0o044  # readable by others, as any file
    kept(export, 29)
    assert export.calls == 3 and len(list(folder.iterdir())) == 2  # another argument: another graph


@pytest.mark.slow  # its point is an export, seconds
def test_a_real_graph_comes_back_byte_for_byte(folder):
    exported = kept(onnx_file.turn_graph, 28)
    assert kept(onnx_file.turn_graph, 28) == exported == onnx_file.turn_graph(28)


def test_the_key_changes_with_every_weight_the_config_and_the_options():
    network = small_capsnet()
    key = graph_key(onnx_file.capsules_graph, (network,), {})
    assert graph_key(onnx_file.capsules_graph, (small_capsnet(),), {}) == key  # the same weights
    with torch.no_grad():
        network.decoder[-2].bias[0] += 1e-6  # one weight of the last layer, a little
    assert graph_key(onnx_file.capsules_graph, (network,), {}) != key
    again = small_capsnet()
    other_routing = CapsNet(dataclasses.replace(SMALL, routing_iterations=2))
    other_routing.load_state_dict(again.state_dict())  # the same weights, another config
    assert graph_key(onnx_file.capsules_graph, (other_routing,), {}) != key
    assert graph_key(onnx_file.capsules_graph, (again,), {"eight_bits": False}) != key
    assert graph_key(onnx_file.decoder_graph, (again,), {}) != key  # another exporter


def test_the_exporting_code_is_every_capsnet_module_onnx_file_imports():
    modules = kept_graphs._imported_modules(onnx_file.__name__, set())
    for module in ("capsnet.model", "capsnet.routing", "capsnet.squash", "capsnet.baseline", "capsnet.data.affine"):
        assert module in modules  # through capsnet.model and onnx_file's own imports
    assert "capsnet.shipping.onnx_storage" in modules and "capsnet.training.run" not in modules


def test_an_edited_module_of_the_exporting_code_is_another_key(tmp_path, monkeypatch):
    package = tmp_path / "capsnet"
    shutil.copytree(kept_graphs._PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(kept_graphs, "_PACKAGE", package)
    kept_graphs.exporting_code.cache_clear()
    try:
        before = kept_graphs.exporting_code()
        routing = package / "routing.py"
        routing.write_text(routing.read_text() + "\n# an edit\n")
        kept_graphs.exporting_code.cache_clear()
        assert kept_graphs.exporting_code() != before
    finally:
        kept_graphs.exporting_code.cache_clear()


def test_a_folder_that_cannot_be_written_costs_the_export_and_says_why(tmp_path, monkeypatch, caplog):
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv(FOLDER_VARIABLE, str(tmp_path / "a-file" / "graphs"))
    export = CountedExport()
    with caplog.at_level(logging.WARNING, logger=kept_graphs.__name__):
        assert kept(export, 1) == kept(export, 1) == export(1)
    assert export.calls == 3  # exported every time
    assert "is made anew at every start: it cannot be kept" in caplog.text


def test_a_graph_s_gzip_is_kept_beside_it_and_served(folder, monkeypatch):
    graph = PageGraph.of(bytes(range(256)) * 64)
    made = []
    monkeypatch.setattr(page_network, "compressed", lambda data: made.append(data) or gzip.compress(data))
    graph.route()
    route = graph.route()  # a second start: the gzip read back
    assert len(made) == 1 and len(list(folder.glob("*.gz"))) == 1
    app = Starlette(routes=[route])
    answer = TestClient(app).get(f"/{graph.url}", headers={"Accept-Encoding": "gzip"})
    assert answer.headers["content-encoding"] == "gzip" and answer.content == graph.data  # decoded by the client
