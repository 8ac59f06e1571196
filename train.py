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
from dataclasses import replace
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.optim.swa_utils import AveragedModel

from capsnet import CapsNet, WeightsError, load_model
from capsnet.data.datasets import mnist, validation_split
from capsnet.data.pairs import pair_right
from capsnet.data.written import SINGLE_SHARE
from capsnet.model_card import write_model_card
from capsnet.pretrained import CONFIGS, NETWORKS, SERVED_BY, WEIGHTS_FILE
from capsnet.training.epoch_losses import NonFiniteLossError, UnreadLosses
from capsnet.training.final_reads import read_test_sets
from capsnet.training.hub import push
from capsnet.training.losses import LOSSES
from capsnet.training.metrics import earlier_record, write_record
from capsnet.training.moving_average import update_moving_average
from capsnet.training.options import RunOptions
from capsnet.training.out_folder import keep_if_best, record_stop, run_record, what_is_kept
from capsnet.training.processes import DeviceError, Processes, join_processes, pick_device, torchrun_processes, use_bf16
from capsnet.training.random_state import epoch_seed, rng_state, set_rng_state
from capsnet.training.resume import resume_or_begin
from capsnet.training.run import Run, UsageError
from capsnet.training.sharded_data import RunData, run_data
from capsnet.training.signals import Interrupted, StopSignals
from capsnet.training.state import TrainingState, UnfinishedEpoch
from capsnet.training.validation import validation_read


def main(argv: list[str] | None = None) -> int:
    options = parse_args(argv)
    try:
        return train(options, sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:  # Ctrl-C where the run does not stop by itself: the upload to the Hub
        print("\ntrain.py: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def train(options: RunOptions, argv: list[str]) -> int:
    """One run, step by step: the flags checked, the device and torchrun's processes, the data,
    the network, the checkpoint resumed, the epochs, then the chosen weights read once on the test
    set and what is written beside them."""
    processes = torchrun_processes()
    try:
        check_flags(options, processes.world)
        run = set_up_run(options, processes, argv)
        data = load_data(run)
        state = build_state(run)
        resume_or_begin(run, data, state)
        report_start(run, data, state)
        with run.signals:  # before, nothing is written: Ctrl-C stops the run at once
            train_epochs(run, data, state)
            return final_read(run, data, state)
    except UsageError as error:
        print(f"train.py: error: {error}", file=sys.stderr)
        return 2
    except NonFiniteLossError as error:  # from train_epochs: the rest is there
        if run.processes.is_rank_0:
            print(
                f"train.py: error: {error}; training stopped. {what_is_kept(run, state)} Train again "
                "with a lower --lr.",
                file=sys.stderr,
            )
        return 1
    except Interrupted as interrupt:  # from train_epochs or final_read
        if run.processes.is_rank_0:
            print(f"train.py: {interrupt}. {what_is_kept(run, state)}", file=sys.stderr)
        return 128 + interrupt.signum


def set_up_run(options: RunOptions, processes: Processes, argv: list[str]) -> Run:
    """The run's device, torchrun's process group joined, and whether it computes in bf16.

    Raises:
        UsageError: the device of --device is not there.
    """
    try:
        device = pick_device(options.device, processes.local_rank)
    except DeviceError as error:
        raise UsageError(error) from None
    processes = join_processes(processes, device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True  # the batches' sizes are fixed: cuDNN times its convolutions once
    return Run(options, argv, processes, device, use_bf16(options.amp, device), StopSignals())


def load_data(run: Run) -> RunData:
    """The training images (or pairs) of this process and its share of the held-out ones.

    Raises:
        UsageError: MNIST cannot be had, or --val-size leaves nothing to train on.
    """
    options = run.options
    try:
        train_indices, val_indices = validation_split(
            len(mnist(options.data_dir, train=True)), options.val_size, options.seed
        )
    except (RuntimeError, ValueError) as error:
        raise UsageError(f"{'--val-size: ' if isinstance(error, ValueError) else ''}{error}") from None
    return run_data(
        options.data_dir,
        train_indices[: options.limit],
        val_indices,
        options.task,
        options.examples,
        options.batch_size // run.processes.world,
        options.seed,
        run.processes,
        run.device,
        options.device_data == "on",
        options.pairs_per_epoch,
        run.single_share,
    )


def build_state(run: Run) -> TrainingState:
    """The network (from --init-from, else initialised from --seed, the same in every process) on
    the run's device, its moving average, Adam and the schedule, as a new run's state.

    Raises:
        UsageError: the --init-from weights cannot be loaded.
    """
    options = run.options
    torch.manual_seed(options.seed)  # the initial weights: the same in every process
    network = NETWORKS[options.model]
    try:
        model = load_model(options.init_from, network) if options.init_from else network(CONFIGS[network]())
    except WeightsError as error:
        raise UsageError(f"--init-from: {error}") from None
    if options.routing_iterations:
        model = routed_with(model, options.routing_iterations)
    model = model.to(run.device)
    optimizer = torch.optim.Adam(
        model.parameters(), lr=options.lr, fused=run.device.type == "cuda"
    )  # one kernel a step
    return TrainingState(
        model=model,
        ema=AveragedModel(model),
        optimizer=optimizer,  # the average updated by update_moving_average
        schedule=torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=options.lr_decay),
        epoch=options.start_epoch - 1,
        recipe=recipe(run),
        earlier=earlier_record(options.init_from, options.model, options.task),  # before --out is written to
        out=options.out or run.new_out_folder(),
    )


def routed_with(model: CapsNet, iterations: int) -> CapsNet:
    """The same weights in a CapsNet whose config routes with ``iterations`` (so its config.json says so)."""
    rerouted = CapsNet(replace(model.config, routing_iterations=iterations))
    rerouted.load_state_dict(model.state_dict())
    return rerouted


def recipe(run: Run) -> dict:
    """The flags that shape the run's trajectory, the device's type and bf16 autocast: a resumed
    run must repeat them to end where an uninterrupted one would (and metrics.json, which records
    one device and one autocast, stays true)."""
    return {**run.options.recipe(), "device": run.device.type, "bf16_autocast": run.bf16}


def last_epoch(options: RunOptions, state: TrainingState) -> int:
    """The run's last epoch: --epochs, or a --dry-run's one."""
    return state.epoch + 1 if options.dry_run else options.epochs


def report_start(run: Run, data: RunData, state: TrainingState) -> None:
    options, first, last = run.options, state.epoch + 1, last_epoch(run.options, state)
    if not run.processes.is_rank_0:
        return
    if first > last:
        print(
            f"the checkpoint has finished {first - 1} epochs: nothing left to train, only the test "
            "(raise --epochs to go on)"
        )
    source = (
        (
            "examples as people write them, drawn on the device"
            if options.examples == "written"
            else "pairs made on the CPU"
        )
        if options.task == "pairs"
        else "on the device"
        if options.device_data == "on"
        else "from a DataLoader"
    )
    print(
        f"{options.model} on {options.task}: device {run.device}, bf16 autocast {'on' if run.bf16 else 'off'}, "
        f"data {source}, {run.processes.world} process(es), global batch {options.batch_size}, "
        f"{data.train_images} training images, {data.val_images} for validation, epochs {first}..{last}"
        + ("" if options.dry_run else f"; the chosen weights go to {state.out}/")
    )


def train_epochs(run: Run, data: RunData, state: TrainingState) -> None:
    """The epochs after ``state.epoch`` up to --epochs: after each, the moving average read on the
    held-out images, the best weights so far saved to the out folder, and the checkpoint. Stops
    early where another epoch would pass --max-minutes; a --dry-run trains one step and saves nothing.

    Raises:
        NonFiniteLossError: the loss became NaN or infinite; ``state`` is the last finished epoch's.
        Interrupted: a signal asked the run to stop; it did after the step it was in (or the
            epoch, where the step was its last), saving a checkpoint --resume goes on from.
    """
    options, processes = run.options, run.processes
    last = last_epoch(options, state)
    trained = (
        state.model
        if processes.world == 1
        else DistributedDataParallel(state.model, device_ids=[run.device.index] if run.device.type == "cuda" else None)
    )
    started = time.monotonic()
    try:
        for epoch in range(state.epoch + 1, last + 1):
            so_far, rng = state.partial.in_process(processes.rank) if state.partial else (UnfinishedEpoch(epoch), None)
            torch.manual_seed(epoch_seed(options.seed, epoch, processes.rank))
            epoch_started = time.monotonic() - so_far.seconds
            lr = state.optimizer.param_groups[0]["lr"]
            train_one_epoch(run, state, trained, data.training, epoch, so_far, rng)
            if so_far.steps < len(data.training) and not options.dry_run:  # a signal stopped it
                so_far.seconds = time.monotonic() - epoch_started
                save_unfinished_epoch(run, state, so_far)
                raise Interrupted(
                    run.stop_signal(), f"after step {so_far.steps} of {len(data.training)} of epoch {epoch}"
                )
            loss_sum, correct, seen = processes.sum(so_far.loss, so_far.correct, so_far.seen, device=run.device)
            state.schedule.step()
            val = run.read_validation(state.ema.module, data) if data.validation else None
            also = {
                name: validation_read(state.ema.module, loader, False, pair_right, processes, run.device).accuracy
                for name, loader in data.recorded_reads.items()
            }
            epoch_seconds = time.monotonic() - epoch_started
            state.seconds += epoch_seconds
            state.history.append(
                {
                    "epoch": epoch,
                    "lr": lr,
                    "train_loss": round(loss_sum / seen, 6),
                    "train_accuracy": round(correct / seen, 6),
                    **(val.as_history() if val else {"val_accuracy": None}),
                    **also,
                    "seconds": round(epoch_seconds, 1),
                }
            )
            if processes.is_rank_0:
                print(
                    f"epoch {epoch}: loss {loss_sum / seen:.4f}, train accuracy {correct / seen:.4%}, "
                    + (f"{val.in_words()}, " if val else "")
                    + "".join(f"{name} {value:.4%}, " for name, value in also.items())
                    + f"{epoch_seconds:.0f} s"
                )
            if options.dry_run:
                break  # a dry run checks that everything runs; it overwrites no weights
            state.epoch, state.partial = epoch, None
            keep_if_best(run, data, state, val.figure if val else None)
            if processes.is_rank_0:
                state.save(run.checkpoint)  # what --resume goes on from
            if signum := run.stop_signal():
                raise Interrupted(signum, f"after epoch {epoch}")
            elapsed_minutes = (time.monotonic() - started) / 60
            out_of_time = (
                options.max_minutes is not None
                and epoch < last
                and elapsed_minutes + epoch_seconds / 60 > options.max_minutes
            )
            if processes.sum(float(out_of_time), device=run.device)[0]:  # every process stops, or none
                if processes.is_rank_0:
                    print(f"stopping after epoch {epoch}: another epoch would pass --max-minutes {options.max_minutes}")
                break
    except (NonFiniteLossError, Interrupted) as stop:
        record_stop(
            run,
            data,
            state,
            state.ema.module,
            f"{stop}; --resume goes on from there" if isinstance(stop, Interrupted) else f"stopped: {stop}",
        )
        processes.barrier()  # rank 0 has written before any process leaves (torchrun stops the rest)
        raise


def train_one_epoch(
    run: Run,
    state: TrainingState,
    trained: nn.Module,
    data,
    epoch: int,
    so_far: UnfinishedEpoch,
    rng: torch.Tensor | None,
) -> None:
    """The steps of ``epoch`` after ``so_far.steps`` over this process's shard of ``data``, added
    to ``so_far``: to the end of the epoch, one with --dry-run, or to the end of the step in which
    a signal asked the run to stop (the same step in every process). ``rng``: the random state an
    interrupted epoch stopped with, else None.

    Raises:
        NonFiniteLossError: the loss became NaN or infinite in some process (in every process alike).
    """
    options = run.options
    trained.train()
    loss_fn = LOSSES[options.model, options.task]
    updates = int(state.ema.n_averaged)  # the moving average's updates so far, counted on the host
    steps = data.epoch(epoch)
    for _ in range(so_far.steps):  # an interrupted epoch goes on at its next step, as it would have
        next(steps)
    if rng is not None:
        set_rng_state(rng, run.device)
    bar = run.progress_bar(steps, f"epoch {epoch}", total=len(data), initial=so_far.steps, unit="batch")
    losses = UnreadLosses(so_far, run.processes)  # read back from the device every READ_EVERY steps
    for images, targets in bar:
        with run.autocast():
            loss, right = loss_fn(trained, images, targets)
        state.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        state.optimizer.step()
        update_moving_average(state.ema, state.model, options.ema_decay, updates)
        updates += 1
        so_far.steps += 1
        if losses.add(loss, right, len(images)):
            bar.set_postfix(loss=f"{so_far.loss / so_far.seen:.4f}", acc=f"{so_far.correct / so_far.seen:.4f}")
        if options.dry_run or run.stop_signal():
            break
    losses.read()


def save_unfinished_epoch(run: Run, state: TrainingState, so_far: UnfinishedEpoch) -> None:
    """The checkpoint of an epoch stopped after ``so_far.steps`` steps: the network, its moving
    average and Adam as they are, the steps' sums over every process, and each process's random
    state, so that --resume goes on with the next step as the run would have."""
    loss, correct, seen = run.processes.sum(so_far.loss, so_far.correct, so_far.seen, device=run.device)
    state.partial = replace(
        so_far, loss=loss, correct=correct, seen=seen, rng=run.processes.gather(rng_state(run.device))
    )
    if run.processes.is_rank_0:
        state.save(run.checkpoint)


def final_read(run: Run, data: RunData, state: TrainingState) -> int:
    """The chosen weights read once on the test set (rank 0); metrics.json and the model card
    written beside them, and the folder pushed to the Hub where asked.

    Raises:
        UsageError: the out folder does not hold the weights this run chose, or they cannot be loaded.
    """
    options, out = run.options, Path(state.out)
    if options.dry_run:
        return 0
    if options.init_from and not state.saved_any:
        if run.processes.is_rank_0:
            print(f"no epoch beat the starting weights ({state.best_accuracy:.4%}); nothing written to {out}/")
        return 0
    if not run.processes.is_rank_0:
        return 0
    if state.weights_sha256 and not state.holds_its_weights():
        raise UsageError(
            f"{out}/ does not hold the weights this run chose (epoch {state.best_epoch}): "
            "give --out the folder it wrote them to; nothing was written"
        )
    try:
        chosen = load_model(out, NETWORKS[options.model]).to(run.device)
    except WeightsError as error:
        raise UsageError(f"the chosen weights: {error}") from None
    try:
        reads = read_test_sets(run, data, chosen)
    except Interrupted as stop:
        record_stop(run, data, state, chosen, f"{stop}; --resume reads it")
        raise
    write_record(out, run_record(run, data).now(state, chosen, "finished", reads.accuracy, reads.written))
    chosen_by = (
        (
            f"validation examples read exactly {state.best_accuracy:.4%}"
            if data.counted
            else f"validation accuracy {state.best_accuracy:.4%}"
        )
        if data.validation
        else "the last"
    )
    print(
        f"epoch {state.best_epoch} chosen ({chosen_by}); test "
        f"{'pairs with both digits right' if options.task == 'pairs' else 'accuracy'} {reads.accuracy:.4%}"
        + ("" if reads.written is None else f", test examples as people write them read right {reads.written:.4%}")
        + f"; model in {out}/"
    )
    write_model_card(
        out, options.model, options.data_dir, repo=options.push_to_hub, device=run.device, misread=reads.misread
    )
    print(f"the page serves it with: {SERVED_BY[options.model, options.task][0]}={out} python app.py")
    run.signals.close()  # from here, Ctrl-C stops the upload at once
    if run.signals.received and options.push_to_hub:
        print(
            f"train.py: stopped by {signal.Signals(run.signals.received).name} before the upload to the Hub; "
            f"the run is written in {out}/",
            file=sys.stderr,
        )
        return 128 + run.signals.received
    return push(out, options.push_to_hub) if options.push_to_hub else 0


def parse_args(argv: list[str] | None = None) -> RunOptions:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
        "--data-dir", default="./data", help="where torchvision's MNIST lives or is downloaded to (default: ./data)"
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
        default="checkpoints/last.pt",
        help="the checkpoint written after every epoch (default: checkpoints/last.pt)",
    )
    p.add_argument("--resume", action="store_true", help="continue from --checkpoint exactly where it stopped")
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
        "--dry-run", action="store_true", help="one batch, one epoch, nothing saved: a quick check that everything runs"
    )
    p.add_argument(
        "--push-to-hub",
        metavar="REPO_ID",
        default=None,
        help="upload the out folder to this Hugging Face repo at the end",
    )
    return RunOptions(**vars(p.parse_args(argv)))


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


if __name__ == "__main__":
    sys.exit(main())
