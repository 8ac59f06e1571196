"""What is random in a run, drawn so that a resumed run draws what an uninterrupted one drew: each
epoch's seed, and a process's random state kept in the checkpoint of an unfinished epoch."""

import torch


def epoch_seed(seed: int, epoch: int, rank: int = 0) -> int:
    """The seed of everything random in an epoch but the shuffle (dropout, RandomCrop, the
    on-device shifts, the pairs and written examples): a resumed run draws what an uninterrupted
    one drew. (Not RandomCrop with --device-data off on CUDA: the DataLoader's persistent worker
    processes seed themselves once, when they start.)"""
    return seed * 1_000_003 + epoch * 1_009 + rank


def rng_state(device: torch.device) -> torch.Tensor:
    """This process's random state (dropout draws from it): the CPU's, and the GPU's on CUDA."""
    cpu = torch.get_rng_state()
    return torch.cat([cpu, torch.cuda.get_rng_state(device)]) if device.type == "cuda" else cpu


def set_rng_state(state: torch.Tensor, device: torch.device) -> None:
    """This process's random state as ``rng_state`` gave it."""
    cpu = len(torch.get_rng_state())
    torch.set_rng_state(state[:cpu])
    if device.type == "cuda":
        torch.cuda.set_rng_state(state[cpu:], device)
