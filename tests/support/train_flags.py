"""train.py's command line for a test's run, written as arguments."""

from pathlib import Path


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
