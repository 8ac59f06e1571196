"""A train.py run as its steps share it: its options, the command line that gave them, its process
among torchrun's, its device, bf16 autocast and the signals that stop it; and the one-line error
of flags (or a checkpoint) it cannot go on with."""

import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn as nn
from tqdm import tqdm

from capsnet.data.written import SINGLE_SHARE
from capsnet.training.options import RunOptions
from capsnet.training.processes import Processes
from capsnet.training.sharded_data import RunData
from capsnet.training.signals import StopSignals
from capsnet.training.validation import ValidationRead, validation_read


class UsageError(Exception):
    """What the flags, or the checkpoint --resume reads, ask for cannot be done: one line, exit 2."""


@dataclass
class Run:
    """A run's options, the command line that gave them, its process among torchrun's and its device."""

    options: RunOptions
    argv: list[str]
    processes: Processes
    device: torch.device
    bf16: bool  # bf16 autocast
    signals: StopSignals  # what stops the epochs and the final read
    wrote_weights: bool = False  # whether this process has written weights to the out folder

    @property
    def checkpoint(self) -> Path:
        return Path(self.options.checkpoint)

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

    def new_out_folder(self) -> str:
        """runs/MODEL-TASK-DATE, the folder of a run given no --out: the second it began, in UTC (the
        latest of every process's, so the same in each)."""
        began = time.gmtime(self.processes.max(int(time.time())))
        return f"runs/{self.options.model}-{self.options.task}-{time.strftime('%Y%m%d-%H%M%S', began)}"
