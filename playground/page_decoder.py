"""The decoder in the page: the CapsNet's decoder as one file (`capsnet.decoder_file`), served at
an address named by its hash, and the script that redraws the reading panel's reconstruction
with it (decoder.js) when a slider moves or *Decode as* changes, with no request to the server.

The file is made from the network the server reads with (CAPSNET_WEIGHTS), once, as the app
starts. Its address changes with its bytes, so a browser keeps it for good and never draws with
another network's decoder: a panel names the address of the decoder of the network that read it,
and the page draws only where that is the decoder it has loaded (the server otherwise).
"""

from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from capsnet.decoder_file import decoder_file, file_name
from capsnet.model import CapsNet

SCRIPT = (Path(__file__).parent / "decoder.js").read_text(encoding="utf-8")
FOLDER = "decoder"  # served at /decoder/NAME.safetensors
CACHED = "public, max-age=31536000, immutable"  # a file's bytes never change under its name


@dataclass(frozen=True)
class PageDecoder:
    """A network's decoder file and its address, relative to the page."""

    data: bytes
    url: str  # "decoder/<the first 16 hex digits of its SHA-256>.safetensors"

    @classmethod
    def of(cls, network: CapsNet) -> "PageDecoder":
        data = decoder_file(network)
        return cls(data, f"{FOLDER}/{file_name(data)}.safetensors")

    def route(self) -> Route:
        """GET /<url>: the file, for the browser to keep."""

        async def answer(request: Request) -> Response:
            return Response(self.data, media_type="application/octet-stream", headers={"Cache-Control": CACHED})

        return Route(f"/{self.url}", answer, methods=["GET"])
