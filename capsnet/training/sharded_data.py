"""What a run trains and validates on, each process its own shard: MNIST's training images shifted
per batch, the paper's overlapping pairs, or examples as people write them, all drawn from the seed
and the epoch (so that 1 and N processes, and a resumed run, see the same ones); and each process's
share of the held-out images, pairs or examples that choose the epoch."""

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch.utils.data import DataLoader, DistributedSampler, Subset, TensorDataset

from capsnet.data.datasets import batches, mnist, random_offsets, shift
from capsnet.data.pairs import TEST_SEED, RenderedBatches, digits_right, draw_pairs, fixed_pairs
from capsnet.data.written import SINGLE_SHARE, DigitSet, draw_examples, fixed_examples, render
from capsnet.shipping.evaluate import read_right
from capsnet.training.processes import Processes
from capsnet.training.random_state import epoch_seed

EVAL_BATCH = 500
DRY_RUN_VAL_IMAGES = 2 * EVAL_BATCH  # the held-out images (pairs, examples) a --dry-run reads
# On CUDA, the processes that render the pairs: the cores this process may run on (as taskset or a
# container allows, where the system says; macOS does not), less two left to it, 12 at most.
USABLE_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 2
PAIR_WORKERS = max(1, min(12, USABLE_CORES - 2))


def shuffled_shard(count: int, seed: int, processes: Processes) -> DistributedSampler:
    """This process's shard of ``count`` training digits, shuffled from the seed and the epoch."""
    return DistributedSampler(range(count), num_replicas=processes.world, rank=processes.rank, shuffle=True, seed=seed)


class FirstDigitsShard:
    """The training digits that come first in one example each in an epoch: this process's shard of
    ``count`` of them, shuffled from the seed and the epoch, all of it or (``pairs_per_epoch``) its
    share of that many, in batches of ``batch_size``."""

    def __init__(self, count: int, batch_size: int, seed: int, processes: Processes, pairs_per_epoch: int | None):
        self.seed, self.batch_size = seed, batch_size
        self.sampler = shuffled_shard(count, seed, processes)
        self.pairs_from_shard = (
            len(self.sampler)
            if pairs_per_epoch is None
            else min(len(self.sampler), -(-pairs_per_epoch // processes.world))
        )  # this process's examples an epoch

    def __len__(self) -> int:
        """Steps per epoch."""
        return -(-self.pairs_from_shard // self.batch_size)

    def order(self, epoch: int) -> tuple[torch.Tensor, ...]:
        """The indices of the first digits of ``epoch``'s examples, a tensor a step."""
        self.sampler.set_epoch(epoch)
        return torch.tensor(list(self.sampler)[: self.pairs_from_shard]).split(self.batch_size)


class TrainingData:
    """The training images of one epoch, this process's shard, in batches of this process's share.

    Either MNIST as tensors on the training device, shifted per batch with tensor operations
    (``on_device``), or a DataLoader over torchvision's RandomCrop. Both shuffle with
    DistributedSampler from the seed and the epoch; the on-device shifts are drawn from the seed
    and the epoch for the whole training set, so each image gets the same shift whatever the
    number of processes.
    """

    def __init__(
        self,
        data_dir: str,
        indices: torch.Tensor,
        batch_size: int,
        seed: int,
        processes: Processes,
        device: torch.device,
        on_device: bool,
    ):
        self.seed, self.device, self.on_device, self.batch_size = seed, device, on_device, batch_size
        self.sampler = shuffled_shard(len(indices), seed, processes)
        if on_device:
            full = mnist(data_dir, train=True)
            # In [0, 1] as ToTensor makes them, here on the CPU: CUDA divides by a number as a
            # multiplication by its reciprocal, one ulp off for some pixels.
            self.images = (full.data[indices].float() / 255).to(device)  # [N, 28, 28]
            self.labels = full.targets[indices].to(device)  # int64 [N]
        else:
            self.loader = batches(
                Subset(mnist(data_dir, train=True, augment=True), indices.tolist()),
                batch_size,
                sampler=self.sampler,
                device=device,
            )

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


class PairTrainingData(FirstDigitsShard):
    """The overlapping pairs of one epoch, this process's shard, in batches of this process's
    share: each training digit comes first in one pair, its partner (of another class) and both
    digits' shifts drawn from the seed and the epoch, so that 1 and N processes, and a resumed run,
    see the same pairs. They are made on the CPU (capsnet.data.pairs.render), on CUDA by PAIR_WORKERS
    worker processes while the GPU trains, and moved to the device."""

    def __init__(
        self,
        data_dir: str,
        indices: torch.Tensor,
        batch_size: int,
        seed: int,
        processes: Processes,
        device: torch.device,
        pairs_per_epoch: int | None = None,
    ):
        super().__init__(len(indices), batch_size, seed, processes, pairs_per_epoch)
        self.device = device
        full = mnist(data_dir, train=True)
        self.images, self.labels = full.data[indices], full.targets[indices]  # uint8 [N, 28, 28], [N]

    def epoch(self, epoch: int):
        """(inputs [b, 1, 28, 28], (the two classes [b, 2], each digit alone [b, 2, 1, 28, 28]))
        on the device for each step of ``epoch``."""
        pairs = draw_pairs(
            self.labels, torch.arange(len(self.labels)), torch.Generator().manual_seed(epoch_seed(self.seed, epoch))
        )
        rendered = batches(
            RenderedBatches(self.images, self.labels, pairs, self.order(epoch)),
            None,
            device=self.device,
            cuda_workers=PAIR_WORKERS,
        )
        for inputs, labels, digits in rendered:
            yield (
                inputs.to(self.device, non_blocking=True),
                (labels.to(self.device, non_blocking=True), digits.to(self.device, non_blocking=True)),
            )


class WrittenTrainingData(FirstDigitsShard):
    """The examples of one epoch as people write them (capsnet.data.written), this process's shard, in
    batches of this process's share: each training digit comes first in one example, everything
    else about it drawn from the seed and the epoch on the CPU (so that 1 and N processes, and a
    resumed run, see the same examples), and drawn on the training device in the training loop
    (a GPU draws a batch in a fraction of its step; no worker processes). ``single_share`` of them
    hold one digit alone."""

    def __init__(
        self,
        data_dir: str,
        indices: torch.Tensor,
        batch_size: int,
        seed: int,
        processes: Processes,
        device: torch.device,
        pairs_per_epoch: int | None = None,
        single_share: float = SINGLE_SHARE,
    ):
        super().__init__(len(indices), batch_size, seed, processes, pairs_per_epoch)
        self.single_share = single_share
        full = mnist(data_dir, train=True)
        self.digits = DigitSet.of(full.data[indices], full.targets[indices], device)

    def epoch(self, epoch: int):
        """(inputs [b, 1, 28, 28], (the classes [b, 2], each digit alone [b, 2, 1, 28, 28])) on the
        device for each step of ``epoch``."""
        examples = draw_examples(
            self.digits.labels,
            torch.arange(len(self.digits.labels)),
            torch.Generator().manual_seed(epoch_seed(self.seed, epoch)),
            self.single_share,
        )
        for chosen in self.order(epoch):
            inputs, labels, digits = render(self.digits, examples[chosen])
            yield inputs, (labels, digits)


def held_out(data_dir: str, indices: torch.Tensor, processes: Processes, device: torch.device) -> DataLoader:
    """This process's share of ``indices`` of MNIST's training images, unshifted."""
    return batches(
        Subset(mnist(data_dir, train=True), indices[processes.rank :: processes.world].tolist()),
        EVAL_BATCH,
        device=device,
    )


def pair_batches(
    images: torch.Tensor, labels: torch.Tensor, seed: int, processes: Processes, device: torch.device
) -> DataLoader:
    """This process's share of one fixed overlapping pair for each digit (capsnet.data.pairs.fixed_pairs):
    inputs and their two classes."""
    inputs, _, pair_labels, _ = fixed_pairs(images, labels, seed)
    share = slice(processes.rank, None, processes.world)
    return batches(TensorDataset(inputs[share], pair_labels[share]), EVAL_BATCH, device=device)


def written_batches(
    images: torch.Tensor, labels: torch.Tensor, seed: int, processes: Processes, device: torch.device
) -> DataLoader:
    """This process's share of one fixed example as people write them for each digit
    (capsnet.data.written.fixed_examples): inputs and their classes ((d, d) for a single digit d)."""
    inputs, example_labels, _ = fixed_examples(DigitSet.of(images, labels, device), seed)
    share = slice(processes.rank, None, processes.world)
    return batches(TensorDataset(inputs[share].cpu(), example_labels[share].cpu()), EVAL_BATCH, device=device)


@dataclass
class RunData:
    """What a run reads: this process's shard of the training data, its share of the held-out
    images that choose the epoch (None without a validation split), and what reading one right means."""

    training: TrainingData | PairTrainingData | WrittenTrainingData
    validation: DataLoader | None
    train_images: int
    val_images: int
    right: Callable
    counted: bool = False  # the held-out ones are written examples, read exactly with a count rule chosen on them
    recorded_reads: dict = field(default_factory=dict)  # name: held-out pairs read each epoch, not chosen on


def run_data(
    data_dir: str,
    train_indices: torch.Tensor,
    val_indices: torch.Tensor,
    task: str,
    examples: str,
    batch_size: int,
    seed: int,
    processes: Processes,
    device: torch.device,
    on_device: bool,
    pairs_per_epoch: int | None,
    single_share: float = SINGLE_SHARE,
) -> RunData:
    """This process's shard of the training images (``task`` digits; TrainingData, on the device or
    not) or of the pairs (``task`` pairs; ``examples`` written or mnist-pairs, ``single_share`` of
    the written ones a digit alone), ``batch_size`` of them a step, and its share of the held-out
    ones (none where ``val_indices`` is empty; written ones always SINGLE_SHARE alone, so that runs
    of any share are chosen on, and compared on, the same examples)."""
    if task == "digits":
        training = TrainingData(data_dir, train_indices, batch_size, seed, processes, device, on_device)
        validation = held_out(data_dir, val_indices, processes, device) if len(val_indices) else None
        return RunData(training, validation, len(train_indices), len(val_indices), read_right)
    written, recorded_reads = examples == "written", {}
    if written:
        training = WrittenTrainingData(
            data_dir, train_indices, batch_size, seed, processes, device, pairs_per_epoch, single_share
        )
    else:
        training = PairTrainingData(data_dir, train_indices, batch_size, seed, processes, device, pairs_per_epoch)
    digits = mnist(data_dir, train=True)
    held_images, held_labels = digits.data[val_indices], digits.targets[val_indices]
    validation = (
        (written_batches if written else pair_batches)(held_images, held_labels, seed, processes, device)
        if len(val_indices)
        else None
    )
    if written and len(val_indices):  # the MNIST validation pairs the runs before --examples chose on
        recorded_reads["val_mnist_pairs"] = pair_batches(held_images, held_labels, seed, processes, device)
    return RunData(
        training,
        validation,
        len(train_indices),
        len(val_indices),
        digits_right,
        written and validation is not None,
        recorded_reads,
    )


def test_batches(data_dir: str, task: str, device: torch.device, written: bool = False) -> DataLoader:
    """MNIST's test set, read once at the end of a run by one process: its digits (``task`` digits),
    one fixed overlapping pair of each, or (``written``) one fixed example as people write them
    of each (TEST_SEED)."""
    test_set = mnist(data_dir, train=False)
    if task == "digits":
        return batches(test_set, EVAL_BATCH, device=device)
    return (written_batches if written else pair_batches)(
        test_set.data, test_set.targets, TEST_SEED, Processes(), device
    )
