"""Where a run begins: a new run's state (the network initialised from --seed or loaded from
--init-from, its moving average, Adam and the schedule), then the checkpoint --resume names, exactly
where its run stopped, or the --init-from weights' validation figure as the one to beat."""

from dataclasses import replace

import torch
from torch.optim.swa_utils import AveragedModel

from capsnet import CapsNet, WeightsError, load_model
from capsnet.shipping.pretrained import CONFIGS, NETWORKS
from capsnet.training.options import UsageError
from capsnet.training.run import Run
from capsnet.training.run_record import earlier_record
from capsnet.training.sharded_data import RunData
from capsnet.training.state import TrainingState


def new_state(run: Run) -> TrainingState:
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
        out=run.folder,
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


def resume_or_begin(run: Run, data: RunData, state: TrainingState) -> None:
    """With --resume, ``state`` as the checkpoint holds it, writing to its folder (or --out); with
    --init-from, the starting weights' validation figure as the one to beat.

    Raises:
        UsageError: the checkpoint is missing, unreadable, written by other code, made by another
            recipe or network, or its folder holds other weights than its run chose.
    """
    options = run.options
    if not options.resume:
        if options.init_from and data.validation is not None:  # the starting weights are the ones to beat
            start = run.read_validation(state.model, data)
            state.best_accuracy = start.figure
            if run.processes.is_rank_0:
                print(f"starting from {options.init_from}: {start.in_words()}, the figure to beat")
        return
    try:
        state.restore(run.checkpoint)
    except RuntimeError as error:
        raise UsageError(error) from None
    if state.partial and len(state.partial.rng) != run.processes.world:
        raise UsageError(
            f"checkpoint {run.checkpoint} stopped in epoch {state.partial.epoch} under "
            f"{len(state.partial.rng)} process(es), this run has {run.processes.world}: resume it "
            f"under {len(state.partial.rng)}"
        )
    if options.out or not options.checkpoint:  # else the folder the checkpoint names
        state.out = run.folder  # --out, or the folder the checkpoint lies in
    if state.holds_its_weights() is False and not (options.overwrite or options.dry_run):
        raise UsageError(
            f"{state.out}/ does not hold the weights this run chose but another run's: give --out "
            "the folder it wrote them to, or --overwrite to replace them"
        )
    if run.processes.is_rank_0:
        print(
            f"resumed from {run.checkpoint} after "
            + (
                f"step {state.partial.steps} of epoch {state.partial.epoch}"
                if state.partial
                else f"epoch {state.epoch}"
            )
        )
