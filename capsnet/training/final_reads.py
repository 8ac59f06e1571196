"""The weights a run chose, read once at its end, until a signal stops it: MNIST's test set (its
digits, or one fixed pair of each) and, trained on written examples, a written example of each."""

from dataclasses import dataclass

import torch.nn as nn

from capsnet.data.pairs import digits_right
from capsnet.shipping.evaluate import Misreadings, accuracy, misreadings, predictions
from capsnet.training.run import Run
from capsnet.training.sharded_data import RunData, test_batches
from capsnet.training.signals import until_signal


@dataclass(frozen=True)
class FinalReads:
    """What the chosen weights read on the test sets."""

    accuracy: float  # MNIST's test digits read right; --task pairs: its fixed pairs both right
    misread: Misreadings | None = None  # --task digits: the same accuracy, with the mistakes the model card lists
    written: float | None = None  # trained on written examples: a written example of each test digit read right


def read_test_sets(run: Run, data: RunData, chosen: nn.Module) -> FinalReads:
    """The chosen weights on MNIST's test set: its digits read right, with what the model card lists
    of the mistakes (capsnet.shipping.evaluate.misreadings), or, --task pairs, its fixed pairs both right
    (the card reads the single digits itself); and, trained on written examples, a written example
    of each test digit read right (`digits_right`).

    Raises:
        Interrupted: a signal asked the run to stop before the reads ended.
    """
    tests = test_batches(run.options.data_dir, run.options.task, run.device)
    reading = run.progress_bar(until_signal(tests, run.signals), "test set", total=len(tests), delay=2)
    if run.options.task == "digits":
        misread = misreadings(tests.dataset.targets, predictions(chosen, reading))
        return FinalReads(misread.accuracy, misread)
    test_accuracy = accuracy(chosen, reading, run.device, data.right)
    if run.options.examples != "written":
        return FinalReads(test_accuracy)
    tests = test_batches(run.options.data_dir, run.options.task, run.device, written=True)
    reading = run.progress_bar(until_signal(tests, run.signals), "written test set", total=len(tests), delay=2)
    return FinalReads(test_accuracy, written=accuracy(chosen, reading, run.device, digits_right))
