"""Seconds from `python app.py` to its page being served: what the first visitor of a Hugging Face
Space that wakes from sleep waits for.

Each run starts `python app.py` on a free loopback port and asks for the page every 50 ms until it
answers. With --cold the operating system's file cache is dropped before each run (it needs root:
it writes /proc/sys/vm/drop_caches), so torch, Gradio and the weights are read from disk again.

    python -m bench.startup --runs 3 --cold

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import os
import statistics
import subprocess
import sys
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


def seconds_to_page(timeout: float = 300.0) -> float:
    """Start `python app.py`, return the seconds until GET / answers, stop it."""
    port = free_port()
    env = {
        **os.environ,
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    start = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "app.py"], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
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
    args = parser.parse_args()

    times = []
    for run in range(args.runs):
        if args.cold:
            drop_file_cache()
        times.append(seconds_to_page())
        print(f"run {run + 1}: page served {times[-1]:.1f} s after `python app.py`")
    print(
        f"CPU: {cpu_model()}; {'cold' if args.cold else 'warm'} file cache; "
        f"median {statistics.median(times):.1f} s, max {max(times):.1f} s over {args.runs} runs"
    )


if __name__ == "__main__":
    main()
