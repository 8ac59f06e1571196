"""The page's big files from the Hub's CDN (playground/hub_copies.py, page/downloaded.js): with the
weights from Hub repos, the graphs and ONNX Runtime Web's WebAssembly come from the resolve addresses
at the pinned commit, each checked against the SHA-256 the Space names; a file the CDN changed is
refused and taken from the Space, with no error shown; from a folder, everything from the Space.
In Chromium against a stand-in of the Hub's CDN on loopback (harness/stand_in_hub.py): the Hub
cannot be reached from where the tests run."""

import base64
import hashlib
import json
import re
import shutil
from urllib.parse import urlsplit

import pytest

from harness.app_server import serving_app
from harness.chromium_browser import PHONE
from harness.digit_strokes import strokes
from harness.pad_drivers import PadDriver
from harness.stand_in_hub import COMMIT, OWNER, preloaded_cache, stand_in_cdn
from playground import hub_copies, page_modules, publish
from playground.drawing_pad import SIDE
from playground.page_network import RUNTIME, RUNTIME_FOLDER
from tests.support.playground_pages import no_alarm, page_module, playground_page, wait_for_networks

CAPSULES = "capsnet-mnist/onnx/capsules.onnx.gz"  # the reader's graph, as its repo holds it for the page
WASM = f"{publish.RUNTIME_REPO}/{hub_copies.RUNTIME_COPY}"
# In the page: whether the reading shown is the page's own, and its digit
SHOWN = f"() => {page_module('reading_store.js')}.then((store) => store.shown.current() != null)"
BOX = (SIDE * 0.2, SIDE * 0.15, SIDE * 0.6, SIDE * 0.7)  # where a digit is drawn: left, top, width, height
SRI = re.compile(  # Chromium's own lines for a file its integrity refused, not the page's
    r"^Failed to find a valid digest in the 'integrity' attribute"
    r"|^Fetch API cannot load .* SRI's integrity checks failed"
)


def sri(data: bytes) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()


def test_weights_from_a_folder_have_no_copies(monkeypatch):
    monkeypatch.delenv(hub_copies.RUNTIME_VARIABLE, raising=False)
    assert hub_copies.graph_copies("weights", "weights") == {}
    assert hub_copies.runtime_copy() == {}


def test_a_snapshot_names_each_published_graph_at_its_commit(dry_run, tmp_path):
    out, _ = dry_run
    cache = preloaded_cache(out, tmp_path / "cache", ["capsnet-mnist"])
    snapshot = cache / f"models--{OWNER}--capsnet-mnist" / "snapshots" / COMMIT
    copies = hub_copies.graph_copies(f"{OWNER}/capsnet-mnist@main", snapshot)
    graphs = sorted((out / "capsnet-mnist" / "onnx").glob("*.onnx"))
    assert len(graphs) == len(copies) == 4
    for path in graphs:
        data, gzipped = path.read_bytes(), path.with_suffix(".onnx.gz").read_bytes()
        copy = copies[f"network/{hashlib.sha256(data).hexdigest()[:16]}.onnx"]  # the Space's address of it
        url = f"https://huggingface.co/{OWNER}/capsnet-mnist/resolve/{COMMIT}/onnx/{path.name}.gz"
        assert copy == hub_copies.HubCopy(url, sri(gzipped), gzipped=True)  # un-gzipped by the page


def test_the_runtime_copy_is_the_spaces_gzipped_webassembly(monkeypatch):
    monkeypatch.setenv(hub_copies.RUNTIME_VARIABLE, f"{OWNER}/onnxruntime-web@{COMMIT}")
    gzipped = (RUNTIME_FOLDER / "ort-wasm-simd-threaded.wasm.gz").read_bytes()
    assert hub_copies.runtime_copy() == {
        f"{RUNTIME}/ort-wasm-simd-threaded.wasm": hub_copies.HubCopy(
            f"https://huggingface.co/{OWNER}/onnxruntime-web/resolve/{COMMIT}/{hub_copies.RUNTIME_COPY}",
            sri(gzipped),
            gzipped=True,
        )
    }


def test_the_head_holds_the_copies_as_json_no_element_can_end():
    copies = {"network/0123456789abcdef.onnx": {"url": "https://hub/</script><b>", "integrity": "sha256-x"}}
    head = page_modules.head(("network/0123456789abcdef.onnx",), copies)
    (table,) = re.findall(r'<script type="application/json" id="hub-copies">(.*?)</script>', head)
    assert json.loads(table) == copies
    assert 'id="hub-copies"' not in page_modules.head(("network/0123456789abcdef.onnx",))


@pytest.fixture(scope="module")
def published_space(dry_run, tmp_path_factory):
    """The published Space's folder served, its model repos preloaded in the Hub's cache (offline),
    the Hub's CDN a stand-in; yields (the app's URL, the CDN's address, the set of CDN files sent
    with a byte changed, which a test may fill)."""
    out, _ = dry_run
    changed: set[str] = set()
    cache = preloaded_cache(out, tmp_path_factory.mktemp("hub-cache"), [*publish.REPOS.values(), publish.RUNTIME_REPO])
    with stand_in_cdn(out, changed=changed) as endpoint:
        environment = {
            "HF_HUB_OFFLINE": "1",
            "HF_HUB_CACHE": str(cache),
            "HF_ENDPOINT": endpoint,
            "CAPSNET_GRAPHS": str(tmp_path_factory.mktemp("kept")),
            **{variable: None for variable in ("CAPSNET_WEIGHTS", "CAPSNET_CNN_WEIGHTS")},
            **{variable: None for variable in ("CAPSNET_PAIRS_WEIGHTS", "CAPSNET_PAIRS_CNN_WEIGHTS")},
            hub_copies.RUNTIME_VARIABLE: None,
        }
        space = tmp_path_factory.mktemp("space") / "capsnet-playground"  # a copy: the app writes beside its code
        shutil.copytree(out / "capsnet-playground", space)
        with serving_app(start_timeout=600, code=space, environment=environment) as url:
            yield url, endpoint, changed


def visit(browser, url: str, phone: bool):
    """A new visitor's page, loaded until its reader is ready, each answer kept (``page.answers``:
    (URL, status))."""
    page = playground_page(browser, PHONE, touch=True) if phone else playground_page(browser)
    page.answers = []
    page.on("response", lambda response: page.answers.append((response.url, response.status)))
    page.goto(url)
    wait_for_networks(page)
    return page


def read_in_the_page(page) -> None:
    """Wait for a reading to be shown, and check the page read it itself: it asked the server
    nothing (POST /ask/KIND, page_networks.js)."""
    for _ in range(100):
        if page.evaluate(SHOWN):
            break
        page.wait_for_timeout(100)
    assert page.evaluate(SHOWN), "a reading is shown"
    assert not [u for u, _ in page.answers if "/ask/" in u], "the page read the drawing itself"


def fetched_from(page, origin: str, name: str) -> list[str]:
    """The addresses at ``origin`` whose path ends with ``name`` the page had answered 200."""
    return [u for u, status in page.answers if u.startswith(origin) and u.endswith(name) and status == 200]


@pytest.mark.browser
def test_a_phone_reads_with_the_graphs_and_runtime_from_the_hubs_cdn(published_space, browser):
    url, endpoint, changed = published_space
    changed.clear()
    page = visit(browser, url, phone=True)
    try:
        pad = PadDriver(page, touch=True)
        pad.draw(strokes(7, *BOX))
        read_in_the_page(page)
        space, cdn = url.rstrip("/"), endpoint
        assert fetched_from(page, cdn, "/onnx/capsules.onnx.gz") and fetched_from(page, cdn, "/onnx/routing.onnx.gz")
        assert fetched_from(page, cdn, "/ort-wasm-simd-threaded.wasm.gz")
        assert not [u for u, _ in page.answers if u.startswith(space) and ("/network/" in u or u.endswith(".wasm"))]
        graphs = [urlsplit(u).path.split("/") for u, _ in page.answers if "/resolve/" in u and "/onnx/" in u]
        assert graphs and all(path[4] == COMMIT for path in graphs)  # at the commit its snapshot was made at
        pad.clear()
        pad.draw(strokes(3, *BOX))
        read_in_the_page(page)
        no_alarm(page)
    finally:
        page.context.close()


@pytest.mark.browser
def test_a_file_the_cdn_changed_is_refused_and_taken_from_the_space(published_space, browser):
    url, endpoint, changed = published_space
    changed.update({CAPSULES, WASM})
    page = visit(browser, url, phone=False)
    try:
        PadDriver(page).draw(strokes(4, *BOX))
        read_in_the_page(page)
        space = url.rstrip("/")
        assert [u for u, _ in page.answers if u.startswith(space) and "/network/" in u], "graphs from the Space"
        assert fetched_from(page, space, "/ort-wasm-simd-threaded.wasm")
        assert fetched_from(page, endpoint, "/onnx/routing.onnx.gz"), "an unchanged file still from the CDN"
        told = [text for kind, text in page.messages if kind == "info" and "was not taken" in text]
        assert len(told) >= 2, page.messages
        no_alarm(page, allowed=tuple(text for _, text in page.messages if SRI.match(text)))
        assert not page.locator(".toast-body, .error").count(), "no error shown to the person"
    finally:
        page.context.close()
        changed.clear()
