"""Train the paper's CapsNet, or its CNN baseline, on MNIST.

    python train.py --data-dir DATA                       # the CapsNet; the epoch chosen on 5,000 held-out images
    python train.py --model cnn --data-dir DATA           # the paper's CNN baseline (pooled: docs/training.md)
    python train.py --resume                              # continue from checkpoints/last.pt, in its run's folder
    python train.py --init-from weights --lr 2e-4         # train saved weights further
    python train.py --task pairs --init-from weights      # two overlapping digits
    torchrun --standalone --nproc_per_node=2 train.py ... # data-parallel over processes (and machines)

A run writes its chosen weights, metrics.json and model card to --out, by default a new folder
runs/MODEL-TASK-DATE, never over another run's weights (the shipped weights/ among them) unless
--overwrite says so. The page serves them with CAPSNET_WEIGHTS=OUT python app.py (the CNN:
CAPSNET_CNN_WEIGHTS; --task pairs: CAPSNET_PAIRS_WEIGHTS, CAPSNET_PAIRS_CNN_WEIGHTS).

--batch-size is the global batch: under torchrun each of the N processes takes batch-size / N
images of every step, a shard of the data of its own (DistributedSampler).

The recipe, how the epoch is chosen, resuming, the shipped runs and torchrun: docs/training.md;
two overlapping digits (--task pairs): docs/pairs.md.
"""
import argparse
import math
import signal
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.optim.swa_utils import AveragedModel
from torch.utils.data import DataLoader
from tqdm import tqdm

from capsnet import CapsNet, WeightsError, load_model
from capsnet.data.datasets import mnist, validation_split
from capsnet.data.pairs import digits_right, pair_right
from capsnet.data.written import SINGLE_SHARE
from capsnet.evaluate import accuracy, correct_and_total, predictions
from capsnet.model_card import misreadings, write_model_card
from capsnet.pretrained import CONFIGS, NETWORKS, SERVED_BY, WEIGHTS_FILE
from capsnet.saving import atomic_save_pretrained, sha256
from capsnet.training.epoch_losses import NonFiniteLossError, UnreadLosses
from capsnet.training.hub import push
from capsnet.training.losses import LOSSES
from capsnet.training.metrics import RunRecord, earlier_record, portable_command, write_record
from capsnet.training.moving_average import update_moving_average
from capsnet.training.processes import DeviceError, Processes, join_processes, pick_device, torchrun_processes, use_bf16
from capsnet.training.random_state import epoch_seed, rng_state, set_rng_state
from capsnet.training.sharded_data import RunData, run_data, test_batches
from capsnet.training.signals import Interrupted, StopSignals, until_signal
from capsnet.training.state import TrainingState, UnfinishedEpoch

RECIPE = ("model", "task", "examples", "pairs_per_epoch", "single_share", "batch_size", "limit", "val_size", "lr", "lr_decay", "ema_decay", "seed", "dry_run",
          "init_from", "start_epoch", "device_data", "routing_iterations")  # what --resume must repeat


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", choices=sorted(NETWORKS), default="capsnet",
                   help="capsnet: the paper's CapsNet; cnn: its CNN baseline (default: capsnet)")
    p.add_argument("--task", choices=["digits", "pairs"], default="digits",
                   help="digits: MNIST, one digit an image; pairs: two overlapping digits of different classes (the "
                        "paper's MultiMNIST, made on the fly), the epoch chosen on held-out pairs (default: digits)")
    p.add_argument("--examples", choices=["written", "mnist-pairs"], default="written",
                   help="--task pairs: written: one digit or two as people write them (capsnet/data/written.py), "
                        "the epoch chosen on such examples; mnist-pairs: the paper's pairs alone (default: written)")
    p.add_argument("--pairs-per-epoch", type=int, default=None,
                   help="--task pairs: pairs in an epoch, their first digits drawn afresh each epoch; shorter epochs "
                        "validate and decay the learning rate more often (default: one for each training digit)")
    p.add_argument("--single-share", type=float, default=None, metavar="S",
                   help="--examples written: the share of training examples that hold one digit alone; the "
                        f"validation examples keep {SINGLE_SHARE} (default: {SINGLE_SHARE})")
    p.add_argument("--data-dir", default="./data", help="where torchvision's MNIST lives or is downloaded to (default: ./data)")
    p.add_argument("--out", default=None,
                   help="folder for the chosen weights, metrics.json and the model card; not one that holds another "
                        "run's weights (see --overwrite) (default: a new folder runs/MODEL-TASK-DATE, the date in "
                        "UTC; with --resume, the one its run writes to)")
    p.add_argument("--overwrite", action="store_true", help="write to --out even where it holds another run's weights")
    p.add_argument("--checkpoint", default="checkpoints/last.pt", help="the checkpoint written after every epoch (default: checkpoints/last.pt)")
    p.add_argument("--resume", action="store_true", help="continue from --checkpoint exactly where it stopped")
    p.add_argument("--init-from", metavar="WEIGHTS", default=None,
                   help="start from these weights (a folder or Hub repo id), Adam and the schedule afresh (default: "
                        "a random initialisation)")
    p.add_argument("--routing-iterations", type=int, default=None, metavar="R",
                   help="the CapsNet: train with R iterations of routing (Procedure 1), saved in its config.json "
                        "(default: the --init-from weights' own, else the paper's 3)")
    p.add_argument("--epochs", type=int, default=14,
                   help="number of epochs in all, resumed ones and those before --start-epoch included (default: 14)")
    p.add_argument("--start-epoch", type=int, default=1,
                   help="number this run's first epoch N: it draws epoch N's pairs, shifts and dropout, as one long "
                        "run would after --init-from weights whose last epoch was N-1 (default: 1)")
    p.add_argument("--batch-size", type=int, default=64,
                   help="images per step in all, the global batch: under torchrun each of N processes takes "
                        "batch-size / N of them (default: 64)")
    p.add_argument("--val-size", type=int, default=5000,
                   help="training images held out to choose the epoch on (the same for a given --seed); the test "
                        "set is read once, at the end. 0: train on all 60,000, keep the last epoch (default: 5000)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's initial learning rate (default: 1e-3)")
    p.add_argument("--lr-decay", type=float, default=0.85, help="exponential decay of the learning rate per epoch (default: 0.85)")
    p.add_argument("--ema-decay", type=float, default=0.999, help="decay of the weights' moving average that is evaluated and saved (default: 0.999)")
    p.add_argument("--seed", type=int, default=1, help="random seed, 0 to 2^32 - 1 (default: 1)")
    p.add_argument("--device", choices=["auto", "cuda", "mps", "cpu"], default="auto", help="auto: cuda, then mps, then cpu (default: auto)")
    p.add_argument("--amp", choices=["auto", "bf16", "off"], default="auto",
                   help="bf16 autocast; auto: where the device computes bf16 natively (default: auto)")
    p.add_argument("--limit", type=int, default=None, help="train on the first N training images only (default: all)")
    p.add_argument("--device-data", choices=["on", "off"], default="on",
                   help="on: MNIST kept on the training device, shifted there per batch (what a GPU needs); off: a "
                        "DataLoader over torchvision's transforms; pairs are made on the CPU (default: on)")
    p.add_argument("--max-minutes", type=float, default=None, help="stop cleanly at the last epoch boundary that fits in this budget (default: none)")
    p.add_argument("--dry-run", action="store_true", help="one batch, one epoch, nothing saved: a quick check that everything runs")
    p.add_argument("--push-to-hub", metavar="REPO_ID", default=None, help="upload the out folder to this Hugging Face repo at the end")
    return p.parse_args(argv)


class UsageError(Exception):
    """What the flags, or the checkpoint --resume reads, ask for cannot be done: one line, exit 2."""


def check_flags(args: argparse.Namespace, world: int) -> None:
    """Every flag that argparse cannot check alone, before anything is read or written.

    Raises:
        UsageError: a flag the run cannot go on with; the message names it.
    """
    for flag, value, allowed, meaning in (
            ("--batch-size", args.batch_size, args.batch_size >= 1, "at least 1"),
            ("--limit", args.limit, args.limit is None or args.limit >= 1, "at least 1"),
            ("--val-size", args.val_size, args.val_size >= 0, "0 or more"),
            ("--epochs", args.epochs, args.epochs >= 1, "at least 1"),
            ("--seed", args.seed, 0 <= args.seed < 2**32, "from 0 to 2^32 - 1"),
            ("--lr", args.lr, 0 <= args.lr < math.inf, "a finite number, 0 or more"),
            ("--lr-decay", args.lr_decay, 0 < args.lr_decay <= 1, "above 0 and at most 1"),
            ("--ema-decay", args.ema_decay, 0 <= args.ema_decay < 1, "from 0 up to, not including, 1"),
            ("--max-minutes", args.max_minutes, args.max_minutes is None or 0 < args.max_minutes < math.inf,
             "a finite number above 0")):
        if not allowed:         # NaN fails every comparison
            raise UsageError(f"{flag} {value}: must be {meaning}")
    if args.batch_size % world:
        raise UsageError(f"--batch-size {args.batch_size} does not split evenly over {world} processes: make it "
                         "a multiple of --nproc_per_node x --nnodes")
    if args.pairs_per_epoch is not None and (args.task != "pairs" or args.pairs_per_epoch < 1):
        raise UsageError("--pairs-per-epoch needs --task pairs and a positive number")
    if args.single_share is not None and (args.task != "pairs" or args.examples != "written"
                                          or not 0 <= args.single_share <= 1):
        raise UsageError("--single-share needs --task pairs, --examples written and a share from 0 to 1")
    if args.routing_iterations is not None and (args.model != "capsnet" or args.routing_iterations < 1):
        raise UsageError("--routing-iterations needs --model capsnet and at least 1")
    if not 1 <= args.start_epoch <= args.epochs:
        raise UsageError(f"--start-epoch {args.start_epoch} must be between 1 and --epochs {args.epochs}")
    if args.out and (Path(args.out) / WEIGHTS_FILE).is_file() and not (args.resume or args.overwrite or args.dry_run):
        raise UsageError(f"--out {args.out} holds the weights of another run: give a folder of this run's own "
                         "(leave --out out for a new one under runs/), or --overwrite to replace them")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return train(args, sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:     # Ctrl-C where the run does not stop by itself: the upload to the Hub
        print("\ntrain.py: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def train(args: argparse.Namespace, argv: list[str]) -> int:
    """One run, step by step: the flags checked, the device and torchrun's processes, the data,
    the network, the checkpoint resumed, the epochs, then the chosen weights read once on the test
    set and what is written beside them."""
    processes = torchrun_processes()
    try:
        check_flags(args, processes.world)
        run = set_up_run(args, processes, argv)
        data = load_data(run)
        state = build_state(run)
        resume_or_begin(run, data, state)
        report_start(run, data, state)
        with run.signals:                    # before, nothing is written: Ctrl-C stops the run at once
            train_epochs(run, data, state)
            return final_read(run, data, state)
    except UsageError as error:
        print(f"train.py: error: {error}", file=sys.stderr)
        return 2
    except NonFiniteLossError as error:      # from train_epochs: the rest is there
        if run.processes.is_rank_0:
            print(f"train.py: error: {error}; training stopped. {what_is_kept(run, state)} Train again "
                  "with a lower --lr.", file=sys.stderr)
        return 1
    except Interrupted as interrupt:         # from train_epochs or final_read
        if run.processes.is_rank_0:
            print(f"train.py: {interrupt}. {what_is_kept(run, state)}", file=sys.stderr)
        return 128 + interrupt.signum


@dataclass
class Run:
    """A run's flags, the command line that gave them, its process among torchrun's and its device."""
    args: argparse.Namespace
    argv: list[str]
    processes: Processes
    device: torch.device
    bf16: bool                         # bf16 autocast
    signals: StopSignals               # what stops the epochs and the final read
    wrote_weights: bool = False        # whether this process has written weights to the out folder

    @property
    def checkpoint(self) -> Path:
        return Path(self.args.checkpoint)

    def autocast(self):
        """The context of a training step: bf16 autocast, or nothing."""
        return torch.autocast(self.device.type, dtype=torch.bfloat16) if self.bf16 else nullcontext()

    def stop_signal(self) -> int:
        """The signal that asked a process of the run to stop, 0 if none: the same in every process."""
        return self.processes.max(self.signals.received or 0)

    def progress_bar(self, steps, description: str, **options) -> tqdm:
        """``steps`` with a progress bar that rank 0 shows on stdout while they run."""
        return tqdm(steps, desc=description, leave=False, file=sys.stdout, disable=not self.processes.is_rank_0,
                    **options)


def set_up_run(args: argparse.Namespace, processes: Processes, argv: list[str]) -> Run:
    """The run's device, torchrun's process group joined, and whether it computes in bf16.

    Raises:
        UsageError: the device of --device is not there.
    """
    try:
        device = pick_device(args.device, processes.local_rank)
    except DeviceError as error:
        raise UsageError(error) from None
    processes = join_processes(processes, device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True     # the batches' sizes are fixed: cuDNN times its convolutions once
    return Run(args, argv, processes, device, use_bf16(args.amp, device), StopSignals())


def load_data(run: Run) -> RunData:
    """The training images (or pairs) of this process and its share of the held-out ones.

    Raises:
        UsageError: MNIST cannot be had, or --val-size leaves nothing to train on.
    """
    args = run.args
    try:
        train_indices, val_indices = validation_split(len(mnist(args.data_dir, train=True)), args.val_size, args.seed)
    except (RuntimeError, ValueError) as error:
        raise UsageError(f"{'--val-size: ' if isinstance(error, ValueError) else ''}{error}") from None
    return run_data(args.data_dir, train_indices[:args.limit], val_indices, args.task, args.examples,
                    args.batch_size // run.processes.world, args.seed, run.processes, run.device,
                    args.device_data == "on", args.pairs_per_epoch, single_share(args))


def single_share(args: argparse.Namespace) -> float:
    """The share of the written training examples that hold one digit alone: --single-share, or the examples' own."""
    return SINGLE_SHARE if args.single_share is None else args.single_share


def build_state(run: Run) -> TrainingState:
    """The network (from --init-from, else initialised from --seed, the same in every process) on
    the run's device, its moving average, Adam and the schedule, as a new run's state.

    Raises:
        UsageError: the --init-from weights cannot be loaded.
    """
    args = run.args
    torch.manual_seed(args.seed)                  # the initial weights: the same in every process
    network = NETWORKS[args.model]
    try:
        model = load_model(args.init_from, network) if args.init_from else network(CONFIGS[network]())
    except WeightsError as error:
        raise UsageError(f"--init-from: {error}") from None
    if args.routing_iterations:
        model = routed_with(model, args.routing_iterations)
    model = model.to(run.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, fused=run.device.type == "cuda")   # one kernel a step
    return TrainingState(
        model=model, ema=AveragedModel(model), optimizer=optimizer,   # the average updated by update_moving_average
        schedule=torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=args.lr_decay), epoch=args.start_epoch - 1,
        recipe=recipe(run), earlier=earlier_record(args.init_from, args.model, args.task),   # before --out is written to
        out=args.out or new_run_folder(run))


def routed_with(model: CapsNet, iterations: int) -> CapsNet:
    """The same weights in a CapsNet whose config routes with ``iterations`` (so its config.json says so)."""
    rerouted = CapsNet(replace(model.config, routing_iterations=iterations))
    rerouted.load_state_dict(model.state_dict())
    return rerouted


def recipe(run: Run) -> dict:
    """The flags that shape the run's trajectory, the device's type and bf16 autocast: a resumed
    run must repeat them to end where an uninterrupted one would (and metrics.json, which records
    one device and one autocast, stays true)."""
    return {**{name: getattr(run.args, name) for name in RECIPE}, "device": run.device.type, "bf16_autocast": run.bf16}


def new_run_folder(run: Run) -> str:
    """runs/MODEL-TASK-DATE, the folder of a run given no --out: the second it began, in UTC (the
    latest of every process's, so the same in each)."""
    began = time.gmtime(run.processes.max(int(time.time())))
    return f"runs/{run.args.model}-{run.args.task}-{time.strftime('%Y%m%d-%H%M%S', began)}"


def resume_or_begin(run: Run, data: RunData, state: TrainingState) -> None:
    """With --resume, ``state`` as the checkpoint holds it, writing to its folder (or --out); with
    --init-from, the starting weights' validation accuracy as the figure to beat.

    Raises:
        UsageError: the checkpoint is missing, unreadable, made by another recipe or network, or its
            folder holds other weights than its run chose.
    """
    args = run.args
    if not args.resume:
        if args.init_from and data.validation is not None:   # the starting weights are the ones to beat
            state.best_accuracy = shared_accuracy(run, state.model, data.validation, data.right)
            if run.processes.is_rank_0:
                print(f"starting from {args.init_from}: validation accuracy {state.best_accuracy:.4%}, "
                      "the figure to beat")
        return
    try:
        lacking = state.restore(run.checkpoint)
    except RuntimeError as error:
        raise UsageError(error) from None
    if "earlier" in lacking:      # kept in the checkpoint since; before, read again where it started from
        state.earlier = earlier_record(args.init_from, args.model, args.task, args.start_epoch)
    if state.partial and len(state.partial.rng) != run.processes.world:
        raise UsageError(f"checkpoint {run.checkpoint} stopped in epoch {state.partial.epoch} under "
                         f"{len(state.partial.rng)} process(es), this run has {run.processes.world}: resume it "
                         f"under {len(state.partial.rng)}")
    state.out = args.out or state.out
    if state.out is None:
        raise UsageError(f"checkpoint {run.checkpoint} does not say which folder its run writes to: give --out")
    if state.holds_its_weights() is False and not (args.overwrite or args.dry_run):
        raise UsageError(f"{state.out}/ does not hold the weights this run chose but another run's: give --out "
                         "the folder it wrote them to, or --overwrite to replace them")
    if run.processes.is_rank_0:
        print(f"resumed from {run.checkpoint} after " + (f"step {state.partial.steps} of epoch {state.partial.epoch}"
                                                         if state.partial else f"epoch {state.epoch}"))


def shared_accuracy(run: Run, model: nn.Module, loader: DataLoader, right) -> float:
    """Accuracy over every process's share of the images (``right``: what reading one right means)."""
    read = correct_and_total(model, run.progress_bar(loader, "validation", delay=2), run.device, right)
    correct, total = run.processes.sum(*read, device=run.device)
    return correct / total


def last_epoch(args: argparse.Namespace, state: TrainingState) -> int:
    """The run's last epoch: --epochs, or a --dry-run's one."""
    return state.epoch + 1 if args.dry_run else args.epochs


def report_start(run: Run, data: RunData, state: TrainingState) -> None:
    args, first, last = run.args, state.epoch + 1, last_epoch(run.args, state)
    if not run.processes.is_rank_0:
        return
    if first > last:
        print(f"the checkpoint has finished {first - 1} epochs: nothing left to train, only the test "
              "(raise --epochs to go on)")
    source = ("examples as people write them, drawn on the device" if args.examples == "written" else
              "pairs made on the CPU") if args.task == "pairs" else \
        "on the device" if args.device_data == "on" else "from a DataLoader"
    print(f"{args.model} on {args.task}: device {run.device}, bf16 autocast {'on' if run.bf16 else 'off'}, "
          f"data {source}, {run.processes.world} process(es), global batch {args.batch_size}, "
          f"{data.train_images} training images, {data.val_images} for validation, epochs {first}..{last}"
          + ("" if args.dry_run else f"; the chosen weights go to {state.out}/"))


def train_epochs(run: Run, data: RunData, state: TrainingState) -> None:
    """The epochs after ``state.epoch`` up to --epochs: after each, the moving average read on the
    held-out images, the best weights so far saved to the out folder, and the checkpoint. Stops
    early where another epoch would pass --max-minutes; a --dry-run trains one step and saves nothing.

    Raises:
        NonFiniteLossError: the loss became NaN or infinite; ``state`` is the last finished epoch's.
        Interrupted: a signal asked the run to stop; it did after the step it was in (or the
            epoch, where the step was its last), saving a checkpoint --resume goes on from.
    """
    args, processes = run.args, run.processes
    last = last_epoch(args, state)
    trained = state.model if processes.world == 1 else \
        DistributedDataParallel(state.model, device_ids=[run.device.index] if run.device.type == "cuda" else None)
    started = time.monotonic()
    try:
        for epoch in range(state.epoch + 1, last + 1):
            so_far, rng = state.partial.in_process(processes.rank) if state.partial else (UnfinishedEpoch(epoch), None)
            torch.manual_seed(epoch_seed(args.seed, epoch, processes.rank))
            epoch_started = time.monotonic() - so_far.seconds
            lr = state.optimizer.param_groups[0]["lr"]
            train_one_epoch(run, state, trained, data.training, epoch, so_far, rng)
            if so_far.steps < len(data.training) and not args.dry_run:    # a signal stopped it
                so_far.seconds = time.monotonic() - epoch_started
                save_unfinished_epoch(run, state, so_far)
                raise Interrupted(run.stop_signal(),
                                  f"after step {so_far.steps} of {len(data.training)} of epoch {epoch}")
            loss_sum, correct, seen = processes.sum(so_far.loss, so_far.correct, so_far.seen, device=run.device)
            state.schedule.step()
            val_accuracy = shared_accuracy(run, state.ema.module, data.validation, data.right) \
                if data.validation else None
            also = {name: shared_accuracy(run, state.ema.module, loader, pair_right)
                    for name, loader in data.recorded_reads.items()}
            epoch_seconds = time.monotonic() - epoch_started
            state.seconds += epoch_seconds
            state.history.append({"epoch": epoch, "lr": lr, "train_loss": round(loss_sum / seen, 6),
                                  "train_accuracy": round(correct / seen, 6), "val_accuracy": val_accuracy,
                                  **also, "seconds": round(epoch_seconds, 1)})
            if processes.is_rank_0:
                print(f"epoch {epoch}: loss {loss_sum / seen:.4f}, train accuracy {correct / seen:.4%}, "
                      + (f"validation accuracy {val_accuracy:.4%}, " if data.validation else "")
                      + "".join(f"{name} {value:.4%}, " for name, value in also.items()) + f"{epoch_seconds:.0f} s")
            if args.dry_run:
                break                # a dry run checks that everything runs; it overwrites no weights
            state.epoch, state.partial = epoch, None
            keep_if_best(run, data, state, val_accuracy)
            if processes.is_rank_0:
                state.save(run.checkpoint)          # what --resume goes on from
            if signum := run.stop_signal():
                raise Interrupted(signum, f"after epoch {epoch}")
            elapsed_minutes = (time.monotonic() - started) / 60
            out_of_time = args.max_minutes is not None and epoch < last and \
                elapsed_minutes + epoch_seconds / 60 > args.max_minutes
            if processes.sum(float(out_of_time), device=run.device)[0]:   # every process stops, or none
                if processes.is_rank_0:
                    print(f"stopping after epoch {epoch}: another epoch would pass --max-minutes {args.max_minutes}")
                break
    except (NonFiniteLossError, Interrupted) as stop:
        record_stop(run, data, state, state.ema.module,
                    f"{stop}; --resume goes on from there" if isinstance(stop, Interrupted) else f"stopped: {stop}")
        processes.barrier()           # rank 0 has written before any process leaves (torchrun stops the rest)
        raise


def train_one_epoch(run: Run, state: TrainingState, trained: nn.Module, data, epoch: int,
                    so_far: UnfinishedEpoch, rng: torch.Tensor | None) -> None:
    """The steps of ``epoch`` after ``so_far.steps`` over this process's shard of ``data``, added
    to ``so_far``: to the end of the epoch, one with --dry-run, or to the end of the step in which
    a signal asked the run to stop (the same step in every process). ``rng``: the random state an
    interrupted epoch stopped with, else None.

    Raises:
        NonFiniteLossError: the loss became NaN or infinite in some process (in every process alike).
    """
    args = run.args
    trained.train()
    loss_fn = LOSSES[args.model, args.task]
    updates = int(state.ema.n_averaged)          # the moving average's updates so far, counted on the host
    steps = data.epoch(epoch)
    for _ in range(so_far.steps):          # an interrupted epoch goes on at its next step, as it would have
        next(steps)
    if rng is not None:
        set_rng_state(rng, run.device)
    bar = run.progress_bar(steps, f"epoch {epoch}", total=len(data), initial=so_far.steps, unit="batch")
    losses = UnreadLosses(so_far, run.processes)      # read back from the device every READ_EVERY steps
    for images, targets in bar:
        with run.autocast():
            loss, right = loss_fn(trained, images, targets)
        state.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        state.optimizer.step()
        update_moving_average(state.ema, state.model, args.ema_decay, updates)
        updates += 1
        so_far.steps += 1
        if losses.add(loss, right, len(images)):
            bar.set_postfix(loss=f"{so_far.loss / so_far.seen:.4f}", acc=f"{so_far.correct / so_far.seen:.4f}")
        if args.dry_run or run.stop_signal():
            break
    losses.read()


def save_unfinished_epoch(run: Run, state: TrainingState, so_far: UnfinishedEpoch) -> None:
    """The checkpoint of an epoch stopped after ``so_far.steps`` steps: the network, its moving
    average and Adam as they are, the steps' sums over every process, and each process's random
    state, so that --resume goes on with the next step as the run would have."""
    loss, correct, seen = run.processes.sum(so_far.loss, so_far.correct, so_far.seen, device=run.device)
    state.partial = replace(so_far, loss=loss, correct=correct, seen=seen,
                            rng=run.processes.gather(rng_state(run.device)))
    if run.processes.is_rank_0:
        state.save(run.checkpoint)


def keep_if_best(run: Run, data: RunData, state: TrainingState, val_accuracy: float | None) -> None:
    """Save the moving average to the out folder where it reads the held-out images better than any
    epoch before (every epoch without a validation split), with a metrics.json that says so: the
    run so far, the test set not read yet (a run killed before its end leaves it so)."""
    if val_accuracy is None or val_accuracy > state.best_accuracy:
        state.best_accuracy = -1.0 if val_accuracy is None else val_accuracy
        state.best_epoch, state.saved_any, run.wrote_weights = state.epoch, True, True
        if run.processes.is_rank_0:
            atomic_save_pretrained(state.ema.module, state.out)
            state.weights_sha256 = sha256(Path(state.out) / WEIGHTS_FILE)
            write_record(Path(state.out), run_record(run, data).now(state, state.ema.module,
                                                                     "training: the test set is read when the run ends"))


def record_stop(run: Run, data: RunData, state: TrainingState, weights: nn.Module, status: str) -> None:
    """A run that stops before its end: where this process wrote the weights in the out folder,
    their metrics.json says how it stopped (``status``), without a test figure."""
    if run.wrote_weights and run.processes.is_rank_0:
        write_record(Path(state.out), run_record(run, data).now(state, weights, status))


def what_is_kept(run: Run, state: TrainingState) -> str:
    """After a stop, what the out folder and the checkpoint hold."""
    args, out = run.args, state.out
    if state.best_epoch is not None:
        weights = f"The best weights so far (epoch {state.best_epoch}) are kept in {out}/"
    elif args.init_from and state.history:
        weights = f"No epoch beat the starting weights, so nothing was written to {out}/"
    elif not args.resume and state.epoch < args.start_epoch and state.partial is None:
        return "No epoch finished, so nothing was saved."
    else:
        weights = f"No weights were written to {out}/"
    where = f"step {state.partial.steps} of epoch {state.partial.epoch}" if state.partial else f"epoch {state.epoch}"
    return f"{weights}; {run.checkpoint} holds the run after {where}, where --resume goes on."


def final_read(run: Run, data: RunData, state: TrainingState) -> int:
    """The chosen weights read once on the test set (rank 0); metrics.json and the model card
    written beside them, and the folder pushed to the Hub where asked.

    Raises:
        UsageError: the out folder does not hold the weights this run chose, or they cannot be loaded.
    """
    args, out = run.args, Path(state.out)
    if args.dry_run:
        return 0
    if args.init_from and not state.saved_any:
        if run.processes.is_rank_0:
            print(f"no epoch beat the starting weights ({state.best_accuracy:.4%}); nothing written to {out}/")
        return 0
    if not run.processes.is_rank_0:
        return 0
    if state.weights_sha256 and not state.holds_its_weights():
        raise UsageError(f"{out}/ does not hold the weights this run chose (epoch {state.best_epoch}): "
                         "give --out the folder it wrote them to; nothing was written")
    try:
        chosen = load_model(out, NETWORKS[args.model]).to(run.device)
    except WeightsError as error:
        raise UsageError(f"the chosen weights: {error}") from None
    try:
        test_accuracy, misread, written_test = read_test_sets(run, data, chosen)
    except Interrupted as stop:
        record_stop(run, data, state, chosen, f"{stop}; --resume reads it")
        raise
    write_record(out, run_record(run, data).now(state, chosen, "finished", test_accuracy, written_test))
    chosen_by = f"validation accuracy {state.best_accuracy:.4%}" if data.validation else "the last"
    print(f"epoch {state.best_epoch} chosen ({chosen_by}); test "
          f"{'pairs with both digits right' if args.task == 'pairs' else 'accuracy'} {test_accuracy:.4%}"
          + (f", test examples as people write them read right {written_test:.4%}" if written_test is not None else "")
          + f"; model in {out}/")
    write_model_card(out, args.model, args.data_dir, repo=args.push_to_hub, device=run.device, misread=misread)
    print(f"the page serves it with: {SERVED_BY[args.model, args.task][0]}={out} python app.py")
    run.signals.close()            # from here, Ctrl-C stops the upload at once
    if run.signals.received and args.push_to_hub:
        print(f"train.py: stopped by {signal.Signals(run.signals.received).name} before the upload to the Hub; "
              f"the run is written in {out}/", file=sys.stderr)
        return 128 + run.signals.received
    return push(out, args.push_to_hub) if args.push_to_hub else 0


def read_test_sets(run: Run, data: RunData, chosen: nn.Module) -> tuple[float, tuple | None, float | None]:
    """The chosen weights on MNIST's test set, read until a signal asks the run to stop: its digits
    read right, with what the model card lists of the mistakes (capsnet.model_card.misreadings), or,
    --task pairs, its fixed pairs both right (the card reads the single digits itself); and, trained
    on written examples, a written example of each test digit read right (`digits_right`)."""
    tests = test_batches(run.args.data_dir, run.args.task, run.device)
    reading = run.progress_bar(until_signal(tests, run.signals), "test set", total=len(tests), delay=2)
    if run.args.task == "digits":
        misread = misreadings(tests.dataset.targets, predictions(chosen, reading))
        return misread[0], misread, None
    test_accuracy = accuracy(chosen, reading, run.device, data.right)
    if run.args.examples != "written":
        return test_accuracy, None, None
    tests = test_batches(run.args.data_dir, run.args.task, run.device, written=True)
    reading = run.progress_bar(until_signal(tests, run.signals), "written test set", total=len(tests), delay=2)
    return test_accuracy, None, accuracy(chosen, reading, run.device, digits_right)


def run_record(run: Run, data: RunData) -> RunRecord:
    """What metrics.json says of the run before its progress (RunRecord.now)."""
    args, pairs = run.args, run.args.task == "pairs"
    held_out_ones = ("the examples as people write them of the" if args.examples == "written" else "the pairs of the") \
        if pairs else "the"
    test_ones = "the test pairs of MNIST's test set" if pairs else "MNIST's test set"
    return RunRecord(
        model=args.model, task=args.task, examples=args.examples, val_size=args.val_size,
        single_share=single_share(args),
        selection=(f"the epoch whose moving average read best {held_out_ones} {args.val_size} training images "
                   f"held out by seed {args.seed}; {test_ones} read once, at the end, on those weights"
                   if data.validation else f"the last epoch (no validation split); {test_ones} read once, at the end"),
        train_images=data.train_images,
        pairs_per_epoch=data.training.pairs_from_shard * run.processes.world if pairs else None,
        global_batch=args.batch_size, processes=run.processes.world, device=run.device.type,
        data_on_device=args.device_data == "on", bf16_autocast=run.bf16, torch_version=torch.__version__,
        command=portable_command(run.argv), init_from=args.init_from, start_epoch=args.start_epoch)


if __name__ == "__main__":
    sys.exit(main())
