"""How the playground is served: process settings, a cap on what one request may carry, what a
crowded server lets go, what an error answer may say, and workarounds for the pinned Gradio (6.31.0).

`configure_process()` applies the process settings and the workarounds; `launch_options()` are
the keyword arguments of `demo.launch`; `freeze_what_is_loaded()` follows it; `PAGE_EVENT` are
the keyword arguments of the page's own events; the server's answers to the page's readings ask
`crowded()` (answers.py).
"""

import ctypes
import gc
import logging
import os
import re
import tempfile
import threading
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

import gradio as gr
from gradio import processing_utils, queueing, utils
from gradio.exceptions import ComponentProcessingError, InvalidPathError
from gradio_client.exceptions import AppError
from PIL import Image, UnidentifiedImageError
from starlette.middleware import Middleware
from starlette.routing import Route

from playground.compressed_assets import CompressedAssets

log = logging.getLogger("playground")

MAX_UPLOAD_BYTES = 10 * 1024 * 1024  # an image file sent to /predict (Gradio's max_file_size) ...
MAX_UPLOAD_REQUEST_BYTES = MAX_UPLOAD_BYTES + 64 * 1024  # ... and a whole upload request: one file and its form
MAX_REQUEST_BYTES = 1024 * 1024  # any other request: four times the drawing pad's largest value
MALLOC_ARENAS = 2
NETWORK_SLOTS = 2  # readings computed at once; more wait their turn
# Gradio's worker threads, for every event and the API alike (Gradio's default is 40). More threads
# make more requests contend for the two cores and the GIL at once (with 40, fewer people were
# served); but readings that wait together are computed as one batch (playground/batches.py), which
# costs less than one by one. 8 served 40 people drawing together with less CPU per reading
# and sooner than 4 (measured by bench/app_load.py; so was leaving torch its default of one
# thread per core, which served more than one thread did; the figures: docs/benchmarks.md,
# "People at once").
MAX_THREADS = 8
API_WORKERS = MAX_THREADS  # API requests handled at once (each waits for a turn at the network)
# Sessions whose state Gradio keeps, the longest unused dropped first. A session's reading keeps its
# routing for the sliders and the routing view, about 1 MB; Gradio's default of 10,000 sessions
# (a closed page's state stays for an hour) could hold 10 GB. Someone whose session was dropped
# is asked to draw again.
SESSIONS_KEPT = 1000
# PIL refuses to decode uploads of more than twice this many pixels (a 10 MB PNG can hold 90 Mpx
# of a single colour, 360 MB once decoded to RGBA); the network needs 28x28 of them.
MAX_IMAGE_PIXELS = 4096 * 4096
# What an error answer says, where the exception is not one of our own gr.Error messages: nothing
# of the exception itself, which names the server's files and Python objects.
UNEXPECTED_ERROR = "Something went wrong on the server while answering this request; it has been logged."
NOT_AN_IMAGE = "Cannot read this image: the file is not a picture in a format this app reads (PNG, JPEG, GIF, ...)."
TOO_MANY_PIXELS = f"Cannot read this image: it has more than {2 * MAX_IMAGE_PIXELS:,} pixels."
NOT_UPLOADED = "This request names a file on the server that was not uploaded by a user."
BAD_INPUT = "This request's value for a {component} input is not one that input takes."
# How the page's own events are wired (each section's `layout` takes it): a js function alone (a
# radio's change handed to the page's module), which Gradio runs in the page with no request; kept
# off the API's list and off the queue, with no progress shown.
PAGE_EVENT = {"api_visibility": "private", "show_progress": "hidden", "queue": False}
# Gradio 6.31.0 keeps 32 px of margin either side of the page, and prefixes the app's own CSS so
# that it cannot reach that element (.app); on a phone the drawing pad wants the width.
PAGE_HEAD = (
    "<style>@media (max-width: 480px) { .gradio-container .main.app "
    "{ padding-left: 6px !important; padding-right: 6px !important; } }</style>"
)


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> None:
    """Cap glibc's malloc arenas, as MALLOC_ARENA_MAX does. By default every thread that allocates
    may get an arena of its own (up to 8 per core), each keeping the memory freed in it, so the
    server's RSS creeps up across Gradio's worker threads (bench/app_load.py measures it). Does
    nothing where the C library is not glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    m_arena_max = -8  # M_ARENA_MAX in glibc's malloc.h
    libc.mallopt(m_arena_max, arenas)


def save_pil_to_cache_atomically(img: Image.Image, cache_dir: str, name: str = "image", format: str = "webp") -> str:
    """gradio.processing_utils.save_pil_to_cache, written to a temporary file renamed into place.

    Gradio 6.31.0 names an output image after the hash of its bytes and rewrites that file in
    place each time the same image is returned again (two API clients reading the same digit),
    so a client still downloading it from the earlier request can get it truncated
    (tests/test_app_load.py shows it). No component parameter or setting changes that: only a file
    path returned goes through Gradio's atomic copy (save_file_to_cache). No upstream report was
    found; drop this when Gradio writes the file atomically itself (tests/test_gradio_insides.py
    fails when the original's arguments, path or callers change).
    """
    data = processing_utils.encode_pil_to_bytes(img, format)
    folder = Path(cache_dir) / processing_utils.hash_bytes(data)
    folder.mkdir(exist_ok=True, parents=True)
    with tempfile.NamedTemporaryFile(dir=folder, suffix=".part", delete=False) as part:
        part.write(data)
    path = (folder / f"{name}.{format}").resolve()
    os.replace(part.name, path)
    return str(path)


_network_slots = threading.BoundedSemaphore(NETWORK_SLOTS)


@contextmanager
def network_slot():
    """Hold one of the network's NETWORK_SLOTS slots (readings run at once) while in the with block.
    The page's events skip Gradio's queue (PAGE_EVENT), so this is what keeps many people's readings
    from all running on the CPU's cores at once."""
    with _network_slots:
        yield


def public_error(error: BaseException | None) -> BaseException | None:
    """What an error answer may say of ``error``: our own gr.Error messages as they are; a bad
    image, a file not uploaded, or a value an input component cannot take (Gradio raises these
    before the event's function runs) in words of our own; anything else UNEXPECTED_ERROR, logged
    here. Never the exception's own text, which names the server's files and Python objects."""
    if error is None or isinstance(error, AppError):
        return error
    causes = [error]
    while causes[-1].__cause__ is not None:
        causes.append(causes[-1].__cause__)
    for cause in causes:
        if isinstance(cause, UnidentifiedImageError):
            return gr.Error(NOT_AN_IMAGE)
        if isinstance(cause, Image.DecompressionBombError):
            return gr.Error(TOO_MANY_PIXELS)
        if isinstance(cause, InvalidPathError):
            return gr.Error(NOT_UPLOADED)
    bad_input = re.match(r"Could not preprocess input component at index \d+ \(a `(\w+)` component\)", str(error))
    if isinstance(error, ComponentProcessingError) and bad_input:
        return gr.Error(BAD_INPUT.format(component=bad_input[1]))
    log.error(
        "Answered an unexpected %s with the generic error message (Gradio printed its traceback)", type(error).__name__
    )
    return gr.Error(UNEXPECTED_ERROR)


_gradio_error_payload = utils.error_payload


def error_payload_in_our_words(error: BaseException | None, show_error: bool) -> dict:
    """gradio.utils.error_payload of `public_error(error)`.

    With show_error=True (`launch_options`), Gradio 6.31.0 answers any exception with
    str(exception): its own object reprs for a request with too few inputs, exception class names
    and upload-cache paths for a bad image; with False, no message at all for anything but a
    gr.Error; Gradio has no hook for it. Drop this when Gradio lets an app say what its error
    answers carry (tests/test_gradio_insides.py fails when the original's arguments, answer or
    callers change).
    """
    return _gradio_error_payload(public_error(error), show_error)


def configure_process() -> None:
    """Malloc arenas capped, PIL's pixel cap set, Gradio's image cache written atomically, error
    answers in our words."""
    limit_malloc_arenas()
    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    processing_utils.save_pil_to_cache = save_pil_to_cache_atomically
    utils.error_payload = queueing.error_payload = error_payload_in_our_words  # routes.py reads utils'


def freeze_what_is_loaded() -> None:
    """Everything loaded by now (torch, Gradio, the networks, the started server) lives as long as
    the server: out of the garbage collector's reach (gc.freeze), a full collection then looks only
    at what the requests since made. Otherwise each one held every thread of the server for
    0.36-0.44 s with 100 people drawing (bench.app_load; docs/benchmarks.md)."""
    gc.collect()
    gc.freeze()


_posts_in_flight = 0  # POST requests (the page's events, the API) arrived and not yet answered


def crowded() -> bool:
    """More requests are in the server than it has worker threads, so some wait for one. A reading
    asked while a stroke is still being drawn is then let go unread (the panel stays as it is until
    the next): the readings a person waits for, at each stroke's end, come sooner. Work that the
    next request makes stale goes first, as servers under load shed it; bench.app_load measures it."""
    return _posts_in_flight > MAX_THREADS


class RequestsInFlight:
    """ASGI middleware: counts the POST requests in the server, from their arrival to their answer,
    for `crowded`. Only the event loop's thread changes the count."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        global _posts_in_flight
        _posts_in_flight += 1
        try:
            return await self.app(scope, receive, send)
        finally:
            _posts_in_flight -= 1


class RequestSizeLimit:
    """ASGI middleware: a request whose body is larger than ``max_bytes`` (an upload, to
    Gradio's /gradio_api/upload: ``max_upload_bytes``) gets 413 and a message, before anything
    parses it.

    Gradio parses every event's JSON in full before the event's function can look at it, so
    without this a forged 100 MB drawing would hold a worker and its memory. Gradio's own upload
    cap (max_file_size) is per file, and one request may carry any number of files.
    """

    def __init__(self, app, max_bytes: int = MAX_REQUEST_BYTES, max_upload_bytes: int = MAX_UPLOAD_REQUEST_BYTES):
        self.app, self.max_bytes, self.max_upload_bytes = app, max_bytes, max_upload_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.max_upload_bytes if scope["path"].endswith("/gradio_api/upload") else self.max_bytes
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None:
            if not declared.isdigit() or int(declared) > limit:
                return await self._refuse(send, limit)
            return await self.app(scope, receive, send)
        body, more = b"", True  # chunked: read it here, up to the cap
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > limit:
                return await self._refuse(send, limit)
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)

    @staticmethod
    async def _refuse(send, limit: int) -> None:
        text = f"Request body too large: this app takes at most {limit} bytes a request.".encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(text)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": text})


def launch_options(routes: Sequence[Route] = (), head: str = "") -> dict:
    """``demo.launch`` settings: uploads, requests, threads and kept sessions capped, errors shown
    as messages (in our words: `public_error`), no share link (the Space or GRADIO_SERVER_NAME /
    GRADIO_SERVER_PORT decide where it listens); ``routes`` served beside Gradio's (the page's
    graphs: `page_network`), before them; ``head`` put in the page's head after PAGE_HEAD; Gradio's
    own files sent gzipped (`CompressedAssets`)."""
    return {
        "max_file_size": MAX_UPLOAD_BYTES,
        "max_threads": MAX_THREADS,
        "state_session_capacity": SESSIONS_KEPT,
        "show_error": True,
        "footer_links": ["api"],
        "head": PAGE_HEAD + head,
        "app_kwargs": {
            "middleware": [Middleware(RequestsInFlight), Middleware(RequestSizeLimit), Middleware(CompressedAssets)],
            "routes": list(routes),
        },
    }
