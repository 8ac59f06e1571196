"""Is the CapsNet better than the CNN baseline at reading two overlapping digits?

Sabour et al. 2017, section 6: on MultiMNIST (two digits of different classes, each moved by up to
4 pixels, their 28x28 frames overlapping 80% on average) the CapsNet misread 5.0% of the pairs,
the baseline CNN 8.1%. Here both networks trained on pairs (`train.py --task pairs`) read the SAME
test pairs: one for each of MNIST's 10,000 test digits, its partner a test digit of another
class, fixed by `capsnet.data.pairs.TEST_SEED` (`capsnet.data.pairs.fixed_pairs`). A pair is read right when
the network's two strongest digits (the CapsNet's two longest capsules, the CNN's two largest
sigmoids) are its two classes, as in the paper. Also:

- at least one of the two right; both right by how much the two digits' ink boxes overlap, and by
  how much the preprocessing shrank the pair to fit it into 20x20; the pairs of classes read worst;
- the CapsNet's pairs read with 1 to 5 routing iterations (it trained with 3, the paper's): what
  routing by agreement does for overlapping digits;
- the pairs only one network read right, and the CapsNet's lead with a 95% interval from a
  bootstrap over the pairs (`capsnet.studies.statistics.paired`);
- each pairs network's accuracy on MNIST's single test digits (the strongest digit);
- how well the CapsNet redraws each digit from its own capsule alone (the other masked): pixel
  error against that digit alone, beside the error of the whole overlay against it;
- how many digits each network says are there (`capsnet.digit_count`: two where its second-strongest
  score, and for the CapsNet the ink only that capsule's redrawing covers, reach lines chosen on
  written validation examples of the held-out training digits, train.py's); and with that count,
  how each reads other people's digits (Semeion, pairs and singles, evaluation only), MNIST's
  single test digits, and written test examples (`capsnet.data.written`), how often it names a
  digit that is not there, and a 1 where there is none.

The results go to pairs.json beside the pairs CapsNet's weights, tied to both networks' weights by
their sha256; the command reproduces it byte for byte.

    python -m capsnet.studies.pairs_measurement --data-dir ../shared/data   # writes weights/pairs/pairs.json
    python -m capsnet.studies.pairs_measurement --show                       # prints its tables

The results and what they show: docs/pairs.md.
"""

import argparse
import itertools
import time
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from capsnet import digit_count
from capsnet.data.datasets import load_semeion, mnist, validation_split
from capsnet.data.pairs import (
    TEST_SEED,
    box_overlap,
    fixed_pairs,
    frame_overlap,
    pair_right,
    scale,
    scores,
    strongest_right,
)
from capsnet.data.preprocess import ink_to_mnist
from capsnet.data.written import DigitSet, fixed_examples
from capsnet.digit_count import CountRule, balanced_right, choose_rule, counted, names_absent, read_exactly, top_two
from capsnet.shipping.pretrained import WeightsError, load_pair_networks
from capsnet.studies.pairs_measurement_file import PAPER, RESULTS_FILE, load_results
from capsnet.studies.results_file import WEIGHTS_SHA256, weights_sha256
from capsnet.studies.statistics import (
    correlation,
    difference,
    in_interval,
    ink_error,
    paired,
    percent,
    points,
    rounded,
    share,
    to_json,
)
from capsnet.studies.study_flags import study_flags

BATCH = 250  # the same batches every run, so the same sums
OVERLAP_BANDS = (0.0, 0.25, 0.5, 0.75, 1.0)  # the share of each ink box the other covers
SCALE_BANDS = (0.5, 0.75, 0.85, 0.95, 1.25)  # BOX / the pair's ink box side: 36 px gives 0.56, 16 px 1.25
ROUTING_ITERATIONS = (1, 2, 3, 4, 5)  # the CapsNet's pairs read with each r (1: no routing)
WORST_CLASS_PAIRS = 5
VALIDATION_SIZE, VALIDATION_SEED = 5000, 1  # train.py's held-out digits and the seed of their examples


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


def count_readings(model, inputs: torch.Tensor, progress: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
    """`capsnet.digit_count.count_readings` of ``inputs`` [N, 1, 28, 28], BATCH at a time."""
    return digit_count.count_readings(
        model, tqdm(inputs.split(BATCH), desc=type(model).__name__, unit="batch", leave=False, disable=not progress)
    )


def count_rule(scores: torch.Tensor, ink: torch.Tensor | None, labels: torch.Tensor) -> dict:
    """The `CountRule` chosen on validation examples (scores [N, 10], ``ink`` as `count_readings`,
    labels [N, 2] with (d, d) for one digit d), and how well it counts them."""
    truly_two = labels[:, 0] != labels[:, 1]
    rule = choose_rule(scores, ink, labels)
    _, two = counted(scores, rule, ink)
    return {
        "second": rule.second,
        "second_ink": rule.second_ink,
        "validation_count_right": rounded(balanced_right(two, truly_two)),
        "validation_singles_counted_one": rounded((~two[~truly_two]).double().mean()),
        "validation_pairs_counted_two": rounded(two[truly_two].double().mean()),
    }


def reading_measures(
    scores: torch.Tensor, labels: torch.Tensor, rule: CountRule, ink: torch.Tensor | None = None
) -> dict:
    """How a network reads a set of one- and two-digit images (labels [N, 2], (d, d) for one d),
    counting with ``rule``: its strongest digits right (as many as the image holds: both right
    for a pair), the count right, the digits named exactly the image's, a digit named that is not
    there, a 1 named where there is none; each a share with its 95% interval."""
    read, two = counted(scores, rule, ink)
    absent = names_absent(read, two, labels)
    one_absent = ((torch.where(two.unsqueeze(1), read, read[:, :1]) == 1).any(dim=1)) & ~(labels == 1).any(dim=1)
    return {
        "strongest_right": share(strongest_right(scores, labels)),
        "count_right": share(two == (labels[:, 0] != labels[:, 1])),
        "exactly_right": share(read_exactly(read, two, labels)),
        "names_absent": share(absent),
        "names_absent_one": share(one_absent),
    }


def people_measures(networks: dict, validation: tuple, sets: dict, progress: bool = False) -> dict:
    """Each network's count rule, chosen on the ``validation`` examples (inputs, labels), and its
    `reading_measures` on each of ``sets`` (name: inputs [N, 1, 28, 28], labels [N, 2])."""
    results = {}
    for name, model in networks.items():
        count = count_rule(*count_readings(model, validation[0], progress), validation[1])
        results[name] = {"count": count}
        for set_name, (inputs, labels) in sets.items():
            set_scores, ink = count_readings(model, inputs, progress)
            results[name][set_name] = reading_measures(set_scores, labels, CountRule.from_record(count), ink)
    return results


def people_sets(
    train, test_images: torch.Tensor, test_labels: torch.Tensor, semeion: Path, limit: int | None
) -> tuple[tuple, dict]:
    """The written validation examples of train.py's held-out digits (VALIDATION_SIZE of them, at
    most half a small set), and the sets `people_measures` reads: MNIST's test pairs and single test
    digits, Semeion's digits made MNIST-style (`ink_to_mnist`) alone and in pairs laid as MNIST's
    are (the first ``limit`` of each), and a written test example for each test digit."""
    _, held_out = validation_split(len(train.data), min(VALIDATION_SIZE, len(train.data) // 2), VALIDATION_SEED)
    inputs, labels, _ = fixed_examples(DigitSet.of(train.data[held_out], train.targets[held_out]), VALIDATION_SEED)
    semeion_ink, semeion_labels = load_semeion(semeion)
    semeion_images = torch.from_numpy(
        np.rint(255 * np.stack([ink_to_mnist(ink.astype(np.float32) / 255) for ink in semeion_ink[:limit]])).astype(
            np.uint8
        )
    )
    semeion_labels = torch.from_numpy(semeion_labels[:limit])

    def pairs_of(images, classes):
        pair_inputs, _, pair_labels, _ = fixed_pairs(images, classes, TEST_SEED)
        return pair_inputs, pair_labels

    def singles_of(images, classes):
        return images.unsqueeze(1).float() / 255, torch.stack([classes, classes], dim=1)

    written_inputs, written_labels, _ = fixed_examples(DigitSet.of(test_images, test_labels), TEST_SEED)
    return (inputs, labels), {
        "mnist_pairs": pairs_of(test_images, test_labels),
        "mnist_singles": singles_of(test_images, test_labels),
        "semeion_pairs": pairs_of(semeion_images, semeion_labels),
        "semeion_singles": singles_of(semeion_images, semeion_labels),
        "written_test": (written_inputs, written_labels),
    }


PEOPLE_ROWS = (  # (set, measure, what the row says)
    ("mnist_pairs", "count_right", "MNIST test pairs read as two digits"),
    ("mnist_pairs", "names_absent_one", "MNIST test pairs without a 1 read with a 1"),
    ("mnist_singles", "strongest_right", "single MNIST test digits, the strongest right"),
    ("mnist_singles", "count_right", "single MNIST test digits read as one digit"),
    ("semeion_pairs", "strongest_right", "Semeion pairs (other writers), both digits right"),
    ("semeion_pairs", "count_right", "Semeion pairs read as two digits"),
    ("semeion_pairs", "names_absent_one", "Semeion pairs without a 1 read with a 1"),
    ("semeion_singles", "strongest_right", "single Semeion digits, the strongest right"),
    ("semeion_singles", "count_right", "single Semeion digits read as one digit"),
    ("written_test", "strongest_right", "written test examples (a quarter single), the strongest right"),
    ("written_test", "exactly_right", "written test examples read exactly (the count and the digits)"),
)


def rule_text(count: dict) -> str:
    """A network's count rule in words: "second ≥ 0.38, its redrawing ≥ 4% of the ink"."""
    text = f"second ≥ {count['second']:.2f}"
    return text if count["second_ink"] is None else f"{text}, its redrawing ≥ {percent(count['second_ink'])} of the ink"


def people_table(results: dict) -> str:
    """The Markdown table of how both networks count and read other people's digits."""
    people = results["people"]
    c, n = people["capsnet"], people["cnn"]
    rows = [
        "| with the count | CapsNet | CNN baseline |",
        "| --- | --- | --- |",
        f"| a second digit read where (chosen on {VALIDATION_SIZE:,} written validation examples) | "
        f"{rule_text(c['count'])} | {rule_text(n['count'])} |",
        *(
            f"| written validation examples, {what} | {percent(c['count'][key])} | {percent(n['count'][key])} |"
            for key, what in (
                ("validation_singles_counted_one", "single digits read as one"),
                ("validation_pairs_counted_two", "pairs read as two"),
            )
        ),
        *(
            f"| {what} ({people['sets'][name]:,}) | {in_interval(c[name][measure])} | {in_interval(n[name][measure])} |"
            for name, measure, what in PEOPLE_ROWS
        ),
    ]
    return "\n".join(rows) + "\n\n95% Wilson intervals. Semeion is read for evaluation only."


def table(results: dict) -> str:
    """The Markdown table of both networks on the test pairs, beside the paper's figures."""
    c, n = results["capsnet"], results["cnn"]
    rows = [
        "| | CapsNet | CNN baseline |",
        "| --- | --- | --- |",
        f"| both digits right, {results['test_pairs']:,} test pairs | **{percent(c['both_right'])}** | "
        f"**{percent(n['both_right'])}** |",
        f"| error (the paper: CapsNet {percent(PAPER['capsnet_error'])}, CNN {percent(PAPER['cnn_error'])}) | "
        f"{percent(1 - c['both_right'])} | {percent(1 - n['both_right'])} |",
        f"| at least one right | {percent(c['at_least_one_right'])} | {percent(n['at_least_one_right'])} |",
        *(
            f"| both right, ink boxes {100 * b['low']:.0f}-{100 * b['high']:.0f}% covered ({b['pairs']:,} pairs) | "
            f"{percent(cb['both_right'])} | {percent(b['both_right'])} |"
            for cb, b in zip(c["by_overlap"], n["by_overlap"], strict=True)
            if b["pairs"]
        ),
        *(
            f"| both right, the pair scaled by {b['low']:.2f}-{b['high']:.2f} into 20x20 ({b['pairs']:,} pairs) | "
            f"{percent(cb['both_right'])} | {percent(b['both_right'])} |"
            for cb, b in zip(c["by_scale"], n["by_scale"], strict=True)
            if b["pairs"]
        ),
        *(
            f"| both right, capsules routed with {row['iterations']} iteration{'s' * (row['iterations'] > 1)}"
            f"{' (as trained)' if row['iterations'] == c['routing_iterations'] else ''} | "
            f"{percent(row['both_right'])}"
            f"{'' if row['iterations'] == c['routing_iterations'] else ' ' + points(row['gain'])} | |"
            for row in c["by_routing_iterations"]
        ),
        f"| single MNIST test digits | {percent(c['mnist_single_digit_accuracy'])} | "
        f"{percent(n['mnist_single_digit_accuracy'])} |",
        f"| pairs only this network read right | {results['only_capsnet']:,} | {results['only_cnn']:,} |",
    ]
    return "\n".join(rows) + (
        f"\n\nThe CapsNet's lead: {points(results['lead'])} points (95% intervals, bootstrap over the pairs; beside "
        f"another routing, its gain over the r it trained with). The preprocessing scales a pair by "
        f"{results['scale']:.2f} on average. Mean overlap of the two digits' 28x28 frames "
        f"{percent(results['overlap']['frames'])} (the paper: {percent(PAPER['frame_overlap'])}), of their ink boxes "
        f"{percent(results['overlap']['ink_boxes'])}. Each digit redrawn from its own capsule: pixel error "
        f"{percent(c['redrawn_error'])} of its ink (the whole overlay against it: {percent(c['overlay_error'])}), "
        f"correlation {c['redrawn_correlation']:.2f} ({c['overlay_correlation']:.2f})."
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description="Measure the pairs CapsNet and the pairs CNN on the same overlapping "
        f"test pairs and write {RESULTS_FILE} beside the CapsNet's weights."
    )
    for flag, settings in study_flags("pairs", RESULTS_FILE).items():
        p.add_argument(flag, **settings)
    p.add_argument(
        "--semeion",
        default=None,
        help="Semeion's semeion.data, read as other people's digits (default: DATA/semeion/semeion.data)",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        help="pair only the first N test digits (a quick check; the shipped file uses all 10,000)",
    )
    p.add_argument("--show", action="store_true", help="print the tables of OUT's results instead of measuring")
    args = p.parse_args(argv)
    out = Path(args.out) if args.out else Path(args.capsnet) / RESULTS_FILE
    try:
        if args.show:
            results = load_results(out, args.capsnet, args.cnn)
            print(table(results) + "\n\n" + people_table(results))
            return
        capsnet, cnn = load_pair_networks(args.capsnet, args.cnn)
    except WeightsError as error:  # ResultsError among them
        raise SystemExit(f"capsnet.studies.pairs_measurement: error: {error}") from None
    semeion = Path(args.semeion or Path(args.data_dir) / "semeion" / "semeion.data")
    if not semeion.is_file():
        raise SystemExit(
            f"capsnet.studies.pairs_measurement: error: no Semeion digits at {semeion}: point --semeion at "
            "semeion.data (UCI's Semeion Handwritten Digit data set)"
        )
    start = time.perf_counter()
    test = mnist(args.data_dir, train=False)
    images, labels = test.data[: args.limit], test.targets[: args.limit]
    results = {
        WEIGHTS_SHA256: weights_sha256({"capsnet": args.capsnet, "cnn": args.cnn}),
        "pairs": f"capsnet.data.pairs.fixed_pairs of the first {len(images)} MNIST test digits, seed {TEST_SEED}: "
        "each with a test digit of another class, each moved by up to 4 pixels in a 36x36 field, "
        "the brighter pixel wins, then the playground's preprocessing into 28x28",
        "paper": PAPER,
        **measure(capsnet, cnn, images, labels, progress=True),
    }
    validation, sets = people_sets(mnist(args.data_dir, train=True), images, labels, semeion, args.limit)
    results["people"] = {
        "sets": {name: len(set_labels) for name, (_, set_labels) in sets.items()},
        **people_measures({"capsnet": capsnet, "cnn": cnn}, validation, sets, progress=True),
    }
    out.write_text(to_json(results), encoding="utf-8")
    print(f"wrote {out} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
