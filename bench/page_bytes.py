"""What a visitor's browser fetches, counted on the wire, and how soon a phone far away reads its
first stroke in the page.

Starts `python app.py` on 127.0.0.1 and, with --against REV, the app of git revision REV beside it.
Every byte between Chromium and each app goes through a proxy on loopback (harness/delaying_proxy.py)
that counts them.

- **The bytes**: a first visit, in a browser with a profile on disk (nothing kept yet), on a desktop
  page: the bytes fetched before any scroll (until the page's reader is ready and nothing has
  crossed for harness/page_visit.py's QUIET_S), then once scrolled to the end, a screen at a time
  (until quiet again); then a returning visit, the same browser opening the page again. Each
  answer's bytes are listed by file (Chromium's count of the body as sent, gzipped where it was
  sent so), the largest first.
- **A phone far away** (--phone-link MBPS): a fresh phone page (390x844, a finger) at --round-trip,
  the link towards the phone held to MBPS megabits a second: the moment the page's reader is ready,
  then a stroke drawn at once (a digit traced from MNIST's test digits), and the moment its
  reading shows, read in the page; all from the moment the page was asked for.

    python -m bench.page_bytes [--against REV] [--phone-link 10 --round-trip 300 --data-dir DATA]
"""

import argparse
import tempfile
import time
from contextlib import ExitStack
from urllib.parse import urlsplit

import numpy as np

from bench.train_throughput import cpu_model
from harness.app_server import serving_apps
from harness.chromium_browser import CHROMIUM, CHROMIUM_ARGS, DESKTOP, PHONE
from harness.delaying_proxy import LOOPBACK, Link, delaying_proxy
from harness.digit_strokes import random_box
from harness.pad_drivers import PadDriver
from harness.page_visit import scroll_to_end, wait_for_quiet, wait_for_reader
from harness.traced_strokes import stroke_source
from playground.drawing_pad import SIDE

MB = 1e6
# In the page: the revision of the reading shown, and whether the page's reader reads by now (the
# seam then asks the server nothing of the digit pad: page_networks.js)
SHOWN_SCRIPT = """
() => {
  const module = (name) => import(document.querySelector(`link[rel=modulepreload][href$="/${name}"]`).href);
  return Promise.all([module("reading_store.js"), module("page_networks.js")]).then(([store, networks]) => {
    const shown = store.shown.current();
    return [shown?.revision ?? null, networks.readerState() === "ready"];
  });
}
"""


def by_file(sizes: dict[str, int]) -> str:
    """The files fetched, the largest first: '1.23 MB name, ...'."""
    ranked = sorted(sizes.items(), key=lambda item: -item[1])
    return ", ".join(f"{size / MB:.2f} MB {urlsplit(url).path.rsplit('/', 1)[-1] or '/'}" for url, size in ranked)


def bytes_of_visits(playwright, app_url: str) -> list[tuple[str, float, dict[str, int]]]:
    """(what, MB fetched, each file's bytes) for a first visit before any scroll, the same
    scrolled to the end, and a returning visit."""
    from playwright.sync_api import Error as PlaywrightError

    link = Link()
    results = []
    with (
        delaying_proxy(urlsplit(app_url).port, 0, link) as port,
        tempfile.TemporaryDirectory(prefix="page-bytes-profile-") as profile,
    ):
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, viewport=DESKTOP
        )
        files: dict[str, int] = {}

        def counted(request) -> None:
            try:
                sizes = request.sizes()
            except PlaywrightError:  # the page closed before its answer was counted: the proxy counted it
                return
            files[request.url] = files.get(request.url, 0) + sizes["responseBodySize"] + sizes["responseHeadersSize"]

        context.on("requestfinished", counted)
        try:
            for what in ("a first visit, before any scroll", "the same, scrolled to the end", "a returning visit"):
                start = link.to_browser
                if what != "the same, scrolled to the end":
                    files.clear()
                    page = context.new_page()
                    page.goto(f"http://{LOOPBACK}:{port}/")
                    if wait_for_reader(page) not in {"ready", "none"}:
                        raise RuntimeError("the page's reader did not load")
                else:
                    scroll_to_end(page)
                wait_for_quiet(link)
                results.append((what, (link.to_browser - start) / MB, dict(files)))
                if what == "the same, scrolled to the end":
                    page.close()
                files.clear()
        finally:
            context.close()
    return results


def phone_far_away(browser, app_url: str, round_trip: float, mbps: float, stroke: list[list[float]]) -> dict:
    """A fresh phone page at ``round_trip`` ms, its link held to ``mbps``: seconds from asking for
    the page to the reader ready, and to the first stroke's reading shown, read in the page."""
    link = Link(download_mbps=mbps)
    with delaying_proxy(urlsplit(app_url).port, round_trip, link) as port:
        context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        try:
            page = context.new_page()
            start = time.monotonic()
            page.goto(f"http://{LOOPBACK}:{port}/", wait_until="commit")
            pad = PadDriver(page, touch=True)
            if wait_for_reader(page) != "ready":
                raise RuntimeError("the page's reader did not load")
            ready = time.monotonic() - start
            pad.draw(stroke[:1])  # the digit's first stroke
            revision, in_page = page.evaluate(SHOWN_SCRIPT)
            return {
                "reader ready": ready,
                "stroke read": time.monotonic() - start,
                "in page": in_page and revision is not None,
                "MB": link.to_browser / MB,
            }
        finally:
            context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", metavar="REV", help="also the app of git revision REV")
    parser.add_argument("--phone-link", type=float, metavar="MBPS", help="also a phone far away, its link this fast")
    parser.add_argument("--round-trip", type=float, default=300, help="the phone's round trip, ms (default: 300)")
    parser.add_argument("--visits", type=int, default=3, help="phone visits per app (default: 3)")
    parser.add_argument("--data-dir", default="data", help="MNIST, for the phone's strokes")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    print(f"CPU: {cpu_model()}; Chromium headless; bytes counted on the wire towards the browser")
    with ExitStack() as stack:
        apps = stack.enter_context(serving_apps(args.against))
        playwright = stack.enter_context(sync_playwright())
        print("| app | visit | MB fetched | the files, largest first |")
        print("| --- | --- | --- | --- |")
        for name, url in apps.items():
            for what, fetched, files in bytes_of_visits(playwright, url):
                print(f"| {name} | {what} | **{fetched:.2f}** | {by_file(files)} |", flush=True)
        if args.phone_link is None:
            return
        source, rng = stroke_source("mnist", args.data_dir), np.random.default_rng(0)
        strokes = [source.strokes(int(rng.integers(10)), rng, random_box(rng, SIDE)) for _ in range(args.visits)]
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        print(f"\nA phone page, {args.round_trip:.0f} ms round trip, its link held to {args.phone_link:g} Mbit/s:")
        print("| app | reader ready, s | first stroke read in the page, s | read in the page | MB by then |")
        print("| --- | --- | --- | --- | --- |")
        for name, url in apps.items():
            for digit in strokes:
                seen = phone_far_away(browser, url, args.round_trip, args.phone_link, digit)
                print(
                    f"| {name} | {seen['reader ready']:.1f} | **{seen['stroke read']:.1f}** | "
                    f"{'yes' if seen['in page'] else 'no: the server read it'} | {seen['MB']:.2f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
