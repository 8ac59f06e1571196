"""A slider dragged in a real browser far from the server: how the reconstruction follows the hand.

Starts `python app.py` on 127.0.0.1 (or uses --url) and, with --against REV, the app of git
revision REV (today's code before a change, say) in turn on the same machine. For each round trip
of --round-trips, DevTools' network emulation answers every request of the page that many
milliseconds later (--download-mbps caps its downloads too; by default they come as fast as they
can), and a new visitor opens the page in Debian's Chromium (headless, Playwright), a fresh
browser context with nothing cached:
- the page's load: from navigation to the drawing pad shown, and to the page's decoder ready
  (its weights fetched and read, where the page has one), with the bytes the page fetched;
- a reading as soon as the pad shows: an MNIST test digit under the pad tapped, timed from the
  tap to the animation frame that shows its reading (the decoder's weights may be on their way);
- once the sliders follow that reading (and the decoder is ready, where there is one), the first
  slider dragged as a person does: the mouse pressed on its thumb (at 0, the middle), moved to the
  left end and across to the right end in --moves moves evenly along the way, 16 ms apart, then
  let go. The page notes the time of each move of the slider (its input event) and of each new
  picture of the reconstruction (the animation frame that first shows it), for 3 s after the last
  move; the requests the page sent from the press on are counted.
Prints, per app, the table: the reconstruction's updates against the mouse's moves, the first
update after the first move, the last update after the last move, the requests; and the load.

    python -m bench.slider_drag --round-trips 0 150 300 --against HEAD
    python -m bench.slider_drag --round-trips 150 --download-mbps 10 --against HEAD

The figures it measured, with the machine: docs/benchmarks.md.
"""

import argparse
import time
from contextlib import ExitStack, nullcontext

from bench.train_throughput import cpu_model
from harness.app_server import checkout, serving_app
from harness.chromium_browser import DESKTOP, chromium, round_trip
from harness.pad_drivers import PANEL
from harness.slider_drivers import SliderDriver

SETTLE_SECONDS = 3.0  # after the last move, for the server's last answers to show
DECODER_TIMEOUT = 120.0  # seconds to wait for the page's decoder before the drag
EXAMPLE = 0  # the MNIST test digit tapped: the first under the pad

# In the page: tap the example and time its reading, from the tap to the animation frame after
# the reading panel shows a reading of the pad's new revision.
TAP_AND_TIME = """
(example) => new Promise((done) => {
  const before = document.querySelector('%s')?.dataset.revision;
  const start = performance.now();
  const observer = new MutationObserver(() => {
    const revision = document.querySelector('%s')?.dataset.revision;
    if (revision && revision !== before) {
      observer.disconnect();
      requestAnimationFrame(() => done(performance.now() - start));
    }
  });
  observer.observe(document.body, {subtree: true, childList: true, attributes: true});
  document.querySelectorAll('#pad button.example')[example].click();
})
""" % (PANEL, PANEL)  # noqa: UP031 (JavaScript, whose braces str.format would need doubled)

# In the page: the bytes it fetched so far (resource timing), and those of the decoder's graph.
PAGE_BYTES = """
async () => {
  const config = await (await fetch('config')).json();
  const panel = config.components.find((c) => c.props?.elem_id === 'reading-panel');
  const address = panel.props.props?.decoder_url ?? panel.props.decoder_url;  // the decoder's, named by its hash
  const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
  const decoder = entries.filter((entry) => entry.name.endsWith(address));
  const sum = (list) => list.reduce((total, entry) => total + entry.transferSize, 0);
  return {all: sum(entries), decoder: sum(decoder), decoderFetched: decoder.length ? decoder[0].responseEnd : null};
}
"""


def visit(browser, url: str, milliseconds: float, download_mbps: float | None, moves: int) -> dict:
    """A new visitor at ``url`` over the emulated network: the page's load, a reading, a drag."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    round_trip(page, milliseconds, download_mbps)
    requests = []
    page.on("request", lambda request: requests.append(time.perf_counter()) if request.method == "POST" else None)
    page.goto(url, wait_until="commit")
    page.wait_for_selector("#pad button.example", timeout=DECODER_TIMEOUT * 1000)
    pad_shown = page.evaluate("() => performance.now()")
    person = SliderDriver(page)
    reading_ms = page.evaluate(TAP_AND_TIME, EXAMPLE)
    person.all_shown(DECODER_TIMEOUT)  # the reading, with its details, from the server or the page
    decoder_ready = None
    if person.shows_drawable():
        person.wait_for_decoder(DECODER_TIMEOUT)
        decoder_ready = page.evaluate("() => performance.now()")
    loaded = page.evaluate(PAGE_BYTES)
    dragged = drag(page, person, moves, requests)
    context.close()
    return {
        "round trip": milliseconds,
        **dragged,
        "pad shown": pad_shown,
        "reading": reading_ms,
        "decoder ready": decoder_ready,
        **loaded,
    }


def drag(page, person: SliderDriver, moves: int, requests: list[float]) -> dict:
    """Drag the first dimension slider across in ``moves`` moves (`SliderDriver.drag_across`) and
    wait SETTLE_SECONDS: the slider's moves ("changed": those that changed its value), the new
    pictures of the reconstruction from the first move on ("updates"), the first after the first
    move and the last after the last move (ms), and the requests sent from the press on
    (``requests``: the time.perf_counter() of each request the caller counts)."""
    pressed = time.perf_counter()
    person.drag_across(moves)
    page.wait_for_timeout(SETTLE_SECONDS * 1000)
    timed = page.evaluate("() => ({moves: [...window.sliderMoves], pictures: [...window.reconstructions]})")
    changes, pictures = timed["moves"], [t for t in timed["pictures"] if t >= timed["moves"][0]]
    return {
        "moves": moves,
        "changed": len(changes),
        "updates": len(pictures),
        "first": pictures[0] - changes[0] if pictures else None,
        "last": pictures[-1] - changes[-1] if pictures else None,
        "requests": sum(sent >= pressed for sent in requests),
    }


def ms(value: float | None) -> str:
    return "none" if value is None else f"{value:.0f} ms"


def report(name: str, visits: list[dict], download_mbps: float | None) -> None:
    print(f"\n{name}")
    print(
        "| round trip | reconstruction updates during the drag | first update after the first move "
        "| last update after the last move | requests |"
    )
    print("| --- | --- | --- | --- | --- |")
    for v in visits:
        print(
            f"| {v['round trip']:.0f} ms | {v['updates']} of {v['moves']} moves ({v['changed']} changed the value) "
            f"| {ms(v['first'])} | {ms(v['last'])} | {v['requests']} |"
        )
    network = "downloads as fast as they come" if download_mbps is None else f"downloads at {download_mbps:g} Mbit/s"
    print(f"the page's load ({network}):")
    for v in visits:
        decoder = (
            "no decoder in the page"
            if v["decoder ready"] is None
            else f"its decoder ({v['decoder'] / 1e6:.2f} MB) fetched at {ms(v['decoderFetched'])} and ready at "
            f"{ms(v['decoder ready'])}"
        )
        print(
            f"  {v['round trip']:.0f} ms: the pad shown at {ms(v['pad shown'])} after navigation; a digit tapped "
            f"then read in {ms(v['reading'])}; {decoder}; {v['all'] / 1e6:.2f} MB fetched by then"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--round-trips",
        type=float,
        nargs="+",
        default=[0, 150, 300],
        help="the round trips (ms) DevTools adds to every request, one visit each (default 0 150 300)",
    )
    parser.add_argument("--moves", type=int, default=60, help="mouse moves of the drag (default 60)")
    parser.add_argument(
        "--download-mbps",
        type=float,
        default=None,
        help="download speed in Mbit/s (default: as fast as the machine serves)",
    )
    parser.add_argument("--url", default=None, help="a running playground (default: start app.py here)")
    parser.add_argument(
        "--against",
        default=None,
        metavar="REV",
        help="also measure the app of this git revision (today's code: HEAD), served from a "
        "checkout of it, after this one",
    )
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    apps = [("this checkout" if args.url is None else args.url, None)] + (
        [(f"revision {args.against}", args.against)] if args.against else []
    )
    print(f"CPU: {cpu_model()}; Chromium headless, page {DESKTOP['width']}x{DESKTOP['height']}, mouse")
    with sync_playwright() as playwright, chromium(playwright) as browser:
        for name, revision in apps:
            with ExitStack() as stack:
                if revision is None:
                    url = stack.enter_context(nullcontext(args.url) if args.url else serving_app())
                else:
                    url = stack.enter_context(serving_app(code=stack.enter_context(checkout(revision))))
                visits = [visit(browser, url, rtt, args.download_mbps, args.moves) for rtt in args.round_trips]
            report(name, visits, args.download_mbps)


if __name__ == "__main__":
    main()
