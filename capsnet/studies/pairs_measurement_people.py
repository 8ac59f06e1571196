"""How many digits each pairs network says are there, and how each reads other people's digits,
the measurement's second part (`capsnet.studies.pairs_measurement`): each network's count rule
(`capsnet.digit_count`: two digits where its second-strongest score, and for the CapsNet the ink
only that capsule's redrawing covers, reach lines chosen on written validation examples of
train.py's held-out training digits), and with it how each reads MNIST's test pairs and single
test digits, Semeion's digits (other writers, evaluation only) in pairs and alone, and written test
examples (`capsnet.data.written`): its strongest digits right, the count right, the digits named
exactly, a digit named that is not there, a 1 named where there is none."""

from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from capsnet import digit_count
from capsnet.data.datasets import load_semeion, validation_split
from capsnet.data.pairs import TEST_SEED, fixed_pairs, strongest_right
from capsnet.data.preprocess import ink_to_mnist
from capsnet.data.written import DigitSet, fixed_examples
from capsnet.digit_count import CountRule, balanced_right, choose_rule, counted, names_absent, read_exactly
from capsnet.studies.pairs_measurement_test_pairs import BATCH
from capsnet.studies.statistics import rounded, share

VALIDATION_SIZE, VALIDATION_SEED = 5000, 1  # train.py's held-out digits and the seed of their examples


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
