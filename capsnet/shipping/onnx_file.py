"""The networks and the turn of a digit as ONNX graphs another program can run, each exported from
the library's own modules (`torch.onnx.export`), never from a second copy of them:

- `capsules_graph`: the CapsNet up to its digit capsules, a 28x28 image in, the ten capsules, their
  lengths and the votes they were routed from out (the decoder left out: a graph of its own), two
  of its steps written as the matrix products that ONNX
  Runtime Web runs faster (`capsnet.shipping.onnx_products`);
- `decoder_graph`: the CapsNet's decoder, any number of masked capsules in (each all zero but the
  capsule decoded), their pictures out, as `CapsNet.decode` draws them;
- `routing_graph`: those votes routed again for r = 1 .. R iterations, what a routing view shows
  (`capsnet.routing`): no weights, and run only when the routing is to be shown, so that a reading
  made while the pen moves costs no more than the capsules;
- `probabilities_graph`: the CNN baseline, a 28x28 image in, its ten probabilities out;
- `sigmoids_graph`: the CNN trained on pairs (`capsnet.data.pairs`), a 28x28 image in, its ten
  independent sigmoids out, the scores its count rule reads (`capsnet.digit_count`);
- `turn_graph`: `capsnet.data.affine.transform` of a 28x28 image by an `AffineChange`'s seven
  numbers, in float64 as the library computes the change.

The playground's page runs them with ONNX Runtime Web, so a reading follows the pen and Turn it
the slider without a request to the server (playground/page/network_worker.js). The
networks' weights are stored in float16, and the CapsNet's PrimaryCaps convolution and W_ij in 8
bits (`capsnet.shipping.onnx_storage`), made float32 again as a graph loads: a quarter of the
bytes for those and half for the rest; how far that moves a reading: docs/playground.md. A
graph's bytes are the same at every export of the same weights, so the page knows it by its hash
(`file_name`) and never reads with other weights than the server's.
"""

import hashlib
import io
from collections.abc import Callable
from dataclasses import fields

import onnx
import torch

from capsnet.baseline import BaselineCNN
from capsnet.data.affine import AffineChange, affine_matrices, transform
from capsnet.data.pairs import scores
from capsnet.model import CapsNet, CapsNetConfig
from capsnet.routing import agreement, dynamic_routing, routing_by_iterations
from capsnet.shipping.onnx_products import predictions_as_product, primary_convolution_as_product
from capsnet.shipping.onnx_storage import EightBits, as_loaded, store_weights

OPSET = 20  # GridSample's bilinear form; ONNX Runtime Web 1.30 runs opsets up to 23
CHANGE = tuple(field.name for field in fields(AffineChange))  # the turn graph's "change", in order
# The CapsNet's weights its capsules graph stores in 8 bits, chosen on the validation digits
# (bench/graph_precision.py), 6.8 M of its 8.2 M, by their names in the network and grouped in
# their own shapes: PrimaryCaps' convolution [256, 256, 9, 9] a scale per output channel, W_ij
# [1152, 10, 16, 8] a scale per pair i, j.
EIGHT_BIT_WEIGHTS = {"primary.conv.weight": EightBits(axes=(0,)), "digits.W": EightBits(axes=(0, 1))}
PRIMARY_WEIGHTS = "network.primary.conv.weight"  # their names in `_Capsules`
PREDICTION_WEIGHTS = "network.digits.W"


class _Capsules(torch.nn.Module):
    """The CapsNet up to its digit capsules: [1, 1, 28, 28] -> v [1, 10, 16], |v_j| [1, 10] and the
    votes u_hat_j|i [1152, 10, 16] (eq. 2) they were routed from."""

    def __init__(self, network: CapsNet):
        super().__init__()
        self.network = network

    def forward(self, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        u_hat = self.network.digits.predictions(self.network.primary_capsules(images))  # [1, 1152, 10, 16]
        v, _ = dynamic_routing(u_hat, self.network.config.routing_iterations)  # as DigitCapsules for one image
        return v, v.norm(dim=-1), u_hat[0]


class _Decoder(torch.nn.Module):
    """The CapsNet's decoder: masked capsules [N, 10 * 16] (all zero but one capsule each) -> pictures
    [N, 28 * 28] in [0, 1] (`CapsNet.decode`, the mask applied by the caller)."""

    def __init__(self, network: CapsNet):
        super().__init__()
        self.decoder = network.decoder

    def forward(self, capsules: torch.Tensor) -> torch.Tensor:
        return self.decoder(capsules)


ROUTED = ("routed_lengths", "vote_shares", "agreements")  # the routing graph's outputs


class _Routing(torch.nn.Module):
    """Votes u_hat_j|i [1152, 10, 16] routed for r = 1 .. R (row r - 1): |v_j| [R, 10], each vote's
    share c_ij |u_hat_j|i| [R, 1152, 10] (`capsnet.routing.vote_heatmap`'s mass), and each digit
    capsule's agreement [R, 10] (`capsnet.routing.agreement`)."""

    def __init__(self, max_iterations: int):
        super().__init__()
        self.max_iterations = max_iterations

    def forward(self, votes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        trace = routing_by_iterations(votes, self.max_iterations)
        shares = trace.couplings * votes.norm(dim=-1)  # [R, 1152, 10]
        return trace.lengths, shares, agreement(votes, trace.capsules, trace.couplings)


class _Probabilities(torch.nn.Module):
    """The CNN baseline's softmax: [1, 1, 28, 28] -> [1, 10]."""

    def __init__(self, network: BaselineCNN):
        super().__init__()
        self.network = network

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.network(images).probabilities


class _Sigmoids(torch.nn.Module):
    """The pairs CNN's ten sigmoids (`capsnet.data.pairs.scores`): [1, 1, 28, 28] -> [1, 10]."""

    def __init__(self, network: BaselineCNN):
        super().__init__()
        self.network = network

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return scores(self.network(images))


class _Turn(torch.nn.Module):
    """One image changed by an AffineChange's numbers: [1, 1, 28, 28] and [7] (float64, CHANGE's
    order) -> [1, 1, 28, 28]."""

    def forward(self, images: torch.Tensor, change: torch.Tensor) -> torch.Tensor:
        return transform(images, affine_matrices(*change.unbind(-1)))


def capsules_graph(network: CapsNet, as_products: bool = True, eight_bits: bool = True) -> bytes:
    """``network``'s capsules of one image a run: "images" in, "capsules", "lengths" and "votes" out; its
    PrimaryCaps convolution and its predictions as matrix products, or ``as_products=False`` as
    exported (`capsnet.shipping.onnx_products`); the convolution's weights and W_ij in 8 bits, one
    scale per output channel of the convolution and per pair i, j of W_ij, or ``eight_bits=False``
    in float16 as the other weights."""
    config = network.config
    primaries, digits, digit_dim, primary_dim = network.digits.W.shape  # [1152, 10, 16, 8]
    rewrites = (primary_convolution_as_product, predictions_as_product) if as_products else ()
    storage = {f"network.{name}": storage for name, storage in EIGHT_BIT_WEIGHTS.items()}
    if as_products:  # the same groups in the products' shapes (`capsnet.shipping.onnx_products`)
        storage = {
            PRIMARY_WEIGHTS: EightBits(axes=(1,)),  # the output channels: the product's columns, [20736, 256]
            # the pairs i, j: the product's [1152, 8, 10 * 16] seen as [1152, 8, 10, 16]
            PREDICTION_WEIGHTS: EightBits(axes=(0, 2), shape=(primaries, primary_dim, digits, digit_dim)),
        }
    image = (torch.zeros(1, 1, config.image_size, config.image_size),)
    outputs = ["capsules", "lengths", "votes"]
    return _exported(_Capsules(network), image, ["images"], outputs, rewrites, storage if eight_bits else {})


def weights_as_loaded(network: CapsNet) -> dict[str, torch.Tensor]:
    """Each of ``network``'s parameters as the page's graphs make it as they load (`capsules_graph`,
    `decoder_graph`): PrimaryCaps' convolution and W_ij from 8 bits, the others from float16. The
    network with these weights reads as the page does."""
    return {
        name: torch.from_numpy(as_loaded(parameter.detach().numpy(), EIGHT_BIT_WEIGHTS.get(name)))
        for name, parameter in network.named_parameters()
    }


def decoder_graph(network: CapsNet) -> bytes:
    """``network``'s decoder, any number of pictures a run: "capsules" [N, 160] in, "pictures"
    [N, 784] out (`_Decoder`)."""
    config = network.config
    capsules = torch.zeros(2, config.num_classes * config.digit_capsule_dim)
    batch = {"capsules": {0: torch.export.Dim("pictures", min=1, max=4096)}}
    return _exported(_Decoder(network), (capsules,), ["capsules"], ["pictures"], dynamic_shapes=batch)


def routing_graph(config: CapsNetConfig, max_iterations: int) -> bytes:
    """The capsules graph's "votes" of ``config``'s network routed for r = 1 .. ``max_iterations``:
    "votes" in, ROUTED out (`_Routing`)."""
    votes = torch.zeros(config.num_primary_capsules, config.num_classes, config.digit_capsule_dim)
    return _exported(_Routing(max_iterations), (votes,), ["votes"], list(ROUTED))


def probabilities_graph(network: BaselineCNN) -> bytes:
    """``network``'s probabilities of one image a run: "images" in, "probabilities" out."""
    side = network.config.image_size
    return _exported(_Probabilities(network), (torch.zeros(1, 1, side, side),), ["images"], ["probabilities"])


def sigmoids_graph(network: BaselineCNN) -> bytes:
    """``network``'s ten sigmoids of one image a run, as a CNN trained on pairs reads them: "images"
    in, "probabilities" out (`_Sigmoids`)."""
    side = network.config.image_size
    return _exported(_Sigmoids(network), (torch.zeros(1, 1, side, side),), ["images"], ["probabilities"])


def turn_graph(side: int) -> bytes:
    """One ``side`` x ``side`` image turned: "images" and "change" (CHANGE's numbers) in, "turned" out."""
    change = torch.tensor([getattr(AffineChange(), name) for name in CHANGE], dtype=torch.float64)
    return _exported(_Turn(), (torch.zeros(1, 1, side, side), change), ["images", "change"], ["turned"])


def file_name(data: bytes) -> str:
    """The name a graph goes by: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(data).hexdigest()[:16]


def _exported(
    module: torch.nn.Module,
    inputs: tuple,
    input_names: list[str],
    output_names: list[str],
    rewrites: tuple[Callable[[onnx.ModelProto], None], ...] = (),
    eight_bit: dict[str, EightBits] | None = None,
    dynamic_shapes: dict | None = None,
) -> bytes:
    """``module``'s graph for ``inputs``' shapes, changed by each of ``rewrites`` in turn, its
    parameters stored in float16 but those ``eight_bit`` names, in 8 bits as it says
    (`capsnet.shipping.onnx_storage`), as bytes that depend on nothing
    but the module's weights: each node's trace (this machine's paths and counters that differ from
    one export to the next) is left out."""
    modes = {part: part.training for part in module.modules()}  # the network's, given back after
    try:
        exported = torch.onnx.export(module.eval(), inputs, input_names=input_names, output_names=output_names,
                                     opset_version=OPSET, dynamo=True, verbose=False,
                                     dynamic_shapes=dynamic_shapes)  # fmt: skip
    finally:
        for part, training in modes.items():
            part.training = training
    model = exported.model_proto
    for node in model.graph.node:
        node.ClearField("metadata_props")
        node.ClearField("doc_string")
    for rewrite in rewrites:
        rewrite(model)
    store_weights(model.graph, {name for name, _ in module.named_parameters()}, eight_bit or {})
    onnx.checker.check_model(model)
    buffer = io.BytesIO()
    onnx.save_model(model, buffer)
    return buffer.getvalue()
