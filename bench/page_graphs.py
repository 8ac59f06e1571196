"""What each of the page's graphs costs a run in ONNX Runtime Web, on one thread of WebAssembly as
the page's workers run them (playground/page/network_worker.js): the CapsNet's capsules graph as
the app serves it (its PrimaryCaps convolution and its predictions as matrix products,
capsnet/shipping/onnx_products.py) and as exported, its routing graph (the capsules graph's votes
routed for r = 1 .. 5, run once a stroke ends), the CNN's probabilities and the turn of a digit.
The graphs are exported from --weights and --cnn-weights into a temporary folder beside the
runtime's files (playground/onnxruntime-web/) and run by Node (bench/page_graphs.mjs), taking
turns run by run. Prints the median and the 10th and 90th percentiles of --runs runs, with the CPU.

    python -m bench.page_graphs --runs 200

Node runs the same WebAssembly as Chromium's workers, without a page beside it: the figures are
what a reading costs the worker, not what a person waits (bench/round_trip.py). The figures, with
the machine: docs/benchmarks.md.
"""

import argparse
import subprocess
import tempfile
from pathlib import Path

from bench.train_throughput import cpu_model
from capsnet import load_model
from capsnet.baseline import BaselineCNN
from capsnet.data.affine import AffineChange
from capsnet.shipping.onnx_file import CHANGE, capsules_graph, probabilities_graph, routing_graph, turn_graph
from harness.paths import REPO, WEIGHTS
from playground.page_network import RUNTIME_FILES, VERSION, runtime_file
from playground.reading import MAX_ITERATIONS

SCRIPT = Path(__file__).with_suffix(".mjs")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", default=str(WEIGHTS), help="the CapsNet's folder (default: weights)")
    parser.add_argument("--cnn-weights", default=str(WEIGHTS / "cnn"), help="the CNN's folder (default: weights/cnn)")
    parser.add_argument("--runs", type=int, default=200, help="timed runs of each graph (default 200)")
    args = parser.parse_args(argv)

    capsnet, cnn = load_model(args.weights), load_model(args.cnn_weights, BaselineCNN)
    graphs = {
        "capsules": capsules_graph(capsnet),
        "capsules-as-exported": capsules_graph(capsnet, as_products=False),
        "routing": routing_graph(capsnet.config, MAX_ITERATIONS),
        "probabilities": probabilities_graph(cnn),
        "turn": turn_graph(capsnet.config.image_size),
    }
    change = AffineChange(rotation=30)
    with tempfile.TemporaryDirectory() as folder:
        for name in RUNTIME_FILES:  # the WebAssembly unzipped
            (Path(folder) / name).write_bytes(runtime_file(name)[0])
        for name, data in graphs.items():
            (Path(folder) / f"{name}.onnx").write_bytes(data)
        numbers = ",".join(str(float(getattr(change, name))) for name in CHANGE)
        timed = subprocess.run(
            ["node", str(SCRIPT), folder, str(args.runs), numbers, *graphs],
            cwd=REPO, capture_output=True, text=True, check=True,
        )  # fmt: skip
    print(f"CPU: {cpu_model()}; ONNX Runtime Web {VERSION}, one thread, Node {node_version()}; {args.runs} runs each")
    print("| graph | median | 10th-90th percentile |")
    print("| --- | --- | --- |")
    for line in timed.stdout.splitlines():
        name, median, low, high = line.split()
        print(f"| {name} | {median} ms | {low}-{high} ms |")


def node_version() -> str:
    return subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()


if __name__ == "__main__":
    main()
