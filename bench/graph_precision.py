"""What the page's graphs cost in bytes and in agreement with the server's networks: the CapsNet's
capsules and the CNN's probabilities as capsnet/shipping/onnx_file.py exports them (weights in
float16; the CapsNet's without the products the page reads with, capsnet/shipping/onnx_products.py,
which move its capsules by float32's rounding alone), and the same graphs with their weights in 8
bits (symmetric, one scale per output channel, dequantized to float32 as the graph loads), each run
by ONNX Runtime (the runtime the page runs in WebAssembly) on MNIST's first --digits test digits and
Semeion's digits (other writers) against the networks in PyTorch. Prints, per graph and form: its
bytes and gzipped bytes, the largest difference of a length (a probability for the CNN), and the
digits read otherwise.

    python -m bench.graph_precision --data-dir DATA

The figures, with the machine: docs/playground.md.
"""

import argparse
import gzip
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import TensorProto, helper, numpy_helper

from bench.train_throughput import cpu_model
from capsnet.baseline import BaselineCNN
from capsnet.data.datasets import load_semeion, mnist
from capsnet.data.preprocess import ink_to_mnist
from capsnet.model import CapsNet
from capsnet.shipping.onnx_file import capsules_graph, probabilities_graph
from harness.paths import WEIGHTS

EIGHT_BITS = 127  # the largest weight of an output channel is stored as +-127


def in_eight_bits(graph: bytes) -> bytes:
    """``graph`` with each float16 weight (and its Cast to float32) replaced by int8 and one float32
    scale per output channel, dequantized to float32 where the Cast was."""
    model = onnx.load_from_string(graph)
    stored = {tensor.name: tensor for tensor in model.graph.initializer if tensor.data_type == TensorProto.FLOAT16}
    for position, node in enumerate(list(model.graph.node)):
        if node.op_type != "Cast" or node.input[0] not in stored:
            continue
        weight = numpy_helper.to_array(stored[node.input[0]]).astype(np.float32)
        channels = weight.reshape(len(weight), -1)  # [outputs, everything else]
        scale = np.maximum(np.abs(channels).max(axis=1), 1e-12) / EIGHT_BITS
        quantized = np.rint(channels / scale[:, None]).astype(np.int8).reshape(weight.shape)
        name = node.input[0].removesuffix("_f16")
        model.graph.initializer.remove(stored[node.input[0]])
        scales = numpy_helper.from_array(scale.astype(np.float32), f"{name}_scale")
        model.graph.initializer.extend([numpy_helper.from_array(quantized, f"{name}_q"), scales])
        model.graph.node.remove(node)
        dequantized = helper.make_node("DequantizeLinear", [f"{name}_q", scales.name], [name], axis=0)
        model.graph.node.insert(position, dequantized)
    return model.SerializeToString()


def read(graph: bytes, images: torch.Tensor, output: str) -> np.ndarray:
    """The graph's ``output`` for each image, one a run as the page runs it: [N, 10]."""
    session = ort.InferenceSession(graph)
    names = [entry.name for entry in session.get_outputs()]
    return np.concatenate([session.run(None, {"images": image[None].numpy()})[names.index(output)]
                           for image in images]).reshape(len(images), -1)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="data", help="MNIST's folder, and Semeion's (default: data)")
    parser.add_argument("--digits", type=int, default=2000, help="MNIST test digits read (default: 2000)")
    parser.add_argument("--weights", type=Path, default=WEIGHTS, help="the CapsNet's folder (default: weights)")
    parser.add_argument("--cnn", type=Path, default=WEIGHTS / "cnn", help="the CNN's (default: weights/cnn)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    test = mnist(args.data_dir, train=False)
    semeion, _ = load_semeion(Path(args.data_dir) / "semeion" / "semeion.data")  # ink 255, [N, 16, 16]
    semeion = torch.from_numpy(np.stack([ink_to_mnist(ink / 255) for ink in semeion]))[:, None]  # [N, 1, 28, 28]
    sets = {"MNIST": test.data[: args.digits, None].float() / 255, "Semeion": semeion}
    capsnet, cnn = CapsNet.from_pretrained(args.weights).eval(), BaselineCNN.from_pretrained(args.cnn).eval()
    print(f"CPU: {cpu_model()}; ONNX Runtime {ort.__version__}")
    print("| graph | weights | bytes | gzipped | set | largest difference | digits read otherwise |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    # the CapsNet's weights in its layers' own layout, where 8 bits scale each output channel
    for name, network, graph, output in (("CapsNet", capsnet, capsules_graph(capsnet, as_products=False), "lengths"),
                                         ("CNN", cnn, probabilities_graph(cnn), "probabilities")):  # fmt: skip
        for form, data in (("float16", graph), ("8 bits", in_eight_bits(graph))):
            for set_name, images in sets.items():
                with torch.inference_mode():
                    out = network(images)
                    expected = (out.lengths if name == "CapsNet" else out.probabilities).numpy()
                got = read(data, images, output)
                print(f"| {name} | {form} | {len(data):,} | {len(gzip.compress(data, 6)):,} | {set_name} "
                      f"({len(images):,}) | {np.abs(got - expected).max():.1e} | "
                      f"{int((got.argmax(1) != expected.argmax(1)).sum())} |")  # fmt: skip


if __name__ == "__main__":
    main()
