"""How many people at once the playground serves on this machine, measured as people use it.

Serves `python app.py` on 127.0.0.1 in a subprocess (harness/app_server.py) and lets --people N
people use its page together: light HTTP clients in this process that ask what the page asks of the
server where it cannot compute, POST /ask/KIND (harness/page_crowd.py). Each opens the page once,
fetching what a browser's first visit fetches before any scroll: the page, Gradio's frontend, the
page's modules, its graphs and ONNX Runtime Web (11 MB as sent, compressed), the list recorded at
the start from a first visit of the served page in headless Chromium (harness/page_visit.py) and
asked for as a browser asks (the page, then six files at a time, taking gzip, brotli and zstd);
draws a digit stroke by stroke (read in the page with no request; a page that does not read asks
readings of its 28x28 while a stroke is drawn, the routed one at pen-up, then Figure 4), drags a
slider in a few moves (redrawn by the page's decoder, with no request; a page without one asks each
move's picture), after every other digit or so turns it in the Turn-it section (the first time
scrolling down fetches Turn it's graphs, 6 MB, as a browser does; a page without them asks the
panel, the rotation sweep and each of a few moves of the rotation slider), looks for two seconds,
presses Clear (nothing asked); half of them then draw a pair on the Two-digits pad (a digit with pen
1, another moved over it with pen 2, stroke by stroke likewise; the first time, scrolling down
fetches the section's graphs, and a page that reads pairs itself then sends nothing of them), after
every other pair or so change Decode as, look, press its Clear (nothing asked); and each draws
another digit. For each N, after a warm-up digit each, until --readings strokes of the digit pad
have been finished and read (by the page, or answered by the server), it prints:
- p50 / p95 / max latency of each event, the Two-digits pad's in rows of their own; a final
  reading's is what the person waits: from pen-up to the reading shown, a live reading still in
  flight included;
- errors: a failed request, or an answer that is not what the page needs (the reading of the 28x28
  sent, of the drawn digit, with routing at pen-up; Figure 4; each move's picture; the turns of the
  drawn digit; the pair panel of the fields sent, both pens' ink in its input once both digits are
  drawn, with the capsule Decode as names);
- requests/s, and the CPU the server and the clients used;
- the page's files fetched, in the warm-up and in the run: how many first visits and first scrolls
  down, each one's files and bytes as sent (status line and headers included), and the bytes in all;
- the server's RSS (from /proc/<pid>/status): when started, after the warm-up, its peak sampled
  during the run, after the run, and the growth over the run, with samples along it (the people
  of the warm-up come back as the same sessions, so the growth is that of the readings, not of
  the per-session state of new visitors: about 1 MB each, the routing kept for the sliders), and
  their browsers keep the files fetched in the warm-up, as a browser caches the page's immutable
  files; with --arriving they open the page afresh instead, all at once, fetching everything again
  (a crowd arriving together: 11 MB a person, and the Turn-it and Two-digits graphs once scrolled
  down, most of it in the measured run's first seconds).
N serves everyone when the final readings' p95 is at most 1 s on each pad the server reads, with
no error (no error alone where the page reads both pads itself: the crowd then costs the server
its files); the ramp stops at the first N that
does not, and names the largest that did, and the CPU. (Without the pairs networks the page has no
Two-digits pad: nobody draws pairs, and the digit pad's readings alone decide.)
With --against REV the app of git revision REV (today's code before a change, say) is served from a
checkout of it in turn with this one, and its page's people send what its page sends (read from that
code's own harness, its `Page`; its files as Chromium's visit of it fetches them): the same ramp,
then the final readings' p95 of both side by side. --rounds R measures each R times, in the order
this, REV, REV, this, ..., so that a machine's load drifting over the run falls on both alike.

    python -m bench.app_load --people 8 16 24 32 --readings 300
    python -m bench.app_load --people 100 200 --readings 600 --arriving
    python -m bench.app_load --people 24 --readings 1000
    python -m bench.app_load --people 40 --readings 1200 --against HEAD --rounds 2

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import dataclasses
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import numpy as np
import torch

import app
from bench.inference_latency import percentile
from bench.train_throughput import cpu_model
from harness.app_server import checkout, serving_app
from harness.digit_strokes import random_box, strokes
from harness.page_crowd import Browser, use_the_page
from harness.page_protocol import EVENTS, Exchange, Page
from harness.page_visit import visited
from harness.paths import REPO
from playground import serving
from playground.drawing_pad import SIDE

P95_LIMIT_SECONDS = 1.0  # the final readings' p95 on each pad for N people to count as served
WARMUP_DIGITS = 1  # per person, before the measured run
DRAWINGS_PER_DIGIT = 4  # the pool people draw from: each digit at this many sizes and places
SETTLE_SECONDS = 3.0  # for the server to finish the last requests before RSS is read
RSS_SAMPLES_SHOWN = 5  # RSS along the run: the first sample, the last, evenly between
MB = 1e6
# Open files this process and the server may hold: each person opens up to BROWSER_CONNECTIONS (6)
# connections at once, and the server as many, more than a shell's usual 1024 at 200 people
OPEN_FILES = 1 << 16


def drawings(seed: int = 0) -> list[tuple[int, list[list[float]]]]:
    """(digit, strokes) of every digit at DRAWINGS_PER_DIGIT random sizes and places."""
    rng = np.random.default_rng(seed)
    return [
        (digit, strokes(digit, *random_box(rng, SIDE)))
        for digit in range(app.NETWORKS.capsnet.config.num_classes)
        for _ in range(DRAWINGS_PER_DIGIT)
    ]


def server_pid() -> int:
    """The pid of the `python app.py` this process started."""
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                command = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue  # gone meanwhile
            parent = int(stat.rsplit(")", 1)[1].split()[1])  # pid (comm) state ppid ...
            if parent == os.getpid() and command[1:2] == [b"app.py"]:
                children.append(int(entry.name))
    (pid,) = children
    return pid


def memory_mb(pid: int, field: str) -> float:
    """A memory figure of /proc/<pid>/status (VmRSS: resident now, VmHWM: its peak) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024  # "VmRSS:   123456 kB"
    raise KeyError(field)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of ``pid`` so far, all its threads, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


class RssSampler:
    """VmRSS of ``pid`` sampled every ``interval`` seconds while in the with block."""

    def __init__(self, pid: int, interval: float = 0.1):
        self.pid, self.interval, self.samples = pid, interval, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.samples.append(memory_mb(self.pid, "VmRSS"))
            self._stop.wait(self.interval)

    def __enter__(self) -> "RssSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def files_line(exchanges: list[Exchange]) -> str:
    """What the people's GETs of the page's files were: how many first visits and first scrolls
    down, the files and bytes (as sent) of each, and the bytes in all."""
    parts = []
    for event, what in (("visit", "first visits"), ("scrolled", "first scrolls down")):
        loads = [exchange for exchange in exchanges if exchange.event == event]
        if loads:
            files = statistics.mean(len(exchange.fetched) for exchange in loads)
            size = statistics.mean(sum(file.size for file in exchange.fetched) for exchange in loads)
            parts.append(f"{len(loads)} {what} of {files:.0f} files, {size / MB:.2f} MB each")
    total = sum(file.size for exchange in exchanges for file in exchange.fetched)
    return f"{', '.join(parts) or 'none'}; {total / MB:.1f} MB in all"


def latency_line(exchanges: list[Exchange], event: str) -> tuple[str, float | None]:
    """The event's line of the table, and its p95 in seconds (None for fewer than two answers)."""
    times = sorted(exchange.waited for exchange in exchanges if exchange.event == event and not exchange.error)
    if len(times) < 2:
        return f"{EVENTS[event]:<46} {len(times):6d}   too few for percentiles", None
    p95 = percentile(times, 95)
    return (
        f"{EVENTS[event]:<46} {len(times):6d} {statistics.median(times) * 1e3:9.1f} {p95 * 1e3:9.1f} "
        f"{times[-1] * 1e3:9.1f}"
    ), p95


def measure(
    url: str, page: Page, pid: int, people: int, readings: int, seed: int, arriving: bool = False
) -> tuple[dict[str, float | None], int]:
    """Warm up, run ``people`` until ``readings`` final readings, print the figures; return each
    event's p95 in seconds (None for too few answers) and the number of errors. The people come
    back from the warm-up with the files their browsers fetched then; ``arriving``: they open the
    page afresh, all of them at once, fetching everything again."""
    pool = drawings(seed)
    browsers = [Browser() for _ in range(people)]
    warmup = use_the_page(
        url, page, people, pool, lambda digits, _: digits >= WARMUP_DIGITS, seed=seed, browsers=browsers
    )
    time.sleep(SETTLE_SECONDS)
    warm_mb = memory_mb(pid, "VmRSS")
    server_start, client_start, start = cpu_seconds(pid), time.process_time(), time.perf_counter()
    with RssSampler(pid) as rss:
        exchanges = use_the_page(
            url,
            page,
            people,
            pool,
            lambda _, finals: finals >= readings,
            seed=seed + 1,
            browsers=None if arriving else browsers,
        )
        seconds = time.perf_counter() - start
        server_cpu, client_cpu = cpu_seconds(pid) - server_start, time.process_time() - client_start
        time.sleep(SETTLE_SECONDS)
    after_mb = memory_mb(pid, "VmRSS")

    errors = [exchange for exchange in warmup + exchanges if exchange.error]
    counts = {event: sum(exchange.event == event for exchange in exchanges) for event in EVENTS}
    print(
        f"\n{people} people: {counts['final']} final readings ({counts['live']} live), {counts['pair-final']} "
        f"of pairs ({counts['pair-live']} live) and {len(exchanges)} requests in all in {seconds:.1f} s: "
        f"{len(exchanges) / seconds:.1f} requests/s, after a warm-up of {len(warmup)}; errors: {len(errors)}"
    )
    for exchange in errors[:5]:
        print(f"  error ({EVENTS[exchange.event]}): {exchange.error}")
    print(f"the page's files (bytes as sent), in the warm-up: {files_line(warmup)}")
    print(f"... in the run: {files_line(exchanges)}")
    print(f"{'event':<46} {'answers':>6} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9}")
    lines = {event: latency_line(exchanges, event) for event in EVENTS}
    for line, _ in lines.values():
        print(line)
    print(
        f"CPU used: server {server_cpu / seconds:.2f} cores, these clients {client_cpu / seconds:.2f} cores "
        f"(of {os.cpu_count()})"
    )
    shown = np.linspace(0, len(rss.samples) - 1, RSS_SAMPLES_SHOWN).round().astype(int)
    print(
        f"server RSS: {warm_mb:.1f} MB after the warm-up, peak {max(rss.samples):.1f} MB during the run, "
        f"{after_mb:.1f} MB after it: growth {after_mb - warm_mb:+.1f} MB over {counts['final']} final "
        f"readings ({counts['final'] + counts['live']} readings in all, and "
        f"{counts['pair-final'] + counts['pair-live']} of pairs); along the run: "
        f"{' '.join(f'{rss.samples[k]:.0f}' for k in shown)} MB"
    )
    return {event: p95 for event, (_, p95) in lines.items()}, len(errors)


# Run in another revision's checkout: its page, as its own harness sees it: `Page` is in
# harness/page_protocol.py since issue 78, in tests/support/page_protocol.py from issue 72's split of
# page_clients.py, which was in tests/support/ before issue 57 and again since issue 72 moved the
# harness back from bench/support/.
PAGE_OF_CODE = (
    "import dataclasses, importlib, json, os, app\n"
    "where = next(path for path in ('harness/page_protocol.py', 'tests/support/page_protocol.py',\n"
    "                               'tests/support/page_clients.py', 'bench/support/page_clients.py')\n"
    "             if os.path.exists(path))\n"
    "Page = importlib.import_module(where.removesuffix('.py').replace('/', '.')).Page\n"
    "print(json.dumps(dataclasses.asdict(Page.of(app))))"
)


def page_of(code: Path) -> Page:
    """The page of the app in ``code`` (its events' indices, what it sends), read by that code."""
    if code == REPO:
        return Page.of(app)
    run = subprocess.run([sys.executable, "-c", PAGE_OF_CODE], cwd=code, capture_output=True, text=True, check=True)
    fields = json.loads(run.stdout.splitlines()[-1])
    return Page(**{field.name: fields[field.name] for field in dataclasses.fields(Page) if field.name in fields})


def ramp(
    url: str, page: Page, people: list[int], readings: int, seed: int, arriving: bool = False
) -> tuple[dict, dict]:
    """Each N of ``people`` in turn until one is not served: whether each was, and the p95 of the
    final readings that decide it, the worse pad's (None for too few answers)."""
    # the p95s that decide: the digit pad's where the server reads it, the Two-digits pad's
    limited = ([] if page.network is not None else ["final"]) + (
        ["pair-final"] if page.pairs and not page.reads_pairs_in_page else []
    )
    served, final_p95 = {}, {}
    pid = server_pid()
    print(f"server RSS when started: {memory_mb(pid, 'VmRSS'):.1f} MB")
    for n in people:
        p95, errors = measure(url, page, pid, n, readings, seed, arriving)
        served[n] = errors == 0 and all(p95[event] is not None and p95[event] <= P95_LIMIT_SECONDS for event in limited)
        final_p95[n] = max((p95[event] for event in limited if p95[event] is not None), default=None)
        if not served[n]:
            break
    print(f"server VmHWM (peak RSS since start): {memory_mb(pid, 'VmHWM'):.1f} MB")
    largest = max((n for n, ok in served.items() if ok), default=None)
    pads = {"final": "the digit pad", "pair-final": "the Two-digits pad"}
    on = " and ".join(pads[event] for event in limited)
    rule = (f"final readings' p95 <= {P95_LIMIT_SECONDS:g} s on {on}, " if limited else "") + "no error"
    print(
        f"\nlargest N served ({rule}), on {cpu_model()}: "
        f"{largest if largest is not None else 'none of ' + str(list(served))}"
        + ("" if all(served.values()) else f"; not served: {[n for n, ok in served.items() if not ok]}")
    )
    return served, final_p95


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--people",
        type=int,
        nargs="+",
        default=[4, 8, 16, 24, 32, 48, 64],
        help="how many people at once, one measured run each, in this order until one "
        "is not served (default 4 8 16 24 32 48 64)",
    )
    parser.add_argument(
        "--readings",
        type=int,
        default=1000,
        help="final readings (strokes finished) in each measured run (default 1000)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the drawings and the people's choices (default 0)")
    parser.add_argument(
        "--arriving",
        action="store_true",
        help="the people open the page afresh for each measured run, all at once, fetching its files "
        "again (a crowd arriving together); by default they come back from the warm-up with them",
    )
    parser.add_argument(
        "--against",
        default=None,
        metavar="REV",
        help="also ramp the app of this git revision (today's code: HEAD), served from a "
        "checkout of it, in turn with this one (default: this checkout's alone)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="with --against, measure each app this many times, this one first, then in "
        "the order REV, this, this, REV, ... (default 1)",
    )
    args = parser.parse_args()
    # This process holds the app's modules and networks too (to know its page): out of the garbage
    # collector's reach as the server's are, so that no full collection (0.4 s) pauses every person
    # at once, as no set of browsers would.
    serving.freeze_what_is_loaded()
    soft, most = resource.getrlimit(resource.RLIMIT_NOFILE)  # the server inherits the limit
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(most, OPEN_FILES)), most))

    print(f"CPU: {cpu_model()}, {os.cpu_count()} cores; torch {torch.__version__}")
    if app.TWO_DIGITS.problem is not None:
        print(f"no Two-digits pad, so no pairs drawn: {app.TWO_DIGITS.problem}")
    print(
        f"server settings (playground/serving.py): {serving.NETWORK_SLOTS} slots at the network, "
        f"Gradio max_threads {serving.MAX_THREADS}; torch's default threads (one per core)"
    )
    apps = [("this checkout", None)] + ([(f"revision {args.against}", args.against)] if args.against else [])
    order = [apps[(k + k // 2) % len(apps)] for k in range(len(apps) * (args.rounds if args.against else 1))]
    final_p95 = {name: [] for name, _ in apps}
    with ExitStack() as checkouts:
        codes = {
            name: REPO if revision is None else checkouts.enter_context(checkout(revision)) for name, revision in apps
        }
        pages = {name: page_of(code) for name, code in codes.items()}
        for name, _ in order:
            page = pages[name]
            sends = "loads the decoder once and sends no slider move" if page.decoder else "sends every slider move"
            print(f"\n== {name}: its page {sends}")
            with serving_app(start_timeout=600, code=codes[name]) as url:
                page = visited(page, url)
                print(
                    f"a first visit in Chromium GETs {len(page.first_visit)} files before any scroll, "
                    f"{len(page.scrolled)} more once scrolled down: each person GETs them so"
                )
                final_p95[name].append(ramp(url, page, args.people, args.readings, args.seed, args.arriving)[1])
    if args.against:
        (new, new_runs), (old, old_runs) = final_p95.items()
        print(f"\nfinal readings' p95 (the worse pad read on the server), {new} against {old}, run by run:")
        for n in args.people:
            ours = [run[n] for run in new_runs if run.get(n) is not None]
            theirs = [run[n] for run in old_runs if run.get(n) is not None]
            if ours and theirs:
                change = 100 * (statistics.mean(ours) / statistics.mean(theirs) - 1)
                print(
                    f"  {n} people: {' '.join(f'{t * 1e3:.0f}' for t in ours)} ms against "
                    f"{' '.join(f'{t * 1e3:.0f}' for t in theirs)} ms; the means {change:+.0f}%"
                )


if __name__ == "__main__":
    main()
