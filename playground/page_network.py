"""The network in the page: the CapsNet's graph (`capsnet.onnx_file`) served at an address named by
its hash, and ONNX Runtime Web, which runs it there (playground/onnxruntime-web/, pinned), so the
page reads a drawing while it is drawn with no request to the server (page_reader.js).

The graph is made from the network the server reads with (CAPSNET_WEIGHTS), once, as the app
starts; its address changes with its bytes, so a browser keeps it for good, and the page reads
only with the graph of the network whose panel it fills. The runtime's files are served under
their version, kept for good too; its WebAssembly is stored and sent gzipped (3.7 MB for 14.2).
"""

import gzip
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from capsnet.decoder_file import file_name
from capsnet.model import CapsNet
from capsnet.onnx_file import capsules_graph

SCRIPT = (Path(__file__).parent / "page_reader.js").read_text(encoding="utf-8")
FOLDER = "network"  # the graph at /network/NAME.onnx
CACHED = "public, max-age=31536000, immutable"  # a file's bytes never change under its name
VERSION = "1.30.0"  # onnxruntime-web, as in onnxruntime-web/README.md
RUNTIME_FOLDER = Path(__file__).parent / "onnxruntime-web"
RUNTIME = f"onnxruntime-web/{VERSION}"  # served at /onnxruntime-web/1.30.0/FILE
RUNTIME_FILES = {
    "ort.wasm.min.js": "text/javascript",
    "ort-wasm-simd-threaded.mjs": "text/javascript",
    "ort-wasm-simd-threaded.wasm": "application/wasm",
}


def cached_route(url: str, body: bytes, media_type: str, gzipped: bytes | None = None) -> Route:
    """GET /<url>: ``body``, for the browser to keep for good; ``gzipped``, the same bytes gzipped,
    sent instead to a browser that takes gzip."""

    async def answer(request: Request) -> Response:
        headers = {"Cache-Control": CACHED, "Vary": "Accept-Encoding"}
        if gzipped is not None and "gzip" in request.headers.get("accept-encoding", ""):
            return Response(gzipped, media_type=media_type, headers={**headers, "Content-Encoding": "gzip"})
        return Response(body, media_type=media_type, headers=headers)

    return Route(f"/{url}", answer, methods=["GET"])


@dataclass(frozen=True)
class PageNetwork:
    """A network's graph for the page, with its address relative to the page."""

    graph: bytes
    url: str  # "network/<the first 16 hex digits of its SHA-256>.onnx"

    @classmethod
    def of(cls, network: CapsNet) -> "PageNetwork":
        graph = capsules_graph(network)
        return cls(graph, f"{FOLDER}/{file_name(graph)}.onnx")

    def routes(self) -> list[Route]:
        """The graph and the runtime's files."""
        return [cached_route(self.url, self.graph, "application/octet-stream"), *runtime_routes()]


def runtime_routes() -> list[Route]:
    """ONNX Runtime Web's files, each at /onnxruntime-web/VERSION/NAME."""
    routes = []
    for name, media_type in RUNTIME_FILES.items():
        stored = RUNTIME_FOLDER / name
        if stored.exists():
            routes.append(cached_route(f"{RUNTIME}/{name}", stored.read_bytes(), media_type))
        else:
            gzipped = (RUNTIME_FOLDER / f"{name}.gz").read_bytes()
            routes.append(cached_route(f"{RUNTIME}/{name}", gzip.decompress(gzipped), media_type, gzipped))
    return routes
