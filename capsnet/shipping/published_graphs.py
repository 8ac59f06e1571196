"""The graphs a browser runs of a network, published beside its weights: the Hub's convention
(transformers.js, onnx-community) of an `onnx/` folder in the model repo, here `onnx/NAME.onnx`
for each graph the page reads, `onnx/NAME.onnx.gz` the same gzipped, and `onnx/graphs.json`
vouching for them:

    {"weights_sha256": the SHA-256 of the model.safetensors beside onnx/,
     "graphs": {NAME: {"file": "NAME.onnx", "sha256": the file's, "what": a few words,
                       "exporter": "capsules_graph", "key": what it was exported from,
                       "gzipped": {"file": "NAME.onnx.gz", "sha256": the file's}}}}

The gzipped copy is for a browser (the playground's page): the Hub sends a file as it is stored,
with no Content-Encoding, and a browser can un-gzip what it fetched (DecompressionStream), so a
page far from the Hub waits for fewer bytes. A Space reads only NAME.onnx (files ending `GZIPPED`
it need not download).

``key`` is `kept_graphs.graph_key` of the exporter's call with the exporting code's sources but not
the writing packages' versions: a graph is read back for the same exporter, options, weights,
config and code, whichever versions of torch or onnx the reader has installed.

`graphs(folder, exports)` reads each graph from the folder's onnx/ where graphs.json vouches for it
(its weights, its call and its bytes), and exports it otherwise (`kept_graphs.kept`), saying why.
"""

import gzip
import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from capsnet.shipping.kept_graphs import exporting_sources, graph_key, kept
from capsnet.shipping.pretrained import WEIGHTS_FILE
from capsnet.shipping.saving import sha256

log = logging.getLogger(__name__)

FOLDER = "onnx"
MANIFEST = "graphs.json"
GZIPPED = ".onnx.gz"  # how a graph's gzipped copy's name ends


@dataclass(frozen=True)
class Export:
    """One graph the page reads: ``export(*arguments, **options)`` (an exporter of
    `capsnet.shipping.onnx_file`), and what it is in a few words."""

    what: str
    export: Callable[..., bytes]
    arguments: tuple = ()
    options: dict = field(default_factory=dict)

    def key(self) -> str:
        return graph_key(self.export, self.arguments, self.options, exporting_sources())

    def kept(self) -> bytes:
        return kept(self.export, *self.arguments, **self.options)


def publish(folder: Path, exports: dict[str, Export]) -> None:
    """Each of ``exports`` written to ``folder``/onnx/NAME.onnx (kept, or exported) and gzipped to
    NAME.onnx.gz, and graphs.json vouching for them against ``folder``'s model.safetensors."""
    (folder / FOLDER).mkdir(parents=True, exist_ok=True)
    entries = {}
    for name, export in exports.items():
        graph = export.kept()
        gzipped = gzip.compress(graph, compresslevel=9, mtime=0)  # the same bytes for the same graph
        (folder / FOLDER / f"{name}.onnx").write_bytes(graph)
        (folder / FOLDER / f"{name}{GZIPPED}").write_bytes(gzipped)
        entries[name] = {
            "file": f"{name}.onnx",
            "sha256": hashlib.sha256(graph).hexdigest(),
            "what": export.what,
            "exporter": export.export.__name__,
            "key": export.key(),
            "gzipped": {"file": f"{name}{GZIPPED}", "sha256": hashlib.sha256(gzipped).hexdigest()},
        }
    manifest = {"weights_sha256": sha256(folder / WEIGHTS_FILE), "graphs": entries}
    (folder / FOLDER / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def graphs(folder: str | Path, exports: dict[str, Export]) -> dict[str, bytes]:
    """Each of ``exports``' graph by its name: read from ``folder``/onnx where graphs.json vouches
    for it, else kept or exported (`kept_graphs.kept`)."""
    manifest = _manifest(Path(folder))
    return {name: _published(Path(folder), manifest, name, export) or export.kept() for name, export in exports.items()}


def _manifest(folder: Path) -> dict:
    """graphs.json's entries for the weights in ``folder``; none where it is missing, unreadable, or
    made for other weights."""
    path = folder / FOLDER / MANIFEST
    if not path.is_file():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        recorded = manifest["weights_sha256"]
        entries = dict(manifest["graphs"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        log.warning("%s cannot be read (%s): its graphs are exported instead", path, error)
        return {}
    if recorded != sha256(folder / WEIGHTS_FILE):
        log.warning("%s was written for other weights than %s: its graphs are exported instead", path, WEIGHTS_FILE)
        return {}
    return entries


def _published(folder: Path, manifest: dict, name: str, export: Export) -> bytes | None:
    """The graph ``name`` from ``folder``/onnx, where ``manifest`` vouches for it: exported by the
    same call and code (its key), and its bytes those it records (their SHA-256)."""
    entry = manifest.get(name)
    if not isinstance(entry, dict):
        return None
    path = folder / FOLDER / f"{name}.onnx"
    if entry.get("key") != export.key():
        log.warning("%s was exported by another call or code than this one: it is exported again", path)
        return None
    try:
        graph = path.read_bytes()
    except OSError as error:
        log.warning("%s cannot be read (%s): it is exported again", path, error)
        return None
    if hashlib.sha256(graph).hexdigest() != entry.get("sha256"):
        log.warning("%s is not the graph %s records: it is exported again", path, MANIFEST)
        return None
    return graph
