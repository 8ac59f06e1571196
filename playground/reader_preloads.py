"""ASGI middleware: the page's answer (GET /) names, in a `Link` header (rel=preload), the files the
page's reader fetches before it reads, so that the browser asks for them as soon as the page's HTML
comes in, rather than once Gradio's frontend has come and put the page's head in, where
fetched_early.js asks for the same files (and finds them kept or on their way: one fetch each).
On a phone far away the link carries them while Gradio's own files still come a round trip at a
time (docs/benchmarks.md, "What the page fetches").

Only the files the page fetches from the Hub's CDN are named (their copies, as the head names them:
hub_copies.py). The Space's own files are not: Chromium 156 fetched each of those twice, the
preload's answer not taken from its cache by the head's fetch (docs/benchmarks.md). The preload
carries no `integrity` (Chromium ignores it for `as=fetch`, crbug.com/981419): what reads the file
checks it, and takes the Space's file where the copy is refused (page/downloaded.js). A browser
that asks to save data (`Save-Data: on`) is named none, as fetched_early.js fetches none for it.
"""

from collections.abc import Sequence

from playground.compressed_assets import PAGE


def preloaded(reader_files: Sequence[str], copies: dict[str, dict]) -> list[str]:
    """The addresses of the copies on the Hub of those of ``reader_files`` (relative to the page)
    that ``copies`` (`hub_copies.page_copies`) has one of."""
    return [copies[file]["url"] for file in reader_files if file in copies]


class ReaderPreloads:
    """The middleware: ``files`` (`preloaded`'s) in a Link header of the page's answer."""

    def __init__(self, app, files: Sequence[str] = ()):
        self.app = app
        self.link = ", ".join(f"<{file}>; rel=preload; as=fetch; crossorigin=anonymous" for file in files).encode()

    async def __call__(self, scope, receive, send):
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or scope["path"] != PAGE
            or not self.link
            or dict(scope["headers"]).get(b"save-data", b"").strip().lower() == b"on"
        ):
            return await self.app(scope, receive, send)

        async def with_link(message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                message = {**message, "headers": [*message.get("headers", []), (b"link", self.link)]}
            await send(message)

        await self.app(scope, receive, with_link)
