"""Drawing on the playground's pad in a real browser, as a person does: Debian's Chromium driven
by Playwright, strokes at a hand's pace with a mouse or a finger, and the page itself timing how
long each stroke's reading takes to show. The same on the Two-digits section's pad of two pens
(PairDriver), the Turn-it section's sliders dragged (TurnDriver), and the 16 dimension sliders
dragged or set (SliderDriver), any slider dragged across (`drag_across`), over a network as slow as
DevTools makes it (`round_trip`). Shared by tests/test_browser.py, tests/test_browser_decoder.py,
bench/browser_latency.py, bench/slider_drag.py and bench/round_trip.py.
"""

import base64
import io
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from PIL import Image

from playground import page_modules
from playground.drawing_pad import SIDE

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1300, "height": 1100}
PHONE = {"width": 390, "height": 844}
MOVE_SECONDS = 0.016  # between pointer moves: at most 60 a second, as a screen reports them
POINT_STRIDE = 3  # every third point of a stroke is a pointer move (~5 screen pixels apart)
PAUSE_SECONDS = 0.15  # between strokes, once the last one's reading is on the page
PHONE_UNDER_BARS = {"width": 390, "height": 664}  # what a 390x844 phone shows of a page under its browser's bars
PANEL = "#reading-panel .panel"  # the reading, the bars, the network's input, the reconstruction
PAIR_PANEL = "#pair-panel .pair"  # the two digits read, their redrawings, the input, Figure 5, the CNN
TURN_PANEL = "#turn-panel .turn"  # the turned digit, both networks' readings, the pose's moves

# In the page: at the end of every stroke on the pad, note the pad's revision and the time, then
# wait until the pad's panel (for the main pad, the reading panel: the digit, the bars, the
# network's input and the reconstruction, updated together) shows that revision; the stroke's
# latency is measured at the next animation frame after that, when the page paints it.
# While a stroke is drawn, count the readings that reach the page (the pad sends it as it goes).
# Each pad's timings are kept apart, under its selector: window.strokeEnds["#pad"], window.drawing["#pad"].
TIMING_SCRIPT = """
([padSelector, panel]) => {
  window.strokeEnds = {...window.strokeEnds, [padSelector]: []};
  window.drawing = {...window.drawing, [padSelector]: {ms: 0, readings: 0}};
  const strokeEnds = window.strokeEnds[padSelector], drawing = window.drawing[padSelector];
  const canvas = document.querySelector(`${padSelector} canvas`);
  const pad = canvas.closest('.pad').parentElement;
  const shownRevision = () => document.querySelector(panel)?.dataset.revision;
  let downAt = null, lastShown = shownRevision();
  new MutationObserver(() => {
    const shown = shownRevision();
    if (downAt !== null && shown && shown !== lastShown) drawing.readings += 1;
    lastShown = shown;
  }).observe(document.body, {subtree: true, childList: true, attributes: true});
  canvas.addEventListener('pointerdown', () => { downAt = performance.now(); });
  canvas.addEventListener('pointerup', () => {
    const entry = {revision: pad.dataset.revision, start: performance.now(), ms: null};
    if (downAt !== null) drawing.ms += entry.start - downAt;
    downAt = null;
    strokeEnds.push(entry);
    const shown = () => shownRevision() === entry.revision;
    const done = () => requestAnimationFrame(() => { entry.ms = performance.now() - entry.start; });
    if (shown()) return done();
    const observer = new MutationObserver(() => {
      if (shown()) { observer.disconnect(); done(); }
    });
    observer.observe(document.body, {subtree: true, childList: true, attributes: true});
  });
}
"""


# In the page: a CSS colour as the browser computes it, "rgb(31, 111, 209)", as "#1f6fd1".
HEX_JS = (
    "const hex = (css) => '#' + css.match(/\\d+/g).slice(0, 3)"
    ".map((v) => Number(v).toString(16).padStart(2, '0')).join('');"
)

# In the page: at every move of a transform slider (its input event, after the sliders have
# counted it in their revision), note the revision and the time of the move; the move's latency
# is measured at the next animation frame after the turn panel shows that revision.
TURN_TIMING_SCRIPT = """
(panel) => {
  window.turnMoves = [];
  const sliders = document.querySelector('#turn-sliders .transforms').parentElement;
  document.addEventListener('input', (event) => {
    if (!sliders.contains(event.target)) return;
    const entry = {revision: sliders.dataset.revision, start: event.timeStamp, ms: null};
    window.turnMoves.push(entry);
    const shown = () => document.querySelector(panel)?.dataset.revision === entry.revision;
    const done = () => requestAnimationFrame(() => { entry.ms = performance.now() - entry.start; });
    if (shown()) return done();
    const observer = new MutationObserver(() => {
      if (shown()) { observer.disconnect(); done(); }
    });
    observer.observe(document.body, {subtree: true, childList: true, attributes: true});
  });
}
"""


# In the page: every move of a dimension slider (its input event's time) and every new picture of
# the reading panel's reconstruction, at the animation frame that first shows it (whoever drew it:
# the page's decoder or the server's answer).
DRAG_TIMING_SCRIPT = """
() => {
  window.sliderMoves = [];
  window.reconstructions = [];
  const sliders = document.querySelector('#sliders');
  document.addEventListener('input', (event) => {
    if (sliders.contains(event.target)) window.sliderMoves.push(event.timeStamp);
  }, true);
  const shown = () => document.querySelector('#reading-panel .reconstruction img')?.getAttribute('src');
  let last = shown();
  const frame = () => {
    const now = shown();
    if (now !== last) window.reconstructions.push(performance.now());
    last = now;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}
"""

# In the page: a promise of the reading panel having drawn all that was asked of it (its module's
# `drawn`: the page's worker draws after the event that asks); at once on a page without it.
PANEL_DRAWN = (
    f"import(new URL('{page_modules.URL}/reading_panel.js', document.baseURI))"
    ".then((panel) => panel.drawn(), () => undefined)"
)

# In the page: a promise of the turn panel having drawn all that was asked of it (turn_panel.js's
# `drawn`); at once on a page without it.
TURN_DRAWN = (
    f"import(new URL('{page_modules.URL}/turn_panel.js', document.baseURI))"
    ".then((panel) => panel.drawn(), () => undefined)"
)

# In the page: a promise of the sliders having drawn the pictures asked of them (dimension_sliders.js
# `drawn`), after the reading panel has drawn what was asked of it.
SLIDERS_DRAWN = (
    f"{PANEL_DRAWN}.then(() => import(new URL('{page_modules.URL}/dimension_sliders.js', document.baseURI)))"
    ".then((sliders) => sliders.drawn())"
)

# In the page: each dimension slider set to the value given for its dimension (the browser snaps it
# to the slider's range and step), those whose value changed moved as a person's input moves them
# (an input event each), and what that asks of the reading panel drawn; returns the values taken,
# in dimension order.
SET_SLIDERS_SCRIPT = f"""
async (offsets) => {{
  const inputs = [...document.querySelectorAll('#sliders input[type=range]')];
  for (const input of inputs) {{
    const before = input.value;
    input.value = offsets[Number(input.dataset.dimension)];
    if (input.value !== before) input.dispatchEvent(new Event('input', {{bubbles: true}}));
  }}
  const taken = Array(inputs.length);
  for (const input of inputs) taken[Number(input.dataset.dimension)] = Number(input.value);
  await {PANEL_DRAWN};
  return taken;
}}
"""

# In the page: whether the page's decoder has its weights and draws the panel's reading (it
# cancels a redraw of the picture shown, unmoved, which it can draw), without moving anything.
DECODER_DRAWS_SCRIPT = """
() => !document.dispatchEvent(new CustomEvent('capsule-redraw', {cancelable: true, detail: {offsets: null}}))
"""


@contextmanager
def chromium(playwright):
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        browser.close()


def round_trip(page, milliseconds: float, download_mbps: float | None = None) -> None:
    """Every request of ``page`` from now on answered ``milliseconds`` later, as DevTools' network
    emulation does it (its latency: a round trip added to each request); downloads at
    ``download_mbps`` megabits a second, or as fast as they come (None)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    throughput = -1 if download_mbps is None else download_mbps * 1e6 / 8  # bytes a second
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": milliseconds, "downloadThroughput": throughput, "uploadThroughput": -1},
    )


def pointer(page, cdp, kind: str, x: float, y: float) -> None:
    """Press ("down"), move or lift ("up") a finger (through ``cdp``, a CDP session of ``page``)
    or, without one, the mouse, at page coordinates (x, y)."""
    if cdp is not None:
        event = {"down": "touchStart", "move": "touchMove", "up": "touchEnd"}[kind]
        points = [] if kind == "up" else [{"x": x, "y": y, "radiusX": 4, "radiusY": 4, "force": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": event, "touchPoints": points})
    elif kind == "down":
        page.mouse.move(x, y)
        page.mouse.down()
    elif kind == "move":
        page.mouse.move(x, y)
    else:
        page.mouse.up()


class PadDriver:
    """A person at the playground's page: draws on the pad with a mouse or a finger, clears it,
    and reads what the page shows.

    Args:
        page: a Playwright page at the playground, loaded.
        touch: draw with a finger (touch events) instead of the mouse.
    """

    pad, panel = "#pad", PANEL  # the pad's gr.HTML and its panel, which carries data-revision

    def __init__(self, page, touch: bool = False):
        self.page, self.touch = page, touch
        self.cdp = page.context.new_cdp_session(page) if touch else None
        page.wait_for_selector(f"{self.pad} canvas")
        page.wait_for_selector(f"{self.pad} [data-revision]", state="attached")  # its module has started
        page.evaluate(TIMING_SCRIPT, [self.pad, self.panel])

    def canvas_box(self) -> dict:
        self.page.locator(f"{self.pad} canvas").scroll_into_view_if_needed()
        return self.page.locator(f"{self.pad} canvas").bounding_box()

    def _pointer(self, kind: str, x: float, y: float) -> None:
        pointer(self.page, self.cdp, kind, x, y)

    def _press(self, selector: str) -> None:
        """Click (or with a finger, tap) the element of ``selector``."""
        button = self.page.locator(selector)
        if self.touch:
            button.tap()
        else:
            button.click()

    def draw(self, strokes: list[list[float]], timeout: float = 60.0) -> list[float]:
        """Draw ``strokes`` (pad units, 0..SIDE) at a hand's pace, waiting after each stroke
        until its reading is on the page; returns each stroke's latency in milliseconds."""
        box = self.canvas_box()
        scale = box["width"] / SIDE
        latencies = []
        for stroke in strokes:
            points = np.array(stroke).reshape(-1, 2)
            moves = np.vstack([points[::POINT_STRIDE], points[-1:]]) * scale + [box["x"], box["y"]]
            self._pointer("down", *moves[0])
            for x, y in moves[1:]:
                moved = time.perf_counter()
                self._pointer("move", x, y)
                time.sleep(max(0.0, MOVE_SECONDS - (time.perf_counter() - moved)))
            ends = self.page.evaluate("(pad) => window.strokeEnds[pad].length", self.pad)
            self._pointer("up", *moves[-1])
            self.page.wait_for_function(
                "([pad, n]) => window.strokeEnds[pad].length > n && window.strokeEnds[pad][n].ms !== null",
                arg=[self.pad, ends],
                timeout=timeout * 1000,
                polling=10,
            )
            latencies.append(self.page.evaluate("([pad, n]) => window.strokeEnds[pad][n].ms", [self.pad, ends]))
            time.sleep(PAUSE_SECONDS)
        return latencies

    def drawing(self) -> dict:
        """How the readings kept up while strokes were drawn on this pad: {ms: the strokes' time
        drawn, readings: readings that reached the page meanwhile}."""
        return self.page.evaluate("(pad) => window.drawing[pad]", self.pad)

    def clear(self, timeout: float = 60.0) -> None:
        """Press the pad's Clear and wait for every output of a reading to be back to empty."""
        self._press(f"{self.pad} button.clear")
        self.page.wait_for_function(
            "() => document.querySelectorAll('#reading-panel .digit.empty, #reading-panel .picture.empty')"
            ".length === 3",
            timeout=timeout * 1000,
        )

    def reading(self) -> str:
        return self.page.locator("#reading-panel .digit").inner_text()

    def revisions(self) -> tuple[str | None, str | None]:
        """The pad's revision, and the revision its panel shows."""
        return self.page.evaluate(
            "([pad, panel]) => [document.querySelector(`${pad} canvas`).closest('.pad').parentElement"
            ".dataset.revision ?? null, document.querySelector(panel)?.dataset.revision ?? null]",
            [self.pad, self.panel],
        )

    def network_input(self) -> np.ndarray:
        """The 28x28 picture under "What the network sees", as ink in [0, 1]."""
        return picture(self.page.locator("#reading-panel .input img.picture").get_attribute("src"))

    def canvas_pixels(self) -> np.ndarray:
        """The pad's canvas as the page paints it, uint8 RGB [h, w, 3]."""
        return rgb_picture(self.page.evaluate("(pad) => document.querySelector(`${pad} canvas`).toDataURL()", self.pad))

    def canvas_is_blank(self) -> bool:
        """Whether every pixel of the pad's canvas is white paper."""
        return self.page.evaluate(
            "(pad) => { const c = document.querySelector(`${pad} canvas`);"
            " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            " for (let i = 0; i < d.length; i++) if (d[i] !== 255) return false; return true; }",
            self.pad,
        )


class PairDriver(PadDriver):
    """A person at the Two-digits section: draws with either of its pad's two pens (a mouse or a
    finger), undoes, clears, taps an example pair, and reads the pair panel: the two digits shown
    and each redrawn from its own capsule.

    Args:
        page: a Playwright page at the playground, loaded.
        touch: draw and press with a finger (touch events) instead of the mouse.
    """

    pad, panel = "#pair-pad", PAIR_PANEL

    def choose_pen(self, pen: int) -> None:
        """Press pen ``pen``'s button (0: pen 1) and check that the pad marks it chosen."""
        self._press(f'{self.pad} button.pen[data-pen="{pen}"]')
        if self.chosen_pen() != pen:
            raise AssertionError(f"pen {pen + 1} was pressed, and the pad marks pen {self.chosen_pen() + 1} chosen")

    def pen_colours(self) -> list[str]:
        """Each pen's colour as its button's swatch shows it, "#rrggbb"."""
        return self.page.evaluate(
            f"(pad) => {{ {HEX_JS} return [...document.querySelectorAll(`${{pad}} button.pen .swatch`)]"
            ".map((s) => hex(getComputedStyle(s).backgroundColor)); }",
            self.pad,
        )

    def chosen_pen(self) -> int:
        """The pen the pad marks chosen (aria-pressed), 0 for pen 1."""
        return int(self.page.get_attribute(f'{self.pad} button.pen[aria-pressed="true"]', "data-pen"))

    def clear(self, timeout: float = 60.0) -> None:
        """Press the pad's Clear and wait for the panel's prompt, which it shows before any drawing."""
        self._press(f"{self.pad} button.clear")
        self.page.wait_for_selector(f"{self.panel}.empty", timeout=timeout * 1000)

    def undo(self, timeout: float = 60.0) -> None:
        """Press the pad's Undo and wait for the panel to show what is left (or its prompt)."""
        revision = self.revisions()[0]
        self._press(f"{self.pad} button.undo")
        self.shown(revision, timeout)

    def tap_example(self, index: int, timeout: float = 60.0) -> str:
        """Press the ``index``-th example pair and wait for its reading; returns the example's title
        ("MNIST test pair: 7 (pen 1) and 2 (pen 2)")."""
        revision = self.revisions()[0]
        button = f"{self.pad} .examples button.example >> nth={index}"
        self._press(button)
        self.shown(revision, timeout)
        return self.page.locator(button).get_attribute("title")

    def shown(self, before: str | None, timeout: float = 60.0) -> None:
        """Wait until the pad has sent a value after revision ``before`` and the panel shows the
        pad's latest: its reading, or for an empty pad (its hint showing), the prompt."""
        self.page.wait_for_function(
            "([pad, panel, before]) => { const surface = document.querySelector(`${pad} canvas`).closest('.pad');"
            " const revision = surface.parentElement.dataset.revision, shown = document.querySelector(panel);"
            " return revision !== before && (shown?.dataset.revision === revision"
            " || (!surface.querySelector('.hint').hidden && shown?.classList.contains('empty'))); }",
            arg=[self.pad, self.panel, before],
            timeout=timeout * 1000,
        )

    def reading(self) -> str:
        """The digits the panel shows, the longer capsule's first ("35", or "3" for one); "" before any drawing."""
        return "".join(self.page.locator(f"{self.panel} .digits .digit").all_inner_texts())

    def digit_colours(self) -> dict[str, str]:
        """Each digit shown and its colour, "#rrggbb" (the pen whose ink its capsule redraws)."""
        return self.page.evaluate(
            f"(panel) => {{ {HEX_JS} const digits = document.querySelectorAll(`${{panel}} .digits .digit`);"
            " return Object.fromEntries([...digits].map((d) => [d.textContent, hex(getComputedStyle(d).color)])); }",
            self.panel,
        )

    def input_picture(self) -> np.ndarray:
        """The 28x28 picture under "What the networks see", each pen's ink in its colour: uint8 RGB [28, 28, 3]."""
        return rgb_picture(self.page.locator(f"{self.panel} .pair-input img").get_attribute("src"))

    def count(self) -> int:
        """How many digits the panel says the CapsNet read (1 or 2)."""
        return int(self.page.locator(f"{self.panel} .count").get_attribute("data-count"))

    def redrawn(self) -> list[np.ndarray]:
        """Each digit read redrawn from its own capsule, as the panel shows it: uint8 RGB [28, 28, 3]."""
        return [
            rgb_picture(source)
            for source in self.page.eval_on_selector_all(
                f"{self.panel} .redrawn-pair img.redrawn", "(images) => images.map((i) => i.src)"
            )
        ]


class TurnDriver:
    """A person at the Turn-it section: drags its transform sliders with a mouse or a finger, one
    move at a time, while the page times each move until the turn panel shows it.

    Args:
        page: a Playwright page at the playground, loaded.
        touch: drag with a finger (touch events) instead of the mouse.
    """

    def __init__(self, page, touch: bool = False):
        self.page = page
        self.cdp = page.context.new_cdp_session(page) if touch else None
        page.wait_for_selector("#turn-sliders input[type=range]")
        page.evaluate(TURN_TIMING_SCRIPT, TURN_PANEL)

    def _pointer(self, kind: str, x: float, y: float) -> None:
        pointer(self.page, self.cdp, kind, x, y)

    def shown(self, digit: str | None = None) -> None:
        """Scroll to the turn panel and wait until it shows a turned digit, and where ``digit`` is
        given, until the sweep is that of the drawn ``digit`` and the turn panel shows what was
        asked of it."""
        self.page.locator("#turn-panel").scroll_into_view_if_needed()
        self.page.wait_for_selector(f"{TURN_PANEL}[data-revision] .turned img")
        if digit is not None:
            self.page.wait_for_function(
                "(digit) => document.querySelector('#turn-sweep')?.textContent.includes(`Your ${digit}, turned`)",
                arg=digit,
            )
            self.page.evaluate(f"() => {TURN_DRAWN}")

    def drag(self, name: str, fractions: list[float], timeout: float = 60.0) -> list[float]:
        """Press on slider ``name``'s thumb and move it to each of ``fractions`` of the slider's
        width in turn, waiting after each move until the turn panel shows it, then let go;
        returns each move's latency in milliseconds (a move that leaves the value as it was
        sends nothing and is not counted)."""
        slider = self.page.locator(f"#turn-sliders input[name={name}]")
        slider.scroll_into_view_if_needed()
        box = slider.bounding_box()
        low, high = (float(slider.get_attribute(key)) for key in ("min", "max"))
        y = box["y"] + box["height"] / 2
        self._pointer("down", box["x"] + box["width"] * (float(slider.input_value()) - low) / (high - low), y)
        latencies = []
        for fraction in fractions:
            moves = self.page.evaluate("() => window.turnMoves.length")
            self._pointer("move", box["x"] + box["width"] * fraction, y)
            if self.page.evaluate("() => window.turnMoves.length") == moves:
                continue  # the value did not change: no event
            self.page.wait_for_function(
                "(n) => window.turnMoves[n].ms !== null", arg=moves, timeout=timeout * 1000, polling=10
            )
            latencies.append(self.page.evaluate("(n) => window.turnMoves[n].ms", moves))
        self._pointer("up", box["x"] + box["width"] * fractions[-1], y)
        return latencies

    def value(self, name: str) -> float:
        return float(self.page.locator(f"#turn-sliders input[name={name}]").input_value())

    def turned_input(self) -> np.ndarray:
        """The turned 28x28 picture the turn panel shows, as ink in [0, 1]."""
        return picture(self.page.locator(f"{TURN_PANEL} .turned img.picture").get_attribute("src"))


class SliderDriver:
    """A person at the 16 dimension sliders: taps an MNIST example on the pad, drags a slider with
    the mouse while the page times each move and each new picture of the reconstruction, or sets
    every slider at once; and reads the reconstruction as the page shows it.

    Args:
        page: a Playwright page at the playground, loaded.
    """

    def __init__(self, page):
        self.page = page
        self.answers = 0  # the page's events answered by the server so far
        page.on("requestfinished", self._answered)
        page.wait_for_selector("#sliders input[type=range]")
        page.evaluate(DRAG_TIMING_SCRIPT)

    def _answered(self, request) -> None:
        if request.method == "POST" and request.url.endswith("/gradio_api/run/predict"):
            self.answers += 1

    def answered(self, before: int, events: int, timeout: float = 60.0) -> None:
        """Wait until the server has answered ``events`` of the page's events since ``before``
        (``self.answers`` then), and the page has shown the answers (an animation frame later)."""
        deadline = time.monotonic() + timeout
        while self.answers < before + events:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.answers - before} of {events} events answered in {timeout:g} s")
            self.page.wait_for_timeout(20)
        self.page.evaluate("() => new Promise((shown) => requestAnimationFrame(() => requestAnimationFrame(shown)))")

    def tap_example(self, index: int, timeout: float = 60.0) -> str:
        """Tap the pad's ``index``-th MNIST example and wait until its reading is on the page and
        the sliders follow it (the reading, then its details, answered); returns the digit read."""
        before = self.answers
        self.page.locator("#pad button.example").nth(index).click()
        self.answered(before, 2, timeout)
        return self.page.locator("#reading-panel .digit").inner_text()

    def choose(self, selector: str, timeout: float = 60.0) -> None:
        """Click the radio button of ``selector`` (*Decode as*, *Slider range*) and wait for the
        server's answer (the panel, the sliders at zero with their names, Figure 4) on the page."""
        before = self.answers
        self.page.locator(selector).click()
        self.answered(before, 1, timeout)

    def decoder_draws(self) -> bool:
        """Whether the page's decoder has its weights and draws this reading."""
        return self.page.evaluate(DECODER_DRAWS_SCRIPT)

    def set_offsets(self, offsets: list[float]) -> list[float]:
        """Move every slider to its dimension's offset (snapped by the slider); returns the offsets taken."""
        return self.page.evaluate(SET_SLIDERS_SCRIPT, offsets)

    def limits(self) -> list[float]:
        """How far each dimension's slider goes either way, in dimension order."""
        return self.page.evaluate(
            "() => { const inputs = [...document.querySelectorAll('#sliders input[type=range]')];"
            " const limits = Array(inputs.length);"
            " for (const input of inputs) limits[Number(input.dataset.dimension)] = Number(input.max);"
            " return limits; }"
        )

    def reconstruction(self) -> np.ndarray:
        """The reconstruction the reading panel shows once it has drawn what was asked of it, uint8
        grey [28, 28] (black ink on white)."""
        self.page.evaluate(f"() => {PANEL_DRAWN}")
        return grey_picture(self.page.get_attribute("#reading-panel .reconstruction img", "src"))

    def drag_across(self, moves: int, inset: float = 8.0) -> dict:
        """Drag the first slider across (`drag_across`); returns the page's times (ms) of the slider's
        moves (its input events: the moves that changed its value) and of the new pictures since the press."""
        self.page.evaluate("() => { window.sliderMoves.length = 0; window.reconstructions.length = 0; }")
        drag_across(self.page, self.page.locator("#sliders input[type=range]").first, moves, inset)
        return self.page.evaluate("() => ({moves: [...window.sliderMoves], pictures: [...window.reconstructions]})")


def drag_across(page, slider, moves: int, inset: float = 8.0) -> None:
    """Press with the mouse on the middle of ``slider`` (a Playwright locator of a range input whose
    thumb is there), drag it to the left end and across to the right end in ``moves`` mouse moves,
    evenly along the way and MOVE_SECONDS apart, and let go; the track's ends are taken ``inset``
    CSS pixels in from the slider's box, where the thumb's centre stops."""
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y, middle = box["y"] + box["height"] / 2, box["x"] + box["width"] / 2
    left, right = box["x"] + inset, box["x"] + box["width"] - inset
    way = np.linspace(0, (middle - left) + (right - left), moves + 1)[1:]  # along the path
    xs = np.where(way <= middle - left, middle - way, left + way - (middle - left))
    page.mouse.move(middle, y)
    page.mouse.down()
    for x in xs:
        moved = time.perf_counter()
        page.mouse.move(float(x), y)
        time.sleep(max(0.0, MOVE_SECONDS - (time.perf_counter() - moved)))
    page.mouse.up()


def picture(source: str) -> np.ndarray:
    """A picture's PNG data URL as ink in [0, 1] (MNIST's polarity)."""
    return 1 - np.asarray(_image(source).convert("L"), dtype=np.float32) / 255


def grey_picture(source: str) -> np.ndarray:
    """A grey picture's PNG data URL as uint8 [h, w], as drawn (black ink on white: 0 is ink)."""
    return np.asarray(_image(source).convert("L"))


def rgb_picture(source: str) -> np.ndarray:
    """A picture's PNG data URL as uint8 RGB [h, w, 3]."""
    return np.asarray(_image(source).convert("RGB"))


def _image(source: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(source.split(",", 1)[1])))
