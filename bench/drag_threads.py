"""Where a Turn-it drag's time goes, thread by thread: Chromium's trace of the rotation slider dragged.

Starts `python app.py` on 127.0.0.1; a Chromium (headless, Playwright, a mouse, the desktop page)
taps an MNIST example, scrolls to Turn it, waits until its digit is turned there, and drags the
rotation slider across --drags times (Straighten between), --moves mouse moves 16 ms apart, with
Chromium's trace recording (harness/chromium_trace.py). Prints, with the CPU:

- each thread's time in tasks during the drags, as a share of the drags' time: the page's main
  thread (CrRendererMain), the workers that run the networks (DedicatedWorker thread), the
  compositor and the rest;
- the main thread's time by the outermost event of each task: the workers' answers
  (HandlePostMessage: the turn panel filled), the hand's events (EventDispatch), the page rendered
  (UpdateLayoutTree, Layout, PrePaint, Paint, Layerize, Commit), animation frames and timers.

On two cores, every thread here shares them: what the main thread and the compositor take, the
networks' workers do not get. bench/round_trip.py gives what a person sees of the same drag.

    python -m bench.drag_threads --drags 3
"""

import argparse

from bench.round_trip_steps import TIMEOUT, AppRequests, tap_examples
from bench.slider_drag import SETTLE_SECONDS
from bench.train_throughput import cpu_model
from harness.app_server import serving_app
from harness.chromium_browser import DESKTOP, chromium
from harness.chromium_trace import TRACE_CATEGORIES, thread_time
from harness.pointer_moves import drag_across
from harness.slider_drivers import TurnDriver

# Beside the tasks and marks: what the main thread does inside them (layout, paint and the rest).
CATEGORIES = [*TRACE_CATEGORIES, "disabled-by-default-devtools.timeline"]


def traced_drags(browser, page, drags: int, moves: int) -> list[tuple[float, dict, dict]]:
    """Drag Turn it's rotation slider ``drags`` times, each with the trace recording: for each, its
    ms and `thread_time`'s two tables."""
    measured = []
    for number in range(drags):
        page.locator("#turn-sliders .straighten").click()
        page.wait_for_timeout(SETTLE_SECONDS * 1000)
        browser.start_tracing(page=page, categories=CATEGORIES)
        started = page.evaluate("() => { console.timeStamp('drag-start'); return performance.now(); }")
        drag_across(page, page.locator("#turn-sliders input[name=rotation]"), moves)
        ended = page.evaluate("() => { console.timeStamp('drag-end'); return performance.now(); }")
        threads, doing = thread_time(browser.stop_tracing(), "drag-start", "drag-end")
        measured.append((ended - started, threads, doing))
        print(f"drag {number + 1}: {ended - started:.0f} ms", flush=True)
    return measured


def shares(measured: list[tuple[float, dict, dict]], table: int) -> list[tuple[str, float]]:
    """Each row of table 1 (threads) or 2 (the main thread's doings), summed over the drags, as a
    share of the drags' time, largest first."""
    total = sum(ms for ms, *_ in measured)
    rows = {}
    for drag in measured:
        for name, ms in drag[table].items():
            rows[name] = rows.get(name, 0.0) + ms
    return sorted(((name, ms / total) for name, ms in rows.items()), key=lambda row: -row[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drags", type=int, default=3, help="drags traced, Straighten between (default 3)")
    parser.add_argument("--moves", type=int, default=60, help="mouse moves of each drag (default 60)")
    parser.add_argument("--rows", type=int, default=12, help="rows of each table (default 12)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    print(f"CPU: {cpu_model()}; Chromium headless, page {DESKTOP['width']}x{DESKTOP['height']}, mouse")
    with serving_app() as url, sync_playwright() as playwright, chromium(playwright) as browser:
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.set_default_timeout(TIMEOUT * 1000)
        network = AppRequests(page, url)
        page.goto(url)
        page.wait_for_selector("#pad button.example")
        network.quiet()
        tap_examples(page, network)
        TurnDriver(page).shown()
        network.quiet()
        measured = traced_drags(browser, page, args.drags, args.moves)
    seconds = sum(ms for ms, *_ in measured) / 1000
    print(f"\n{args.drags} drags of {args.moves} moves, {seconds:.1f} s in all; each thread's share of that time:")
    for name, share in shares(measured, 1)[: args.rows]:
        print(f"  {name:32s} {share:6.1%}")
    print("\nthe main thread's time by the outermost event of each task, as a share of the drags' time:")
    for name, share in shares(measured, 2)[: args.rows]:
        print(f"  {name:32s} {share:6.1%}")


if __name__ == "__main__":
    main()
