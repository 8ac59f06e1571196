"""The page's answer names the files the page's reader fetches first in a Link header
(playground/reader_preloads.py): the Hub's copy where there is one, else the Space's file; none for
a browser asking to save data, and none on any other answer."""

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


def test_each_file_is_named_where_the_page_fetches_it():
    assert preloaded(FILES, COPIES) == [FILES[0], "https://hub/r/resolve/c/onnx/capsules.onnx.gz"]
    assert preloaded(FILES, {}) == list(FILES)


def test_the_page_s_answer_names_them_for_the_browser_to_preload():
    answer = client(preloaded(FILES, COPIES)).get("/")
    assert answer.text == "page"
    assert answer.headers["link"] == (
        "<onnxruntime-web/1.30.0/ort.wasm.min.mjs>; rel=preload; as=fetch; crossorigin=anonymous, "
        "<https://hub/r/resolve/c/onnx/capsules.onnx.gz>; rel=preload; as=fetch; crossorigin=anonymous"
    )


def test_no_link_to_save_data_on_other_answers_or_with_no_files():
    assert "link" not in client(FILES).get("/", headers={"Save-Data": "on"}).headers
    assert "link" not in client(FILES).get("/other").headers
    assert "link" not in client(()).get("/").headers
