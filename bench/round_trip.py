"""What a person gets far from the server: the playground in a real browser, every byte delayed.

Starts `python app.py` on 127.0.0.1 and, with --against REV, the app of git revision REV (today's
code before a change, say) beside it; the two are measured alternately, one visit each per round
trip. For each round trip of --round-trips, a proxy on loopback (tests/support/delaying_proxy.py)
delays every byte between Chromium and the app by half the round trip each way, and a new visitor
(a fresh browser context, nothing cached) opens the page through it in Debian's Chromium
(headless, Playwright, a mouse), waits until the page has no request open, then:

- taps MNIST examples under the pad, one after another: from the tap to the animation frame after
  the reading panel's digit (#reading-panel .digit) changes;
- drags the first dimension slider across as bench/slider_drag.py does (its `drag`): the
  reconstruction's new pictures against the slider's moves, and the requests from the press on;
- clears the pad and draws one slow stroke, pen down the whole time (--stroke-seconds, a move every
  16 ms), along a digit traced from MNIST's test digits (other writers: bench/drawn_pairs.py): how
  often the reading panel changed, and the requests the page sent, while the pen was down;
- scrolls to the Turn-it section, waits until it shows the digit turned, and drags its rotation
  slider across in --moves mouse moves, 16 ms apart (`drag_across`): the frames in which the turn
  panel (#turn-panel) changed from the first move on, the first after the first move, the last
  after the last move (SETTLE_SECONDS allowed), and the requests sent during the drag;
- with the section still on the screen, taps another example (its button clicked where it is, the
  page not scrolled): from the tap to the rotation sweep (#turn-sweep) of the new reading read at
  every angle, how long it took from its first sight, the longest task of the page's main thread
  meanwhile (Chromium's trace: tests/support/chromium_trace.py), and the requests sent.

Every figure is read from the page's DOM (a MutationObserver per panel, the frames in which its
content changed, Gradio's status tracker aside), whichever side computes the panel; the requests
are Playwright's request events for the app's address. Prints the table per app, with the CPU.

    python -m bench.round_trip --round-trips 0 150 300 --against HEAD --data-dir DATA

The figures it measures belong in docs/benchmarks.md, with the machine.
"""

import argparse
import os
import time
from contextlib import ExitStack
from urllib.parse import urlsplit

import numpy as np

from bench.drawn_pairs import stroke_source
from bench.slider_drag import SETTLE_SECONDS, drag, ms
from bench.train_throughput import cpu_model
from playground.drawing_pad import SIDE
from tests.support.app_server import checkout, serving_app
from tests.support.chromium_browser import DESKTOP, chromium
from tests.support.chromium_trace import TRACE_CATEGORIES, longest_task
from tests.support.delaying_proxy import LOOPBACK, delaying_proxy
from tests.support.digit_strokes import random_box
from tests.support.pointer_moves import MOVE_SECONDS, drag_across
from tests.support.slider_drivers import DECODER_DRAWS_SCRIPT, SliderDriver, TurnDriver

TIMEOUT = 120.0  # seconds for any one wait on the page: its load, its answers, a reading
QUIET_SECONDS = 0.5  # no request open this long: the page has settled
EXAMPLE_TAPS = (1, 4, 7, 2)  # the pad's examples tapped in turn (MNIST test digits 1, 4, 7, 2)
SWEEP_TAP = 3  # the example tapped with Turn it on the screen (MNIST test digit 3)

# In the page: watch ``panel`` under ``name`` (window.watched[name]): the time of each frame in
# which its content changed (mutations inside Gradio's status tracker aside), the input events of
# the controls under ``controls``, and every pointerdown and pointerup.
WATCH_SCRIPT = """
([name, panel, controls]) => {
  const record = {changes: [], inputs: [], downs: [], ups: []};
  window.watched = {...window.watched, [name]: record};
  const tracker = (node) => (node.nodeType === 1 ? node : node.parentElement)?.closest('[data-testid=status-tracker]');
  let noted = false;
  new MutationObserver((mutations) => {
    if (noted || mutations.every((mutation) => tracker(mutation.target))) return;
    noted = true;
    record.changes.push(performance.now());
    requestAnimationFrame(() => { noted = false; });
  }).observe(document.querySelector(panel), {subtree: true, childList: true, attributes: true, characterData: true});
  document.addEventListener('input', (event) => {
    if (controls && event.target.closest(controls)) record.inputs.push(event.timeStamp);
  }, true);
  document.addEventListener('pointerdown', (event) => record.downs.push(event.timeStamp), true);
  document.addEventListener('pointerup', (event) => record.ups.push(event.timeStamp), true);
}
"""

# In the page: tap the pad's example ``index`` and time it, from the tap to the animation frame after
# the reading panel's digit changed; null if it did not change within ``timeout`` ms.
TAP_SCRIPT = """
([index, timeout]) => new Promise((done) => {
  const digit = () => document.querySelector('#reading-panel .digit')?.textContent;
  const before = digit(), start = performance.now();
  const observer = new MutationObserver(() => {
    if (digit() === before) return;
    observer.disconnect();
    requestAnimationFrame(() => done({ms: performance.now() - start, digit: digit()}));
  });
  observer.observe(document.querySelector('#reading-panel'),
                   {subtree: true, childList: true, attributes: true, characterData: true});
  setTimeout(() => { observer.disconnect(); done(null); }, timeout);
  document.querySelectorAll('#pad button.example')[index].click();
})
"""


# In the page: tap the pad's example ``index`` where it is and time the rotation sweep of its reading:
# {ms: from the tap to the sweep read at every angle (no aria-busy), filling: from the sweep's
# first sight, busy or not}, null if it is not done within ``timeout`` ms. Its first sight and its
# end are marked in Chromium's trace ("sweep-seen", "sweep-done").
SWEEP_SCRIPT = """
([index, timeout]) => new Promise((done) => {
  const sweep = document.querySelector('#turn-sweep');
  const before = sweep.querySelector('.sweep')?.dataset.reading, start = performance.now();
  let seen = null;
  const observer = new MutationObserver(() => {
    const shown = sweep.querySelector('.sweep');
    if (!shown || shown.dataset.reading === before) return;
    if (seen === null) { seen = performance.now(); console.timeStamp('sweep-seen'); }
    if (shown.hasAttribute('aria-busy')) return;
    observer.disconnect();
    console.timeStamp('sweep-done');
    const end = performance.now();
    done({ms: end - start, filling: end - seen});
  });
  observer.observe(sweep, {subtree: true, childList: true, attributes: true});
  setTimeout(() => { observer.disconnect(); done(null); }, timeout);
  document.querySelectorAll('#pad button.example')[index].click();
})
"""


class AppRequests:
    """The requests a page sends to the app at ``origin`` (Playwright's request events, data: URLs
    and other hosts aside): when each was seen (time.perf_counter()), and those still open."""

    def __init__(self, page, origin: str):
        self.page, self.origin = page, origin
        self.sent: list[float] = []
        self.open = set()
        page.on("request", self._sent)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _sent(self, request) -> None:
        if request.url.startswith(self.origin):
            self.sent.append(time.perf_counter())
            if "/heartbeat/" not in request.url:  # Gradio's heartbeat stays open while the page lives
                self.open.add(request)

    def _ended(self, request) -> None:
        self.open.discard(request)

    def between(self, start: float, end: float) -> int:
        return sum(start <= sent <= end for sent in self.sent)

    def quiet(self) -> None:
        """Wait until no request has been open, and none sent, for QUIET_SECONDS (at most TIMEOUT)."""
        deadline, since, seen = time.monotonic() + TIMEOUT, time.monotonic(), len(self.sent)
        while time.monotonic() - since < QUIET_SECONDS:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page kept {len(self.open)} requests open for {TIMEOUT:g} s")
            self.page.wait_for_timeout(50)
            if self.open or len(self.sent) != seen:
                since, seen = time.monotonic(), len(self.sent)


def joined(strokes: list[list[float]]) -> tuple[np.ndarray, np.ndarray]:
    """``strokes`` (flat [x0, y0, ...] in pad units) joined into one path, pen down: [n, 2] points
    with how far along the path each is, [n]."""
    path = np.vstack([np.array(stroke).reshape(-1, 2) for stroke in strokes])  # [n, 2]
    return path, np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(path, axis=0), axis=1))])


def tap_examples(page, network: AppRequests) -> list[dict | None]:
    """Tap each of EXAMPLE_TAPS in turn, the page settled between taps: each {ms, digit} shown, or None."""
    taps = []
    for index in EXAMPLE_TAPS:
        taps.append(page.evaluate(TAP_SCRIPT, [index, TIMEOUT * 1000]))
        network.quiet()
    return taps


def drag_dimension(page, network: AppRequests, moves: int) -> dict:
    """The first dimension slider dragged across once the page's decoder (where it has one) draws."""
    person = SliderDriver(page)
    if page.evaluate("() => document.querySelector('#reading-panel .panel')?.dataset.decoder !== undefined"):
        page.wait_for_function(DECODER_DRAWS_SCRIPT, timeout=TIMEOUT * 1000, polling=20)
    return drag(page, person, moves, network.sent)


def draw_slowly(page, network: AppRequests, strokes: list[list[float]], seconds: float) -> dict:
    """Clear the pad and draw ``strokes`` (pad units) as one stroke, pen down, along it at an even
    pace for ``seconds``, a mouse move every MOVE_SECONDS (fewer where the machine is slower): the
    reading panel's changes and the requests sent while the pen was down, and how long it was."""
    page.locator("#pad button.clear").click()
    network.quiet()
    canvas = page.locator("#pad canvas")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    path, along = joined(strokes)

    def point(share: float) -> list[float]:
        """The page's point ``share`` of the way along the path."""
        return [
            float(np.interp(share * along[-1], along, path[:, k])) * box["width"] / SIDE + box[key]
            for k, key in enumerate("xy")
        ]

    down = time.perf_counter()
    page.mouse.move(*point(0))
    page.mouse.down()
    while (drawn := time.perf_counter() - down) < seconds:
        page.mouse.move(*point(drawn / seconds))
        time.sleep(max(0.0, MOVE_SECONDS - (time.perf_counter() - down - drawn)))
    page.mouse.move(*point(1))
    page.evaluate("() => 0")  # the request events of the last moves, seen before the lift
    lifted = time.perf_counter()
    page.mouse.up()
    network.quiet()
    record = page.evaluate("() => window.watched.reading")
    pressed, released = record["downs"][-1], record["ups"][-1]
    return {
        "changes": sum(pressed <= t <= released for t in record["changes"]),
        "seconds": (released - pressed) / 1000,
        "requests": network.between(down, lifted),
    }


def drag_rotation(page, network: AppRequests, moves: int) -> dict:
    """Scroll to Turn it, wait for the digit turned there, and drag the rotation slider across: the turn
    panel's redraws from the first move on, the first after the first move and the last after the last
    (ms), and the requests sent from the press to the release."""
    TurnDriver(page).shown()
    network.quiet()
    pressed = time.perf_counter()
    drag_across(page, page.locator("#turn-sliders input[name=rotation]"), moves)
    released = time.perf_counter()
    page.wait_for_timeout(SETTLE_SECONDS * 1000)
    record = page.evaluate("() => window.watched.turn")
    inputs = [t for t in record["inputs"] if t >= record["downs"][-1]]
    redraws = [t for t in record["changes"] if inputs and t >= inputs[0]]
    return {
        "moves": moves,
        "changed": len(inputs),
        "redraws": len(redraws),
        "first": redraws[0] - inputs[0] if redraws else None,
        "last": redraws[-1] - inputs[-1] if redraws else None,
        "requests": network.between(pressed, released),
    }


def sweep_after_tap(browser, page, network: AppRequests) -> dict:
    """With Turn it on the screen, tap SWEEP_TAP: the sweep of its reading timed (SWEEP_SCRIPT), the
    longest task of the main thread while it filled in, and the requests sent until it was done."""
    network.quiet()
    browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
    tapped = time.perf_counter()
    timed = page.evaluate(SWEEP_SCRIPT, [SWEEP_TAP, TIMEOUT * 1000])
    done = time.perf_counter()
    longest = longest_task(browser.stop_tracing(), "sweep-seen", "sweep-done")
    network.quiet()
    return {**(timed or {"ms": None, "filling": None}), "longest": longest, "requests": network.between(tapped, done)}


def visit(
    browser, app_url: str, round_trip_ms: float, moves: int, stroke: list[list[float]], stroke_seconds: float
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
                "turn": drag_rotation(page, network, moves),
                "sweep": sweep_after_tap(browser, page, network),
            }
        finally:
            context.close()


def cells(visit: dict) -> list[str]:
    """The table's cells of one visit, a row each."""
    turn, taps, stroke, dimension = visit["turn"], visit["taps"], visit["stroke"], visit["dimension"]
    sweep = visit["sweep"]
    shown = [tap["ms"] for tap in taps if tap]
    tapped = (
        f"{min(shown):.0f}–{max(shown):.0f} ms ({len(shown)} of {len(taps)}: "
        f"{' '.join(tap['digit'] for tap in taps if tap)})"
        if shown
        else f"none of {len(taps)}"
    )
    return [
        f"{turn['redraws']} of {turn['moves']} ({turn['changed']} changed it), first after {ms(turn['first'])}, "
        f"last {ms(turn['last'])} after the drag; {turn['requests']} requests during it",
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
        apps = {"this checkout": stack.enter_context(serving_app())}
        if args.against:
            code = stack.enter_context(checkout(args.against))
            apps[f"revision {args.against}"] = stack.enter_context(serving_app(code=code))
        playwright = stack.enter_context(sync_playwright())
        browser = stack.enter_context(chromium(playwright))
        visits = {name: [] for name in apps}
        for round_trip_ms in args.round_trips:
            for name, url in apps.items():
                visits[name].append(visit(browser, url, round_trip_ms, args.moves, stroke, args.stroke_seconds))
    for name, measured in visits.items():
        report(name, measured, args.moves)


if __name__ == "__main__":
    main()
