"""This run's metrics.json record (its format: capsnet.shipping.metrics_file): what the run was
asked (`asked`), where it stands after an epoch or at its end (`run_record`), the record of the run
its --init-from weights came from (`earlier_record`), and its command as anyone can repeat it."""

import datetime
import json
import shlex
from dataclasses import replace
from pathlib import Path

import torch
import torch.nn as nn

from capsnet.shipping.metrics_file import FILE, RunRecord
from capsnet.training.run import Run
from capsnet.training.sharded_data import RunData
from capsnet.training.state import TrainingState

PATH_FLAGS = {"--data-dir": "DATA", "--out": "OUT", "--checkpoint": "CHECKPOINT", "--init-from": "WEIGHTS"}


def run_record(
    run: Run,
    data: RunData,
    state: TrainingState,
    weights: nn.Module,
    status: str,
    test_accuracy: float | None = None,
    written_test: float | None = None,
) -> RunRecord:
    """This run's record as it stands: what it was asked, where ``state`` stands, the network of the
    ``weights`` it chose, ``status`` ("finished" with their ``test_accuracy`` and, trained on written
    examples, ``written_test``; or how far the run went), and the time."""
    chosen = next((epoch for epoch in state.history if epoch["epoch"] == state.best_epoch), {})
    return replace(
        asked(run, data),
        parameters=sum(p.numel() for p in weights.parameters()),
        status=status,
        mnist_test_accuracy=test_accuracy,
        pairs_test_both_right=test_accuracy,
        written_test_right=written_test,
        chosen_epoch=state.best_epoch,
        val_accuracy=chosen.get("val_accuracy"),
        val_read_exactly=chosen.get("val_read_exactly"),
        count_rule=chosen.get("val_count_rule"),
        epochs=state.history[-1]["epoch"] if state.history else 0,
        history=state.history,
        earlier=state.earlier,
        train_seconds=round(state.seconds + (state.partial.seconds if state.partial else 0), 1),
        date=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    )


def asked(run: Run, data: RunData) -> RunRecord:
    """What metrics.json says of the run before any progress: the network and task, the data, how the
    epoch is chosen, the machine and the command."""
    options, pairs = run.options, run.options.task == "pairs"
    read_best = (
        "read exactly (the count and the digits, counting with the rule chosen on them, "
        "capsnet.digit_count) the most of the examples as people write them of the"
        if data.counted
        else "read best the pairs of the"
        if pairs
        else "read best the"
    )
    test_ones = "the test pairs of MNIST's test set" if pairs else "MNIST's test set"
    return RunRecord(
        model=options.model,
        task=options.task,
        examples=options.examples,
        val_size=options.val_size,
        single_share=run.single_share,
        selection=(
            f"the epoch whose moving average {read_best} {options.val_size} training images "
            f"held out by seed {options.seed}; {test_ones} read once, at the end, on those weights"
            if data.validation
            else f"the last epoch (no validation split); {test_ones} read once, at the end"
        ),
        train_images=data.train_images,
        pairs_per_epoch=data.training.pairs_from_shard * run.processes.world if pairs else None,
        global_batch=options.batch_size,
        processes=run.processes.world,
        device=run.device.type,
        data_on_device=options.device_data == "on",
        bf16_autocast=run.bf16,
        torch_version=torch.__version__,
        command=portable_command(run.argv),
        init_from=options.init_from,
        start_epoch=options.start_epoch,
    )


def earlier_record(init_from: str | None, model: str, task: str) -> dict | None:
    """The metrics.json of the --init-from folder, as it is, where that run trained this network on
    this task (a run that goes on from it keeps it as "earlier"); None where there is none. Read
    when the run begins and kept in its checkpoint: with --out the same folder, the run replaces it."""
    if not init_from or not Path(init_from).is_dir():
        return None
    try:
        earlier = json.loads((Path(init_from) / FILE).read_text())
        record = RunRecord.of(earlier) if isinstance(earlier, dict) else None
    except (OSError, ValueError):  # no record, or none of this code's
        return None
    return earlier if record and record.model == model and record.task == task else None


def portable_command(argv: list[str]) -> str:
    """The command that ran, as anyone can repeat it: the flags that name a path of this machine
    (outside the working folder) say DATA, OUT, CHECKPOINT or WEIGHTS instead."""
    words, previous = [], None
    for word in argv:
        flag, equals, value = word.partition("=")
        if equals and flag in PATH_FLAGS and is_local_path(value):
            word = f"{flag}={PATH_FLAGS[flag]}"
        elif previous in PATH_FLAGS and is_local_path(word):
            word = PATH_FLAGS[previous]
        words.append(word)
        previous = word
    return shlex.join(["python", "train.py", *words])


def is_local_path(value: str) -> bool:
    """A path that depends on where the run was: absolute, or leaving the working folder."""
    return Path(value).is_absolute() or ".." in Path(value).parts
