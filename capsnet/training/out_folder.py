"""What a run writes to its out folder as it goes: the best weights so far with their metrics.json,
the record of a stop or of the end (`record_run`), and, after a stop, what the folder and the
checkpoint hold."""

from pathlib import Path

import torch.nn as nn

from capsnet.shipping.metrics_file import write_record
from capsnet.shipping.pretrained import WEIGHTS_FILE
from capsnet.shipping.saving import atomic_save_pretrained, sha256
from capsnet.training.run import Run
from capsnet.training.run_record import run_record
from capsnet.training.sharded_data import RunData
from capsnet.training.state import TrainingState


def keep_if_best(run: Run, data: RunData, state: TrainingState, figure: float | None) -> None:
    """Save the moving average to the out folder where its validation ``figure`` (ValidationRead's:
    read right, or written examples read exactly) beats every epoch's before (every epoch without a
    validation split), with a metrics.json that says so: the run so far, the test set not read yet
    (a run killed before its end leaves it so)."""
    if figure is None or figure > state.best_accuracy:
        state.best_accuracy = -1.0 if figure is None else figure
        state.best_epoch, state.saved_any, run.wrote_weights = state.epoch, True, True
        if run.processes.is_rank_0:
            atomic_save_pretrained(state.ema.module, state.out)
            state.weights_sha256 = sha256(Path(state.out) / WEIGHTS_FILE)
            record_run(run, data, state, state.ema.module, "training: the test set is read when the run ends")


def record_stop(run: Run, data: RunData, state: TrainingState, weights: nn.Module, status: str) -> None:
    """A run that stops before its end: where this process wrote the weights in the out folder,
    their metrics.json says how it stopped (``status``), without a test figure."""
    if run.wrote_weights and run.processes.is_rank_0:
        record_run(run, data, state, weights, status)


def record_run(
    run: Run,
    data: RunData,
    state: TrainingState,
    weights: nn.Module,
    status: str,
    test_accuracy: float | None = None,
    written_test: float | None = None,
) -> None:
    """The run's metrics.json in its out folder, as the run stands (`run_record`)."""
    write_record(Path(state.out), run_record(run, data, state, weights, status, test_accuracy, written_test))


def what_is_kept(run: Run, state: TrainingState) -> str:
    """After a stop, what the out folder and the checkpoint hold."""
    options, out = run.options, state.out
    if state.best_epoch is not None:
        weights = f"The best weights so far (epoch {state.best_epoch}) are kept in {out}/"
    elif options.init_from and state.history:
        weights = f"No epoch beat the starting weights, so nothing was written to {out}/"
    elif not options.resume and state.epoch < options.start_epoch and state.partial is None:
        return "No epoch finished, so nothing was saved."
    else:
        weights = f"No weights were written to {out}/"
    where = f"step {state.partial.steps} of epoch {state.partial.epoch}" if state.partial else f"epoch {state.epoch}"
    return f"{weights}; {run.checkpoint} holds the run after {where}, where --resume goes on."
