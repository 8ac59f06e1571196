"""What a run is asked to do: train.py's flags, defined here with their defaults and help, checked
where argparse cannot check them, and parsed into one typed, frozen object, which the machinery of
the run reads (never the command line itself). The options that shape the run's trajectory are its
recipe: its checkpoint keeps them, and --resume must repeat them to end where an uninterrupted run
would."""

import argparse
import math
import os
from dataclasses import dataclass, field, fields
from pathlib import Path

from capsnet.data.written import SINGLE_SHARE
from capsnet.shipping.pretrained import NETWORKS, WEIGHTS_FILE
from capsnet.training.sharded_data import DRY_RUN_VAL_IMAGES

DATA_DIR_VARIABLE = "CAPSNET_DATA_DIR"  # MNIST's folder where --data-dir is not given, as the tests read it


class UsageError(Exception):
    """What the flags, or the checkpoint --resume reads, ask for cannot be done: one line, exit 2."""


def in_recipe():
    """An option that shapes the run's trajectory: --resume must repeat it."""
    return field(metadata={"recipe": True})


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """train.py's flags, each under its name (``--lr-decay``: ``lr_decay``); their defaults and
    meanings are those of ``flags`` below (``python train.py --help``)."""

    model: str = in_recipe()  # capsnet or cnn
    task: str = in_recipe()  # digits, or pairs: two overlapping digits
    examples: str = in_recipe()  # --task pairs: written, or mnist-pairs
    pairs_per_epoch: int | None = in_recipe()  # None: one pair for each training digit
    single_share: float | None = in_recipe()  # None: the written examples' own share of single digits
    data_dir: str  # MNIST's folder
    out: str | None  # None: a new folder under runs/ (with --resume: its run's)
    overwrite: bool  # write to --out even where it holds another run's weights
    checkpoint: str | None  # the checkpoint written after every epoch; None: last.pt in the run's folder
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
    dry_run: bool = in_recipe()  # one step, a little validation, nothing saved
    no_names: bool  # leave the chosen CapsNet's dimensions unnamed (no dimensions.json)
    push_to_hub: str | None  # the Hub repo the run's folder is uploaded to; None: none

    def data_source(self) -> str:
        """Where the run's examples come from, in words (the line a run begins with)."""
        if self.task == "pairs":
            return (
                "examples as people write them, drawn on the device"
                if self.examples == "written"
                else "pairs made on the CPU"
            )
        return "on the device" if self.device_data == "on" else "from a DataLoader"

    def recipe(self) -> dict:
        """The options of the recipe by name, as the run's checkpoint keeps them."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.metadata.get("recipe")}


def parse_options(argv: list[str] | None, description: str) -> RunOptions:
    """``argv`` (None: the command line) as RunOptions; ``description``: the text --help begins with."""
    return RunOptions(**vars(flags(description).parse_args(argv)))


def flags(description: str) -> argparse.ArgumentParser:
    """train.py's command line: every flag with its default and what it does."""
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--model",
        choices=sorted(NETWORKS),
        default="capsnet",
        help="capsnet: the paper's CapsNet; cnn: its CNN baseline (default: capsnet)",
    )
    p.add_argument(
        "--task",
        choices=["digits", "pairs"],
        default="digits",
        help="digits: MNIST, one digit an image; pairs: two overlapping digits of different classes (the "
        "paper's MultiMNIST, made on the fly), the epoch chosen on held-out pairs (default: digits)",
    )
    p.add_argument(
        "--examples",
        choices=["written", "mnist-pairs"],
        default="written",
        help="--task pairs: written: one digit or two as people write them (capsnet/data/written.py), "
        "the epoch chosen on such examples read exactly (the count and the digits); mnist-pairs: "
        "the paper's pairs alone (default: written)",
    )
    p.add_argument(
        "--pairs-per-epoch",
        type=int,
        default=None,
        help="--task pairs: pairs in an epoch, their first digits drawn afresh each epoch; shorter epochs "
        "validate and decay the learning rate more often (default: one for each training digit)",
    )
    p.add_argument(
        "--single-share",
        type=float,
        default=None,
        metavar="S",
        help="--examples written: the share of training examples that hold one digit alone; the "
        f"validation examples keep {SINGLE_SHARE} (default: {SINGLE_SHARE})",
    )
    p.add_argument(
        "--data-dir",
        default=os.environ.get(DATA_DIR_VARIABLE, "./data"),
        help=f"where torchvision's MNIST lives or is downloaded to (default: ${DATA_DIR_VARIABLE}, else ./data)",
    )
    p.add_argument(
        "--out",
        default=None,
        help="folder for the chosen weights, metrics.json and the model card; not one that holds another "
        "run's weights (see --overwrite) (default: a new folder runs/MODEL-TASK-DATE, the date in "
        "UTC; with --resume, the one its run writes to)",
    )
    p.add_argument("--overwrite", action="store_true", help="write to --out even where it holds another run's weights")
    p.add_argument(
        "--checkpoint",
        default=None,
        help="the checkpoint written after every epoch (default: last.pt in the run's folder, --out)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue from --checkpoint exactly where it stopped (without --out or --checkpoint: from the "
        "newest runs/MODEL-TASK-DATE of --model and --task that holds one)",
    )
    p.add_argument(
        "--init-from",
        metavar="WEIGHTS",
        default=None,
        help="start from these weights (a folder or Hub repo id), Adam and the schedule afresh (default: "
        "a random initialisation)",
    )
    p.add_argument(
        "--routing-iterations",
        type=int,
        default=None,
        metavar="R",
        help="the CapsNet: train with R iterations of routing (Procedure 1), saved in its config.json "
        "(default: the --init-from weights' own, else the paper's 3)",
    )
    p.add_argument(
        "--epochs",
        type=int,
        default=14,
        help="number of epochs in all, resumed ones and those before --start-epoch included (default: 14)",
    )
    p.add_argument(
        "--start-epoch",
        type=int,
        default=1,
        help="number this run's first epoch N: it draws epoch N's pairs, shifts and dropout, as one long "
        "run would after --init-from weights whose last epoch was N-1 (default: 1)",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=64,
        help="images per step in all, the global batch: under torchrun each of N processes takes "
        "batch-size / N of them (default: 64)",
    )
    p.add_argument(
        "--val-size",
        type=int,
        default=5000,
        help="training images held out to choose the epoch on (the same for a given --seed); the test "
        "set is read once, at the end. 0: train on all 60,000, keep the last epoch (default: 5000)",
    )
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's initial learning rate (default: 1e-3)")
    p.add_argument(
        "--lr-decay", type=float, default=0.85, help="exponential decay of the learning rate per epoch (default: 0.85)"
    )
    p.add_argument(
        "--ema-decay",
        type=float,
        default=0.999,
        help="decay of the weights' moving average that is evaluated and saved (default: 0.999)",
    )
    p.add_argument("--seed", type=int, default=1, help="random seed, 0 to 2^32 - 1 (default: 1)")
    p.add_argument(
        "--device",
        choices=["auto", "cuda", "mps", "cpu"],
        default="auto",
        help="auto: cuda, then mps, then cpu (default: auto)",
    )
    p.add_argument(
        "--amp",
        choices=["auto", "bf16", "off"],
        default="auto",
        help="bf16 autocast; auto: where the device computes bf16 natively (default: auto)",
    )
    p.add_argument("--limit", type=int, default=None, help="train on the first N training images only (default: all)")
    p.add_argument(
        "--device-data",
        choices=["on", "off"],
        default="on",
        help="on: MNIST kept on the training device, shifted there per batch (what a GPU needs); off: a "
        "DataLoader over torchvision's transforms; pairs are made on the CPU (default: on)",
    )
    p.add_argument(
        "--max-minutes",
        type=float,
        default=None,
        help="stop cleanly at the last epoch boundary that fits in this budget (default: none)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help=f"one batch, one epoch, validation on the first {DRY_RUN_VAL_IMAGES:,} held-out images only, "
        "nothing saved: a quick check, in seconds, that everything runs",
    )
    p.add_argument(
        "--no-names",
        action="store_true",
        help="the CapsNet on digits: do not measure what each of its dimensions does at the end "
        "(capsnet.studies.dimension_names), so that the page's sliders are numbered, not named (default: "
        "name them beside the weights, in dimensions.json, where MNIST's test set holds the digits they are "
        "measured on)",
    )
    p.add_argument(
        "--push-to-hub",
        metavar="REPO_ID",
        default=None,
        help="upload the out folder to this Hugging Face repo at the end",
    )
    return p


def check_flags(options: RunOptions, world: int) -> None:
    """Every flag that argparse cannot check alone, before anything is read or written.

    Raises:
        UsageError: a flag the run cannot go on with; the message names it.
    """
    for flag, value, allowed, meaning in (
        ("--batch-size", options.batch_size, options.batch_size >= 1, "at least 1"),
        ("--limit", options.limit, options.limit is None or options.limit >= 1, "at least 1"),
        ("--val-size", options.val_size, options.val_size >= 0, "0 or more"),
        ("--epochs", options.epochs, options.epochs >= 1, "at least 1"),
        ("--seed", options.seed, 0 <= options.seed < 2**32, "from 0 to 2^32 - 1"),
        ("--lr", options.lr, 0 <= options.lr < math.inf, "a finite number, 0 or more"),
        ("--lr-decay", options.lr_decay, 0 < options.lr_decay <= 1, "above 0 and at most 1"),
        ("--ema-decay", options.ema_decay, 0 <= options.ema_decay < 1, "from 0 up to, not including, 1"),
        (
            "--max-minutes",
            options.max_minutes,
            options.max_minutes is None or 0 < options.max_minutes < math.inf,
            "a finite number above 0",
        ),
    ):
        if not allowed:  # NaN fails every comparison
            raise UsageError(f"{flag} {value}: must be {meaning}")
    if options.batch_size % world:
        raise UsageError(
            f"--batch-size {options.batch_size} does not split evenly over {world} processes: make it "
            "a multiple of --nproc_per_node x --nnodes"
        )
    if options.pairs_per_epoch is not None and (options.task != "pairs" or options.pairs_per_epoch < 1):
        raise UsageError("--pairs-per-epoch needs --task pairs and a positive number")
    if options.single_share is not None and (
        options.task != "pairs" or options.examples != "written" or not 0 <= options.single_share <= 1
    ):
        raise UsageError("--single-share needs --task pairs, --examples written and a share from 0 to 1")
    if options.routing_iterations is not None and (options.model != "capsnet" or options.routing_iterations < 1):
        raise UsageError("--routing-iterations needs --model capsnet and at least 1")
    if not 1 <= options.start_epoch <= options.epochs:
        raise UsageError(f"--start-epoch {options.start_epoch} must be between 1 and --epochs {options.epochs}")
    if (
        options.out
        and (Path(options.out) / WEIGHTS_FILE).is_file()
        and not (options.resume or options.overwrite or options.dry_run)
    ):
        raise UsageError(
            f"--out {options.out} holds the weights of another run: give a folder of this run's own "
            "(leave --out out for a new one under runs/), or --overwrite to replace them"
        )
