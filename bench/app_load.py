"""Latency and memory of the playground under load: many concurrent gradio_client sessions.

Serves `python app.py` on 127.0.0.1 in a subprocess (tests/app_server.py), warms it up with a short
run, then runs --sessions concurrent sessions of --requests requests each (/perturb mostly, a
/predict every --predict-every requests; tests/concurrent_clients.py) and prints:
- p50 / p95 latency of /predict and /perturb under that load, as the clients see it;
- the server's peak RSS: VmHWM (since start, model loading included) and the highest VmRSS
  sampled during the run;
- its RSS growth over the run, after the warm-up (target: < 50 MB over 1000 requests).
RSS is read from /proc/<pid>/status. app.py caps glibc's malloc arenas at two (limit_malloc_arenas);
with glibc's default of up to 8 per core, Gradio's worker threads leave freed memory scattered
and RSS creeps up with the requests.

    python -m bench.app_load --sessions 32 --requests 32
"""
import argparse
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from tests.app_server import serving_app
from tests.concurrent_clients import Call, run_sessions

GROWTH_LIMIT_MB = 50.0
SETTLE_SECONDS = 3.0     # for the server to finish the last requests before RSS is read


def server_pid() -> int:
    """The pid of the `python app.py` this process started."""
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                command = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue                                    # gone meanwhile
            parent = int(stat.rsplit(")", 1)[1].split()[1])  # pid (comm) state ppid ...
            if parent == os.getpid() and command[1:2] == [b"app.py"]:
                children.append(int(entry.name))
    (pid,) = children
    return pid


def memory_mb(pid: int, field: str) -> float:
    """A memory figure of /proc/<pid>/status (VmRSS: resident now, VmHWM: its peak) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024             # "VmRSS:   123456 kB"
    raise KeyError(field)


class PeakRss:
    """The highest VmRSS of ``pid`` sampled every ``interval`` seconds while in the with block."""

    def __init__(self, pid: int, interval: float = 0.1):
        self.pid, self.interval, self.peak = pid, interval, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, memory_mb(self.pid, "VmRSS"))
            self._stop.wait(self.interval)

    def __enter__(self) -> "PeakRss":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def latency_line(calls: list[Call], endpoint: str) -> str:
    times = sorted(call.seconds * 1e3 for call in calls if call.endpoint == endpoint and not call.error)
    if len(times) < 2:
        return f"{endpoint:<9} {len(times)} answers: too few for percentiles"
    p95 = statistics.quantiles(times, n=100)[94]
    return (f"{endpoint:<9} {len(times):5d} answers   p50 {statistics.median(times):8.1f} ms   "
            f"p95 {p95:8.1f} ms   max {times[-1]:8.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=32, help="concurrent clients (default 32)")
    parser.add_argument("--requests", type=int, default=32,
                        help="requests per session in the measured run (default 32: 1024 in all)")
    parser.add_argument("--warmup-requests", type=int, default=5,
                        help="requests per session in the warm-up run (default 5)")
    parser.add_argument("--predict-every", type=int, default=5,
                        help="a /predict every this many requests, /perturb otherwise (default 5)")
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="seconds allowed for each run (default 3600)")
    args = parser.parse_args()

    with serving_app(start_timeout=600) as url, tempfile.TemporaryDirectory() as downloads:
        pid = server_pid()
        started_mb = memory_mb(pid, "VmRSS")
        warmup = run_sessions(url, args.sessions, args.warmup_requests, Path(downloads),
                              args.timeout, args.predict_every)
        time.sleep(SETTLE_SECONDS)
        before_mb = memory_mb(pid, "VmRSS")
        start = time.perf_counter()
        with PeakRss(pid) as peak:
            calls = run_sessions(url, args.sessions, args.requests, Path(downloads),
                                 args.timeout, args.predict_every)
            seconds = time.perf_counter() - start
            time.sleep(SETTLE_SECONDS)
        after_mb, high_water_mb = memory_mb(pid, "VmRSS"), memory_mb(pid, "VmHWM")

    errors = [call.error for call in warmup + calls if call.error]
    growth_mb = after_mb - before_mb
    print(f"{args.sessions} concurrent sessions x {args.requests} requests = {len(calls)} requests "
          f"in {seconds:.1f} s ({len(calls) / seconds:.1f} requests/s), after a warm-up of "
          f"{len(warmup)}; errors: {len(errors)}")
    for error in errors[:5]:
        print(f"  error: {error}")
    print(latency_line(calls, "/predict"))
    print(latency_line(calls, "/perturb"))
    print(f"server RSS: {started_mb:.1f} MB when started, {before_mb:.1f} MB after the warm-up, "
          f"{after_mb:.1f} MB after the run")
    print(f"server peak RSS: {peak.peak:.1f} MB sampled during the run; VmHWM {high_water_mb:.1f} MB")
    print(f"RSS growth over {len(calls)} requests: {growth_mb:+.1f} MB "
          f"(target < {GROWTH_LIMIT_MB:.0f} MB: {'met' if growth_mb < GROWTH_LIMIT_MB else 'NOT met'})")


if __name__ == "__main__":
    main()
