"""Where a run begins: from the checkpoint --resume names, exactly where its run stopped, or with
--init-from weights whose validation figure is the one to beat."""

from capsnet.training.options import UsageError
from capsnet.training.run import Run
from capsnet.training.sharded_data import RunData
from capsnet.training.state import TrainingState


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
