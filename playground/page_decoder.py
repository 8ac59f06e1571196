"""The decoder in the page: the CapsNet's decoder as one file (`capsnet.shipping.decoder_file`), served at
an address named by its hash, with which the page's networks (playground/page/network_worker.js,
decode.js) draw the reading panel's reconstructions, and redraw them when a slider moves or
*Decode as* changes, with no request to the server.

The file is made from the network the server reads with (CAPSNET_WEIGHTS), once, as the app
starts. Its address changes with its bytes, so a browser keeps it for good and never draws with
another network's decoder: a panel names the address of the decoder of the network that read it,
and the page draws only where that is the decoder it has loaded (the server otherwise).
"""

from capsnet.model import CapsNet
from capsnet.shipping.decoder_file import decoder_file, file_name
from playground.page_network import PageFile

FOLDER = "decoder"  # served at /decoder/NAME.safetensors


class PageDecoder(PageFile):
    """A network's decoder file for the page, at decoder/NAME.safetensors."""

    @classmethod
    def of(cls, network: CapsNet) -> "PageDecoder":
        data = decoder_file(network)
        return cls(data, f"{FOLDER}/{file_name(data)}.safetensors")
