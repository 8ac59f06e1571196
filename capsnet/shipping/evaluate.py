"""Accuracy of a CapsNet, or the CNN baseline, on MNIST's test set and on Semeion (other
people's handwriting).

    python -m capsnet.shipping.evaluate --weights weights --data-dir ../shared/data \
        --semeion ../shared/data/semeion/semeion.data
    python -m capsnet.shipping.evaluate --weights weights/cnn --model cnn --data-dir ../shared/data
    python -m capsnet.shipping.evaluate --weights weights --data-dir ../shared/data --device cuda
"""

import argparse
import json
from collections import Counter
from typing import NamedTuple

import numpy as np
import torch

from capsnet.data.datasets import batches, load_semeion, mnist
from capsnet.data.preprocess import sketch_to_mnist
from capsnet.shipping.pretrained import NETWORKS, load_model


def as_network_takes(model: torch.nn.Module, images: torch.Tensor) -> torch.Tensor:
    """``images`` where the network's weights are, in their dtype: what its first layer takes."""
    weight = next(model.parameters())
    return images.to(weight.device, weight.dtype, non_blocking=True)


def read_right(output, labels: torch.Tensor) -> torch.Tensor:
    """Whether each image is read as its true digit (for a CapsNet, the longest capsule; for the
    CNN baseline, the most probable class), bool [B]."""
    return output.prediction == labels


@torch.inference_mode()
def correct_and_total(
    model, loader: torch.utils.data.DataLoader, device: torch.device, right=read_right
) -> tuple[int, int]:
    """How many of the loader's images the network reads right (``right(output, labels)``; for
    overlapping pairs, `capsnet.data.pairs.pair_right`), and how many there are."""
    model.eval()
    correct = total = 0
    for images, labels in loader:
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        correct += right(model(images), labels).sum().item()
        total += len(labels)
    return correct, total


def accuracy(model, loader: torch.utils.data.DataLoader, device: torch.device, right=read_right) -> float:
    """The fraction of the loader's images read right (by default: as their true digit)."""
    correct, total = correct_and_total(model, loader, device, right)
    return correct / total


class Misreadings(NamedTuple):
    """Digits read against their labels: the share read right, and the mistakes."""

    accuracy: float
    mistakes: Counter  # (true, read): how many times


def misreadings(labels: torch.Tensor, read: torch.Tensor) -> Misreadings:
    """The accuracy of the digits ``read`` (int [N]) against their ``labels`` (int [N]), and the
    (true, read) pairs of the mistakes."""
    wrong = read != labels
    mistakes = Counter(zip(labels[wrong].tolist(), read[wrong].tolist(), strict=True))
    return Misreadings((~wrong).sum().item() / len(labels), mistakes)


@torch.inference_mode()
def predictions(model, loader) -> torch.Tensor:
    """What the network reads in each of the loader's (images, labels), in order: int64 [N] on the CPU."""
    model.eval()
    return torch.cat([model(as_network_takes(model, images)).prediction.cpu() for images, _ in loader])


@torch.inference_mode()
def semeion_predictions(model, path: str) -> np.ndarray:
    """What the network reads in each Semeion digit, each given to `sketch_to_mnist` (the
    playground's own preprocessing) as what it is, strokes on a transparent canvas like a drawing
    in the app. Evaluation only: nothing is ever trained or tuned on them."""
    model.eval()
    images, _ = load_semeion(path)  # ink = 255, [N, 16, 16]
    strokes = np.zeros(images.shape + (4,), dtype=np.uint8)  # black ink ...
    strokes[..., 3] = images  # ... on a transparent canvas
    inputs = torch.from_numpy(np.stack([sketch_to_mnist(s) for s in strokes]))  # [N, 28, 28]
    return torch.cat(
        [model(as_network_takes(model, chunk.unsqueeze(1))).prediction.cpu() for chunk in inputs.split(500)]
    ).numpy()


def semeion_accuracy(model, path: str) -> float:
    """Accuracy on the Semeion digits (other people's handwriting)."""
    return (semeion_predictions(model, path) == load_semeion(path)[1]).mean().item()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="Evaluate trained CapsNet weights.")
    p.add_argument("--weights", default="weights", help="a folder or Hub repo id (default: weights)")
    p.add_argument("--data-dir", default="./data", help="torchvision's MNIST folder (default: ./data)")
    p.add_argument("--semeion", default=None, help="path of semeion.data, to evaluate on it too")
    p.add_argument("--model", choices=sorted(NETWORKS), default="capsnet", help="which network (default: capsnet)")
    p.add_argument(
        "--device", choices=["cpu", "cuda", "mps"], default="cpu", help="where the network runs (default: cpu)"
    )
    args = p.parse_args(argv)
    device = torch.device(args.device)
    model = load_model(args.weights, NETWORKS[args.model]).to(device)
    test_set = batches(mnist(args.data_dir, train=False), 500, device=device)
    results = {"mnist_test_accuracy": accuracy(model, test_set, device)}
    if args.semeion:
        results["semeion_accuracy"] = semeion_accuracy(model, args.semeion)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
