"""The CapsNet as one ONNX graph another program can run: a 28x28 image in, the ten digit capsules
and their lengths out, the weights stored in float16 and cast to float32 as the graph loads.

The playground's page runs it with ONNX Runtime Web, so the reading follows the pen without a
request to the server (playground/page_reader.js); it draws the reconstruction with the decoder
file (`capsnet.decoder_file`), so the graph leaves the decoder out and the page fetches its weights
once. The graph is exported from the loaded network's own modules (`torch.onnx.export`), never
from a second copy of its architecture, and known by its hash (`capsnet.decoder_file.file_name`),
so the page never reads with other weights than the server's. float16 halves the file; how far it
moves the lengths: docs/playground.md.
"""

import io

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

from capsnet.model import CapsNet

OPSET = 18  # ONNX Runtime Web 1.30 runs opsets up to 23
INPUT, OUTPUTS = "images", ("capsules", "lengths")


class _Capsules(torch.nn.Module):
    """The network up to its digit capsules: [1, 1, 28, 28] -> v [1, 10, 16] and |v_j| [1, 10]."""

    def __init__(self, network: CapsNet):
        super().__init__()
        self.network = network

    def forward(self, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v, _ = self.network.digits(self.network.primary_capsules(images), self.network.config.routing_iterations)
        return v, v.norm(dim=-1)


def capsules_graph(network: CapsNet) -> bytes:
    """The bytes of ``network``'s graph (one image a run), its weights in float16."""
    side = network.config.image_size
    was_training = network.training
    capsules = _Capsules(network)
    try:
        exported = torch.onnx.export(
            capsules.eval(),
            (torch.zeros(1, 1, side, side),),
            input_names=[INPUT],
            output_names=list(OUTPUTS),
            opset_version=OPSET,
            dynamo=True,
            verbose=False,
        )
    finally:
        network.train(was_training)
    model = exported.model_proto
    for node in model.graph.node:  # where each node was traced from: this machine's paths, and
        node.ClearField("metadata_props")  # counters that differ from one export to the next
        node.ClearField("doc_string")
    _store_in_float16(model.graph, {name for name, _ in capsules.named_parameters()})
    onnx.checker.check_model(model)
    buffer = io.BytesIO()
    onnx.save_model(model, buffer)
    return buffer.getvalue()


def _store_in_float16(graph: onnx.GraphProto, weights: set[str]) -> None:
    """Each of the network's ``weights`` in ``graph`` stored in float16 under its name + "_f16",
    and a Cast back to float32 under its own name at the graph's start, so every node reads what
    it read before. The graph's own constants (an epsilon below float16's range) stay float32."""
    casts = []
    for initializer in list(graph.initializer):
        if initializer.name not in weights:
            continue
        weight = numpy_helper.to_array(initializer)
        stored = numpy_helper.from_array(weight.astype(np.float16), f"{initializer.name}_f16")
        graph.initializer.remove(initializer)
        graph.initializer.append(stored)
        casts.append(helper.make_node("Cast", [stored.name], [initializer.name], to=TensorProto.FLOAT))
    for position, cast in enumerate(casts):
        graph.node.insert(position, cast)
