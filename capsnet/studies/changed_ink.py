"""Do the capsules hold up better than the CNN when the ink changes? The pairs networks on MNIST's
test pairs, and on its single test digits, with the ink changed one way at a time.

Other writers' digits differ from MNIST's in their ink (`capsnet.data.ink`): Semeion's are
hard-edged, coarse (16x16) and stretched to fill a square box, and the pairs networks read Semeion's
pairs far worse than MNIST's. Here each of the first COUNT test digits is changed one way (CHANGES),
made MNIST-style again as a scan is (`ink_to_mnist`: cropped, fitted into 20x20, centred), and laid
in pairs exactly as the unchanged test pairs are (`capsnet.data.pairs.fixed_pairs`, the same
partners and shifts). Both networks read the same pairs; for each change:

- both digits of a pair read right (the two strongest) and a single digit read right (the
  strongest), each network, with a 95% Wilson interval;
- the CapsNet's lead on the pairs in points, with a 95% bootstrap interval over the pairs
  (`capsnet.studies.statistics.paired`).

    python -m capsnet.studies.changed_ink --data-dir ../shared/data   # writes weights/pairs/changed_ink.json
    python -m capsnet.studies.changed_ink --show                      # prints docs/pairs.md's table
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from capsnet.data.datasets import mnist
from capsnet.data.ink import bilevel, coarse, squaring, thickness_changed
from capsnet.data.pairs import TEST_SEED, both_right, fixed_pairs, scores
from capsnet.data.preprocess import INK_THRESHOLD, ink_to_mnist
from capsnet.digit_count import top_two
from capsnet.shipping.pretrained import WeightsError, load_pair_networks
from capsnet.studies.results_file import WEIGHTS_SHA256, weights_sha256
from capsnet.studies.statistics import in_interval, paired, percent, points, share, to_json
from capsnet.studies.study_flags import study_flags

RESULTS_FILE = "changed_ink.json"
COUNT = 2000  # the first 2,000 test digits, each first in one pair
BATCH = 250
LEVEL = 0.5  # hard-edged: ink where the grey level reaches half the strongest
COARSE_SIDE = 22  # the 28x28 field drawn at 22 pixels a side: the 20-pixel digit at 16, Semeion's
THICKER, THINNER = 1.0, -0.6  # all the way to the 3x3 dilation; 0.6 of the way to the erosion


def squared(images: torch.Tensor) -> torch.Tensor:
    """Each digit [N, 28, 28] stretched in width to fill a square box: its ink box made as wide as
    it is tall, about the box's centre (a digit wider than tall is narrowed)."""
    stretch = squaring(images).double()  # [N]
    strong = images >= INK_THRESHOLD * images.flatten(1).amax(dim=1).clamp_min(1e-6).view(-1, 1, 1)
    columns = torch.arange(images.shape[-1], dtype=torch.float64)
    has_ink = strong.any(dim=1)  # [N, W]
    left = torch.where(has_ink, columns, torch.inf).amin(dim=1)
    right = torch.where(has_ink, columns, -torch.inf).amax(dim=1)
    centre = (left + right + 1) / 2 / images.shape[-1] * 2 - 1  # in grid units, -1..1
    theta = torch.zeros(len(images), 2, 3, dtype=torch.float64)
    theta[:, 0, 0], theta[:, 0, 2], theta[:, 1, 1] = 1 / stretch, centre * (1 - 1 / stretch), 1
    grid = F.affine_grid(theta.float(), [len(images), 1, *images.shape[-2:]], align_corners=False)
    return F.grid_sample(images.unsqueeze(1), grid, mode="bilinear", align_corners=False)[:, 0]


def semeion_like(images: torch.Tensor) -> torch.Tensor:
    return coarse(squared(images).unsqueeze(1), COARSE_SIDE, torch.full((len(images),), LEVEL))[:, 0]


CHANGES = {  # name: (what it does to digits [N, 28, 28] in [0, 1], what it means)
    "as written": (lambda x: x, "MNIST's test digits as they are"),
    "hard-edged": (
        lambda x: bilevel(x, LEVEL),
        f"ink where the grey level reaches {LEVEL:g} of the strongest, else paper",
    ),
    "thicker": (
        lambda x: thickness_changed(x.unsqueeze(1), torch.full((len(x),), THICKER))[:, 0],
        "strokes grown by a 3x3 dilation",
    ),
    "thinner": (
        lambda x: thickness_changed(x.unsqueeze(1), torch.full((len(x),), THINNER))[:, 0],
        f"strokes moved {-THINNER:g} of the way to a 3x3 erosion",
    ),
    "stretched to a square": (squared, "each digit's ink box stretched in width to be as wide as it is tall"),
    "coarse": (
        lambda x: coarse(x.unsqueeze(1), COARSE_SIDE)[:, 0],
        f"drawn at {COARSE_SIDE}x{COARSE_SIDE} (the digit at 16 pixels, Semeion's) and enlarged",
    ),
    "all three of Semeion's": (semeion_like, "stretched to a square, then coarse and hard-edged"),
}


def changed_digits(images: torch.Tensor, change) -> torch.Tensor:
    """MNIST digits (uint8 [N, 28, 28]) changed and made MNIST-style again, uint8 [N, 28, 28]."""
    made = change(images.float() / 255)
    return torch.from_numpy(np.stack([np.rint(255 * ink_to_mnist(digit.numpy())) for digit in made]).astype(np.uint8))


@torch.inference_mode()
def read(model, inputs: torch.Tensor) -> torch.Tensor:
    """Each network's two strongest digits of each input [N, 1, 28, 28], [N, 2]."""
    return torch.cat([top_two(scores(model(batch))) for batch in inputs.split(BATCH)])


def measure(networks: dict, images: torch.Tensor, labels: torch.Tensor, progress: bool = False) -> dict:
    """For each of CHANGES: each network's pairs both right and singles right, and the CapsNet's lead."""
    results = {}
    for name, (change, meaning) in CHANGES.items():
        digits = changed_digits(images, change)
        pair_inputs, _, pair_labels, _ = fixed_pairs(digits, labels, TEST_SEED)
        single_inputs = digits.unsqueeze(1).float() / 255
        pairs_right = {
            network: both_right(read(model, pair_inputs), pair_labels) for network, model in networks.items()
        }
        singles_right = {network: read(model, single_inputs)[:, 0] == labels for network, model in networks.items()}
        results[name] = {
            "meaning": meaning,
            **{
                network: {
                    "pairs_both_right": share(pairs_right[network]),
                    "singles_right": share(singles_right[network]),
                }
                for network in networks
            },
            "lead": paired(pairs_right["capsnet"].unsqueeze(0), pairs_right["cnn"].unsqueeze(0)),
        }
        if progress:
            print(
                f"  {name}: pairs both right {percent(results[name]['capsnet']['pairs_both_right']['share'])} "
                f"(CNN {percent(results[name]['cnn']['pairs_both_right']['share'])})",
                flush=True,
            )
    return results


def table(results: dict) -> str:
    """docs/pairs.md's table: each change, both networks' pairs and singles, the CapsNet's lead."""
    lines = [
        "| ink | CapsNet: pairs both right | CNN: pairs both right | CapsNet's lead, points | "
        "CapsNet: singles right | CNN: singles right |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name in (name for name in CHANGES if name in results["changes"]):  # CHANGES' order, not the file's
        row = results["changes"][name]
        lines.append(
            f"| {name} | {in_interval(row['capsnet']['pairs_both_right'])} | "
            f"{in_interval(row['cnn']['pairs_both_right'])} | {points(row['lead'])} | "
            f"{in_interval(row['capsnet']['singles_right'])} | {in_interval(row['cnn']['singles_right'])} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description="The pairs CapsNet and the pairs CNN on MNIST's test pairs and single "
        f"test digits with the ink changed one way at a time; writes {RESULTS_FILE} "
        "beside the CapsNet's weights (docs/pairs.md)."
    )
    for flag, settings in study_flags("pairs", RESULTS_FILE).items():
        p.add_argument(flag, **settings)
    p.add_argument(
        "--count", type=int, default=COUNT, help=f"the first N test digits, each first in a pair (default: {COUNT})"
    )
    p.add_argument("--show", action="store_true", help="print the table from OUT instead of measuring")
    args = p.parse_args(argv)
    out = Path(args.out) if args.out else Path(args.capsnet) / RESULTS_FILE
    if args.show:
        print(table(json.loads(out.read_text(encoding="utf-8"))))
        return
    try:
        capsnet, cnn = load_pair_networks(args.capsnet, args.cnn)
    except WeightsError as error:
        raise SystemExit(f"capsnet.studies.changed_ink: error: {error}") from None
    start = time.perf_counter()
    test = mnist(args.data_dir, train=False)
    images, labels = test.data[: args.count], test.targets[: args.count]
    results = {
        WEIGHTS_SHA256: weights_sha256({"capsnet": args.capsnet, "cnn": args.cnn}),
        "digits": f"the first {len(images)} MNIST test digits, each changed, made MNIST-style again "
        f"(ink_to_mnist) and laid in pairs by capsnet.data.pairs.fixed_pairs, seed {TEST_SEED}",
        "changes": measure({"capsnet": capsnet, "cnn": cnn}, images, labels, progress=True),
    }
    out.write_text(to_json(results), encoding="utf-8")
    print(f"wrote {out} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
