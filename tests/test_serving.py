"""How the playground is served: the request-size cap, the requests in flight and what a crowded
server lets go, the atomic image cache, the slots at the network, what an error answer may say."""

import asyncio
import json
import logging
import threading
import time
from pathlib import Path

import gradio as gr
import numpy as np
import pytest
from gradio.exceptions import ComponentProcessingError, InvalidPathError
from PIL import Image, UnidentifiedImageError
from starlette.applications import Starlette
from starlette.testclient import TestClient

from playground import serving
from playground.serving import RequestsInFlight, RequestSizeLimit


def call(limit: RequestSizeLimit, path: str, chunks: list[bytes], declared: bool = True) -> tuple[int, bytes]:
    """Send one request through the middleware: (status, the body the app read or the refusal)."""
    received, sent = list(chunks), []
    headers = [(b"content-length", str(sum(map(len, chunks))).encode())] if declared else []

    async def receive():
        body = received.pop(0) if received else b""
        return {"type": "http.request", "body": body, "more_body": bool(received)}

    async def send(message):
        sent.append(message)

    async def app(scope, receive, send):  # echoes the body it reads
        body, more = b"", True
        while more:
            message = await receive()
            body, more = body + message["body"], message.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    limit.app = app
    asyncio.run(limit({"type": "http", "path": path, "headers": headers}, receive, send))
    return sent[0]["status"], sent[1]["body"]


def test_requests_up_to_the_cap_pass_whole():
    limit = RequestSizeLimit(None, max_bytes=10)
    assert call(limit, "/gradio_api/run/predict", [b"12345", b"67890"]) == (200, b"1234567890")
    assert call(limit, "/gradio_api/run/predict", [b"12345", b"67890"], declared=False) == (200, b"1234567890")


def test_a_larger_request_is_refused_with_413_and_a_message_before_it_is_read():
    limit = RequestSizeLimit(None, max_bytes=10)
    for declared in (True, False):
        status, body = call(limit, "/gradio_api/queue/join", [b"123456", b"789012"], declared=declared)
        assert status == 413 and b"at most 10 bytes" in body


def test_an_upload_request_has_a_cap_of_its_own_on_the_whole_body():
    limit = RequestSizeLimit(None, max_bytes=10, max_upload_bytes=100)
    assert call(limit, "/gradio_api/upload", [b"x" * 50, b"x" * 50]) == (200, b"x" * 100)
    for declared in (True, False):
        status, body = call(limit, "/gradio_api/upload", [b"x" * 60, b"x" * 60], declared=declared)
        assert status == 413 and b"at most 100 bytes" in body
    assert call(limit, "/gradio_api/run/predict", [b"x" * 50, b"x" * 50])[0] == 413


def test_posts_are_counted_from_arrival_to_answer_and_crowd_the_server_past_its_workers(monkeypatch):
    seen = []

    async def app(scope, receive, send):
        seen.append((scope["method"], serving._posts_in_flight, serving.crowded()))

    counted = RequestsInFlight(app)
    for waiting in (serving.MAX_THREADS - 1, serving.MAX_THREADS):  # requests already in the server
        monkeypatch.setattr(serving, "_posts_in_flight", waiting)
        for method in ("POST", "GET"):
            asyncio.run(counted({"type": "http", "method": method, "path": "/", "headers": []}, None, None))
            assert serving._posts_in_flight == waiting  # an answered request is counted out again
    last = serving.MAX_THREADS
    assert seen == [("POST", last, False), ("GET", last - 1, False), ("POST", last + 1, True), ("GET", last, False)]


def test_a_crowded_server_lets_go_of_readings_while_a_stroke_is_drawn_never_at_its_end(app, monkeypatch):
    """A reading the page asks of the server while a stroke is drawn is answered with nothing new
    (204: the panel stays) when the server is crowded, read when it is not; a stroke's end is
    always read (answers.py `read`)."""
    client = TestClient(Starlette(routes=app.ANSWERS.routes()))
    image = [0.0] * 784
    image[14 * 28 + 10 : 14 * 28 + 18] = [1.0] * 8
    for crowded in (False, True):
        monkeypatch.setattr(serving, "crowded", lambda crowded=crowded: crowded)
        drawing = client.post("/ask/read", content=json.dumps({"image": image, "routed": False}))
        assert drawing.status_code == (204 if crowded else 200)
        assert drawing.content == b"" if crowded else "lengths" in drawing.json()
        ended = client.post("/ask/read", content=json.dumps({"image": image, "routed": True}))
        assert ended.status_code == 200 and "routing" in ended.json()


def test_an_image_returned_again_is_never_read_half_written(tmp_path):
    """Gradio rewrites an output image's file whenever the same image is returned again; written
    aside and renamed into place, a client downloading it meanwhile never gets it truncated."""
    image = Image.fromarray((np.random.default_rng(0).random((280, 280)) * 255).astype(np.uint8))
    path = Path(serving.save_pil_to_cache_atomically(image, str(tmp_path), format="png"))
    written = path.read_bytes()
    stop = threading.Event()

    def return_it_again() -> None:
        while not stop.is_set():
            serving.save_pil_to_cache_atomically(image, str(tmp_path), format="png")

    writers = [threading.Thread(target=return_it_again) for _ in range(2)]
    for writer in writers:
        writer.start()
    try:
        reads = [path.read_bytes() for _ in range(2000)]
    finally:
        stop.set()
        for writer in writers:
            writer.join()
    assert all(read == written for read in reads)
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind


def test_no_more_than_network_slots_readings_run_at_once():
    running, most, lock = [0], [0], threading.Lock()

    def reading() -> None:
        with serving.network_slot():
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            time.sleep(0.02)
            with lock:
                running[0] -= 1

    threads = [threading.Thread(target=reading) for _ in range(4 * serving.NETWORK_SLOTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == serving.NETWORK_SLOTS


def test_an_error_answer_keeps_our_messages_and_says_nothing_else_of_an_exception(caplog):
    ours = gr.Error("Cannot read this drawing: no strokes")
    assert serving.public_error(ours) is ours and serving.public_error(None) is None
    with caplog.at_level(logging.ERROR, logger="playground"):
        unexpected = serving.error_payload_in_our_words(
            ValueError("no <gradio.components.state.State object at 0x7f00> in /tmp/gradio/abc/digit.png"), True
        )
    assert unexpected["error"] == serving.UNEXPECTED_ERROR and "ValueError" in caplog.text  # logged here


@pytest.mark.parametrize(
    "cause, message",
    [
        (UnidentifiedImageError("cannot identify image file '/tmp/gradio/abc/digit.png'"), serving.NOT_AN_IMAGE),
        (Image.DecompressionBombError("Image size (36000000 pixels) exceeds limit"), serving.TOO_MANY_PIXELS),
        (InvalidPathError("Cannot move /etc/passwd to the gradio cache dir"), serving.NOT_UPLOADED),
        (TypeError("'<' not supported between 'str' and 'float'"), serving.BAD_INPUT.format(component="slider")),
    ],
    ids=["not-an-image", "too-many-pixels", "not-uploaded", "bad-value"],
)
def test_what_a_bad_request_raises_inside_gradio_is_answered_in_our_words(cause, message):
    try:
        try:
            raise cause
        except Exception as error:  # as Gradio 6.31.0 wraps what a preprocess raises
            raise ComponentProcessingError(
                "Could not preprocess input component at index 2 (a `slider` component) of the event handler "
                f"(named \"perturb\"), value {{'path': '/tmp/gradio/abc'}}.\n\nOriginal error: {error!r}"
            ) from error
    except ComponentProcessingError as wrapped:
        assert serving.error_payload_in_our_words(wrapped, True)["error"] == message
