"""The page's answer names the files the page's reader fetches first from the Hub's CDN in a Link
header (playground/reader_preloads.py): none of the Space's own, none for a browser asking to save
data, and none on any other answer."""

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from playground.reader_preloads import ReaderPreloads, preloaded

FILES = ("onnxruntime-web/1.30.0/ort.wasm.min.mjs", "network/0123456789abcdef.onnx")
COPIES = {"network/0123456789abcdef.onnx": {"url": "https://hub/r/resolve/c/onnx/capsules.onnx.gz"}}


def client(files) -> TestClient:
    answer = lambda request: PlainTextResponse("page")  # noqa: E731
    routes = [Route("/", answer), Route("/other", answer)]
    return TestClient(Starlette(routes=routes, middleware=[Middleware(ReaderPreloads, files=files)]))


def test_only_the_copies_on_the_hub_are_named():
    assert preloaded(FILES, COPIES) == ["https://hub/r/resolve/c/onnx/capsules.onnx.gz"]
    assert preloaded(FILES, {}) == []  # served from a folder


def test_the_page_s_answer_names_them_for_the_browser_to_preload():
    answer = client([*preloaded(FILES, COPIES), "https://hub/r/resolve/c/onnx/routing.onnx.gz"]).get("/")
    assert answer.text == "page"
    assert answer.headers["link"] == (
        "<https://hub/r/resolve/c/onnx/capsules.onnx.gz>; rel=preload; as=fetch; crossorigin=anonymous, "
        "<https://hub/r/resolve/c/onnx/routing.onnx.gz>; rel=preload; as=fetch; crossorigin=anonymous"
    )


def test_no_link_to_save_data_on_other_answers_or_with_no_files():
    assert "link" not in client(FILES).get("/", headers={"Save-Data": "on"}).headers
    assert "link" not in client(FILES).get("/other").headers
    assert "link" not in client(()).get("/").headers
