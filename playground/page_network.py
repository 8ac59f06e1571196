"""The networks in the page: their graphs (`capsnet.shipping.onnx_file`: the CapsNet's capsules, the CNN's
probabilities, the turn of a digit) served at addresses named by their hashes, and ONNX Runtime
Web, which runs them there (playground/onnxruntime-web/, pinned), in workers of the page's own
(playground/page/page_networks.js), so the page reads a drawing while it is drawn and turns it with
no request to the server.

The graphs are made from the networks the server reads with (CAPSNET_WEIGHTS, CAPSNET_CNN_WEIGHTS),
exported once on a machine and kept on disk (`capsnet.shipping.kept_graphs`); an address changes
with the bytes, so a browser keeps each for good and the page reads only with the graphs of the
networks whose panels it fills. The runtime's files are served under their version, kept for good
too; its WebAssembly is stored compressed and sent so: in brotli (2.3 MB for 14.2) to a browser
that takes it, else gzipped (3.7 MB). The runtime's modules and the page's are gzipped as the app
starts, the graphs once, kept on disk beside them.
"""

import gzip
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from capsnet.shipping.kept_graphs import kept_file
from capsnet.shipping.onnx_file import file_name

_HERE = Path(__file__).parent
FOLDER = "network"  # each graph at /network/NAME.onnx
CACHED = "public, max-age=31536000, immutable"  # a file's bytes never change under its name
GZIP_LEVEL = 6  # zlib's default: within a few per cent of 9's bytes, several times faster
VERSION = "1.30.0"  # onnxruntime-web, as in onnxruntime-web/README.md
RUNTIME_FOLDER = _HERE / "onnxruntime-web"
RUNTIME = f"onnxruntime-web/{VERSION}"  # served at /onnxruntime-web/1.30.0/FILE
RUNTIME_FILES = {
    "ort.wasm.min.mjs": "text/javascript",  # the ES module build: it loads in a module worker
    "ort-wasm-simd-threaded.mjs": "text/javascript",
    "ort-wasm-simd-threaded.wasm": "application/wasm",
}
RUNTIME_URLS = tuple(f"{RUNTIME}/{name}" for name in RUNTIME_FILES)  # relative to the page


def compressed(data: bytes) -> bytes:
    """``data`` gzipped, the same bytes every time (no time stamp)."""
    return gzip.compress(data, GZIP_LEVEL, mtime=0)


def cached_route(
    url: str, body: bytes, media_type: str, gzipped: bytes | None = None, brotli: bytes | None = None
) -> Route:
    """GET /<url>: ``body``, for the browser to keep for good; ``brotli`` or ``gzipped``, the same
    bytes compressed, sent instead to a browser that takes that (brotli first: the smaller)."""

    async def answer(request: Request) -> Response:
        headers = {"Cache-Control": CACHED, "Vary": "Accept-Encoding"}
        taken = {coding.split(";")[0].strip() for coding in request.headers.get("accept-encoding", "").split(",")}
        for coding, data in (("br", brotli), ("gzip", gzipped)):
            if data is not None and coding in taken:
                return Response(data, media_type=media_type, headers={**headers, "Content-Encoding": coding})
        return Response(body, media_type=media_type, headers=headers)

    return Route(f"/{url}", answer, methods=["GET"])


@dataclass(frozen=True)
class PageFile:
    """A file for the page, and its address relative to the page, named by its bytes' hash."""

    data: bytes
    url: str  # "FOLDER/<the first 16 hex digits of its SHA-256>.SUFFIX"

    def route(self) -> Route:
        """GET /<url>: the file, for the browser to keep, gzipped for a browser that takes it (kept
        on disk beside the graphs, by its hash: gzipping the eight took 2.7 s of a start)."""
        gzipped = kept_file(f"{Path(self.url).stem}-gzip{GZIP_LEVEL}.gz", lambda: compressed(self.data))
        return cached_route(self.url, self.data, "application/octet-stream", gzipped)


class PageGraph(PageFile):
    """A graph for the page (`capsnet.shipping.onnx_file`), at network/NAME.onnx."""

    @classmethod
    def of(cls, data: bytes) -> "PageGraph":
        return cls(data, f"{FOLDER}/{file_name(data)}.onnx")


def runtime_file(name: str) -> tuple[bytes, bytes, bytes | None]:
    """ONNX Runtime Web's file ``name`` (one of RUNTIME_FILES): its bytes, the same gzipped, and in
    brotli where the repository stores it so (its WebAssembly), else None."""
    stored = RUNTIME_FOLDER / name
    if stored.exists():  # a module, stored as it is: gzipped here (74 KB for the two, 25 KB gzipped)
        data = stored.read_bytes()
        return data, compressed(data), None
    gzipped = (RUNTIME_FOLDER / f"{name}.gz").read_bytes()
    return gzip.decompress(gzipped), gzipped, (RUNTIME_FOLDER / f"{name}.br").read_bytes()


def runtime_routes() -> list[Route]:
    """ONNX Runtime Web's files, each at /onnxruntime-web/VERSION/NAME."""
    routes = []
    for name, media_type in RUNTIME_FILES.items():
        body, gzipped, brotli = runtime_file(name)
        routes.append(cached_route(f"{RUNTIME}/{name}", body, media_type, gzipped, brotli))
    return routes
