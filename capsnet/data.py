"""Data sets: MNIST through torchvision (with the paper's shift augmentation) and Semeion."""
from pathlib import Path

import numpy as np
import torch
from torchvision import datasets, transforms

MAX_SHIFT = 2  # the paper's only augmentation: shifts of up to 2 pixels in each direction

train_transform = transforms.Compose([transforms.RandomCrop(28, padding=MAX_SHIFT), transforms.ToTensor()])
test_transform = transforms.ToTensor()


def mnist(data_dir: str | Path, train: bool, augment: bool = False) -> datasets.MNIST:
    """torchvision's MNIST from ``data_dir``, downloaded there first when it is missing.

    Raises:
        RuntimeError: the files are missing and cannot be downloaded (no network).
    """
    transform = train_transform if augment else test_transform
    try:
        return datasets.MNIST(root=str(data_dir), train=train, transform=transform, download=False)
    except RuntimeError:
        pass
    try:
        return datasets.MNIST(root=str(data_dir), train=train, transform=transform, download=True)
    except Exception as error:
        raise RuntimeError(
            f"MNIST is not in {Path(data_dir) / 'MNIST' / 'raw'} and could not be downloaded "
            f"({error}). Point --data-dir at a folder that holds MNIST/raw/, or go online.") from error


def load_semeion(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """The Semeion digits: 1593 rows of 256 binary pixels (16x16) then 10 one-hot labels.

    Returns:
        images: uint8 [N, 16, 16], 255 where there is ink; labels: int64 [N].
    """
    rows = np.loadtxt(path, dtype=np.float32)       # [N, 266]
    if rows.ndim != 2 or rows.shape[1] != 266:
        raise ValueError(f"{path}: expected rows of 256 pixels and 10 labels, got shape {rows.shape}")
    images = (rows[:, :256].reshape(-1, 16, 16) * 255).astype(np.uint8)
    labels = rows[:, 256:].argmax(axis=1).astype(np.int64)
    return images, labels


def batches(dataset: torch.utils.data.Dataset, batch_size: int, *, shuffle: bool = False,
            generator: torch.Generator | None = None, device: torch.device = torch.device("cpu"),
            ) -> torch.utils.data.DataLoader:
    """A DataLoader: worker processes and pinned memory on CUDA, the main process on the CPU
    (where both cores are busy with the model and workers would only compete with it)."""
    on_cuda = device.type == "cuda"
    return torch.utils.data.DataLoader(
        dataset, batch_size=batch_size, shuffle=shuffle, generator=generator,
        num_workers=4 if on_cuda else 0, pin_memory=on_cuda, persistent_workers=on_cuda)
