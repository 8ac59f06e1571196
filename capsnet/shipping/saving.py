"""Files on disk: never half-written (written beside the target, then renamed over it), and known by
their SHA-256.

The temporary files have fixed names (``NAME.tmp``, the folder ``.saving``) and are removed when a
write fails, so a process killed while writing leaves at most one of each, which the next write
replaces.
"""

import hashlib
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import torch

SAVING = ".saving"  # atomic_save_pretrained's temporary folder inside the weights folder


@contextmanager
def replacing(path: Path, mode: str, **open_options):
    """A file opened as ``path``.tmp for the ``with`` block, then flushed to disk and os.replace'd
    over ``path``; removed instead where the block (or the write) fails."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, mode, **open_options) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_torch_save(state: dict, path: str | Path) -> None:
    """torch.save to ``path``.tmp, then os.replace it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path, "wb") as f:
        torch.save(state, f)


def atomic_write_text(path: str | Path, text: str) -> None:
    """``text`` written to ``path``.tmp (UTF-8, line endings as given), then os.replace'd over ``path``."""
    with replacing(Path(path), "w", encoding="utf-8", newline="") as f:
        f.write(text)


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
        raise RuntimeError(
            f"checkpoint {path} is unreadable ({error.__class__.__name__}: "
            f"{str(error).splitlines()[0] if str(error) else ''}); delete it and "
            "train again without --resume"
        ) from error


def ordinary_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: 0o666 less the process's umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_save_pretrained(model, out_dir: str | Path) -> None:
    """model.save_pretrained into ``out_dir``/.saving, then each file it wrote given an ordinary
    file's mode and renamed into ``out_dir``, but for the mixin's stub model card: the README.md in
    ``out_dir`` stays as it is (the card of the run that wrote it: capsnet.shipping.model_card)."""
    out_dir = Path(out_dir)
    tmp = out_dir / SAVING
    shutil.rmtree(tmp, ignore_errors=True)  # left by a process killed while saving
    try:
        tmp.mkdir(parents=True)
        model.save_pretrained(tmp)
        for file in tmp.iterdir():
            if file.name != "README.md":
                os.chmod(file, ordinary_mode())  # safetensors writes its file 0600
                os.replace(file, out_dir / file.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def sha256(path: Path) -> str:
    """The hex SHA-256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()
