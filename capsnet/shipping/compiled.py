"""The network compiled for reading one image at a time.

TorchInductor with weight freezing folds the trained weights into the compiled graph: the
convolution weights are packed once for oneDNN instead of on every call, and the routing's many
small operations are fused. That makes each forward pass faster, for a compilation up front
(`python -m bench.inference_latency` times the forward pass both ways; docs/benchmarks.md has the
figures); the playground does not use it, since its first visitor would wait for the compilation.
It packs the convolutions' weights with `capsnet.shipping.packed` instead: that part alone, no compilation.
"""

import logging
from collections.abc import Callable

import torch
import torch._inductor.config

from capsnet.model import CapsNet, CapsNetOutput

log = logging.getLogger(__name__)


def compile_for_one_image(model: CapsNet) -> Callable[[torch.Tensor], CapsNetOutput]:
    """``model`` compiled for batches of one image under torch.inference_mode(), compiled now
    rather than at the first call; ``model`` itself where torch.compile cannot work (no C++
    compiler, an unsupported platform), with a warning.

    The compiled function holds the weights as they are now: compile after loading them, and
    do not train the model afterwards.

    Args:
        model: a CapsNet in eval mode, on any device, in any dtype: give the compiled function
            images on that device, in that dtype.
    """
    side = model.config.image_size
    weight = next(model.parameters())
    compiled = torch.compile(model, dynamic=False)
    image_made_outside = torch.zeros(1, 1, side, side, device=weight.device, dtype=weight.dtype)  # as W is
    try:
        with torch._inductor.config.patch(freezing=True), torch.inference_mode():
            # Images made outside inference mode and inside it (inference tensors) each need a
            # compilation of their own: both now, rather than one at a caller's first image
            # (and without freezing, several times slower).
            compiled(image_made_outside)
            compiled(torch.zeros_like(image_made_outside))
    except Exception as error:  # torch.compile fails in many ways, all of which leave eager mode
        log.warning(
            "torch.compile is not available here (%s: %s); running the model eagerly",
            type(error).__name__,
            str(error).splitlines()[0] if str(error) else "",
        )
        return model
    return compiled
