"""Where a train.py process stands among torchrun's, what the processes agree on, and the device
it trains on (and whether in bf16)."""

import math
import os
from dataclasses import dataclass, replace

import torch
import torch.distributed as dist


class DeviceError(RuntimeError):
    """The device asked for is not there, or a process has no GPU of its own."""


@dataclass(frozen=True)
class Processes:
    """Where this process stands among torchrun's: rank 0 of 1 for plain `python train.py`."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0
    host: dist.ProcessGroup | None = None  # every process, over gloo: agreements on the host, no wait for a GPU

    @property
    def is_rank_0(self) -> bool:
        """Rank 0 alone writes checkpoints, weights and metrics, and prints."""
        return self.rank == 0

    def sum(self, *values: float, device: torch.device) -> list[float]:
        """Each value summed over the processes (all_reduce); the values themselves in one process."""
        if self.world == 1:
            return list(values)
        total = torch.tensor(values, dtype=torch.float64, device=device)
        dist.all_reduce(total)
        return total.tolist()

    def barrier(self) -> None:
        """Wait until every process is here."""
        if self.world > 1:
            dist.barrier(group=self.host)

    def max(self, value: int) -> int:
        """The largest of every process's ``value``: the same answer in each."""
        if self.world == 1:
            return value
        largest = torch.tensor([value], dtype=torch.int64)
        dist.all_reduce(largest, op=dist.ReduceOp.MAX, group=self.host)
        return int(largest.item())

    def gather(self, tensor: torch.Tensor) -> list[torch.Tensor]:
        """Every process's ``tensor`` (on the CPU, of one shape in all), by rank."""
        if self.world == 1:
            return [tensor]
        every = [torch.empty_like(tensor) for _ in range(self.world)]
        dist.all_gather(every, tensor, group=self.host)
        return every

    def first_non_finite(self, found: tuple[int, float] | None) -> tuple[int, float, int] | None:
        """The first non-finite loss of any process, from each process's own first (step, loss)
        or None: (step, loss, rank), or None where there is none; the same answer in each process,
        so that all stop together (one that stopped alone would leave the others waiting in the
        next all-reduce)."""
        every = self.gather(torch.tensor(found or (math.inf, 0.0), dtype=torch.float64))
        step, rank = min((float(losses[0]), rank) for rank, losses in enumerate(every))
        return None if step == math.inf else (int(step), float(every[rank][1]), rank)


def torchrun_processes() -> Processes:
    """Where torchrun placed this process (its environment); rank 0 of 1 without torchrun."""
    if "RANK" not in os.environ:
        return Processes()
    return Processes(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ["LOCAL_RANK"]))


def join_processes(processes: Processes, device: torch.device) -> Processes:
    """Join torchrun's process group where there are several processes (nccl on CUDA, gloo else),
    and a gloo group of them all for what they agree on on the host."""
    if processes.world == 1:
        return processes
    if device.type == "cuda":
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    return replace(processes, host=dist.new_group(backend="gloo"))


def pick_device(name: str, local_rank: int = 0) -> torch.device:
    """The device of --device (auto: CUDA, then MPS, then the CPU). Under torchrun, the GPU of the
    process's LOCAL_RANK where each process sees every GPU of its machine, and the one GPU it sees
    where it sees one (CUDA_VISIBLE_DEVICES set per process).

    Raises:
        DeviceError: the device is not there, or fewer GPUs than processes are.
    """
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise DeviceError("--device cuda: no CUDA GPU is visible to PyTorch")
    if name == "mps" and not torch.backends.mps.is_available():
        raise DeviceError("--device mps: MPS is not available on this machine")
    if name != "cuda":
        return torch.device(name)
    visible = torch.cuda.device_count()
    if visible == 1:
        return torch.device("cuda", 0)
    if local_rank >= visible:
        raise DeviceError(
            f"process {local_rank} of this machine (LOCAL_RANK) has no GPU of its own: it sees "
            f"{visible}; start at most {visible} processes a machine (--nproc_per_node)"
        )
    return torch.device("cuda", local_rank)


def use_bf16(amp: str, device: torch.device) -> bool:
    """bf16 autocast where the hardware computes in bf16 natively; emulated bf16 is slower than fp32."""
    if amp != "auto":
        return amp == "bf16"
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported(including_emulation=False)  # Ampere and later
    if device.type == "cpu":
        return torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()
    return False
