"""The playground's sliders dragged in a real browser, as a person does, the page itself timing
each move until its panel shows it: Turn it's transform sliders (TurnDriver), and the 16 dimension
sliders under the reading (SliderDriver), dragged across or all set at once, their reconstruction
read back; with the promises in the page of a panel having drawn what was asked of it
(PANEL_DRAWN, TURN_DRAWN, SLIDERS_DRAWN). Shared by tests/test_browser.py,
tests/test_browser_decoder.py, tests/test_dimension_pictures.py, tests/test_turn_reader.py and
bench/browser_latency.py, bench/slider_drag.py, bench/dimension_pictures.py and bench/round_trip.py.
"""

import time

import numpy as np

from harness.page_pictures import grey_picture, picture
from harness.pointer_moves import drag_across, pointer
from playground import page_modules

TURN_PANEL = "#turn-panel .turn"  # the turned digit, both networks' readings, the pose's moves

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

# In the page: once Decode as or the slider range shows `chosen` (the radio's value) and the page
# has published the choice (reading_store.js `decodeAs`).
CHOSEN_SCRIPT = f"""
(chosen) => import(new URL('{page_modules.URL}/reading_store.js', document.baseURI)).then((store) =>
  new Promise((done) => {{
    const taken = (choice) => choice && (choice.digit === chosen || choice.range === chosen);
    if (taken(store.decodeAs.current())) return done();
    const stop = store.decodeAs.subscribe((choice) => {{
      if (taken(choice)) {{ stop(); done(); }}
    }});
  }}))
"""

# In the page: whether the page's decoder has its weights (page_networks.js `decoderState`).
DECODER_DRAWS_SCRIPT = f"""
() => import(new URL('{page_modules.URL}/page_networks.js', document.baseURI))
  .then((networks) => networks.decoderState() === "ready")
"""

# In the page: a promise of whether the reading panel shows a reading whose capsules can be redrawn
# (reading_store.js `shown`).
SHOWN_DRAWABLE_SCRIPT = f"""
() => import(new URL('{page_modules.URL}/reading_store.js', document.baseURI))
  .then((store) => Boolean(store.shown.current()?.capsules))
"""


def asks_the_server(url: str) -> bool:
    """A request of the page's to compute: a question to the server (playground/answers.py) or an
    event of Gradio's."""
    return "/ask/" in url or "/gradio_api/run/" in url


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
        self.requests = 0  # the page's questions and events sent to the server so far
        self.answers = 0  # and answered
        page.on("request", self._sent)
        page.on("requestfinished", self._answered)
        page.wait_for_selector("#sliders input[type=range]")
        page.evaluate(DRAG_TIMING_SCRIPT)

    def _sent(self, request) -> None:
        if request.method == "POST" and asks_the_server(request.url):
            self.requests += 1

    def _answered(self, request) -> None:
        if request.method == "POST" and asks_the_server(request.url):
            self.answers += 1

    def all_shown(self, timeout: float = 60.0) -> None:
        """Wait until every event sent to the server is answered, and the reading panel and the
        sliders have drawn all that was asked of them."""
        self.answered(self.answers, self.requests - self.answers, timeout)
        self.page.evaluate(f"() => {SLIDERS_DRAWN}")

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
        """Tap the pad's ``index``-th MNIST example and wait until its finished reading is on the
        page (read there, or answered with its details by the server) and the sliders follow it;
        returns the digit read."""
        self.page.locator("#pad button.example").nth(index).click()
        self.page.wait_for_function(
            "() => { const panel = document.querySelector('#reading-panel .panel[data-settled]');"
            " return panel?.dataset.revision === document.querySelector('#pad [data-revision]').dataset.revision; }",
            timeout=timeout * 1000,
        )
        self.all_shown(timeout)
        return self.page.locator("#reading-panel .digit").inner_text()

    def choose(self, selector: str, timeout: float = 60.0) -> None:
        """Click the radio button of ``selector`` (*Decode as*, *Slider range*) and wait until the
        page shows what follows it (the panel, the sliders at zero with their names)."""
        button = self.page.locator(selector)
        button.click()
        self.page.evaluate(CHOSEN_SCRIPT, button.get_attribute("value"))
        self.all_shown(timeout)

    def decoder_draws(self) -> bool:
        """Whether the page's decoder has its weights and draws this reading."""
        return self.page.evaluate(DECODER_DRAWS_SCRIPT)

    def shows_drawable(self) -> bool:
        """Whether the reading shown is one the page's decoder can redraw (`SHOWN_DRAWABLE_SCRIPT`)."""
        return self.page.evaluate(SHOWN_DRAWABLE_SCRIPT)

    def wait_for_decoder(self, timeout: float = 60.0) -> None:
        """Wait until the page's decoder draws the reading shown (`decoder_draws`)."""
        deadline = time.monotonic() + timeout
        while not self.decoder_draws():
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page's decoder did not draw the reading in {timeout:g} s")
            self.page.wait_for_timeout(20)

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
        """Drag the first slider across (`pointer_moves.drag_across`); returns the page's times (ms) of the slider's
        moves (its input events: the moves that changed its value) and of the new pictures since the press."""
        self.page.evaluate("() => { window.sliderMoves.length = 0; window.reconstructions.length = 0; }")
        drag_across(self.page, self.page.locator("#sliders input[type=range]").first, moves, inset)
        return self.page.evaluate("() => ({moves: [...window.sliderMoves], pictures: [...window.reconstructions]})")
