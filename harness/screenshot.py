"""The picture of the playground in README.md (assets/playground.png), taken from the real page in
a browser: `python -m bench.screenshot` makes it, tests/test_browser.py checks how."""

from pathlib import Path

from harness.chromium_browser import DESKTOP
from harness.digit_strokes import strokes
from harness.pad_drivers import PadDriver

BOX = (70, 30, 150, 220)  # where the digit is drawn: left, top, width, height in pad units
MARGIN = 24  # CSS pixels of page kept under the reading panel
TIMEOUT_MS = 120_000  # a headless software-rendered page on a busy 2-core machine can be slow


def photograph(page, digit: int, out: Path) -> None:
    """Draw ``digit`` on the playground loaded in ``page``, wait for its reading and what follows
    it, and save the page from its top to just under the reading panel to ``out``.

    Raises:
        RuntimeError: the page read another digit than the one drawn.
    """
    person = PadDriver(page)
    person.draw(strokes(digit, *BOX), timeout=TIMEOUT_MS / 1000)
    if person.reading() != str(digit):
        raise RuntimeError(f"the page read {person.reading()} where {digit} was drawn")
    page.wait_for_function(  # what follows a reading
        "(digit) => document.querySelector('#routing')?.textContent.includes(`winner ${digit}:`)"
        " && document.querySelectorAll('#figure4 th[scope=row]').length === 16"
        " && !document.querySelector('#sliders input[type=range]').disabled",
        arg=digit,
        timeout=TIMEOUT_MS,
    )
    page.evaluate("() => window.scrollTo(0, 0)")
    page.mouse.move(0, 0)  # no hover on the pad
    out.parent.mkdir(parents=True, exist_ok=True)
    panel = page.locator("#reading-panel").bounding_box()
    page.screenshot(
        path=str(out), clip={"x": 0, "y": 0, "width": DESKTOP["width"], "height": panel["y"] + panel["height"] + MARGIN}
    )
