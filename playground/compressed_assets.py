"""ASGI middleware: Gradio's page and its own files (its built frontend's scripts and styles, under
/assets/ and /static/) sent gzipped to a browser that takes gzip, each file compressed once and kept.

Gradio sends them as they are, uncompressed: 0.9 MB of a first visit, 0.3 MB gzipped
(docs/playground.md, "What the page fetches"). Starlette's GZipMiddleware would compress each
answer again for every visitor, its API's answers too, and a crowd arriving at once would cost
the server a core for seconds; the files do not change while the server runs (they are the
installed Gradio's build), so each is compressed the first time it is asked for, in a thread, and
kept in memory: under 1 MB for the files one page uses. The page itself (its HTML, 0.2 MB) is
compressed for each visit: it holds the app's configuration.
"""

import anyio

from playground.page_network import compressed

PREFIXES = ("/assets/", "/static/")  # Gradio's built frontend (gradio/routes.py)
PAGE = "/"
COMPRESSIBLE = (b"text/", b"application/javascript", b"application/json", b"image/svg+xml")
SMALLEST = 1024  # bytes: smaller files are sent as they are


class CompressedAssets:
    """The middleware; ``kept`` holds each file's answer, gzipped: its status line's headers and body."""

    def __init__(self, app):
        self.app = app
        self.kept: dict[str, tuple[list[tuple[bytes, bytes]], bytes]] = {}

    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers", ())) if scope["type"] == "http" else {}
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or not (scope["path"] == PAGE or scope["path"].startswith(PREFIXES))
            or b"gzip" not in headers.get(b"accept-encoding", b"")
            or {b"range", b"if-none-match", b"if-modified-since"} & headers.keys()  # the app answers these
        ):
            return await self.app(scope, receive, send)
        if scope["path"] not in self.kept:
            messages = []

            async def keep(message) -> None:
                messages.append(message)

            await self.app(scope, receive, keep)
            answer = await _gzipped_answer(messages)
            if answer is None:  # not a file to compress: sent as the app answered
                for message in messages:
                    await send(message)
                return
            if scope["path"] == PAGE:  # made for each visit
                return await _send(send, *answer)
            self.kept[scope["path"]] = answer
        await _send(send, *self.kept[scope["path"]])


async def _send(send, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _gzipped_answer(messages: list[dict]) -> tuple[list[tuple[bytes, bytes]], bytes] | None:
    """The app's answer ``messages`` as headers and a body gzipped, or None where it is not a whole
    file worth compressing: not 200, already encoded, not text, or small."""
    start = messages[0] if messages and messages[0]["type"] == "http.response.start" else None
    if start is None or start["status"] != 200:
        return None
    headers = [(name.lower(), value) for name, value in start.get("headers", [])]
    found = dict(headers)
    body = b"".join(message.get("body", b"") for message in messages[1:] if message["type"] == "http.response.body")
    if (
        b"content-encoding" in found
        or not found.get(b"content-type", b"").startswith(COMPRESSIBLE)
        or len(body) < SMALLEST
    ):
        return None
    gzipped = await anyio.to_thread.run_sync(compressed, body)
    kept = [(name, value) for name, value in headers if name not in {b"content-length", b"vary"}]
    kept += [
        (b"content-encoding", b"gzip"),
        (b"content-length", str(len(gzipped)).encode()),
        (b"vary", b"Accept-Encoding"),
    ]
    return kept, gzipped
