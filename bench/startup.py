"""Seconds from `python app.py` to its page being served: what the first visitor of a Hugging Face
Space that wakes from sleep waits for.

Each run starts `python app.py` on a free loopback port and asks for the page every 50 ms until it
answers. With --cold the operating system's file cache is dropped before each run (it needs root:
it writes /proc/sys/vm/drop_caches), so torch, Gradio and the weights are read from disk again.
With --published it starts the Space as published instead: the folders a dry run of
`python -m playground.publish` writes, its model repos in the Hub's cache as the Space's
preload_from_hub leaves them (harness/stand_in_hub.py), offline (HF_HUB_OFFLINE=1), and no graph
kept on disk from an earlier start: each graph read from the repos' onnx/.

    python -m bench.startup --runs 3 --cold
    python -m bench.startup --runs 3 --published

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.train_throughput import cpu_model
from harness.app_server import free_port
from harness.paths import REPO

POLL_SECONDS = 0.05


def drop_file_cache() -> None:
    """Write dirty pages out, then drop the page cache, dentries and inodes."""
    os.sync()
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def published_space(folder: Path) -> tuple[Path, dict[str, str]]:
    """The Space a dry run of playground.publish writes into ``folder``, and the environment that
    starts it from its model repos in a Hub cache there, offline, with an empty folder of kept graphs."""
    from capsnet.shipping.kept_graphs import FOLDER_VARIABLE
    from harness.stand_in_hub import preloaded_cache
    from playground import publish

    out = folder / "published"
    with contextlib.redirect_stdout(io.StringIO()):
        publish.main(["--owner", "someone", "--dry-run", str(out)])
    cache = preloaded_cache(out, folder / "hub-cache", list(publish.REPOS.values()))
    environment = {key: value for key, value in os.environ.items() if not key.startswith("CAPSNET_")}
    environment |= {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache), FOLDER_VARIABLE: str(folder / "kept")}
    return out / "capsnet-playground", environment


def seconds_to_page(folder: Path = REPO, environment: dict[str, str] | None = None, timeout: float = 300.0) -> float:
    """Start `python app.py` in ``folder`` with ``environment`` (None: this one), return the seconds
    until GET / answers, stop it."""
    port = free_port()
    env = {
        **(os.environ if environment is None else environment),
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    start = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "app.py"], cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while time.perf_counter() - start < timeout:
            if server.poll() is not None:
                raise RuntimeError(f"app.py exited with code {server.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5):
                    return time.perf_counter() - start
            except OSError:
                time.sleep(POLL_SECONDS)
        raise RuntimeError(f"app.py did not serve its page within {timeout:.0f} s")
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="starts to time (default 3)")
    parser.add_argument("--cold", action="store_true", help="drop the file cache before each start (needs root)")
    parser.add_argument("--published", action="store_true", help="the Space as published, from the Hub's cache")
    args = parser.parse_args()

    times = []
    with tempfile.TemporaryDirectory() as temporary:
        folder, environment = published_space(Path(temporary)) if args.published else (REPO, None)
        for run in range(args.runs):
            if args.cold:
                drop_file_cache()
            times.append(seconds_to_page(folder, environment))
            print(f"run {run + 1}: page served {times[-1]:.1f} s after `python app.py`")
    print(
        f"CPU: {cpu_model()}; {'the published Space, ' if args.published else ''}"
        f"{'cold' if args.cold else 'warm'} file cache; "
        f"median {statistics.median(times):.1f} s, max {max(times):.1f} s over {args.runs} runs"
    )


if __name__ == "__main__":
    main()
