"""Gradio's page and its own files sent gzipped (playground/compressed_assets.py): each file
compressed once and kept, the page for each visit, the same bytes once unzipped, and everything
else answered as the app answers it."""

import gzip

import pytest
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from playground.compressed_assets import CompressedAssets

SCRIPT = b"export const answer = 42;\n" * 400  # 10 KB of JavaScript
PICTURE = bytes(range(256)) * 20


@pytest.fixture
def served():
    """A client of an app behind the middleware, and the count of requests the app itself answered."""
    asked = []

    async def script(request):
        asked.append(request.url.path)
        if request.headers.get("if-none-match") == '"v1"':
            return Response(status_code=304, headers={"ETag": '"v1"'})
        return Response(SCRIPT, media_type="text/javascript", headers={"ETag": '"v1"', "Cache-Control": "max-age=60"})

    async def page(request):
        asked.append(request.url.path)
        return Response(f"<html>{len(asked)}".encode() + SCRIPT, media_type="text/html")

    async def picture(request):
        asked.append(request.url.path)
        return Response(PICTURE, media_type="image/png")

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/assets/index.js", script),
            Route("/assets/logo.png", picture),
            Route("/gradio_api/info", script),
        ]
    )
    return TestClient(CompressedAssets(app)), asked


def test_a_script_is_sent_gzipped_and_compressed_once(served):
    client, asked = served
    for _ in range(3):
        answer = client.get("/assets/index.js", headers={"Accept-Encoding": "gzip"})
        assert answer.status_code == 200 and answer.headers["content-encoding"] == "gzip"
        assert answer.content == SCRIPT  # unzipped by the client
        assert int(answer.headers["content-length"]) < len(SCRIPT) / 10
        assert answer.headers["etag"] == '"v1"' and answer.headers["cache-control"] == "max-age=60"
        assert answer.headers["vary"] == "Accept-Encoding"
    assert asked == ["/assets/index.js"]


def test_what_is_not_a_compressible_file_of_gradio_s_goes_as_the_app_answers_it(served):
    client, asked = served
    plain = client.get("/assets/index.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == SCRIPT
    picture = client.get("/assets/logo.png", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in picture.headers and picture.content == PICTURE
    elsewhere = client.get("/gradio_api/info", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in elsewhere.headers and elsewhere.content == SCRIPT
    missing = client.get("/assets/nothing.js", headers={"Accept-Encoding": "gzip"})
    assert missing.status_code == 404
    assert asked == ["/assets/index.js", "/assets/logo.png", "/gradio_api/info"]


def test_a_browser_asking_whether_its_copy_is_current_gets_the_app_s_answer(served):
    client, asked = served
    client.get("/assets/index.js", headers={"Accept-Encoding": "gzip"})
    again = client.get("/assets/index.js", headers={"Accept-Encoding": "gzip", "If-None-Match": '"v1"'})
    assert again.status_code == 304 and again.content == b""
    assert asked == ["/assets/index.js", "/assets/index.js"]


def test_the_kept_bytes_are_gzip_of_the_file(served):
    client, _ = served
    client.get("/assets/index.js", headers={"Accept-Encoding": "gzip"})
    (headers, body), *_ = client.app.kept.values()
    assert gzip.decompress(body) == SCRIPT and (b"content-encoding", b"gzip") in headers


def test_the_page_is_sent_gzipped_and_made_for_each_visit(served):
    client, asked = served
    first, second = (client.get("/", headers={"Accept-Encoding": "gzip"}) for _ in range(2))
    assert first.headers["content-encoding"] == "gzip" and first.content.startswith(b"<html>1")
    assert second.content.startswith(b"<html>2") and asked == ["/", "/"]
