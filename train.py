"""Train the paper's CapsNet, or its CNN baseline, on MNIST.

    python train.py --data-dir DATA                       # the CapsNet; the epoch chosen on 5,000 held-out images
    python train.py --model cnn --out weights/cnn         # the paper's CNN baseline (pooled: docs/training.md)
    python train.py --resume                              # continue from checkpoints/last.pt
    python train.py --init-from weights --lr 2e-4         # train saved weights further
    python train.py --task pairs --init-from weights --out weights/pairs   # two overlapping digits
    torchrun --standalone --nproc_per_node=2 train.py ... # data-parallel over processes (and machines)

--batch-size is the global batch: under torchrun each of the N processes takes batch-size / N
images of every step, a shard of the data of its own (DistributedSampler).

The recipe, how the epoch is chosen, resuming, the shipped runs and torchrun: docs/training.md;
two overlapping digits (--task pairs): docs/pairs.md.
"""
import argparse
import datetime
import itertools
import json
import math
import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.optim.swa_utils import AveragedModel
from torch.utils.data import DataLoader, DistributedSampler, Subset
from huggingface_hub import HfApi
from tqdm import tqdm

from capsnet import CapsNet, WeightsError, capsule_loss, load_model
from capsnet.baseline import cross_entropy_loss, multi_label_loss
from capsnet.data.datasets import batches, mnist, random_offsets, shift, validation_split
from capsnet.data.pairs import TEST_SEED, RenderedBatches, digits_right, draw_pairs, fixed_pairs, pair_right
from capsnet.data.written import DigitSet, draw_examples, fixed_examples, render
from capsnet.evaluate import accuracy, correct_and_total, read_right
from capsnet.model_card import write_model_card
from capsnet.pretrained import CONFIGS, NETWORKS, WEIGHTS_FILE
from capsnet.saving import atomic_save_pretrained, atomic_torch_save, atomic_write_text, load_checkpoint
from capsnet.saving import sha256


RECIPE = ("model", "task", "examples", "pairs_per_epoch", "batch_size", "limit", "val_size", "lr", "lr_decay", "ema_decay", "seed", "dry_run",
          "init_from", "start_epoch", "device_data", "routing_iterations")  # what --resume must repeat
CHECKPOINT_KEYS = ("model", "ema", "optimizer", "schedule", "epoch", "best_accuracy", "seconds", "history")
CHECKPOINT_TYPES = {"epoch": int, "best_accuracy": (int, float), "seconds": (int, float), "history": list,
                    "recipe": dict, "best_epoch": (int, type(None)), "saved_any": bool, "earlier": (dict, type(None)),
                    "weights_sha256": (str, type(None)), "partial": (dict, type(None))}   # older ones lack the last six
PARTIAL_KEYS = {"epoch", "steps", "loss", "correct", "seen", "seconds", "rng"}   # an interrupted epoch's
PATH_FLAGS = {"--data-dir": "DATA", "--out": "OUT", "--checkpoint": "CHECKPOINT", "--init-from": "WEIGHTS"}
EVAL_BATCH = 500
READ_EVERY = 50     # training steps between reads of their losses back from the device
# On CUDA, the processes that render the pairs: the cores this process may run on (as taskset or a
# container allows, where the system says; macOS does not), less two left to it, 12 at most.
USABLE_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 2
PAIR_WORKERS = max(1, min(12, USABLE_CORES - 2))


class NonFiniteLossError(RuntimeError):
    """The loss became NaN or infinite: training stops and the best weights so far are kept."""


class Interrupted(Exception):
    """A signal (``signum``) stopped the run where it can go on from."""

    def __init__(self, signum: int, where: str):
        super().__init__(f"stopped by {signal.Signals(signum).name} {where}")
        self.signum = signum


class StopSignals:
    """SIGINT (Ctrl-C) and SIGTERM (torchrun, a scheduler) while a run trains and reads the test
    set (``with``): the first is recorded (``received``), and the run stops where it can go on
    from, after the step it is in (train_epochs), or before the next batch of the test set; later
    ones change nothing. Python delivers signals to its main thread only: a run started from
    another thread keeps the handlers as they are."""

    def __init__(self):
        self.received: int | None = None
        self.previous = {}

    def __enter__(self) -> "StopSignals":
        if threading.current_thread() is threading.main_thread():
            self.previous = {signum: signal.signal(signum, self.record) for signum in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exception) -> None:
        self.close()

    def record(self, signum: int, frame) -> None:
        if self.received is None:
            self.received = signum

    def close(self) -> None:
        """The signals' handlers back as they were."""
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        self.previous = {}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", choices=sorted(NETWORKS), default="capsnet",
                   help="capsnet: the paper's CapsNet; cnn: its CNN baseline (default: capsnet)")
    p.add_argument("--task", choices=["digits", "pairs"], default="digits",
                   help="digits: MNIST, one digit an image; pairs: two overlapping digits of different classes "
                        "(the paper's MultiMNIST, made on the fly: capsnet/data/pairs.py), one pair for each training "
                        "digit an epoch, the epoch chosen on pairs of the held-out digits, the test pairs of "
                        "MNIST's test digits read once (default: digits)")
    p.add_argument("--examples", choices=["written", "mnist-pairs"], default="written",
                   help="--task pairs: written: examples as people write them (capsnet/data/written.py: one digit or "
                        "two, each turned, slanted, scaled and stretched, in MNIST's ink or redrawn with a pen of "
                        "random width), the epoch chosen on such examples of the held-out digits; mnist-pairs: "
                        "the paper's MultiMNIST pairs alone (capsnet/data/pairs.py) (default: written)")
    p.add_argument("--pairs-per-epoch", type=int, default=None,
                   help="--task pairs: pairs in an epoch, their first digits a fresh random choice of the training "
                        "digits each epoch; shorter epochs checkpoint, validate and decay the learning rate more "
                        "often (default: one pair for each training digit)")
    p.add_argument("--data-dir", default="./data", help="where torchvision's MNIST lives or is downloaded to (default: ./data)")
    p.add_argument("--out", default="weights", help="folder for the best model and metrics.json (default: weights)")
    p.add_argument("--checkpoint", default="checkpoints/last.pt", help="the checkpoint written after every epoch (default: checkpoints/last.pt)")
    p.add_argument("--resume", action="store_true", help="continue from --checkpoint exactly where it stopped")
    p.add_argument("--init-from", metavar="WEIGHTS", default=None,
                   help="start from these weights (a save_pretrained folder or Hub repo id) instead of a random "
                        "initialisation; the optimiser and the schedule start afresh (default: random)")
    p.add_argument("--routing-iterations", type=int, default=None, metavar="R",
                   help="the CapsNet: train with R iterations of routing (Procedure 1), also from --init-from weights "
                        "that routed with another R; saved in its config.json (default: the weights' own, 3 for a "
                        "new network, the paper's)")
    p.add_argument("--epochs", type=int, default=14,
                   help="number of epochs in all, resumed ones and those before --start-epoch included (default: 14)")
    p.add_argument("--start-epoch", type=int, default=1,
                   help="number this run's first epoch N: its pairs, shifts and dropout are epoch N's, so that a run "
                        "that goes on from the weights of an earlier one (--init-from) whose last epoch was N-1 sees "
                        "new ones, as one long run would (default: 1)")
    p.add_argument("--batch-size", type=int, default=64,
                   help="images per step in all, the global batch: under torchrun each of N processes takes "
                        "batch-size / N of them (default: 64)")
    p.add_argument("--val-size", type=int, default=5000,
                   help="training images held out to choose the epoch on, the same ones for a given --seed; the "
                        "test set is evaluated once, at the end, on the chosen weights. 0: train on all 60,000 and "
                        "keep the last epoch (default: 5000)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's initial learning rate (default: 1e-3)")
    p.add_argument("--lr-decay", type=float, default=0.85, help="exponential decay of the learning rate per epoch (default: 0.85)")
    p.add_argument("--ema-decay", type=float, default=0.999, help="decay of the weights' moving average that is evaluated and saved (default: 0.999)")
    p.add_argument("--seed", type=int, default=1, help="random seed, 0 to 2^32 - 1 (default: 1)")
    p.add_argument("--device", choices=["auto", "cuda", "mps", "cpu"], default="auto", help="auto: cuda, then mps, then cpu (default: auto)")
    p.add_argument("--amp", choices=["auto", "bf16", "off"], default="auto",
                   help="bf16 autocast; auto: where the GPU or CPU computes bf16 natively (Ampere and later, "
                        "AVX512-BF16/AMX), not emulated (default: auto)")
    p.add_argument("--limit", type=int, default=None,
                   help="train on the first N training images (after the validation split) only (default: all)")
    p.add_argument("--device-data", choices=["on", "off"], default="on",
                   help="on: MNIST kept as tensors on the training device, shifted per batch by tensor operations "
                        "(what a GPU needs; on these CPUs as fast as the DataLoader or faster); off: a DataLoader "
                        "over torchvision's PIL transforms; pairs are always made on the CPU (default: on)")
    p.add_argument("--max-minutes", type=float, default=None, help="stop cleanly at the last epoch boundary that fits in this budget (default: none)")
    p.add_argument("--dry-run", action="store_true", help="one batch, one epoch, nothing saved: a quick check that everything runs")
    p.add_argument("--push-to-hub", metavar="REPO_ID", default=None, help="upload the best model to this Hugging Face repo at the end")
    return p.parse_args(argv)


@dataclass(frozen=True)
class Processes:
    """Where this process stands among torchrun's: rank 0 of 1 for plain `python train.py`."""
    rank: int = 0
    world: int = 1
    local_rank: int = 0
    host: dist.ProcessGroup | None = None   # every process, over gloo: agreements on the host, no wait for a GPU

    @property
    def leader(self) -> bool:
        """Rank 0 alone writes checkpoints, weights and metrics, and shows the progress bar."""
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


class UsageError(Exception):
    """What the flags, or the checkpoint --resume reads, ask for cannot be done: one line, exit 2."""


def pick_device(name: str, local_rank: int = 0) -> torch.device:
    """The device of --device (auto: CUDA, then MPS, then the CPU). Under torchrun, the GPU of the
    process's LOCAL_RANK where each process sees every GPU of its machine, and the one GPU it sees
    where it sees one (CUDA_VISIBLE_DEVICES set per process).

    Raises:
        UsageError: the device is not there, or fewer GPUs than processes are.
    """
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA GPU is visible to PyTorch")
    if name == "mps" and not torch.backends.mps.is_available():
        raise UsageError("--device mps: MPS is not available on this machine")
    if name != "cuda":
        return torch.device(name)
    visible = torch.cuda.device_count()
    if visible == 1:
        return torch.device("cuda", 0)
    if local_rank >= visible:
        raise UsageError(f"process {local_rank} of this machine (LOCAL_RANK) has no GPU of its own: it sees "
                         f"{visible}; start at most {visible} processes a machine (--nproc_per_node)")
    return torch.device("cuda", local_rank)


def use_bf16(amp: str, device: torch.device) -> bool:
    """bf16 autocast where the hardware computes in bf16 natively; emulated bf16 is slower than fp32."""
    if amp != "auto":
        return amp == "bf16"
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported(including_emulation=False)   # Ampere and later
    if device.type == "cpu":
        return torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()
    return False


def capsnet_loss(model, images, labels):
    """The CapsNet's loss with the decoder masked by the labels (eq. 4 plus 0.0005 x the
    reconstruction error), and how many images it read right."""
    out = model(images, labels)
    return capsule_loss(out, images, labels), read_right(out, labels).sum()


def cnn_loss(model, images, labels):
    """The baseline's softmax cross entropy, and how many images it read right."""
    out = model(images)
    return cross_entropy_loss(out, labels), read_right(out, labels).sum()


def capsnet_pairs_loss(model, images, targets):
    """Two overlapping digits: the margin loss with both present, each digit redrawn from its own
    capsule against that digit alone (section 6); and how many it read right (`digits_right`: a
    single digit d, given as (d, d), is one digit present)."""
    labels, digits = targets                             # [b, 2], [b, 2, 1, 28, 28]
    out = model(images, labels)
    return capsule_loss(out, digits, labels), digits_right(out, labels).sum()


def cnn_pairs_loss(model, images, targets):
    """Two overlapping digits: ten sigmoids' cross entropy; and how many it read right."""
    labels, _ = targets
    out = model(images)
    return multi_label_loss(out, labels), digits_right(out, labels).sum()


LOSSES = {("capsnet", "digits"): capsnet_loss, ("cnn", "digits"): cnn_loss,
          ("capsnet", "pairs"): capsnet_pairs_loss, ("cnn", "pairs"): cnn_pairs_loss}
RIGHT = {"digits": read_right, "pairs": digits_right}   # what reading an image right means


class TrainingData:
    """The training images of one epoch, this process's shard, in batches of this process's share.

    Either MNIST as tensors on the training device, shifted per batch with tensor operations
    (``on_device``), or a DataLoader over torchvision's RandomCrop. Both shuffle with
    DistributedSampler from the seed and the epoch; the on-device shifts are drawn from the seed
    and the epoch for the whole training set, so each image gets the same shift whatever the
    number of processes.
    """

    def __init__(self, data_dir: str, indices: torch.Tensor, batch_size: int, seed: int,
                 processes: Processes, device: torch.device, on_device: bool):
        self.seed, self.device, self.on_device, self.batch_size = seed, device, on_device, batch_size
        self.sampler = DistributedSampler(range(len(indices)), num_replicas=processes.world,
                                          rank=processes.rank, shuffle=True, seed=seed)
        if on_device:
            full = mnist(data_dir, train=True)
            # In [0, 1] as ToTensor makes them, here on the CPU: CUDA divides by a number as a
            # multiplication by its reciprocal, one ulp off for some pixels.
            self.images = (full.data[indices].float() / 255).to(device)   # [N, 28, 28]
            self.labels = full.targets[indices].to(device)    # int64 [N]
        else:
            self.loader = batches(Subset(mnist(data_dir, train=True, augment=True), indices.tolist()), batch_size,
                                  sampler=self.sampler, device=device)

    def __len__(self) -> int:
        """Steps per epoch."""
        return -(-len(self.sampler) // self.batch_size)

    def epoch(self, epoch: int):
        """(images [b, 1, 28, 28] in [0, 1], labels [b]) on the device for each step of ``epoch``."""
        self.sampler.set_epoch(epoch)
        if not self.on_device:
            for images, labels in self.loader:
                yield images.to(self.device, non_blocking=True), labels.to(self.device, non_blocking=True)
            return
        offsets = random_offsets(len(self.images), torch.Generator().manual_seed(epoch_seed(self.seed, epoch)))
        offsets = offsets.to(self.device)
        order = torch.tensor(list(self.sampler), device=self.device)
        for batch in order.split(self.batch_size):
            yield shift(self.images[batch].unsqueeze(1), offsets[batch]), self.labels[batch]


class PairTrainingData:
    """The overlapping pairs of one epoch, this process's shard, in batches of this process's
    share: each training digit comes first in one pair, its partner (of another class) and both
    digits' shifts drawn from the seed and the epoch, so that 1 and N processes, and a resumed run,
    see the same pairs. They are made on the CPU (capsnet.data.pairs.render), on CUDA by PAIR_WORKERS
    worker processes while the GPU trains, and moved to the device."""

    def __init__(self, data_dir: str, indices: torch.Tensor, batch_size: int, seed: int,
                 processes: Processes, device: torch.device, pairs_per_epoch: int | None = None):
        self.seed, self.device, self.batch_size = seed, device, batch_size
        self.sampler = DistributedSampler(range(len(indices)), num_replicas=processes.world,
                                          rank=processes.rank, shuffle=True, seed=seed)
        self.pairs_from_shard = len(self.sampler) if pairs_per_epoch is None else \
            min(len(self.sampler), -(-pairs_per_epoch // processes.world))   # this process's pairs an epoch
        full = mnist(data_dir, train=True)
        self.images, self.labels = full.data[indices], full.targets[indices]   # uint8 [N, 28, 28], [N]

    def __len__(self) -> int:
        """Steps per epoch."""
        return -(-self.pairs_from_shard // self.batch_size)

    def epoch(self, epoch: int):
        """(inputs [b, 1, 28, 28], (the two classes [b, 2], each digit alone [b, 2, 1, 28, 28]))
        on the device for each step of ``epoch``."""
        self.sampler.set_epoch(epoch)
        pairs = draw_pairs(self.labels, torch.arange(len(self.labels)),
                           torch.Generator().manual_seed(epoch_seed(self.seed, epoch)))
        order = torch.tensor(list(self.sampler)[:self.pairs_from_shard]).split(self.batch_size)
        rendered = batches(RenderedBatches(self.images, self.labels, pairs, order), None, device=self.device,
                           cuda_workers=PAIR_WORKERS)
        for inputs, labels, digits in rendered:
            yield inputs.to(self.device, non_blocking=True), (labels.to(self.device, non_blocking=True),
                                                              digits.to(self.device, non_blocking=True))


class WrittenTrainingData:
    """The examples of one epoch as people write them (capsnet.data.written), this process's shard, in
    batches of this process's share: each training digit comes first in one example, everything
    else about it drawn from the seed and the epoch on the CPU (so that 1 and N processes, and a
    resumed run, see the same examples), and drawn on the training device in the training loop
    (a GPU draws a batch in a fraction of its step; no worker processes)."""

    def __init__(self, data_dir: str, indices: torch.Tensor, batch_size: int, seed: int,
                 processes: Processes, device: torch.device, pairs_per_epoch: int | None = None):
        self.seed, self.batch_size = seed, batch_size
        self.sampler = DistributedSampler(range(len(indices)), num_replicas=processes.world,
                                          rank=processes.rank, shuffle=True, seed=seed)
        self.pairs_from_shard = len(self.sampler) if pairs_per_epoch is None else \
            min(len(self.sampler), -(-pairs_per_epoch // processes.world))   # this process's examples an epoch
        full = mnist(data_dir, train=True)
        self.digits = DigitSet.of(full.data[indices], full.targets[indices], device)

    def __len__(self) -> int:
        """Steps per epoch."""
        return -(-self.pairs_from_shard // self.batch_size)

    def epoch(self, epoch: int):
        """(inputs [b, 1, 28, 28], (the classes [b, 2], each digit alone [b, 2, 1, 28, 28])) on the
        device for each step of ``epoch``."""
        self.sampler.set_epoch(epoch)
        examples = draw_examples(self.digits.labels, torch.arange(len(self.digits.labels)),
                                 torch.Generator().manual_seed(epoch_seed(self.seed, epoch)))
        for chosen in torch.tensor(list(self.sampler)[:self.pairs_from_shard]).split(self.batch_size):
            inputs, labels, digits = render(self.digits, examples[chosen])
            yield inputs, (labels, digits)


def written_batches(images: torch.Tensor, labels: torch.Tensor, seed: int, processes: Processes,
                    device: torch.device) -> DataLoader:
    """This process's share of one fixed example as people write them for each digit
    (capsnet.data.written.fixed_examples): inputs and their classes ((d, d) for a single digit d)."""
    inputs, example_labels, _ = fixed_examples(DigitSet.of(images, labels, device), seed)
    share = slice(processes.rank, None, processes.world)
    return batches(torch.utils.data.TensorDataset(inputs[share].cpu(), example_labels[share].cpu()), EVAL_BATCH,
                   device=device)


def pair_batches(images: torch.Tensor, labels: torch.Tensor, seed: int, processes: Processes,
                 device: torch.device) -> DataLoader:
    """This process's share of one fixed overlapping pair for each digit (capsnet.data.pairs.fixed_pairs):
    inputs and their two classes."""
    inputs, _, pair_labels, _ = fixed_pairs(images, labels, seed)
    share = slice(processes.rank, None, processes.world)
    return batches(torch.utils.data.TensorDataset(inputs[share], pair_labels[share]), EVAL_BATCH, device=device)


def epoch_seed(seed: int, epoch: int, rank: int = 0) -> int:
    """The seed of everything random in an epoch but the shuffle (dropout, RandomCrop, the
    on-device shifts): a resumed run draws what an uninterrupted one drew. (Not RandomCrop with
    --device-data off on CUDA: the DataLoader's persistent worker processes seed themselves once,
    when they start.)"""
    return seed * 1_000_003 + epoch * 1_009 + rank


def held_out(data_dir: str, indices: torch.Tensor, processes: Processes, device: torch.device) -> DataLoader:
    """This process's share of ``indices`` of MNIST's training images, unshifted."""
    return batches(Subset(mnist(data_dir, train=True), indices[processes.rank::processes.world].tolist()),
                   EVAL_BATCH, device=device)


def shared_accuracy(model, loader: DataLoader, processes: Processes, device: torch.device, right) -> float:
    """Accuracy over every process's share of the images (``right``: what reading one right means)."""
    correct, total = processes.sum(*correct_and_total(model, loader, device, right), device=device)
    return correct / total


def rng_state(device: torch.device) -> torch.Tensor:
    """This process's random state (dropout draws from it): the CPU's, and the GPU's on CUDA."""
    cpu = torch.get_rng_state()
    return torch.cat([cpu, torch.cuda.get_rng_state(device)]) if device.type == "cuda" else cpu


def set_rng_state(state: torch.Tensor, device: torch.device) -> None:
    cpu = len(torch.get_rng_state())
    torch.set_rng_state(state[:cpu])
    if device.type == "cuda":
        torch.cuda.set_rng_state(state[cpu:], device)


@dataclass
class EpochSoFar:
    """An epoch's steps trained so far in this process: where a signal stops it, --resume goes on
    at the next step."""
    steps: int = 0             # steps done
    loss: float = 0.0          # the steps' losses times their images, summed
    correct: float = 0.0       # images (pairs) read right
    seen: float = 0.0          # images (pairs)
    seconds: float = 0.0       # wall time


def train_one_epoch(run, network, trained: nn.Module, data, epoch: int, so_far: EpochSoFar,
                    rng: torch.Tensor | None) -> None:
    """The steps of ``epoch`` after ``so_far.steps`` over this process's shard of ``data``
    (TrainingData or PairTrainingData), added to ``so_far``: to the end of the epoch, one with
    --dry-run, or to the end of the step in which a signal asked the run to stop (the same step in
    every process). ``rng``: the random state an interrupted epoch stopped with, else None.

    The steps' losses stay on the device and are read back READ_EVERY steps at a time: each read
    waits for the GPU to finish every step queued before it, and one a step would idle the GPU
    while Python queues the next. A non-finite loss is still named by its step; the steps after it
    up to the read change only weights that are then thrown away (nothing of the epoch is saved).

    Raises:
        NonFiniteLossError: the loss became NaN or infinite in some process (in every process alike).
    """
    args = run.args
    trained.train()
    loss_fn, ema, optimizer = LOSSES[args.model, args.task], network.ema, network.optimizer
    updates = int(ema.n_averaged)          # the moving average's updates so far, counted on the host
    unread = []            # (loss, right, images) of each step since the last read, the first two on the device
    steps = data.epoch(epoch)
    for _ in range(so_far.steps):          # an interrupted epoch goes on at its next step, as it would have
        next(steps)
    if rng is not None:
        set_rng_state(rng, run.device)
    bar = tqdm(steps, total=len(data), initial=so_far.steps, desc=f"epoch {epoch}", unit="batch", leave=False,
               file=sys.stdout, disable=not run.show)

    def read() -> None:
        """Add the unread steps' losses and readings to ``so_far``: one wait for the device."""
        losses = torch.stack([loss for loss, _, _ in unread]).tolist()
        rights = torch.stack([right for _, right, _ in unread]).tolist()
        first_step = so_far.steps - len(unread) + 1
        found = next(((step, value) for step, value in zip(itertools.count(first_step), losses)
                      if not math.isfinite(value)), None)
        if first := run.processes.first_non_finite(found):
            step, value, rank = first
            where = f" in process {rank} of {run.processes.world}" if run.processes.world > 1 else ""
            raise NonFiniteLossError(f"epoch {epoch}, step {step}: the loss became {value}{where}")
        for value, right, (_, _, size) in zip(losses, rights, unread):
            so_far.loss += value * size
            so_far.correct += right
            so_far.seen += size
        unread.clear()
        bar.set_postfix(loss=f"{so_far.loss / so_far.seen:.4f}", acc=f"{so_far.correct / so_far.seen:.4f}")

    for images, targets in bar:
        with run.autocast():
            loss, right = loss_fn(trained, images, targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        update_moving_average(ema, network.model, args.ema_decay, updates)
        updates += 1
        so_far.steps += 1
        unread.append((loss.detach(), right, len(images)))
        if len(unread) == READ_EVERY:
            read()
        if args.dry_run or run.stop_signal():
            break
    if unread:
        read()


def warm_decay(decay: float, updates: int) -> float:
    """The moving average's decay after ``updates`` updates: min(decay, (1 + n) / (10 + n)), warming
    up as TensorFlow's ExponentialMovingAverage does with num_updates, so that the first epochs'
    average is not dragged towards the random start."""
    return min(decay, (1 + updates) / (10 + updates))


def update_moving_average(ema: AveragedModel, model: nn.Module, decay: float, updates: int) -> None:
    """What ``ema.update_parameters(model)`` does with an avg_fn of warm_decay's decay, the
    parameters averaged and the buffers copied, with ``updates`` (ema.n_averaged) counted by the
    caller: AveragedModel reads it back from the device twice a step and its avg_fn once a
    parameter, and each read waits for the GPU. One foreach operation for all the parameters."""
    averaged = [p.detach() for p in ema.module.parameters()]
    current = [p.detach() for p in model.parameters()]
    if updates == 0:
        torch._foreach_copy_(averaged, current)
    else:      # averaged + (1 - decay) * (current - averaged)
        differences = torch._foreach_sub(current, averaged)
        torch._foreach_mul_(differences, 1 - warm_decay(decay, updates))
        torch._foreach_add_(averaged, differences)
    for averaged_buffer, buffer in zip(ema.module.buffers(), model.buffers(), strict=True):
        averaged_buffer.detach().copy_(buffer.detach())
    ema.n_averaged += 1


def routed_with(model: CapsNet, iterations: int) -> CapsNet:
    """The same weights in a CapsNet whose config routes with ``iterations`` (so its config.json says so)."""
    rerouted = CapsNet(replace(model.config, routing_iterations=iterations))
    rerouted.load_state_dict(model.state_dict())
    return rerouted


def recipe(args: argparse.Namespace, device: torch.device, bf16: bool) -> dict:
    """The flags that shape the run's trajectory, the device's type and bf16 autocast: a resumed
    run must repeat them to end where an uninterrupted one would (and metrics.json, which records
    one device and one autocast, stays true)."""
    return {**{name: getattr(args, name) for name in RECIPE}, "device": device.type, "bf16_autocast": bf16}


def resume(path: Path, wanted: dict, model, ema, optimizer, schedule) -> dict:
    """Restore model, moving average, optimiser and schedule from the checkpoint at ``path`` (what
    is random in an epoch is drawn from the seed and the epoch: see epoch_seed).

    Raises:
        RuntimeError: the checkpoint is missing or unreadable, is not what train.py writes, was
            made with another recipe (``wanted``: this run's), or does not fit this network; the
            message names the file and what to do.
    """
    state = load_checkpoint(path)
    if not isinstance(state, dict):
        raise RuntimeError(f"{path} is not a train.py checkpoint; delete it and train again without --resume")
    if missing := [key for key in CHECKPOINT_KEYS if key not in state]:
        raise RuntimeError(f"checkpoint {path} lacks {', '.join(missing)}; delete it and train again "
                           "without --resume")
    if wrong := [key for key, kind in CHECKPOINT_TYPES.items() if key in state and not isinstance(state[key], kind)
                 or key == "history" and not all(isinstance(epoch, dict) for epoch in state[key])]:
        held = ", ".join(f"{key} as {type(state[key]).__name__}" for key in wrong)
        raise RuntimeError(f"checkpoint {path} holds {held}, not as train.py writes it; delete it and train "
                           "again without --resume")
    if (partial := state.get("partial")) is not None and (set(partial) != PARTIAL_KEYS or not isinstance(
            partial["rng"], list) or partial["epoch"] != state["epoch"] + 1):
        raise RuntimeError(f"checkpoint {path} holds an unfinished epoch not as train.py writes it; delete it and "
                           "train again without --resume")
    made_with = state.get("recipe", {})   # checkpoints from before recipes lack one
    if unknown := [name for name in made_with if name not in wanted]:
        raise RuntimeError(f"checkpoint {path} was made with {', '.join(map(repr, unknown))}, which this "
                           "train.py does not know: resume it with the train.py that made it, or train afresh "
                           "without --resume")
    if changed := [name for name in made_with if made_with[name] != wanted[name]]:
        raise RuntimeError(
            f"checkpoint {path} was made with {', '.join(f'{n}={made_with[n]}' for n in changed)}, this run "
            f"asks for {', '.join(f'{n}={wanted[n]}' for n in changed)}: resume with the same flags, "
            "or train afresh without --resume (the checkpoint is then overwritten)")
    try:
        model.load_state_dict(state["model"])
        ema.load_state_dict(state["ema"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
    except (KeyError, RuntimeError, TypeError, ValueError) as error:
        first_line = str(error).splitlines()[0] if str(error) else ""
        raise RuntimeError(f"checkpoint {path} does not fit this network ({error.__class__.__name__}: "
                           f"{first_line}); delete it and train again without --resume") from error
    return state


def write_metrics(out_dir: Path, metrics: dict) -> None:
    atomic_write_text(out_dir / "metrics.json", json.dumps(metrics, indent=2) + "\n")


def earlier_run(args: argparse.Namespace, first_epoch: int | None = None) -> dict | None:
    """The metrics.json of the --init-from folder where that run trained this network on this task
    (this run goes on from it), so that the chosen weights' whole history stays beside them. Read
    when the run begins and kept in its checkpoint: with --out the same folder, the run replaces it."""
    if not args.init_from or not Path(args.init_from).is_dir():
        return None
    try:
        earlier = json.loads((Path(args.init_from) / "metrics.json").read_text())
    except (OSError, ValueError):
        return None
    if not (isinstance(earlier, dict) and earlier.get("model") == args.model
            and earlier.get("task", "digits") == args.task):
        return None
    # Resuming from a checkpoint that did not keep it: a run whose weights were copied into
    # --init-from meanwhile finds its own result there; only the runs that ended before this one's
    # first epoch came before it.
    while first_epoch and earlier and earlier.get("history") and earlier["history"][-1].get("epoch", 0) >= first_epoch:
        earlier = earlier.get("earlier")
    return earlier


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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return train(args, sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:     # Ctrl-C where the run does not stop by itself: the upload to the Hub
        print("\ntrain.py: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


@dataclass(frozen=True)
class Run:
    """A run's flags, the command line that gave them, its process among torchrun's and its device."""
    args: argparse.Namespace
    argv: list[str]
    processes: Processes
    device: torch.device
    bf16: bool                         # bf16 autocast
    signals: StopSignals               # what stops the epochs and the final read

    @property
    def show(self) -> bool:
        """Whether this process prints (rank 0 alone)."""
        return self.processes.leader

    @property
    def out_dir(self) -> Path:
        return Path(self.args.out)

    @property
    def checkpoint(self) -> Path:
        return Path(self.args.checkpoint)

    def autocast(self):
        """The context of a training step: bf16 autocast, or nothing."""
        return torch.autocast(self.device.type, dtype=torch.bfloat16) if self.bf16 else nullcontext()

    def stop_signal(self) -> int:
        """The signal that asked a process of the run to stop, 0 if none: the same in every process."""
        return self.processes.max(self.signals.received or 0)


@dataclass
class Data:
    """What a run reads: this process's shard of the training data, its share of the held-out
    images that choose the epoch (None with --val-size 0), and what reading one right means."""
    training: TrainingData | PairTrainingData | WrittenTrainingData
    validation: DataLoader | None
    train_images: int
    val_images: int
    right: Callable
    also_read: dict = field(default_factory=dict)   # name: held-out pairs each epoch's moving average reads too


@dataclass
class Network:
    """The network being trained, the moving average of its weights (what is evaluated and
    saved), Adam and the learning rate's schedule."""
    model: nn.Module
    ema: AveragedModel
    optimizer: torch.optim.Optimizer
    schedule: torch.optim.lr_scheduler.LRScheduler


@dataclass
class Progress:
    """Where a run stands: what its checkpoint keeps beside the network, its moving average, Adam
    and the schedule."""
    epoch: int                         # the last finished epoch (--start-epoch - 1 before the first)
    best_accuracy: float = -1.0        # validation accuracy of the weights in --out (with --init-from: of those)
    best_epoch: int | None = None      # the epoch whose weights this run wrote to --out; None: none yet
    seconds: float = 0.0               # wall time of the finished epochs
    history: list[dict] = field(default_factory=list)   # each finished epoch's lr, loss, accuracies, seconds
    saved_any: bool = False            # whether this run has written weights to --out
    earlier: dict | None = None        # metrics.json of the run whose weights --init-from goes on from
    weights_sha256: str | None = None  # of the model.safetensors this run wrote last (known to rank 0)
    partial: dict | None = None        # the epoch a signal stopped: PARTIAL_KEYS (the sums over every process)
    saved_here: bool = False           # whether this process of the run wrote to --out (not in the checkpoint)


def train(args: argparse.Namespace, argv: list[str]) -> int:
    """One run, step by step: the flags checked, the device and torchrun's processes, the data,
    the network, the checkpoint resumed, the epochs, then the chosen weights read once on the test
    set and what is written beside them."""
    processes = torchrun_processes()
    try:
        check_flags(args, processes.world)
        run = start(args, processes, argv)
        data = load_data(run)
        network = build_network(run)
        progress = resume_or_begin(run, data, network)
        report_start(run, data, progress)
        with run.signals:                    # before, nothing is written: Ctrl-C stops the run at once
            train_epochs(run, data, network, progress)
            return final_read(run, data, progress)
    except UsageError as error:
        print(f"train.py: error: {error}", file=sys.stderr)
        return 2
    except NonFiniteLossError as error:      # from train_epochs: the rest is there
        if run.show:
            print(f"train.py: error: {error}; training stopped. {what_is_kept(run, progress)} Train again "
                  "with a lower --lr.", file=sys.stderr)
        return 1
    except Interrupted as interrupt:         # from train_epochs or final_read
        if run.show:
            print(f"train.py: {interrupt}. {what_is_kept(run, progress)}", file=sys.stderr)
        return 128 + interrupt.signum


def check_flags(args: argparse.Namespace, world: int) -> None:
    """Every flag that argparse cannot check alone, before anything is read or written.

    Raises:
        UsageError: a flag the run cannot go on with; the message names it.
    """
    for flag, value, allowed, meaning in (
            ("--batch-size", args.batch_size, args.batch_size >= 1, "at least 1"),
            ("--limit", args.limit, args.limit is None or args.limit >= 1, "at least 1"),
            ("--val-size", args.val_size, args.val_size >= 0, "0 or more"),
            ("--epochs", args.epochs, args.epochs >= 1, "at least 1"),
            ("--seed", args.seed, 0 <= args.seed < 2**32, "from 0 to 2^32 - 1"),
            ("--lr", args.lr, 0 <= args.lr < math.inf, "a finite number, 0 or more"),
            ("--lr-decay", args.lr_decay, 0 < args.lr_decay <= 1, "above 0 and at most 1"),
            ("--ema-decay", args.ema_decay, 0 <= args.ema_decay < 1, "from 0 up to, not including, 1"),
            ("--max-minutes", args.max_minutes, args.max_minutes is None or 0 < args.max_minutes < math.inf,
             "a finite number above 0")):
        if not allowed:         # NaN fails every comparison
            raise UsageError(f"{flag} {value}: must be {meaning}")
    if args.batch_size % world:
        raise UsageError(f"--batch-size {args.batch_size} does not split evenly over {world} processes: make it "
                         "a multiple of --nproc_per_node x --nnodes")
    if args.pairs_per_epoch is not None and (args.task != "pairs" or args.pairs_per_epoch < 1):
        raise UsageError("--pairs-per-epoch needs --task pairs and a positive number")
    if args.routing_iterations is not None and (args.model != "capsnet" or args.routing_iterations < 1):
        raise UsageError("--routing-iterations needs --model capsnet and at least 1")
    if not 1 <= args.start_epoch <= args.epochs:
        raise UsageError(f"--start-epoch {args.start_epoch} must be between 1 and --epochs {args.epochs}")


def start(args: argparse.Namespace, processes: Processes, argv: list[str]) -> Run:
    """The run's device, torchrun's process group joined, and whether the run computes in bf16.

    Raises:
        UsageError: the device of --device is not there.
    """
    device = pick_device(args.device, processes.local_rank)
    processes = join_processes(processes, device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True     # the batches' sizes are fixed: cuDNN times its convolutions once
    return Run(args, argv, processes, device, use_bf16(args.amp, device), StopSignals())


def load_data(run: Run) -> Data:
    """The training images (or pairs) of this process and its share of the held-out ones.

    Raises:
        UsageError: MNIST cannot be had, or --val-size leaves nothing to train on.
    """
    args, processes, device = run.args, run.processes, run.device
    try:
        train_indices, val_indices = validation_split(len(mnist(args.data_dir, train=True)), args.val_size, args.seed)
    except (RuntimeError, ValueError) as error:
        raise UsageError(f"{'--val-size: ' if isinstance(error, ValueError) else ''}{error}") from None
    if args.limit:
        train_indices = train_indices[:args.limit]
    also_read = {}
    if args.task == "pairs":
        written = args.examples == "written"
        data = (WrittenTrainingData if written else PairTrainingData)(
            args.data_dir, train_indices, args.batch_size // processes.world, args.seed, processes, device,
            args.pairs_per_epoch)
        digits = mnist(args.data_dir, train=True)
        validation = (written_batches if written else pair_batches)(
            digits.data[val_indices], digits.targets[val_indices], args.seed, processes, device) if args.val_size else None
        if written and args.val_size:     # the MNIST validation pairs the runs before --examples chose on
            also_read["val_mnist_pairs"] = pair_batches(digits.data[val_indices], digits.targets[val_indices],
                                                        args.seed, processes, device)
    else:
        data = TrainingData(args.data_dir, train_indices, args.batch_size // processes.world, args.seed,
                            processes, device, args.device_data == "on")
        validation = held_out(args.data_dir, val_indices, processes, device) if args.val_size else None
    return Data(data, validation, len(train_indices), len(val_indices), RIGHT[args.task], also_read)


def build_network(run: Run) -> Network:
    """The network (from --init-from, else initialised from --seed, the same in every process) on
    the run's device, its moving average, Adam and the schedule.

    Raises:
        UsageError: the --init-from weights cannot be loaded.
    """
    args = run.args
    torch.manual_seed(args.seed)                  # the initial weights: the same in every process
    network = NETWORKS[args.model]
    try:
        model = load_model(args.init_from, network) if args.init_from else network(CONFIGS[network]())
    except WeightsError as error:
        raise UsageError(f"--init-from: {error}") from None
    if args.routing_iterations:
        model = routed_with(model, args.routing_iterations)
    model = model.to(run.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, fused=run.device.type == "cuda")   # one kernel a step
    return Network(model, AveragedModel(model),   # the average updated by update_moving_average
                   optimizer, torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=args.lr_decay))


def resume_or_begin(run: Run, data: Data, network: Network) -> Progress:
    """With --resume, the checkpoint's network, moving average, Adam, schedule and progress; with
    --init-from, the starting weights' validation accuracy as the figure to beat.

    Raises:
        UsageError: the checkpoint is missing, unreadable, or made by another recipe or network.
    """
    args = run.args
    if args.resume:
        try:
            state = resume(run.checkpoint, recipe(args, run.device, run.bf16), network.model, network.ema,
                           network.optimizer, network.schedule)
        except RuntimeError as error:
            raise UsageError(error) from None
        partial = state.get("partial")
        if partial and len(partial["rng"]) != run.processes.world:
            raise UsageError(f"checkpoint {run.checkpoint} stopped in epoch {partial['epoch']} under "
                             f"{len(partial['rng'])} process(es), this run has {run.processes.world}: resume it "
                             f"under {len(partial['rng'])}")
        if run.show:
            print(f"resumed from {run.checkpoint} after "
                  + (f"step {partial['steps']} of epoch {partial['epoch']}" if partial else f"epoch {state['epoch']}"))
        return Progress(state["epoch"], state["best_accuracy"], state.get("best_epoch"), state["seconds"],
                        state["history"],
                        state.get("saved_any", True),   # checkpoints from before --init-from always saved
                        state["earlier"] if "earlier" in state else earlier_run(args, args.start_epoch),
                        state.get("weights_sha256"), partial)
    progress = Progress(args.start_epoch - 1, earlier=earlier_run(args))   # read before --out is written to
    if args.init_from and data.validation is not None:   # the starting weights are the ones to beat
        progress.best_accuracy = shared_accuracy(network.model, data.validation, run.processes, run.device,
                                                 data.right)
        if run.show:
            print(f"starting from {args.init_from}: validation accuracy {progress.best_accuracy:.4%}, "
                  "the figure to beat")
    return progress


def last_epoch(args: argparse.Namespace, progress: Progress) -> int:
    """The run's last epoch: --epochs, or a --dry-run's one."""
    return progress.epoch + 1 if args.dry_run else args.epochs


def report_start(run: Run, data: Data, progress: Progress) -> None:
    args, first, last = run.args, progress.epoch + 1, last_epoch(run.args, progress)
    if not run.show:
        return
    if first > last:
        print(f"the checkpoint has finished {first - 1} epochs: nothing left to train, only the test "
              "(raise --epochs to go on)")
    source = ("examples as people write them, drawn on the device" if args.examples == "written" else
              "pairs made on the CPU") if args.task == "pairs" else \
        "on the device" if args.device_data == "on" else "from a DataLoader"
    print(f"{args.model} on {args.task}: device {run.device}, bf16 autocast {'on' if run.bf16 else 'off'}, "
          f"data {source}, "
          f"{run.processes.world} process(es), "
          f"global batch {args.batch_size}, {data.train_images} training images, "
          f"{data.val_images} for validation, epochs {first}..{last}")


def train_epochs(run: Run, data: Data, network: Network, progress: Progress) -> None:
    """The epochs after ``progress.epoch`` up to --epochs: after each, the moving average read on the
    held-out images, the best weights so far saved to --out, and the checkpoint. Stops early
    where another epoch would pass --max-minutes; a --dry-run trains one step and saves nothing.

    Raises:
        NonFiniteLossError: the loss became NaN or infinite; ``progress`` is the last finished epoch's.
        Interrupted: a signal asked the run to stop; it did after the step it was in (or the
            epoch, where the step was its last), saving a checkpoint --resume goes on from.
    """
    args, processes = run.args, run.processes
    last = last_epoch(args, progress)
    trained = network.model if processes.world == 1 else \
        DistributedDataParallel(network.model, device_ids=[run.device.index] if run.device.type == "cuda" else None)
    started = time.monotonic()
    try:
        for epoch in range(progress.epoch + 1, last + 1):
            so_far, rng = epoch_so_far(run, progress)
            torch.manual_seed(epoch_seed(args.seed, epoch, processes.rank))
            epoch_started = time.monotonic() - so_far.seconds
            lr = network.optimizer.param_groups[0]["lr"]
            train_one_epoch(run, network, trained, data.training, epoch, so_far, rng)
            if so_far.steps < len(data.training) and not args.dry_run:    # a signal stopped it
                so_far.seconds = time.monotonic() - epoch_started
                save_unfinished_epoch(run, network, progress, epoch, so_far)
                raise Interrupted(run.stop_signal(),
                                  f"after step {so_far.steps} of {len(data.training)} of epoch {epoch}")
            loss_sum, correct, seen = processes.sum(so_far.loss, so_far.correct, so_far.seen, device=run.device)
            network.schedule.step()
            val_accuracy = shared_accuracy(network.ema.module, data.validation, processes, run.device, data.right) \
                if data.validation else None
            also = {name: shared_accuracy(network.ema.module, loader, processes, run.device, pair_right)
                    for name, loader in data.also_read.items()}
            epoch_seconds = time.monotonic() - epoch_started
            progress.seconds += epoch_seconds
            progress.history.append({"epoch": epoch, "lr": lr, "train_loss": round(loss_sum / seen, 6),
                                     "train_accuracy": round(correct / seen, 6), "val_accuracy": val_accuracy,
                                     **also, "seconds": round(epoch_seconds, 1)})
            if run.show:
                print(f"epoch {epoch}: loss {loss_sum / seen:.4f}, train accuracy {correct / seen:.4%}, "
                      + (f"validation accuracy {val_accuracy:.4%}, " if data.validation else "")
                      + "".join(f"{name} {value:.4%}, " for name, value in also.items()) + f"{epoch_seconds:.0f} s")
            if args.dry_run:
                break                # a dry run checks that everything runs; it overwrites no weights
            progress.epoch, progress.partial = epoch, None
            keep_if_best(run, data, network, progress, val_accuracy)
            save_checkpoint(run, network, progress)
            if signum := run.stop_signal():
                raise Interrupted(signum, f"after epoch {epoch}")
            elapsed_minutes = (time.monotonic() - started) / 60
            out_of_time = args.max_minutes is not None and epoch < last and \
                elapsed_minutes + epoch_seconds / 60 > args.max_minutes
            if processes.sum(float(out_of_time), device=run.device)[0]:   # every process stops, or none
                if run.show:
                    print(f"stopping after epoch {epoch}: another epoch would pass --max-minutes {args.max_minutes}")
                break
    except (NonFiniteLossError, Interrupted) as stop:
        record_stop(run, data, progress, parameters(network.ema.module),
                    f"{stop}; --resume goes on from there" if isinstance(stop, Interrupted) else f"stopped: {stop}")
        processes.barrier()           # rank 0 has written before any process leaves (torchrun stops the rest)
        raise


def epoch_so_far(run: Run, progress: Progress) -> tuple[EpochSoFar, torch.Tensor | None]:
    """Where the next epoch begins: after the steps a signal stopped it at (their sums carried by
    rank 0) with this process's random state then, or at its start."""
    partial = progress.partial
    if partial is None:
        return EpochSoFar(), None
    sums = [partial[name] if run.processes.leader else 0.0 for name in ("loss", "correct", "seen")]
    return EpochSoFar(partial["steps"], *sums, partial["seconds"]), partial["rng"][run.processes.rank]


def save_unfinished_epoch(run: Run, network: Network, progress: Progress, epoch: int, so_far: EpochSoFar) -> None:
    """The checkpoint of ``epoch`` stopped after ``so_far.steps`` steps: the network, its moving
    average and Adam as they are, the steps' sums over every process, and each process's random
    state, so that --resume goes on with the next step as the run would have."""
    loss, correct, seen = run.processes.sum(so_far.loss, so_far.correct, so_far.seen, device=run.device)
    progress.partial = {"epoch": epoch, "steps": so_far.steps, "loss": loss, "correct": correct, "seen": seen,
                        "seconds": so_far.seconds, "rng": run.processes.gather(rng_state(run.device))}
    save_checkpoint(run, network, progress)


def keep_if_best(run: Run, data: Data, network: Network, progress: Progress, val_accuracy: float | None) -> None:
    """Save the moving average to --out where it reads the held-out images better than any epoch
    before (every epoch without a validation split), with a metrics.json that says so: the run so
    far, the test set not read yet (a run killed before its end leaves it so)."""
    if val_accuracy is None or val_accuracy > progress.best_accuracy:
        progress.best_accuracy = -1.0 if val_accuracy is None else val_accuracy
        progress.best_epoch, progress.saved_any, progress.saved_here = progress.epoch, True, True
        if run.processes.leader:
            atomic_save_pretrained(network.ema.module, run.out_dir)
            progress.weights_sha256 = sha256(run.out_dir / WEIGHTS_FILE)
            write_metrics(run.out_dir, metrics(run, data, progress, parameters(network.ema.module), None,
                                               "training: the test set is read when the run ends"))


def save_checkpoint(run: Run, network: Network, progress: Progress) -> None:
    """What --resume goes on from (rank 0 writes it)."""
    if run.processes.leader:
        atomic_torch_save({"model": network.model.state_dict(), "ema": network.ema.state_dict(),
                           "optimizer": network.optimizer.state_dict(), "schedule": network.schedule.state_dict(),
                           "epoch": progress.epoch, "best_accuracy": progress.best_accuracy,
                           "best_epoch": progress.best_epoch, "seconds": progress.seconds,
                           "history": progress.history, "recipe": recipe(run.args, run.device, run.bf16),
                           "saved_any": progress.saved_any, "earlier": progress.earlier,
                           "weights_sha256": progress.weights_sha256, "partial": progress.partial}, run.checkpoint)


def record_stop(run: Run, data: Data, progress: Progress, parameters: int, status: str) -> None:
    """A run that stops before its end: where this process wrote the weights in --out, their
    metrics.json says how it stopped (``status``), without a test figure."""
    if progress.saved_here and run.processes.leader:
        write_metrics(run.out_dir, metrics(run, data, progress, parameters, None, status))


def what_is_kept(run: Run, progress: Progress) -> str:
    """After a stop, what --out and the checkpoint hold."""
    args, out = run.args, run.out_dir
    if progress.best_epoch is not None:
        weights = f"The best weights so far (epoch {progress.best_epoch}) are kept in {out}/"
    elif args.init_from and progress.history:
        weights = f"No epoch beat the starting weights, so nothing was written to {out}/"
    elif not args.resume and progress.epoch < args.start_epoch and progress.partial is None:
        return "No epoch finished, so nothing was saved."
    else:
        weights = f"No weights were written to {out}/"
    where = f"step {progress.partial['steps']} of epoch {progress.partial['epoch']}" if progress.partial else \
        f"epoch {progress.epoch}"
    return f"{weights}; {run.checkpoint} holds the run after {where}, where --resume goes on."


def final_read(run: Run, data: Data, progress: Progress) -> int:
    """The chosen weights read once on the test set (rank 0); metrics.json and the model card
    written beside them, and the folder pushed to the Hub where asked.

    Raises:
        UsageError: --out does not hold the weights this run chose, or they cannot be loaded.
    """
    args = run.args
    if args.dry_run:
        return 0
    if args.init_from and not progress.saved_any:
        if run.show:
            print(f"no epoch beat the starting weights ({progress.best_accuracy:.4%}); nothing written to "
                  f"{run.out_dir}/")
        return 0
    if not run.processes.leader:
        return 0
    weights = run.out_dir / WEIGHTS_FILE
    if progress.weights_sha256 and (not weights.is_file() or sha256(weights) != progress.weights_sha256):
        raise UsageError(f"{run.out_dir}/ does not hold the weights this run chose (epoch {progress.best_epoch}): "
                         "give --out the folder it wrote them to; nothing was written")
    try:
        chosen = load_model(run.out_dir, NETWORKS[args.model]).to(run.device)
    except WeightsError as error:
        raise UsageError(f"the chosen weights: {error}") from None
    try:
        test_accuracy = read_test_set(run, data, chosen)
        written_test = read_written_test_set(run, chosen) if written_examples(args) else None
    except Interrupted as stop:
        record_stop(run, data, progress, parameters(chosen), f"{stop}; --resume reads it")
        raise
    write_metrics(run.out_dir, metrics(run, data, progress, parameters(chosen), test_accuracy, "finished",
                                       written_test))
    chosen_by = f"validation accuracy {progress.best_accuracy:.4%}" if data.validation else "the last"
    print(f"epoch {progress.best_epoch} chosen ({chosen_by}); test "
          f"{'pairs with both digits right' if args.task == 'pairs' else 'accuracy'} {test_accuracy:.4%}"
          + (f", test examples as people write them read right {written_test:.4%}" if written_test is not None else "")
          + f"; model in {run.out_dir}/")
    write_model_card(run.out_dir, args.model, args.data_dir, device=run.device)
    run.signals.close()            # from here, Ctrl-C stops the upload at once
    if run.signals.received and args.push_to_hub:
        print(f"train.py: stopped by {signal.Signals(run.signals.received).name} before the upload to the Hub; "
              f"the run is written in {run.out_dir}/", file=sys.stderr)
        return 128 + run.signals.received
    return push(run.out_dir, args.push_to_hub) if args.push_to_hub else 0


def push(out_dir: Path, repo: str) -> int:
    """Upload ``out_dir`` as it is (the weights, config.json, the model card, metrics.json) to the
    Hub repo ``repo``, created where missing. Returns 0, or 1 where the upload fails (no network,
    no token, no right to the repo): the weights stay in ``out_dir``, and one line says why."""
    try:
        api = HfApi()
        repo_id = api.create_repo(repo, exist_ok=True).repo_id
        api.upload_folder(repo_id=repo_id, folder_path=out_dir, ignore_patterns=[".*", "*.tmp"],
                          commit_message="train.py: the chosen weights, their model card and metrics.json")
    except Exception as error:         # whatever stops the upload, the run itself is done
        reason = str(error).splitlines()[0] if str(error) else ""
        print(f"train.py: error: --push-to-hub {repo}: the upload failed ({error.__class__.__name__}: {reason}); "
              f"the weights are in {out_dir}/", file=sys.stderr)
        return 1
    print(f"pushed {out_dir}/ to https://huggingface.co/{repo_id}")
    return 0


def read_test_set(run: Run, data: Data, chosen: nn.Module) -> float:
    """The chosen weights' accuracy on MNIST's test set (its fixed pairs with --task pairs)."""
    test_set = mnist(run.args.data_dir, train=False)
    tests = pair_batches(test_set.data, test_set.targets, TEST_SEED, Processes(), run.device) \
        if run.args.task == "pairs" else batches(test_set, EVAL_BATCH, device=run.device)
    return accuracy(chosen, until_signal(tests, run.signals), run.device, data.right)


def written_examples(args: argparse.Namespace) -> bool:
    return args.task == "pairs" and args.examples == "written"


def read_written_test_set(run: Run, chosen: nn.Module) -> float:
    """The chosen weights on a written example of each of MNIST's test digits (TEST_SEED): the
    strongest digits right, as many as each holds (`digits_right`)."""
    test_set = mnist(run.args.data_dir, train=False)
    tests = written_batches(test_set.data, test_set.targets, TEST_SEED, Processes(), run.device)
    return accuracy(chosen, until_signal(tests, run.signals), run.device, digits_right)


def until_signal(batches, signals: StopSignals):
    """``batches`` one by one, until a signal asks the run to stop (rank 0 alone reads the test set).

    Raises:
        Interrupted: before the batch after the signal.
    """
    for batch in batches:
        if signals.received:
            raise Interrupted(signals.received, "before the test set was read")
        yield batch


def parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def metrics(run: Run, data: Data, progress: Progress, parameters: int, test_accuracy: float | None,
            status: str, written_test: float | None = None) -> dict:
    """What metrics.json says of the run and of the weights it chose: ``status`` "finished" with
    their ``test_accuracy`` (and, trained on written examples, ``written_test``), or how far the
    run went (None: the test set not read)."""
    args, processes, pairs = run.args, run.processes, run.args.task == "pairs"
    history = progress.history
    held_out_ones = "the examples as people write them of the" if written_examples(args) else \
        "the pairs of the" if pairs else "the"
    test_ones = "the test pairs of MNIST's test set" if pairs else "MNIST's test set"
    return {
        "model": args.model, "task": args.task, "parameters": parameters,
        ("pairs_test_both_right" if pairs else "mnist_test_accuracy"): test_accuracy, "status": status,
        **({"examples": args.examples} if pairs else {}),
        **({"written_test_right": written_test} if written_examples(args) else {}),
        "selection": (f"the epoch whose moving average read best {held_out_ones} {args.val_size} training "
                      f"images held out by seed {args.seed}; {test_ones} read once, at the end, on those weights"
                      if data.validation else
                      f"the last epoch (no validation split); {test_ones} read once, at the end"),
        "chosen_epoch": progress.best_epoch, "val_size": args.val_size,
        "val_accuracy": progress.best_accuracy if data.validation else None,
        "epochs": history[-1]["epoch"] if history else 0,
        "train_images": data.train_images,
        **({"pairs_per_epoch": data.training.pairs_from_shard * processes.world} if pairs else {}),
        "global_batch": args.batch_size, "processes": processes.world,
        "device": run.device.type, "data_on_device": args.device_data == "on", "bf16_autocast": run.bf16,
        "torch_version": torch.__version__,
        "train_seconds": round(progress.seconds + (progress.partial["seconds"] if progress.partial else 0), 1),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": portable_command(run.argv), "init_from": args.init_from, "start_epoch": args.start_epoch,
        "history": history, "earlier": progress.earlier}


if __name__ == "__main__":
    sys.exit(main())
