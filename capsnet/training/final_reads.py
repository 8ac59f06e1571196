"""The weights a run chose, read once at its end, until a signal stops it: MNIST's test set (its
digits, or one fixed pair of each) and, trained on written examples, a written example of each."""
import torch.nn as nn

from capsnet.data.pairs import digits_right
from capsnet.evaluate import accuracy, misreadings, predictions
from capsnet.training.run import Run
from capsnet.training.sharded_data import RunData, test_batches
from capsnet.training.signals import until_signal


def read_test_sets(run: Run, data: RunData, chosen: nn.Module) -> tuple[float, tuple | None, float | None]:
    """The chosen weights on MNIST's test set: its digits read right, with what the model card lists
    of the mistakes (capsnet.evaluate.misreadings), or, --task pairs, its fixed pairs both right
    (the card reads the single digits itself); and, trained on written examples, a written example
    of each test digit read right (`digits_right`).

    Raises:
        Interrupted: a signal asked the run to stop before the reads ended.
    """
    tests = test_batches(run.options.data_dir, run.options.task, run.device)
    reading = run.progress_bar(until_signal(tests, run.signals), "test set", total=len(tests), delay=2)
    if run.options.task == "digits":
        misread = misreadings(tests.dataset.targets, predictions(chosen, reading))
        return misread.accuracy, misread, None
    test_accuracy = accuracy(chosen, reading, run.device, data.right)
    if run.options.examples != "written":
        return test_accuracy, None, None
    tests = test_batches(run.options.data_dir, run.options.task, run.device, written=True)
    reading = run.progress_bar(until_signal(tests, run.signals), "written test set", total=len(tests), delay=2)
    return test_accuracy, None, accuracy(chosen, reading, run.device, digits_right)
