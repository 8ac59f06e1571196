"""Convolutions whose weights are packed for oneDNN once, for reading on the CPU.

Eager PyTorch reorders a convolution's weights into oneDNN's blocked layout at every call. For
the PrimaryCaps convolution (256 -> 256 channels, 9x9: 21 MB of weights) reading one image, that
reorder is most of the layer's time: on the 2 cores of an AMD EPYC family 26, one thread, the
layer takes 7.9 ms eagerly and 2.6 ms packed. TorchInductor's freezing (capsnet/shipping/compiled.py)
packs the weights once too, but only after a compilation that needs a C++ compiler; this does that
one thing with the same two oneDNN operators the frozen graph calls, at no compile cost, for any
batch size. `python -m bench.inference_latency` times a forward pass each way.

Packing is for inference only: a `PackedConv2d` is the `nn.Conv2d` it was made from (the same
parameters, the same state_dict) wherever autograd records, off the CPU, in another dtype than
float32, and while torch.compile or torch.export traces it (so an ONNX export of a packed network
is the plain network's).
"""

import logging

import torch
from torch import nn

log = logging.getLogger(__name__)


def packing_available() -> bool:
    """Whether this build of PyTorch has the oneDNN operators a packed convolution calls."""
    return torch.backends.mkldnn.is_available() and all(
        hasattr(torch.ops.mkldnn, name) for name in ("_reorder_convolution_weight", "_convolution_pointwise")
    )


class PackedConv2d(nn.Conv2d):
    """An `nn.Conv2d` that keeps its weights packed for oneDNN and packs them again when they
    change (their version or storage); made by `pack_convolutions`, not directly."""

    _packed: tuple[tuple, torch.Tensor] | None = None  # (what the weights were packed for, the packed weights)

    def packs(self, x: torch.Tensor) -> bool:
        """Whether a call on ``x`` uses the packed weights (the module docstring says when not)."""
        return (
            x.device.type == "cpu"
            and x.dtype == self.weight.dtype == torch.float32
            and not (torch.is_grad_enabled() and (x.requires_grad or self.weight.requires_grad))
            and not torch.compiler.is_compiling()  # torch.compile and torch.export alike
        )

    @property
    def geometry(self) -> tuple[list[int], list[int], list[int], int]:
        """padding, stride, dilation and groups, as both oneDNN operators take them."""
        return list(self.padding), list(self.stride), list(self.dilation), self.groups

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.packs(x):
            return super().forward(x)
        return torch.ops.mkldnn._convolution_pointwise(
            x, self.packed_weight(x), self.bias, *self.geometry, "none", [], ""
        )

    def packed_weight(self, x: torch.Tensor) -> torch.Tensor:
        """The weights in oneDNN's layout for inputs shaped as ``x`` but for the batch, packed at
        the first such call and again once the weights have changed."""
        made_for = (self.weight._version, self.weight.data_ptr(), tuple(x.shape[1:]))
        if self._packed is None or self._packed[0] != made_for:
            one_image = [1, *x.shape[1:]]
            # One tuple assigned at once: threads reading together see an old packing or a new one.
            self._packed = (
                made_for,
                torch.ops.mkldnn._reorder_convolution_weight(self.weight, *self.geometry, one_image),
            )
        return self._packed[1]


def pack_convolutions(network: nn.Module) -> nn.Module:
    """Every `nn.Conv2d` of ``network`` that oneDNN can run (zero padding given as numbers) made a
    `PackedConv2d` over the same parameters, in place; ``network`` itself is returned. Where this
    build of PyTorch cannot pack, ``network`` is left as it is, and an information line says so."""
    if not packing_available():
        log.info("this build of PyTorch has no oneDNN convolution operators: convolutions left unpacked")
        return network
    for module in list(network.modules()):
        for name, child in module.named_children():
            if type(child) is nn.Conv2d and child.padding_mode == "zeros" and not isinstance(child.padding, str):
                setattr(module, name, packed(child))
    return network


def packed(conv: nn.Conv2d) -> PackedConv2d:
    """A PackedConv2d of ``conv``'s geometry over ``conv``'s own parameters."""
    made = PackedConv2d(
        conv.in_channels,
        conv.out_channels,
        conv.kernel_size,
        stride=conv.stride,
        padding=conv.padding,
        dilation=conv.dilation,
        groups=conv.groups,
        bias=conv.bias is not None,
        device="meta",  # its own parameters are replaced at once by conv's
    )
    made.weight, made.bias = conv.weight, conv.bias
    made.train(conv.training)
    return made
