"""A train.py run as its steps share it: its options, the command line that gave them, its process
among torchrun's, its device, bf16 autocast, the signals that stop it, and its folder, which holds
its checkpoint."""

import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn as nn
from tqdm import tqdm

from capsnet.data.written import SINGLE_SHARE
from capsnet.training.options import RunOptions, UsageError
from capsnet.training.processes import Processes
from capsnet.training.sharded_data import RunData
from capsnet.training.signals import StopSignals
from capsnet.training.state import CHECKPOINT_FILE
from capsnet.training.validation import ValidationRead, validation_read


@dataclass
class Run:
    """A run's options, the command line that gave them, its process among torchrun's, its device and its folder."""

    options: RunOptions
    argv: list[str]
    processes: Processes
    device: torch.device
    bf16: bool  # bf16 autocast
    signals: StopSignals  # what stops the epochs and the final read
    folder: str  # run_folder's: where the run writes, and its checkpoint lies unless --checkpoint names another
    wrote_weights: bool = False  # whether this process has written weights to the out folder

    @property
    def checkpoint(self) -> Path:
        """--checkpoint, else last.pt in the run's folder."""
        return Path(self.options.checkpoint or Path(self.folder) / CHECKPOINT_FILE)

    @property
    def single_share(self) -> float:
        """The share of the written training examples that hold one digit alone: --single-share, or
        the examples' own."""
        return SINGLE_SHARE if self.options.single_share is None else self.options.single_share

    def autocast(self):
        """The context of a training step: bf16 autocast, or nothing."""
        return torch.autocast(self.device.type, dtype=torch.bfloat16) if self.bf16 else nullcontext()

    def stop_signal(self) -> int:
        """The signal that asked a process of the run to stop, 0 if none: the same in every process."""
        return self.processes.max(self.signals.received or 0)

    def progress_bar(self, steps, description: str, **options) -> tqdm:
        """``steps`` with a progress bar that rank 0 shows on stdout while they run."""
        return tqdm(
            steps, desc=description, leave=False, file=sys.stdout, disable=not self.processes.is_rank_0, **options
        )

    def read_validation(self, model: nn.Module, data: RunData) -> ValidationRead:
        """``model`` on every process's share of the held-out images (capsnet.training.validation)."""
        return validation_read(
            model,
            self.progress_bar(data.validation, "validation", delay=2),
            data.counted,
            data.right,
            self.processes,
            self.device,
        )


def run_folder(options: RunOptions, processes: Processes) -> str:
    """The folder a run writes to: --out; with --resume and no --checkpoint, the newest
    runs/MODEL-TASK-DATE of its network and task that holds a checkpoint; else a new one, dated the
    second the run began in UTC (the latest of every process's, so the same in each).

    Raises:
        UsageError: --resume finds no such folder.
    """
    if options.out:
        return options.out
    named = f"runs/{options.model}-{options.task}-"
    if options.resume and not options.checkpoint:
        held = sorted(Path().glob(f"{named}????????-??????/{CHECKPOINT_FILE}"))
        if not held:
            raise UsageError(
                f"no checkpoint at {named}DATE/{CHECKPOINT_FILE}: start without --resume, or give --out "
                "the folder of the run to resume"
            )
        return str(held[-1].parent)
    return named + time.strftime("%Y%m%d-%H%M%S", time.gmtime(processes.max(int(time.time()))))
