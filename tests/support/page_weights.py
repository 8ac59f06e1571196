"""The app's CapsNet reading, for the length of a test, with the weights the page's graphs make as
they load (PrimaryCaps and W_ij from 8 bits, the rest from float16:
`capsnet.shipping.onnx_file.weights_as_loaded`), so that a browser test holds what the page draws from
its own capsules to the app's pictures of the same capsules, to float32's rounding. How far the 8 bits
move a reading from the network's own is held on its own (tests/test_onnx_storage.py,
bench/graph_precision.py: lengths within 0.01)."""

from collections.abc import Iterator
from contextlib import contextmanager

import torch

from capsnet.model import CapsNet
from capsnet.shipping.onnx_file import weights_as_loaded


@contextmanager
def reading_as_the_page(network: CapsNet) -> Iterator[None]:
    """``network`` (the app's, in this process) with the page's weights until the block ends, then its own again."""
    own = {name: parameter.detach().clone() for name, parameter in network.named_parameters()}
    _set(network, weights_as_loaded(network))
    try:
        yield
    finally:
        _set(network, own)


def _set(network: CapsNet, weights: dict[str, torch.Tensor]) -> None:
    with torch.no_grad():
        for name, parameter in network.named_parameters():
            parameter.copy_(weights[name])
