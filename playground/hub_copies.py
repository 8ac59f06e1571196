"""The page's big files from the Hub's CDN, where they are published there: for each file the Space
serves that has a copy in a Hub repo (`python -m playground.publish`), the address of that copy at
the pinned revision and the SHA-256 of the file the Space serves, in SRI form (`integrity`), so that
the page reads exactly the file the Space names; the page takes the Space's own where the copy
cannot be had or is not that file (playground/page/downloaded.js).

- **The graphs** of each network whose weights come from a Hub repo (`owner/name@REVISION`:
  networks.py's settings): those its onnx/graphs.json records, gzipped, at
  ``{HF_ENDPOINT}/{repo}/resolve/{commit}/onnx/NAME.onnx.gz``, the commit its local snapshot was
  made at (the snapshot's folder is named by it), checked against the SHA-256 graphs.json records
  of that file (the Hub sends a file as it is stored: the page un-gzips it). A graph the Space
  exported itself, rather than read from onnx/, is served under another address (its bytes' hash)
  and has no copy.
- **ONNX Runtime Web's WebAssembly**, published gzipped in a model repo of its own
  (RUNTIME_VARIABLE): the Hub sends a file as it is stored, and the page un-gzips it
  (DecompressionStream); its 14.2 MB are 3.7 MB so. Its two ES modules (74 KB, 25 KB gzipped) stay
  with the Space, which imports them in the page's workers.

``HF_ENDPOINT`` (huggingface_hub's; default https://huggingface.co) names the Hub, so that a test
points the page at a stand-in. Served from a folder, the page fetches everything from the Space.
"""

import base64
import hashlib
import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

from huggingface_hub import hf_hub_url

from capsnet.shipping.pretrained import HUB_REPO_ID
from capsnet.shipping.published_graphs import FOLDER as ONNX, MANIFEST
from playground import networks
from playground.page_network import FOLDER as GRAPHS, RUNTIME, RUNTIME_FOLDER, VERSION

log = logging.getLogger("playground")
RUNTIME_VARIABLE = "CAPSNET_ONNXRUNTIME_WEB"  # the model repo of ONNX Runtime Web's WebAssembly
WASM = "ort-wasm-simd-threaded.wasm"
RUNTIME_COPY = f"{VERSION}/{WASM}.gz"  # its path in that repo: the Space's own gzipped file


@dataclass(frozen=True)
class HubCopy:
    """Where the page fetches a file the Space serves, checked against the Space's SHA-256."""

    url: str  # its resolve address on the Hub, at a commit
    integrity: str  # "sha256-BASE64" of the bytes fetched (fetch's integrity)
    gzipped: bool = False  # stored gzipped: the page un-gzips the bytes fetched


def integrity(sha256_hex: str) -> str:
    """A SHA-256 in hex, as Subresource Integrity writes it."""
    return "sha256-" + base64.b64encode(bytes.fromhex(sha256_hex)).decode()


def hub_repo(source: str) -> tuple[str, str | None] | None:
    """The repo id and revision (None: its main branch) ``source`` names, None for a folder."""
    if Path(source).is_dir() or not HUB_REPO_ID.fullmatch(source):
        return None
    repo, _, revision = source.partition("@")
    return repo, revision or None


def graph_copies(source: str, folder: str | Path) -> dict[str, HubCopy]:
    """By the Space's address of each (network/NAME.onnx), the Hub's copies of the graphs published
    beside the weights ``source`` names, ``folder`` its local snapshot; none for a folder."""
    repo = hub_repo(source)
    manifest = Path(folder) / ONNX / MANIFEST
    if repo is None or not manifest.is_file():
        return {}
    commit = Path(folder).name  # the Hub's cache names a snapshot by its commit
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))["graphs"].values()
        return {
            f"{GRAPHS}/{entry['sha256'][:16]}.onnx": HubCopy(
                hf_hub_url(repo[0], f"{ONNX}/{entry['gzipped']['file']}", revision=commit),
                integrity(entry["gzipped"]["sha256"]),
                gzipped=True,
            )
            for entry in entries
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        log.warning("%s cannot be read (%s): the page fetches these graphs from the Space", manifest, error)
        return {}


def runtime_copy() -> dict[str, HubCopy]:
    """ONNX Runtime Web's WebAssembly by the Space's address, where RUNTIME_VARIABLE (or the Space's
    published.json) names the model repo it is published in, at a revision; else none."""
    repo = hub_repo(networks.published_source(RUNTIME_VARIABLE, ""))
    if repo is None:
        return {}
    digest = hashlib.sha256((RUNTIME_FOLDER / f"{WASM}.gz").read_bytes()).hexdigest()
    url = hf_hub_url(repo[0], RUNTIME_COPY, revision=repo[1])
    return {f"{RUNTIME}/{WASM}": HubCopy(url, integrity(digest), gzipped=True)}


def page_copies(loaded: networks.Networks) -> dict[str, dict]:
    """Every file of the page that has a copy on the Hub, by its address relative to the page: the
    graphs of each network ``loaded`` and ONNX Runtime Web's WebAssembly (as JSON: url, integrity,
    gzipped)."""
    folders = {("capsnet", "digits"): loaded.weights, ("cnn", "digits"): loaded.cnn_weights}
    if loaded.pairs.folders is not None:
        folders["capsnet", "pairs"], folders["cnn", "pairs"] = loaded.pairs.folders
    copies = runtime_copy()
    for network, folder in folders.items():
        copies |= graph_copies(networks.served(*network), folder)
    return {url: asdict(copy) for url, copy in copies.items()}
