"""Drawing on the playground's pads in a real browser, as a person does: strokes at a hand's pace
with a mouse or a finger (harness/pointer_moves.py), the page itself timing how long each
stroke's reading takes to show (TIMING_SCRIPT), and what the page then shows read back: on the
digit pad (PadDriver), its reading panel; on the Two-digits section's pad of two pens (PairDriver),
the pens, Undo, the example pairs and the pair panel. Shared by tests/test_browser.py,
tests/test_page_reader.py, tests/test_turn_reader.py, harness/screenshot.py and
bench/browser_latency.py, bench/slider_drag.py.
"""

import time

import numpy as np

from harness.page_pictures import picture, rgb_picture
from harness.pointer_moves import MOVE_SECONDS, pointer
from playground.drawing_pad import SIDE

POINT_STRIDE = 3  # every third point of a stroke is a pointer move (~5 screen pixels apart)
PAUSE_SECONDS = 0.15  # between strokes, once the last one's reading is on the page
PANEL = "#reading-panel .panel"  # the reading, the bars, the network's input, the reconstruction
PAIR_PANEL = "#pair-panel .pair"  # the two digits read, their redrawings, the input, Figure 5, the CNN

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

    def choose_photo(self, path, timeout: float = 60.0) -> None:
        """Choose the photo at ``path`` under the pad, as a person picks a file or takes a picture
        (playground/photo.py), and wait until the page shows the reading of what it put on the pad."""
        before = self.revisions()[0]
        self.page.set_input_files("#photo input[type=file]", str(path))
        self.page.wait_for_function(
            "([pad, panel, before]) => { const sent = document.querySelector(`${pad} canvas`).closest('.pad')"
            ".parentElement.dataset.revision; return sent !== before"
            " && document.querySelector(panel)?.dataset.revision === sent; }",
            arg=[self.pad, self.panel, before],
            timeout=timeout * 1000,
        )

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
