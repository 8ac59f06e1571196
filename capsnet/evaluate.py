"""Accuracy of a CapsNet on MNIST's test set, and on Semeion (other people's handwriting).

    python -m capsnet.evaluate --weights weights --data-dir ../shared/data \
        --semeion ../shared/data/semeion/semeion.data
"""
import argparse
import json

import numpy as np
import torch

from capsnet.data import batches, load_semeion, mnist
from capsnet.model import CapsNet
from capsnet.preprocess import sketch_to_mnist
from capsnet.pretrained import load_model


@torch.inference_mode()
def accuracy(model: CapsNet, loader: torch.utils.data.DataLoader, device: torch.device) -> float:
    """The fraction of the loader's images whose longest capsule is the true digit."""
    model.eval()
    correct = total = 0
    for images, labels in loader:
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        correct += (model(images).prediction == labels).sum().item()
        total += labels.numel()
    return correct / total


@torch.inference_mode()
def semeion_accuracy(model: CapsNet, path: str) -> float:
    """Accuracy on the Semeion digits, each given to `sketch_to_mnist` (the playground's own
    preprocessing) as what it is, strokes on a transparent canvas like a drawing in the app.
    Evaluation only: nothing is ever trained or tuned on them."""
    model.eval()
    images, labels = load_semeion(path)                                   # ink = 255, [N, 16, 16]
    strokes = np.zeros(images.shape + (4,), dtype=np.uint8)               # black ink ...
    strokes[..., 3] = images                                              # ... on a transparent canvas
    inputs = torch.from_numpy(np.stack([sketch_to_mnist(s) for s in strokes]))  # [N, 28, 28]
    predictions = torch.cat([model(chunk.unsqueeze(1)).prediction for chunk in inputs.split(500)])
    return (predictions.numpy() == labels).mean().item()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="Evaluate trained CapsNet weights.")
    p.add_argument("--weights", default="weights", help="a folder or Hub repo id (default: weights)")
    p.add_argument("--data-dir", default="./data", help="torchvision's MNIST folder (default: ./data)")
    p.add_argument("--semeion", default=None, help="path of semeion.data, to evaluate on it too")
    args = p.parse_args(argv)
    model = load_model(args.weights)
    results = {"mnist_test_accuracy": accuracy(model, batches(mnist(args.data_dir, train=False), 500),
                                               torch.device("cpu"))}
    if args.semeion:
        results["semeion_accuracy"] = semeion_accuracy(model, args.semeion)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
