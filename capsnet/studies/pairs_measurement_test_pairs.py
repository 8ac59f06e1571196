"""Both pairs networks on the same overlapping test pairs, the measurement's first part
(`capsnet.studies.pairs_measurement`): both digits right (the two strongest digits the pair's two
classes, as in Sabour et al. 2017, section 6), overall and by how much the two ink boxes overlap and
how much the preprocessing shrank the pair; at least one right; the CapsNet's pairs read with 1 to 5
routing iterations; the pairs only one network read right and the CapsNet's lead with its 95%
interval (`capsnet.studies.statistics.paired`); the pairs of classes read worst; each network on
MNIST's single test digits; each digit redrawn from its own capsule alone against that digit."""

import itertools

import numpy as np
import torch
from tqdm import tqdm

from capsnet.data.pairs import TEST_SEED, box_overlap, fixed_pairs, frame_overlap, pair_right, scale, scores
from capsnet.digit_count import top_two
from capsnet.studies.statistics import correlation, difference, ink_error, paired, rounded

BATCH = 250  # the same batches every run, so the same sums
OVERLAP_BANDS = (0.0, 0.25, 0.5, 0.75, 1.0)  # the share of each ink box the other covers
SCALE_BANDS = (0.5, 0.75, 0.85, 0.95, 1.25)  # BOX / the pair's ink box side: 36 px gives 0.56, 16 px 1.25
ROUTING_ITERATIONS = (1, 2, 3, 4, 5)  # the CapsNet's pairs read with each r (1: no routing)
WORST_CLASS_PAIRS = 5


@torch.inference_mode()
def readings(model, inputs: torch.Tensor, progress: bool = False, routing_iterations: int | None = None) -> list:
    """The network's outputs on ``inputs`` [N, 1, 28, 28], BATCH at a time (a CapsNet's capsules
    routed with ``routing_iterations``, when given, instead of its config's)."""
    options = {} if routing_iterations is None else {"routing_iterations": routing_iterations}
    return [
        model(batch, **options)
        for batch in tqdm(
            inputs.split(BATCH), desc=type(model).__name__, unit="batch", leave=False, disable=not progress
        )
    ]


def redraw_errors(
    capsnet, capsules: torch.Tensor, inputs: torch.Tensor, digits: torch.Tensor, labels: torch.Tensor
) -> dict[str, float]:
    """Each digit redrawn from its own (true) capsule alone, against that digit alone: mean pixel
    error as a fraction of the digit's ink, and correlation; the same for the whole overlay."""
    redrawn = torch.cat(
        [capsnet.decode(v, label) for v, label in zip(capsules.split(BATCH), labels.split(BATCH), strict=True)]
    )
    each, alone = redrawn.flatten(0, 1), digits.flatten(0, 1)  # [2N, 1, 28, 28]
    overlay = inputs.repeat_interleave(2, dim=0)
    return {
        "redrawn_error": rounded(ink_error(each, alone).mean()),
        "redrawn_correlation": rounded(correlation(each, alone).mean()),
        "overlay_error": rounded(ink_error(overlay, alone).mean()),
        "overlay_correlation": rounded(correlation(overlay, alone).mean()),
    }


def banded(right: torch.Tensor, values: np.ndarray, edges: tuple[float, ...]) -> list[dict]:
    """Both right among the pairs whose value lies in each band [low, high) of ``edges`` (the last
    band closed: [low, high])."""
    bands = []
    for low, high in itertools.pairwise(edges):
        inside = torch.from_numpy((values >= low) & ((values < high) | ((values == high) & (high == edges[-1]))))
        bands.append(
            {
                "low": low,
                "high": high,
                "pairs": int(inside.sum()),
                "both_right": rounded(right[inside].double().mean()) if inside.any() else None,
            }
        )
    return bands


def network_measures(
    right: torch.Tensor, one_right: torch.Tensor, covered: np.ndarray, scales: np.ndarray, single_accuracy: float
) -> dict:
    """Both right overall, by overlap band and by scale band, at least one right, single-digit accuracy."""
    return {
        "both_right": rounded(right.double().mean()),
        "at_least_one_right": rounded(one_right.double().mean()),
        "by_overlap": banded(right, covered, OVERLAP_BANDS),
        "by_scale": banded(right, scales, SCALE_BANDS),
        "mnist_single_digit_accuracy": rounded(single_accuracy),
    }


def by_routing_iterations(
    capsnet, inputs: torch.Tensor, labels: torch.Tensor, as_trained: torch.Tensor, progress: bool = False
) -> list[dict]:
    """The CapsNet's pairs both right when its capsules are routed with each of ROUTING_ITERATIONS,
    and how many more than with the r it trained with (a fraction, with its 95% interval from a
    bootstrap over the pairs); ``as_trained``, bool [N], is which it read right with that r, not read again."""
    rows = []
    for r in ROUTING_ITERATIONS:
        routed = (
            as_trained
            if r == capsnet.config.routing_iterations
            else torch.cat(
                [
                    pair_right(out, batch)
                    for out, batch in zip(readings(capsnet, inputs, progress, r), labels.split(BATCH), strict=True)
                ]
            )
        )
        gain = paired(routed.unsqueeze(0), as_trained.unsqueeze(0))
        rows.append({"iterations": r, "both_right": rounded(routed.double().mean()), "gain": difference(gain)})
    return rows


def worst_class_pairs(labels: torch.Tensor, capsnet_right: torch.Tensor, cnn_right: torch.Tensor) -> list[dict]:
    """The WORST_CLASS_PAIRS pairs of classes (in either order) the CapsNet read worst, with the CNN beside."""
    low, high = labels.min(dim=1).values, labels.max(dim=1).values
    rows = []
    for a, b in sorted(set(zip(low.tolist(), high.tolist(), strict=True))):
        these = (low == a) & (high == b)
        rows.append(
            {
                "classes": [a, b],
                "pairs": int(these.sum()),
                "capsnet_both_right": rounded(capsnet_right[these].double().mean()),
                "cnn_both_right": rounded(cnn_right[these].double().mean()),
            }
        )
    return sorted(rows, key=lambda row: (row["capsnet_both_right"], row["classes"]))[:WORST_CLASS_PAIRS]


def measure(capsnet, cnn, test_images: torch.Tensor, test_labels: torch.Tensor, progress: bool = False) -> dict:
    """Both networks on one overlapping pair for each of the given test digits (fixed_pairs with
    TEST_SEED), and on the digits themselves alone.

    Args:
        test_images: uint8 [N, 28, 28]; test_labels: [N] (MNIST's test set, or the first of it).
    """
    inputs, digits, labels, pairs = fixed_pairs(test_images, test_labels, TEST_SEED)
    covered, iou = box_overlap(test_images, pairs)
    scales = scale(test_images, pairs)
    singles = test_images.unsqueeze(1).float() / 255  # as ToTensor gives them
    capsnet_out, cnn_out = readings(capsnet, inputs, progress), readings(cnn, inputs, progress)
    capsules = torch.cat([out.capsules for out in capsnet_out])
    results = {}
    for name, outputs, model in (("capsnet", capsnet_out, capsnet), ("cnn", cnn_out, cnn)):
        read = top_two(torch.cat([scores(out) for out in outputs]))  # [N, 2]
        hits = (read.unsqueeze(2) == labels.unsqueeze(1)).any(dim=1)  # [N, 2]: each true digit read?
        single = torch.cat([out.prediction for out in readings(model, singles, progress)])
        results[name] = (hits.all(dim=1), hits.any(dim=1), (single == test_labels).double().mean().item())
    capsnet_right, cnn_right = results["capsnet"][0], results["cnn"][0]
    lead = paired(capsnet_right.unsqueeze(0), cnn_right.unsqueeze(0))
    return {
        "test_pairs": len(pairs),
        "overlap": {
            "frames": rounded(frame_overlap(pairs).mean()),
            "ink_boxes": rounded(covered.mean()),
            "ink_boxes_iou": rounded(iou.mean()),
        },
        "scale": rounded(scales.mean()),
        "capsnet": {
            **network_measures(*results["capsnet"][:2], covered, scales, results["capsnet"][2]),
            "routing_iterations": capsnet.config.routing_iterations,
            "by_routing_iterations": by_routing_iterations(capsnet, inputs, labels, capsnet_right, progress),
            **redraw_errors(capsnet, capsules, inputs, digits, labels),
        },
        "cnn": network_measures(*results["cnn"][:2], covered, scales, results["cnn"][2]),
        "only_capsnet": lead["only_capsnet"],
        "only_cnn": lead["only_cnn"],
        "lead": difference(lead),
        "worst_class_pairs": worst_class_pairs(labels, capsnet_right, cnn_right),
    }
