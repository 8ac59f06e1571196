"""The picture of the playground in README.md (assets/playground.png), made from the real page.

Starts `python app.py` on 127.0.0.1 (or uses --url), opens the playground in Debian's Chromium
(headless, Playwright) at 1300x1100, draws a digit on the pad with the mouse as
bench.browser_latency does, waits until the page shows its reading and what follows it (the
named sliders, Figure 4, the routing view), then saves the top of the page, down to the end of the
reading panel, as a PNG. Run it again whenever the page changes:

    python -m bench.screenshot                          # writes assets/playground.png
"""
import argparse
from contextlib import nullcontext
from pathlib import Path

from tests.app_server import serving_app
from tests.browser_drawing import DESKTOP, PadDriver, chromium
from tests.digit_strokes import strokes

OUT = Path(__file__).resolve().parent.parent / "assets" / "playground.png"
BOX = (70, 30, 150, 220)        # where the digit is drawn: left, top, width, height in pad units
MARGIN = 24                     # CSS pixels of page kept under the reading panel
TIMEOUT_MS = 120_000            # a headless software-rendered page on a busy 2-core machine can be slow


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
    page.wait_for_function(                                              # what follows a reading
        "(digit) => document.querySelector('#routing')?.textContent.includes(`winner ${digit}:`)"
        " && document.querySelectorAll('#figure4 th[scope=row]').length === 16"
        " && !document.querySelector('#sliders input[type=range]').disabled", arg=digit, timeout=TIMEOUT_MS)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.mouse.move(0, 0)                                               # no hover on the pad
    out.parent.mkdir(parents=True, exist_ok=True)
    panel = page.locator("#reading-panel").bounding_box()
    page.screenshot(path=str(out), clip={"x": 0, "y": 0, "width": DESKTOP["width"],
                                         "height": panel["y"] + panel["height"] + MARGIN})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="the PNG to write (default: assets/playground.png)")
    parser.add_argument("--digit", type=int, default=4, choices=range(10), help="the digit drawn (default 4)")
    parser.add_argument("--url", default=None, help="a running playground (default: start app.py here)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    server = nullcontext(args.url) if args.url else serving_app()
    with server as url, sync_playwright() as playwright, chromium(playwright) as browser:
        page = browser.new_page(viewport=DESKTOP)
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)
        photograph(page, args.digit, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
