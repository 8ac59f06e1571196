"""The model card (README.md) the Hugging Face Hub shows beside trained weights: the network and
the paper, the recipe and how the epoch was chosen (from metrics.json), MNIST's test accuracy in
the card's model-index, Semeion's, what it misreads (measured here), intended use, how to load it.
Here the weights are measured and the card written; its text, section by section, is
model_card_text.py's.

    python -m capsnet.shipping.model_card --weights weights --data-dir DATA --semeion DATA/semeion/semeion.data
    python -m capsnet.shipping.model_card --weights weights/cnn --model cnn --data-dir DATA --semeion ...
    python -m capsnet.shipping.model_card --weights weights/pairs --data-dir DATA   # trained on overlapping pairs

Weights trained on two overlapping digits (`train.py --task pairs`, their metrics.json says so) get
a card of their own: the pairs they were trained on, both digits right on the test pairs, and the
single MNIST digits beside.
"""

import argparse
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from huggingface_hub import EvalResult, ModelCard, ModelCardData
from tqdm import tqdm

from capsnet.data.datasets import batches, load_semeion, mnist
from capsnet.shipping.evaluate import Misreadings, misreadings, predictions, semeion_predictions
from capsnet.shipping.metrics_file import read_record
from capsnet.shipping.model_card_text import NAMES, PAIR_NAMES, card_text
from capsnet.shipping.pretrained import NETWORKS, load_model
from capsnet.shipping.saving import atomic_write_text


def mnist_misreadings(model, data_dir: str) -> Misreadings:
    """Accuracy on MNIST's 10,000 test digits and the (true, read) pairs of its mistakes, read
    wherever the network is (a progress bar where it takes more than a few seconds)."""
    test_set = mnist(data_dir, train=False)
    loader = batches(test_set, 500, device=next(model.parameters()).device)
    return misreadings(
        test_set.targets, predictions(model, tqdm(loader, desc="MNIST's test set", leave=False, delay=2))
    )


def per_digit_accuracy(labels: np.ndarray, read: np.ndarray) -> dict[int, float]:
    return {digit: float((read[labels == digit] == digit).mean()) for digit in range(10)}


def write_model_card(
    folder: str | Path,
    model_name: str,
    data_dir: str,
    semeion_path: str | None = None,
    repo: str | None = None,
    device: torch.device = torch.device("cpu"),
    misread: Misreadings | None = None,
) -> ModelCard:
    """Measure the weights in ``folder`` on ``device`` and write their card to ``folder``/README.md.

    ``misread``: their accuracy on MNIST's test set and its mistakes (``misreadings``) where the
    caller has just read it (train.py's final read), else read here.
    """
    folder = Path(folder)
    record = read_record(folder)
    model = load_model(folder, NETWORKS[model_name]).to(device)
    test_accuracy, mistakes = misread or mnist_misreadings(model, data_dir)
    semeion = None
    if semeion_path:
        labels = load_semeion(semeion_path)[1]
        read = semeion_predictions(model, semeion_path)
        semeion = (
            float((read == labels).mean()),
            per_digit_accuracy(labels, read),
            Counter((int(t), int(r)) for t, r in zip(labels, read, strict=True) if t != r),
        )
    routing = getattr(model.config, "routing_iterations", None)
    pairs = record.task == "pairs"
    data = ModelCardData(
        model_name=(PAIR_NAMES if pairs else NAMES)[model_name],
        library_name="capsnet",
        pipeline_tag="image-classification",
        tags=[
            "capsule-network" if model_name == "capsnet" else "cnn",
            "mnist",
            "image-classification",
            *(["multimnist", "overlapping-digits"] if pairs else []),
            "pytorch_model_hub_mixin",
        ],
        datasets=["ylecun/mnist"],
        eval_results=[
            EvalResult(
                task_type="image-classification",
                dataset_type="ylecun/mnist",
                dataset_name="MNIST, overlapping pairs (capsnet.data.pairs)" if pairs else "MNIST",
                dataset_split="test",
                metric_type="accuracy",
                metric_value=round(record.test_accuracy if pairs else test_accuracy, 4),
            )
        ],
    )
    text = card_text(
        model_name,
        record,
        sum(p.numel() for p in model.parameters()),
        routing,
        test_accuracy,
        mistakes,
        semeion,
        repo or str(folder),
    )
    card = ModelCard(f"---\n{data.to_yaml()}\n---\n\n{text}")
    atomic_write_text(folder / "README.md", str(card))
    return card


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="Write the model card (README.md) of trained weights.")
    p.add_argument("--weights", default="weights", help="the weights folder, with metrics.json (default: weights)")
    p.add_argument("--model", choices=sorted(NETWORKS), default="capsnet", help="which network (default: capsnet)")
    p.add_argument("--data-dir", default="./data", help="torchvision's MNIST folder (default: ./data)")
    p.add_argument("--semeion", default=None, help="path of semeion.data, to report it too")
    p.add_argument(
        "--repo", default=None, help="the Hub repo id the card's loading example names (default: the folder)"
    )
    p.add_argument(
        "--device", choices=["cpu", "cuda", "mps"], default="cpu", help="where the network runs (default: cpu)"
    )
    args = p.parse_args(argv)
    write_model_card(args.weights, args.model, args.data_dir, args.semeion, args.repo, torch.device(args.device))
    print(f"wrote {Path(args.weights) / 'README.md'}")


if __name__ == "__main__":
    main()
