"""Whether the Two-digits section reads in the page as pairs.json says it reads: the pairs networks'
graphs, as the app serves them to the page (`playground.two_digits.PairGraphs`: the pairs CapsNet
in float16, the pairs CNN's sigmoids in float16), and the pairs CapsNet's graph with PrimaryCaps and
W_ij in 8 bits as the MNIST CapsNet's, run by ONNX Runtime (the runtime the page runs in WebAssembly)
one image a run as the page runs them, on pairs.json's 10,000 MNIST test pairs
(`capsnet.data.pairs.fixed_pairs` with TEST_SEED): the pairs whose two digits each reads right
against the figure pairs.json records, the pairs whose two strongest digits differ from the network's
in PyTorch, and the largest difference of a score (a capsule's length, a sigmoid).

    python -m bench.pair_graph_precision --data-dir DATA

The figures, with the machine: docs/playground.md.
"""

import argparse
import json

import numpy as np
import onnxruntime as ort
import torch

from bench.train_throughput import cpu_model
from capsnet.data.datasets import mnist
from capsnet.data.pairs import TEST_SEED, both_right, fixed_pairs, scores
from capsnet.digit_count import top_two
from capsnet.shipping.onnx_file import capsules_graph, sigmoids_graph
from capsnet.shipping.pretrained import load_pair_networks
from harness.paths import WEIGHTS

PAIRS = WEIGHTS / "pairs"
CHUNK = 500  # images a PyTorch batch


def in_graph(graph: bytes, inputs: torch.Tensor, output: str) -> np.ndarray:
    """The graph's ``output`` for each image, one image a run: [N, 10]."""
    session = ort.InferenceSession(graph)
    return np.concatenate([session.run([output], {"images": image[None].numpy()})[0] for image in inputs])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default="data", help="MNIST's folder (downloaded there when missing)")
    args = parser.parse_args()

    capsnet, cnn = load_pair_networks(str(PAIRS), str(WEIGHTS / "pairs-cnn"))
    recorded = json.loads((PAIRS / "pairs.json").read_text())
    test = mnist(args.data_dir, train=False)
    inputs, _, labels, _ = fixed_pairs(test.data, test.targets, TEST_SEED)  # [10000, 1, 28, 28], [10000, 2]
    print(f"CPU: {cpu_model()}; ONNX Runtime {ort.__version__}; {len(inputs)} test pairs")
    print("| graph | weights | bytes | both right (pairs.json) | two strongest not PyTorch's | largest difference |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows = [
        ("the pairs CapsNet", "float16, shipped", "capsnet", capsules_graph(capsnet, eight_bits=False), "lengths"),
        ("the pairs CapsNet", "PrimaryCaps and W_ij in 8 bits", "capsnet", capsules_graph(capsnet), "lengths"),
        ("the pairs CNN", "float16, shipped", "cnn", sigmoids_graph(cnn), "probabilities"),
    ]
    with torch.inference_mode():  # each network's scores in PyTorch, once: [N, 10]
        in_pytorch = {
            key: torch.cat([scores(network(chunk)) for chunk in inputs.split(CHUNK)])
            for key, network in (("capsnet", capsnet), ("cnn", cnn))
        }
    for name, weights, key, graph, output in rows:
        expected = in_pytorch[key]
        found = torch.from_numpy(in_graph(graph, inputs, output))
        right = both_right(top_two(found), labels).float().mean().item()
        figure = recorded[key]["both_right"]
        moved = (top_two(found).sort(dim=1).values != top_two(expected).sort(dim=1).values).any(dim=1).sum().item()
        worst = (found - expected).abs().max().item()
        print(
            f"| {name} | {weights} | {len(graph) / 1e6:.2f} MB | {right:.2%} ({figure:.2%}) | {moved} | {worst:.1e} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
