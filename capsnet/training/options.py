"""What a run is asked to do: train.py's flags as one typed, frozen object, which the machinery of
the run reads (never the command line itself). The options that shape the run's trajectory are its
recipe: its checkpoint keeps them, and --resume must repeat them to end where an uninterrupted run
would."""

from dataclasses import dataclass, field, fields


def in_recipe():
    """An option that shapes the run's trajectory: --resume must repeat it."""
    return field(metadata={"recipe": True})


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """train.py's flags, each under its name (``--lr-decay``: ``lr_decay``); their defaults and
    meanings are train.py's (``python train.py --help``)."""

    model: str = in_recipe()  # capsnet or cnn
    task: str = in_recipe()  # digits, or pairs: two overlapping digits
    examples: str = in_recipe()  # --task pairs: written, or mnist-pairs
    pairs_per_epoch: int | None = in_recipe()  # None: one pair for each training digit
    single_share: float | None = in_recipe()  # None: the written examples' own share of single digits
    data_dir: str  # MNIST's folder
    out: str | None  # None: a new folder under runs/ (with --resume: its run's)
    overwrite: bool  # write to --out even where it holds another run's weights
    checkpoint: str  # the checkpoint written after every epoch
    resume: bool  # go on from --checkpoint
    init_from: str | None = in_recipe()  # the weights to start from; None: a random initialisation
    routing_iterations: int | None = in_recipe()  # None: the --init-from weights' own, else the paper's 3
    epochs: int  # the last epoch
    start_epoch: int = in_recipe()  # this run's first epoch
    batch_size: int = in_recipe()  # the global batch, split over the processes
    val_size: int = in_recipe()  # training images held out to choose the epoch on
    lr: float = in_recipe()  # Adam's initial learning rate
    lr_decay: float = in_recipe()  # the learning rate's decay per epoch
    ema_decay: float = in_recipe()  # the decay of the weights' moving average
    seed: int = in_recipe()
    device: str  # auto, cuda, mps or cpu
    amp: str  # bf16 autocast: auto, bf16 or off
    limit: int | None = in_recipe()  # train on the first N training images; None: all
    device_data: str = in_recipe()  # on: MNIST kept on the device; off: a DataLoader
    max_minutes: float | None  # stop at the last epoch boundary within it; None: no limit
    dry_run: bool = in_recipe()  # one step, nothing saved
    push_to_hub: str | None  # the Hub repo the run's folder is uploaded to; None: none

    def recipe(self) -> dict:
        """The options of the recipe by name, as the run's checkpoint keeps them."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.metadata.get("recipe")}
