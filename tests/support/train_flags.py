"""train.py's command line for a test's run, written as arguments."""

from pathlib import Path

from tests.support.mnist_files import TINY_MNIST_IMAGES

# A tiny run: two epochs of three steps on tiny_mnist (tests/conftest.py), on the CPU.
TINY_RUN_BATCH, TINY_RUN_EPOCHS = 16, 2
TINY_RUN_VAL = 16  # validation images, the rest of the 64 for training
TINY_RUN_STEPS = (TINY_MNIST_IMAGES - TINY_RUN_VAL) // TINY_RUN_BATCH  # steps an epoch


def train_flags(data: Path, out: Path | None, checkpoint: Path | None = None, **options: object) -> list[str]:
    """train.py's flags for a run on the MNIST files in ``data`` that saves its network in ``out``
    (None: no --out) and its checkpoint at ``checkpoint`` (by default last.pt in ``out``), then each
    of ``options`` as ``--name value`` (``val_size=16``: ``--val-size 16``; ``True`` the bare flag:
    ``dry_run=True``: ``--dry-run``)."""
    flags = ["--data-dir", str(data)] + (["--out", str(out)] if out is not None else [])
    flags += ["--checkpoint", str(checkpoint or out / "last.pt")]
    for name, value in options.items():
        flags += [f"--{name.replace('_', '-')}"] + ([] if value is True else [str(value)])
    return flags


def tiny_run_flags(data: Path, run: Path, *extra: str) -> list[str]:
    """train.py's flags for a tiny run on the MNIST files in ``data``: its network in ``run``/weights,
    its checkpoint at ``run``/checkpoints/last.pt, then ``extra``."""
    flags = train_flags(
        data,
        run / "weights",
        run / "checkpoints" / "last.pt",
        limit=TINY_MNIST_IMAGES - TINY_RUN_VAL,
        val_size=TINY_RUN_VAL,
        batch_size=TINY_RUN_BATCH,
        epochs=TINY_RUN_EPOCHS,
        device="cpu",
    )
    return [*flags, *extra]
