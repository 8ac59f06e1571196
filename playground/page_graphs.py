"""The graphs the page reads of each network it serves, by the names they go by in a model repo's
onnx/ folder (`capsnet.shipping.published_graphs`): app.py and two_digits.py read them, and
publish.py publishes them, from this one list.
"""

from capsnet.baseline import BaselineCNN
from capsnet.model import CapsNet
from capsnet.shipping import onnx_file
from capsnet.shipping.published_graphs import Export
from playground.reading import MAX_ITERATIONS


def capsnet_graphs(network: CapsNet) -> dict[str, Export]:
    """The CapsNet's, with the two graphs without weights that belong with its config."""
    config = network.config
    return {
        "capsules": Export(
            "an image in; its digit capsules, their lengths and the votes they were routed from out",
            onnx_file.capsules_graph,
            (network,),
        ),
        "decoder": Export("masked capsules in, their pictures out", onnx_file.decoder_graph, (network,)),
        "routing": Export(
            f"the votes routed for 1 to {MAX_ITERATIONS} iterations (no weights)",
            onnx_file.routing_graph,
            (config, MAX_ITERATIONS),
        ),
        "turn": Export("an image turned by an AffineChange (no weights)", onnx_file.turn_graph, (config.image_size,)),
    }


def cnn_graphs(network: BaselineCNN) -> dict[str, Export]:
    """The CNN baseline's."""
    return {
        "probabilities": Export("an image in, its ten probabilities out", onnx_file.probabilities_graph, (network,))
    }


def pairs_capsnet_graphs(network: CapsNet) -> dict[str, Export]:
    """The pairs CapsNet's: its weights in float16, the 8 bits of the MNIST CapsNet's graph chosen
    on MNIST's digits, not measured on pairs."""
    return {
        "capsules": Export(
            "an image in; its digit capsules, their lengths and the votes out (float16 weights)",
            onnx_file.capsules_graph,
            (network,),
            {"eight_bits": False},
        ),
        "decoder": Export("masked capsules in, their pictures out", onnx_file.decoder_graph, (network,)),
    }


def pairs_cnn_graphs(network: BaselineCNN) -> dict[str, Export]:
    """The pairs CNN's."""
    return {"sigmoids": Export("an image in, its ten sigmoids out", onnx_file.sigmoids_graph, (network,))}


GRAPHS = {  # (--model, --task): the graphs of that network the page reads
    ("capsnet", "digits"): capsnet_graphs,
    ("cnn", "digits"): cnn_graphs,
    ("capsnet", "pairs"): pairs_capsnet_graphs,
    ("cnn", "pairs"): pairs_cnn_graphs,
}
