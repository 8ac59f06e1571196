"""Publish the playground on the Hugging Face Hub: each network the page serves as a model repo
of its own, then the Space that runs the page, pinned to them.

    python -m playground.publish --owner NAME --dry-run OUT   # the folders it would upload, in OUT
    python -m playground.publish --owner NAME                 # uploads them

A model repo (NAME/capsnet-mnist, NAME/cnn-mnist, NAME/capsnet-mnist-pairs, NAME/cnn-mnist-pairs)
holds the network's weights, config.json, model card, metrics.json and the studies' results beside
them, and in onnx/ the graphs the page reads of it, with graphs.json vouching for them
(`capsnet.shipping.published_graphs`; which graphs: page_graphs.py). Each comes from where the
page takes it (playground/networks.py's settings).

The Space (NAME/capsnet-playground, or --space) is the files git tracks but weights/: its
README.md's front matter preloads each model repo at the commit its upload made
(`preload_from_hub`), and playground/published.json names those repos at those commits for the app
(networks.py), as a Space's variables would, but in the same commit as the files they go with.

ONNX Runtime Web's WebAssembly goes to NAME/onnxruntime-web, gzipped, for the page to fetch from the
Hub's CDN (playground/hub_copies.py); published.json names it at its commit too.

The token is huggingface_hub's: $HF_TOKEN, else the one `hf auth login` stored.
"""

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from huggingface_hub import HfApi

from capsnet.shipping.pretrained import CONFIG_FILE, NETWORKS, SERVED_BY, WEIGHTS_FILE, WeightsError, load_model
from capsnet.shipping.published_graphs import GZIPPED, publish
from playground import hub_copies, networks
from playground.page_graphs import GRAPHS
from playground.page_network import RUNTIME_FOLDER, VERSION

REPO = Path(__file__).resolve().parents[1]
REPOS = {  # (--model, --task): the model repo's name under --owner
    ("capsnet", "digits"): "capsnet-mnist",
    ("cnn", "digits"): "cnn-mnist",
    ("capsnet", "pairs"): "capsnet-mnist-pairs",
    ("cnn", "pairs"): "cnn-mnist-pairs",
}
MODEL_FILES = (
    WEIGHTS_FILE,
    CONFIG_FILE,
    "README.md",
    "metrics.json",
    "dimensions.json",
    "robustness.json",
    "pairs.json",
)
KEPT_OUT = "weights/"  # the Space's tracked files but these: the weights come from the model repos
HARDWARE = ("zero-a10g", "cpu-basic")  # huggingface_hub's SpaceHardware: ZeroGPU, CPU Basic
RUNTIME_REPO = "onnxruntime-web"  # ONNX Runtime Web's WebAssembly, for the page (playground/hub_copies.py)
RUNTIME_CARD = """---
license: mit
---

# ONNX Runtime Web {version}'s WebAssembly

`{path}`: `ort-wasm-simd-threaded.wasm` of the npm package `onnxruntime-web@{version}` (MIT licence,
Microsoft), gzipped, as the Capsule Network Playground's page runs it: the page fetches it from here
at a pinned commit, checks it against the SHA-256 its Space names, and un-gzips it.
"""
UNPINNED = "main"  # the revision a dry run pins to: no upload has made a commit yet


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--owner", required=True, help="the Hub user or organisation the repos go under")
    parser.add_argument("--space", default="capsnet-playground", help="the Space's name (default: capsnet-playground)")
    parser.add_argument(
        "--hardware",
        choices=HARDWARE,
        default=HARDWARE[0],
        help="the Space's hardware where the upload creates it: ZeroGPU, which a free account may "
        "host, or CPU Basic, which needs a paid plan (default: %(default)s; docs/playground.md)",
    )
    parser.add_argument(
        "--dry-run",
        type=Path,
        metavar="OUT",
        help="write the folders it would upload to OUT and list their files, uploading nothing (default: upload)",
    )
    args = parser.parse_args(argv)
    if args.dry_run and args.dry_run.exists() and any(args.dry_run.iterdir()):
        parser.error(f"--dry-run {args.dry_run}: the folder is not empty")
    return args


def model_folder(out: Path, model: str, task: str) -> Path:
    """The model repo of ``model`` on ``task`` as a folder in ``out``: the files MODEL_FILES names
    where the page's weights folder has them, and onnx/ with the page's graphs of the network."""
    source = Path(networks.served_folder(model, task))
    folder = out / REPOS[model, task]
    folder.mkdir(parents=True)
    for name in MODEL_FILES:
        if (source / name).is_file():
            shutil.copy2(source / name, folder / name)
    publish(folder, GRAPHS[model, task](load_model(folder, NETWORKS[model])))
    return folder


def runtime_folder(out: Path) -> Path:
    """ONNX Runtime Web's WebAssembly as a model repo's folder in ``out``: the Space's own gzipped
    file, at hub_copies.RUNTIME_COPY, and what it is (RUNTIME_CARD)."""
    folder = out / RUNTIME_REPO
    (folder / hub_copies.RUNTIME_COPY).parent.mkdir(parents=True)
    shutil.copy2(RUNTIME_FOLDER / f"{hub_copies.WASM}.gz", folder / hub_copies.RUNTIME_COPY)
    card = RUNTIME_CARD.format(path=hub_copies.RUNTIME_COPY, version=VERSION)
    (folder / "README.md").write_text(card, encoding="utf-8")
    return folder


def space_folder(
    out: Path, name: str, pins: dict[tuple[str, str], tuple[str, str, Path]], runtime: str | None = None
) -> Path:
    """The Space as a folder in ``out``: the files git tracks but KEPT_OUT, README.md preloading
    each model repo at its revision (its files but the graphs' gzipped copies, which only the page
    fetches), and playground/published.json naming them and ``runtime``.

    Args:
        pins: for each network (--model, --task), its model repo's id, revision and folder.
        runtime: ONNX Runtime Web's repo as "owner/name@revision", which the page fetches its
            WebAssembly from (not preloaded: the Space serves its own copy too).
    """
    folder = out / name
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    for path in tracked.splitlines():
        if not path.startswith(KEPT_OUT):
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / path, folder / path)
    preloads = [
        f"  - {repo} {','.join(name for name in files(repo_folder) if not name.endswith(GZIPPED))} {revision}"
        for repo, revision, repo_folder in pins.values()
    ]
    readme = (folder / "README.md").read_text(encoding="utf-8")
    end = readme.index("\n---\n", 3)  # the front matter's closing line
    readme = readme[:end] + "\npreload_from_hub:\n" + "\n".join(preloads) + readme[end:]
    (folder / "README.md").write_text(readme, encoding="utf-8")
    published = {SERVED_BY[network].variable: f"{repo}@{revision}" for network, (repo, revision, _) in pins.items()}
    if runtime is not None:
        published[hub_copies.RUNTIME_VARIABLE] = runtime
    (folder / networks.PUBLISHED.relative_to(REPO)).write_text(json.dumps(published, indent=2) + "\n", encoding="utf-8")
    return folder


def files(folder: Path) -> list[str]:
    """Every file under ``folder``, by its path inside it."""
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())


def listing(folder: Path) -> str:
    """``folder``'s files, a line each: SHA-256, bytes, path; and their count and bytes in all."""
    lines, total = [f"{folder}/"], 0
    for name in files(folder):
        data = (folder / name).read_bytes()
        total += len(data)
        lines.append(f"  {hashlib.sha256(data).hexdigest()}  {len(data):>11,}  {name}")
    return "\n".join([*lines, f"  {len(lines) - 1} files, {total:,} bytes"])


def upload(api: HfApi, repo_id: str, folder: Path, repo_type: str = "model", hardware: str | None = None) -> str:
    """``folder`` as the whole of the Hub repo ``repo_id`` (created where missing, a Space as a
    Gradio one on ``hardware``; a remote file not in it deleted); the commit it made."""
    space = {"space_sdk": "gradio", "space_hardware": hardware} if repo_type == "space" else {}
    api.create_repo(repo_id, repo_type=repo_type, exist_ok=True, **space)
    commit = api.upload_folder(
        repo_id=repo_id,
        repo_type=repo_type,
        folder_path=folder,
        delete_patterns="*",
        commit_message="python -m playground.publish",
    )
    print(f"uploaded {folder.name}/ to {commit.commit_url}")
    return commit.oid


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    api = None if args.dry_run else HfApi()
    with tempfile.TemporaryDirectory() as temporary:
        out = args.dry_run or Path(temporary)
        pins = {}
        for model, task in REPOS:  # the model repos first: the Space is pinned to their commits
            try:
                folder, repo = model_folder(out, model, task), f"{args.owner}/{REPOS[model, task]}"
            except WeightsError as error:
                print(f"publish: error: {error}", file=sys.stderr)
                return 1
            pins[model, task] = (repo, UNPINNED if api is None else upload(api, repo, folder), folder)
        runtime_repo, runtime = f"{args.owner}/{RUNTIME_REPO}", runtime_folder(out)
        runtime_pin = f"{runtime_repo}@{UNPINNED if api is None else upload(api, runtime_repo, runtime)}"
        space = space_folder(out, args.space, pins, runtime_pin)
        if api is None:
            print("\n\n".join(listing(folder) for folder in [*(pin[2] for pin in pins.values()), runtime, space]))
            print(f"\nnothing uploaded; the Space would preload each model repo at its commit, here {UNPINNED!r}")
        else:
            upload(api, f"{args.owner}/{args.space}", space, repo_type="space", hardware=args.hardware)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
