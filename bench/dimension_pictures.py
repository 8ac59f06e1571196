"""The pictures beside the dimension sliders, far from the server: how soon after a new reading the
page redraws them.

Starts `python app.py` on 127.0.0.1 (or uses --url); DevTools' network emulation answers every
request of the page --round-trip milliseconds later, and a visitor opens the page in Debian's
Chromium (headless, Playwright). Once the page reads drawings and draws the pictures itself, each of
the pad's ten MNIST examples is tapped in turn (--taps in all), after the server's answers to the
tap before have come and what they asked of the page is drawn. For each tap the page notes the
animation frame that first shows the new reading in the reading panel, and the frame that first
shows all 16 pictures of that reading beside the sliders; and the requests answered between the
tap and the pictures. Prints each tap's times, and their median and largest.

    python -m bench.dimension_pictures --round-trip 300

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import statistics
from contextlib import nullcontext

from bench.train_throughput import cpu_model
from harness.app_server import serving_app
from harness.chromium_browser import DESKTOP, chromium, round_trip
from harness.slider_drivers import SLIDERS_DRAWN, SliderDriver

EXAMPLES = 10  # under the pad
READY_TIMEOUT_MS = 180_000  # the page's networks loading, on a busy machine


# In the page: whether the pictures beside the sliders are drawn, of the reading shown.
PICTURES_OF_THE_READING = """
() => {
  const list = document.querySelector('#sliders .dimensions');
  const revision = document.querySelector('#reading-panel .panel')?.dataset.revision;
  return list.querySelector('img.change[src]') !== null && list.dataset.revision === revision;
}
"""

# In the page: tap example `example`; the ms from the tap to the frame that shows its reading, and
# from that frame to the one that shows its 16 pictures.
TAP_AND_TIME = f"""
(example) => new Promise((done) => {{
  const shownRevision = () => document.querySelector('#reading-panel .panel')?.dataset.revision;
  const before = shownRevision();
  const drawn = {PICTURES_OF_THE_READING.strip()};
  const start = performance.now();
  let readingAt = null;
  const frame = () => {{
    const revision = shownRevision();
    if (readingAt === null && revision && revision !== before) readingAt = performance.now();
    if (readingAt !== null && revision !== before && drawn()) {{
      done({{reading: readingAt - start, pictures: performance.now() - readingAt}});
      return;
    }}
    requestAnimationFrame(frame);
  }};
  document.querySelectorAll('#pad button.example')[example].click();
  requestAnimationFrame(frame);
}})
"""


def visit(browser, url: str, milliseconds: float, taps: int) -> list[dict]:
    """A visitor at ``url`` over the emulated network: ``taps`` examples tapped, each timed."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(READY_TIMEOUT_MS)
    page.goto(url)
    person = SliderDriver(page)
    person.tap_example(0, READY_TIMEOUT_MS / 1000)
    page.wait_for_function(PICTURES_OF_THE_READING, timeout=READY_TIMEOUT_MS, polling=50)
    round_trip(page, milliseconds)
    timed = []
    for tap in range(1, taps + 1):
        answers = person.answers
        times = page.evaluate(TAP_AND_TIME, tap % EXAMPLES)
        timed.append({**times, "answered": person.answers - answers})
        person.answered(answers, 1, READY_TIMEOUT_MS / 1000)  # the reading, with its details
        page.evaluate(f"() => {SLIDERS_DRAWN}")
    context.close()
    return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round-trip", type=float, default=300, help="ms DevTools adds to every request (default 300)")
    parser.add_argument("--taps", type=int, default=20, help="examples tapped (default 20)")
    parser.add_argument("--url", default=None, help="a running playground (default: start app.py here)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    print(f"CPU: {cpu_model()}; Chromium headless, page {DESKTOP['width']}x{DESKTOP['height']}")
    with sync_playwright() as playwright, chromium(playwright) as browser:
        with nullcontext(args.url) if args.url else serving_app() as url:
            timed = visit(browser, url, args.round_trip, args.taps)
    print(f"round trip {args.round_trip:.0f} ms; tap -> reading shown -> its 16 pictures shown:")
    for k, tap in enumerate(timed, start=1):
        print(f"  tap {k:2d}: {tap['reading']:4.0f} ms, then {tap['pictures']:4.0f} ms ({tap['answered']} answers)")
    pictures = [tap["pictures"] for tap in timed]
    print(
        f"pictures after the reading: median {statistics.median(pictures):.0f} ms, largest {max(pictures):.0f} ms; "
        f"answers before the pictures: {sum(tap['answered'] for tap in timed)}"
    )


if __name__ == "__main__":
    main()
