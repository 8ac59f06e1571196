"""Is the CapsNet more robust than the paper's CNN baseline when the digit is turned, scaled,
sheared, stretched or moved?

Sabour et al. 2017, section 5.2, trained both networks on padded and translated MNIST and tested
them on affNIST: 79% for the CapsNet, 66% for the CNN. Here both trained networks read the SAME
transformed images of MNIST test digits (``capsnet.data.affine.transform`` about the image centre,
bilinear, zeros outside the frame):

- one change at a time, swept over SWEEPS (capsnet.data.affine): rotation -90..+90 degrees in steps of 10; scale,
  stretch in x and stretch in y 0.5..1.5 in steps of 0.1; shear -0.6..0.6 in steps of 0.1; shifts
  in x and in y of -6..+6 pixels in steps of 1: each network's accuracy at each step;
- random changes in affNIST's ranges (AFFNIST): rotation within +-20 degrees, shear factor within
  +-0.2, horizontal and vertical scaling each within 0.8..1.2 (Tijmen Tieleman's affNIST page,
  https://www.cs.toronto.edu/~tijmen/affNIST/, as public generators quote it "as in affNIST").
  affNIST moves the transformed digit within a 40x40 frame, where its 28x28 original stands with
  a 6-pixel edge all round; our input is the 28x28 frame itself, in which MNIST fits each digit
  into a 20x20 box, a 4-pixel edge. Translation is adapted to that edge: shifts uniform within
  +-4 pixels in x and in y, so that an unscaled digit stays in the frame. TRANSFORMS_PER_DIGIT
  random changes of every digit, drawn from a fixed seed.

For the CapsNet also: the length of the winning capsule and of the true class's capsule, and
whether the pose follows the change: the decoder's reconstruction from the changed digit's
winning capsule against the same change applied to the reconstruction of the unchanged digit
(their pixel error as a fraction of ink, and their correlation), beside the same figures for the
unchanged reconstruction, which is what a pose that did not follow at all would score.

Both networks read the same images, so they are compared pair by pair: for every change, how
many changed digits only the CapsNet read right and how many only the CNN, and the CapsNet's
accuracy minus the CNN's with a 95% interval from a bootstrap over the digits (BOOTSTRAP_RESAMPLES
resamples of the digits, each with all of its changes, since the changes of one digit are not
independent of each other); the same for each sweep's mean over its steps.

The digits are the first DIGITS_PER_CLASS of each class in MNIST's test set (500 of the 10,000, so
that the whole measurement, some 45,000 changed images for each network, stays short: its time is
in docs/benchmarks.md), the same for both networks.
The results go to robustness.json beside the CapsNet's weights, with the sha256 of both networks'
weights; the command reproduces the file byte for byte.

    python -m capsnet.studies.robustness --data-dir ../shared/data   # writes weights/robustness.json
    python -m capsnet.studies.robustness --show                       # docs/robustness.md's table, every step

The results and what they show: docs/robustness.md (`python -m charts.robustness` draws
them there, beside the app: what draws is not the library's).
"""

import argparse
import time
from pathlib import Path

import torch
from tqdm import tqdm

from capsnet.baseline import BaselineCNN
from capsnet.data.affine import SWEEPS, AffineChange, affine_matrices, transform
from capsnet.data.datasets import mnist
from capsnet.shipping.pretrained import WEIGHTS_FILE, load_model
from capsnet.studies.results_file import WEIGHTS_SHA256, weights_sha256
from capsnet.studies.robustness_file import RESULTS_FILE, load_results
from capsnet.studies.statistics import (
    BOOTSTRAP_RESAMPLES,
    DECIMALS,
    correlation,
    ink_error,
    paired,
    percent,
    points,
    to_json,
)
from capsnet.studies.study_flags import study_flags

DIGITS_PER_CLASS = 50  # 500 test digits, so that the whole measurement stays short (docs/benchmarks.md)
BATCH = 250  # images per forward pass: the same batches every run, so the same sums
TRANSFORMS_PER_DIGIT = 4  # random affNIST-range changes of each digit: 2,000 changed images
SEED = 0  # of the affNIST-range draws


AFFNIST = {  # AffineChange field: (low, high), each drawn uniformly and independently
    "rotation": (-20.0, 20.0),
    "shear": (-0.2, 0.2),
    "stretch_x": (0.8, 1.2),
    "stretch_y": (0.8, 1.2),
    "shift_x": (-4.0, 4.0),  # pixels: MNIST's 4-pixel edge around a digit, for affNIST's moves in 40x40
    "shift_y": (-4.0, 4.0),
}
MEASURES = {
    "accuracy": "fraction of the changed digits read as their true digit "
    "(CapsNet: longest capsule; CNN: most probable class)",
    "winner_length": "CapsNet: mean length of the longest digit capsule",
    "true_length": "CapsNet: mean length of the true digit's capsule",
    "pose_error": "CapsNet: sum over pixels of |decoder(changed digit's winner) - change(decoder(digit's winner))| "
    "/ ink of the latter, mean over the digits: 0 when the pose follows the change exactly",
    "pose_correlation": "CapsNet: correlation over pixels of the same two images, mean over the digits: "
    "1 when it follows",
    "unmoved_error": "CapsNet: pose_error of the unchanged digit's reconstruction, "
    "what a pose that did not follow would score",
    "unmoved_correlation": "CapsNet: pose_correlation of the unchanged digit's reconstruction, likewise",
    "winner_probability": "CNN: mean softmax probability of the most probable class",
    "true_probability": "CNN: mean softmax probability of the true digit",
}
PAIRED_MEASURES = {
    "only_capsnet": "changed digits the CapsNet read right and the CNN did not",
    "only_cnn": "changed digits the CNN read right and the CapsNet did not",
    "difference": "the CapsNet's accuracy minus the CNN's, on the same changed digits",
    "low": "the difference's 95% interval, lower end: 2.5th percentile of BOOTSTRAP_RESAMPLES bootstrap "
    "resamples of the digits, each digit with all of its changes",
    "high": "the difference's 95% interval, upper end: 97.5th percentile of the same resamples",
}


def first_digits(dataset, per_class: int = DIGITS_PER_CLASS) -> tuple[torch.Tensor, torch.Tensor]:
    """The first ``per_class`` test digits of each class, in the test set's order.

    Args:
        dataset: torchvision's MNIST test set (its ``data`` and ``targets``).

    Returns:
        images [N, 1, 28, 28] in [0, 1] (as ToTensor gives them), labels [N].
    """
    classes = dataset.targets.unique()
    index = torch.cat([(dataset.targets == c).nonzero()[:per_class, 0] for c in classes]).sort().values
    return dataset.data[index].unsqueeze(1).float() / 255, dataset.targets[index]


def affnist_matrices(count: int, seed: int = SEED) -> torch.Tensor:
    """``count`` random changes in AFFNIST's ranges, the same for a given seed: [count, 2, 3]."""
    g = torch.Generator().manual_seed(seed)
    values = {
        name: low + (high - low) * torch.rand(count, generator=g, dtype=torch.float64)
        for name, (low, high) in AFFNIST.items()
    }
    values["scale"] = torch.ones(count, dtype=torch.float64)
    return affine_matrices(**values)


def capsnet_readings(model, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The capsule lengths [N, 10] and the winner's reconstruction [N, 1, 28, 28] of each image."""
    outputs = [model(batch) for batch in images.split(BATCH)]
    return torch.cat([o.lengths for o in outputs]), torch.cat([o.reconstruction for o in outputs])


def capsnet_measures(
    lengths: torch.Tensor, labels: torch.Tensor, seen: torch.Tensor, moved: torch.Tensor, unmoved: torch.Tensor
) -> dict[str, float]:
    """The CapsNet's MEASURES for one set of changed digits.

    Args:
        lengths: capsule lengths of the changed digits [N, 10]; labels: their classes [N].
        seen: the decoder's reconstruction from each changed digit's winning capsule [N, 1, H, W].
        moved: the unchanged digit's reconstruction, changed likewise [N, 1, H, W].
        unmoved: the unchanged digit's reconstruction [N, 1, H, W].
    """
    return {
        "accuracy": (lengths.argmax(1) == labels).double().mean().item(),
        "winner_length": lengths.max(1).values.double().mean().item(),
        "true_length": lengths.gather(1, labels[:, None]).double().mean().item(),
        "pose_error": ink_error(seen, moved).double().mean().item(),
        "pose_correlation": correlation(seen, moved).double().mean().item(),
        "unmoved_error": ink_error(unmoved, moved).double().mean().item(),
        "unmoved_correlation": correlation(unmoved, moved).double().mean().item(),
    }


def cnn_measures(probabilities: torch.Tensor, labels: torch.Tensor) -> dict[str, float]:
    """The CNN's MEASURES for one set of changed digits, from its softmax [N, 10] and the classes [N]."""
    return {
        "accuracy": (probabilities.argmax(1) == labels).double().mean().item(),
        "winner_probability": probabilities.max(1).values.double().mean().item(),
        "true_probability": probabilities.gather(1, labels[:, None]).double().mean().item(),
    }


@torch.inference_mode()
def measure_change(
    capsnet,
    cnn,
    images: torch.Tensor,
    labels: torch.Tensor,
    reconstructions: torch.Tensor,
    matrices: torch.Tensor,
    changes_per_digit: int = 1,
) -> tuple[dict, torch.Tensor]:
    """Both networks on the same changed digits.

    Args:
        capsnet, cnn: the trained networks, in eval mode.
        images: the unchanged digits [N, 1, 28, 28]; labels: their classes [N].
        reconstructions: the CapsNet's reconstruction of each unchanged digit [N, 1, 28, 28].
        matrices: the change, [2, 3] for every digit or [N, 2, 3] (``capsnet.data.affine``).
        changes_per_digit: C where the images are C changes of each of N / C digits, the c-th
            change of digit n at c * N / C + n (``images.repeat``), for the bootstrap.

    Returns:
        {"capsnet": ..., "cnn": ..., "paired": ...}: each network's MEASURES and their
        PAIRED_MEASURES, rounded to DECIMALS; and bool [2, N], whether the CapsNet (row 0) and the
        CNN (row 1) read each changed digit right.
    """
    changed = transform(images, matrices)  # [N, 1, 28, 28]
    lengths, seen = capsnet_readings(capsnet, changed)
    probabilities = torch.cat([cnn(batch).probabilities for batch in changed.split(BATCH)])  # [N, 10]
    moved = transform(reconstructions, matrices)
    results = {
        "capsnet": capsnet_measures(lengths, labels, seen, moved, reconstructions),
        "cnn": cnn_measures(probabilities, labels),
    }
    results = {network: {k: round(v, DECIMALS) + 0.0 for k, v in values.items()} for network, values in results.items()}
    right = torch.stack([lengths.argmax(1) == labels, probabilities.argmax(1) == labels])  # [2, N]
    by_digit = right.view(2, changes_per_digit, -1)  # [2, C, N / C]
    return {**results, "paired": paired(by_digit[0], by_digit[1])}, right


@torch.inference_mode()
def measure(
    capsnet,
    cnn,
    images: torch.Tensor,
    labels: torch.Tensor,
    sweeps: dict = SWEEPS,
    transforms_per_digit: int = TRANSFORMS_PER_DIGIT,
    progress: bool = False,
) -> dict:
    """Every sweep and the affNIST-range changes, for both networks on the same digits.

    Args:
        capsnet, cnn: the trained networks, in eval mode.
        images: the digits [N, 1, 28, 28]; labels: their classes [N].
        sweeps: AffineChange field -> (values, unit), as SWEEPS.
        transforms_per_digit: how many random affNIST-range changes of each digit.
        progress: show a tqdm bar (in images read by both networks).

    Returns:
        {"untransformed", "sweeps", "affnist"}: robustness.json's measurements.
    """
    count = len(images)
    total = count * (1 + sum(len(values) for values, _ in sweeps.values()) + transforms_per_digit)
    with tqdm(total=total, unit="image", disable=not progress, desc="changed digits") as bar:
        _, reconstructions = capsnet_readings(capsnet, images)
        unchanged = measure_change(capsnet, cnn, images, labels, reconstructions, AffineChange().matrix())
        bar.update(count)
        results = {"untransformed": unchanged[0], "sweeps": {}}
        for name, (values, unit) in sweeps.items():
            steps, right = [], []
            for value in values:
                change = AffineChange(**{name: value})
                measured = (
                    unchanged
                    if change == AffineChange()
                    else measure_change(capsnet, cnn, images, labels, reconstructions, change.matrix())
                )
                steps.append({"value": value, **measured[0]})
                right.append(measured[1])
                bar.update(count)
            right = torch.stack(right, 1)  # [2, steps, N]
            results["sweeps"][name] = {"unit": unit, "steps": steps, "mean_paired": paired(right[0], right[1])}
        repeat = (transforms_per_digit, 1, 1, 1)
        affnist, _ = measure_change(
            capsnet,
            cnn,
            images.repeat(repeat),
            labels.repeat(transforms_per_digit),
            reconstructions.repeat(repeat),
            affnist_matrices(count * transforms_per_digit),
            transforms_per_digit,
        )
        bar.update(count * transforms_per_digit)
    results["affnist"] = {
        **affnist,
        "images": count * transforms_per_digit,
        "transforms_per_digit": transforms_per_digit,
        "seed": SEED,
        "ranges": {name: list(bounds) for name, bounds in AFFNIST.items()},
    }
    return results


def summary_table(results: dict) -> str:
    """A Markdown table: each change's steps, both networks' accuracy at the two ends and on
    average over the steps, and the CapsNet's lead over the CNN (on average over the steps) with
    its 95% interval; the unchanged digits and the affNIST-range changes."""
    lines = [
        "| change | steps | CapsNet at the ends | CNN at the ends | CapsNet, mean over the steps | "
        "CNN, mean over the steps | CapsNet − CNN, points [95% interval] |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    clean = results["untransformed"]
    lines.append(
        f"| none | | {percent(clean['capsnet']['accuracy'])} | {percent(clean['cnn']['accuracy'])} | | | "
        f"{points(clean['paired'])} |"
    )
    for name in (name for name in SWEEPS if name in results["sweeps"]):  # SWEEPS' order, not the file's
        steps = results["sweeps"][name]["steps"]
        values = [step["value"] for step in steps]
        ends = {
            network: f"{percent(steps[0][network]['accuracy'])} / {percent(steps[-1][network]['accuracy'])}"
            for network in ("capsnet", "cnn")
        }
        mean = {
            network: percent(sum(s[network]["accuracy"] for s in steps) / len(steps)) for network in ("capsnet", "cnn")
        }
        lines.append(
            f"| {name} | {values[0]:g} … {values[-1]:g} by {values[1] - values[0]:g} | "
            f"{ends['capsnet']} | {ends['cnn']} | {mean['capsnet']} | {mean['cnn']} | "
            f"{points(results['sweeps'][name]['mean_paired'])} |"
        )
    affnist = results["affnist"]
    lines.append(
        f"| affNIST's ranges, at random | {affnist['images']:,} changed digits | "
        f"{percent(affnist['capsnet']['accuracy'])} | {percent(affnist['cnn']['accuracy'])} | | | "
        f"{points(affnist['paired'])} |"
    )
    return "\n".join(lines)


def steps_table(results: dict) -> str:
    """A Markdown table with a row per step of every sweep: both networks' accuracy, the digits
    only one of them read right and the CapsNet's lead with its 95% interval, the CapsNet's capsule
    lengths and whether its pose follows (correlation, and what an unmoved pose scores)."""
    lines = [
        "| change | value | CapsNet | CNN | only CapsNet / only CNN | CapsNet − CNN [95%] | winner length | "
        "true-class length | pose follows: correlation (unmoved) | pose error (unmoved) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    rows = [(name, step) for name in SWEEPS if name in results["sweeps"] for step in results["sweeps"][name]["steps"]]
    rows.append(("affNIST's ranges", {"value": "random", **results["affnist"]}))
    for name, step in rows:
        c = step["capsnet"]
        value = f"{step['value']:g}" if isinstance(step["value"], float) else step["value"]
        lines.append(
            f"| {name} | {value} | {percent(c['accuracy'])} | {percent(step['cnn']['accuracy'])} | "
            f"{step['paired']['only_capsnet']} / {step['paired']['only_cnn']} | {points(step['paired'])} | "
            f"{c['winner_length']:.3f} | {c['true_length']:.3f} | "
            f"{c['pose_correlation']:.2f} ({c['unmoved_correlation']:.2f}) | "
            f"{c['pose_error']:.2f} ({c['unmoved_error']:.2f}) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description="Measure how the CapsNet and the CNN baseline read MNIST test digits "
        f"under affine changes, and write {RESULTS_FILE} beside the CapsNet's weights "
        "(the results: docs/robustness.md)."
    )
    for flag, settings in study_flags("digits", RESULTS_FILE).items():
        p.add_argument(flag, **settings)
    p.add_argument(
        "--show",
        action="store_true",
        help="print docs/robustness.md's table and every step from OUT, checked against both weights, "
        "instead of measuring",
    )
    args = p.parse_args(argv)
    out = Path(args.out) if args.out else Path(args.capsnet) / RESULTS_FILE
    if args.show:
        results = load_results(out, args.capsnet, args.cnn)
        print(summary_table(results), steps_table(results), sep="\n\n")
        return
    start = time.perf_counter()
    capsnet, cnn = load_model(args.capsnet), load_model(args.cnn, BaselineCNN)
    images, labels = first_digits(mnist(args.data_dir, train=False), DIGITS_PER_CLASS)
    results = {
        WEIGHTS_SHA256: weights_sha256({"capsnet": args.capsnet, "cnn": args.cnn}),
        "weights_file": WEIGHTS_FILE,
        "digits": f"the first {DIGITS_PER_CLASS} of each class in MNIST's test set; both networks read "
        "the same changed images",
        "digit_count": len(images),
        "change": "capsnet.data.affine.transform: about the image centre, bilinear, zero outside the frame",
        "affnist_source": "https://www.cs.toronto.edu/~tijmen/affNIST/ (rotation, shear and scaling ranges); "
        "translation adapted from its 40x40 frame to MNIST's 4-pixel edge in 28x28",
        "measures": MEASURES,
        "paired_measures": PAIRED_MEASURES,
        "bootstrap_resamples": BOOTSTRAP_RESAMPLES,
        **measure(capsnet, cnn, images, labels, SWEEPS, TRANSFORMS_PER_DIGIT, progress=True),
    }
    out.write_text(to_json(results), encoding="utf-8")
    print(f"wrote {out} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
