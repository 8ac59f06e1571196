"""Files that are never half-written: write beside the target, then rename over it."""
import os
import tempfile
from pathlib import Path

import torch


def atomic_torch_save(state: dict, path: str | Path) -> None:
    """torch.save to a temporary file in the same folder, then os.replace it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_checkpoint(path: str | Path) -> dict:
    """A training checkpoint, read without pickle (``weights_only=True``).

    Raises:
        RuntimeError: the file is missing, truncated or not a checkpoint; the message names it.
    """
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise RuntimeError(f"no checkpoint at {path}: start without --resume") from None
    except Exception as error:
        raise RuntimeError(f"checkpoint {path} is unreadable ({error.__class__.__name__}: "
                           f"{str(error).splitlines()[0] if str(error) else ''}); delete it and "
                           "train again without --resume") from error


def atomic_save_pretrained(model, out_dir: str | Path) -> None:
    """model.save_pretrained into a temporary folder, then rename each file into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".saving-") as tmp:
        model.save_pretrained(tmp)
        for file in Path(tmp).iterdir():
            os.replace(file, out_dir / file.name)
