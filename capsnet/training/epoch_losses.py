"""An epoch's training losses, kept on the device and read back READ_EVERY steps at a time: each
read waits for the GPU to finish every step queued before it, and one a step would idle the GPU
while Python queues the next. A non-finite loss is still named by its step, and stops every
process after the same read; the steps after it up to the read change only weights that are then
thrown away (nothing of the epoch is saved)."""

import itertools
import math

import torch

from capsnet.training.processes import Processes
from capsnet.training.state import UnfinishedEpoch

READ_EVERY = 50  # training steps between reads of their losses back from the device


class NonFiniteLossError(RuntimeError):
    """The loss became NaN or infinite: training stops and the best weights so far are kept."""


class UnreadLosses:
    """The (loss, images read right, images) of each step since the last read, the first two on
    the device, added to ``so_far`` when read."""

    def __init__(self, so_far: UnfinishedEpoch, processes: Processes):
        self.so_far, self.processes, self.unread = so_far, processes, []

    def add(self, loss: torch.Tensor, right: torch.Tensor, images: int) -> bool:
        """The step ``so_far.steps`` just done; whether this read the steps back (every READ_EVERY)."""
        self.unread.append((loss.detach(), right, images))
        if len(self.unread) < READ_EVERY:
            return False
        self.read()
        return True

    def read(self) -> None:
        """Add the unread steps' losses and readings to ``so_far``: one wait for the device.

        Raises:
            NonFiniteLossError: the loss became NaN or infinite in some process (in every process alike).
        """
        if not self.unread:
            return
        so_far, processes = self.so_far, self.processes
        losses = torch.stack([loss for loss, _, _ in self.unread]).tolist()
        rights = torch.stack([right for _, right, _ in self.unread]).tolist()
        first_step = so_far.steps - len(self.unread) + 1
        found = next(
            ((step, value) for step, value in zip(itertools.count(first_step), losses) if not math.isfinite(value)),
            None,
        )
        if first := processes.first_non_finite(found):
            step, value, rank = first
            where = f" in process {rank} of {processes.world}" if processes.world > 1 else ""
            raise NonFiniteLossError(f"epoch {so_far.epoch}, step {step}: the loss became {value}{where}")
        for value, right, (_, _, size) in zip(losses, rights, self.unread, strict=True):
            so_far.loss += value * size
            so_far.correct += right
            so_far.seen += size
        self.unread.clear()
