"""Train the paper's CapsNet, or its CNN baseline, on MNIST.

    python train.py --data-dir DATA                       # the CapsNet; the epoch chosen on 5,000 held-out images
    python train.py --model cnn --data-dir DATA           # the paper's CNN baseline (pooled: docs/training.md)
    python train.py --resume                              # continue the newest run from last.pt in its folder
    python train.py --init-from weights --lr 2e-4         # train saved weights further
    python train.py --task pairs --init-from weights      # two overlapping digits
    torchrun --standalone --nproc_per_node=2 train.py ... # data-parallel over processes (and machines)

A run writes its chosen weights, metrics.json and model card to --out, by default a new folder
runs/MODEL-TASK-DATE, never over another run's weights (the shipped weights/ among them) unless
--overwrite says so; beside a CapsNet trained on digits, the names of its dimensions that the page's
sliders show (dimensions.json, unless --no-names). The page serves them with CAPSNET_WEIGHTS=OUT
python app.py (the CNN: CAPSNET_CNN_WEIGHTS; --task pairs: CAPSNET_PAIRS_WEIGHTS,
CAPSNET_PAIRS_CNN_WEIGHTS). MNIST is read from --data-dir, else $CAPSNET_DATA_DIR, else ./data.

--batch-size is the global batch: under torchrun each of the N processes takes batch-size / N
images of every step, a shard of the data of its own (DistributedSampler).

The recipe, how the epoch is chosen, resuming, the shipped runs and torchrun: docs/training.md;
two overlapping digits (--task pairs): docs/pairs.md.
"""

import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from capsnet import WeightsError, load_model
from capsnet.data.datasets import mnist, validation_split
from capsnet.data.pairs import pair_right
from capsnet.shipping.model_card import write_model_card
from capsnet.shipping.pretrained import NETWORKS, SERVED_BY
from capsnet.studies import dimension_names
from capsnet.training.epoch_losses import NonFiniteLossError, UnreadLosses
from capsnet.training.final_reads import read_test_sets
from capsnet.training.hub import push
from capsnet.training.losses import LOSSES
from capsnet.training.moving_average import update_moving_average
from capsnet.training.options import RunOptions, UsageError, check_flags, parse_options
from capsnet.training.out_folder import keep_if_best, record_run, record_stop, what_is_kept
from capsnet.training.processes import DeviceError, Processes, join_processes, pick_device, torchrun_processes, use_bf16
from capsnet.training.random_state import epoch_seed, rng_state, set_rng_state
from capsnet.training.resume import new_state, resume_or_begin
from capsnet.training.run import Run, run_folder
from capsnet.training.sharded_data import DRY_RUN_VAL_IMAGES, RunData, run_data
from capsnet.training.signals import Interrupted, StopSignals
from capsnet.training.state import TrainingState, UnfinishedEpoch
from capsnet.training.validation import validation_read


def main(argv: list[str] | None = None) -> int:
    options = parse_args(argv)
    try:
        return train(options, sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:  # Ctrl-C where the run does not stop by itself: the names, the upload to the Hub
        print("\ntrain.py: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def parse_args(argv: list[str] | None = None) -> RunOptions:
    """The command line, or ``argv``, as RunOptions (capsnet.training.options); --help begins with
    this module's docstring."""
    return parse_options(argv, __doc__)


def train(options: RunOptions, argv: list[str]) -> int:
    """One run, step by step: the flags checked, the device and torchrun's processes, the data,
    the network, the checkpoint resumed, the epochs, then the chosen weights read once on the test
    set and what is written beside them."""
    processes = torchrun_processes()
    try:
        check_flags(options, processes.world)
        run = set_up_run(options, processes, argv)
        data = load_data(run)
        state = new_state(run)
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
    """The run's device, torchrun's process group joined, whether it computes in bf16, and its folder.

    Raises:
        UsageError: the device of --device is not there, or --resume finds no run to go on with.
    """
    try:
        device = pick_device(options.device, processes.local_rank)
    except DeviceError as error:
        raise UsageError(error) from None
    processes = join_processes(processes, device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True  # the batches' sizes are fixed: cuDNN times its convolutions once
    bf16 = use_bf16(options.amp, device)
    return Run(options, argv, processes, device, bf16, StopSignals(), run_folder(options, processes))


def load_data(run: Run) -> RunData:
    """The training images (or pairs) of this process and its share of the held-out ones (a
    --dry-run's first few).

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
        val_indices[:DRY_RUN_VAL_IMAGES] if options.dry_run else val_indices,
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
    print(
        f"{options.model} on {options.task}: device {run.device}, bf16 autocast {'on' if run.bf16 else 'off'}, "
        f"data {options.data_source()}, {run.processes.world} process(es), global batch {options.batch_size}, "
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
    record_run(run, data, state, chosen, "finished", reads.accuracy, reads.written)
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
    naming = names_wanted(options, chosen.config.num_classes)
    run.signals.close()  # from here, Ctrl-C stops the naming and the upload at once
    if run.signals.received and (naming or options.push_to_hub):
        print(
            f"train.py: stopped by {signal.Signals(run.signals.received).name} before "
            f"{'the names' if naming else 'the upload to the Hub'}; the run is written in {out}/",
            file=sys.stderr,
        )
        return 128 + run.signals.received
    if naming:
        print(f"naming the sliders, what each dimension does (--no-names skips it); the run is written in {out}/")
        dimension_names.main(["--weights", str(out), "--data-dir", str(options.data_dir)])  # beside the weights
    print(f"the page serves it with: {SERVED_BY[options.model, options.task][0]}={out} python app.py")
    return push(out, options.push_to_hub) if options.push_to_hub else 0


def names_wanted(options: RunOptions, classes: int) -> bool:
    """Whether the run names the sliders of a CapsNet on digits (capsnet.studies.dimension_names): not
    with --no-names, nor where MNIST's test set lacks the digits of a class they are measured on."""
    needed = 2 * dimension_names.DIGITS_PER_CLASS  # of each class: half name the dimensions, half check them
    if options.no_names or (options.model, options.task) != ("capsnet", "digits"):
        return False
    if torch.bincount(mnist(options.data_dir, train=False).targets, minlength=classes).min() < needed:
        print(f"the sliders stay numbered: the names need {needed} test digits a class, {options.data_dir} has fewer")
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
