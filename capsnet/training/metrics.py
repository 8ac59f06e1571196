"""metrics.json, what a run records beside the weights it chose: one dataclass, one key of the
file for each of its fields, written by train.py and read by the model card (capsnet.shipping.model_card).
A run that went on from another's weights keeps that run's record, as it was written, in
"earlier". A record of other keys than these is no record of this code's (`RunRecord.of` refuses it)."""

import datetime
import json
import shlex
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import torch.nn as nn

from capsnet.shipping.saving import atomic_write_text
from capsnet.training.state import TrainingState

FILE = "metrics.json"
PATH_FLAGS = {"--data-dir": "DATA", "--out": "OUT", "--checkpoint": "CHECKPOINT", "--init-from": "WEIGHTS"}


def only_where(**condition):
    """A key written only where the record's fields have these values (e.g. task="pairs")."""
    return field(default=None, metadata=condition)


@dataclass(kw_only=True)
class RunRecord:
    """A run and the weights it chose, as metrics.json holds them."""

    model: str | None = None  # capsnet or cnn
    task: str = "digits"  # digits, or pairs: two overlapping digits
    parameters: int | None = None
    mnist_test_accuracy: float | None = only_where(task="digits")  # None: the test set not read (yet)
    pairs_test_both_right: float | None = only_where(task="pairs")  # the test pairs with both digits right
    status: str | None = None  # "finished", "training: ...", or what stopped the run
    examples: str | None = only_where(task="pairs")  # written or mnist-pairs: what the pairs run trained on
    written_test_right: float | None = only_where(task="pairs", examples="written")
    single_share: float | None = only_where(task="pairs", examples="written")  # training examples of one digit
    selection: str | None = None  # how the epoch was chosen, in words
    chosen_epoch: int | None = None
    val_size: int | None = None
    val_accuracy: float | None = None  # the chosen epoch's; None without a validation split
    val_read_exactly: float | None = only_where(task="pairs", examples="written")  # what the epoch was chosen on
    count_rule: dict | None = only_where(task="pairs", examples="written")  # chosen on the validation examples
    epochs: int | None = None  # the last epoch trained
    train_images: int | None = None
    pairs_per_epoch: int | None = only_where(task="pairs")
    global_batch: int | None = None
    processes: int | None = None
    device: str | None = None
    data_on_device: bool | None = None
    bf16_autocast: bool | None = None
    torch_version: str | None = None
    train_seconds: float = 0.0  # wall time of the epochs
    date: str | None = None  # when the record was written, UTC
    command: str | None = None  # portable_command's
    init_from: str | None = None  # the weights the run started from
    start_epoch: int | None = None
    history: list[dict] = field(default_factory=list)  # each epoch's lr, loss, accuracies, seconds
    earlier: dict | None = None  # the record of the run whose weights --init-from went on from

    @classmethod
    def of(cls, values: dict) -> "RunRecord":
        """The record metrics.json's ``values`` hold.

        Raises:
            ValueError: ``values`` holds a key that is not this code's.
        """
        if unknown := sorted(values.keys() - {f.name for f in fields(cls)}):
            raise ValueError(f"{FILE} holds {', '.join(unknown)}, which this code does not write")
        return cls(**values)

    def as_json(self) -> dict:
        """The keys metrics.json holds for this record, in order: those of its task."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if all(getattr(self, name) == value for name, value in f.metadata.items())
        }

    def now(
        self,
        state: TrainingState,
        weights: nn.Module,
        status: str,
        test_accuracy: float | None = None,
        written_test: float | None = None,
    ) -> "RunRecord":
        """This run's record as it stands: where ``state`` stands, the network of the ``weights`` it
        chose, ``status`` ("finished" with their ``test_accuracy`` and, trained on written examples,
        ``written_test``; or how far the run went), and the time."""
        chosen = next((epoch for epoch in state.history if epoch["epoch"] == state.best_epoch), {})
        return replace(
            self,
            parameters=sum(p.numel() for p in weights.parameters()),
            status=status,
            mnist_test_accuracy=test_accuracy,
            pairs_test_both_right=test_accuracy,
            written_test_right=written_test,
            chosen_epoch=state.best_epoch,
            val_accuracy=chosen.get("val_accuracy"),
            val_read_exactly=chosen.get("val_read_exactly"),
            count_rule=chosen.get("val_count_rule"),
            epochs=state.history[-1]["epoch"] if state.history else 0,
            history=state.history,
            earlier=state.earlier,
            train_seconds=round(state.seconds + (state.partial.seconds if state.partial else 0), 1),
            date=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        )

    @property
    def test_accuracy(self) -> float | None:
        """The figure of its task: MNIST's test set read right, or the test pairs both right."""
        return self.pairs_test_both_right if self.task == "pairs" else self.mnist_test_accuracy

    def runs(self) -> list["RunRecord"]:
        """The runs that made these weights, first to last: "earlier" holds the run that this one
        went on from (train.py --init-from that run's weights, --start-epoch after its last)."""
        return [*RunRecord.of(self.earlier).runs(), self] if self.earlier else [self]


def write_record(folder: Path, record: RunRecord) -> None:
    atomic_write_text(Path(folder) / FILE, json.dumps(record.as_json(), indent=2) + "\n")


def read_record(folder: str | Path) -> RunRecord:
    return RunRecord.of(json.loads((Path(folder) / FILE).read_text()))


def earlier_record(init_from: str | None, model: str, task: str) -> dict | None:
    """The metrics.json of the --init-from folder, as it is, where that run trained this network on
    this task (a run that goes on from it keeps it as "earlier"); None where there is none. Read
    when the run begins and kept in its checkpoint: with --out the same folder, the run replaces it."""
    if not init_from or not Path(init_from).is_dir():
        return None
    try:
        earlier = json.loads((Path(init_from) / FILE).read_text())
        record = RunRecord.of(earlier) if isinstance(earlier, dict) else None
    except (OSError, ValueError):  # no record, or none of this code's
        return None
    return earlier if record and record.model == model and record.task == task else None


def portable_command(argv: list[str]) -> str:
    """The command that ran, as anyone can repeat it: the flags that name a path of this machine
    (outside the working folder) say DATA, OUT, CHECKPOINT or WEIGHTS instead."""
    words, previous = [], None
    for word in argv:
        flag, equals, value = word.partition("=")
        if equals and flag in PATH_FLAGS and is_local_path(value):
            word = f"{flag}={PATH_FLAGS[flag]}"
        elif previous in PATH_FLAGS and is_local_path(word):
            word = PATH_FLAGS[previous]
        words.append(word)
        previous = word
    return shlex.join(["python", "train.py", *words])


def is_local_path(value: str) -> bool:
    """A path that depends on where the run was: absolute, or leaving the working folder."""
    return Path(value).is_absolute() or ".." in Path(value).parts
