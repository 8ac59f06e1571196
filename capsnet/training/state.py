"""A run's state, which its checkpoint keeps: one dataclass, one key of the file for each of its
fields (the network, its moving average, Adam and the schedule as their state_dicts, the rest as
they are), written atomically, read back without pickle and checked before --resume goes on from
it. A checkpoint is temporary: one written by other code (other fields) is refused, not converted."""

import dataclasses
import types
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path

import torch
import torch.nn as nn
from torch.optim.swa_utils import AveragedModel

from capsnet.shipping.pretrained import WEIGHTS_FILE
from capsnet.shipping.saving import atomic_torch_save, load_checkpoint, sha256

CHECKPOINT_FILE = "last.pt"  # in its run's folder, beside the best weights (train.py --checkpoint names another place)
START_AFRESH = "delete it and train again without --resume"
OTHER_CODE = "start a new run (without --resume), or resume it with the train.py that wrote it"


@dataclass
class UnfinishedEpoch:
    """An epoch's steps so far; in a checkpoint, those of an epoch a signal stopped, where --resume
    goes on at the next step."""

    epoch: int
    steps: int = 0  # steps done
    loss: float = 0.0  # the steps' losses times their images, summed (in a checkpoint:
    correct: float = 0.0  # images (pairs) read right                  over every process)
    seen: float = 0.0  # images (pairs)
    seconds: float = 0.0  # wall time
    rng: list[torch.Tensor] = field(default_factory=list)  # in a checkpoint: each process's random state, by rank

    def in_process(self, rank: int) -> tuple["UnfinishedEpoch", torch.Tensor]:
        """The steps so far as process ``rank`` goes on from them (rank 0 carries the sums), and its
        random state when it stopped."""
        sums = {} if rank == 0 else {"loss": 0.0, "correct": 0.0, "seen": 0.0}
        return dataclasses.replace(self, rng=[], **sums), self.rng[rank]


@dataclass(kw_only=True)
class TrainingState:
    """Where a run stands; its checkpoint holds each field under the field's name."""

    model: nn.Module  # the network being trained
    ema: AveragedModel  # the moving average of its weights: what is evaluated and saved
    optimizer: torch.optim.Optimizer  # Adam
    schedule: torch.optim.lr_scheduler.LRScheduler  # the learning rate's decay per epoch
    epoch: int  # the last finished epoch (--start-epoch - 1 before the first)
    recipe: dict  # what shapes the run (train.py's recipe)
    out: str  # the folder the run writes its weights to
    best_accuracy: float = -1.0  # the validation figure of the weights in out (with --init-from: of those)
    seconds: float = 0.0  # wall time of the finished epochs
    history: list[dict] = field(default_factory=list)  # each finished epoch's lr, loss, accuracies, seconds
    best_epoch: int | None = None  # the epoch whose weights this run wrote to out; None: none yet
    saved_any: bool = False  # whether this run has written weights to out
    earlier: dict | None = None  # metrics.json of the run whose weights --init-from goes on from
    weights_sha256: str | None = None  # of the model.safetensors this run wrote last
    partial: UnfinishedEpoch | None = None  # the epoch a signal stopped, where --resume goes on

    def holds_its_weights(self) -> bool | None:
        """Whether the out folder holds the weights this run wrote last; None where it holds none."""
        weights = Path(self.out) / WEIGHTS_FILE
        if not weights.is_file():
            return None
        return sha256(weights) == self.weights_sha256

    def save(self, path: Path) -> None:
        """The checkpoint at ``path``, written atomically."""
        atomic_torch_save({f.name: as_saved(getattr(self, f.name)) for f in fields(self)}, path)

    def restore(self, path: Path) -> None:
        """This state as the checkpoint at ``path`` holds it, the recipe aside (``self.recipe``, the
        resumed run's, must be the checkpoint's: the same value of every flag). What is random in an
        epoch is drawn from the seed and the epoch (capsnet.training.random_state).

        Raises:
            RuntimeError: the checkpoint is missing or unreadable, is not what train.py writes, was
                written by other code or made with another recipe, or does not fit this network; the
                message names the file and what to do.
        """
        saved = load_checkpoint(path)
        if not isinstance(saved, dict):
            raise RuntimeError(f"{path} is not a train.py checkpoint; {START_AFRESH}")
        other_code = RuntimeError(f"checkpoint {path} was written by other code than this train.py: {OTHER_CODE}")
        if saved.keys() != {f.name for f in fields(self)}:
            raise other_code
        if wrong := [f.name for f in fields(self) if not holds(saved[f.name], saved_type(f))]:
            held = ", ".join(f"{name} as {type(saved[name]).__name__}" for name in wrong)
            raise RuntimeError(f"checkpoint {path} holds {held}, not as train.py writes it; {START_AFRESH}")
        if saved["recipe"].keys() != self.recipe.keys():
            raise other_code
        if saved.get("partial") is not None and saved["partial"]["epoch"] != saved["epoch"] + 1:
            raise RuntimeError(f"checkpoint {path} holds an unfinished epoch not as train.py writes it; {START_AFRESH}")
        check_recipe(path, saved["recipe"], self.recipe)
        for f in fields(self):
            if kept_as_state_dict(f):
                restore_state_dict(path, getattr(self, f.name), saved[f.name])
            elif f.name != "recipe":
                setattr(self, f.name, as_read(saved[f.name], f.type))


def kept_as_state_dict(f: dataclasses.Field) -> bool:
    """The network, its moving average, Adam and the schedule: kept as their state_dicts."""
    return hasattr(f.type, "load_state_dict")


def saved_type(f: dataclasses.Field):
    """What the checkpoint holds for field ``f``: a state_dict, or the field's own type."""
    return dict if kept_as_state_dict(f) else f.type


def as_saved(value):
    """A field's value as the checkpoint holds it: a state_dict, an UnfinishedEpoch's fields, or itself."""
    if hasattr(value, "state_dict"):
        return value.state_dict()
    if dataclasses.is_dataclass(value):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    return value


def as_read(value, kind):
    """A value the checkpoint holds as the field of type ``kind`` takes it: a dict of a dataclass's
    fields (an UnfinishedEpoch) made one, anything else as it is."""
    made = [member for member in typing.get_args(kind) or (kind,) if dataclasses.is_dataclass(member)]
    return made[0](**value) if made and isinstance(value, dict) else value


def holds(value, kind) -> bool:
    """Whether ``value`` is of the annotation ``kind``: ``X | Y``, ``list[X]``, a float (an int
    too), a dataclass (a dict of exactly its fields, each of its type), or a class."""
    if isinstance(kind, types.UnionType):
        return any(holds(value, member) for member in typing.get_args(kind))
    if typing.get_origin(kind) is list:
        return isinstance(value, list) and all(holds(item, typing.get_args(kind)[0]) for item in value)
    if dataclasses.is_dataclass(kind):
        members = {f.name: f.type for f in fields(kind)}
        return (
            isinstance(value, dict)
            and value.keys() == members.keys()
            and all(holds(value[name], member) for name, member in members.items())
        )
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


def check_recipe(path: Path, made_with: dict, wanted: dict) -> None:
    """Raises RuntimeError where the checkpoint's recipe (of the same flags) is not ``wanted``."""
    if changed := [name for name in made_with if made_with[name] != wanted[name]]:
        raise RuntimeError(
            f"checkpoint {path} was made with {', '.join(f'{n}={made_with[n]}' for n in changed)}, this run "
            f"asks for {', '.join(f'{n}={wanted[n]}' for n in changed)}: resume with the same flags, "
            "or train afresh without --resume (the checkpoint is then overwritten)"
        )


def restore_state_dict(path: Path, part, state_dict: dict) -> None:
    """Raises RuntimeError where ``state_dict`` does not fit ``part`` (another network)."""
    try:
        part.load_state_dict(state_dict)
    except (KeyError, RuntimeError, TypeError, ValueError) as error:
        first_line = str(error).splitlines()[0] if str(error) else ""
        raise RuntimeError(
            f"checkpoint {path} does not fit this network ({error.__class__.__name__}: {first_line}); {START_AFRESH}"
        ) from error
