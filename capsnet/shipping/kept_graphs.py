"""Graphs exported once and kept on disk: `kept(export, *arguments)` is ``export(*arguments)``'s bytes
(an exporter of `capsnet.shipping.onnx_file`), read from a folder where an earlier call left them.

An export takes seconds (`torch.onnx.export` traces the network); a graph depends on nothing but
what it is exported from, so each is kept under a key of all of that:

- the exporter's name and its arguments: a network by its class, its config and every tensor of
  its state_dict (names, dtypes, shapes, bytes), other arguments by their repr;
- the exporting code: the source of every module of `capsnet` that onnx_file imports, directly or
  through another (read from its file, so an edited module is a new key), and the versions of
  the packages that write the graph (WRITERS).

Changed weights or changed code give another key, so a kept graph is never read for what it was
not exported from; old keys are left where they are (a few MB each; remove the folder to clear
them). The folder is $CAPSNET_GRAPHS, else capsnet/graphs in the user's cache
($XDG_CACHE_HOME, else ~/.cache). A folder that cannot be written to costs only the time: the graph
is exported and used, and a warning says why it was not kept.
"""

import ast
import functools
import hashlib
import importlib.metadata
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict, is_dataclass
from pathlib import Path

import torch

import capsnet
from capsnet.shipping import onnx_file
from capsnet.shipping.saving import ordinary_mode

log = logging.getLogger(__name__)

FOLDER_VARIABLE = "CAPSNET_GRAPHS"
WRITERS = ("torch", "onnx", "onnxscript", "onnx-ir", "numpy")  # the packages that write an export's bytes
_PACKAGE = Path(capsnet.__file__).parent


def kept(export: Callable[..., bytes], *arguments, **options) -> bytes:
    """``export(*arguments, **options)``, read from the kept graphs' folder where it is there, else
    exported and kept there."""
    name = f"{export.__name__}-{graph_key(export, arguments, options)}.onnx"
    return kept_file(name, lambda: export(*arguments, **options))


def kept_file(name: str, make: Callable[[], bytes]) -> bytes:
    """The file ``name`` of the kept graphs' folder, else ``make()``'s bytes, kept there under that
    name, which must say all they depend on (a graph's key; a compressed graph's hash)."""
    path = folder() / name
    try:
        return path.read_bytes()
    except OSError:  # not kept yet, or its folder cannot be had
        pass
    made = make()
    try:
        _write(path, made)
    except OSError as error:
        log.warning("%s is made anew at every start: it cannot be kept (%s)", path.name, error)
    return made


def folder() -> Path:
    """Where graphs are kept: $CAPSNET_GRAPHS, else capsnet/graphs in the user's cache folder."""
    if os.environ.get(FOLDER_VARIABLE):
        return Path(os.environ[FOLDER_VARIABLE])
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "capsnet" / "graphs"


def graph_key(export: Callable[..., bytes], arguments: tuple, options: dict, code: str | None = None) -> str:
    """32 hex digits of the SHA-256 of all a graph is exported from (the module docstring's list);
    ``code`` in place of `exporting_code()` where the writing packages' versions do not matter
    (`capsnet.shipping.published_graphs`: `exporting_sources()`)."""
    digest = hashlib.sha256((code or exporting_code()).encode())
    digest.update(export.__qualname__.encode())
    for argument in (*arguments, *sorted(options.items())):
        _add(digest, argument)
    return digest.hexdigest()[:32]


@functools.cache
def exporting_sources() -> str:
    """The SHA-256 of the sources of onnx_file and the `capsnet` modules it imports."""
    return _sources_digest().hexdigest()


@functools.cache
def exporting_code() -> str:
    """The SHA-256 of the exporting code: the sources of onnx_file and the `capsnet` modules it
    imports, and the writing packages' versions."""
    digest = _sources_digest()
    for package in WRITERS:
        digest.update(f"{package}=={importlib.metadata.version(package)}".encode())
    return digest.hexdigest()


def _sources_digest():
    """A SHA-256 fed the sources of onnx_file and the `capsnet` modules it imports, by name."""
    digest = hashlib.sha256()
    for module in sorted(_imported_modules(onnx_file.__name__, set())):
        digest.update(module.encode() + b"\0" + _source(module).read_bytes())
    return digest


def _imported_modules(module: str, found: set[str]) -> set[str]:
    """``module`` and every `capsnet` module it imports, directly or through another, by name."""
    if module in found or _source(module) is None:
        return found
    found.add(module)
    for node in ast.walk(ast.parse(_source(module).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            # from a package, its names may be modules: from capsnet.shipping import onnx_file
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] == capsnet.__name__:
                _imported_modules(name, found)
    return found


def _source(module: str) -> Path | None:
    """The file of a `capsnet` module or package; None for a name that is not one (a class, say)."""
    path = _PACKAGE.parent.joinpath(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _add(digest, argument) -> None:
    """``argument`` into ``digest``: a module by its class, config and state_dict, others by repr."""
    if isinstance(argument, torch.nn.Module):
        config = getattr(argument, "config", None)
        digest.update(type(argument).__qualname__.encode())
        digest.update(repr(asdict(config) if is_dataclass(config) else config).encode())
        for name, tensor in argument.state_dict().items():
            digest.update(f"{name} {tensor.dtype} {tuple(tensor.shape)}".encode())
            digest.update(tensor.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes())
    else:
        digest.update(repr(argument).encode())


def _write(path: Path, graph: bytes) -> None:
    """``graph`` written to ``path`` whole: to a file of its own beside it, then renamed over it, so
    that processes keeping the same graph at once never read half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False) as file:
        file.write(graph)
        file.flush()
        os.fsync(file.fileno())
    os.chmod(file.name, ordinary_mode())  # not the temporary file's 0o600
    try:
        os.replace(file.name, path)
    except OSError:
        Path(file.name).unlink(missing_ok=True)
        raise
