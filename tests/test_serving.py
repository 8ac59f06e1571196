"""How the playground is served: the request-size cap, the requests in flight and what a crowded
server lets go, the atomic image cache, the slots at the network, what an error answer may say."""

import asyncio
import logging
import threading
import time
from pathlib import Path

import anyio.to_thread
import gradio as gr
import numpy as np
import pytest
from gradio.exceptions import ComponentProcessingError, InvalidPathError
from gradio.state_holder import SessionState
from PIL import Image, UnidentifiedImageError

from harness.digit_strokes import pad_value, strokes
from harness.page_protocol import skipped
from playground import dimensions_section, serving, two_digits
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
    """Both pads: a reading asked while a stroke is drawn is answered with nothing new (the panel
    stays) when the server is crowded, read when it is not; a stroke's end is always read."""
    digit, other = strokes(3, 60, 40, 120, 180), strokes(5, 90, 60, 120, 180)
    pair = {**pad_value(digit + other, drawing=True), "pens": "0" * len(digit) + "1" * len(other)}
    pads = [
        (lambda value: app.READING.read_drawing(value), pad_value(digit, drawing=True)),
        (lambda value: app.TWO_DIGITS.read_drawing(value, two_digits.TWO_READ), pair),
    ]
    for read, live in pads:
        final = {**live, "drawing": False}
        monkeypatch.setattr(serving, "crowded", lambda: False)
        assert all(output != gr.skip() for output in read(live)[1:])
        monkeypatch.setattr(serving, "crowded", lambda: True)
        assert all(output == gr.skip() for output in read(live))
        kept, panel = read(final)
        assert kept is not None and panel["revision"] == 1
    # As the page (and bench.app_load's people) get such an answer: every output skipped.
    event = next(block_fn for block_fn in app.demo.fns.values() if block_fn.fn == app.TWO_DIGITS.read_drawing)
    answer = asyncio.run(app.demo.process_api(event, [pair, two_digits.TWO_READ], SessionState(app.demo)))
    assert len(answer["data"]) == 2 and all(map(skipped, answer["data"]))


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


def test_each_page_event_takes_one_worker_thread_and_answers_what_its_function_returned(app, monkeypatch):
    """A page event runs its function in one of Gradio's worker threads and sends its outputs as
    returned: no second turn at the workers per output (postprocessing), which would make every
    answer wait behind every request waiting for a worker again."""
    hops = []
    run_sync = anyio.to_thread.run_sync

    async def counted(function, *args, **kwargs):
        hops.append(function.__name__)
        return await run_sync(function, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    read = next(block_fn for block_fn in app.demo.fns.values() if block_fn.fn == app.read_drawing)
    state = SessionState(app.demo)
    value = pad_value(strokes(7, 60, 40, 120, 180))
    inputs = [value, "winner", dimensions_section.PAPER, None]
    answer = asyncio.run(app.demo.process_api(read, inputs, state))
    expected = app.read_drawing(*inputs)
    assert hops == ["read_drawing"] and expected[-1]["winner"] == 7
    assert answer["data"][-3:] == list(expected[-3:])  # Figure 4, the routing view, the panel
    reading = state[read.outputs[0]._id]  # the Reading the answer kept in the session
    assert reading.winner == 7
