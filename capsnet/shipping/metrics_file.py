"""metrics.json, what a run records beside the weights it chose: one dataclass, one key of the
file for each of its fields, written by train.py (capsnet.training.run_record fills it in) and read
by the model card (model_card, model_card_text). A run that went on from another's weights keeps
that run's record, as it was written, in "earlier". A record of other keys than these is no record
of this code's (`RunRecord.of` refuses it)."""

import json
from dataclasses import dataclass, field, fields
from pathlib import Path

from capsnet.shipping.saving import atomic_write_text

FILE = "metrics.json"


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
    command: str | None = None  # the command, as anyone can repeat it (training.run_record.portable_command)
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
