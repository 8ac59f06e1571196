"""What a person gets far from the server: the playground in a real browser, every byte delayed.

Starts `python app.py` on 127.0.0.1 and, with --against REV, the app of git revision REV (today's
code before a change, say) beside it; the two are measured alternately, one visit each per round
trip. For each round trip of --round-trips, a proxy on loopback (harness/delaying_proxy.py)
delays every byte between Chromium and the app by half the round trip each way, and a new visitor
(a fresh browser context, nothing cached) opens the page through it in Debian's Chromium
(headless, Playwright, a mouse), waits until the page has no request open, then:

- taps MNIST examples under the pad, one after another: from the tap to the animation frame after
  the reading panel's digit (#reading-panel .digit) changes;
- drags the first dimension slider across as bench/slider_drag.py does (its `drag`): the
  reconstruction's new pictures against the slider's moves, and the requests from the press on;
- clears the pad and draws one slow stroke, pen down the whole time (--stroke-seconds, a move every
  16 ms), along a digit traced from MNIST's test digits (other writers: harness/traced_strokes.py): how
  often the reading panel changed, and the requests the page sent, while the pen was down;
- scrolls to the Turn-it section, waits until it shows the digit turned, and drags its rotation
  slider across in --moves mouse moves, 16 ms apart (`drag_across`), --turn-drags times (Straighten
  between): the frames in which the turn panel (#turn-panel) changed from the first move on, the
  first after the first move, the last after the last move (SETTLE_SECONDS allowed), and the
  requests sent during the drag, each the median of the drags with their range;
- with the section still on the screen, taps another example (its button clicked where it is, the
  page not scrolled): from the tap to the rotation sweep (#turn-sweep) of the new reading read at
  every angle, how long it took from its first sight, the longest task of the page's main thread
  meanwhile (Chromium's trace: harness/chromium_trace.py), and the requests sent.

Every figure is read from the page's DOM (a MutationObserver per panel, the frames in which its
content changed, Gradio's status tracker aside), whichever side computes the panel; the requests
are Playwright's request events for the app's address. Prints the table per app, with the CPU.

    python -m bench.round_trip --round-trips 0 150 300 --against HEAD --data-dir DATA

The figures it measures belong in docs/benchmarks.md, with the machine.
"""

import argparse
import os
from contextlib import ExitStack
from urllib.parse import urlsplit

import numpy as np

from bench.round_trip_steps import (
    TIMEOUT,
    WATCH_SCRIPT,
    AppRequests,
    drag_dimension,
    drag_rotation,
    draw_slowly,
    sweep_after_tap,
    tap_examples,
)
from bench.slider_drag import ms
from bench.train_throughput import cpu_model
from harness.app_server import serving_apps
from harness.chromium_browser import DESKTOP, chromium
from harness.delaying_proxy import LOOPBACK, delaying_proxy
from harness.digit_strokes import random_box
from harness.traced_strokes import stroke_source
from playground.drawing_pad import SIDE


def visit(
    browser,
    app_url: str,
    round_trip_ms: float,
    moves: int,
    stroke: list[list[float]],
    stroke_seconds: float,
    drags: int,
) -> dict:
    """A new visitor at ``app_url`` through a proxy delaying each byte by half ``round_trip_ms`` each way."""
    with delaying_proxy(urlsplit(app_url).port, round_trip_ms) as port:
        origin = f"http://{LOOPBACK}:{port}/"
        context = browser.new_context(viewport=DESKTOP)
        try:
            page = context.new_page()
            page.set_default_timeout(TIMEOUT * 1000)
            network = AppRequests(page, origin)
            page.goto(origin, wait_until="commit", timeout=TIMEOUT * 1000)
            page.wait_for_selector("#pad button.example", timeout=TIMEOUT * 1000)
            page.evaluate(WATCH_SCRIPT, ["reading", "#reading-panel", None])
            page.evaluate(WATCH_SCRIPT, ["turn", "#turn-panel", "#turn-sliders"])
            network.quiet()
            return {
                "round trip": round_trip_ms,
                "taps": tap_examples(page, network),
                "dimension": drag_dimension(page, network, moves),
                "stroke": draw_slowly(page, network, stroke, stroke_seconds),
                "turn": drag_rotation(page, network, moves, drags),
                "sweep": sweep_after_tap(browser, page, network),
            }
        finally:
            context.close()


def spread(values: list[float | None], unit: str = "") -> str:
    """One figure, or the median of several and their range: "48 ms (36–66)"; "—" for none."""
    if any(value is None for value in values):
        return f"— ({sum(value is None for value in values)} of {len(values)} none)"
    if len(values) == 1:
        return f"{values[0]:.0f}{unit}"
    return f"{np.median(values):.0f}{unit} ({min(values):.0f}–{max(values):.0f})"


def turn_cell(drags: list[dict]) -> str:
    """The Turn-it drags' cell: each figure one drag's, or the median of the drags and their range."""
    each = {key: [drag[key] for drag in drags] for key in drags[0]}
    several = f", medians of {len(drags)} drags (range)" if len(drags) > 1 else ""
    return (
        f"{spread(each['redraws'])} of {drags[0]['moves']} ({spread(each['changed'])} changed it), first after "
        f"{spread(each['first'], ' ms')}, last {spread(each['last'], ' ms')} after the drag{several}; "
        f"{sum(each['requests'])} requests during them"
    )


def cells(visit: dict) -> list[str]:
    """The table's cells of one visit, a row each."""
    taps, stroke, dimension = visit["taps"], visit["stroke"], visit["dimension"]
    sweep = visit["sweep"]
    shown = [tap["ms"] for tap in taps if tap]
    tapped = (
        f"{min(shown):.0f}–{max(shown):.0f} ms ({len(shown)} of {len(taps)}: "
        f"{' '.join(tap['digit'] for tap in taps if tap)})"
        if shown
        else f"none of {len(taps)}"
    )
    return [
        turn_cell(visit["turn"]),
        tapped,
        f"{stroke['changes']} ({stroke['changes'] / stroke['seconds']:.1f} a second over "
        f"{stroke['seconds']:.1f} s); {stroke['requests']} requests while the pen was down",
        f"{dimension['updates']} of {dimension['moves']} ({dimension['changed']} changed it), first after "
        f"{ms(dimension['first'])}, last {ms(dimension['last'])} after; {dimension['requests']} requests",
        f"{ms(sweep['ms'])} (filling in {ms(sweep['filling'])}, the longest task meanwhile {ms(sweep['longest'])}); "
        f"{sweep['requests']} requests",
    ]


def report(name: str, visits: list[dict], moves: int) -> None:
    rows = [
        f"drags Turn it's rotation slider ({moves} mouse moves): turn panel redrawn",
        "taps an MNIST example: its digit shown",
        "draws one slow stroke: reading panel changed while the pen is down",
        f"drags a dimension slider ({moves} mouse moves): reconstruction redrawn",
        "taps an example with Turn it on the screen: its rotation sweep read at every angle",
    ]
    print(f"\n{name}")
    print("| what a person does | " + " | ".join(f"{v['round trip']:g} ms round trip" for v in visits) + " |")
    print("| --- " * (len(visits) + 1) + "|")
    for row, figures in zip(rows, zip(*(cells(v) for v in visits), strict=True), strict=True):
        print(f"| {row} | " + " | ".join(figures) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--round-trips",
        type=float,
        nargs="+",
        default=[0, 150, 300],
        help="the round trips (ms) the proxy adds, one visit each (default 0 150 300)",
    )
    parser.add_argument("--moves", type=int, default=60, help="mouse moves of each slider's drag (default 60)")
    parser.add_argument(
        "--turn-drags",
        type=int,
        default=5,
        help="drags of Turn it's rotation slider a visit, Straighten between: the figures are their "
        "medians and ranges (default 5; the first redraw varies by tens of ms from drag to drag)",
    )
    parser.add_argument(
        "--stroke-seconds", type=float, default=3.5, help="how long the slow stroke's pen is down (default 3.5)"
    )
    parser.add_argument(
        "--against",
        default=None,
        metavar="REV",
        help="also measure the app of this git revision (today's code: HEAD), served beside "
        "from a checkout of it, the two visited alternately",
    )
    parser.add_argument(
        "--data-dir",
        default=os.environ.get("CAPSNET_DATA_DIR", "./data"),
        help="where MNIST is, whose test digits the stroke is traced from (default $CAPSNET_DATA_DIR, else ./data)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the traced digit and its box on the pad (default 0)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    rng = np.random.default_rng(args.seed)
    digit = int(rng.integers(10))
    stroke = stroke_source("mnist", args.data_dir).strokes(digit, rng, random_box(rng, SIDE))
    print(
        f"CPU: {cpu_model()}; Chromium headless, page {DESKTOP['width']}x{DESKTOP['height']}, mouse; every byte "
        f"between it and the app delayed by half the round trip each way; the stroke: a {digit} traced from MNIST"
    )
    with ExitStack() as stack:
        apps = stack.enter_context(serving_apps(args.against))
        playwright = stack.enter_context(sync_playwright())
        browser = stack.enter_context(chromium(playwright))
        visits = {name: [] for name in apps}
        for round_trip_ms in args.round_trips:
            for name, url in apps.items():
                visits[name].append(
                    visit(browser, url, round_trip_ms, args.moves, stroke, args.stroke_seconds, args.turn_drags)
                )
    for name, measured in visits.items():
        report(name, measured, args.moves)


if __name__ == "__main__":
    main()
