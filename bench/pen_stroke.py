"""What the pen feels: one stroke drawn on the pad in a real browser, the code before the network
moved into the page beside this checkout's, in one run.

Starts `python app.py` twice on 127.0.0.1, the app of --before (a git revision: fac78ab, where the
server read every drawing) and this checkout's (or --after's), opens each in Debian's Chromium (headless,
Playwright) and draws the same stroke with the mouse: --moves pointer moves sent --move-ms apart,
each sent once the page has taken the one before (Chromium answers a move once the page's thread
has run its handlers). With the page's CPU slowed by DevTools (`Emulation.setCPUThrottlingRate`,
which slows the page's thread alone, --rates), and, where this machine lets the benchmark make a
cgroup, with the whole browser held to a fraction of a core (--cores), workers included. For each:

    the stroke's time         from the pointer's press to the page taking its lift
    a move taken, p95         how long the page kept a pointer move waiting: the ink's lag
    long tasks                the page thread's tasks over 50 ms during the stroke, all together
                              and the longest (a PerformanceObserver of the page)
    readings a second         how many readings of the stroke (distinct drawings) the reading
                              panel showed while the pen was down, per second of the stroke

Each measurement is the median of --repeats strokes, the two apps taking turns.

    python -m bench.pen_stroke
    python -m bench.pen_stroke --rates 1 4 --cores 0.5 0.25 --repeats 3

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import os
import statistics
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

import numpy as np

from bench.inference_latency import percentile
from bench.train_throughput import cpu_model
from harness.app_server import checkout, serving_app
from harness.chromium_browser import CHROMIUM, CHROMIUM_ARGS, DESKTOP
from harness.digit_strokes import strokes
from harness.paths import REPO
from playground import page_modules

CGROUP = Path("/sys/fs/cgroup/cpu")  # cgroup v1's cpu controller, where this machine mounts it
PERIOD_US = 100_000

# In the page, once: the long tasks of the page's thread and the readings the panel shows (each
# drawing's revision once, the first time it shows), each with its time, from now on.
OBSERVE = """
() => {
  window.penBench = {longTasks: [], readings: []};
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.penBench.longTasks.push([entry.startTime, entry.duration]);
  }).observe({type: "longtask"});
  const seen = new Set();
  new MutationObserver(() => {
    const revision = document.querySelector("#reading-panel .panel")?.dataset.revision;
    if (revision && !seen.has(revision)) window.penBench.readings.push(performance.now());
    seen.add(revision);
  }).observe(document.querySelector("#reading-panel"), {subtree: true, childList: true, attributes: true});
}
"""


def stroke_points(moves: int) -> np.ndarray:
    """[moves + 1, 2]: a 3 across most of the pad, in pad units, at even steps along its path."""
    path = np.array(strokes(3, 60, 30, 160, 220)[0]).reshape(-1, 2)
    along = np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(path, axis=0), axis=1))])
    at = np.linspace(0, along[-1], moves + 1)
    return np.stack([np.interp(at, along, path[:, 0]), np.interp(at, along, path[:, 1])], axis=1)


def draw_stroke(page, points: np.ndarray, move_ms: float) -> dict:
    """Draw ``points`` (pad units) on the reading pad with the mouse, a move every ``move_ms`` once the
    page took the one before, then Clear; what the stroke cost the page."""
    box = page.locator("#pad canvas").bounding_box()
    scale = box["width"] / 280
    at = points * scale + [box["x"], box["y"]]
    started_in_page = page.evaluate("() => performance.now()")
    started = time.perf_counter()
    page.mouse.move(*at[0])
    page.mouse.down()
    taken = []
    for x, y in at[1:]:
        time.sleep(move_ms / 1000)
        sent = time.perf_counter()
        page.mouse.move(x, y)
        taken.append((time.perf_counter() - sent) * 1000)
    page.mouse.up()
    seconds = time.perf_counter() - started
    marks = page.evaluate("() => window.penBench")
    ended_in_page = started_in_page + seconds * 1000
    long_tasks = [duration for start, duration in marks["longTasks"] if started_in_page <= start <= ended_in_page]
    readings = sum(started_in_page <= t <= ended_in_page for t in marks["readings"])
    page.locator("#pad button.clear").click()
    page.wait_for_timeout(1500)  # the cleared pad read, the page quiet again
    return {
        "stroke s": seconds,
        "move p95 ms": percentile(taken, 95),
        "long tasks s": sum(long_tasks) / 1000,
        "longest ms": max(long_tasks, default=0.0),
        "readings/s": readings / seconds,
    }


# In the page: where its networks stand, "ready", "waiting" or "unavailable"; "none" on a page
# without them (the code before).
READER_STATE = f"""
() => import(new URL('{page_modules.URL}/page_networks.js', document.baseURI))
  .then((networks) => networks.readerState(), () => "none")
"""


def opened(browser, url: str, rate: float):
    """The playground at ``url`` in a new page, loaded, its networks with it where it has them, its
    CPU slowed ``rate`` times."""
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.set_default_timeout(300_000)
    page.goto(url)
    page.wait_for_selector("#pad [data-revision], #pad canvas")
    waited = time.monotonic() + 120
    while page.evaluate(READER_STATE) == "waiting" and time.monotonic() < waited:
        page.wait_for_timeout(200)
    page.wait_for_timeout(2000)  # the page quiet again
    page.evaluate(OBSERVE)
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})
    return page


def chromium_pids() -> set[int]:
    """Every Chromium process running (Debian's /usr/bin/chromium starts /usr/lib/chromium/chromium; the
    processes it starts write their arguments over their own, spaces between)."""
    return {
        int(pid)
        for pid in os.listdir("/proc")
        if pid.isdigit() and Path(_command(pid).split(" ")[0]).name == "chromium"
    }


def _command(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
    except OSError:
        return ""


@contextmanager
def held_to(cores: float | None, before: set[int]):
    """The Chromium processes started since ``before`` held to ``cores`` of CPU (a cgroup's quota),
    and those they start; nothing for None."""
    if cores is None:
        yield
        return
    group = CGROUP / f"pen-bench-{os.getpid()}"
    group.mkdir()
    try:
        (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (group / "cpu.cfs_quota_us").write_text(str(int(cores * PERIOD_US)))
        started = chromium_pids() - before
        for pid in started:
            (group / "cgroup.procs").write_text(str(pid))
        if not started:
            raise RuntimeError("no Chromium process found to hold")
        yield
    finally:
        for pid in (group / "cgroup.procs").read_text().split():
            (CGROUP / "cgroup.procs").write_text(pid)
        group.rmdir()


def measure(playwright, urls: dict[str, str], rate: float, cores: float | None, args) -> dict[str, dict]:
    """Each app's stroke, the median of args.repeats, taking turns, in one browser."""
    before = chromium_pids()
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    try:
        with held_to(cores, before):
            pages = {name: opened(browser, url, rate) for name, url in urls.items()}
            if cores is not None:  # the renderers and workers started since, held too
                print(f"  ({len(chromium_pids() - before)} Chromium processes held to {cores:g} core)")
            points = stroke_points(args.moves)
            runs = {name: [] for name in urls}
            for _ in range(args.repeats):
                for name, page in pages.items():
                    runs[name].append(draw_stroke(page, points, args.move_ms))
    finally:
        browser.close()
    return {
        name: {key: statistics.median(run[key] for run in found) for key in found[0]} for name, found in runs.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="fac78ab", help="the revision to compare with (default: fac78ab)")
    parser.add_argument("--after", help="a revision to measure instead of this checkout's files")
    parser.add_argument("--moves", type=int, default=100, help="pointer moves a stroke (default: 100)")
    parser.add_argument("--move-ms", type=float, default=20, help="between moves (default: 20)")
    parser.add_argument("--rates", type=float, nargs="+", default=[1, 4], help="DevTools' CPU slowdowns (default: 1 4)")
    parser.add_argument("--cores", type=float, nargs="*", default=[0.5], help="the whole browser held to these")
    parser.add_argument("--repeats", type=int, default=3, help="strokes a measurement (default: 3)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"CPU: {cpu_model()}")
    conditions = [(rate, None) for rate in args.rates]
    if CGROUP.exists() and os.access(CGROUP, os.W_OK):
        conditions += [(1, cores) for cores in args.cores]
    else:
        print(f"(no writable {CGROUP}: the browser is not held to a fraction of a core)")
    with ExitStack() as stack:
        before = stack.enter_context(checkout(args.before))
        after = REPO if args.after is None else stack.enter_context(checkout(args.after))
        urls = {
            f"before ({args.before})": stack.enter_context(serving_app(code=before)),
            "this checkout" if args.after is None else f"after ({args.after})": stack.enter_context(
                serving_app(code=after)
            ),
        }
        playwright = stack.enter_context(sync_playwright())
        for rate, cores in conditions:
            held = f"the browser held to {cores:g} core" if cores else f"the page's CPU slowed {rate:g}x"
            print(f"\n{held}, {args.moves} moves {args.move_ms:g} ms apart, median of {args.repeats}:")
            for name, found in measure(playwright, urls, rate, cores, args).items():
                print(
                    f"  {name:<20} stroke {found['stroke s']:.1f} s, a move taken p95 {found['move p95 ms']:.0f} ms, "
                    f"long tasks {found['long tasks s']:.2f} s (longest {found['longest ms']:.0f} ms), "
                    f"readings {found['readings/s']:.1f}/s"
                )


if __name__ == "__main__":
    main()
