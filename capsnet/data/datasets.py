"""Data sets: MNIST through torchvision (with the paper's shift augmentation) and Semeion."""

import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torchvision import datasets, transforms

MAX_SHIFT = 2  # the paper's only augmentation: shifts of up to 2 pixels in each direction

train_transform = transforms.Compose([transforms.RandomCrop(28, padding=MAX_SHIFT), transforms.ToTensor()])
test_transform = transforms.ToTensor()


def mnist(data_dir: str | Path, train: bool, augment: bool = False) -> datasets.MNIST:
    """torchvision's MNIST from ``data_dir``, downloaded there first when it is missing.

    Raises:
        RuntimeError: the files are missing and cannot be downloaded (no network); nothing was
            written into ``data_dir``, nor ``data_dir`` made.
    """
    transform = train_transform if augment else test_transform
    try:
        return datasets.MNIST(root=str(data_dir), train=train, transform=transform, download=False)
    except RuntimeError:
        pass
    try:
        download_mnist(Path(data_dir))
    except Exception as error:
        raise RuntimeError(
            f"MNIST is not in {Path(data_dir) / 'MNIST' / 'raw'} and could not be downloaded "
            f"({error}). Point --data-dir at a folder that holds MNIST/raw/, or go online."
        ) from error
    return datasets.MNIST(root=str(data_dir), train=train, transform=transform, download=False)


def download_mnist(data_dir: Path) -> None:
    """MNIST's four files downloaded into ``data_dir``/MNIST/raw through a temporary folder: a
    download that fails leaves no empty MNIST/raw behind (in a data dir that was never there, say)."""
    with tempfile.TemporaryDirectory() as scratch:
        datasets.MNIST(root=scratch, download=True)
        raw = data_dir / "MNIST" / "raw"
        raw.mkdir(parents=True, exist_ok=True)
        for file in (Path(scratch) / "MNIST" / "raw").iterdir():
            shutil.move(file, raw / file.name)


def validation_split(size: int, val_size: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Hold ``val_size`` of ``size`` training images out for choosing the epoch: the same ones for
    a given seed, whatever else the run does.

    Returns:
        (training indices, validation indices), each sorted, disjoint, together range(size).

    Raises:
        ValueError: ``val_size`` leaves no image to train on, or is negative.
    """
    if not 0 <= val_size < size:
        raise ValueError(f"a validation split of {val_size} images out of {size} leaves none to train on")
    order = torch.randperm(size, generator=torch.Generator().manual_seed(seed))
    return order[val_size:].sort().values, order[:val_size].sort().values


def random_offsets(count: int, generator: torch.Generator) -> torch.Tensor:
    """For each of ``count`` images, where RandomCrop(28, padding=2) would cut it from the padded
    image: (top, left), each uniform in 0..4, drawn independently. Returns int64 [count, 2]."""
    return torch.randint(0, 2 * MAX_SHIFT + 1, (count, 2), generator=generator)


def shift(images: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """The paper's shifts as tensor operations on a batch (on its own device): each image padded
    by 2 pixels of zeros and cut back to its size at ``offsets`` (top, left), as RandomCrop does.

    Args:
        images: [B, 1, H, W]. offsets: integers in 0..4, [B, 2].
    Returns:
        [B, 1, H, W]: the same pixel values, moved by offset - 2 pixels (those moved out are lost).
    """
    batch, _, height, width = images.shape
    padded = F.pad(images, (MAX_SHIFT,) * 4)  # [B, 1, H+4, W+4]
    rows = offsets[:, :1] + torch.arange(height, device=images.device)  # [B, H]
    columns = offsets[:, 1:] + torch.arange(width, device=images.device)  # [B, W]
    picked = padded[
        torch.arange(batch, device=images.device)[:, None, None], 0, rows[:, :, None], columns[:, None, :]
    ]  # [B, H, W]
    return picked.unsqueeze(1)


def load_semeion(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """The Semeion digits: 1593 rows of 256 binary pixels (16x16) then 10 one-hot labels.

    Returns:
        images: uint8 [N, 16, 16], 255 where there is ink; labels: int64 [N].
    """
    rows = np.loadtxt(path, dtype=np.float32)  # [N, 266]
    if rows.ndim != 2 or rows.shape[1] != 266:
        raise ValueError(f"{path}: expected rows of 256 pixels and 10 labels, got shape {rows.shape}")
    images = (rows[:, :256].reshape(-1, 16, 16) * 255).astype(np.uint8)
    labels = rows[:, 256:].argmax(axis=1).astype(np.int64)
    return images, labels


def batches(
    dataset: torch.utils.data.Dataset,
    batch_size: int | None,
    *,
    sampler: torch.utils.data.Sampler | None = None,
    device: torch.device = torch.device("cpu"),
    cuda_workers: int = 4,
) -> torch.utils.data.DataLoader:
    """A DataLoader: ``cuda_workers`` worker processes and pinned memory on CUDA, the main process
    on the CPU (where the cores are busy with the model and workers would only compete with it).
    ``batch_size`` None: each item of ``dataset`` is a batch already."""
    on_cuda = device.type == "cuda"
    workers = cuda_workers if on_cuda else 0
    return torch.utils.data.DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        num_workers=workers,
        pin_memory=on_cuda,
        persistent_workers=workers > 0,
    )
