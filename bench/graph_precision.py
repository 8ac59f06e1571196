"""How far the page's graphs move what the networks read, as capsnet/shipping/onnx_storage.py stores
their weights (float16, and PrimaryCaps' convolution and W_ij in 8 bits), and what the graphs weigh.

1. The choice of the weights stored in 8 bits, on MNIST's validation digits (the training digits
   train.py holds out at its defaults, with which the shipped weights were trained) and on the same
   digits turned as Turn it turns them: the CapsNet in PyTorch with each candidate weight rounded
   as the graph stores it (`eight_bits`, one scale per output channel; W_ij one per primary
   capsule i, or per pair i, j) and the others to float16, against full precision: the digits read
   otherwise and the
   largest difference of a length; the decoder's pictures of the winners in grey levels of 255.
2. The report, once, on MNIST's 10,000 test digits and Semeion's 1,593 (other writers): the
   CapsNet's capsules graph as the app serves it, all in float16 and as shipped, and the CNN's, run
   by ONNX Runtime (the runtime the page runs in WebAssembly) one image a run as the page runs
   them, against the networks in PyTorch; and the decoder's graph's pictures of the test digits'
   winners. Each graph's bytes, and gzipped (as the server sends them to a browser that takes gzip).

    python -m bench.graph_precision --data-dir DATA

The figures, with the machine: docs/playground.md.
"""

import argparse
import copy
import gzip
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
import torch.nn.functional as F

from bench.train_throughput import cpu_model
from capsnet.baseline import BaselineCNN
from capsnet.data.affine import affine_matrices, transform
from capsnet.data.datasets import load_semeion, mnist, validation_split
from capsnet.data.preprocess import ink_to_mnist
from capsnet.model import CapsNet
from capsnet.shipping.onnx_file import capsules_graph, decoder_graph, probabilities_graph
from capsnet.shipping.onnx_storage import eight_bits
from capsnet.training.options import flags
from harness.paths import WEIGHTS

# The CapsNet's weights that might be stored in 8 bits, and the axis of their scales in PyTorch's
# layout: the same groups as the graph's layout (the output channels; W_ij's primary capsules i).
CANDIDATES = {
    "conv1": {"conv1.weight": (0,)},
    "PrimaryCaps": {"primary.conv.weight": (0,)},
    "W_ij, a scale per i": {"digits.W": (0,)},
    "W_ij, a scale per i, j": {"digits.W": (0, 1)},
    "PrimaryCaps and W_ij (per i, j)": {"primary.conv.weight": (0,), "digits.W": (0, 1)},
}
DECODER = {name: (0,) for name in ("decoder.0.weight", "decoder.2.weight", "decoder.4.weight")}
TURNS = (60.0, 0.2)  # the validation digits turned by up to +-60 degrees and scaled by 1 +- 0.2
CHUNK = 500  # images a PyTorch batch


def rounded(network: CapsNet, eight_bit_axes: dict[str, tuple[int, ...]]) -> CapsNet:
    """A copy of ``network`` with the weights ``eight_bit_axes`` names rounded to 8 bits as the graph
    stores them (a scale for each index along the axes given), and every other to float16."""
    copied = copy.deepcopy(network)
    with torch.no_grad():
        for name, weight in copied.named_parameters():
            if name in eight_bit_axes:
                values, scales = eight_bits(weight.numpy(), eight_bit_axes[name])
                weight.copy_(torch.from_numpy(values.astype(np.float32) * scales))
            else:
                weight.copy_(weight.half().float())
    return copied


def in_pytorch(network: torch.nn.Module, images: torch.Tensor, output: str = "lengths") -> np.ndarray:
    """The network's ``output`` for each image, CHUNK images a batch: [N, 10]."""
    with torch.inference_mode():
        return torch.cat([getattr(network(chunk), output) for chunk in images.split(CHUNK)]).numpy()


def winners(network: CapsNet, images: torch.Tensor) -> torch.Tensor:
    """The decoder's input for each image: its capsules, all zero but the winner's [N, 160]."""
    with torch.inference_mode():
        capsules, lengths = zip(*(network.capsules(chunk) for chunk in images.split(CHUNK)), strict=True)
        capsules, lengths = torch.cat(capsules), torch.cat(lengths)  # [N, 10, 16], [N, 10]
        return (capsules * F.one_hot(lengths.argmax(1), lengths.shape[1])[..., None]).flatten(1)


def grey_levels(got: np.ndarray, expected: np.ndarray) -> float:
    return float(np.abs(got - expected).max() * 255)


def compared(got: np.ndarray, expected: np.ndarray) -> str:
    """The share of the images read alike, the digits read otherwise and the largest difference."""
    alike = got.argmax(1) == expected.argmax(1)
    return f"{alike.mean():.2%} ({int((~alike).sum())}) | {np.abs(got - expected).max():.1e}"


def validation_sets(data_dir: str) -> dict[str, torch.Tensor]:
    """The validation digits, and each turned and scaled at random (seeded) as Turn it can."""
    train = mnist(data_dir, train=True)
    defaults = flags(__doc__).parse_args([])
    _, held_out = validation_split(len(train.data), defaults.val_size, defaults.seed)
    images = train.data[held_out, None].float() / 255  # [5000, 1, 28, 28]
    generator = torch.Generator().manual_seed(0)
    angle, size = (limit * (2 * torch.rand(len(images), generator=generator, dtype=torch.float64) - 1)
                   for limit in TURNS)  # fmt: skip
    ones, zeros = torch.ones_like(angle), torch.zeros_like(angle)
    matrices = affine_matrices(angle, 1 + size, zeros, ones, ones, zeros, zeros)  # no shear, stretch or shift
    return {"validation": images, "validation, turned": transform(images, matrices)}


def choose(capsnet: CapsNet, sets: dict[str, torch.Tensor]) -> None:
    print("| 8 bits | " + " | ".join(f"{name}: read alike (otherwise) | largest difference" for name in sets) + " |")
    print("| --- |" + " --- | --- |" * len(sets))
    expected = {name: in_pytorch(capsnet, images) for name, images in sets.items()}
    for candidate, axes in {"none (float16)": {}, **CANDIDATES}.items():
        network = rounded(capsnet, axes)
        print(f"| {candidate} | " + " | ".join(compared(in_pytorch(network, images), expected[name])
                                              for name, images in sets.items()) + " |")  # fmt: skip
    capsules = winners(capsnet, next(iter(sets.values())))
    with torch.inference_mode():
        full = capsnet.decoder(capsules).numpy()
        for form, axes in (("float16", {}), ("8 bits", DECODER)):
            levels = grey_levels(rounded(capsnet, axes).decoder(capsules).numpy(), full)
            print(f"The decoder in {form}: the winners' pictures within {levels:.1f} grey levels of 255")


def read(graph: bytes, images: torch.Tensor, output: str) -> np.ndarray:
    """The graph's ``output`` for each image, one a run as the page runs it: [N, 10]."""
    session = ort.InferenceSession(graph)
    names = [entry.name for entry in session.get_outputs()]
    return np.concatenate([session.run(None, {"images": image[None].numpy()})[names.index(output)]
                           for image in images]).reshape(len(images), -1)  # fmt: skip


def weighed(graph: bytes) -> str:
    return f"{len(graph) / 1e6:.2f} MB ({len(gzip.compress(graph, 6)) / 1e6:.2f})"


def report(capsnet: CapsNet, cnn: BaselineCNN, sets: dict[str, torch.Tensor]) -> None:
    print("| graph | weights | bytes (gzipped) | " + " | ".join(f"{name}: read alike (otherwise) | largest difference"
                                                         for name in sets) + " |")  # fmt: skip
    print("| --- | --- | --- |" + " --- | --- |" * len(sets))
    graphs = (
        ("CapsNet (a length)", "float16", capsules_graph(capsnet, eight_bits=False), capsnet, "lengths"),
        ("CapsNet (a length)", "PrimaryCaps and W_ij in 8 bits, shipped", capsules_graph(capsnet), capsnet, "lengths"),
        ("CNN (a probability)", "float16, shipped", probabilities_graph(cnn), cnn, "probabilities"),
    )
    for name, form, graph, network, output in graphs:
        figures = []
        for images in sets.values():
            figures.append(compared(read(graph, images, output), in_pytorch(network, images, output)))
        print(f"| {name} | {form} | {weighed(graph)} | " + " | ".join(figures) + " |")
    decoder = decoder_graph(capsnet)
    capsules = winners(capsnet, next(iter(sets.values())))
    (pictures,) = ort.InferenceSession(decoder).run(None, {"capsules": capsules.numpy()})
    with torch.inference_mode():
        levels = grey_levels(pictures, capsnet.decoder(capsules).numpy())
    print(f"| decoder | float16, shipped | {weighed(decoder)} | the test digits' winners: {levels:.1f} grey levels |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="data", help="MNIST's folder, and Semeion's (default: data)")
    parser.add_argument("--weights", type=Path, default=WEIGHTS, help="the CapsNet's folder (default: weights)")
    parser.add_argument("--cnn", type=Path, default=WEIGHTS / "cnn", help="the CNN's (default: weights/cnn)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    capsnet, cnn = CapsNet.from_pretrained(args.weights).eval(), BaselineCNN.from_pretrained(args.cnn).eval()
    print(f"CPU: {cpu_model()}; ONNX Runtime {ort.__version__}")
    choose(capsnet, validation_sets(args.data_dir))
    semeion, _ = load_semeion(Path(args.data_dir) / "semeion" / "semeion.data")  # ink 255, [N, 16, 16]
    semeion = torch.from_numpy(np.stack([ink_to_mnist(ink / 255) for ink in semeion]))[:, None]  # [N, 1, 28, 28]
    report(capsnet, cnn, {"MNIST test": mnist(args.data_dir, train=False).data[:, None].float() / 255,
                          "Semeion": semeion})  # fmt: skip


if __name__ == "__main__":
    main()
