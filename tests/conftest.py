"""The suite's fixtures and hooks; what tests share beside fixtures is in tests/support/, and what
they share with the benchmarks in harness/."""

import contextlib
import gc
import io
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import torch

from capsnet import CapsNet
from capsnet.baseline import BaselineCNN
from capsnet.shipping import onnx_file
from harness.app_server import serving_app
from harness.chromium_browser import chromium
from harness.gradio_clients import api_client
from harness.paths import REPO, WEIGHTS
from tests.support.mnist_files import TINY_MNIST_IMAGES, first_mnist_images
from tests.support.page_weights import reading_as_the_page
from tests.support.train_flags import tiny_run_flags

GRADIO_CACHE = pytest.StashKey[str]()


def pytest_configure(config):
    """Two threads for torch, shared out among pytest-xdist's processes where they run the tests
    (one each on two cores: more, and each process's threads wait on the others'); Gradio's cache
    in this process (app.py imported, the page served in process) a folder of the session's own,
    removed when it ends, not the system's temp folder; no garbage collection while the test files
    are imported (`pytest_collection_finish`)."""
    gc.disable()
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", 1))
    torch.set_num_threads(max(1, min(2, torch.get_num_threads()) // workers))
    config.stash[GRADIO_CACHE] = os.environ["GRADIO_TEMP_DIR"] = tempfile.mkdtemp(prefix="capsnet-tests-gradio-")


def pytest_unconfigure(config):
    shutil.rmtree(config.stash[GRADIO_CACHE], ignore_errors=True)


def pytest_collection_finish(session):
    """The collector back on once the tests are collected. Importing gradio, torch, torchvision
    and the test files leaves half a million objects to track and little garbage: with the
    collector on, its 2,000-odd runs meanwhile took 1.8 s of the fast tier's 40 (gc.callbacks)."""
    gc.enable()


def pytest_collection_modifyitems(items):
    """Every test that starts a server or a browser belongs to the slow tier; a test that needs a
    CUDA GPU is skipped, saying so, where there is none."""
    no_gpu = pytest.mark.skip(reason="needs a CUDA GPU: none is visible to PyTorch on this machine")
    for item in items:
        if item.get_closest_marker("server") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("gpu") and not torch.cuda.is_available():
            item.add_marker(no_gpu)


@pytest.fixture(scope="session")
def app():
    """app.py, imported (the network loaded) only by the tests that use it; a skip saying why
    where there are no trained weights."""
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}: the app needs them (run train.py)")
    cnn = Path(os.environ.get("CAPSNET_CNN_WEIGHTS", WEIGHTS / "cnn"))
    if not (cnn / "model.safetensors").exists():
        pytest.skip(
            f"no trained CNN baseline in {cnn}: the app reads with it beside the CapsNet "
            "(train.py --model cnn --out weights/cnn)"
        )
    import app

    return app


@pytest.fixture(scope="session")
def url(app, tmp_path_factory):
    """The URL of `python app.py` served on a free loopback port, one server for every test module
    that talks to the page as it ships (each start loads torch, Gradio and five networks again),
    writing its files (uploads, results) under the session's temporary folder."""
    with serving_app(start_timeout=600, files=tmp_path_factory.mktemp("server")) as served:
        yield served


@pytest.fixture(scope="module")
def client(url, tmp_path_factory):
    """gradio_client's Client of the module's server, downloading what it answers with into the
    module's temporary folder."""
    with api_client(url, tmp_path_factory.mktemp("downloads")) as client:
        yield client


@pytest.fixture(scope="module")
def client_without_downloads(url):
    """gradio_client's Client of the module's server that downloads nothing: a file answered
    comes back as the server's URL of it."""
    with api_client(url, False) as client:
        yield client


@pytest.fixture(scope="session")
def dry_run(tmp_path_factory) -> tuple[Path, str]:
    """The folders `python -m playground.publish --owner someone --dry-run OUT` writes (OUT), and
    what it prints; a skip where the page's four networks are not all in weights/."""
    if not all((WEIGHTS / folder / "model.safetensors").is_file() for folder in ("", "cnn", "pairs", "pairs-cnn")):
        pytest.skip(f"the page's four networks are not all in {WEIGHTS}")
    from playground import publish

    out = tmp_path_factory.mktemp("published")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert publish.main(["--owner", "someone", "--dry-run", str(out)]) == 0
    return out, printed.getvalue()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """MNIST's folder: $CAPSNET_DATA_DIR (CI: ../shared/data), else ./data, downloaded when missing."""
    return Path(os.environ.get("CAPSNET_DATA_DIR", REPO / "data"))


def missing_data(reason: str) -> None:
    """A test's data set is not there: a skip that says why, or, where $CAPSNET_REQUIRE_DATA is 1
    (CI, .ci/run), a failure: there a skip would let the suite pass without the tests that need it."""
    if os.environ.get("CAPSNET_REQUIRE_DATA") == "1":
        pytest.fail(f"{reason} (CAPSNET_REQUIRE_DATA=1: the data must be there)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def mnist_test(data_dir):
    """MNIST's 10,000 test images, or a skip (in CI a failure) that says why they cannot be had."""
    from capsnet.data.datasets import mnist

    try:
        return mnist(data_dir, train=False)
    except RuntimeError as error:
        missing_data(f"MNIST is neither in {data_dir} nor downloadable: {error}")


@pytest.fixture(scope="session")
def semeion_path(data_dir) -> Path:
    """Semeion's digits (other people's handwriting), or a skip (in CI a failure) that says where
    they were looked for."""
    path = data_dir / "semeion" / "semeion.data"
    if not path.exists():
        missing_data(f"no Semeion digits at {path}")
    return path


@pytest.fixture(scope="session")
def tiny_mnist(mnist_test, data_dir, tmp_path_factory) -> Path:
    """64 training and 64 test images of MNIST in a data dir of their own."""
    return first_mnist_images(
        tmp_path_factory.mktemp("tiny-mnist"), mnist_test, data_dir, TINY_MNIST_IMAGES, TINY_MNIST_IMAGES
    )


@pytest.fixture(scope="session")
def tiny_run(tiny_mnist, tmp_path_factory) -> Path:
    """A whole tiny run of train.py (tests/support/train_flags.py's tiny_run_flags): its weights/,
    model card and checkpoints/last.pt. The tests that resume, refuse or push it leave it as it is."""
    import train

    run = tmp_path_factory.mktemp("tiny-run")
    assert train.main(tiny_run_flags(tiny_mnist, run)) == 0
    return run


@pytest.fixture(scope="session")
def small_mnist(mnist_test, data_dir, tmp_path_factory) -> Path:
    """512 training and 64 test images of MNIST: enough steps to kill a run in the middle of."""
    return first_mnist_images(tmp_path_factory.mktemp("small-mnist"), mnist_test, data_dir, 512, TINY_MNIST_IMAGES)


@pytest.fixture(scope="session")
def trained_model() -> CapsNet:
    if not (WEIGHTS / "model.safetensors").exists():
        pytest.skip(f"no trained weights in {WEIGHTS}: run train.py first")
    return CapsNet.from_pretrained(WEIGHTS).eval()


@pytest.fixture(scope="session")
def trained_cnn() -> BaselineCNN:
    if not (WEIGHTS / "cnn" / "model.safetensors").exists():
        pytest.skip(f"no trained CNN baseline in {WEIGHTS / 'cnn'}")
    return BaselineCNN.from_pretrained(WEIGHTS / "cnn").eval()


@pytest.fixture(scope="session")
def page_graphs(app) -> dict[str, bytes]:
    """The graphs the app serves the page (capsnet/shipping/onnx_file.py), as it started: kept on disk
    (capsnet/shipping/kept_graphs.py) from an export of its packed networks: the shipped CapsNet's
    and CNN's, and the turn of a digit. An export takes seconds: the tests that read the graphs read
    these."""
    return {
        "capsules": app.READING.page_network.data,
        "routing": app.READING.routing_graph.data,
        "probabilities": app.TURN_IT.cnn_graph.data,
        "turn": app.TURN_IT.turn_graph.data,
    }


@pytest.fixture(scope="session")
def plain_graphs(trained_model, trained_cnn) -> dict[str, bytes]:
    """The shipped CapsNet's and CNN's graphs exported again, from the plain (unpacked) networks: a
    second export of each of page_graphs' networks, for the tests that compare two."""
    return {
        "capsules": onnx_file.capsules_graph(trained_model),
        "probabilities": onnx_file.probabilities_graph(trained_cnn),
    }


@pytest.fixture
def model() -> CapsNet:
    torch.manual_seed(0)
    return CapsNet()


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, driven by Playwright, once a test module that drives the page."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    with sync_api.sync_playwright() as playwright, chromium(playwright) as launched:
        yield launched


@pytest.fixture
def page_weights(app):
    """The app's CapsNet, in this process, reading with the page's weights for the test
    (tests/support/page_weights.py); its own again after."""
    with reading_as_the_page(app.NETWORKS.capsnet):
        yield
