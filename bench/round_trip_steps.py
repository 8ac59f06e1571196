"""The steps of bench/round_trip.py's visit, each what a person does on the page, timed in the page:
the page's own scripts that watch its panels and time a tap and a sweep, the app's requests counted,
the examples tapped, a dimension slider dragged, a slow stroke drawn, Turn it's rotation dragged and
an example tapped with Turn it on the screen.
"""

import time

import numpy as np

from bench.slider_drag import SETTLE_SECONDS, drag
from harness.chromium_trace import TRACE_CATEGORIES, longest_task
from harness.pointer_moves import MOVE_SECONDS, drag_across
from harness.slider_drivers import SliderDriver, TurnDriver
from playground.drawing_pad import SIDE

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
    if person.shows_drawable():
        person.wait_for_decoder(TIMEOUT)
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


def drag_rotation(page, network: AppRequests, moves: int, drags: int) -> list[dict]:
    """Scroll to Turn it, wait for the digit turned there, and drag the rotation slider across
    ``drags`` times, Straighten pressed before each drag after the first: for each, the turn panel's
    redraws from the first move on, the first after the first move and the last after the last (ms),
    and the requests sent from the press to the release."""
    TurnDriver(page).shown()
    measured = []
    for number in range(drags):
        if number:
            page.locator("#turn-sliders .straighten").click()
            page.wait_for_timeout(SETTLE_SECONDS * 1000)
        network.quiet()
        pressed = time.perf_counter()
        drag_across(page, page.locator("#turn-sliders input[name=rotation]"), moves)
        released = time.perf_counter()
        page.wait_for_timeout(SETTLE_SECONDS * 1000)
        record = page.evaluate("() => window.watched.turn")
        inputs = [t for t in record["inputs"] if t >= record["downs"][-1]]
        redraws = [t for t in record["changes"] if inputs and t >= inputs[0]]
        measured.append(
            {
                "moves": moves,
                "changed": len(inputs),
                "redraws": len(redraws),
                "first": redraws[0] - inputs[0] if redraws else None,
                "last": redraws[-1] - inputs[-1] if redraws else None,
                "requests": network.between(pressed, released),
            }
        )
    return measured


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
